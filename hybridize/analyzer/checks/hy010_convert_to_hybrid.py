"""HY010 convert_to_hybrid: the function can get @tf.function (precondition P1)."""

from __future__ import annotations

from . import TENSORFLOW_AND_TORCH, Check


class ConvertToHybrid(Check):
    """The function can safely run as a graph: add `@tf.function`.

    What it detects
    ---------------
    A function without `@tf.function` that passes every precondition of the convert
    refactoring (P1): a parameter receives tensors, no caller passes Python literals, it has
    no Python side effects (also not in what it calls), it is not recursive, it has no
    eager-only or otherwise graph-breaking calls, it runs TensorFlow operations, and at
    least one caller runs it eagerly. This is a positive verdict; `hybridize refactor` adds
    the decorator.

    In the examples below, an INVALID program is one where this verdict is reported.

    Why it matters in graph mode
    ----------------------------
    Run eagerly, every operation is dispatched from Python one at a time. Traced once into a
    graph, the same computation runs as one call into the runtime, with constant folding,
    op fusion and dead-code pruning, and optionally XLA (`jit_compile=True`). For small ops
    in a loop, as in training steps, this is often several times faster, and the checks
    above make sure the graph computes the same values as the eager code.

    Example
    -------
        def mse(y_true, y_pred):
            return tf.reduce_mean(tf.square(y_true - y_pred))

        mse(tf.ones((4, 1)), tf.zeros((4, 1)))

    Instead
    -------
    Apply the refactoring (`hybridize refactor --diff` shows it):

        @tf.function
        def mse(y_true, y_pred):
            return tf.reduce_mean(tf.square(y_true - y_pred))

    Under torch.compile
    -------------------
    The decision table is the same for torch.compile; the decorator named is @torch.compile.
    """

    code = "HY010"
    unblock = "apply the change: hybridize refactor --apply"
    frameworks = TENSORFLOW_AND_TORCH
    name = "convert_to_hybrid"
    severity = "info"
    summary = "Safe and beneficial to compile: add @tf.function (@torch.compile for PyTorch)."
    EXAMPLE_FUNCTION = "f"
