"""A Keras layer with its own `build` is not built symbolically (HY406).

Keras 3 creates the weights of a layer that defines `build` by calling `build(input_shape)`
before the first call, outside any symbolic pass. A functional-API call on `keras.Input`
values then only traces `call` over initialised variables, which a compiled `call` captures by
reference: training still updates them (checked with TensorFlow 2.21: the weights of a
`@tf.function` `call` change under `fit`). A layer without `build` that holds sub-layers is
built by running `call` symbolically and stays flagged.
"""

from __future__ import annotations

import pytest
from facts_helpers import case, field_value, verdict

FUNCTIONAL = """
        import tensorflow as tf

        class Scale(tf.keras.layers.Layer):
            def build(self, input_shape):
                self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones")

            def call(self, x):
                return x * self.w

        class Wrapper(tf.keras.layers.Layer):
            def __init__(self):
                super().__init__()
                self.dense = tf.keras.layers.Dense(2)

            def call(self, x):
                return self.dense(x)

        inputs = tf.keras.Input(shape=(3,))
        outputs = Wrapper()(Scale()(inputs))
        model = tf.keras.Model(inputs, outputs)
"""

CASES = [
    case(
        "own-build-on-keras-input",
        FUNCTIONAL,
        "Scale.call",
        False,
        field="has_keras_symbolic_arguments",
    ),
    case(
        "own-build-converts", FUNCTIONAL, "Scale.call", "convert_to_hybrid", field="transformation"
    ),
    case(
        "no-build-with-sublayers-on-keras-input",
        FUNCTIONAL,
        "Wrapper.call",
        True,
        field="has_keras_symbolic_arguments",
    ),
    case(
        "inherited-build-counts",
        """
        import tensorflow as tf

        class Base(tf.keras.layers.Layer):
            def build(self, input_shape):
                self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones")

        class Scale(Base):
            def call(self, x):
                return x * self.w

        inputs = tf.keras.Input(shape=(3,))
        model = tf.keras.Model(inputs, Scale()(inputs))
        """,
        "Scale.call",
        False,
        field="has_keras_symbolic_arguments",
    ),
    case(
        "plain-function-on-keras-input-stays-flagged",
        """
        import tensorflow as tf

        def double(x):
            return x * 2.0

        inputs = tf.keras.Input(shape=(3,))
        doubled = double(inputs)
        """,
        "double",
        True,
        field="has_keras_symbolic_arguments",
    ),
]


@pytest.mark.parametrize(("files", "qualname", "field", "expected"), CASES)
def test_keras_own_build(files, qualname, field, expected):
    assert field_value(verdict(files, qualname), field) == expected
