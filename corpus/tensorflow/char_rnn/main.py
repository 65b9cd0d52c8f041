"""Character-level GRU language model on a small synthetic corpus.

Trains next-character prediction with a GradientTape loop over a tf.data pipeline of
fixed-length windows, then samples new text one character at a time with Python's random.
"""
import argparse
import random

import numpy as np
import tensorflow as tf
from tensorflow.keras import layers

TEXT = ("the quick brown fox jumps over the lazy dog. " * 6
        + "a stitch in time saves nine. " * 5
        + "all that glitters is not gold. " * 4)
VOCAB = sorted(set(TEXT))
CHAR2IDX = {c: i for i, c in enumerate(VOCAB)}
SEQ_LEN = 24
EPOCHS = 8


def encode(text):
    return tf.constant([CHAR2IDX[c] for c in text], dtype=tf.int32)


def decode(ids):
    return "".join(VOCAB[i] for i in ids)


def split_input_target(chunk):
    return chunk[:-1], chunk[1:]


def make_dataset(ids, seq_len, batch_size):
    ds = tf.data.Dataset.from_tensor_slices(ids)
    ds = ds.batch(seq_len + 1, drop_remainder=True).map(split_input_target)
    return ds.shuffle(64, seed=7).batch(batch_size, drop_remainder=True)


class CharGRU(tf.keras.Model):
    def __init__(self, vocab_size, embed_dim, units):
        super().__init__()
        self.embed = layers.Embedding(vocab_size, embed_dim)
        self.gru = layers.GRU(units, return_sequences=True, return_state=True)
        self.head = layers.Dense(vocab_size)

    def build(self, input_shape):
        # Create every sub-layer's weights up front instead of on the first call.
        self.embed.build(input_shape)
        self.gru.build((*input_shape, self.embed.output_dim))
        self.head.build((*input_shape, self.gru.units))

    def call(self, inputs, state=None, return_state=False):
        x = self.embed(inputs)
        seq, state = self.gru(x, initial_state=state)
        logits = self.head(seq)
        if return_state:
            return logits, state
        return logits


def loss_fn(targets, logits):
    return tf.reduce_mean(
        tf.keras.losses.sparse_categorical_crossentropy(targets, logits, from_logits=True))


def accuracy(targets, logits):
    preds = tf.argmax(logits, axis=-1, output_type=tf.int32)
    return tf.reduce_mean(tf.cast(tf.equal(preds, targets), tf.float32))


def train_step(model, optimizer, inputs, targets):
    with tf.GradientTape() as tape:
        logits = model(inputs)
        loss = loss_fn(targets, logits)
    grads = tape.gradient(loss, model.trainable_variables)
    grads, _ = tf.clip_by_global_norm(grads, 5.0)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


def eval_batch(model, inputs, targets):
    logits = model(inputs)
    return loss_fn(targets, logits), accuracy(targets, logits)


def sample(model, start, length, temperature):
    logits, state = model(encode(start)[tf.newaxis, :], return_state=True)
    generated = []
    for _ in range(length):
        probs = tf.nn.softmax(logits[0, -1] / temperature).numpy()
        next_id = random.choices(range(len(VOCAB)), weights=probs)[0]
        generated.append(next_id)
        logits, state = model(tf.constant([[next_id]]), state=state, return_state=True)
    return start + decode(generated)


def main():
    random.seed(0)
    np.random.seed(0)
    tf.random.set_seed(0)

    ids = encode(TEXT)
    ds = make_dataset(ids, SEQ_LEN, 8)
    model = CharGRU(len(VOCAB), 16, 48)
    optimizer = tf.keras.optimizers.Adam(learning_rate=0.02)

    for epoch in range(EPOCHS):
        losses = []
        for inputs, targets in ds:
            losses.append(float(train_step(model, optimizer, inputs, targets)))
        print(f"epoch {epoch}  loss {np.mean(losses):.4f}")

    eval_inputs, eval_targets = next(iter(ds))
    eval_loss, eval_acc = eval_batch(model, eval_inputs, eval_targets)
    prompt_logits = model(encode("the quick ")[tf.newaxis, :])
    prompt_nll = float(loss_fn(encode("he quick b")[tf.newaxis, :], prompt_logits))
    text = sample(model, "the ", 30, 0.8)
    print("sample:", repr(text))
    weight_sum = sum(float(tf.reduce_sum(v).numpy()) for v in model.trainable_variables)
    print("digest:", " ".join(f"{v:.4f}" for v in (
        np.mean(losses), float(eval_loss), float(eval_acc), prompt_nll, weight_sum)))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--epochs", type=int, default=EPOCHS, help="passes over the text")
    args = parser.parse_args()
    EPOCHS = int(args.epochs)
    main()
