"""HY110 undeterminable_side_effects: calls a callable parameter whose effects are unknown."""

from __future__ import annotations

from . import Check


class UndeterminableSideEffects(Check):
    """Calls a callable parameter whose side effects cannot be determined.

    What it detects
    ---------------
    A call through a parameter (a callback, an activation, a loss function passed in) when
    the analysis cannot tell which function it is at some call site, for example because
    the caller looks it up dynamically with `getattr` or receives it from outside the
    analysed code; also when the function calls a user function that does this. When every
    caller passes a known function, that function's own effects are checked instead.

    Why it matters in graph mode
    ----------------------------
    Whatever the callable does runs while tracing: if it prints, logs, appends to a list or
    draws Python random numbers, those effects happen once per trace instead of once per
    call, exactly as if they were written in the function itself (see HY101-HY109). Since
    the callable is unknown, hybridize cannot promise the graph behaves like the eager
    code, and it leaves the function alone.

    Example
    -------
        def dense(x, w, activation):
            return activation(tf.matmul(x, w))

        dense(x, w, getattr(tf.nn, config["activation"]))

    Instead
    -------
    Make the callable visible to the analysis, for example by choosing it from an explicit
    mapping of known functions, or resolve the callable in eager code and compile a
    function that receives only tensors:

        ACTIVATIONS = {"relu": tf.nn.relu, "gelu": tf.nn.gelu}

        dense(x, w, ACTIVATIONS[config["activation"]])
    """

    code = "HY110"
    name = "undeterminable_side_effects"
    severity = "warning"
    summary = "Calls a callable parameter whose side effects are unknown."
    EXAMPLE_FUNCTION = "f"
    VALID = (
        # A TensorFlow function passed in: known to be free of Python effects.
        """\
import tensorflow as tf


def f(x, w, activation):
    return activation(tf.matmul(x, w))


f(tf.ones((2, 3)), tf.ones((3, 4)), tf.nn.relu)
""",
        # A user function passed in: its own effects are analysed.
        """\
import tensorflow as tf


def squared_error(y_true, y_pred):
    return tf.square(y_true - y_pred)


def f(y_true, y_pred, loss_fn):
    return tf.reduce_mean(loss_fn(y_true, y_pred))


f(tf.ones((4, 1)), tf.zeros((4, 1)), squared_error)
""",
        # A lambda passed in.
        """\
import tensorflow as tf


def f(x, transform):
    return tf.reduce_sum(transform(x))


f(tf.ones((2, 3)), lambda t: t * 2.0)
""",
    )
    INVALID = (
        # The callable is looked up dynamically.
        """\
import sys

import tensorflow as tf


def f(x, w, activation):
    return activation(tf.matmul(x, w))


name = sys.argv[1] if len(sys.argv) > 1 else "relu"
f(tf.ones((2, 3)), tf.ones((3, 4)), getattr(tf.nn, name))
""",
        # A helper calls the unknown callable the function passes on.
        """\
import sys

import tensorflow as tf


def apply(fn, x):
    return fn(x)


def f(x, transform):
    return tf.reduce_sum(apply(transform, x))


f(tf.ones((2, 3)), getattr(tf.math, sys.argv[-1], tf.abs))
""",
    )
