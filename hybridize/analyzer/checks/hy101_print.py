"""HY101 has_python_side_effects: print(), pprint or sys.stdout.write."""

from __future__ import annotations

from hybridize.analyzer.checks.side_effect_check import SideEffectCheck

from . import TENSORFLOW_AND_TORCH


class PrintSideEffect(SideEffectCheck):
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

    Under torch.compile
    -------------------
    `print` is a graph break under torch.compile (measured: "Failed to trace builtin
    operator"): the call keeps running, but the graph is split around it (labelling policy,
    corpus/README.md).
    """

    code = "HY101"
    unblock = "print the returned value in the eager caller (TensorFlow: or use tf.print)"
    frameworks = TENSORFLOW_AND_TORCH
    name = "has_python_side_effects"
    severity = "error"
    summary = "Calls print(), pprint or sys.stdout.write, which run only while tracing."
    EXAMPLE_FUNCTION = "f"
