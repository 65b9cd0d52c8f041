"""HY403 has_tensor_parameter_iteration: a Python for loop over a tensor parameter."""

from __future__ import annotations

from . import Check


class HasTensorParameterIteration(Check):
    """Iterates over a tensor parameter with a Python `for` loop.

    What it detects
    ---------------
    A `for` statement whose iterable is a parameter that receives a tensor (directly or
    through a local variable bound to it, or wrapped in `enumerate`). Loops over
    `tf.range(...)`, over Python ranges and over lists of tensors are not affected.

    Why it matters in graph mode
    ----------------------------
    Eagerly, iterating a tensor yields its rows. While tracing, AutoGraph turns the loop
    into a `tf.while_loop` only in some shapes of code; otherwise Python iterates a symbolic
    tensor: with a static first dimension the loop is unrolled into one copy of the body per
    row (huge graphs, a retrace per batch size), and with an unknown first dimension it
    fails with "iterating over `tf.Tensor` is not allowed". Python state carried across
    iterations (lists, counters) makes AutoGraph's conversion fail too.

    Example
    -------
        def sum_rows(x):
            total = tf.zeros(x.shape[1:])
            for row in x:
                total += row
            return total

    Instead
    -------
    Use a vectorised operation (`tf.reduce_sum`, `tf.map_fn`, `tf.scan`) or loop over
    `tf.range` so AutoGraph builds one `tf.while_loop`:

        @tf.function
        def sum_rows(x):
            total = tf.zeros(tf.shape(x)[1:])
            for i in tf.range(tf.shape(x)[0]):
                total += x[i]
            return total
    """

    code = "HY403"
    name = "has_tensor_parameter_iteration"
    severity = "error"
    summary = "Loops over a tensor parameter in Python; in a graph this unrolls or fails."
    EXAMPLE_FUNCTION = "f"
    VALID = (
        # A loop over tf.range becomes a tf.while_loop.
        """\
import tensorflow as tf


def f(x):
    total = tf.zeros(tf.shape(x)[1:])
    for i in tf.range(tf.shape(x)[0]):
        total += x[i]
    return total


f(tf.ones((4, 3)))
""",
        # A Python list of tensors is iterated at trace time, as intended.
        """\
import tensorflow as tf


def f(tensors):
    total = tf.zeros_like(tensors[0])
    for t in tensors:
        total += tf.square(t)
    return total


f([tf.ones((2, 3)), tf.zeros((2, 3))])
""",
        # A Python range over a static count.
        """\
import tensorflow as tf


def f(x, w):
    for _ in range(3):
        x = tf.nn.relu(tf.matmul(x, w))
    return x


f(tf.ones((2, 3)), tf.eye(3))
""",
    )
    INVALID = (
        # Iterates the rows of a tensor.
        """\
import tensorflow as tf


def f(x):
    total = tf.zeros(x.shape[1:])
    for row in x:
        total += row
    return total


f(tf.ones((4, 3)))
""",
        # Through enumerate.
        """\
import tensorflow as tf


def f(sequence):
    outputs = []
    for step, frame in enumerate(sequence):
        outputs.append(frame * tf.cast(step, frame.dtype))
    return tf.stack(outputs)


f(tf.ones((5, 3)))
""",
        # A tensor known from the type hint.
        """\
import tensorflow as tf


def f(tokens: tf.Tensor):
    count = 0
    for token in tokens:
        if token > 0:
            count += 1
    return count


f(tf.constant([3, 0, 7, 1]))
""",
    )
