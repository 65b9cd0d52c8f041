"""Exact Gaussian-process regression with an RBF kernel.

Posterior mean/variance through a Cholesky factorisation, and type-II maximum
likelihood of the kernel hyper-parameters (stored as unconstrained tf.Variables).
"""
import argparse
import math

import numpy as np
import tensorflow as tf

JITTER = 1e-4
NUM_STEPS = 80

# Unconstrained hyper-parameters; positivity through exp().
log_lengthscale = tf.Variable(0.0, name="log_lengthscale")
log_variance = tf.Variable(0.0, name="log_variance")
log_noise = tf.Variable(math.log(0.3), name="log_noise")
HYPERPARAMETERS = [log_lengthscale, log_variance, log_noise]


def make_data(num_points, noise_std, seed):
    rng = np.random.default_rng(seed)
    x = np.sort(rng.uniform(-3.0, 3.0, size=(num_points, 1)), axis=0)
    y = np.sin(2.0 * x) + 0.3 * x + noise_std * rng.normal(size=x.shape)
    return tf.constant(x, tf.float32), tf.constant(y, tf.float32)


def hyperparameters():
    return tf.exp(log_lengthscale), tf.exp(log_variance), tf.exp(log_noise)


def squared_distances(x1, x2):
    x1_sq = tf.reduce_sum(tf.square(x1), axis=-1, keepdims=True)
    x2_sq = tf.reduce_sum(tf.square(x2), axis=-1, keepdims=True)
    d = x1_sq - 2.0 * tf.matmul(x1, x2, transpose_b=True) + tf.transpose(x2_sq)
    return tf.maximum(d, 0.0)


def rbf_kernel(x1, x2, lengthscale, variance):
    return variance * tf.exp(-0.5 * squared_distances(x1, x2) / tf.square(lengthscale))


def noisy_kernel_cholesky(x, lengthscale, variance, noise):
    n = tf.shape(x)[0]
    k = rbf_kernel(x, x, lengthscale, variance) + (noise + JITTER) * tf.eye(n)
    return tf.linalg.cholesky(k)


def log_marginal_likelihood(x, y):
    lengthscale, variance, noise = hyperparameters()
    chol = noisy_kernel_cholesky(x, lengthscale, variance, noise)
    alpha = tf.linalg.cholesky_solve(chol, y)
    data_fit = -0.5 * tf.reduce_sum(y * alpha)
    complexity = -tf.reduce_sum(tf.math.log(tf.linalg.diag_part(chol)))
    n = tf.cast(tf.shape(x)[0], tf.float32)
    return data_fit + complexity - 0.5 * n * math.log(2.0 * math.pi)


def gp_posterior(x_train, y_train, x_test):
    lengthscale, variance, noise = hyperparameters()
    chol = noisy_kernel_cholesky(x_train, lengthscale, variance, noise)
    k_star = rbf_kernel(x_train, x_test, lengthscale, variance)
    alpha = tf.linalg.cholesky_solve(chol, y_train)
    mean = tf.matmul(k_star, alpha, transpose_a=True)
    v = tf.linalg.triangular_solve(chol, k_star, lower=True)
    var = variance - tf.reduce_sum(tf.square(v), axis=0)
    return mean[:, 0], var + noise


def train_step(x, y, optimizer):
    with tf.GradientTape() as tape:
        loss = -log_marginal_likelihood(x, y)
    grads = tape.gradient(loss, HYPERPARAMETERS)
    optimizer.apply_gradients(zip(grads, HYPERPARAMETERS))
    return loss


def fit_hyperparameters(x, y, num_steps, learning_rate):
    optimizer = tf.keras.optimizers.Adam(learning_rate=learning_rate)
    loss = None
    for step in range(num_steps):
        loss = train_step(x, y, optimizer)
        if step % 20 == 0 or step == num_steps - 1:
            print(f"step {step:3d}  -log p(y|X) = {float(loss):.4f}")
    return loss


def predictive_log_density(mean, var, y_true):
    log_prob = -0.5 * (tf.math.log(2.0 * math.pi * var) + tf.square(y_true - mean) / var)
    return tf.reduce_mean(log_prob)


def rmse(prediction, target):
    return tf.sqrt(tf.reduce_mean(tf.square(prediction - target)))


def condition_number(matrix):
    eigenvalues = tf.linalg.eigvalsh(matrix)
    return eigenvalues[-1] / eigenvalues[0]


def main():
    np.random.seed(0)
    tf.random.set_seed(0)

    x_train, y_train = make_data(40, 0.1, 0)
    x_test, y_test = make_data(25, 0.1, 1)
    y_test = y_test[:, 0]

    # A hand-picked kernel (noise variance 0.01), to see how ill-conditioned the system is.
    k_hand = rbf_kernel(x_train, x_train, 0.5, 1.0)
    cond_hand = condition_number(k_hand + 0.01 * tf.eye(40))
    print(f"hand-picked kernel condition number: {float(cond_hand):.3e}")

    lml_before = log_marginal_likelihood(x_train, y_train)
    fit_hyperparameters(x_train, y_train, num_steps=NUM_STEPS, learning_rate=0.08)
    lml_after = log_marginal_likelihood(x_train, y_train)

    mean, var = gp_posterior(x_train, y_train, x_test)
    error = rmse(mean, y_test)
    nlpd = -predictive_log_density(mean, var, y_test)
    lengthscale, variance, noise = hyperparameters()
    print(f"lengthscale {float(lengthscale):.3f}  variance {float(variance):.3f}  noise {float(noise):.4f}")
    print(f"test RMSE {float(error):.4f}  NLPD {float(nlpd):.4f}")
    print(
        f"digest: {float(lml_before):.4f} {float(lml_after):.4f} {float(lengthscale):.4f} "
        f"{float(noise):.4f} {float(error):.4f} {float(nlpd):.4f} {math.log10(float(cond_hand)):.4f}"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=NUM_STEPS,
                        help="optimizer steps on the marginal likelihood")
    args = parser.parse_args()
    NUM_STEPS = int(args.steps)
    main()
