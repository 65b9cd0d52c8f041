"""What `tf.function` hands the traced body for some Python-object arguments (HY442), measured.

TF 2.21 builds a trace type per argument (`trace_type_builder.from_value`) and traces the body
with the placeholder values of those types, not with the objects passed. An object answering
`__wrapped__` (`hasattr`, before lists and mappings) is typed by what that attribute holds; a
list or tuple subclass is typed as a plain list or tuple; a mapping is rebuilt by
`type(x)(pairs)` (a `defaultdict` as a plain dict). Measured here, in one program, against the
eager call; and that Dynamo (torch 2.13) traces the objects as passed.
"""

from __future__ import annotations

import importlib.util

import pytest
from facts_helpers import run_probe

CLASSES = """
import collections


class Config:  # a catch-all __getattr__: answers `__wrapped__` with None
    def __init__(self, **values):
        self.__dict__["_values"] = values

    def __getattr__(self, name):
        return self._values.get(name)


class AttrDict(dict):  # reads an item by any name: KeyError('__wrapped__')
    def __getattr__(self, name):
        return self[name]


class ItemDict(dict):  # the attribute-access dict idiom: KeyError('__wrapped__')
    __getattr__ = dict.__getitem__


class GetDict(dict):  # answers `__wrapped__` with None
    __getattr__ = dict.get


class Checked:  # chooses by the name, raises AttributeError: as Python does
    def __init__(self, **values):
        self._values = values

    def __getattr__(self, name):
        if name in self._values:
            return self._values[name]
        raise AttributeError(name)


class Proxy:  # a new proxy for every name: `__wrapped__` all the way down
    scale = 2.0

    def __getattr__(self, name):
        return Proxy()


class Wrapper:  # a real `__wrapped__`
    def __init__(self, wrapped, scale):
        self.__wrapped__ = wrapped
        self.scale = scale


class Inner:
    scale = 0.0


class Tagged(list):
    def total(self):
        return sum(self)


class Strict(dict):
    def __init__(self, name, values):
        super().__init__(values)
        self.name = name


class Loose(dict):
    pass


def scaled(obj, x):
    return x * obj.scale


def total(t, x):
    return x + t.total()


def first(t, x):
    return x + t[0]


def read(d, x):
    return x + d["a"]


def missing(d, x):
    return x + d["absent"]


CASES = (
    ("config", scaled, lambda: Config(scale=2.0)),
    ("attrdict", scaled, lambda: AttrDict(scale=2.0)),
    ("checked", scaled, lambda: Checked(scale=2.0)),
    ("item_dict", scaled, lambda: ItemDict(scale=2.0)),
    ("get_dict", scaled, lambda: GetDict(scale=2.0)),
    ("proxy", scaled, Proxy),
    ("wrapper", scaled, lambda: Wrapper(Inner(), 2.0)),
    ("list_subclass_method", total, lambda: Tagged([1.0, 1.0])),
    ("list_subclass_items", first, lambda: Tagged([1.0, 1.0])),
    ("dict_other_init", read, lambda: Strict("n", {"a": 1.0})),
    ("dict_plain_init", read, lambda: Loose(a=1.0)),
    ("defaultdict_missing", missing, lambda: collections.defaultdict(float, a=1.0)),
)
"""

TF_PROBE = (
    """
import tensorflow as tf
"""
    + CLASSES
    + """

def run(fn, arg):
    try:
        return str(float(fn(arg, tf.constant(1.0))))
    except Exception as error:
        return type(error).__name__


for label, fn, make in CASES:
    print(label, run(fn, make()), run(tf.function(fn), make()))


class Receiver(list):
    def total(self):
        return sum(self)

    @tf.function
    def plus(self, x):
        return x + self.total()


class ConfigReceiver(Config):
    @tf.function
    def plus(self, x):
        return x * self.scale


for label, make in (("receiver_list", lambda: Receiver([1.0])), ("receiver_config", lambda: ConfigReceiver(scale=2.0))):
    try:
        print(label, float(make().plus(tf.constant(1.0))))
    except Exception as error:
        print(label, type(error).__name__)
"""
)

TORCH_PROBE = (
    """
import torch
"""
    + CLASSES
    + """

def run(fn, arg):
    try:
        return str(float(fn(arg, torch.tensor(1.0))))
    except Exception as error:
        return type(error).__name__


for label, fn, make in CASES:
    torch._dynamo.reset()
    print(label, run(fn, make()), run(torch.compile(fn, backend="eager"), make()))
"""
)


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_tf_function_hands_the_body_what_wrapped_answers_and_rebuilt_containers() -> None:
    measured = run_probe(TF_PROBE)
    # `__wrapped__` answered by a catch-all `__getattr__`: the body gets None
    assert measured["config"] == "2.0 AttributeError", measured
    # ... read as an item: the call fails with KeyError('__wrapped__')
    assert measured["attrdict"] == "2.0 KeyError", measured
    # the same bound in the class body (`__getattr__ = dict.__getitem__` / `dict.get`)
    assert measured["item_dict"] == "2.0 KeyError", measured
    assert measured["get_dict"] == "2.0 AttributeError", measured
    # a new proxy for every name: typed by `__wrapped__` without end
    assert measured["proxy"] == "2.0 RecursionError", measured
    # a real `__wrapped__`: the body gets the wrapped object, silently (0.0, not 2.0)
    assert measured["wrapper"] == "2.0 0.0", measured
    # a `__getattr__` choosing by the name and raising AttributeError: as passed
    assert measured["checked"] == "2.0 2.0", measured
    # a list subclass: a plain list reaches the body, its method is gone; its items are not
    assert measured["list_subclass_method"] == "3.0 AttributeError", measured
    assert measured["list_subclass_items"] == "2.0 2.0", measured
    # a mapping rebuilt as type(x)(pairs): an __init__ of other arguments fails the trace
    assert measured["dict_other_init"] == "2.0 TypeError", measured
    assert measured["dict_plain_init"] == "2.0 2.0", measured
    # a defaultdict arrives as a plain dict: its default is gone
    assert measured["defaultdict_missing"] == "1.0 KeyError", measured
    # the receiver of a compiled method is typed the same way (a `__wrapped__` answered)
    assert measured["receiver_config"] == "AttributeError", measured
    # a list subclass as the receiver is unhashable before anything is typed (TypeError)
    assert measured["receiver_list"] == "TypeError", measured


@pytest.mark.torch
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_dynamo_traces_the_objects_as_passed() -> None:
    measured = run_probe(TORCH_PROBE)
    for label in (
        "config",
        "attrdict",
        "checked",
        "item_dict",
        "get_dict",
        "wrapper",
        "list_subclass_method",
        "list_subclass_items",
        "dict_other_init",
        "dict_plain_init",
        "defaultdict_missing",
    ):
        eager, compiled = measured[label].split()
        assert eager == compiled, (label, measured[label])
