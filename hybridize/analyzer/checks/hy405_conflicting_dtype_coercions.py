"""HY405 has_conflicting_eager_dtype_coercions: one parameter meets partners of other dtypes."""

from __future__ import annotations

from hybridize.analyzer.checks.context import CheckContext
from hybridize.analyzer.facts.safety import conflicting_dtype_coercions
from hybridize.model import Finding

from . import TENSORFLOW_ONLY, Check


class HasConflictingEagerDtypeCoercions(Check):
    """A parameter is combined with values of different dtypes across calls.

    What it detects
    ---------------
    A parameter that, in an operation of the function, meets a partner of a different float
    dtype: typically a NumPy array (float64 by default) combined with a float32 tensor, as
    in `x * w` called with `np.ones(3)` and `tf.ones(3)`, or NumPy data standardised with
    float32 statistics. Also a Python number before a tensor in an op whose inputs share a
    dtype (`tf.maximum(0, x)` with a float `x`, `tf.where(c, 1., x)` with a float64 `x`).

    Why it matters in graph mode
    ----------------------------
    Eagerly, an operator such as `*` or `-` converts a NumPy operand to the dtype of the
    tensor it meets, so float64 data silently becomes float32. A traced function converts
    its NumPy arguments to tensors first, keeping their own dtype, and the same operation
    then meets float64 and float32 and fails while tracing with `TypeError: Input 'y' of
    'Mul' Op has type float32 that does not match type float64 of argument 'x'`. Adding
    `@tf.function` breaks the code. Likewise an op such as `tf.maximum` converts a leading
    Python number to the first tensor's dtype eagerly, but while tracing converts it first,
    to its own default (int32, float32), and then fails on the tensor (the ops that do so
    were measured: `tensorflow_literal_order.json`).

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

    Not for torch.compile
    ---------------------
    About tf.function's stricter dtype conversion of Python numbers; PyTorch promotes types
    the same way eagerly and compiled.
    """

    code = "HY405"
    unblock = "convert the inputs to one dtype where they enter the program"
    frameworks = TENSORFLOW_ONLY
    name = "has_conflicting_eager_dtype_coercions"
    severity = "error"
    summary = "A parameter meets partners of different dtypes (e.g. float32 and float64)."
    EXAMPLE_FUNCTION = "f"
    fact = "has_conflicting_eager_dtype_coercions"
    fact_meaning = (
        "one parameter meets partners of different dtypes (float32 and float64, following "
        "NumPy's promotion), or a Python number before a tensor of another dtype in an op "
        "that converts it first"
    )
    report_order = 60
    decision_order = 60

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        return cls.findings(conflicting_dtype_coercions(context.scan))
