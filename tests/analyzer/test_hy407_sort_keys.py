"""HY407 for a sort key: `min`/`max`/`sorted` compare what their `key=` function returns.

Compiled, the key returns its Python values as tensors: a string as a string tensor, which
has no order, and in a caller running as a graph every value as a symbolic tensor, whose
comparison cannot become a Python bool (tensorflow-gnn's `_get_indicative_feature.key_fn`).
"""

from __future__ import annotations

import importlib.util
import textwrap

import pytest
from facts_helpers import analyse

NAMED_KEY = """
import tensorflow as tf


def indicative(field_specs):
    def key_fn(item):
        name, value = item
        if isinstance(value, tf.RaggedTensor):
            rank = value.ragged_rank
        else:
            rank = 0
        return (rank, name)

    _, result = min(field_specs.items(), key=key_fn, default=("", None))
    return result


def use(x: tf.Tensor):
    return indicative({"a": x, "b": tf.ones([2])}) + 1
"""

SIZE_KEY = """
import tensorflow as tf


def largest(parts):
    def size_of(part):
        tf.debugging.assert_rank(part, 1)
        return 3

    return max(parts, key=size_of)


def use(x: tf.Tensor):
    return largest([x, x]) + 1
"""


def _hy407(source: str, qualname: str) -> list[str]:
    v = analyse(textwrap.dedent(source))[qualname]
    return [f.message for f in v.findings if f.code == "HY407"]


def test_a_key_ordering_by_a_dict_key_is_hy407() -> None:
    [message] = _hy407(NAMED_KEY, "indicative.key_fn")
    assert "`min` in `indicative`" in message and "no order" in message


def test_an_eager_caller_ordering_by_a_number_is_not_concerned() -> None:
    """An eager scalar tensor compares and converts to a Python bool."""
    assert _hy407(SIZE_KEY, "largest.size_of") == []


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_a_compiled_key_breaks_the_ordering() -> None:
    """Measured under TF 2.21: a compiled key's string cannot be ordered, eagerly; in a
    traced caller even a number's comparison raises OperatorNotAllowedInGraphError; an
    eager caller ordering by a number is fine."""
    import tensorflow as tf

    def by_name(item: tuple[str, object]) -> tuple[int, str]:
        return (0, item[0])

    def by_length(item: tuple[str, object]) -> int:
        return len(item[0])

    items = {"bb": 1, "a": 2}
    assert min(items.items(), key=by_name) == ("a", 2)
    with pytest.raises(tf.errors.InvalidArgumentError):
        min(items.items(), key=tf.function(by_name))
    assert min(items.items(), key=tf.function(by_length)) == ("a", 2)

    def traced(x: tf.Tensor) -> tf.Tensor:
        return min({"bb": x, "a": x * 2}.items(), key=tf.function(by_length))[1]

    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
        tf.function(traced)(tf.constant(1))
