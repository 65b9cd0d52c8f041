"""HY107 has_python_side_effects: mutates an object the function did not create."""

from __future__ import annotations

from . import Check


class MutationSideEffect(Check):
    """Writes to or mutates an object that the function did not create.

    What it detects
    ---------------
    A store to an attribute or item (`obj.attr = v`, `obj[k] = v`, `del obj[k]`) or a
    mutating method call (`append`, `extend`, `insert`, `pop`, `update`, `setdefault`,
    `clear`, ...) on an object that was not created inside the call: a parameter, `self`, a
    module-level object, or a variable of an enclosing function. It also applies when the
    function calls a user function that mutates such an object, including one it passes on
    from its own parameters. Objects created inside the call may be mutated freely, and
    graph operations such as `tf.Variable.assign` or Keras `build` writing the layer's
    weights are not Python side effects.

    Why it matters in graph mode
    ----------------------------
    The mutation happens while tracing, once, and not on later calls: a history list gets
    one entry (holding a symbolic tensor) instead of one per step, a metrics dict stops
    updating, a cache fills with tensors that belong to a finished graph. Using those
    tensors later fails, and everything that reads the state sees stale values.

    Example
    -------
        history = []

        def train_step(x, y):
            loss = compute_loss(x, y)
            history.append(loss)
            return loss

    Instead
    -------
    Return values and collect them in the eager caller, keep state in `tf.Variable`s, or use
    a `tf.TensorArray` for values accumulated inside the function:

        @tf.function
        def train_step(x, y):
            return compute_loss(x, y)

        history = [train_step(x, y) for x, y in dataset]
    """

    code = "HY107"
    name = "has_python_side_effects"
    severity = "error"
    summary = "Mutates a parameter, self, a module-level or enclosing object while tracing only."
    EXAMPLE_FUNCTION = "f"
    VALID = (
        # A list created inside the call.
        """\
import tensorflow as tf


def f(x):
    parts = []
    for scale in (1.0, 2.0, 4.0):
        parts.append(x * scale)
    return tf.stack(parts)


f(tf.ones((2, 3)))
""",
        # The eager caller collects the results.
        """\
import tensorflow as tf

history = []


def f(y_true, y_pred):
    return tf.reduce_mean(tf.square(y_true - y_pred))


history.append(f(tf.ones((4, 1)), tf.zeros((4, 1))))
""",
        # A fresh dict built and filled inside the call.
        """\
import tensorflow as tf


def f(logits, labels):
    metrics = {}
    metrics["loss"] = tf.reduce_mean(
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    )
    metrics.update(accuracy=tf.reduce_mean(tf.cast(tf.argmax(logits, -1) == labels, tf.float32)))
    return metrics


f(tf.random.normal((4, 10)), tf.constant([1, 2, 3, 4], dtype=tf.int64))
""",
    )
    INVALID = (
        # Appends to a module-level list.
        """\
import tensorflow as tf

history = []


def f(y_true, y_pred):
    loss = tf.reduce_mean(tf.square(y_true - y_pred))
    history.append(loss)
    return loss


f(tf.ones((4, 1)), tf.zeros((4, 1)))
""",
        # Writes into a dict it was passed.
        """\
import tensorflow as tf


def f(logits, metrics):
    metrics["mean_logit"] = tf.reduce_mean(logits)
    return tf.nn.softmax(logits)


results = {}
f(tf.random.normal((4, 10)), results)
""",
        # A helper mutates what the function passes on from its parameter.
        """\
import tensorflow as tf


def record(stats, value):
    stats["count"] += 1
    stats["total"] = stats["total"] + value


def f(x, stats):
    total = tf.reduce_sum(x)
    record(stats, total)
    return total


f(tf.ones((2, 3)), {"count": 0, "total": 0.0})
""",
    )
