"""Tabular 3-class classifier in the style of the TF2 "quickstart for experts".

The author put @tf.function on most helpers "for speed", including some where it
only adds tracing overhead.
"""
import argparse
import math
import random

import numpy as np
import tensorflow as tf

random.seed(3)
np.random.seed(3)
tf.random.set_seed(3)

NUM_FEATURES = 10
NUM_CLASSES = 3
BATCH_SIZE = 32
EPOCHS = 4
STEPS_PER_EPOCH = 8
NUM_STEPS = EPOCHS * STEPS_PER_EPOCH
BASE_LR = 0.05


def make_data(num_samples, seed):
    features = tf.random.stateless_normal([num_samples, NUM_FEATURES], seed=[seed, 0])
    projection = tf.random.stateless_normal([NUM_FEATURES, NUM_CLASSES], seed=[17, 1])
    labels = tf.argmax(tf.matmul(features, projection), axis=1, output_type=tf.int32)
    return features, labels


def build_model(hidden_units):
    return tf.keras.Sequential([
        tf.keras.Input(shape=(NUM_FEATURES,)),
        tf.keras.layers.Dense(hidden_units, activation="relu"),
        tf.keras.layers.Dense(NUM_CLASSES),
    ])


model = build_model(32)
optimizer = tf.keras.optimizers.SGD(learning_rate=BASE_LR, momentum=0.9)


@tf.function
def cosine_decay_schedule():
    steps = tf.range(NUM_STEPS, dtype=tf.float32)
    return BASE_LR * 0.5 * (1.0 + tf.cos(math.pi * steps / NUM_STEPS))


@tf.function
def as_batch(features, labels):
    """Pack a dataset element into the dict that train_step expects."""
    return {"features": features, "labels": labels}


@tf.function
def smoothed_cross_entropy(labels, logits, smoothing):
    one_hot = tf.one_hot(labels, NUM_CLASSES)
    targets = one_hot * (1.0 - smoothing) + smoothing / NUM_CLASSES
    return tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(targets, logits))


@tf.function
def train_step(batch):
    print("Tracing train_step for", batch["features"].shape)
    with tf.GradientTape() as tape:
        logits = model(batch["features"], training=True)
        loss = smoothed_cross_entropy(batch["labels"], logits, 0.1)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


def accuracy(labels, logits):
    predictions = tf.argmax(logits, axis=1, output_type=tf.int32)
    return tf.reduce_mean(tf.cast(tf.equal(predictions, labels), tf.float32))


@tf.function
def eval_step(features, labels):
    logits = model(features, training=False)
    return accuracy(labels, logits)


@tf.function
def predict_classes(features):
    return tf.argmax(model(features, training=False), axis=1, output_type=tf.int32)


def validation_report(features, labels):
    logits = model(features, training=False)
    plain = smoothed_cross_entropy(labels, logits, 0.0)
    smoothed = smoothed_cross_entropy(labels, logits, 0.1)
    return plain, smoothed


def class_histogram(predictions):
    return tf.math.bincount(predictions, minlength=NUM_CLASSES, maxlength=NUM_CLASSES)


def main():
    x_train, y_train = make_data(NUM_STEPS * BATCH_SIZE // EPOCHS, 1)
    x_val, y_val = make_data(200, 2)
    train_ds = (
        tf.data.Dataset.from_tensor_slices((x_train, y_train))
        .shuffle(256, seed=5, reshuffle_each_iteration=True)
        .batch(BATCH_SIZE)
    )

    schedule = cosine_decay_schedule()
    step = 0
    loss = tf.constant(0.0)
    for epoch in range(EPOCHS):
        for features, labels in train_ds:
            optimizer.learning_rate.assign(schedule[step])
            loss = train_step(as_batch(features, labels))
            step += 1
        val_acc = eval_step(x_val, y_val)
        print(f"epoch {epoch}: loss {float(loss):.4f}  val accuracy {float(val_acc):.3f}")

    plain, smoothed = validation_report(x_val, y_val)
    hist = class_histogram(predict_classes(x_val))
    print(f"val loss {float(plain):.4f} (smoothed {float(smoothed):.4f}), predicted classes {hist}")
    counts = " ".join(str(int(c)) for c in hist)
    print(f"digest: {float(loss):.4f} {float(val_acc):.4f} {float(plain):.4f} {float(smoothed):.4f} {counts}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Tabular 3-class classifier.")
    parser.add_argument("--epochs", type=int, default=EPOCHS, help="number of training epochs")
    args = parser.parse_args()
    EPOCHS = int(args.epochs)
    NUM_STEPS = EPOCHS * STEPS_PER_EPOCH
    main()
