"""A one-block Transformer encoder for sequence classification, written from scratch.

Multi-head attention is a custom Layer whose projection matrices are created in `build` with
`add_weight`; the encoder block wraps it with a feed-forward network, dropout and layer norm.
The task: label a sequence of token ids by whether the marker token 1 occurs in it.
"""
import argparse
import random

import numpy as np
import tensorflow as tf

VOCAB_SIZE = 20
MAX_LEN = 12
D_MODEL = 32
NUM_HEADS = 4
DFF = 64
EPOCHS = 3


def positional_encoding(length, depth):
    """Sinusoidal position table of shape (length, depth), computed with NumPy."""
    half = depth // 2
    positions = np.arange(length)[:, np.newaxis]
    depths = np.arange(half)[np.newaxis, :] / half
    angle_rads = positions / (10000 ** depths)
    table = np.concatenate([np.sin(angle_rads), np.cos(angle_rads)], axis=-1)
    return tf.cast(table, dtype=tf.float32)


POS_TABLE = positional_encoding(MAX_LEN, D_MODEL)


def create_padding_mask(seq):
    """1.0 where the token is padding (id 0), broadcastable over heads and queries."""
    mask = tf.cast(tf.math.equal(seq, 0), tf.float32)
    return mask[:, tf.newaxis, tf.newaxis, :]


def scaled_dot_product_attention(q, k, v, mask):
    matmul_qk = tf.matmul(q, k, transpose_b=True)
    dk = tf.cast(tf.shape(k)[-1], tf.float32)
    logits = matmul_qk / tf.math.sqrt(dk)
    if mask is not None:
        logits += mask * -1e9
    weights = tf.nn.softmax(logits, axis=-1)
    return tf.matmul(weights, v), weights


class MultiHeadAttention(tf.keras.layers.Layer):
    def __init__(self, d_model, num_heads, **kwargs):
        super().__init__(**kwargs)
        assert d_model % num_heads == 0
        self.d_model = d_model
        self.num_heads = num_heads
        self.depth = d_model // num_heads

    def build(self, input_shape):
        shape = (self.d_model, self.d_model)
        self.wq = self.add_weight(name="wq", shape=shape, initializer="glorot_uniform")
        self.wk = self.add_weight(name="wk", shape=shape, initializer="glorot_uniform")
        self.wv = self.add_weight(name="wv", shape=shape, initializer="glorot_uniform")
        self.wo = self.add_weight(name="wo", shape=shape, initializer="glorot_uniform")

    def split_heads(self, x, batch_size):
        x = tf.reshape(x, (batch_size, -1, self.num_heads, self.depth))
        return tf.transpose(x, perm=[0, 2, 1, 3])

    def call(self, v, k, q, mask):
        batch_size = tf.shape(q)[0]
        q = self.split_heads(tf.matmul(q, self.wq), batch_size)
        k = self.split_heads(tf.matmul(k, self.wk), batch_size)
        v = self.split_heads(tf.matmul(v, self.wv), batch_size)
        attention, weights = scaled_dot_product_attention(q, k, v, mask)
        attention = tf.transpose(attention, perm=[0, 2, 1, 3])
        concat = tf.reshape(attention, (batch_size, -1, self.d_model))
        return tf.matmul(concat, self.wo), weights


class EncoderBlock(tf.keras.layers.Layer):
    def __init__(self, d_model, num_heads, dff, rate=0.1, **kwargs):
        super().__init__(**kwargs)
        self.mha = MultiHeadAttention(d_model, num_heads)
        self.ffn = tf.keras.Sequential([
            tf.keras.layers.Dense(dff, activation="relu"),
            tf.keras.layers.Dense(d_model),
        ])
        self.norm1 = tf.keras.layers.LayerNormalization(epsilon=1e-6)
        self.norm2 = tf.keras.layers.LayerNormalization(epsilon=1e-6)
        self.dropout1 = tf.keras.layers.Dropout(rate)
        self.dropout2 = tf.keras.layers.Dropout(rate)

    def call(self, x, mask, training=False):
        attn_output, _ = self.mha(x, x, x, mask)
        out1 = self.norm1(x + self.dropout1(attn_output, training=training))
        ffn_output = self.ffn(out1)
        return self.norm2(out1 + self.dropout2(ffn_output, training=training))


class SequenceClassifier(tf.keras.Model):
    def __init__(self, vocab_size, d_model, num_heads, dff, num_classes):
        super().__init__()
        self.d_model = d_model
        self.embedding = tf.keras.layers.Embedding(vocab_size, d_model)
        self.encoder = EncoderBlock(d_model, num_heads, dff)
        self.pool = tf.keras.layers.GlobalAveragePooling1D()
        self.classifier = tf.keras.layers.Dense(num_classes)

    def call(self, tokens, training=False):
        mask = create_padding_mask(tokens)
        seq_len = tf.shape(tokens)[1]
        x = self.embedding(tokens)
        x *= tf.math.sqrt(tf.cast(self.d_model, tf.float32))
        x += POS_TABLE[tf.newaxis, :seq_len, :]
        x = self.encoder(x, mask, training=training)
        return self.classifier(self.pool(x))


def make_dataset(num_examples, seed):
    """Random token sequences with trailing padding; label 1 if the marker token 1 occurs."""
    rng = np.random.default_rng(seed)
    tokens = np.zeros((num_examples, MAX_LEN), dtype=np.int32)
    labels = rng.integers(0, 2, size=num_examples).astype(np.int32)
    for i in range(num_examples):
        length = rng.integers(6, MAX_LEN + 1)
        seq = rng.integers(2, VOCAB_SIZE, size=length)
        if labels[i]:
            seq[rng.integers(0, length)] = 1
        tokens[i, :length] = seq
    return tokens, labels


loss_object = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)


def train_step(model, optimizer, tokens, labels):
    with tf.GradientTape() as tape:
        logits = model(tokens, training=True)
        loss = loss_object(labels, logits)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


def accuracy(model, tokens, labels):
    logits = model(tokens, training=False)
    predictions = tf.argmax(logits, axis=-1, output_type=tf.int32)
    return tf.reduce_mean(tf.cast(tf.equal(predictions, labels), tf.float32))


def fit(model, optimizer, dataset, epochs):
    losses = []
    for epoch in range(epochs):
        for tokens, labels in dataset:
            loss = train_step(model, optimizer, tokens, labels)
        losses.append(loss.numpy())
        print(f"epoch {epoch + 1}: loss {losses[-1]:.4f}")
    return losses


def main():
    random.seed(0)
    np.random.seed(0)
    tf.random.set_seed(0)
    tokens, labels = make_dataset(384, seed=1)
    train_ds = tf.data.Dataset.from_tensor_slices((tokens[:320], labels[:320])).batch(32)
    model = SequenceClassifier(VOCAB_SIZE, D_MODEL, NUM_HEADS, DFF, num_classes=2)
    optimizer = tf.keras.optimizers.Adam(learning_rate=2e-3)
    losses = fit(model, optimizer, train_ds, epochs=EPOCHS)
    test_acc = accuracy(model, tokens[320:], labels[320:])
    probe = tf.constant(tokens[320:324])
    _, attn = model.encoder.mha(model.embedding(probe), model.embedding(probe),
                                model.embedding(probe), create_padding_mask(probe))
    print(f"test accuracy {test_acc.numpy():.4f}")
    print("digest: " + " ".join(f"{v:.4f}" for v in [*losses, float(test_acc),
                                                        float(tf.reduce_sum(attn[:, :, 0, :3]))]))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="One-block Transformer sequence classifier.")
    parser.add_argument("--epochs", type=int, default=EPOCHS, help="number of training epochs")
    args = parser.parse_args()
    EPOCHS = int(args.epochs)
    main()
