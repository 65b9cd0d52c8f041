"""A value that may be a tensor or a dict: `value.items()` iterates the dict.

No tensor has the methods of Python's `str` and `dict` named in `NOT_TENSOR_MEMBERS`
(`items`, `keys`, `startswith`, ...): reading one from a tensor raises AttributeError, so where
the analysis cannot tell a dict from a tensor (an attribute holding either in some subclass,
tensorflow-gnn's `GraphPieceBase._data`), the keys of `.items()` are the dict's, never tensors.
Before, the tensor alternative gave "a tensor" back, and tensorflow-gnn's
`_index_key_to_node_tag(index_key: str)` (`int(index_key[len(prefix):])`, no TensorFlow op)
was taken to slice a tensor, proposed with `--include-low-benefit`, and its compiled result,
a tensor, broke every caller that keys a dict with it (344 tests of tensorflow-gnn 1.0.3).
"""

from __future__ import annotations

import importlib.util

import pytest
from facts_helpers import analyse

from hybridize.analyzer.frameworks.methods import NOT_TENSOR_MEMBERS

PIECE = """
import tensorflow as tf


def _tag(index_key: str) -> int:
    assert index_key.startswith("#")
    return int(index_key[1:])


class Piece:
    def __init__(self, data):
        self._data = data

    def tags(self):
        return {_tag(key): value for key, value in self._data.items()}


def make(x: tf.Tensor):
    total = Piece(tf.reduce_sum(x))
    return Piece({"#0": x}).tags(), total
"""


def test_keys_of_items_of_a_dict_or_tensor_are_not_tensors() -> None:
    v = analyse(PIECE)["_tag"]
    assert v.facts.has_tensor_computation is False
    assert v.facts.params[0].is_tensor is not True
    assert "no_tensor_computation" in v.failures


def test_a_method_tensors_have_still_gives_a_tensor() -> None:
    """A method some tensor class has (`tf.RaggedTensor.merge_dims`) and the tables do not
    describe: its result stays a tensor, as before."""
    source = """
    import tensorflow as tf


    def head(parts):
        return parts[0] + 1


    def make(x: tf.Tensor):
        return head(x.merge_dims(0, 1))
    """
    v = analyse(source)["head"]
    assert v.facts.params[0].is_tensor is True


def test_the_names_are_methods_of_str_or_dict() -> None:
    assert all(hasattr(str, name) or hasattr(dict, name) for name in NOT_TENSOR_MEMBERS)


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_no_tensor_class_has_the_names() -> None:
    """Measured under TF 2.21: eager and symbolic tensors, variables, ragged, sparse and
    indexed-slices tensors and Keras symbolic tensors have none of the names (nor has a
    `torch.Tensor`); reading one raises AttributeError."""
    import tensorflow as tf

    graph_tensors = []

    @tf.function
    def symbolic(x: tf.Tensor) -> tf.Tensor:
        graph_tensors.append(x)
        return x

    symbolic(tf.constant([1.0]))
    classes = [
        tf.Tensor,
        type(tf.constant(1)),
        type(graph_tensors[0]),
        tf.Variable,
        type(tf.Variable(1.0)),
        tf.RaggedTensor,
        tf.SparseTensor,
        tf.IndexedSlices,
        type(tf.keras.Input(shape=(2,))),
    ]
    found = {(c.__name__, n) for c in classes for n in NOT_TENSOR_MEMBERS if hasattr(c, n)}
    assert found == set()
    with pytest.raises(AttributeError):
        tf.constant({"a": 1}.get("a")).items()  # type: ignore[attr-defined]
    with pytest.raises(AttributeError):
        tf.constant("#0").startswith("#")  # type: ignore[attr-defined]
    if importlib.util.find_spec("torch") is not None:
        import torch

        assert {n for n in NOT_TENSOR_MEMBERS if hasattr(torch.Tensor, n)} == set()
