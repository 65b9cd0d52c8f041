"""What a `map_structure` callback receives: one leaf of each structure, by position.

`tf.nest.map_structure(fn, a, b)` calls `fn(leaf_of_a, leaf_of_b)`: parameter i gets
structure i's leaves (the analysis used to hand every parameter the first structure's).
tensorflow-gnn's `TfExamplesParser.call.restore_shape_and_dtype(value, value_spec)` is mapped
over the parsed tensors and the layer's `features_spec` (annotated `FeaturesSpec =
Mapping[str, tf.RaggedTensorSpec]`): compiled, it fails on the spec (HY427), which the
analysis now sees through the annotation, the attribute's `dict.copy()` and the second
structure. The last test measures the claims on the installed TensorFlow.
"""

from __future__ import annotations

import functools
import importlib.util
import textwrap

import pytest
from facts_helpers import analyse

from hybridize.analyzer.facts.mapped_structures import (
    PATH,
    callback_parameter_arguments,
    callback_parameters,
)
from hybridize.analyzer.facts.values import SPEC, TENSOR, UNKNOWN_ATOM
from hybridize.analyzer.frameworks import lookup
from hybridize.analyzer.summaries.ir import Param
from hybridize.model import FunctionVerdict

PAIRS = """
import tensorflow as tf

SPECS = {"k": tf.TensorSpec([None], tf.float32)}


def first_a_tensor(x, y):
    return x * 2.0


def first_a_spec(x, y):
    return y * 2.0


def second_given_back(x, y):
    return y


def mapped(tensors):
    return tf.nest.map_structure(second_given_back, tensors, SPECS)


def keyword_only(x, *, scale=2.0):
    return x * scale


for _ in range(10):
    tensors = {"k": tf.ones([2])}
    tf.nest.map_structure(first_a_tensor, tensors, SPECS)
    tf.nest.map_structure(first_a_spec, SPECS, tensors)
    mapped(tensors)
    tf.nest.map_structure(keyword_only, tensors)
"""


@functools.cache
def _pairs() -> dict[str, FunctionVerdict]:
    return analyse(textwrap.dedent(PAIRS))


def _hy427(verdicts: dict[str, FunctionVerdict], name: str) -> list[str]:
    v = verdicts[name]
    found = [f.message for f in v.findings if f.code == "HY427"]
    if found:
        assert not v.passes
    return found


def test_each_parameter_gets_the_leaves_of_its_own_structure() -> None:
    verdicts = _pairs()
    [message] = _hy427(verdicts, "first_a_tensor")
    assert "`y` may receive one from a caller" in message and "`x`" not in message
    assert {p.name: p.is_tensor for p in verdicts["first_a_tensor"].facts.params}["x"] is True
    [message] = _hy427(verdicts, "first_a_spec")
    assert "`x` may receive one from a caller" in message and "`y`" not in message


def test_a_callback_giving_back_its_second_parameter_returns_the_second_structure() -> None:
    verdicts = _pairs()
    [message] = _hy427(verdicts, "mapped")
    assert "it may return one" in message


def test_a_keyword_only_parameter_keeps_its_default() -> None:
    verdicts = _pairs()
    kinds = {p.name: p.is_tensor for p in verdicts["keyword_only"].facts.params}
    assert kinds == {"x": True, "scale": False}


PARSER = {
    "interfaces.py": """
import typing

import tensorflow as tf

FeaturesSpec = typing.Mapping[str, tf.RaggedTensorSpec]
""",
    "core.py": """
import tensorflow as tf

from interfaces import FeaturesSpec


class TfExamplesParser(tf.keras.layers.Layer):
    def __init__(self, features_spec: FeaturesSpec, **kwargs):
        super().__init__(**kwargs)
        self._features_spec = features_spec.copy()

    def call(self, serialized):
        flat_features = tf.io.parse_example(tf.reshape(serialized, [-1]), {})
        shape = tf.shape(serialized)

        def restore_shape_and_dtype(value, value_spec):
            value = tf.cast(value, value_spec.dtype)
            return tf.reshape(value, tf.concat([shape, tf.shape(value)[1:]], axis=0))

        return tf.nest.map_structure(
            restore_shape_and_dtype, flat_features, self._features_spec
        )

    @classmethod
    def from_config(cls, config):
        return cls(**config)
""",
}


def test_restore_shape_and_dtype_is_blocked_by_the_spec_its_second_parameter_gets() -> None:
    """No call in the project passes a spec: the annotation of `features_spec`, kept by
    `.copy()` in an attribute and mapped as the second structure, says one may come."""
    verdicts = analyse(PARSER)
    name = "core.py::TfExamplesParser.call.restore_shape_and_dtype"
    [message] = _hy427(verdicts, name)
    assert "`value_spec` may receive one from a caller" in message
    assert "`value`" not in message
    assert verdicts[name].failures and "HY427" in {f.code for f in verdicts[name].findings}


def _param(name: str, kind: str = "normal") -> Param:
    return Param(name, kind, None, None)


def test_paths_come_first_subtrees_are_mapped_and_spread_structures_are_unknown() -> None:
    with_path = lookup("tree.map_structure_with_path")
    up_to = lookup("tree.map_structure_up_to")
    plain = lookup("tensorflow.nest.map_structure")
    assert with_path is not None and up_to is not None and plain is not None
    tensors = frozenset({("dict", frozenset({TENSOR}))})
    specs = frozenset({("seq", "list", frozenset({SPEC}))})
    path_x_y = [_param("path"), _param("x"), _param("y")]
    got = callback_parameter_arguments(with_path, path_x_y, [NO, tensors, specs], False)
    assert got == {"path": PATH, "x": frozenset({TENSOR}), "y": frozenset({SPEC})}
    # `map_structure_up_to(shallow, fn, nested)` may cut `nested` above its leaves.
    got = callback_parameter_arguments(up_to, [_param("v")], [NO, NO, specs], False)
    assert got["v"] == specs | {SPEC}
    # `*args` collects every structure left; `map_structure(fn, *pairs)` hides the order.
    got = callback_parameter_arguments(plain, [_param("xs", "vararg")], [NO, tensors, specs], False)
    assert got == {"xs": frozenset({TENSOR, SPEC})}
    got = callback_parameter_arguments(plain, [_param("x"), _param("y")], [NO, tensors], True)
    assert got["x"] == got["y"] == frozenset({TENSOR, UNKNOWN_ATOM})
    # A positional parameter beyond the structures takes its default.
    assert set(callback_parameters(plain, [_param("x"), _param("y")], 1, False)) == {"x"}


NO = frozenset({("func", None)})
"""Stands for the callback (or the shallow structure) among a call's arguments."""


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_map_structure_hands_each_parameter_its_own_structure_and_a_spec_fails_compiled() -> None:
    """Measured under TF 2.21: `tf.nest.map_structure(fn, a, b)` calls `fn` with a leaf of `a`
    then the leaf of `b` at the same place; the callback compiled fails on the spec it gets
    from the second structure, as tensorflow-gnn's `restore_shape_and_dtype` did."""
    import tensorflow as tf

    tensors = {"a": tf.constant([1, 2]), "b": tf.constant([3])}
    specs = {"a": tf.TensorSpec([None], tf.float32), "b": tf.TensorSpec([None], tf.int64)}
    seen: list[tuple[type, type]] = []

    def restore(value: tf.Tensor, value_spec: tf.TensorSpec) -> tf.Tensor:
        seen.append((type(value), type(value_spec)))
        return tf.cast(value, value_spec.dtype)

    restored = tf.nest.map_structure(restore, tensors, specs)
    assert restored["a"].dtype == tf.float32 and restored["b"].dtype == tf.int64
    assert all(issubclass(v, tf.Tensor) and issubclass(s, tf.TensorSpec) for v, s in seen), seen
    with pytest.raises(ValueError, match="Attempt to convert a value"):
        tf.nest.map_structure(tf.function(restore), tensors, specs)
