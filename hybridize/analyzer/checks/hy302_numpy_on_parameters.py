"""HY302 has_numpy_calls_on_parameters: NumPy applied to a value derived from a parameter."""

from __future__ import annotations

from hybridize.analyzer.checks.context import CheckContext
from hybridize.analyzer.facts.safety import numpy_calls_on_parameters
from hybridize.model import Finding

from . import TENSORFLOW_ONLY, Check


class HasNumpyCallsOnParameters(Check):
    """Applies NumPy (or SciPy) to a value computed from a parameter.

    What it detects
    ---------------
    A call of a `numpy` or `scipy` function whose argument is a parameter or is computed
    from one (`np.mean(x)`, `np.asarray(logits)`, `np.clip(x * 2, 0, 1)`). Static metadata
    does not count: NumPy on `x.shape`, `x.dtype` or `x.ndim` is fine, as is NumPy on
    constants. While tracing, `x.shape` is a TensorShape of Python ints wherever the trace
    knows the axis: a plain `tf.function` traces each new shape with every axis known, so
    `np.prod(x.shape[1:])` or `np.sqrt(x.shape[-1])` computes at trace time. Only an
    `input_signature` (or `reduce_retracing`) leaves an axis `None`; a read of such an axis,
    by index or in a slice, is HY404. Also a project function this one calls, at any depth, that applies NumPy to
    its parameter when this function passes it a value that is a tensor in its graph: the
    helper is traced inside it. Libraries that compute only on Python values count as
    NumPy does: `math`, `cmath`, `fractions`, `decimal`, `statistics`, SymPy and mpmath
    (`math.floor(x)`, `fractions.Fraction(x)`, `sympy.cse(expr)`); what they give is a
    Python value, and of a Python constant (`math.sqrt(2.0)`) or a static shape
    (`math.sqrt(x.shape[-1])`) they compute at trace time, fine. The same holds in every scope that runs inside the graph:
    a comprehension or generator expression, a lambda or nested function that reads one of
    this function's variables (`lambda: np.mean(x)`), and a callback that `tf.map_fn`,
    `tf.cond`, `tf.scan` and friends run in this function's mode.

    Why it matters in graph mode
    ----------------------------
    NumPy computes on concrete arrays. Eagerly, a `tf.Tensor` converts to one implicitly;
    while tracing it is symbolic and has no value, so NumPy raises
    `NotImplementedError: Cannot convert a symbolic tf.Tensor to a numpy array`, or, for
    functions that accept arbitrary objects, silently computes on the wrong thing. The
    Python-value libraries read a number with `__float__` or `__index__`, which an eager
    tensor answers and a symbolic one does not (TF 2.21: `math.floor(x)` and
    `fractions.Fraction(x)` raise `TypeError`; `sympy.sympify(x)` a `StagingError`, AutoGraph
    converting SymPy's own code). Adding `@tf.function` breaks the code.

    Example
    -------
        def normalize(x):
            return (x - np.mean(x)) / np.std(x)

    Instead
    -------
    Use the TensorFlow operation (`tf.reduce_mean`, `tf.math.reduce_std`, `tf.clip_by_value`,
    or the NumPy-like API `tf.experimental.numpy`), or do the NumPy work in the eager
    caller:

        @tf.function
        def normalize(x):
            return (x - tf.reduce_mean(x)) / tf.math.reduce_std(x)

    Not for torch.compile
    ---------------------
    Dynamo traces NumPy on tensors and arrays through `torch._numpy` (labelling policy,
    corpus/README.md): NumPy never meets a value it cannot read, so not this hazard; but
    the emulation's semantics differ from NumPy's, which is HY432's concern.
    """

    code = "HY302"
    unblock = "use the TensorFlow operation (tf.reduce_mean, tf.experimental.numpy) or do the NumPy work in the caller"
    frameworks = TENSORFLOW_ONLY
    name = "has_numpy_calls_on_parameters"
    severity = "error"
    summary = "Applies NumPy to a value derived from a parameter; symbolic tensors have no value."
    EXAMPLE_FUNCTION = "f"
    fact = "has_numpy_calls_on_parameters"
    fact_meaning = (
        "NumPy or SciPy applied to a value derived from a parameter (a symbolic tensor cannot "
        "be evaluated by NumPy)"
    )
    report_order = 20
    decision_order = 20

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """NumPy on its parameters, in its body or in the helpers traced with it."""
        return cls.findings(
            [*numpy_calls_on_parameters(context.scan), *context.graph_hazards.numpy]
        )
