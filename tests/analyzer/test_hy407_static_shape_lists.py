"""HY407 for static shape values returned into a graph: the "static where known, dynamic
otherwise" shape list.

Compiled, such a helper is a call in the graph of its caller (a Keras layer's `call`, which
Keras runs on symbolic tensors), whose results are tensors of unknown value: the static
shapes the caller computes from them are lost. These tests measure that on the installed
TensorFlow and pin where the rule fires and where it stays silent.
"""

from __future__ import annotations

import importlib.util
import textwrap

import pytest
from facts_helpers import analyse

SHAPE_LIST = """
import tensorflow as tf


def shape_list(tensor):
    static = tensor.shape.as_list()
    dynamic = tf.shape(tensor)
    return [dynamic[i] if s is None else s for i, s in enumerate(static)]
"""

APPENDED = """
import tensorflow as tf


def shape_list(tensor):
    static = tensor.shape.as_list()
    dynamic = tf.shape(input=tensor)
    combined = []
    for index, dim in enumerate(static):
        if dim is not None:
            combined.append(dim)
        else:
            combined.append(dynamic[index])
    return combined
"""

KERAS_CALLER = """

class Heads(tf.keras.layers.Layer):
    def __init__(self, heads):
        super().__init__()
        self.heads = heads

    def call(self, x):
        batch, length, width = shape_list(x)
        return tf.reshape(x, [batch, length, self.heads, width // self.heads])


layer = Heads(4)
for _ in range(100):
    layer(tf.ones([2, 3, 8]))
"""

RANGE_CALLER = """

@tf.function
def steps(x):
    _, length, _ = shape_list(x)
    return tf.stack([x[:, i] for i in range(length)], 1)


for _ in range(100):
    steps(tf.ones([2, 3, 8]))
"""

EAGER_CALLER = """

def flatten(x):
    batch, length, width = shape_list(x)
    return tf.reshape(x, [batch, length * width])


for _ in range(100):
    flatten(tf.ones([2, 3, 8]))
"""

DYNAMIC_ONLY = (
    """
import tensorflow as tf


def shape_list(tensor):
    return tf.unstack(tf.shape(tensor))
"""
    + KERAS_CALLER
)


KERAS_CONFIG = """

def head(x):
    return tf.keras.layers.Dense(shape_list(x)[-1])


for _ in range(100):
    head(tf.ones([2, 3, 8]))
"""

TENSOR_AND_SHAPE = """
import tensorflow as tf


def shape_list(tensor):
    return tf.nn.relu(tensor), tensor.shape[0]


class Scale(tf.keras.layers.Layer):
    def call(self, x):
        y, _ = shape_list(x)
        return tf.reduce_sum(y)


layer = Scale()
for _ in range(100):
    layer(tf.ones([2, 3, 8]))
"""


def _hy407(source: str) -> list[str]:
    v = analyse(textwrap.dedent(source))["shape_list"]
    return [f.message for f in v.findings if f.code == "HY407"]


def test_a_shape_list_reshaping_inside_a_keras_call_is_hy407() -> None:
    [message] = _hy407(SHAPE_LIST + KERAS_CALLER)
    assert "static where known" in message
    assert "`Heads.call`" in message and "`tf.reshape`" in message


def test_a_shape_list_built_by_appending_is_the_same_idiom() -> None:
    [message] = _hy407(APPENDED + KERAS_CALLER)
    assert "static where known" in message


def test_a_shape_list_sizing_a_range_in_a_compiled_caller_is_hy407() -> None:
    [message] = _hy407(SHAPE_LIST + RANGE_CALLER)
    assert "range()" in message


def test_an_eager_caller_computing_with_the_list_is_not_concerned() -> None:
    """Eager tensors stand in for the ints in `tf.reshape` and arithmetic."""
    assert _hy407(SHAPE_LIST + EAGER_CALLER) == []


def test_an_eager_caller_configuring_a_keras_layer_with_the_list_is_hy407() -> None:
    """Eagerly the compiled helper's ints are eager tensors, which Keras rejects as `units`."""
    [message] = _hy407(SHAPE_LIST + KERAS_CONFIG)
    assert "configures `keras.layers.Dense`" in message


def test_a_tensor_returned_beside_a_shape_and_used_in_an_op_is_not_concerned() -> None:
    """Only shape values lose their static value: the op here gets the tensor."""
    assert _hy407(TENSOR_AND_SHAPE) == []


def test_a_helper_returning_only_dynamic_shapes_is_not_concerned() -> None:
    """`tf.shape` is a tensor eagerly and traced alike: nothing static is lost."""
    assert _hy407(DYNAMIC_ONLY) == []


@pytest.mark.tensorflow
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_a_compiled_shape_list_loses_the_static_shapes_of_its_graph_callers() -> None:
    """Measured under TF 2.21: eagerly the helper gives Python ints; compiled, int32 tensors
    (eager ones to an eager caller); in a traced caller a reshape to them has an unknown
    static shape, and a `range()` over one raises."""
    import tensorflow as tf

    def shape_list(tensor: tf.Tensor) -> list[object]:
        static = tensor.shape.as_list()
        dynamic = tf.shape(tensor)
        return [dynamic[i] if s is None else s for i, s in enumerate(static)]

    compiled = tf.function(shape_list)
    x = tf.ones([2, 3, 8])
    assert shape_list(x) == [2, 3, 8]
    assert [tf.is_tensor(d) for d in compiled(x)] == [True, True, True]

    shapes = {}

    def reshape(helper: object, name: str) -> tf.Tensor:
        def caller(x: tf.Tensor) -> tf.Tensor:
            b, t, d = helper(x)  # type: ignore[operator]
            y = tf.reshape(x, [b, t, 2, d // 2])
            shapes[name] = y.shape.as_list()
            return y

        return tf.function(caller)(x)

    reshape(shape_list, "eager helper")
    reshape(compiled, "compiled helper")
    assert shapes == {"eager helper": [2, 3, 2, 4], "compiled helper": [None, None, 2, None]}

    def steps(x: tf.Tensor) -> tf.Tensor:
        _, length, _ = compiled(x)
        return tf.stack([x[:, i] for i in range(length)], 1)

    with pytest.raises(TypeError, match="cannot be interpreted as an integer"):
        tf.function(steps, autograph=False)(x)
