"""Binary logistic regression with raw tf.Variable weights.

No Keras: the weights are two tf.Variables, the gradients come from a
GradientTape inside a compiled function, and plain SGD updates them in place.
A module-level counter tracks how many optimisation steps were taken.
"""
import argparse

import numpy as np
import tensorflow as tf

N_FEATURES = 10
LEARNING_RATE = 0.5
L2 = 1e-3
BATCH_SIZE = 64
EPOCHS = 6

np.random.seed(7)
tf.random.set_seed(7)

global_step = 0


def make_data(num_samples, rng):
    true_w = np.linspace(-1.5, 1.5, N_FEATURES)
    x = rng.normal(loc=3.0, scale=2.0, size=(num_samples, N_FEATURES))
    logits = (x - 3.0) @ true_w + 0.3 * rng.normal(size=num_samples)
    y = (logits > 0).astype(np.float32).reshape(-1, 1)
    return x.astype(np.float32), y


def standardize(features, mean, std):
    return (features - mean) / np.maximum(std, 1e-6)


def init_params(n_features, seed):
    w = tf.Variable(tf.random.stateless_normal([n_features, 1], seed=[seed, 0], stddev=0.01), name="w")
    b = tf.Variable(tf.zeros([1]), name="b")
    return w, b


def predict_logits(x, w, b):
    return tf.matmul(x, w) + b


@tf.function
def predict_proba(x, w, b):
    return tf.sigmoid(predict_logits(x, w, b))


def log_loss(y, logits, w):
    data_term = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=logits))
    return data_term + L2 * tf.reduce_sum(tf.square(w))


@tf.function
def compute_gradients(x, y, w, b):
    with tf.GradientTape() as tape:
        loss = log_loss(y, predict_logits(x, w, b), w)
    dw, db = tape.gradient(loss, [w, b])
    return loss, dw, db


def sgd_step(x, y, w, b):
    global global_step
    loss, dw, db = compute_gradients(x, y, w, b)
    w.assign_sub(LEARNING_RATE * dw)
    b.assign_sub(LEARNING_RATE * db)
    global_step += 1
    return loss


def binary_accuracy(y, probs, threshold=0.5):
    preds = tf.cast(probs > threshold, tf.float32)
    return tf.reduce_mean(tf.cast(tf.equal(preds, y), tf.float32))


def evaluate(x, y, w, b):
    logits = predict_logits(x, w, b)
    nll = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=logits))
    acc = binary_accuracy(y, predict_proba(x, w, b))
    return nll, acc


def fit(w, b, x_train, y_train, epochs, batch_size):
    dataset = (
        tf.data.Dataset.from_tensor_slices((x_train, y_train))
        .shuffle(1024, seed=3, reshuffle_each_iteration=True)
        .batch(batch_size)
    )
    for epoch in range(epochs):
        epoch_loss = tf.keras.metrics.Mean()
        for xb, yb in dataset:
            epoch_loss.update_state(sgd_step(xb, yb, w, b))
        print(f"epoch {epoch + 1}: loss={epoch_loss.result().numpy():.4f} step={global_step}")
    return epoch_loss.result().numpy()


def main():
    rng = np.random.default_rng(7)
    x_train, y_train = make_data(1024, rng)
    x_test, y_test = make_data(256, rng)

    mean, std = x_train.mean(axis=0), x_train.std(axis=0)
    x_train = standardize(x_train, mean, std).astype(np.float32)
    x_test = standardize(x_test, mean, std).astype(np.float32)

    w, b = init_params(N_FEATURES, 42)
    final_loss = fit(w, b, x_train, y_train, epochs=EPOCHS, batch_size=BATCH_SIZE)
    test_nll, test_acc = evaluate(x_test, y_test, w, b)

    print(f"test nll={test_nll.numpy():.4f} acc={test_acc.numpy():.4f}")
    print(f"digest: {final_loss:.4f} {test_nll.numpy():.4f} {test_acc.numpy():.4f} "
          f"{tf.reduce_sum(w).numpy():.4f} {global_step}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Binary logistic regression.")
    parser.add_argument("--epochs", type=int, default=EPOCHS,
                        help="passes over the training set (default: %(default)s)")
    args = parser.parse_args()
    EPOCHS = int(args.epochs)
    main()
