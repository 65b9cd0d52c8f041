"""HY303 has_eager_only_calls: a value that is a tensor in the graph is used as a Python value."""

from __future__ import annotations

from hybridize.analyzer.checks.context import CheckContext
from hybridize.model import Finding

from . import TENSORFLOW_AND_TORCH, Check


class PythonValueOfSymbolicTensor(Check):
    """Uses a value that is a symbolic tensor in the graph where Python needs a plain value.

    What it detects
    ---------------
    A value computed from a tensor parameter or a TensorFlow op used where only a Python
    value works: `bool(t)`, `max`/`min`/`any`/`all`/`sorted`/`round` of it; a Python list,
    tuple or range indexed with it (`labels[int(t)]`, `names[len(mask)]`), and a dict or
    string indexed with a value that is a tensor in any graph; the variable of a `for` loop
    over `tf.range(...)`, or over `range()` of a tensor (`range(tf.shape(x)[0])`), indexing
    any of these (`for i in tf.range(n): names[i]`); a Keras layer
    configured with it (`Dense(int(n))`); a loop over `range(n)` of such a value that grows
    a Python list, or a comprehension over it. Also such a use in a project function this
    one calls, at any depth, on a value of this function's graph: the helper is traced
    inside it.

    Under `tf.function` AutoGraph rewrites `int(t)` and `float(t)` to `tf.cast` and `len(t)`
    to the static first axis, or to a tensor when that axis is not static (a
    `tf.boolean_mask`, `tf.unique`, `tf.where` result): they no longer give Python numbers.
    `int(x.shape[0])` and `len(x)` of a parameter stay Python ints (each new input shape is
    traced anew), and AutoGraph converts an `if`/`while` test on a tensor by itself. AutoGraph
    also turns `range(t)` of a tensor into `tf.range(t)` and runs a `for` loop over a
    `tf.range` as a `tf.while_loop`: its variable is a symbolic tensor, where eagerly `range`
    took the tensor's `__index__` and gave ints (measured under TF 2.21:
    tests/analyzer/test_hy303_autograph_loop_indexes.py). `range(len(items))` and
    `range(x.shape[0])` of a static axis stay Python loops, unrolled with int variables.

    Why it matters in graph mode
    ----------------------------
    Eagerly every one of these is a concrete number. While tracing it is a symbolic tensor:
    `bool()` raises `OperatorNotAllowedInGraphError`, a list index raises
    `TypeError: list indices must be integers or slices, not SymbolicTensor`, and Keras
    rejects the layer's configuration with `ValueError`; a dict raises "Tensor is
    unhashable", a string "string indices must be integers". `range(t)` becomes `tf.range`: a
    `for` statement over it becomes a `tf.while_loop`, whose tensors a Python list cannot
    keep (`InaccessibleTensorError`), and a comprehension iterates a symbolic tensor, which
    raises. Adding `@tf.function` breaks the code.

    Example
    -------
        def pick(x):
            n = int(tf.reduce_sum(x))
            return tf.constant([0.1, 0.2, 0.3][n % 3]) * x

    Instead
    -------
    Keep the value a tensor and use TensorFlow to select with it (`tf.gather`, `tf.cond`,
    `tf.where`), or compute the Python value in the eager caller and pass the result in:

        @tf.function
        def pick(x):
            n = tf.cast(tf.reduce_sum(x), tf.int32)
            return tf.gather(tf.constant([0.1, 0.2, 0.3]), n % 3) * x

    Under torch.compile
    -------------------
    Under torch.compile `bool()`/`int()`/`float()` of a tensor, and a tensor used as a
    Python index, call `Tensor.item()`: a graph break (measured), counted as eager-only. So
    does an `if`/`while` testing a tensor (no AutoGraph converts it: "generic_jump
    TensorVariable()", measured), and indexing a tensor with a boolean mask (`x[x > 0]`: a
    data-dependent shape).
    """

    code = "HY303"
    unblock = (
        "keep the value a tensor and select with tensor ops, or compute it in the eager caller"
    )
    frameworks = TENSORFLOW_AND_TORCH
    name = "has_eager_only_calls"
    severity = "error"
    summary = (
        "Uses a value that is a tensor in the graph (e.g. `int(t)`, `len(mask)`) as a Python "
        "value: a list index, `bool()`, a layer's configuration."
    )
    EXAMPLE_FUNCTION = "f"
    counts_for = "HY301"

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """Symbolic tensors used as Python values, in its body or in the helpers traced with it."""
        return cls.findings(context.graph_hazards.python_values)
