"""HY104 has_python_side_effects: Python or NumPy random numbers."""

from __future__ import annotations

from hybridize.analyzer.checks.side_effect_check import SideEffectCheck

from . import TENSORFLOW_AND_TORCH


class PythonRandomSideEffect(SideEffectCheck):
    """Draws from Python's or NumPy's random number generators.

    What it detects
    ---------------
    A call to the `random` module (`random.random`, `random.choice`, `random.shuffle`, ...),
    to `np.random.*`, or to a NumPy `Generator` (`np.random.default_rng(...).normal`), in the
    function or in any user function it calls.

    Why it matters in graph mode
    ----------------------------
    Python and NumPy random numbers are drawn while tracing and baked into the graph as
    constants. Every later call replays the same "random" value: data augmentation always
    flips or never flips, dropout masks and noise are identical on every step. The program
    still runs, but it no longer computes what the eager version did.

    Example
    -------
        def augment(image):
            if random.random() < 0.5:
                image = tf.image.flip_left_right(image)
            return image

    Instead
    -------
    Use TensorFlow's random operations, which draw new values on each call of the graph:
    `tf.random.uniform`, `tf.random.stateless_*` with a seed tensor, or a
    `tf.random.Generator`:

        @tf.function
        def augment(image):
            flip = tf.random.uniform(()) < 0.5
            return tf.cond(flip, lambda: tf.image.flip_left_right(image), lambda: image)

    Under torch.compile
    -------------------
    Python's `random` is global interpreter state: torch.compile guards on it or breaks the
    graph; counted as for TensorFlow.
    """

    code = "HY104"
    unblock = "draw with the framework's random ops (tf.random, torch.rand) instead of Python/NumPy random"
    frameworks = TENSORFLOW_AND_TORCH
    name = "has_python_side_effects"
    severity = "error"
    summary = "Draws Python/NumPy random numbers, which are frozen into the graph as constants."
    EXAMPLE_FUNCTION = "f"
