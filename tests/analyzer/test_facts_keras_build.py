"""Keras 3 builds a layer without `build` by calling `call` on symbolic tensors.

A `@tf.function` on such a `call` is traced during that symbolic pass and freezes the
sub-layers' weights (observed in the corpus: accuracy stuck at its initial value, "No
gradients provided for any variable"), so `has_keras_symbolic_arguments` is true for it.
"""

from __future__ import annotations

import pytest
from facts_helpers import case, field_value, verdict

CASES = [
    case(
        "sublayers-and-no-build",
        """
        import tensorflow as tf

        class Net(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.hidden = tf.keras.layers.Dense(8)
                self.out = tf.keras.layers.Dense(1)

            def call(self, x):
                return self.out(self.hidden(x))

        net = Net()
        net(tf.ones((2, 3)))
        """,
        "Net.call",
        True,
        field="has_keras_symbolic_arguments",
    ),
    case(
        "own-build-creates-the-weights",
        """
        import tensorflow as tf

        class Net(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.hidden = tf.keras.layers.Dense(8)

            def build(self, input_shape):
                self.hidden.build(input_shape)

            def call(self, x):
                return self.hidden(x)

        Net()(tf.ones((2, 3)))
        """,
        "Net.call",
        False,
        field="has_keras_symbolic_arguments",
    ),
    case(
        "stateful-sublayer-of-a-symbolically-built-parent",
        """
        import tensorflow as tf

        class Scale(tf.keras.layers.Layer):
            def build(self, input_shape):
                self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones")

            def call(self, x):
                return x * self.w

        class Net(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.scale = Scale()
                self.out = tf.keras.layers.Dense(1)

            def call(self, x):
                return self.out(self.scale(x))

        Net()(tf.ones((2, 3)))
        """,
        "Scale.call",
        True,
        field="has_keras_symbolic_arguments",
    ),
    case(
        "stateless-sublayer-is-unaffected",
        """
        import tensorflow as tf

        class Double(tf.keras.layers.Layer):
            def call(self, x):
                return x * 2.0

        class Net(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.double = Double()
                self.out = tf.keras.layers.Dense(1)

            def call(self, x):
                return self.out(self.double(x))

        Net()(tf.ones((2, 3)))
        """,
        "Double.call",
        False,
        field="has_keras_symbolic_arguments",
    ),
    case(
        "built-functional-submodel-is-unaffected",
        """
        import tensorflow as tf

        def encoder():
            inputs = tf.keras.Input(shape=(3,))
            return tf.keras.Model(inputs, tf.keras.layers.Dense(4)(inputs))

        class Pair(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.encoder = encoder()

            def call(self, x):
                return self.encoder(x)

        Pair()(tf.ones((2, 3)))
        """,
        "Pair.call",
        False,
        field="has_keras_symbolic_arguments",
    ),
    # --- sub-layers kept in containers: Keras tracks them like direct attributes --------
    case(
        "sublayers-in-a-list-comprehension",
        """
        import tensorflow as tf

        class Stack(tf.keras.Model):
            def __init__(self, depth):
                super().__init__()
                self.blocks = [tf.keras.layers.Dense(8) for _ in range(depth)]

            def call(self, x):
                for block in self.blocks:
                    x = block(x)
                return x

        Stack(3)(tf.ones((2, 3)))
        """,
        "Stack.call",
        True,
        field="has_keras_symbolic_arguments",
    ),
    case(
        "sublayers-in-a-dict-display",
        """
        import tensorflow as tf

        class Heads(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.heads = {"a": tf.keras.layers.Dense(1), "b": tf.keras.layers.Dense(2)}

            def call(self, x):
                return self.heads["a"](x), self.heads["b"](x)

        Heads()(tf.ones((2, 3)))
        """,
        "Heads.call",
        True,
        field="has_keras_symbolic_arguments",
    ),
    case(
        "sublayers-appended-to-a-list-attribute",
        """
        import tensorflow as tf

        class Stack(tf.keras.Model):
            def __init__(self, depth):
                super().__init__()
                self.blocks = []
                for _ in range(depth):
                    self.blocks.append(tf.keras.layers.Dense(8))

            def call(self, x):
                for block in self.blocks:
                    x = block(x)
                return x

        Stack(2)(tf.ones((2, 3)))
        """,
        "Stack.call",
        True,
        field="has_keras_symbolic_arguments",
    ),
    case(
        "sublayers-stored-as-dict-items",
        """
        import tensorflow as tf

        class Heads(tf.keras.Model):
            def __init__(self, names):
                super().__init__()
                self.heads = {}
                for name in names:
                    self.heads[name] = tf.keras.layers.Dense(1)

            def call(self, x):
                return [head(x) for head in self.heads.values()]

        Heads(["a", "b"])(tf.ones((2, 3)))
        """,
        "Heads.call",
        True,
        field="has_keras_symbolic_arguments",
    ),
    case(
        "stateful-project-layer-in-a-list-of-a-symbolically-built-parent",
        """
        import tensorflow as tf

        class Scale(tf.keras.layers.Layer):
            def build(self, input_shape):
                self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones")

            def call(self, x):
                return x * self.w

        class Net(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.scales = [Scale(), Scale()]

            def call(self, x):
                for scale in self.scales:
                    x = scale(x)
                return x

        Net()(tf.ones((2, 3)))
        """,
        "Scale.call",
        True,
        field="has_keras_symbolic_arguments",
    ),
    case(
        "list-of-sublayers-with-own-build",
        """
        import tensorflow as tf

        class Stack(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.blocks = [tf.keras.layers.Dense(8), tf.keras.layers.Dense(8)]

            def build(self, input_shape):
                for block in self.blocks:
                    block.build(input_shape)
                    input_shape = (input_shape[0], 8)

            def call(self, x):
                for block in self.blocks:
                    x = block(x)
                return x

        Stack()(tf.ones((2, 3)))
        """,
        "Stack.call",
        False,
        field="has_keras_symbolic_arguments",
    ),
    case(
        "list-of-python-numbers-is-not-a-sublayer",
        """
        import tensorflow as tf

        class Mix(tf.keras.layers.Layer):
            def __init__(self):
                super().__init__()
                self.weights_py = [0.25, 0.75]

            def call(self, x):
                return x * self.weights_py[0] + x * self.weights_py[1]

        Mix()(tf.ones((2, 3)))
        """,
        "Mix.call",
        False,
        field="has_keras_symbolic_arguments",
    ),
    case(
        "verdict-fails",
        """
        import tensorflow as tf

        class Net(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.hidden = tf.keras.layers.Dense(8)

            def call(self, x):
                return self.hidden(x)

        Net()(tf.ones((2, 3)))
        """,
        "Net.call",
        ("has_keras_symbolic_arguments",),
        field="failures",
    ),
]


@pytest.mark.parametrize(("files", "qualname", "field", "expected"), CASES)
def test_keras_symbolic_build(files, qualname, field, expected):
    assert field_value(verdict(files, qualname), field) == expected
