"""Variational autoencoder on synthetic binary patterns.

A tf.keras.Model subclass with an encoder producing (mean, log-variance), a
Sampling layer implementing the reparameterization trick, a Bernoulli decoder
and the usual ELBO = reconstruction + KL objective, trained with GradientTape.
Per-epoch metrics go to a small text log in a temporary directory.
"""
import argparse
import os
import random
import shutil
import tempfile

import numpy as np
import tensorflow as tf

INPUT_DIM = 24
LATENT_DIM = 2
HIDDEN_UNITS = 32
NUM_PROTOTYPES = 4
EPOCHS = 4

random.seed(21)
np.random.seed(21)
tf.random.set_seed(21)

SAMPLER = tf.random.Generator.from_seed(21)


class Sampling(tf.keras.layers.Layer):
    """z = mean + exp(log_var / 2) * eps with eps ~ N(0, I)."""

    def call(self, inputs):
        z_mean, z_log_var = inputs
        eps = SAMPLER.normal(tf.shape(z_mean))
        return z_mean + tf.exp(0.5 * z_log_var) * eps


class VAE(tf.keras.Model):
    def __init__(self, input_dim, latent_dim, hidden_units=HIDDEN_UNITS):
        super().__init__()
        self.enc_hidden = tf.keras.layers.Dense(hidden_units, activation="relu")
        self.enc_mean = tf.keras.layers.Dense(latent_dim)
        self.enc_log_var = tf.keras.layers.Dense(latent_dim)
        self.sampling = Sampling()
        self.dec_hidden = tf.keras.layers.Dense(hidden_units, activation="relu")
        self.dec_logits = tf.keras.layers.Dense(input_dim)

    def encode(self, x):
        h = self.enc_hidden(x)
        return self.enc_mean(h), self.enc_log_var(h)

    def decode(self, z):
        return self.dec_logits(self.dec_hidden(z))

    def call(self, x):
        z_mean, z_log_var = self.encode(x)
        z = self.sampling((z_mean, z_log_var))
        return self.decode(z), z_mean, z_log_var


def make_patterns(rng, num_samples):
    prototypes = np.random.RandomState(0).rand(NUM_PROTOTYPES, INPUT_DIM) > 0.5
    which = rng.integers(0, NUM_PROTOTYPES, size=num_samples)
    flips = rng.random((num_samples, INPUT_DIM)) < 0.05
    return (prototypes[which] ^ flips).astype(np.float32)


def reconstruction_loss(x, logits):
    per_pixel = tf.nn.sigmoid_cross_entropy_with_logits(labels=x, logits=logits)
    return tf.reduce_mean(tf.reduce_sum(per_pixel, axis=1))


def kl_divergence(z_mean, z_log_var):
    kl = -0.5 * (1.0 + z_log_var - tf.square(z_mean) - tf.exp(z_log_var))
    return tf.reduce_mean(tf.reduce_sum(kl, axis=1))


def train_step(model, optimizer, x):
    with tf.GradientTape() as tape:
        logits, z_mean, z_log_var = model(x)
        recon = reconstruction_loss(x, logits)
        kl = kl_divergence(z_mean, z_log_var)
        loss = recon + kl
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss, recon, kl


def negative_elbo(model, x):
    logits, z_mean, z_log_var = model(x)
    return reconstruction_loss(x, logits) + kl_divergence(z_mean, z_log_var)


def pick_batch(batches):
    return random.choice(batches)


def generate(model, num_samples):
    z = tf.random.stateless_normal((num_samples, LATENT_DIM), seed=[7, 7])
    return tf.sigmoid(model.decode(z))


def write_log(path, history):
    with open(path, "w") as fh:
        fh.write("epoch\tloss\trecon\tkl\n")
        for epoch, (loss, recon, kl) in enumerate(history, start=1):
            fh.write(f"{epoch}\t{loss:.4f}\t{recon:.4f}\t{kl:.4f}\n")


def train(model, optimizer, x_train, epochs, batch_size):
    dataset = tf.data.Dataset.from_tensor_slices(x_train).shuffle(1024, seed=21).batch(batch_size)
    history = []
    for epoch in range(epochs):
        totals = np.zeros(3)
        batches = 0
        for batch in dataset:
            totals += [t.numpy() for t in train_step(model, optimizer, batch)]
            batches += 1
        history.append(tuple(float(v) for v in totals / batches))
        print("epoch {}: loss={:.4f} recon={:.4f} kl={:.4f}".format(epoch + 1, *history[-1]))
    return history


def main():
    rng = np.random.default_rng(21)
    x_train = make_patterns(rng, 768)
    x_test = make_patterns(rng, 256)

    model = VAE(INPUT_DIM, LATENT_DIM)
    model(x_train[:2])  # build the weights
    optimizer = tf.keras.optimizers.Adam(learning_rate=1e-2)
    history = train(model, optimizer, x_train, EPOCHS, batch_size=64)

    log_dir = tempfile.mkdtemp(prefix="vae_logs_")
    log_path = os.path.join(log_dir, "metrics.tsv")
    write_log(log_path, history)
    with open(log_path) as fh:
        logged_epochs = len(fh.readlines()) - 1

    test_batches = [x_test[i:i + 64] for i in range(0, len(x_test), 64)]
    shown = pick_batch(test_batches)
    shown_elbo = negative_elbo(model, shown)
    test_elbo = negative_elbo(model, x_test)
    samples = generate(model, 16)
    print(f"test -ELBO {test_elbo.numpy():.4f}, random batch -ELBO {shown_elbo.numpy():.4f}")
    print(f"{logged_epochs} epochs logged to {log_path}")
    shutil.rmtree(log_dir)
    print(f"digest: {history[-1][0]:.4f} {history[-1][2]:.4f} {test_elbo.numpy():.4f} "
          f"{shown_elbo.numpy():.4f} {tf.reduce_mean(samples).numpy():.4f} {logged_epochs}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Variational autoencoder on binary patterns.")
    parser.add_argument("--epochs", type=int, default=EPOCHS, help="number of training epochs")
    args = parser.parse_args()
    EPOCHS = args.epochs
    main()
