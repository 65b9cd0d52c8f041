"""An MLP trained, then distilled, by steps defined inside the functions that loop.

TF2's custom training loop as tutorials write it: `train` defines `train_step`, closed over
the model, the optimizer and the loss, and calls it for every batch of every epoch. `distill`
does the same for a student network, with a softening temperature it halves after each
epoch; `evaluate` defines a metric helper it calls once.
"""
import argparse

import numpy as np
import tensorflow as tf

NUM_CLASSES = 4
INPUT_DIM = 16
HIDDEN_UNITS = 64
NUM_SAMPLES = 1024
BATCH_SIZE = 32
EPOCHS = 3

np.random.seed(5)
tf.random.set_seed(5)
tf.keras.utils.set_random_seed(5)


def make_data(num_samples, rng):
    centers = np.random.RandomState(7).normal(scale=0.8, size=(NUM_CLASSES, INPUT_DIM))
    labels = rng.integers(0, NUM_CLASSES, size=num_samples)
    features = centers[labels] + rng.normal(scale=1.0, size=(num_samples, INPUT_DIM))
    return features.astype(np.float32), labels.astype(np.int32)


def build_mlp(hidden_units):
    return tf.keras.Sequential([
        tf.keras.Input(shape=(INPUT_DIM,)),
        tf.keras.layers.Dense(hidden_units, activation="relu"),
        tf.keras.layers.Dense(hidden_units, activation="relu"),
        tf.keras.layers.Dense(NUM_CLASSES),
    ])


def train(model, optimizer, dataset, epochs):
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    def train_step(x, y):
        with tf.GradientTape() as tape:
            logits = model(x, training=True)
            loss = loss_fn(y, logits)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    history = []
    for epoch in range(epochs):
        losses = []
        for x, y in dataset:
            losses.append(train_step(x, y))
        history.append(tf.reduce_mean(tf.stack(losses)).numpy())
        print(f"[train] epoch {epoch:02d} loss={history[-1]:.4f}")
    return history


def distill(teacher, student, optimizer, dataset, epochs):
    temperature = 4.0

    def distill_step(x):
        soft_targets = tf.nn.softmax(teacher(x, training=False) / temperature)
        with tf.GradientTape() as tape:
            logits = student(x, training=True) / temperature
            loss = tf.reduce_mean(
                tf.nn.softmax_cross_entropy_with_logits(labels=soft_targets, logits=logits)
            )
        grads = tape.gradient(loss, student.trainable_variables)
        optimizer.apply_gradients(zip(grads, student.trainable_variables))
        return loss

    last = 0.0
    for epoch in range(epochs):
        for x, _ in dataset:
            last = distill_step(x).numpy()
        print(f"[distill] epoch {epoch:02d} T={temperature:.1f} loss={last:.4f}")
        temperature = max(1.0, temperature / 2.0)
    return last


def evaluate(model, x, y):
    def accuracy(logits):
        predictions = tf.argmax(logits, axis=-1, output_type=tf.int32)
        return tf.reduce_mean(tf.cast(tf.equal(predictions, y), tf.float32))

    return accuracy(model(x, training=False))


def main():
    rng = np.random.default_rng(11)
    x_train, y_train = make_data(NUM_SAMPLES, rng)
    x_val, y_val = make_data(256, rng)
    dataset = (
        tf.data.Dataset.from_tensor_slices((x_train, y_train))
        .shuffle(NUM_SAMPLES, seed=0)
        .batch(BATCH_SIZE)
    )
    teacher = build_mlp(HIDDEN_UNITS)
    history = train(teacher, tf.keras.optimizers.Adam(1e-2), dataset, EPOCHS)
    student = build_mlp(HIDDEN_UNITS // 4)
    distilled = distill(teacher, student, tf.keras.optimizers.Adam(1e-2), dataset, EPOCHS)
    teacher_acc = evaluate(teacher, x_val, y_val).numpy()
    student_acc = evaluate(student, x_val, y_val).numpy()
    print(f"digest: {history[-1]:.4f} {distilled:.4f} {teacher_acc:.4f} {student_acc:.4f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="MLP trained and distilled by nested steps.")
    parser.add_argument("--epochs", type=int, default=EPOCHS, help="number of training epochs")
    args = parser.parse_args()
    EPOCHS = int(args.epochs)
    main()
