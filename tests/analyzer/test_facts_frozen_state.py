"""State read while tracing and reassigned between calls (`has_frozen_python_state_reads`).

A traced function keeps the Python values and eager tensors it read while tracing; later
assignments to that attribute or global are not seen by the graph (checked with TensorFlow
2.21: `THRESHOLD = 0.1` after the first call leaves a compiled function computing with 0.5).
A `tf.Variable` is read by reference: changed in place (`assign`) it stays live, but a new
object bound to the attribute is not seen either, whatever its kind (a new variable, an object
TensorFlow converts to a tensor: test_frozen_state_measured.py). The fact needs evidence of a
reassignment outside initialisation somewhere in the project.
"""

from __future__ import annotations

import pytest
from facts_helpers import case, verdict

FACT = "has_frozen_python_state_reads"

CASES = [
    # --- frozen ---------------------------------------------------------------------------
    case(
        "self-attribute-set-by-another-method",
        """
        import tensorflow as tf

        class Gate:
            def __init__(self):
                self.threshold = 0.5

            def set_threshold(self, value):
                self.threshold = value

            def apply(self, x):
                return tf.cast(x > self.threshold, tf.float32) * x

        gate = Gate()
        gate.apply(tf.ones((2, 3)))
        gate.set_threshold(0.9)
        """,
        "Gate.apply",
        True,
    ),
    case(
        "self-attribute-set-from-outside-in-a-loop",
        """
        import tensorflow as tf

        class Scaler:
            def __init__(self):
                self.scale = 1.0

            def apply(self, x):
                return x * self.scale

        scaler = Scaler()
        for epoch in range(3):
            scaler.scale = 1.0 / (epoch + 1)
            scaler.apply(tf.ones((2, 3)))
        """,
        "Scaler.apply",
        True,
    ),
    case(
        "global-rebound-by-a-setter",
        """
        import tensorflow as tf

        SCALE = 1.0

        def set_scale(value):
            global SCALE
            SCALE = value

        def f(x):
            return x * SCALE

        f(tf.ones((2, 3)))
        set_scale(3.0)
        """,
        "f",
        True,
    ),
    case(
        "global-rebound-by-a-module-loop",
        """
        import tensorflow as tf

        THRESHOLD = 0.5

        def f(x):
            return tf.cast(x > THRESHOLD, tf.float32) * x

        for THRESHOLD in (0.1, 0.5, 0.9):
            f(tf.ones((2, 3)))
        """,
        "f",
        True,
    ),
    case(
        "global-rebound-after-the-first-call",
        """
        import tensorflow as tf

        TEMPERATURE = 1.0

        def f(logits):
            return tf.nn.softmax(logits / TEMPERATURE)

        f(tf.ones((2, 3)))
        TEMPERATURE = 0.5
        f(tf.ones((2, 3)))
        """,
        "f",
        True,
    ),
    case(
        "global-rebound-from-another-module",
        {
            "settings.py": """
            SCALE = 1.0
            """,
            "model.py": """
            import tensorflow as tf
            import settings

            def f(x):
                return x * settings.SCALE

            f(tf.ones((2, 3)))
            settings.SCALE = 4.0
            """,
        },
        "model.py::f",
        True,
    ),
    case(
        "attribute-of-a-module-level-object",
        """
        import tensorflow as tf

        class Config:
            def __init__(self):
                self.temperature = 1.0

        config = Config()

        def f(logits):
            return tf.nn.softmax(logits / config.temperature)

        f(tf.ones((2, 3)))
        config.temperature = 0.5
        """,
        "f",
        True,
    ),
    case(
        "eager-tensor-attribute-swapped",
        """
        import tensorflow as tf

        class Shift:
            def __init__(self):
                self.offset = tf.zeros((3,))

            def recenter(self, data):
                self.offset = tf.reduce_mean(data, axis=0)

            def apply(self, x):
                return x - self.offset

        shift = Shift()
        shift.apply(tf.ones((2, 3)))
        shift.recenter(tf.ones((5, 3)))
        """,
        "Shift.apply",
        True,
    ),
    case(
        "a-helper-reads-the-global",
        """
        import tensorflow as tf

        THRESHOLD = 0.5

        def mask(x):
            return tf.cast(x > THRESHOLD, tf.float32)

        def f(x):
            return mask(x) * x

        f(tf.ones((2, 3)))
        THRESHOLD = 0.9
        """,
        "f",
        True,
    ),
    case(
        # edward2's LSTMCellReparameterization: `build` makes a variable, `call_weights` binds
        # the sample an initializer layer returns (an object converted to a tensor) before
        # each sequence; the compiled step keeps converting the first sample
        "attribute-rebound-with-an-object-of-unknown-kind",
        """
        import tensorflow as tf

        class Cell(tf.keras.layers.Layer):
            def __init__(self, initializer):
                super().__init__()
                self.initializer = initializer

            def build(self, shape):
                self.kernel = self.add_weight(shape=(3, 3), name="kernel")

            def call_weights(self):
                self.kernel = self.initializer(self.kernel.shape, self.dtype)

            def step(self, h):
                return tf.matmul(h, tf.convert_to_tensor(self.kernel))
        """,
        "Cell.step",
        True,
    ),
    # --- not frozen -----------------------------------------------------------------------
    case(
        # a method binding a variable it makes creates the state (Sonnet's `@once`
        # `_initialize`, run by the first call): read as initialisation, although binding
        # a new variable between calls would leave the graph reading the old one (measured)
        "variable-attribute-bound-to-a-new-variable-by-a-method",
        """
        import tensorflow as tf

        class Gate:
            def __init__(self):
                self.threshold = tf.Variable(0.5)

            def reset(self, value):
                self.threshold = tf.Variable(value)

            def apply(self, x):
                return tf.cast(x > self.threshold, tf.float32) * x
        """,
        "Gate.apply",
        False,
    ),
    case(
        "variable-attribute-assigned-elsewhere",
        """
        import tensorflow as tf

        class Gate:
            def __init__(self):
                self.threshold = tf.Variable(0.5)

            def set_threshold(self, value):
                self.threshold.assign(value)

            def apply(self, x):
                return tf.cast(x > self.threshold, tf.float32) * x

        gate = Gate()
        gate.apply(tf.ones((2, 3)))
        gate.set_threshold(0.9)
        """,
        "Gate.apply",
        False,
    ),
    case(
        "attribute-set-only-in-init",
        """
        import tensorflow as tf

        class Scaler:
            def __init__(self, scale):
                self.scale = scale

            def apply(self, x):
                return x * self.scale

        Scaler(2.0).apply(tf.ones((2, 3)))
        """,
        "Scaler.apply",
        False,
    ),
    case(
        "global-set-before-any-call",
        """
        import tensorflow as tf

        SCALE = 2.0
        SCALE = SCALE * 1.5

        def f(x):
            return x * SCALE

        f(tf.ones((2, 3)))
        """,
        "f",
        False,
    ),
    case(
        "module-comprehension-is-not-a-loop-around-the-call",
        """
        import tensorflow as tf

        VOCAB = ["a", "b", "c"]
        INDEX = {c: i for i, c in enumerate(VOCAB)}

        def f(x):
            return x * len(INDEX)

        f(tf.ones((2, 3)))
        """,
        "f",
        False,
    ),
    case(
        "a-local-shadows-the-global",
        """
        import tensorflow as tf

        SCALE = 1.0

        def f(x):
            SCALE = 3.0
            return x * SCALE

        f(tf.ones((2, 3)))
        SCALE = 2.0
        """,
        "f",
        False,
    ),
    case(
        "keras-build-sets-the-attribute",
        """
        import tensorflow as tf

        class Norm(tf.keras.layers.Layer):
            def build(self, input_shape):
                self.width = input_shape[-1]
                self.gamma = self.add_weight(shape=(input_shape[-1],), initializer="ones")

            def call(self, x):
                return x * self.gamma / self.width

        Norm()(tf.ones((2, 3)))
        """,
        "Norm.call",
        False,
    ),
]


@pytest.mark.parametrize(("files", "qualname", "expected"), CASES)
def test_frozen_state(files, qualname, expected):
    assert verdict(files, qualname).fact(FACT) == expected


def test_the_finding_names_the_writer():
    found = verdict(
        """
        import tensorflow as tf

        SCALE = 1.0

        def set_scale(value):
            global SCALE
            SCALE = value

        def f(x):
            return x * SCALE

        f(tf.ones((2, 3)))
        """,
        "f",
    )
    assert FACT in found.failures
    messages = [f.message for f in found.findings if f.code == "HY408"]
    assert messages and "`set_scale`" in messages[0] and "`SCALE`" in messages[0], messages


WRITTEN_IN_THE_TRACE = """
import FRAMEWORK


class Batches:
    def __init__(self):
        self.count = 0

    def _advance(self):
        self.count = self.count + 1

    def step(self, x):
        self._advance()
        return x * self.count
"""


def test_a_write_the_trace_runs_is_not_between_calls_for_tf_but_recompiles_torch() -> None:
    """`step` runs `_advance`, which rebinds `self.count`: a trace runs that write once, while
    tracing (a side effect, HY107's), so the frozen read is not HY408's; Dynamo guards on the
    int and sees it change from call to call all the same (the benefit's recompile reason)."""
    tf_source = WRITTEN_IN_THE_TRACE.replace("FRAMEWORK", "tensorflow as tf")
    tf_source += "\nb = Batches()\nfor _ in range(3):\n    b.step(tf.ones([2]))\n"
    assert not verdict(tf_source, "Batches.step").fact(FACT)
    torch_source = WRITTEN_IN_THE_TRACE.replace("FRAMEWORK", "torch")
    torch_source = torch_source.replace(
        "return x * self.count",
        "y = torch.tanh(torch.exp(torch.sin(x) * 2.0) + torch.cos(x))\n"
        "        for _ in range(8):\n"
        "            y = torch.tanh(torch.exp(torch.sin(y) * 2.0) + torch.cos(y))\n"
        "        return y.sum() * self.count",
    )
    torch_source += "\nb = Batches()\nfor _ in range(1000):\n    b.step(torch.ones(256, 256))\n"
    reasons = verdict(torch_source, "Batches.step").benefit_reasons
    assert any("recompiles whenever it changes" in r for r in reasons), reasons
