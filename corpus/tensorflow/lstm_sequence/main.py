"""One-step-ahead forecasting of a noisy sine wave with a small LSTM.

Sliding windows over a synthetic series, an LSTM regressor trained with a
GradientTape loop, an autoregressive multi-step forecast and exponential
smoothing of the forecast.
"""
import argparse
import math
import random

import numpy as np
import tensorflow

SERIES_LENGTH = 420
WINDOW = 12
HORIZON = 8
UNITS = 16
EPOCHS = 3
SMOOTHING = 0.3

random.seed(11)
np.random.seed(11)
tensorflow.random.set_seed(11)
tensorflow.keras.utils.set_random_seed(11)


def generate_series(rng):
    t = np.arange(SERIES_LENGTH, dtype=np.float32)
    clean = np.sin(2.0 * math.pi * t / 25.0) + 0.5 * np.sin(2.0 * math.pi * t / 7.0)
    return (clean + rng.normal(scale=0.1, size=SERIES_LENGTH)).astype(np.float32)


def make_windows(series, window_size):
    frames = tensorflow.signal.frame(series, window_size + 1, frame_step=1)
    inputs = frames[:, :-1]
    targets = frames[:, -1:]
    return tensorflow.expand_dims(inputs, axis=-1), targets


def build_model(window_size, units):
    return tensorflow.keras.Sequential([
        tensorflow.keras.Input(shape=(window_size, 1)),
        tensorflow.keras.layers.LSTM(units),
        tensorflow.keras.layers.Dense(1),
    ])


def mean_squared_error(y_true, y_pred):
    return tensorflow.reduce_mean(tensorflow.square(y_true - y_pred))


def train_step(model, optimizer, x, y):
    with tensorflow.GradientTape() as tape:
        predictions = model(x, training=True)
        loss = mean_squared_error(y, predictions)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


def evaluate(model, x, y):
    return mean_squared_error(y, model(x, training=False))


def forecast(model, context, horizon):
    window = context
    outputs = []
    for _ in range(horizon):
        next_value = model(window[tensorflow.newaxis, :, :], training=False)[0]
        outputs.append(next_value[0])
        window = tensorflow.concat([window[1:], next_value[tensorflow.newaxis, :]], axis=0)
    return tensorflow.stack(outputs)


def exponential_smoothing(values):
    smoothed = []
    level = values[0]
    for value in values:
        level = SMOOTHING * value + (1.0 - SMOOTHING) * level
        smoothed.append(level)
    return tensorflow.stack(smoothed)


def fit(model, optimizer, x, y, epochs, batch_size=32):
    dataset = (
        tensorflow.data.Dataset.from_tensor_slices((x, y))
        .shuffle(512, seed=11)
        .batch(batch_size)
    )
    for epoch in range(epochs):
        total, batches = 0.0, 0
        for xb, yb in dataset:
            total += train_step(model, optimizer, xb, yb).numpy()
            batches += 1
        print(f"epoch {epoch + 1}/{epochs} mse={total / batches:.4f}")
    return total / batches


def main():
    rng = np.random.default_rng(11)
    series = generate_series(rng)
    split = 340
    x_train, y_train = make_windows(series[:split], WINDOW)
    x_test, y_test = make_windows(series[split:], WINDOW)

    model = build_model(WINDOW, UNITS)
    optimizer = tensorflow.keras.optimizers.Adam(learning_rate=1e-2)
    train_mse = fit(model, optimizer, x_train, y_train, EPOCHS)
    test_mse = evaluate(model, x_test, y_test)

    predicted = forecast(model, x_test[0], HORIZON)
    smoothed = exponential_smoothing(predicted)
    print("forecast:", np.array2string(predicted.numpy(), precision=3))
    print(f"digest: {train_mse:.4f} {test_mse.numpy():.4f} "
          f"{float(tensorflow.reduce_sum(predicted)):.4f} {float(smoothed[-1]):.4f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="LSTM sine-wave forecaster.")
    parser.add_argument("--epochs", type=int, default=EPOCHS,
                        help="passes over the training windows (default: %(default)s)")
    args = parser.parse_args()
    EPOCHS = int(args.epochs)
    main()
