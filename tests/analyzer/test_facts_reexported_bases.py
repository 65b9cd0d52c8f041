"""Base classes named through a package's `__init__` or a module-level alias.

`from .layers import Base` in `pkg/__init__.py` makes `pkg.Base` the very class of
`pkg/layers.py`; `layers = tf.keras.layers` or `Layer = tf.keras.layers.Layer` at module level
binds the same object under a new name. A subclass named through either is a Keras Layer or
Model all the same: its `call` is speculated and reached through instance calls, its methods
resolve through the base, its `build` receives a shape.
"""

from __future__ import annotations

import pytest
from facts_helpers import case, field_value, verdict

PACKAGE = {
    "pkg/__init__.py": "from .layers import Base\n",
    "pkg/layers.py": """
import tensorflow as tf


class Base(tf.keras.layers.Layer):
    def activation(self, x):
        return tf.nn.relu(x)
""",
}

CASES = [
    case(
        "package-reexport-is-a-keras-layer",
        {
            **PACKAGE,
            "model.py": """
import pkg


class Block(pkg.Base):
    def call(self, x):
        return self.activation(x)
""",
        },
        "model.py::Block.call",
        True,
        field="speculative",
    ),
    case(
        "package-reexport-resolves-inherited-methods",
        {
            **PACKAGE,
            "model.py": """
import tensorflow as tf

import pkg


class Block(pkg.Base):
    def call(self, x):
        return self.activation(x)


Block()(tf.ones([2, 3]))
""",
        },
        "pkg/layers.py::Base.activation",
        True,
        field="has_tensor_parameter",
    ),
    case(
        "from-package-import-reexport",
        {
            **PACKAGE,
            "model.py": """
from pkg import Base


class Block(Base):
    def call(self, x):
        return self.activation(x)
""",
        },
        "model.py::Block.call",
        True,
        field="speculative",
    ),
    case(
        "module-alias-of-keras-layers",
        """
        import tensorflow as tf

        layers = tf.keras.layers

        class Block(layers.Layer):
            def call(self, x):
                return tf.nn.relu(x)
        """,
        "Block.call",
        True,
        field="speculative",
    ),
    case(
        "alias-of-the-base-class-in-another-module",
        {
            "compat.py": """
import tensorflow as tf

Layer = tf.keras.layers.Layer
keras = tf.keras
""",
            "model.py": """
import tensorflow as tf

import compat


class Block(compat.Layer):
    def call(self, x):
        return tf.nn.relu(x)


class Net(compat.keras.Model):
    def call(self, x):
        return tf.nn.relu(x)
""",
        },
        "model.py::Net.call",
        True,
        field="speculative",
    ),
    case(
        "alias-instance-call-reaches-call",
        """
        import tensorflow as tf

        Layer = tf.keras.layers.Layer

        class Scale(Layer):
            def call(self, x):
                return x * 2.0

        Scale()(tf.ones([2, 3]))
        """,
        "Scale.call",
        {"x": True},
        field="param_kinds",
    ),
    case(
        "reassigned-name-is-not-an-alias",
        """
        import tensorflow as tf

        Base = tf.keras.layers.Layer
        Base = object

        class Block(Base):
            def call(self, x):
                return tf.nn.relu(x)
        """,
        "Block.call",
        False,
        field="speculative",
    ),
]


@pytest.mark.parametrize(("files", "qualname", "field", "expected"), CASES)
def test_reexported_bases(files, qualname, field, expected):
    assert field_value(verdict(files, qualname), field) == expected
