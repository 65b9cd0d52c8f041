"""Random draws a global seed makes reproducible (`draws_seeded_global_random`, HY411).

Measured with TensorFlow 2.21: after `tf.random.set_seed(1234)`, three calls of a function
drawing `tf.random.uniform([])` give .538 .325 .598 eagerly and .131 .609 .197 compiled, and
the next eager draw moves (the compiled function does not advance the eager op counter). An
op-level seed, a stateless op or a `tf.random.Generator` draws the same numbers compiled.
Without a global seed nothing is reproducible, so nothing is flagged.
"""

from __future__ import annotations

import pytest
from facts_helpers import case, verdict

FACT = "draws_seeded_global_random"

SEEDED = """
import tensorflow as tf

tf.random.set_seed(1)
"""

DRAWS = """
import tensorflow as tf

def negate(x):
    flip = tf.cast(tf.floor(tf.random.uniform([]) + 0.5), tf.bool)
    return tf.cond(flip, lambda: x, lambda: -x)

negate(tf.ones((2, 3)))
"""

TEST_CASE = """
import tensorflow as tf

import main

class NegateTest(tf.test.TestCase):
    def test_negate(self):
        self.assertEqual(main.negate(tf.ones((2, 3))).shape, (2, 3))
"""

PLAIN_TEST = """
import unittest

import tensorflow as tf

import main

class NegateTest(unittest.TestCase):
    def test_negate(self):
        self.assertEqual(main.negate(tf.ones((2, 3))).shape, (2, 3))
"""

CASES = [
    # --- flagged ----------------------------------------------------------------------------
    case("seed-set-in-module-code", SEEDED + DRAWS, "negate", True),
    case(
        "compat-v1-seed",
        DRAWS.replace(
            "import tensorflow as tf", "import tensorflow as tf\ntf.compat.v1.set_random_seed(3)"
        ),
        "negate",
        True,
    ),
    case(
        "keras-utils-seed-in-another-function",
        DRAWS + "\nimport keras\n\ndef main():\n    keras.utils.set_random_seed(0)\n",
        "negate",
        True,
    ),
    case(
        "seed-set-by-a-test-case",
        {"main.py": DRAWS, "main_test.py": TEST_CASE},
        "main.py::negate",
        True,
    ),
    case(
        "helper-draws-for-the-caller",
        """
        import tensorflow as tf

        tf.random.set_seed(0)

        def _jitter(x):
            return x + tf.random.normal(tf.shape(x))

        def f(x):
            return _jitter(x) * 2.0

        f(tf.ones((2, 3)))
        """,
        "f",
        True,
    ),
    case(
        "explicit-seed-none-is-no-seed",
        SEEDED + DRAWS.replace("uniform([])", "uniform([], seed=None)"),
        "negate",
        True,
    ),
    case(
        "dropout-and-image-ops",
        """
        import tensorflow as tf

        tf.random.set_seed(0)

        def f(image):
            return tf.nn.dropout(tf.image.random_flip_left_right(image), 0.5)

        f(tf.ones((4, 4, 3)))
        """,
        "f",
        True,
    ),
    case(
        "seed-parameter-defaulting-to-none",
        """
        import tensorflow as tf

        tf.random.set_seed(0)

        def f(x, seed=None):
            return x * tf.random.uniform(tf.shape(x), seed=seed)

        f(tf.ones((2, 3)))
        """,
        "f",
        True,
    ),
    case(
        "seed-parameter-a-caller-passes-as-none",
        """
        import tensorflow as tf

        tf.random.set_seed(0)

        def f(x, seed):
            op_seed = seed
            return x * tf.random.uniform(tf.shape(x), seed=op_seed)

        f(tf.ones((2, 3)), 3)
        f(tf.ones((2, 3)), None)
        """,
        "f",
        True,
    ),
    # --- not flagged ----------------------------------------------------------------------
    case(
        "seed-parameter-every-caller-sets",
        """
        import tensorflow as tf

        tf.random.set_seed(0)

        def f(x, seed):
            return x * tf.random.uniform(tf.shape(x), seed=seed)

        f(tf.ones((2, 3)), 3)
        """,
        "f",
        False,
    ),
    case("no-seed-anywhere", DRAWS, "negate", False),
    case(
        "a-plain-unittest-case-does-not-seed",
        {"main.py": DRAWS, "main_test.py": PLAIN_TEST},
        "main.py::negate",
        False,
    ),
    case(
        "op-seed-given",
        SEEDED + DRAWS.replace("uniform([])", "uniform([], seed=7)"),
        "negate",
        False,
    ),
    case(
        "op-seed-given-positionally",
        SEEDED + DRAWS.replace("uniform([])", "uniform([], 0.0, 1.0, tf.float32, 7)"),
        "negate",
        False,
    ),
    case(
        "stateless-op",
        """
        import tensorflow as tf

        tf.random.set_seed(0)

        def f(x, seed):
            return x * tf.random.stateless_uniform(tf.shape(x), seed=seed)

        f(tf.ones((2, 3)), tf.constant([1, 2]))
        """,
        "f",
        False,
    ),
    case(
        "generator-passed-in",
        """
        import tensorflow as tf

        tf.random.set_seed(0)
        rng = tf.random.Generator.from_seed(5)

        def f(x, g):
            return x * g.uniform(tf.shape(x))

        f(tf.ones((2, 3)), rng)
        """,
        "f",
        False,
    ),
    case(
        "keras-layer-seeded-by-keras",
        """
        import keras
        import tensorflow as tf

        tf.random.set_seed(0)
        drop = keras.layers.Dropout(0.5)

        def f(x):
            return drop(x, training=True)

        f(tf.ones((2, 3)))
        """,
        "f",
        False,
    ),
]


@pytest.mark.parametrize(("files", "qualname", "expected"), CASES)
def test_seeded_random(files, qualname, expected):
    assert verdict(files, qualname).fact(FACT) == expected


def test_the_finding_names_the_op_and_the_seed():
    found = verdict({"main.py": DRAWS, "main_test.py": TEST_CASE}, "main.py::negate")
    assert FACT in found.failures
    messages = [f.message for f in found.findings if f.code == "HY411"]
    assert messages, found.findings
    assert "`tf.random.uniform`" in messages[0] and "`NegateTest`" in messages[0], messages


def test_the_helper_is_named_in_the_callers_finding():
    found = verdict(
        """
        import tensorflow as tf

        tf.random.set_seed(0)

        def _shuffled(x):
            return tf.random.shuffle(x)

        def f(x):
            return _shuffled(x) + 1

        f(tf.ones((4,)))
        """,
        "f",
    )
    messages = [f.message for f in found.findings if f.code == "HY411"]
    assert messages and "`_shuffled`" in messages[0] and "tf.random.shuffle" in messages[0]
    assert FACT in found.failures
