"""HY407's safety net: a returned value of unknown type whose callers read an attribute no
tensor has.

When the analysis cannot resolve what a function returns (a name a project module makes
at run time, here through a module `__getattr__`), a caller reading `result.distribution` shows the value is an object: compiled,
tf.function returns such an object as a tensor (a class with a tensor conversion, edward2's
`RandomVariable`) or raises TypeError while tracing (any other class). What tf.function gives
back as a structure keeps its members: a namedtuple its fields, a dict its methods; a tensor's
own attributes (`.shape`, `.numpy()`) are a tensor's. Measured below on TF 2.21.
"""

from __future__ import annotations

import pytest
from facts_helpers import finding_messages

HELPERS = """
import importlib


def __getattr__(name):
    return getattr(importlib.import_module("pkg._impl"), name)
"""

PROJECT = """
import tensorflow as tf
from pkg import helpers as unknown_library


def wrapped(x):
    return unknown_library.Wrap(tf.exp(x))


def as_dict(x):
    return unknown_library.as_dict(tf.exp(x))


def as_tensor(x):
    return unknown_library.tensor(tf.exp(x))


def known(x):
    return tf.exp(x)


def run():
    for i in range(10):
        x = tf.ones([3]) * float(i)
        rv = wrapped(x)
        print(rv.distribution)
        print(as_dict(x).items())
        y = as_tensor(x)
        print(y.shape, y.numpy())
        print(known(x).numpy())
"""


FILES = {"pkg/__init__.py": "", "pkg/helpers.py": HELPERS, "pkg/main.py": PROJECT}


def _hy407(qualname: str) -> list[str]:
    return finding_messages(FILES, f"pkg/main.py::{qualname}", "HY407")


def test_an_attribute_no_tensor_has_read_on_an_unknown_result_blocks_the_function() -> None:
    [message] = _hy407("wrapped")
    assert "reads `.distribution` of it, which no tensor has" in message
    assert "`run` (line" in message


@pytest.mark.parametrize("qualname", ["as_dict", "as_tensor", "known"])
def test_structure_members_and_tensor_attributes_do_not(qualname: str) -> None:
    assert _hy407(qualname) == []


@pytest.mark.tensorflow
@pytest.mark.slow
def test_which_returned_kinds_keep_their_attributes_compiled() -> None:
    """Measured under TF 2.21: a namedtuple and a dict come back as such (fields and
    methods kept); an object of a plain class raises TypeError while tracing; one of a class
    registered with a tensor conversion comes back as an EagerTensor without its attributes."""
    import collections

    import tensorflow as tf

    pair = collections.namedtuple("pair", "loc scale")

    class Plain:
        def __init__(self, value: tf.Tensor) -> None:
            self.distribution = value

    class Registered(Plain):
        pass

    tf.register_tensor_conversion_function(
        Registered, lambda v, dtype=None, name=None, as_ref=False: v.distribution
    )
    x = tf.constant([1.0, 2.0])
    named = tf.function(lambda x: pair(x, x + 1.0))(x)
    assert isinstance(named, pair)
    assert named.scale.numpy().tolist() == [2.0, 3.0]
    keyed = tf.function(lambda x: {"loc": x})(x)
    assert list(keyed.keys()) == ["loc"]
    with pytest.raises(TypeError, match="must return zero or more Tensors"):
        tf.function(lambda x: Plain(x))(x)
    assert hasattr(Registered(x), "distribution")
    converted = tf.function(lambda x: Registered(x))(x)
    assert isinstance(converted, tf.Tensor)
    with pytest.raises(AttributeError):
        _ = converted.distribution
