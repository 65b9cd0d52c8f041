"""HY104 has_python_side_effects: Python or NumPy random numbers."""

from __future__ import annotations

from . import Check


class PythonRandomSideEffect(Check):
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
    """

    code = "HY104"
    name = "has_python_side_effects"
    severity = "error"
    summary = "Draws Python/NumPy random numbers, which are frozen into the graph as constants."
    EXAMPLE_FUNCTION = "f"
    VALID = (
        # TensorFlow's random ops draw on every call.
        """\
import tensorflow as tf


def f(image):
    flip = tf.random.uniform(()) < 0.5
    return tf.cond(flip, lambda: tf.image.flip_left_right(image), lambda: image)


f(tf.ones((8, 8, 3)))
""",
        # Stateless random ops with a seed tensor.
        """\
import tensorflow as tf


def f(x, seed):
    noise = tf.random.stateless_normal(tf.shape(x), seed=seed, stddev=0.1)
    return x + noise


f(tf.ones((2, 3)), tf.constant([1, 2]))
""",
        # NumPy randomness only at module level, to make the data.
        """\
import numpy as np
import tensorflow as tf

data = np.random.default_rng(0).normal(size=(16, 3)).astype(np.float32)


def f(x):
    return tf.reduce_mean(x, axis=0)


f(data)
""",
    )
    INVALID = (
        # Python's random module.
        """\
import random

import tensorflow as tf


def f(image):
    if random.random() < 0.5:
        image = tf.image.flip_left_right(image)
    return image


f(tf.ones((8, 8, 3)))
""",
        # NumPy's global random state.
        """\
import numpy as np
import tensorflow as tf


def f(x):
    noise = np.random.normal(scale=0.1, size=(2, 3)).astype(np.float32)
    return x + noise


f(tf.ones((2, 3)))
""",
        # A NumPy Generator created at module level.
        """\
import numpy as np
import tensorflow as tf

rng = np.random.default_rng(42)


def f(x):
    keep = rng.random() > 0.1
    return x if keep else tf.zeros_like(x)


f(tf.ones((2, 3)))
""",
    )
