"""HY101 has_python_side_effects: print(), pprint or sys.stdout.write."""

from __future__ import annotations

from . import Check


class PrintSideEffect(Check):
    """Python printing inside a function that would be traced.

    What it detects
    ---------------
    A call to `print`, `pprint.pprint`, `sys.stdout.write` / `sys.stderr.write` (or any
    other write to the interpreter's output streams) in the function or in any user function
    it calls.

    Why it matters in graph mode
    ----------------------------
    `tf.function` runs the Python body only while tracing. A `print` therefore fires once
    per trace, usually on the first call, and prints symbolic tensors such as
    `Tensor("add:0", shape=(2, 3), dtype=float32)` instead of values; on later calls it
    prints nothing. Adding the decorator would silently change what the program outputs,
    and removing an existing one would make the output appear on every call.

    Example
    -------
        def train_step(x, y):
            loss = compute_loss(x, y)
            print("loss:", loss)
            return loss

    Instead
    -------
    Use `tf.print`, a graph operation that prints the values on every call (or log with
    `tf.summary`), or print the returned value in the eager caller:

        @tf.function
        def train_step(x, y):
            loss = compute_loss(x, y)
            tf.print("loss:", loss)
            return loss
    """

    code = "HY101"
    name = "has_python_side_effects"
    severity = "error"
    summary = "Calls print(), pprint or sys.stdout.write, which run only while tracing."
    EXAMPLE_FUNCTION = "f"
    VALID = (
        # tf.print is a graph operation.
        """\
import tensorflow as tf


def f(y_true, y_pred):
    loss = tf.reduce_mean(tf.square(y_true - y_pred))
    tf.print("loss:", loss)
    return loss


f(tf.ones((4, 1)), tf.zeros((4, 1)))
""",
        # The eager caller prints the result.
        """\
import tensorflow as tf


def f(x):
    return tf.reduce_sum(x, axis=0)


total = f(tf.ones((2, 3)))
print("total:", total.numpy())
""",
        # A printing helper that the function does not call.
        """\
import tensorflow as tf


def describe(x):
    print("shape", x.shape, "dtype", x.dtype)


def f(x):
    return tf.nn.softmax(x)


batch = tf.random.normal((2, 5))
describe(batch)
f(batch)
""",
    )
    INVALID = (
        # print in the body.
        """\
import tensorflow as tf


def f(y_true, y_pred):
    loss = tf.reduce_mean(tf.square(y_true - y_pred))
    print("loss:", loss)
    return loss


f(tf.ones((4, 1)), tf.zeros((4, 1)))
""",
        # Writing to sys.stdout directly.
        """\
import sys

import tensorflow as tf


def f(x):
    sys.stdout.write("normalising a batch\\n")
    return tf.math.l2_normalize(x, axis=-1)


f(tf.ones((2, 3)))
""",
        # A helper that pretty-prints, called by the function.
        """\
import pprint

import tensorflow as tf


def describe(x):
    pprint.pprint({"shape": x.shape, "dtype": x.dtype})


def f(x):
    describe(x)
    return tf.nn.softmax(x)


f(tf.random.normal((2, 5)))
""",
    )
