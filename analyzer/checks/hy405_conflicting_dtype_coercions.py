"""HY405 has_conflicting_eager_dtype_coercions: one parameter meets partners of other dtypes."""

from __future__ import annotations

from . import Check


class HasConflictingEagerDtypeCoercions(Check):
    """A parameter is combined with values of different dtypes across calls.

    What it detects
    ---------------
    A parameter that, in an operation of the function, meets a partner of a different float
    dtype: typically a NumPy array (float64 by default) combined with a float32 tensor, as
    in `x * w` called with `np.ones(3)` and `tf.ones(3)`, or NumPy data standardised with
    float32 statistics.

    Why it matters in graph mode
    ----------------------------
    Eagerly, an operator such as `*` or `-` converts a NumPy operand to the dtype of the
    tensor it meets, so float64 data silently becomes float32. A traced function converts
    its NumPy arguments to tensors first, keeping their own dtype, and the same operation
    then meets float64 and float32 and fails while tracing with `TypeError: Input 'y' of
    'Mul' Op has type float32 that does not match type float64 of argument 'x'`. Adding
    `@tf.function` breaks the code.

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
