"""HY005 has_no_primitive_parameters: an existing @tf.function that is already right."""

from __future__ import annotations

from . import TENSORFLOW_AND_TORCH, Check


class HasNoPrimitiveParameters(Check):
    """An existing `@tf.function` that is already right: keep it.

    What it detects
    ---------------
    A function already compiled with `@tf.function` (any spelling, or `tf.function(g)`) that
    receives tensors, no Python literals, runs TensorFlow operations and has no Python side
    effects, and for which no better decorator configuration was inferred. The optimize
    refactoring finds nothing to change. This is a positive note: the decorator stays. In
    the examples below, an INVALID program is one where this note is reported. It is also
    the note of a decorator that P2, P3 or P6 would remove but that must stay, with the
    reason in its message: an `input_signature`, a test of graph mode, computation on
    captured variables, models or layers, a call of an unknown callable on tensors, or a
    Python value returned to a caller that reads it: the decorator returns it as a tensor
    (`tf.function(lambda n: n // 2)(5)` is a tensor, the function itself gives the int 2, and
    a caller's `.numpy()` then raises; measured under TF 2.21, where
    `experimental_follow_type_hints` converts no Python argument either).

    Why it matters in graph mode
    ----------------------------
    This is what a good `tf.function` looks like: tensor arguments give a stable trace cache
    key, so the function traces once per input signature and then replays the graph;
    without Python side effects the graph does the same as the eager code on every call.
    Removing the decorator would only lose the speed-up.

    Example
    -------
        @tf.function
        def dense(x, w):
            return tf.nn.relu(tf.matmul(x, w))

        dense(tf.ones((2, 3)), tf.ones((3, 4)))

    Instead
    -------
    Nothing to do. If the shapes vary a lot between calls, consider
    `@tf.function(reduce_retracing=True)` or an explicit `input_signature` (see
    `hybridize analyze --infer-input-signatures`, code HY012):

        @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32),
                                      tf.TensorSpec([3, 4], tf.float32)])
        def dense(x, w):
            return tf.nn.relu(tf.matmul(x, w))

    Under torch.compile
    -------------------
    An existing @torch.compile that is right is kept, for the same reasons.
    """

    code = "HY005"
    unblock = "nothing: the existing decorator is right"
    frameworks = TENSORFLOW_AND_TORCH
    name = "has_no_primitive_parameters"
    severity = "info"
    summary = (
        "An existing compile decorator (@tf.function, @torch.compile) is already right (tensor "
        "inputs, no side effects): keep it."
    )
    EXAMPLE_FUNCTION = "f"
