"""HY107 has_python_side_effects: mutates an object the function did not create."""

from __future__ import annotations

from hybridize.analyzer.checks.side_effect_check import SideEffectCheck

from . import TENSORFLOW_AND_TORCH


class MutationSideEffect(SideEffectCheck):
    """Writes to or mutates an object that the function did not create.

    What it detects
    ---------------
    A store to an attribute or item (`obj.attr = v`, `obj[k] = v`, `del obj[k]`) or a
    mutating method call (`append`, `extend`, `insert`, `pop`, `update`, `setdefault`,
    `clear`, ...) on an object that was not created inside the call: a parameter, `self`, a
    module-level object, or a variable of an enclosing function. It also applies when the
    function calls a user function that mutates such an object, including one it passes on
    from its own parameters. Objects created inside the call may be mutated freely, and
    graph operations such as `tf.Variable.assign` or Keras `build` writing the layer's
    weights are not Python side effects. A Keras layer's `add_loss` is one: it stores the loss
    tensor on the layer, and compiled (the `call`, or a caller) the tensor belongs to the
    function's graph once the call returns (`float(layer.losses[0])` raises TypeError; Keras 2
    and 3, measured in tests/analyzer/test_add_loss_measured.py).

    Why it matters in graph mode
    ----------------------------
    The mutation happens while tracing, once, and not on later calls: a history list gets
    one entry (holding a symbolic tensor) instead of one per step, a metrics dict stops
    updating, a cache fills with tensors that belong to a finished graph. Using those
    tensors later fails, and everything that reads the state sees stale values.

    Example
    -------
        history = []

        def train_step(x, y):
            loss = compute_loss(x, y)
            history.append(loss)
            return loss

    Instead
    -------
    Return values and collect them in the eager caller, keep state in `tf.Variable`s, or use
    a `tf.TensorArray` for values accumulated inside the function:

        @tf.function
        def train_step(x, y):
            return compute_loss(x, y)

        history = [train_step(x, y) for x, y in dataset]

    Under torch.compile
    -------------------
    Mutating an argument or `self` (an int attribute of an nn.Module bumped in forward, a
    Generator advanced) forces a recompilation per call or leaves the graph (measured);
    Dynamo-replayed mutations (in-place tensor ops, optimizer updates, `train()`/`eval()`)
    are not reported.
    """

    code = "HY107"
    unblock = "return the values and collect them in the eager caller (TensorFlow: or keep the state in tf.Variables)"
    frameworks = TENSORFLOW_AND_TORCH
    name = "has_python_side_effects"
    severity = "error"
    summary = "Mutates a parameter, self, a module-level or enclosing object while tracing only."
    EXAMPLE_FUNCTION = "f"
