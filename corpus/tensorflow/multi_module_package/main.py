"""Train an MLP classifier from the local package `mlpkg` on synthetic ring-shaped data.

The package spreads the code over modules the way small research repos do: custom layers,
a subclassed model, a GradientTape training loop and utilities pulled in with a star import.
"""
import argparse

import numpy as np
import tensorflow as tf

import mlpkg.train as tr
from mlpkg import MLPClassifier
from mlpkg.utils import make_rings

EPOCHS = 8


def embedding_spread(model, x):
    emb = model.embed(x)
    return tf.reduce_mean(tf.math.reduce_std(emb, axis=0))


def margin_stats(logits, labels):
    true_logit = tf.gather(logits, labels, batch_dims=1)
    masked = logits - 1e9 * tf.one_hot(labels, tf.shape(logits)[-1])
    margin = true_logit - tf.reduce_max(masked, axis=-1)
    return tf.reduce_mean(margin), tf.reduce_mean(tf.cast(margin > 0.0, tf.float32))


def predict_classes(model, x):
    return tf.argmax(model(x), axis=-1, output_type=tf.int32)


def per_class_recall(cm):
    cm = tf.cast(cm, tf.float32)
    return tf.linalg.diag_part(cm) / tf.maximum(tf.reduce_sum(cm, axis=1), 1.0)


def report(history, acc, recall):
    balanced = float(tf.reduce_mean(recall))
    print(f"final train loss {history[-1]:.4f}  test acc {float(acc):.4f}  "
          f"balanced acc {balanced:.4f}")
    for k, r in enumerate(recall):
        print(f"  class {k}: recall {float(r):.3f}")
    return balanced


def main():
    np.random.seed(0)
    tf.keras.utils.set_random_seed(0)  # seeds Python, NumPy and TF (Keras initializers included)

    x, y = make_rings(600)
    x_test, y_test = tf.constant(x[480:]), tf.constant(y[480:])

    model = MLPClassifier(32, 3)
    history = tr.fit(model, x[:480], y[:480], EPOCHS, 64)
    acc, cm = tr.evaluate(model, x_test, y_test)
    spread = embedding_spread(model, x_test)
    mean_margin, frac_positive = margin_stats(model(x_test), y_test)
    predicted_counts = tf.math.bincount(predict_classes(model, x_test), minlength=3)

    print("confusion matrix:\n", cm.numpy())
    print("predicted class counts:", predicted_counts.numpy())
    balanced = report(history, acc, per_class_recall(cm))
    print(f"embedding spread {float(spread):.4f}  margin {float(mean_margin):.4f}")
    print("digest:", " ".join(f"{v:.4f}" for v in (
        history[-1], float(acc), balanced, float(spread), float(mean_margin),
        float(frac_positive), float(predicted_counts[0]))))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="mlpkg MLP on synthetic rings.")
    parser.add_argument("--epochs", type=int, default=EPOCHS,
                        help="number of training epochs")
    args = parser.parse_args()
    EPOCHS = int(args.epochs)
    main()
