"""Three-class classifier on synthetic blobs trained with Keras' built-in fit loop, then
calibrated post hoc with temperature scaling (Guo et al., 2017).

The Keras model is driven through small helpers around fit/evaluate/predict; the calibration
step is a tiny user class that happens to have its own fit and predict methods.
"""
import argparse

import numpy as np
import tensorflow as tf
from tensorflow import keras

EPOCHS = 8


def make_blobs(n):
    rng = np.random.default_rng(42)
    centers = np.array([[0.0, 0.0], [2.5, 2.5], [-2.5, 2.5]], dtype=np.float32)
    y = rng.integers(0, len(centers), size=n)
    x = centers[y] + rng.normal(scale=1.3, size=(n, 2))
    return x.astype(np.float32), y.astype(np.int32)


def build_classifier(num_classes):
    model = keras.Sequential([
        keras.Input(shape=(2,)),
        keras.layers.Dense(32, activation="relu"),
        keras.layers.Dense(num_classes),
    ])
    model.compile(optimizer=keras.optimizers.Adam(0.01),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    return model


def fit_model(model, x, y, epochs):
    history = model.fit(x, y, batch_size=32, epochs=epochs, validation_split=0.2,
                        shuffle=False, verbose=0)
    for epoch, (loss, val_loss) in enumerate(zip(history.history["loss"],
                                                 history.history["val_loss"])):
        print(f"epoch {epoch}: loss {loss:.4f}  val_loss {val_loss:.4f}")
    return history.history["loss"][-1]


def evaluate_model(model, x, y):
    loss, acc = model.evaluate(x, y, batch_size=64, verbose=0)
    return loss, acc


def predict_proba(model, x):
    logits = model.predict(x, batch_size=64, verbose=0)
    return tf.nn.softmax(logits).numpy()


def get_logits(model, x):
    return model(x, training=False)


def nll(labels, logits):
    return tf.reduce_mean(
        tf.keras.losses.sparse_categorical_crossentropy(labels, logits, from_logits=True))


class TemperatureScaler:
    """Divides logits by a single learned temperature; fitted on held-out logits."""

    def __init__(self):
        self.log_temperature = tf.Variable(0.0)

    def scale(self, logits):
        return logits / tf.exp(self.log_temperature)

    def fit(self, logits, labels, steps):
        optimizer = keras.optimizers.Adam(0.05)
        for _ in range(steps):
            with tf.GradientTape() as tape:
                loss = nll(labels, self.scale(logits))
            grads = tape.gradient(loss, [self.log_temperature])
            optimizer.apply_gradients(zip(grads, [self.log_temperature]))
        return loss

    def predict(self, logits):
        return tf.nn.softmax(self.scale(logits), axis=-1)


def expected_calibration_error(probs, labels, num_bins):
    conf = tf.reduce_max(probs, axis=-1)
    pred = tf.argmax(probs, axis=-1, output_type=tf.int32)
    correct = tf.cast(tf.equal(pred, labels), tf.float32)
    bins = tf.minimum(tf.cast(conf * num_bins, tf.int32), num_bins - 1)
    count = tf.math.unsorted_segment_sum(tf.ones_like(conf), bins, num_bins)
    gap = tf.abs(tf.math.unsorted_segment_sum(correct - conf, bins, num_bins))
    return tf.reduce_sum(gap) / tf.reduce_sum(count)


@tf.function
def top_k_accuracy(logits, labels, k):
    return tf.reduce_mean(tf.cast(tf.math.in_top_k(labels, logits, k), tf.float32))


@tf.function
def mean_confidence(probs):
    return tf.reduce_mean(tf.reduce_max(probs, axis=-1))


def main():
    np.random.seed(0)
    tf.random.set_seed(0)
    keras.utils.set_random_seed(0)

    x, y = make_blobs(600)
    x_train, y_train = x[:400], y[:400]
    x_cal, y_cal = tf.constant(x[400:500]), tf.constant(y[400:500])
    x_test, y_test = x[500:], y[500:]

    model = build_classifier(3)
    train_loss = fit_model(model, x_train, y_train, EPOCHS)
    test_loss, test_acc = evaluate_model(model, x_test, y_test)
    probs = predict_proba(model, x_test)
    ece_before = float(expected_calibration_error(probs, tf.constant(y_test), 10))

    scaler = TemperatureScaler()
    cal_loss = scaler.fit(get_logits(model, x_cal), y_cal, 60)
    test_logits = get_logits(model, tf.constant(x_test))
    calibrated = scaler.predict(test_logits)
    ece_after = float(expected_calibration_error(calibrated, tf.constant(y_test), 10))
    top2 = float(top_k_accuracy(test_logits, tf.constant(y_test), 2))
    temperature = float(tf.exp(scaler.log_temperature))

    print(f"test loss {test_loss:.4f}  acc {test_acc:.4f}  top-2 {top2:.4f}")
    print(f"temperature {temperature:.3f}  ECE {ece_before:.4f} -> {ece_after:.4f}")
    print("calibrated probs[0]:", calibrated[0].numpy().round(3),
          "mean confidence", float(mean_confidence(calibrated)))
    print("digest:", " ".join(f"{v:.4f}" for v in (
        train_loss, test_loss, test_acc, ece_before, ece_after, float(cal_loss), temperature, top2)))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--epochs", type=int, default=EPOCHS,
                        help="passes over the training set in model.fit")
    args = parser.parse_args()
    EPOCHS = int(args.epochs)
    main()
