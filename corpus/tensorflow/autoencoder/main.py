"""Denoising sparse autoencoder on synthetic low-rank data.

The data lives near a 3-dimensional subspace inside 20 dimensions; the
autoencoder compresses it to 4 codes.  Model and losses live in their own
modules, the training loop is here.
"""
import argparse

import numpy as np
import tensorflow as tf

from model import Autoencoder
from losses import reconstruction_loss, sparsity_penalty

INPUT_DIM = 20
LATENT_DIM = 4
NOISE_STDDEV = 0.1
SPARSITY_WEIGHT = 1e-3
EPOCHS = 5

np.random.seed(5)
tf.random.set_seed(5)
tf.keras.utils.set_random_seed(5)

MIXING = (np.random.RandomState(0).normal(size=(3, INPUT_DIM)) / np.sqrt(3.0)).astype(np.float32)
NOISE = tf.random.Generator.from_seed(5)
LOSS_HISTORY = []


def make_data(rng, num_samples):
    latent = rng.normal(size=(num_samples, 3))
    clean = latent @ MIXING
    return (clean + 0.05 * rng.normal(size=clean.shape)).astype(np.float32)


@tf.function
def corrupt(x, stddev):
    return x + stddev * NOISE.normal(tf.shape(x))


def train_step(model, optimizer, x):
    noisy = corrupt(x, NOISE_STDDEV)
    with tf.GradientTape() as tape:
        x_hat, codes = model(noisy, training=True)
        loss = reconstruction_loss(x, x_hat) + sparsity_penalty(codes, SPARSITY_WEIGHT)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


def record_loss(loss):
    LOSS_HISTORY.append(loss)


def encode(model, x):
    return model.encoder(x)


def reconstruction_error(model, x):
    x_hat, _ = model(x, training=False)
    return reconstruction_loss(x, x_hat)


def fit(model, optimizer, x_train, epochs, batch_size):
    dataset = tf.data.Dataset.from_tensor_slices(x_train).shuffle(1024, seed=5).batch(batch_size)
    for epoch in range(epochs):
        for batch in dataset:
            record_loss(train_step(model, optimizer, batch))
        recent = tf.reduce_mean(LOSS_HISTORY[-10:])
        print(f"epoch {epoch + 1}: recent loss {recent.numpy():.4f}")


def main():
    rng = np.random.default_rng(5)
    x_train = make_data(rng, 1024)
    x_test = make_data(rng, 256)

    model = Autoencoder(INPUT_DIM, LATENT_DIM)
    model(x_train[:1])  # create the weights before training
    optimizer = tf.keras.optimizers.Adam(learning_rate=5e-3)
    fit(model, optimizer, x_train, EPOCHS, batch_size=64)

    test_error = reconstruction_error(model, x_test)
    codes = encode(model, x_test)
    print(f"{len(LOSS_HISTORY)} steps, test reconstruction error {test_error.numpy():.4f}")
    print(f"digest: {LOSS_HISTORY[-1].numpy():.4f} {test_error.numpy():.4f} "
          f"{tf.reduce_mean(tf.abs(codes)).numpy():.4f} {len(LOSS_HISTORY)}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--epochs", type=int, default=EPOCHS,
                        help="passes over the training set")
    args = parser.parse_args()
    EPOCHS = int(args.epochs)
    main()
