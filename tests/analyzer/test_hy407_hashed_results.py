"""HY407 for a Python value a caller hashes: a dict key, a set element.

`tf.function` returns a Python int or string as a tensor, and a tensor is not hashable: a
caller building `{tag(k): v for k in keys}` or `{tag(k)}` with a compiled `tag` raises
`TypeError: Tensor is unhashable`, eager caller or not (tensorflow-gnn's `get_indices_dict`
keys a dict with `_index_key_to_node_tag(key)`). What a method of a Python string gives
(`name.upper()`, `key.startswith(p)`) is such a Python value too.
"""

from __future__ import annotations

import importlib.util
import textwrap

import pytest
from facts_helpers import analyse

HELPERS = """
import tensorflow as tf

TABLE = {"a": 1, "b": 2}


def tag_of(x: tf.Tensor, index_key: str) -> int:
    tf.debugging.assert_positive(x)
    return int(index_key[1:])


def upper_of(x: tf.Tensor, name: str):
    tf.debugging.assert_positive(x)
    upper = name.upper()
    return upper


def lookup(x: tf.Tensor, name):
    tf.debugging.assert_positive(x)
    return TABLE[name]
"""


def _hy407(caller: str, helper: str) -> list[str]:
    v = analyse(textwrap.dedent(HELPERS + caller))[helper]
    return [f.message for f in v.findings if f.code == "HY407"]


def test_a_result_keying_a_dict_comprehension_is_hy407() -> None:
    caller = """

def use(x: tf.Tensor):
    return {tag_of(x, k): 1 for k in ["#0", "#1"]}
"""
    [message] = _hy407(caller, "tag_of")
    assert "a Python int" in message and "dict key or a set element" in message


def test_a_result_keying_a_dict_display_or_in_a_set_is_hy407() -> None:
    caller = """

def use(x: tf.Tensor):
    return {lookup(x, "a"): 1}, {tag_of(x, "#0")}
"""
    assert len(_hy407(caller, "lookup")) == 1
    assert len(_hy407(caller, "tag_of")) == 1


def test_a_str_method_result_is_a_python_value() -> None:
    caller = """

def use(x: tf.Tensor):
    return {upper_of(x, "a"): 1}
"""
    [message] = _hy407(caller, "upper_of")
    assert "`str` method" in message


def test_a_result_stored_as_a_dict_value_is_not_concerned() -> None:
    """A tensor is a fine dict value: only keys are hashed."""
    caller = """

def use(x: tf.Tensor):
    return {"tag": tag_of(x, "#0"), "name": upper_of(x, "a")}
"""
    assert _hy407(caller, "tag_of") == []
    assert _hy407(caller, "upper_of") == []


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_a_compiled_python_value_cannot_key_a_dict_or_fill_a_set() -> None:
    """Measured under TF 2.21: compiled, `int(key[1:])` and `name.upper()` come back as
    eager tensors, which raise TypeError as a dict key or a set element."""
    import tensorflow as tf

    def tag_of(index_key: str) -> int:
        return int(index_key[1:])

    def upper_of(name: str) -> str:
        return name.upper()

    assert {tag_of("#3"): "a"} == {3: "a"}
    compiled_tag, compiled_upper = tf.function(tag_of), tf.function(upper_of)
    assert tf.is_tensor(compiled_tag("#3")) and tf.is_tensor(compiled_upper("a"))
    with pytest.raises(TypeError, match="unhashable"):
        _ = {compiled_tag(k): k for k in ["#0", "#1"]}
    with pytest.raises(TypeError, match="unhashable"):
        _ = {compiled_upper("a")}
