"""HY501 is_recursive: the function reaches itself through the call graph."""

from __future__ import annotations

from hybridize.analyzer.checks.context import CheckContext
from hybridize.model import Finding

from . import TENSORFLOW_AND_TORCH, Check


class IsRecursive(Check):
    """The function calls itself, directly or through other functions.

    What it detects
    ---------------
    A function on a cycle of the call graph: it calls itself (direct recursion) or calls a
    function that, possibly through others, calls it again (mutual recursion).

    Why it matters in graph mode
    ----------------------------
    Tracing runs the Python body to build the graph, and a recursive call is traced as
    well. When the recursion ends on a tensor value, tracing cannot know where to stop, so
    it recurses until Python's recursion limit; when it ends on a static property, the
    graph contains the whole unrolled recursion, specialised to that property, and retraces
    for every new one. A recursive `tf.function` calling itself also re-enters its own trace,
    which TensorFlow does not support.

    Example
    -------
        def tree_sum(x):
            if x.shape[0] == 1:
                return x
            half = x.shape[0] // 2
            return tree_sum(x[:half]) + tree_sum(x[half:])

    Instead
    -------
    Express the repetition with a loop or a TensorFlow control-flow operation
    (`tf.while_loop`, `tf.foldl`, a `for` over `tf.range`), or a vectorised reduction:

        @tf.function
        def tree_sum(x):
            return tf.reduce_sum(x, axis=0, keepdims=True)

    Under torch.compile
    -------------------
    Dynamo inlines calls; a recursive function recurses at trace time until it hits the
    inlining limits and breaks the graph.
    """

    code = "HY501"
    unblock = "express the repetition as a loop or a vectorised reduction"
    frameworks = TENSORFLOW_AND_TORCH
    name = "is_recursive"
    severity = "error"
    summary = "Calls itself, directly or through other functions; tracing would unroll or loop."
    EXAMPLE_FUNCTION = "f"

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """A function on a cycle of the call graph."""
        if not context.recursive:
            return []
        return [
            cls.finding("calls itself, directly or through other functions", context.function.span)
        ]
