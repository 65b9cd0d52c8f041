"""HY405 has_conflicting_eager_dtype_coercions: one parameter meets partners of other dtypes."""

from __future__ import annotations

from . import Check


class HasConflictingEagerDtypeCoercions(Check):
    """A parameter is combined with values of different dtypes across calls.

    What it detects
    ---------------
    A parameter that, in operations of the function, meets partners of different dtypes at
    different call sites, e.g. `x * w` where `x` is float32 at one call and float64 at
    another while `w` is fixed, or a Python float that eager execution converts to whatever
    dtype the other operand has.

    Why it matters in graph mode
    ----------------------------
    Eager execution converts Python numbers and NumPy arrays to tensors per operation,
    taking the dtype from the context of each call. A traced function fixes one dtype per
    input signature: a value that was silently coerced eagerly now meets an operand of the
    wrong dtype and raises `InvalidArgumentError` / `TypeError: Input 'y' of 'Mul' Op has
    type float64 that does not match type float32`, or a signature inferred from one call
    rejects the other calls.

    Example
    -------
        def scale(x, w):
            return x * w

        scale(np.ones(3), tf.ones(3))                 # float64 array vs float32 tensor
        scale(tf.ones(3), tf.ones(3))

    Instead
    -------
    Convert inputs to one dtype where they enter the program:

        @tf.function
        def scale(x, w):
            return tf.cast(x, w.dtype) * w
    """

    code = "HY405"
    name = "has_conflicting_eager_dtype_coercions"
    severity = "error"
    summary = "A parameter meets partners of different dtypes (e.g. float32 and float64)."
    EXAMPLE_FUNCTION = "f"
    VALID = (
        # One dtype everywhere.
        """\
import tensorflow as tf


def f(x, w):
    return x * w


f(tf.ones(3), tf.ones(3))
f(tf.zeros(3), tf.ones(3))
""",
        # An explicit cast reconciles the dtypes.
        """\
import numpy as np
import tensorflow as tf


def f(x, w):
    return tf.cast(x, w.dtype) * w


f(np.ones(3), tf.ones(3))
f(tf.ones(3), tf.ones(3))
""",
    )
    # No INVALID programs yet: the engine does not detect dtype conflicts; the fact is
    # reported as unknown, which does not block a verdict (VERDICTS.md section 2, rule 5).
    # The hazard is shown in the docstring's Example section.
    INVALID = ()
