"""A small ResNet (subclassed tf.keras.Model with residual-block Layers) on synthetic images.

Each 16x16 image holds a bright square in one of four quadrants; the class is the quadrant.
Training: a short warm-up with plain SGD, then SGD with momentum and a cosine learning rate.
"""
import argparse
import random

import numpy as np
import tensorflow as tf
from tensorflow.keras import layers

NUM_CLASSES = 4
IMAGE_SIZE = 16
BATCH_SIZE = 32
EPOCHS = 3
BASE_LR = 0.05
TOTAL_STEPS = 24  # EPOCHS * 256 // BATCH_SIZE


class ResidualBlock(layers.Layer):
    """Two 3x3 convolutions with batch norm and an identity (or 1x1 projection) shortcut."""

    def __init__(self, filters, stride=1, **kwargs):
        super().__init__(**kwargs)
        self.conv1 = layers.Conv2D(filters, 3, strides=stride, padding="same", use_bias=False)
        self.bn1 = layers.BatchNormalization()
        self.conv2 = layers.Conv2D(filters, 3, padding="same", use_bias=False)
        self.bn2 = layers.BatchNormalization()
        if stride != 1:
            self.shortcut = layers.Conv2D(filters, 1, strides=stride, use_bias=False)
            self.shortcut_bn = layers.BatchNormalization()
        else:
            self.shortcut = None

    def call(self, x, training=False):
        residual = x
        if self.shortcut is not None:
            residual = self.shortcut_bn(self.shortcut(x), training=training)
        h = tf.nn.relu(self.bn1(self.conv1(x), training=training))
        h = self.bn2(self.conv2(h), training=training)
        return tf.nn.relu(h + residual)


class ResNetSmall(tf.keras.Model):
    def __init__(self, num_classes):
        super().__init__()
        self.stem = layers.Conv2D(16, 3, padding="same", use_bias=False)
        self.stem_bn = layers.BatchNormalization()
        self.block1 = ResidualBlock(16)
        self.block2 = ResidualBlock(32, stride=2)
        self.pool = layers.GlobalAveragePooling2D()
        self.head = layers.Dense(num_classes)

    def call(self, x, training=False):
        x = tf.nn.relu(self.stem_bn(self.stem(x), training=training))
        x = self.block1(x, training=training)
        x = self.block2(x, training=training)
        return self.head(self.pool(x))


def make_synthetic_images(n, seed):
    rng = np.random.default_rng(seed)
    images = rng.normal(0.0, 0.3, size=(n, IMAGE_SIZE, IMAGE_SIZE, 3)).astype(np.float32)
    labels = rng.integers(0, NUM_CLASSES, size=n).astype(np.int32)
    half = IMAGE_SIZE // 2
    for i, label in enumerate(labels):
        r0, c0 = (label // 2) * half + 2, (label % 2) * half + 2
        images[i, r0:r0 + 4, c0:c0 + 4, :] += 1.5
    return images, labels


def normalize_images(images, mean, std):
    return (tf.convert_to_tensor(images, tf.float32) - mean) / std


loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)


def train_step(model, optimizer, images, labels):
    with tf.GradientTape() as tape:
        logits = model(images, training=True)
        loss = loss_fn(labels, logits)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


def warmup_step(model, optimizer, images, labels):
    variables = model.trainable_variables
    with tf.GradientTape() as tape:
        logits = model(images, training=True)
        loss = loss_fn(labels, logits)
    grads = tape.gradient(loss, variables)
    optimizer.apply_gradients(zip(grads, variables))
    return loss


@tf.function
def cosine_lr(step, total_steps):
    progress = tf.minimum(tf.cast(step, tf.float32) / total_steps, 1.0)
    return 0.5 * BASE_LR * (1.0 + tf.cos(np.pi * progress))


def evaluate(model, images, labels):
    logits = model(images, training=False)
    correct = tf.equal(tf.argmax(logits, axis=-1, output_type=tf.int32), labels)
    return tf.reduce_mean(tf.cast(correct, tf.float32))


def predict_labels(model, images):
    return tf.argmax(model(images, training=False), axis=-1).numpy()


def fit(model, optimizer, dataset, epochs):
    for epoch in range(epochs):
        losses = []
        for images, labels in dataset:
            optimizer.learning_rate = cosine_lr(optimizer.iterations, TOTAL_STEPS)
            losses.append(train_step(model, optimizer, images, labels))
        epoch_loss = tf.reduce_mean(losses).numpy()
        print(f"epoch {epoch + 1}: loss {epoch_loss:.4f} lr {optimizer.learning_rate.numpy():.5f}")
    return epoch_loss


def main():
    random.seed(42)
    np.random.seed(42)
    tf.random.set_seed(42)
    train_x, train_y = make_synthetic_images(256, seed=0)
    test_x, test_y = make_synthetic_images(64, seed=1)
    mean, std = train_x.mean(axis=(0, 1, 2)), train_x.std(axis=(0, 1, 2))
    train_x = normalize_images(train_x, mean, std)
    test_x = normalize_images(test_x, mean, std)

    model = ResNetSmall(NUM_CLASSES)
    initial_acc = evaluate(model, test_x, test_y)

    warmup_opt = tf.keras.optimizers.SGD(learning_rate=0.01)
    for i in range(2):
        warmup_step(model, warmup_opt, train_x[i * 32:(i + 1) * 32], train_y[i * 32:(i + 1) * 32])

    dataset = tf.data.Dataset.from_tensor_slices((train_x, train_y)).batch(BATCH_SIZE)
    optimizer = tf.keras.optimizers.SGD(learning_rate=BASE_LR, momentum=0.9)
    final_loss = fit(model, optimizer, dataset, EPOCHS)

    test_acc = evaluate(model, test_x, test_y)
    preds = predict_labels(model, test_x)
    counts = np.bincount(preds, minlength=NUM_CLASSES)
    print(f"initial acc {initial_acc.numpy():.4f} -> test acc {test_acc.numpy():.4f}, predicted counts {counts}")
    print("digest: " + " ".join(f"{v:.4f}" for v in [final_loss, float(test_acc), *counts.tolist()]))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Small ResNet on synthetic quadrant images.")
    parser.add_argument("--epochs", type=int, default=EPOCHS, help="number of training epochs")
    args = parser.parse_args()
    EPOCHS = int(args.epochs)
    TOTAL_STEPS = EPOCHS * 256 // BATCH_SIZE
    main()
