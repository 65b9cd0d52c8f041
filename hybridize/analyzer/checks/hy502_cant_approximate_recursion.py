"""HY502 cant_approximate_recursion: whether the function is recursive cannot be decided."""

from __future__ import annotations

from . import TENSORFLOW_AND_TORCH, Check


class CantApproximateRecursion(Check):
    """Whether the function is recursive cannot be decided.

    What it detects
    ---------------
    A function whose calls the analysis cannot resolve well enough to rule out a cycle back
    to itself: calls through unknown callables, dynamic dispatch on objects of unknown
    type, or call graphs too large to approximate. It is the unknown counterpart of HY501.

    Why it matters in graph mode
    ----------------------------
    A recursive function cannot be traced reliably (see HY501): tracing either recurses
    without end or unrolls the recursion into the graph. If recursion cannot be excluded,
    adding `@tf.function` could turn working eager code into a trace that never finishes,
    so hybridize leaves the function alone.

    Example
    -------
        def visit(node, x):
            return node.handler(node.children, x)    # handler may call visit again

    Instead
    -------
    Make the calls resolvable (call concrete functions, not callables stored on unknown
    objects), or restructure the computation as a loop or a TensorFlow control-flow
    operation so that no recursion is needed:

        @tf.function
        def visit(x):
            return tf.foldl(lambda acc, row: acc + row, x)

    Under torch.compile
    -------------------
    The same call graph limits apply.
    """

    code = "HY502"
    unblock = "make the calls resolvable (call concrete functions), or restructure the recursion as a loop"
    frameworks = TENSORFLOW_AND_TORCH
    name = "cant_approximate_recursion"
    severity = "warning"
    summary = "Calls cannot be resolved well enough to rule out recursion."
    EXAMPLE_FUNCTION = "f"
    # No embedded examples: the engine resolves every call it keeps in the call graph and
    # never reports recursion as unknown yet, so this code is not emitted.
    VALID = ()
    INVALID = ()
