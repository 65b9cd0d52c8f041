"""A tf.data input pipeline feeding a small CNN on synthetic stroke images.

Raw uint8 images (a horizontal, vertical or diagonal stroke, some blank frames from a faulty
"sensor") go through Dataset.map preprocessing, a filter that drops blank frames, stateless
augmentation and batching. A few warm-up steps pull batches from an iterator, then the model is
trained epoch by epoch on the batched dataset.
"""
import argparse
import random

import numpy as np
import tensorflow as tf

NUM_CLASSES = 3
IMAGE_SIZE = 12
BATCH_SIZE = 32
EPOCHS = 4


def make_raw_data(n, seed):
    rng = np.random.default_rng(seed)
    images = rng.integers(0, 40, size=(n, IMAGE_SIZE, IMAGE_SIZE), dtype=np.int64)
    labels = rng.integers(0, NUM_CLASSES, size=n)
    for i in range(n):
        pos = rng.integers(2, IMAGE_SIZE - 2)
        if labels[i] == 0:
            images[i, pos, :] = 230
        elif labels[i] == 1:
            images[i, :, pos] = 230
        else:
            np.fill_diagonal(images[i], 230)
    blank = rng.random(n) < 0.1
    images[blank] = 0
    return images.astype(np.uint8), labels.astype(np.int32)


def preprocess(image, label):
    image = tf.cast(image, tf.float32) / 255.0
    return image[..., tf.newaxis], tf.one_hot(label, NUM_CLASSES)


def augment(index, example):
    image, label = example
    seed = tf.stack([index, tf.constant(7, tf.int64)])
    image = tf.image.stateless_random_flip_left_right(image, seed)
    image = tf.image.stateless_random_brightness(image, 0.1, seed)
    return tf.clip_by_value(image, 0.0, 1.0), label


def make_pipeline(images, labels, batch_size, training, min_intensity=0.5):
    def keep_example(image, label):
        return tf.reduce_max(image) > min_intensity

    ds = tf.data.Dataset.from_tensor_slices((images, labels))
    ds = ds.map(preprocess, num_parallel_calls=tf.data.AUTOTUNE).filter(keep_example)
    if training:
        ds = ds.shuffle(512, seed=0).enumerate().map(augment, num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(batch_size).prefetch(tf.data.AUTOTUNE)


def compute_class_weights(labels):
    counts = np.bincount(labels, minlength=NUM_CLASSES)
    weights = counts.sum() / (NUM_CLASSES * counts)
    return tf.constant(weights, dtype=tf.float32)


def batch_statistics(images):
    return tf.reduce_mean(images), tf.math.reduce_std(images)


def build_model():
    return tf.keras.Sequential([
        tf.keras.layers.Conv2D(8, 3, activation="relu"),
        tf.keras.layers.MaxPooling2D(),
        tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(NUM_CLASSES),
    ])


def weighted_loss(labels, logits, class_weights):
    per_example = tf.nn.softmax_cross_entropy_with_logits(labels, logits)
    weights = tf.reduce_sum(labels * class_weights, axis=-1)
    return tf.reduce_mean(per_example * weights)


def train_on_next_batch(model, optimizer, iterator, class_weights):
    images, labels = next(iterator)
    with tf.GradientTape() as tape:
        loss = weighted_loss(labels, model(images, training=True), class_weights)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


def train_step(model, optimizer, images, labels, class_weights):
    with tf.GradientTape() as tape:
        loss = weighted_loss(labels, model(images, training=True), class_weights)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


def evaluate(model, dataset):
    accuracy = tf.keras.metrics.CategoricalAccuracy()
    for images, labels in dataset:
        accuracy.update_state(labels, model(images, training=False))
    return accuracy.result()


def main():
    random.seed(1)
    np.random.seed(1)
    tf.random.set_seed(1)
    train_images, train_labels = make_raw_data(384, seed=10)
    test_images, test_labels = make_raw_data(96, seed=11)
    class_weights = compute_class_weights(train_labels)

    train_ds = make_pipeline(train_images, train_labels, BATCH_SIZE, training=True)
    test_ds = make_pipeline(test_images, test_labels, BATCH_SIZE, training=False)

    sample_images, _ = next(iter(test_ds))
    pixel_mean, pixel_std = batch_statistics(sample_images)
    print(f"test batch pixels: mean {pixel_mean.numpy():.4f} std {pixel_std.numpy():.4f}")

    model = build_model()
    optimizer = tf.keras.optimizers.Adam(learning_rate=3e-3)

    warmup_iter = iter(train_ds.repeat())
    for _ in range(3):
        warmup_loss = train_on_next_batch(model, optimizer, warmup_iter, class_weights)

    epoch_losses = []
    for epoch in range(EPOCHS):
        total, batches = 0.0, 0
        for images, labels in train_ds:
            total += float(train_step(model, optimizer, images, labels, class_weights))
            batches += 1
        epoch_losses.append(total / batches)
        print(f"epoch {epoch + 1}: mean loss {epoch_losses[-1]:.4f} over {batches} batches")

    test_acc = evaluate(model, test_ds)
    print(f"warm-up loss {warmup_loss.numpy():.4f}, test accuracy {test_acc.numpy():.4f}")
    print("digest: " + " ".join(f"{v:.4f}" for v in [float(pixel_mean), float(pixel_std), float(warmup_loss),
                                                        *epoch_losses, float(test_acc)]))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Small CNN fed by a tf.data pipeline.")
    parser.add_argument("--epochs", type=int, default=EPOCHS, help="number of training epochs")
    args = parser.parse_args()
    EPOCHS = args.epochs
    main()
