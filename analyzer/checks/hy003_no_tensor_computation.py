"""HY003 no_tensor_computation: no TensorFlow operation runs in the function."""

from __future__ import annotations

from . import Check


class NoTensorComputation(Check):
    """The function receives tensors but runs no TensorFlow operation.

    What it detects
    ---------------
    A function that takes tensors but neither its body nor anything it calls in user code
    runs a TensorFlow operation: it packs tensors into dicts or tuples, picks one of its
    arguments, or passes them on unchanged. This is an eligibility note, not a hazard.

    Why it matters in graph mode
    ----------------------------
    A graph saves the Python overhead of dispatching operations one by one and lets Grappler
    fuse and prune them. With no operation there is nothing to save: tracing only adds its
    own cost (building a `FuncGraph`, hashing the arguments on each call) and a trace
    boundary that makes debugging harder.

    Example
    -------
        def to_features(image, label):
            return {"image": image, "label": label}

    Instead
    -------
    Leave plain data plumbing eager. Compile the function that computes on the tensors, or
    let the caller that is already compiled inline the helper:

        @tf.function
        def preprocess(image, label):
            return to_features(tf.image.per_image_standardization(image), label)
    """

    code = "HY003"
    name = "no_tensor_computation"
    severity = "info"
    summary = "No TensorFlow operation runs in the function, so a graph has nothing to speed up."
    EXAMPLE_FUNCTION = "f"
    VALID = (
        # A TensorFlow API call.
        """\
import tensorflow as tf


def f(y_true, y_pred):
    return tf.reduce_mean(tf.square(y_true - y_pred))


f(tf.ones((4, 1)), tf.zeros((4, 1)))
""",
        # Operators on tensors are TensorFlow operations too.
        """\
import tensorflow as tf


def f(x, w, b):
    return x @ w + b


f(tf.ones((2, 3)), tf.ones((3, 4)), tf.zeros((4,)))
""",
        # The operation runs in a helper the function calls.
        """\
import tensorflow as tf


def standardize(x):
    return (x - tf.reduce_mean(x)) / tf.math.reduce_std(x)


def f(x):
    return {"x": standardize(x)}


f(tf.random.normal((8, 3)))
""",
    )
    INVALID = (
        # Packs its arguments into a dict.
        """\
import tensorflow as tf


def f(image, label):
    return {"image": image, "label": label}


f(tf.zeros((28, 28, 1)), tf.constant(3))
""",
        # Chooses between its arguments in Python.
        """\
import tensorflow as tf


def f(x, y, swap=False):
    return (y, x) if swap else (x, y)


f(tf.ones((2, 3)), tf.zeros((2, 3)))
""",
        # Builds a fresh container and returns it: no tensor is computed.
        """\
import tensorflow as tf


def f(features, labels):
    batch = {"features": features}
    batch["labels"] = labels
    return batch


f(tf.ones((4, 3)), tf.zeros((4,)))
""",
    )
