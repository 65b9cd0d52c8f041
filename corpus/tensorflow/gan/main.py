"""A small GAN that learns a ring of 2-D Gaussians.

Generator and discriminator are Keras Sequential MLPs, each with its own Adam optimizer. The
training step follows the DCGAN tutorial: both tapes are opened together and the step is
compiled with @tf.function.
"""
import argparse
import random

import numpy as np
import tensorflow as tf
from tensorflow import keras

LATENT_DIM = 8
DATA_DIM = 2
BATCH_SIZE = 64
NUM_MODES = 6
TRAIN_STEPS = 300

random.seed(7)
np.random.seed(7)
tf.random.set_seed(7)


def mode_centers(num_modes, radius):
    """Centers of the mixture components, evenly spaced on a circle."""
    angles = np.linspace(0.0, 2.0 * np.pi, num_modes, endpoint=False)
    return np.stack([radius * np.cos(angles), radius * np.sin(angles)], axis=1).astype(np.float32)


def sample_real_data(n, centers, std):
    """Draw n points from the ring mixture (NumPy, own Generator)."""
    rng = np.random.default_rng(1234)
    idx = rng.integers(0, len(centers), size=n)
    points = np.take(centers, idx, axis=0) + std * rng.standard_normal((n, DATA_DIM))
    return points.astype(np.float32)


def make_generator(latent_dim, data_dim):
    return keras.Sequential(
        [
            keras.layers.Dense(32, activation="relu"),
            keras.layers.Dense(32, activation="relu"),
            keras.layers.Dense(data_dim),
        ],
        name="generator",
    )


def make_discriminator():
    return keras.Sequential(
        [
            keras.layers.Dense(32, activation="relu"),
            keras.layers.Dense(32, activation="relu"),
            keras.layers.Dense(1),
        ],
        name="discriminator",
    )


cross_entropy = keras.losses.BinaryCrossentropy(from_logits=True)


def discriminator_loss(real_output, fake_output):
    real_loss = cross_entropy(tf.ones_like(real_output), real_output)
    fake_loss = cross_entropy(tf.zeros_like(fake_output), fake_output)
    return real_loss + fake_loss


def generator_loss(fake_output):
    return cross_entropy(tf.ones_like(fake_output), fake_output)


generator = make_generator(LATENT_DIM, DATA_DIM)
discriminator = make_discriminator()
generator_optimizer = keras.optimizers.Adam(1e-3, beta_1=0.5)
discriminator_optimizer = keras.optimizers.Adam(1e-3, beta_1=0.5)


@tf.function
def train_step(real_batch):
    noise = tf.random.normal([tf.shape(real_batch)[0], LATENT_DIM])
    with tf.GradientTape() as gen_tape, tf.GradientTape() as disc_tape:
        generated = generator(noise, training=True)
        real_output = discriminator(real_batch, training=True)
        fake_output = discriminator(generated, training=True)
        gen_loss = generator_loss(fake_output)
        disc_loss = discriminator_loss(real_output, fake_output)
    gen_grads = gen_tape.gradient(gen_loss, generator.trainable_variables)
    disc_grads = disc_tape.gradient(disc_loss, discriminator.trainable_variables)
    generator_optimizer.apply_gradients(zip(gen_grads, generator.trainable_variables))
    discriminator_optimizer.apply_gradients(zip(disc_grads, discriminator.trainable_variables))
    return gen_loss, disc_loss


@tf.function
def interpolate_latents(z_start, z_end, num_points):
    """Points on the straight line between two latent codes."""
    alphas = tf.linspace(0.0, 1.0, num_points)[:, tf.newaxis]
    return (1.0 - alphas) * z_start[tf.newaxis, :] + alphas * z_end[tf.newaxis, :]


def mean_min_distance(samples, centers):
    """Average distance from each sample to its nearest mode center."""
    diffs = samples[:, tf.newaxis, :] - centers[tf.newaxis, :, :]
    dists = tf.norm(diffs, axis=-1)
    return tf.reduce_mean(tf.reduce_min(dists, axis=1))


def evaluate(real_batch, noise, centers):
    fake = generator(noise, training=False)
    fake_logits = discriminator(fake, training=False)
    real_logits = discriminator(real_batch, training=False)
    real_acc = tf.reduce_mean(tf.cast(real_logits > 0.0, tf.float32))
    return generator_loss(fake_logits), real_acc, mean_min_distance(fake, centers)


def train(dataset, steps, log_every=100):
    history = []
    for step, real_batch in enumerate(dataset.take(steps)):
        gen_loss, disc_loss = train_step(real_batch)
        history.append((float(gen_loss), float(disc_loss)))
        if (step + 1) % log_every == 0:
            print(f"step {step + 1}: gen_loss={gen_loss.numpy():.4f} disc_loss={disc_loss.numpy():.4f}")
    return history


def main():
    centers = mode_centers(NUM_MODES, 2.0)
    data = sample_real_data(2048, centers, 0.05)
    dataset = (
        tf.data.Dataset.from_tensor_slices(data)
        .shuffle(2048, seed=3)
        .batch(BATCH_SIZE, drop_remainder=True)
        .repeat()
    )
    eval_noise = tf.random.normal([256, LATENT_DIM], seed=11)
    eval_real = tf.constant(data[:256])

    history = train(dataset, TRAIN_STEPS)
    g_eval, real_acc, dist = evaluate(eval_real, eval_noise, centers)

    path = interpolate_latents(eval_noise[0], eval_noise[1], 5)
    path_samples = generator(path, training=False)
    print(f"eval: gen_loss={g_eval.numpy():.4f} real_acc={real_acc.numpy():.4f} dist={dist.numpy():.4f}")
    g_last, d_last = history[-1]
    checksum = float(tf.reduce_sum(tf.abs(path_samples)))
    print(
        "digest: "
        + " ".join(
            f"{v:.4f}" for v in (g_last, d_last, float(g_eval), float(real_acc), float(dist), checksum)
        )
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=TRAIN_STEPS,
                        help="training steps (one batch each)")
    args = parser.parse_args()
    TRAIN_STEPS = int(args.steps)
    main()
