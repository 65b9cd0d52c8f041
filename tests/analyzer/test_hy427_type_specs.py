"""HY427: a tf.TypeSpec as an argument or a result of a function to compile.

The check's examples (hybridize/check_examples/HY427) run through test_check_examples; these
tests pin the evidence it reads (calls, annotations, returns, `min` over a dict's items) and
measure the claim behind it on the installed TensorFlow.
"""

from __future__ import annotations

import importlib.util
import textwrap

import pytest
from facts_helpers import verdict

from hybridize.analyzer.checks import check_of

SPECS = """
import tensorflow as tf


class Parser:
    def __init__(self, spec: tf.TensorSpec):
        self.spec = spec

    def restore(self, value, value_spec):
        return tf.cast(value, value_spec.dtype)

    def shape_of(self, value, spec: tf.RaggedTensorSpec):
        return tf.reshape(value, [-1])

    def call(self, value):
        return self.restore(value, tf.TensorSpec([None], tf.float32))


def indicative(specs):
    _, result = min(specs.items(), key=lambda item: item[0])
    return result


def total(value):
    spec = indicative({"a": tf.type_spec_from_value(value)})
    return tf.reshape(indicative({"a": value}), spec.shape)


def dtype_only(value, dtype):
    return tf.cast(value, dtype)


for _ in range(100):
    x = tf.constant([1, 2])
    Parser(tf.TensorSpec([None], tf.int32)).call(x)
    Parser(tf.TensorSpec([None], tf.int32)).shape_of(x, None)
    total(x)
    dtype_only(x, tf.TensorSpec([None], tf.float32).dtype)
"""


def _hy427(name: str) -> list[str]:
    v = verdict(textwrap.dedent(SPECS), name)
    found = [f.message for f in v.findings if f.code == "HY427"]
    if found:
        assert not v.passes
    return found


def test_a_spec_passed_by_a_caller_blocks_the_function() -> None:
    [message] = _hy427("Parser.restore")
    assert "`value_spec` may receive one from a caller" in message
    assert check_of("HY427").severity == "error"


def test_a_parameter_annotated_as_a_spec_blocks_the_function() -> None:
    [message] = _hy427("Parser.shape_of")
    assert "`spec` is annotated `tf.RaggedTensorSpec`" in message


def test_min_over_a_dicts_items_gives_the_pair_and_the_spec_is_returned() -> None:
    [message] = _hy427("indicative")
    assert "`specs` may receive one from a caller; it may return one" in message


def test_a_spec_made_and_read_inside_or_only_its_dtype_passed_is_fine() -> None:
    assert _hy427("total") == []
    assert _hy427("dtype_only") == []
    assert _hy427("Parser.call") == []


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_tf_function_refuses_a_spec_argument_or_result() -> None:
    """Measured under TF 2.21: a spec argument (alone or in a dict) is converted to a tensor
    and fails, whatever the body does with it; a spec result fails the trace; a spec made and
    read inside works."""
    import tensorflow as tf

    spec = tf.TensorSpec([None], tf.float32)
    x = tf.constant([1, 2])

    def cast(value: tf.Tensor, value_spec: tf.TensorSpec) -> tf.Tensor:
        return tf.cast(value, value_spec.dtype)

    def in_dict(value: tf.Tensor, specs: dict[str, tf.TensorSpec]) -> tf.Tensor:
        return value

    def returned(value: tf.Tensor) -> tf.TypeSpec:
        return tf.type_spec_from_value(value)

    def inside(value: tf.Tensor) -> tf.Tensor:
        return tf.cast(value, tf.type_spec_from_value(value).dtype)

    assert cast(x, spec).dtype == tf.float32  # eagerly fine
    with pytest.raises(ValueError, match="Attempt to convert a value"):
        tf.function(cast)(x, spec)
    with pytest.raises(ValueError, match="Attempt to convert a value"):
        tf.function(in_dict)(x, {"a": spec})
    with pytest.raises(TypeError, match="must return zero or more Tensors"):
        tf.function(returned)(x)
    assert tf.function(inside)(x).numpy().tolist() == [1, 2]


ALIASED = {
    "constants.py": """
import typing

import tensorflow as tf

FieldSpec = typing.Union[tf.TensorSpec, tf.RaggedTensorSpec]
FieldsSpec = typing.Mapping[str, FieldSpec]
Fields = typing.Mapping[str, tf.Tensor]
""",
    "parser.py": """
import tensorflow as tf

import constants

FieldsSpec = constants.FieldsSpec


def restore(value, specs: FieldsSpec):
    return tf.reshape(value, [-1])


def plain(value, fields: constants.Fields):
    return tf.reshape(value, [-1])


for _ in range(100):
    restore(tf.ones([2, 3]), {})
    plain(tf.ones([2, 3]), {})
""",
}


def test_an_annotation_through_module_level_aliases_names_a_spec() -> None:
    v = verdict(ALIASED, "parser.py::restore")
    [message] = [f.message for f in v.findings if f.code == "HY427"]
    assert "`specs` is annotated `FieldsSpec`" in message
    assert not any(f.code == "HY427" for f in verdict(ALIASED, "parser.py::plain").findings)
