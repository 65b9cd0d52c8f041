"""HY004 has_covered_callers: every caller already runs as a graph."""

from __future__ import annotations

from . import Check


class HasCoveredCallers(Check):
    """Every caller of the function already runs as a graph.

    What it detects
    ---------------
    A function without `@tf.function` all of whose known callers are already traced: they
    are decorated with `@tf.function`, are callbacks that `tf.data` traces
    (`Dataset.map`, `filter`, ...), or are themselves only called from such code. Module
    level code and tests are eager callers; one of them is enough to make this not apply.
    This is an eligibility note, not a hazard.

    Why it matters in graph mode
    ----------------------------
    A function called while its caller is being traced is traced along with it: its
    operations already end up in the caller's graph. A decorator of its own adds nothing but
    a nested function boundary (a separate trace cache, a call op in the outer graph) and
    can get in the way of optimisations across that boundary.

    Example
    -------
        def augment(image, label):
            return tf.image.random_flip_left_right(image), label

        dataset = dataset.map(augment)   # tf.data traces augment already

    Instead
    -------
    Keep the helper plain. Put `@tf.function` on the outermost function that is called
    eagerly, for example the training step that calls the helper:

        def dense_relu(x, w):
            return tf.nn.relu(tf.matmul(x, w))

        @tf.function
        def train_step(x, w):
            return tf.reduce_sum(dense_relu(x, w))
    """

    code = "HY004"
    name = "has_covered_callers"
    severity = "info"
    summary = "Every caller already runs as a graph; its own decorator would add nothing."
    EXAMPLE_FUNCTION = "f"
    VALID = (
        # Also called eagerly from module level.
        """\
import tensorflow as tf


def f(x):
    return tf.nn.relu(x) * 2.0


@tf.function
def train_step(x):
    return tf.reduce_sum(f(x))


train_step(tf.ones((2, 3)))
f(tf.ones((2, 3)))
""",
        # The only caller is an eager function.
        """\
import tensorflow as tf


def f(x, w):
    return tf.nn.relu(tf.matmul(x, w))


def evaluate(x, w):
    return tf.reduce_mean(f(x, w))


evaluate(tf.ones((2, 3)), tf.ones((3, 4)))
""",
    )
    INVALID = (
        # Only a @tf.function calls it.
        """\
import tensorflow as tf


def f(x):
    return tf.nn.relu(x) * 2.0


@tf.function
def train_step(x):
    return tf.reduce_sum(f(x))


train_step(tf.ones((2, 3)))
""",
        # A tf.data map callback: tf.data traces it.
        """\
import tensorflow as tf


def f(image, label):
    image = tf.image.resize(image, (32, 32)) / 255.0
    return image, label


images = tf.random.uniform((8, 64, 64, 3))
labels = tf.range(8)
dataset = tf.data.Dataset.from_tensor_slices((images, labels)).map(f).batch(4)
""",
        # Called by a helper that only a @tf.function calls.
        """\
import tensorflow as tf


def f(logits):
    return tf.nn.log_softmax(logits, axis=-1)


def nll(logits, labels):
    return -tf.reduce_mean(tf.gather(f(logits), labels, axis=1, batch_dims=1))


@tf.function
def evaluate(logits, labels):
    return nll(logits, labels)


evaluate(tf.random.normal((4, 10)), tf.constant([1, 2, 3, 4]))
""",
    )
