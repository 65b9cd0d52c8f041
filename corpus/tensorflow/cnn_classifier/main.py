"""Small convolutional classifier on synthetic 16x16 grayscale images.

Each image is noise plus a bright square in one of four quadrants; the label is
the quadrant.  Keras Sequential CNN, custom training step, tf.data input pipeline.
"""
import argparse

import numpy as np
import tensorflow as tf
from tensorflow.keras import layers

IMAGE_SIZE = 16
NUM_CLASSES = 4
BATCH_SIZE = 32
EPOCHS = 3

np.random.seed(3)
tf.random.set_seed(3)
tf.keras.utils.set_random_seed(3)


def make_images(num_images, rng):
    images = rng.integers(0, 90, size=(num_images, IMAGE_SIZE, IMAGE_SIZE), dtype=np.int64)
    labels = rng.integers(0, NUM_CLASSES, size=num_images)
    half = IMAGE_SIZE // 2
    for i, label in enumerate(labels):
        row = (label // 2) * half + rng.integers(0, half - 4)
        col = (label % 2) * half + rng.integers(0, half - 4)
        images[i, row:row + 4, col:col + 4] += 45
    return images.astype(np.uint8), labels.astype(np.int32)


def preprocess(image, label):
    image = tf.cast(image, tf.float32) / 255.0
    return tf.expand_dims(image, axis=-1), label


def build_cnn(num_classes):
    return tf.keras.Sequential([
        layers.Input(shape=(IMAGE_SIZE, IMAGE_SIZE, 1)),
        layers.Conv2D(8, 3, padding="same", activation="relu"),
        layers.MaxPooling2D(),
        layers.Conv2D(8, 3, padding="same", activation="relu"),
        layers.MaxPooling2D(),
        layers.Flatten(),
        layers.Dense(num_classes),
    ])


def count_parameters(model):
    return int(sum(np.prod(v.shape) for v in model.trainable_variables))


def train_step(model, optimizer, loss_fn, images, labels):
    with tf.GradientTape() as tape:
        logits = model(images, training=True)
        loss = loss_fn(labels, logits)
    gradients = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(gradients, model.trainable_variables))
    return loss


def predict_batch(model, images):
    logits = model(images, training=False)
    return tf.argmax(logits, axis=-1, output_type=tf.int32)


def evaluate(model, images, labels):
    dataset = tf.data.Dataset.from_tensor_slices((images, labels)).map(preprocess).batch(64)
    correct, total = 0, 0
    for batch_images, batch_labels in dataset:
        predictions = predict_batch(model, batch_images)
        correct += int(tf.reduce_sum(tf.cast(predictions == batch_labels, tf.int32)).numpy())
        total += int(tf.size(batch_labels).numpy())
    return correct / total


def main():
    rng = np.random.default_rng(3)
    train_images, train_labels = make_images(384, rng)
    test_images, test_labels = make_images(128, rng)

    train_ds = (
        tf.data.Dataset.from_tensor_slices((train_images, train_labels))
        .map(preprocess)
        .shuffle(384, seed=3)
        .batch(BATCH_SIZE)
    )

    model = build_cnn(NUM_CLASSES)
    print("trainable parameters:", count_parameters(model))
    optimizer = tf.keras.optimizers.Adam(learning_rate=5e-3)
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    for epoch in range(EPOCHS):
        losses = [train_step(model, optimizer, loss_fn, x, y) for x, y in train_ds]
        mean_loss = tf.reduce_mean(losses).numpy()
        print(f"epoch {epoch + 1}: loss={mean_loss:.4f}")

    test_acc = evaluate(model, test_images, test_labels)
    sample, _ = preprocess(test_images[:8], test_labels[:8])
    predicted = predict_batch(model, sample)
    print(f"test accuracy: {test_acc:.4f}")
    print(f"digest: {mean_loss:.4f} {test_acc:.4f} {int(tf.reduce_sum(predicted).numpy())}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--epochs", type=int, default=EPOCHS,
                        help="passes over the training images")
    args = parser.parse_args()
    EPOCHS = int(args.epochs)
    main()
