"""HY414 measured under TF 2.21: which values `tf.convert_to_tensor(v, dtype)` converts eagerly
but refuses traced, as the check's classes state them (hybridize/analyzer/checks/
hy414_numpy_dtype_conversions.py, facts/numpy_boundary.py).

A traced function receives every NumPy leaf of its arguments (the argument itself, or an
element or value of a list, tuple or dict it is given) as a tensor of the leaf's own dtype:
`convert_to_tensor` with another dtype then raises, for any pair of dtypes (integers too:
NumPy's default int64 to int32) and for NumPy scalars as for arrays. A Python value, and a
Python list converted as a whole (even of NumPy values: it is packed and cast), convert alike
in both modes.
"""

from __future__ import annotations

import importlib.util

import pytest

pytestmark = [
    pytest.mark.tensorflow,
    pytest.mark.slow,
    pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent"),
]

DTYPES = ("int16", "int32", "int64", "float32", "float64", "bool")
REQUESTED = ("int32", "int64", "float32", "float64")


def _traced(fn: object, argument: object) -> str:
    """The dtype of what the compiled function returns, or "ValueError" when tracing refuses
    the conversion."""
    import tensorflow as tf

    try:
        return str(tf.function(fn)(argument).dtype.name)  # type: ignore[arg-type]
    except ValueError as error:
        assert "Tensor conversion requested dtype" in str(error)
        return "ValueError"


@pytest.mark.parametrize("requested", REQUESTED)
@pytest.mark.parametrize("own", DTYPES)
@pytest.mark.parametrize("scalar", [False, True], ids=["array", "scalar"])
def test_a_numpy_value_of_another_dtype_is_converted_eagerly_and_refused_traced(
    requested: str, own: str, scalar: bool
) -> None:
    import numpy as np
    import tensorflow as tf

    value = np.array([1, 0], dtype=own)
    argument = value[0] if scalar else value
    assert isinstance(argument, np.generic if scalar else np.ndarray)

    def convert(v: object) -> tf.Tensor:
        return tf.convert_to_tensor(v, tf.as_dtype(requested))

    assert convert(argument).dtype.name == requested  # eagerly: converted
    assert _traced(convert, argument) == (requested if own == requested else "ValueError")


@pytest.mark.parametrize("own", ["int64", "int32", "float64"])
def test_an_element_read_out_of_a_structured_argument_is_refused_as_the_argument_is(
    own: str,
) -> None:
    """A list of dicts (`.items()`), a tuple's element, a dict's value (by key and by
    `.values()`): traced, each NumPy leaf is a tensor of its own dtype."""
    import numpy as np
    import tensorflow as tf

    array = np.array([1, 0], dtype=own)
    requested = tf.int32 if own != "int32" else tf.int64

    def items(data_dicts: list[dict[str, object]]) -> tf.Tensor:
        return next(tf.convert_to_tensor(v, requested) for d in data_dicts for _, v in d.items())

    def element(pair: tuple[object, ...]) -> tf.Tensor:
        return tf.convert_to_tensor(pair[0], requested)

    def by_key(inputs: dict[str, object]) -> tf.Tensor:
        return tf.convert_to_tensor(inputs["a"], requested)

    def values(inputs: dict[str, object]) -> tf.Tensor:
        return next(tf.convert_to_tensor(v, requested) for v in inputs.values())

    def cast(inputs: dict[str, object]) -> tf.Tensor:
        return next(tf.cast(v, requested) for v in inputs.values())

    for fn, argument in [
        (items, [{"a": array}]),
        (element, (array, 2)),
        (by_key, {"a": array}),
        (values, {"a": array}),
    ]:
        assert fn(argument).dtype == requested  # type: ignore[operator]
        assert _traced(fn, argument) == "ValueError"
    # tf.cast converts a tensor of any dtype; a list value and the requested dtype convert alike
    assert _traced(cast, {"a": array}) == requested.name
    assert _traced(by_key, {"a": [1, 0]}) == requested.name
    assert _traced(by_key, {"a": array.astype(requested.as_numpy_dtype)}) == requested.name


def test_a_python_list_converted_whole_is_cast_even_of_numpy_values() -> None:
    """A list argument is traced leaf by leaf, but converting the list packs its elements and
    casts them to the requested dtype: no hazard (the check follows elements, not lists)."""
    import numpy as np
    import tensorflow as tf

    def convert(v: object) -> tf.Tensor:
        return tf.convert_to_tensor(v, tf.int32)

    for argument in ([0, 1, 2], [np.int64(1), np.int64(2)], [np.array([1]), np.array([2])]):
        assert convert(argument).dtype == tf.int32
        assert _traced(convert, argument) == "int32"


@pytest.mark.parametrize("built", ["keywords", "ordered", "zipped", "pairs", "copied", "unpacked"])
def test_a_mapping_built_without_a_display_is_converted_leaf_by_leaf_alike(built: str) -> None:
    """`dict(ids=a)`, `OrderedDict(ids=a)`, `dict(zip(...))`, `dict(pairs)`, `dict(d)` and
    `{**d}` are the same argument to tf.function as the display `{"ids": a}`: its NumPy leaf
    arrives as a tensor of its own dtype, and the conversion to another is refused traced."""
    import collections

    import numpy as np
    import tensorflow as tf

    ids = np.array([1, 2])  # int64
    made = {
        "keywords": lambda: dict(ids=ids),
        "ordered": lambda: collections.OrderedDict(ids=ids),
        "zipped": lambda: dict(zip(["ids"], [ids], strict=True)),
        "pairs": lambda: dict([("ids", ids)]),
        "copied": lambda: dict({"ids": ids}),
        "unpacked": lambda: {**{"ids": ids}},
    }[built]()

    def by_key(inputs: dict[str, object]) -> tf.Tensor:
        return tf.convert_to_tensor(inputs["ids"], tf.int32)

    assert by_key(made).dtype == tf.int32
    assert _traced(by_key, made) == "ValueError"
