"""Custom Keras layers that create their weights in build(), on a synthetic regression task.

An MLP made of custom layers (a dense layer that counts its calls, RMS normalisation and a
Keras Dense head) is compared with a linear baseline built from a single custom Linear layer.
"""
import argparse
import random

import numpy as np
import tensorflow

EPOCHS = 5


class Linear(tensorflow.keras.layers.Layer):
    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape):
        self.w = self.add_weight(name="w", shape=(input_shape[-1], self.units),
                                 initializer="glorot_uniform")
        self.b = self.add_weight(name="b", shape=(self.units,), initializer="zeros")

    def call(self, inputs):
        return tensorflow.matmul(inputs, self.w) + self.b


class CountingDense(tensorflow.keras.layers.Layer):
    """Dense + ReLU that also counts how often it has been applied (for logging)."""

    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.call_count = 0

    def build(self, input_shape):
        self.kernel = self.add_weight(name="kernel", shape=(input_shape[-1], self.units),
                                      initializer="he_normal")
        self.bias = self.add_weight(name="bias", shape=(self.units,), initializer="zeros")

    def call(self, inputs):
        self.call_count += 1
        return tensorflow.nn.relu(tensorflow.matmul(inputs, self.kernel) + self.bias)


class RMSNorm(tensorflow.keras.layers.Layer):
    def __init__(self, epsilon, **kwargs):
        super().__init__(**kwargs)
        self.epsilon = epsilon

    def build(self, input_shape):
        self.scale = self.add_weight(name="scale", shape=(input_shape[-1],), initializer="ones")

    def call(self, x):
        mean_square = tensorflow.reduce_mean(tensorflow.square(x), axis=-1, keepdims=True)
        return x * tensorflow.math.rsqrt(mean_square + self.epsilon) * self.scale


class Regressor(tensorflow.keras.Model):
    def __init__(self, hidden_units):
        super().__init__()
        self.hidden = CountingDense(hidden_units)
        self.norm = RMSNorm(epsilon=1e-5)
        self.head = tensorflow.keras.layers.Dense(1)

    def call(self, x):
        return self.head(self.norm(self.hidden(x)))


def make_regression_data(n, num_features, seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, num_features)).astype(np.float32)
    w = rng.normal(size=(num_features, 1)).astype(np.float32)
    y = np.sin(x @ w) + 0.3 * (x @ w) + 0.05 * rng.normal(size=(n, 1))
    return x, y.astype(np.float32)


def mse(y_true, y_pred):
    return tensorflow.reduce_mean(tensorflow.square(y_true - y_pred))


def r2_score(y_true, y_pred):
    residual = tensorflow.reduce_sum(tensorflow.square(y_true - y_pred))
    total = tensorflow.reduce_sum(tensorflow.square(y_true - tensorflow.reduce_mean(y_true)))
    return 1.0 - residual / total


def train_step(model, optimizer, x, y):
    with tensorflow.GradientTape() as tape:
        loss = mse(y, model(x))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


def baseline_step(layer, optimizer, x, y):
    with tensorflow.GradientTape() as tape:
        loss = mse(y, layer(x))
    grads = tape.gradient(loss, layer.trainable_variables)
    optimizer.apply_gradients(zip(grads, layer.trainable_variables))
    return loss


def train(model, optimizer, x, y, epochs, batch_size):
    for epoch in range(epochs):
        for start in range(0, len(x), batch_size):
            loss = train_step(model, optimizer, x[start:start + batch_size], y[start:start + batch_size])
        print(f"epoch {epoch + 1}: last batch loss {loss.numpy():.4f}")
    return loss


def main():
    random.seed(3)
    np.random.seed(3)
    tensorflow.random.set_seed(3)
    x, y = make_regression_data(320, 8, seed=5)
    x_train, y_train, x_test, y_test = x[:256], y[:256], x[256:], y[256:]

    model = Regressor(32)
    optimizer = tensorflow.keras.optimizers.Adam(learning_rate=0.01)
    train(model, optimizer, x_train, y_train, epochs=EPOCHS, batch_size=32)

    baseline = Linear(1)
    baseline_opt = tensorflow.keras.optimizers.SGD(learning_rate=0.05)
    for _ in range(40):
        baseline_loss = baseline_step(baseline, baseline_opt, x_train, y_train)

    mlp_r2 = r2_score(y_test, model(x_test))
    linear_r2 = r2_score(y_test, baseline(x_test))
    print(f"hidden layer applied {model.hidden.call_count} times")
    print(f"test R^2: mlp {mlp_r2.numpy():.4f}, linear {linear_r2.numpy():.4f}")
    print("digest: " + " ".join(f"{v:.4f}" for v in [float(baseline_loss), float(mlp_r2),
                                                        float(linear_r2), model.hidden.call_count]))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--epochs", type=int, default=EPOCHS,
                        help="passes over the training set (MLP)")
    args = parser.parse_args()
    EPOCHS = int(args.epochs)
    main()
