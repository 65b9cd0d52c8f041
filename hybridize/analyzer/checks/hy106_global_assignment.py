"""HY106 has_python_side_effects: assignment to a global or nonlocal variable."""

from __future__ import annotations

from hybridize.analyzer.checks.side_effect_check import SideEffectCheck

from . import TENSORFLOW_AND_TORCH


class GlobalAssignmentSideEffect(SideEffectCheck):
    """Assigns a variable declared `global` or `nonlocal`.

    What it detects
    ---------------
    An assignment (plain, augmented or annotated, or a `del`) to a name the function
    declares `global` or `nonlocal`, in the function or in any user function it calls.

    Why it matters in graph mode
    ----------------------------
    Python assignments run while tracing. A counter incremented in a traced function counts
    traces, not calls; a global that stores a tensor ends up holding a symbolic tensor of a
    finished graph, and using it outside that graph fails with "tf.Graph captured an
    external symbolic tensor" or an out-of-scope error.

    Example
    -------
        steps = 0

        def train_step(x, y):
            global steps
            steps += 1
            return compute_loss(x, y)

    Instead
    -------
    Keep state in a `tf.Variable` and update it with `assign` / `assign_add`, which are graph
    operations that run on every call; or return the value and update Python state in the
    eager caller:

        steps = tf.Variable(0, dtype=tf.int64)

        @tf.function
        def train_step(x, y):
            steps.assign_add(1)
            return compute_loss(x, y)

    Under torch.compile
    -------------------
    A global that the compiled code assigns and reads again fails Dynamo's guard at the next
    call: a recompilation per call (measured: 6 calls, 6 frames).
    """

    code = "HY106"
    unblock = "return the value and update the global in the eager caller (TensorFlow: or keep it in a tf.Variable)"
    frameworks = TENSORFLOW_AND_TORCH
    name = "has_python_side_effects"
    severity = "error"
    summary = "Assigns a global or nonlocal variable, which happens only while tracing."
    EXAMPLE_FUNCTION = "f"
