"""Polynomial regression on a noisy cubic, mixing NumPy and TensorFlow.

NumPy prepares the data (features, split, standardisation) and computes a closed-form
least-squares baseline; TensorFlow fits the same model by gradient descent with a Huber
loss whose threshold is re-estimated every epoch from the current residuals.
"""
import argparse

import numpy as np
import tensorflow as tf

EPOCHS = 25


def make_data(n, noise):
    rng = np.random.default_rng(0)
    x = rng.uniform(-2.0, 2.0, size=(n, 1))
    y = 0.5 * x ** 3 - x + 0.3 + noise * rng.standard_normal((n, 1))
    return x.astype(np.float32), y.astype(np.float32)


def polynomial_features(x, degree):
    return np.concatenate([x ** k for k in range(1, degree + 1)], axis=1)


def train_val_split(x, y, train_frac):
    n_train = int(len(x) * train_frac)
    return x[:n_train], y[:n_train], x[n_train:], y[n_train:]


def standardize(feats):
    mean = np.mean(feats, axis=0, keepdims=True)
    std = np.std(feats, axis=0, keepdims=True) + 1e-6
    return (feats - mean) / std, mean, std


def apply_standardization(feats, mean, std):
    return (feats - mean) / std


def closed_form_fit(feats, y):
    design = np.concatenate([feats, np.ones((len(feats), 1), np.float32)], axis=1)
    coef, *_ = np.linalg.lstsq(design, y, rcond=None)
    return coef[:-1], coef[-1]


def predict(w, b, feats):
    return tf.matmul(feats, w) + b


def mse(y_true, y_pred):
    return tf.reduce_mean(tf.square(y_true - y_pred))


def huber_loss(y_true, y_pred, delta):
    err = tf.abs(y_true - y_pred)
    quad = tf.minimum(err, delta)
    lin = err - quad
    return tf.reduce_mean(0.5 * tf.square(quad) + delta * lin)


def robust_delta(residuals):
    # Huber's 1.345 rule on a clipped mean absolute residual: outliers should not set the scale.
    r = tf.abs(residuals)
    scale = np.mean(np.clip(r, 0.0, 3.0))
    return tf.constant(1.345 * scale, dtype=tf.float32)


@tf.function
def batch_residuals(w, b, x, y):
    return y - predict(w, b, x)


def train_step(w, b, x, y, delta, optimizer):
    with tf.GradientTape() as tape:
        loss = huber_loss(y, predict(w, b, x), delta)
    grads = tape.gradient(loss, [w, b])
    optimizer.apply_gradients(zip(grads, [w, b]))
    return loss


def evaluate(w, b, x, y):
    return mse(y, predict(w, b, x))


def r2_score(y_true, y_pred):
    ss_res = tf.reduce_sum(tf.square(y_true - y_pred))
    ss_tot = tf.reduce_sum(tf.square(y_true - tf.reduce_mean(y_true)))
    return 1.0 - ss_res / ss_tot


def main():
    tf.random.set_seed(0)
    np.random.seed(0)

    x, y = make_data(240, 0.3)
    feats = polynomial_features(x, 3)
    x_tr, y_tr, x_va, y_va = train_val_split(feats, y, 0.8)
    x_tr, mean, std = standardize(x_tr)
    x_va = apply_standardization(x_va, mean, std)
    w_cf, b_cf = closed_form_fit(x_tr, y_tr)

    w = tf.Variable(tf.zeros((3, 1)), name="w")
    b = tf.Variable(tf.zeros((1,)), name="b")
    optimizer = tf.keras.optimizers.SGD(learning_rate=0.05, momentum=0.9)
    ds = tf.data.Dataset.from_tensor_slices((x_tr, y_tr)).shuffle(192, seed=1).batch(32)
    x_tr_t, y_tr_t = tf.constant(x_tr), tf.constant(y_tr)

    for epoch in range(EPOCHS):
        delta = robust_delta(batch_residuals(w, b, x_tr_t, y_tr_t))
        for xb, yb in ds:
            loss = train_step(w, b, xb, yb, delta, optimizer)
        if epoch % 5 == 0:
            print(f"epoch {epoch:2d}  huber {float(loss):.4f}  delta {float(delta):.3f}")

    x_va_t, y_va_t = tf.constant(x_va), tf.constant(y_va)
    val_mse = float(evaluate(w, b, x_va_t, y_va_t))
    r2 = float(r2_score(y_va_t, predict(w, b, x_va_t)))
    cf_mse = float(np.mean((x_va @ w_cf + b_cf - y_va) ** 2))
    w_sum = float(np.sum(w.numpy())) + float(b.numpy()[0])
    print(f"val mse {val_mse:.4f}  r2 {r2:.4f}  closed-form mse {cf_mse:.4f}")
    print("digest:", " ".join(f"{v:.4f}" for v in (float(loss), val_mse, r2, cf_mse, w_sum)))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Polynomial regression, NumPy + TF.")
    parser.add_argument("--epochs", type=int, default=EPOCHS,
                        help="gradient-descent epochs (default: %(default)s)")
    args = parser.parse_args()
    EPOCHS = int(args.epochs)
    main()
