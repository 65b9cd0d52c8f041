"""Multi-layer perceptron trained with an explicit GradientTape loop.

Three Gaussian blobs in 8 dimensions, a two-layer MLP, Adam, and a hand-written
training loop that logs metrics after every epoch.
"""
import argparse
import random

import numpy as np
import tensorflow as tf

NUM_CLASSES = 3
INPUT_DIM = 8
HIDDEN_UNITS = 32
EPOCHS = 4
BATCH_SIZE = 64

random.seed(0)
np.random.seed(0)
tf.random.set_seed(0)
tf.keras.utils.set_random_seed(0)

CENTERS = np.random.RandomState(1).normal(scale=0.6, size=(NUM_CLASSES, INPUT_DIM))


def make_blobs(num_samples, rng):
    labels = rng.integers(0, NUM_CLASSES, size=num_samples)
    features = CENTERS[labels] + rng.normal(scale=1.0, size=(num_samples, INPUT_DIM))
    return features.astype(np.float32), labels.astype(np.int32)


def build_mlp(hidden_units, num_classes):
    return tf.keras.Sequential([
        tf.keras.Input(shape=(INPUT_DIM,)),
        tf.keras.layers.Dense(hidden_units, activation="relu"),
        tf.keras.layers.Dense(hidden_units, activation="relu"),
        tf.keras.layers.Dense(num_classes),
    ])


def cross_entropy(labels, logits):
    per_example = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    return tf.reduce_mean(per_example)


def accuracy(labels, logits):
    predictions = tf.argmax(logits, axis=-1, output_type=tf.int32)
    return tf.reduce_mean(tf.cast(tf.equal(predictions, labels), tf.float32))


def train_step(model, optimizer, x, y):
    with tf.GradientTape() as tape:
        logits = model(x, training=True)
        loss = cross_entropy(y, logits)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss, accuracy(y, logits)


def eval_step(model, x, y):
    logits = model(x, training=False)
    return cross_entropy(y, logits), accuracy(y, logits)


def log_metrics(split, epoch, metrics):
    parts = [f"{name}={value:.4f}" for name, value in sorted(metrics.items())]
    print(f"[{split}] epoch {epoch:02d} " + " ".join(parts))


def train(model, optimizer, x_train, y_train, x_val, y_val, epochs, batch_size):
    dataset = (
        tf.data.Dataset.from_tensor_slices((x_train, y_train))
        .shuffle(len(x_train), seed=0)
        .batch(batch_size)
    )
    history = []
    for epoch in range(1, epochs + 1):
        batch_losses, batch_accs = [], []
        for xb, yb in dataset:
            loss, acc = train_step(model, optimizer, xb, yb)
            batch_losses.append(loss)
            batch_accs.append(acc)
        train_loss = tf.reduce_mean(tf.stack(batch_losses)).numpy()
        train_acc = tf.reduce_mean(tf.stack(batch_accs)).numpy()
        val_loss, val_acc = eval_step(model, x_val, y_val)
        log_metrics("train", epoch, {"loss": float(train_loss), "acc": float(train_acc)})
        log_metrics("val", epoch, {"loss": float(val_loss), "acc": float(val_acc)})
        history.append((float(train_loss), float(val_loss.numpy())))
    print(f"finished {epochs} epochs")
    return history


def main():
    rng = np.random.default_rng(42)
    x_train, y_train = make_blobs(768, rng)
    x_val, y_val = make_blobs(256, rng)

    model = build_mlp(HIDDEN_UNITS, NUM_CLASSES)
    optimizer = tf.keras.optimizers.Adam(learning_rate=1e-2)
    history = train(model, optimizer, x_train, y_train, x_val, y_val,
                    epochs=EPOCHS, batch_size=BATCH_SIZE)

    val_loss, val_acc = eval_step(model, x_val, y_val)
    probs = tf.nn.softmax(model(x_val[:32], training=False))
    checksum = float(tf.reduce_mean(tf.reduce_max(probs, axis=-1)).numpy())
    final_train_loss, _ = history[-1]
    print(f"digest: {final_train_loss:.4f} {val_loss.numpy():.4f} "
          f"{val_acc.numpy():.4f} {checksum:.4f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="MLP on Gaussian blobs.")
    parser.add_argument("--epochs", type=int, default=EPOCHS,
                        help="number of training epochs")
    args = parser.parse_args()
    EPOCHS = int(args.epochs)
    main()
