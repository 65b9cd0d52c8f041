"""HY011 convert_to_eager: an existing @tf.function should be removed (P2, P3, P6)."""

from __future__ import annotations

from . import TENSORFLOW_AND_TORCH, Check


class ConvertToEager(Check):
    """An existing `@tf.function` costs more than it gives: remove it.

    What it detects
    ---------------
    A function compiled with `@tf.function` that has no Python side effects and where the
    graph does not pay off, for one of three reasons:

    - P2: no parameter receives a tensor, so there is nothing to trace;
    - P3: a caller passes Python literals (int, float, str) next to the tensors, so every
      new value traces a new graph;
    - P6: it receives tensors but runs no TensorFlow operation, so tracing is pure overhead.

    The decorator stays (HY005, with the reason) when it has an `input_signature` (a
    deliberate contract), when it is written inside a test (`test_*` function, `Test*` or
    `TestCase` class: the test exercises graph mode on purpose), when a function without
    tensor parameters computes on variables, models or layers it captures or is given
    (calling a model or layer is TensorFlow computation), or when it applies a callable of
    unknown kind (a loaded model) to tensors.

    This is a positive verdict of the optimize refactoring; `hybridize refactor` removes the
    decorator. In the examples below, an INVALID program is one where it is reported.

    Why it matters in graph mode
    ----------------------------
    Tracing is expensive: Python runs the function symbolically, builds a `FuncGraph`,
    optimises it and caches it under a key made of the argument types, shapes and the values
    of non-tensor arguments. A function called with changing Python numbers retraces on each
    new value (TensorFlow warns about "excessive retracing"), and one without tensors or
    operations pays for the trace and the graph call without any work to speed up.

    Example
    -------
        @tf.function
        def scaled(x, factor):
            return x * factor

        scaled(tf.ones(3), 0.5)
        scaled(tf.ones(3), 0.25)   # a second trace

    Instead
    -------
    Remove the decorator, or keep it and pass the varying number as a tensor so one graph
    serves every value:

        @tf.function
        def scaled(x, factor):
            return x * factor

        scaled(tf.ones(3), tf.constant(0.5))
        scaled(tf.ones(3), tf.constant(0.25))   # same graph

    Under torch.compile
    -------------------
    Removing a @torch.compile that buys nothing (no tensor input, no torch op) follows the
    same table.
    """

    code = "HY011"
    unblock = "remove the decorator, or pass the varying value as a tensor"
    frameworks = TENSORFLOW_AND_TORCH
    name = "convert_to_eager"
    severity = "info"
    summary = (
        "An existing compile decorator (@tf.function, @torch.compile) gains nothing or "
        "retraces per call: remove it."
    )
    EXAMPLE_FUNCTION = "f"
