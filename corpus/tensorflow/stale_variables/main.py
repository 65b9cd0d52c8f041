"""Two small regression MLPs trained side by side on the same synthetic data.

model_a uses a step that snapshots `model.trainable_variables` before the forward pass (it
only works because the model was built up front with an Input layer); model_b uses the
usual step. Input statistics are computed once in float64 with NumPy.
"""
import argparse

import numpy as np
import tensorflow as tf

EPOCHS = 12


def make_regression(n):
    rng = np.random.default_rng(7)
    x = rng.normal(size=(n, 4))
    w = np.array([[1.5], [-2.0], [0.5], [0.0]])
    y = x @ w + 0.8 * x[:, :1] * x[:, 1:2] + 0.1 * rng.normal(size=(n, 1))
    return x, y


def feature_stats(x):
    return np.mean(x, axis=0), np.std(x, axis=0)


def standardize(x, mean, std):
    return (x - mean) / std


def build_mlp():
    return tf.keras.Sequential([
        tf.keras.Input(shape=(4,)),
        tf.keras.layers.Dense(32, activation="tanh"),
        tf.keras.layers.Dense(1),
    ])


def mse(y_true, y_pred):
    return tf.reduce_mean(tf.square(y_true - y_pred))


def train_step_snapshot(model, optimizer, x, y):
    variables = model.trainable_variables
    with tf.GradientTape() as tape:
        loss = mse(y, model(x, training=True))
    grads = tape.gradient(loss, variables)
    optimizer.apply_gradients(zip(grads, variables))
    return loss


def train_step(model, optimizer, x, y):
    with tf.GradientTape() as tape:
        loss = mse(y, model(x, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


def gradient_norm(model, x, y):
    with tf.GradientTape() as tape:
        loss = mse(y, model(x, training=False))
    grads = tape.gradient(loss, model.trainable_variables)
    return tf.linalg.global_norm(grads)


def r_squared(y_true, y_pred):
    ss_res = tf.reduce_sum(tf.square(y_true - y_pred))
    ss_tot = tf.reduce_sum(tf.square(y_true - tf.reduce_mean(y_true)))
    return 1.0 - ss_res / ss_tot


@tf.function
def evaluate(model, x, y):
    return mse(y, model(x, training=False))


@tf.function
def weight_norm(model):
    return tf.sqrt(tf.add_n([tf.reduce_sum(tf.square(v)) for v in model.trainable_variables]))


def main():
    tf.keras.utils.set_random_seed(0)

    x_np, y_np = make_regression(480)
    mean64, std64 = feature_stats(x_np[:400])
    # Training features meet the float64 NumPy statistics directly (eager converts them to
    # float32 silently); the validation path uses float32 copies of the same statistics.
    x_train = standardize(tf.constant(x_np[:400], tf.float32), mean64, std64)
    mean32, std32 = tf.constant(mean64, tf.float32), tf.constant(std64, tf.float32)
    x_val = standardize(tf.constant(x_np[400:], tf.float32), mean32, std32)
    y_train = tf.constant(y_np[:400], tf.float32)
    y_val = tf.constant(y_np[400:], tf.float32)
    ds = tf.data.Dataset.from_tensor_slices((x_train, y_train)).shuffle(400, seed=0).batch(80)

    model_a, model_b = build_mlp(), build_mlp()
    opt_a = tf.keras.optimizers.Adam(learning_rate=0.02)
    opt_b = tf.keras.optimizers.Adam(learning_rate=0.02)
    for epoch in range(EPOCHS):
        for xb, yb in ds:
            loss_a = train_step_snapshot(model_a, opt_a, xb, yb)
            loss_b = train_step(model_b, opt_b, xb, yb)
        if epoch % 4 == 0:
            print(f"epoch {epoch:2d}  snapshot-step loss {float(loss_a):.4f}  "
                  f"plain-step loss {float(loss_b):.4f}")

    val_a = float(evaluate(model_a, x_val, y_val))
    val_b = float(evaluate(model_b, x_val, y_val))
    r2_a = float(r_squared(y_val, model_a(x_val)))
    r2_b = float(r_squared(y_val, model_b(x_val)))
    grad_a = float(gradient_norm(model_a, x_val, y_val))
    grad_b = float(gradient_norm(model_b, x_val, y_val))
    norm_a, norm_b = float(weight_norm(model_a)), float(weight_norm(model_b))
    print(f"val mse: snapshot {val_a:.4f}  plain {val_b:.4f}   r2: {r2_a:.4f} / {r2_b:.4f}")
    print("digest:", " ".join(f"{v:.4f}" for v in (
        float(loss_a), float(loss_b), val_a, val_b, r2_a, r2_b, grad_a, grad_b, norm_a, norm_b)))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Two regression MLPs trained side by side.")
    parser.add_argument("--epochs", type=int, default=EPOCHS, help="number of training epochs")
    args = parser.parse_args()
    EPOCHS = args.epochs
    main()
