"""HY109 has_python_side_effects: changes global framework state at trace time."""

from __future__ import annotations

from hybridize.analyzer.checks.side_effect_check import SideEffectCheck

from . import TENSORFLOW_AND_TORCH


class FrameworkStateSideEffect(SideEffectCheck):
    """Changes global TensorFlow or interpreter configuration.

    What it detects
    ---------------
    A call that reconfigures the framework process-wide, in the function or in any user
    function it calls: `tf.random.set_seed`, the `tf.config` setters
    (`tf.config.run_functions_eagerly`, `tf.config.set_visible_devices`,
    `tf.config.experimental.set_memory_growth`, threading options, ...),
    `tf.keras.mixed_precision.set_global_policy`, `tf.keras.backend.set_floatx`,
    `np.set_printoptions` and similar.

    Why it matters in graph mode
    ----------------------------
    These are Python calls with no graph operation behind them. Inside `tf.function` they
    run once, while tracing, and in the middle of building a graph: a global seed set there
    changes the op seeds of that trace only, so random sequences differ from the eager
    program; device and memory settings fail once the runtime is initialised, and a dtype
    policy changed mid-trace affects layers built afterwards in surprising ways.

    Example
    -------
        def sample(shape_like, seed):
            tf.random.set_seed(seed)
            return tf.random.normal(tf.shape(shape_like))

    Instead
    -------
    Configure the framework once at start-up, outside any function that could be traced; for
    reproducible randomness inside a graph pass a seed tensor to the stateless random
    operations or use a `tf.random.Generator`:

        tf.random.set_seed(0)

        @tf.function
        def sample(shape_like, seed):
            return tf.random.stateless_normal(tf.shape(shape_like), seed=seed)

    Under torch.compile
    -------------------
    Process-wide configuration calls are Python calls Dynamo does not trace
    (torch.manual_seed is traced and is not reported: its table entry says so).
    """

    code = "HY109"
    unblock = "configure the framework once at start-up, outside any traced function"
    frameworks = TENSORFLOW_AND_TORCH
    name = "has_python_side_effects"
    severity = "error"
    summary = (
        "Changes global framework state (seeds, its configuration), which happens while tracing."
    )
    EXAMPLE_FUNCTION = "f"
