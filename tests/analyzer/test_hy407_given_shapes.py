"""HY407 for a shape a function returns as its caller gave it: larq's `_get_spatial_shape`.

Found by the differential oracle on larq 0.14.0: `QuantizerBaseConv._get_spatial_shape`
returns `input_shape[1:-1]` of the `inputs.shape` (or, when a dim is unknown,
`tf.shape(inputs)`) its caller passes; compiled, the layer tests failed with "found return
value of type TensorShape" and with static shapes lost. The shape list is the caller's
"static where known, dynamic otherwise" idiom, returned through a parameter
(`facts/returns.py`, `_returns_given_shapes`). These tests pin the rule and measure the
claim on the installed TensorFlow.
"""

from __future__ import annotations

import importlib.util

import pytest
from facts_helpers import analyse

PROGRAM = """
import tensorflow as tf


def spatial(input_shape):
    return input_shape[1:-1]


def dims(shape):
    return shape[1:-1]


def names(labels):
    return labels[1:-1]


class Flatten(tf.keras.layers.Layer):
    def call(self, inputs):
        input_shape = inputs.shape
        if not input_shape[1:].is_fully_defined():
            input_shape = tf.shape(inputs)
        size = spatial(input_shape)
        dynamic = dims(tf.shape(inputs))
        kept = names(["batch", "height", "width", "channels"])
        return tf.reshape(inputs, [-1, size[0] * size[1] * dynamic[0] // dynamic[0], 3]), kept


Flatten()(tf.ones((2, 5, 5, 3)))
"""


def test_a_slice_of_the_static_shape_a_keras_call_passes_is_hy407() -> None:
    v = analyse(PROGRAM)["spatial"]
    assert "has_python_value_returns" in v.failures
    [finding] = [f for f in v.findings if f.code == "HY407"]
    assert "static where known" in finding.message
    assert "`Flatten.call` (line 22)" in finding.message and "`tf.reshape`" in finding.message


def test_a_slice_of_a_dynamic_shape_only_is_not_concerned() -> None:
    # `tf.shape(x)` is a tensor eagerly too: compiling changes nothing the caller sees.
    assert "has_python_value_returns" not in analyse(PROGRAM)["dims"].failures


def test_a_slice_of_a_list_of_other_values_is_not_concerned() -> None:
    assert "has_python_value_returns" not in analyse(PROGRAM)["names"].failures


@pytest.mark.tensorflow
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_a_compiled_helper_slicing_a_given_shape_loses_or_fails_on_it() -> None:
    """Measured under TF 2.21: in a graph (a Keras layer's call runs on symbolic tensors the
    same way) the compiled helper's result is a tensor of unknown value, so a reshape loses
    its static dim; and a `TensorShape` with an unknown dim cannot be returned at all."""
    import tensorflow as tf

    def spatial(input_shape: tf.TensorShape) -> tf.TensorShape:
        return input_shape[1:-1]

    def flatten(helper: object) -> tuple[int | None, ...]:
        @tf.function(input_signature=[tf.TensorSpec([None, 5, 5, 3])])
        def call(inputs: tf.Tensor) -> tf.Tensor:
            input_shape = inputs.shape
            if not input_shape[1:].is_fully_defined():
                input_shape = tf.shape(inputs)
            size = helper(input_shape)  # type: ignore[operator]
            reshaped = tf.reshape(inputs, [-1, size[0] * size[1], 3])
            assert isinstance(reshaped, tf.Tensor)
            return reshaped

        return tuple(call.get_concrete_function().output_shapes)

    assert flatten(spatial) == (None, 25, 3)
    assert flatten(tf.function(spatial)) == (None, None, 3)
    with pytest.raises(TypeError, match="must return zero or more Tensors"):
        tf.function(spatial)(tf.TensorShape([None, None, 5, 3]))


BUILD_PROGRAM = """
import tensorflow as tf


class Conv(tf.keras.layers.Layer):
    def spatial(self, input_shape):
        return input_shape[1:-1]

    def first(self, input_shape):
        return input_shape[1]

    def padded_shape(self, input_shape):
        size = self.spatial(input_shape)
        return tf.TensorShape([input_shape[0], *[s + 2 for s in size], input_shape[-1]])

    def build(self, input_shape):
        self.kernel = self.add_weight("kernel", self.padded_shape(input_shape))

    def call(self, inputs):
        size = self.spatial(tf.shape(inputs))
        return tf.reshape(inputs, [-1, size[0] * size[1], 3]) * self.first(tf.shape(inputs))


def whole(shape):
    return shape


def of_names(names):
    return names[1:]


x = tf.ones((2, 3))
whole(tf.shape(x))
whole(x.shape)
of_names(["a", "b"])
of_names(tf.shape(x))
Conv()(tf.ones((2, 5, 5, 3)))
"""


def test_a_shape_keras_gives_build_reached_through_a_helper_is_hy407() -> None:
    # larq's `_get_spatial_shape`: `build` -> `_get_padding_same_shape` -> it; no caller uses
    # the result in a graph, but the TensorShape itself cannot come back as one.
    [finding] = [f for f in analyse(BUILD_PROGRAM)["Conv.spatial"].findings if f.code == "HY407"]
    assert "a `TensorShape`" in finding.message
    assert "the shape Keras gives `Conv.build`" in finding.message
    assert "`Conv.padded_shape`" in finding.message


def test_a_tensor_shape_returned_whole_is_hy407() -> None:
    [finding] = [f for f in analyse(BUILD_PROGRAM)["whole"].findings if f.code == "HY407"]
    assert "a tensor's `.shape`" in finding.message


def test_an_element_of_a_shape_or_a_slice_of_a_list_is_not_a_tensor_shape() -> None:
    verdicts = analyse(BUILD_PROGRAM)
    # `input_shape[1]` is a Python int or None: what a caller does with it decides (none here)
    assert verdicts["Conv.first"].passes
    assert verdicts["of_names"].passes


@pytest.mark.tensorflow
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_a_compiled_function_never_gives_back_a_given_tensor_shape() -> None:
    """Measured under TF 2.21: a `TensorShape` argument (build's has an unknown batch
    dimension) sliced and returned fails the trace when a dimension is unknown, and comes
    back as an int32 tensor when every one is known: never as a `TensorShape`."""
    import tensorflow as tf

    compiled = tf.function(lambda input_shape: input_shape[1:-1])
    with pytest.raises(TypeError, match="found return value of type TensorShape"):
        compiled(tf.TensorShape([None, None, 3]))
    known = compiled(tf.TensorShape([None, 4, 5, 3]))
    assert not isinstance(known, tf.TensorShape)
    assert isinstance(known, tf.Tensor) and known.dtype == tf.int32
    assert known.numpy().tolist() == [4, 5]
