"""Computations that run eagerly but fail as a graph for want of a kernel
(`hybridize/analyzer/facts/graph_kernel_gaps.py`): Mish, which TensorFlow's CPU graph optimizer fuses with a
convolution and batch normalisation before it into a kernel TF 2.21 lacks.

Measured (TF 2.21, tf-keras, CPU, oneDNN on by default): Conv2D(use_bias=False) ->
BatchNormalization -> `y * tf.math.tanh(tf.math.softplus(y))` runs eagerly and fails under
`tf.function` with "Fusion is not implemented: [FusedBatchNorm,Mish]" (tf-models' YOLO blocks
broke so in the real-code oracle). Each expected value is whether a compiled function may
build that graph: Mish computed in it or in anything it calls.
"""

from __future__ import annotations

import pytest
from facts_helpers import case, field_value, verdict

EAGER = "has_eager_only_calls"

CASES = [
    case(
        "tanh-of-softplus-in-the-function",
        """
        import tensorflow as tf

        def act(x):
            return x * tf.math.tanh(tf.math.softplus(x))

        act(tf.ones([4]))
        """,
        "act",
        True,
        field=EAGER,
    ),
    case(
        "through-a-local-name-and-other-spellings",
        """
        import tensorflow as tf

        def act(x):
            sp = tf.nn.softplus(x)
            return x * tf.tanh(sp)

        act(tf.ones([4]))
        """,
        "act",
        True,
        field=EAGER,
    ),
    case(
        "keras-mish-by-name",
        """
        import tensorflow as tf

        def act(x):
            return tf.keras.activations.mish(x)

        act(tf.ones([4]))
        """,
        "act",
        True,
        field=EAGER,
    ),
    case(
        "mish-in-a-helper-reaches-the-caller",
        """
        import tensorflow as tf

        def mish(x):
            return x * tf.tanh(tf.nn.softplus(x))

        def block(x):
            return mish(tf.nn.relu(x) * 2.0)

        block(tf.ones([4]))
        """,
        "block",
        True,
        field=EAGER,
    ),
    case(
        "mish-lambda-held-by-a-layer-reaches-the-model",
        """
        import tensorflow as tf

        class ConvBN(tf.keras.layers.Layer):
            def build(self, input_shape):
                self.conv = tf.keras.layers.Conv2D(4, 3, use_bias=False)
                self.bn = tf.keras.layers.BatchNormalization()
                self.act = lambda x: x * tf.math.tanh(tf.math.softplus(x))

            def call(self, x):
                return self.act(self.bn(self.conv(x)))

        class Net(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.block = ConvBN()

            def build(self, input_shape):
                pass

            def call(self, x):
                return self.block(x) + 1.0

        Net()(tf.ones([1, 8, 8, 3]))
        """,
        "Net.call",
        True,
        field=EAGER,
    ),
    # --- what builds no such graph ----------------------------------------------------------
    case(
        "tanh-alone",
        """
        import tensorflow as tf

        def act(x):
            return x * tf.tanh(x)

        act(tf.ones([4]))
        """,
        "act",
        False,
        field=EAGER,
    ),
    case(
        "softplus-alone",
        """
        import tensorflow as tf

        def act(x):
            return tf.nn.softplus(x) * 2.0

        act(tf.ones([4]))
        """,
        "act",
        False,
        field=EAGER,
    ),
    case(
        "tanh-of-something-else-than-softplus",
        """
        import tensorflow as tf

        def act(x):
            return x * tf.tanh(tf.nn.relu(x))

        act(tf.ones([4]))
        """,
        "act",
        False,
        field=EAGER,
    ),
]


@pytest.mark.parametrize(("files", "qualname", "field", "expected"), CASES)
def test_kernel_gap_fact(files, qualname, field, expected):
    assert field_value(verdict(files, qualname), field) == expected


def test_the_finding_says_why_and_where():
    v = verdict(
        """
        import tensorflow as tf

        def mish(x):
            return x * tf.tanh(tf.nn.softplus(x))

        def block(x):
            return mish(x + 1.0)

        block(tf.ones([4]))
        """,
        "block",
    )
    messages = [f.message for f in v.findings if f.code == "HY301"]
    assert messages and "`mish` (line 5)" in messages[0], messages
    assert "Fusion is not implemented: [FusedBatchNorm,Mish]" in messages[0]
