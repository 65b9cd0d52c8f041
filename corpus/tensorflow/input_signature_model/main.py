"""Train a small regressor, wrap it in a tf.Module with fixed serving signatures and
export it as a SavedModel (to a temporary directory), then reload and check it."""
import argparse
import os
import random
import tempfile

import numpy as np
import tensorflow as tf

NUM_FEATURES = 8
EPOCHS = 12

# Shared by the export: every serving entry point takes a [batch, 8] float32 matrix.
SERVING_SIGNATURE = [tf.TensorSpec(shape=[None, 8], dtype=tf.float32)]


def make_regression_data(num_samples, seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(num_samples, NUM_FEATURES)).astype("float32")
    w = np.linspace(-1.0, 1.0, NUM_FEATURES, dtype="float32")[:, None]
    y = np.tanh(x @ w) + 0.05 * rng.normal(size=(num_samples, 1))
    return 3.0 * x + 1.0, y.astype("float32")


def feature_statistics(features):
    mean = tf.reduce_mean(features, axis=0)
    std = tf.math.reduce_std(features, axis=0) + 1e-6
    return mean, std


def standardize(features, mean, std):
    return (features - mean) / std


def build_regressor(hidden_units):
    inputs = tf.keras.Input(shape=(NUM_FEATURES,))
    hidden = tf.keras.layers.Dense(hidden_units, activation="relu")(inputs)
    outputs = tf.keras.layers.Dense(1)(hidden)
    return tf.keras.Model(inputs, outputs)


def mean_squared_error(targets, predictions):
    return tf.reduce_mean(tf.square(targets - predictions))


def mean_absolute_error(targets, predictions):
    return tf.reduce_mean(tf.abs(targets - predictions))


def r_squared(targets, predictions):
    residual = tf.reduce_sum(tf.square(targets - predictions))
    total = tf.reduce_sum(tf.square(targets - tf.reduce_mean(targets)))
    return 1.0 - residual / total


def train_step(model, optimizer, features, targets):
    with tf.GradientTape() as tape:
        predictions = model(features, training=True)
        loss = mean_squared_error(targets, predictions)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


def fit(model, features, targets, epochs):
    optimizer = tf.keras.optimizers.Adam(learning_rate=0.01)
    dataset = tf.data.Dataset.from_tensor_slices((features, targets)).batch(64)
    loss = tf.constant(0.0)
    for epoch in range(epochs):
        for batch_x, batch_y in dataset:
            loss = train_step(model, optimizer, batch_x, batch_y)
        if epoch % 4 == 0:
            print(f"epoch {epoch:2d}  mse {float(loss):.4f}")
    return loss


class ServingModule(tf.Module):
    def __init__(self, model, mean, std):
        super().__init__(name="regressor_serving")
        self.model = model
        self.mean = tf.Variable(mean, trainable=False)
        self.std = tf.Variable(std, trainable=False)

    @tf.function(input_signature=SERVING_SIGNATURE)
    def predict(self, features):
        return self.model(standardize(features, self.mean, self.std), training=False)

    @tf.function(input_signature=[
        tf.TensorSpec(shape=[None, 8], dtype=tf.float32),
        tf.TensorSpec(shape=[None, 1], dtype=tf.float32),
    ])
    def score(self, features, targets):
        predictions = self.predict(features)
        return {
            "mse": mean_squared_error(targets, predictions),
            "mae": mean_absolute_error(targets, predictions),
        }


def describe_signatures(module):
    for name in ("predict", "score"):
        spec = getattr(module, name).input_signature
        print(f"{name}: {[(tuple(s.shape), s.dtype.name) for s in spec]}")


def main():
    random.seed(11)
    np.random.seed(11)
    tf.random.set_seed(11)
    x_train, y_train = make_regression_data(512, 0)
    x_test, y_test = make_regression_data(128, 1)

    mean, std = feature_statistics(x_train)
    model = build_regressor(16)
    final_loss = fit(model, standardize(x_train, mean, std), y_train, epochs=EPOCHS)

    serving = ServingModule(model, mean, std)
    describe_signatures(serving)
    metrics = serving.score(x_test, y_test)

    export_dir = os.path.join(tempfile.mkdtemp(), "regressor")
    tf.saved_model.save(serving, export_dir, signatures={"serving_default": serving.predict})
    reloaded = tf.saved_model.load(export_dir)
    reloaded_pred = reloaded.predict(tf.constant(x_test))
    gap = tf.reduce_max(tf.abs(reloaded_pred - serving.predict(x_test)))
    r2 = r_squared(y_test, reloaded_pred)
    print(f"test mse {float(metrics['mse']):.4f}  mae {float(metrics['mae']):.4f}  R^2 {float(r2):.4f}")
    print(f"reload gap {float(gap):.2e}")
    print(
        f"digest: {float(final_loss):.4f} {float(metrics['mse']):.4f} {float(metrics['mae']):.4f} {float(r2):.4f} "
        f"{float(tf.reduce_sum(reloaded_pred)):.4f} {float(gap):.4f}"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--epochs", type=int, default=EPOCHS,
                        help="passes over the training set")
    args = parser.parse_args()
    EPOCHS = int(args.epochs)
    main()
