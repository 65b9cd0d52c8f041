"""`x += y` (any augmented assignment): a mutation only when `x` is a mutable object.

Python calls `x.__iadd__(y)` when the type defines it: a list, dict, set or NumPy array
changes in place (an object the function did not create is then a side effect); a tensor, a
number or a string has none, so `x = x + y` rebinds the local name and nothing outside the
function changes. The kind that matters is the kind of the value that *reaches* the line: after
`x = tf.convert_to_tensor(x)` it is a tensor whatever the caller passed. A value of unknown kind
stays undeterminable, never silently safe.
"""

from __future__ import annotations

import pytest
from facts_helpers import case, field_value, verdict

CASES = [
    case(
        "tensor-parameter-rebinds",
        """
        import tensorflow as tf

        def scale(x, y):
            x *= y
            return x

        scale(tf.ones([2]), tf.ones([2]))
        """,
        "scale",
        False,
        field="has_python_side_effects",
    ),
    case(
        "layer-output-rebinds",
        """
        import tensorflow as tf

        class Embed(tf.keras.layers.Layer):
            def __init__(self, units):
                super().__init__()
                self.units = units
                self.dense = tf.keras.layers.Dense(units)

            def build(self, input_shape):
                self.dense.build(input_shape)

            def call(self, x):
                h = self.dense(x)
                h *= tf.math.sqrt(tf.cast(self.units, tf.float32))
                return h

        Embed(4)(tf.ones([2, 3]))
        """,
        "Embed.call",
        False,
        field="has_python_side_effects",
    ),
    case(
        "converted-before-the-update",
        """
        import tensorflow as tf

        def double(x):
            x = tf.convert_to_tensor(x)
            x *= 2.0
            return x

        double([1.0, 2.0])
        """,
        "double",
        False,
        field="has_python_side_effects",
    ),
    case(
        "caller-of-a-rebinding-function-is-not-charged",
        """
        import tensorflow as tf

        def double(x):
            x = tf.convert_to_tensor(x)
            x *= 2.0
            return x

        def twice(values, t):
            return double(values) + t

        twice([1.0, 2.0], tf.ones([2]))
        """,
        "twice",
        False,
        field="has_python_side_effects",
    ),
    case(
        "list-parameter-extends-in-place",
        """
        import tensorflow as tf

        def collect(x, acc):
            acc += [x]
            return tf.add_n(acc)

        collect(tf.ones([2]), [tf.zeros([2])])
        """,
        "collect",
        True,
        field="has_python_side_effects",
    ),
    case(
        "ndarray-parameter-changes-in-place",
        """
        import numpy as np
        import tensorflow as tf

        def shift(t, counts):
            counts += 1
            return tf.reduce_sum(t)

        shift(tf.ones([3]), np.zeros(3))
        """,
        "shift",
        True,
        field="has_python_side_effects",
    ),
    case(
        "mutation-propagates-to-the-caller-that-passes-its-parameter",
        """
        import tensorflow as tf

        def extend(acc, x):
            acc += [x]

        def step(x, history):
            extend(history, x)
            return tf.reduce_sum(x)

        step(tf.ones([2]), [])
        """,
        "step",
        True,
        field="has_python_side_effects",
    ),
    case(
        "conversion-only-on-one-branch",
        """
        import tensorflow as tf

        def maybe(x, flag):
            if flag:
                x = tf.convert_to_tensor(x)
            x *= 2.0
            return tf.reduce_sum(x)

        maybe([1.0], True)
        """,
        "maybe",
        True,
        field="has_python_side_effects",
    ),
    case(
        "conversion-later-in-a-loop-does-not-cover-the-first-iteration",
        """
        import tensorflow as tf

        def repeat(x):
            for _ in range(3):
                x *= 2.0
                x = tf.convert_to_tensor(x)
            return x

        repeat([1.0])
        """,
        "repeat",
        True,
        field="has_python_side_effects",
    ),
    case(
        "fresh-list-is-the-function-own",
        """
        import tensorflow as tf

        def stack(x):
            parts = []
            parts += [x, x]
            return tf.stack(parts)

        stack(tf.ones([2]))
        """,
        "stack",
        False,
        field="has_python_side_effects",
    ),
    case(
        "unknown-kind-is-undeterminable",
        """
        import sys

        import tensorflow as tf

        def add(v, w):
            v += w
            return tf.reduce_sum(w)

        add(sys.argv, tf.ones([2]))
        """,
        "add",
        None,
        field="has_python_side_effects",
    ),
    case(
        "unknown-kind-names-the-reason",
        """
        import sys

        import tensorflow as tf

        def add(v, w):
            v += w
            return tf.reduce_sum(w)

        add(sys.argv, tf.ones([2]))
        """,
        "add",
        ("undeterminable_side_effects",),
        field="failures",
    ),
]


@pytest.mark.parametrize(("files", "qualname", "field", "expected"), CASES)
def test_augmented_assignment(files, qualname, field, expected):
    assert field_value(verdict(files, qualname), field) == expected


SPECULATED = [
    case(
        "keras-call-speculated-tensor",
        """
        import tensorflow as tf

        class Scale(tf.keras.layers.Layer):
            def build(self, input_shape):
                self.w = self.add_weight(shape=(input_shape[-1],))

            def call(self, inputs):
                inputs *= self.w
                return inputs
        """,
        "Scale.call",
        False,
        field="has_python_side_effects",
    ),
    case(
        "step-speculated-tensor-states-its-assumption",
        """
        import tensorflow as tf

        def train_step(x, y):
            x /= 255.0
            return tf.reduce_mean(x - y)
        """,
        "train_step",
        True,
        field="speculative",
    ),
    case(
        "no-speculation-without-a-convention",
        """
        import tensorflow as tf

        def normalise(x):
            x /= 255.0
            return tf.reduce_mean(x)
        """,
        "normalise",
        None,
        field="has_python_side_effects",
    ),
]


@pytest.mark.parametrize(("files", "qualname", "field", "expected"), SPECULATED)
def test_augmented_assignment_under_speculation(files, qualname, field, expected):
    """Where speculation assumes the parameters are tensors (and says so), `x *= y` rebinds;
    elsewhere a parameter nobody passes stays of unknown kind."""
    assert field_value(verdict(files, qualname), field) == expected
