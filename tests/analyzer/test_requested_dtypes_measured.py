"""The dtype of what a conversion with a requested dtype returns, measured under TF 2.21
(`REQUESTED_DTYPE_POSITIONS` in hybridize/analyzer/frameworks/tensorflow_dtypes.py, read by
HY405 and every rule that asks a tensor's dtype).

`tf.convert_to_tensor(x, tf.int32)`, `tf.constant(x, tf.float32)`, `tf.cast(x, tf.int64)`,
`tf.zeros(shape, dtype)`... return a tensor of the requested dtype, eagerly and traced,
whatever the converted value's own dtype (or, for `convert_to_tensor` of a tensor of
another dtype, raise): the result never keeps the input's dtype. tf-models'
`_get_instance_class_ids` receives `tf.convert_to_tensor(mask, tf.int32)` and puts `-1`
before it in `tf.where`: int32 meets int32.
"""

from __future__ import annotations

import importlib.util
import inspect

import pytest

from hybridize.analyzer.frameworks.tensorflow_dtypes import REQUESTED_DTYPE_POSITIONS

pytestmark = [
    pytest.mark.tensorflow,
    pytest.mark.slow,
    pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent"),
]

FIRST = {
    "constant": [1.5, 2.5],
    "convert_to_tensor": [1.5, 2.5],
    "cast": [1.5, 2.5],
    "saturate_cast": [1.5, 2.5],
    "zeros": [2],
    "ones": [2],
    "zeros_like": [1.5, 2.5],
    "ones_like": [1.5, 2.5],
}
"""A first argument of another dtype than the one requested (a float list; a shape)."""


@pytest.mark.parametrize("op", sorted(REQUESTED_DTYPE_POSITIONS))
def test_the_listed_position_is_the_dtype_parameter(op: str) -> None:
    import tensorflow as tf

    parameters = list(inspect.signature(getattr(tf, op)).parameters)
    assert parameters[REQUESTED_DTYPE_POSITIONS[op]] == "dtype"


@pytest.mark.parametrize("mode", ["eager", "traced"])
@pytest.mark.parametrize("requested", ["int32", "int64", "float64"])
@pytest.mark.parametrize("op", sorted(REQUESTED_DTYPE_POSITIONS))
def test_the_result_has_the_requested_dtype(op: str, requested: str, mode: str) -> None:
    import tensorflow as tf

    first = FIRST[op]
    if op in ("cast", "saturate_cast", "zeros_like", "ones_like"):
        first = tf.constant(first)  # a float32 tensor
    if op in ("constant", "convert_to_tensor") and requested != "float64":
        first = [1, 2]  # ints: a float list refuses an integer dtype (eagerly too)

    def convert() -> tf.Tensor:
        return getattr(tf, op)(first, tf.as_dtype(requested))

    fn = tf.function(convert) if mode == "traced" else convert
    assert fn().dtype.name == requested


@pytest.mark.parametrize("mode", ["eager", "traced"])
def test_a_converted_tensor_of_another_dtype_is_refused_not_kept(mode: str) -> None:
    """The only way `convert_to_tensor(x, int32)` gives no int32 tensor is an error."""
    import tensorflow as tf

    def convert(x: tf.Tensor) -> tf.Tensor:
        return tf.convert_to_tensor(x, tf.int32)

    fn = tf.function(convert) if mode == "traced" else convert
    with pytest.raises(ValueError, match="Tensor conversion requested dtype int32"):
        fn(tf.ones([2]))


def test_a_python_int_before_the_converted_tensor_in_where_traces() -> None:
    """tf-models' `_get_instance_class_ids`: `tf.where(c, -1, mask)` of an int32 mask made by
    `convert_to_tensor(..., tf.int32)` traces (HY405 has no conflict to report)."""
    import numpy as np
    import tensorflow as tf

    @tf.function
    def ids(mask: object) -> tf.Tensor:
        mask = tf.convert_to_tensor(mask, tf.int32)
        return tf.where(mask == 0, -1, mask)

    assert ids(np.array([0, 1, 2], np.int32)).numpy().tolist() == [-1, 1, 2]
