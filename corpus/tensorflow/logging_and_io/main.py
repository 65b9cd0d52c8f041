"""MLP regression trained like a research script: progress through `logging`, wall-clock
timing of inference, a metrics CSV and TensorBoard summaries, all under a temp dir."""
import argparse
import csv
import logging
import os
import random
import tempfile
import time

import numpy as np
import tensorflow as tf
from tensorflow.keras import layers

logger = logging.getLogger("trainer")

EPOCHS = 5
BATCH_SIZE = 32


def setup_logging(log_dir):
    handler = logging.FileHandler(os.path.join(log_dir, "train.log"))
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False


def make_data(num_samples, seed):
    x = tf.random.stateless_uniform([num_samples, 4], seed=[seed, 7], minval=-1.0, maxval=1.0)
    y = tf.sin(3.0 * x[:, :1]) * x[:, 1:2] + 0.5 * x[:, 2:3] ** 2 - 0.2 * x[:, 3:4]
    return x, y


def build_model():
    return tf.keras.Sequential([
        tf.keras.Input(shape=(4,)),
        layers.Dense(32, activation="relu"),
        layers.Dense(32, activation="relu"),
        layers.Dense(1),
    ])


def compute_loss(model, x, y):
    return tf.reduce_mean(tf.square(model(x, training=True) - y))


def mean_absolute_error(predictions, targets):
    return tf.reduce_mean(tf.abs(predictions - targets))


def train_step(model, optimizer, x, y):
    with tf.GradientTape() as tape:
        loss = compute_loss(model, x, y)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    logger.debug("batch loss %s", loss)
    return loss


def timed_predict_step(model, x):
    start = time.time()
    predictions = model(x, training=False)
    latency = time.time() - start
    return predictions, latency


def validation_summary_step(model, x, y, step):
    predictions = model(x, training=False)
    loss = tf.reduce_mean(tf.square(predictions - y))
    mae = mean_absolute_error(predictions, y)
    tf.summary.write("val/loss", loss, step=step)
    tf.summary.write("val/mae", mae, step=step)
    return loss, mae


def log_weight_norms(model, step):
    for variable in model.trainable_variables:
        tf.summary.write(f"weight_norm/{variable.path}", tf.norm(variable), step=step)


def append_metrics_csv(path, row):
    new_file = not os.path.exists(path)
    with open(path, "a", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(row))
        if new_file:
            writer.writeheader()
        writer.writerow(row)


def main():
    random.seed(5)
    np.random.seed(5)
    tf.random.set_seed(5)
    run_dir = tempfile.mkdtemp(prefix="run_")
    setup_logging(run_dir)
    csv_path = os.path.join(run_dir, "metrics.csv")
    summary_writer = tf.summary.create_file_writer(os.path.join(run_dir, "tb"))

    x_train, y_train = make_data(512, 1)
    x_val, y_val = make_data(128, 2)
    train_ds = tf.data.Dataset.from_tensor_slices((x_train, y_train)).batch(BATCH_SIZE)

    model = build_model()
    optimizer = tf.keras.optimizers.Adam(learning_rate=0.01)
    loss = val_loss = val_mae = tf.constant(0.0)
    with summary_writer.as_default():
        for epoch in range(EPOCHS):
            for x, y in train_ds:
                loss = train_step(model, optimizer, x, y)
            val_loss, val_mae = validation_summary_step(model, x_val, y_val, optimizer.iterations)
            log_weight_norms(model, optimizer.iterations)
            logger.info("epoch %d train %.4f val %.4f", epoch, float(loss), float(val_loss))
            append_metrics_csv(csv_path, {"epoch": epoch, "train_loss": float(loss),
                                          "val_loss": float(val_loss), "val_mae": float(val_mae)})
            print(f"epoch {epoch}  train {float(loss):.4f}  val {float(val_loss):.4f}")
    summary_writer.flush()

    predictions, latency = timed_predict_step(model, x_val)
    print(f"inference on {x_val.shape[0]} rows took {1000 * latency:.1f} ms")
    checksum = float(tf.reduce_sum(predictions))
    print(f"digest: {float(loss):.4f} {float(val_loss):.4f} {float(val_mae):.4f} {checksum:.4f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="MLP regression with logging and TensorBoard.")
    parser.add_argument("--epochs", type=int, default=EPOCHS,
                        help="number of training epochs")
    args = parser.parse_args()
    EPOCHS = int(args.epochs)
    main()
