"""A classmethod called through its class binds its arguments after `cls`, measured.

`Class.make(a, b)` and `cls.make(a, b)` call a classmethod with `cls` bound: `a` is its first
parameter after `cls`, exactly as `obj.make(a, b)`. The analysis took a classmethod read off
a class for a plain function (`Class.method(obj, x)` passes the receiver explicitly) and
bound the arguments one parameter early: onnx-tf 1.10.0's
`TFModuleHelper._create_handler_variables_for_node(cls, handlers, node, ...)`, called as
`cls._create_handler_variables_for_node(handlers, OnnxNode(node), ...)`, had its `handlers`
taken for the node object and its `init_dict` for a tensor, so the call of a method of a
handler looked up in `handlers` (`handler.create_variables(...)`, which makes
`tf.Variable`s) was not seen as unknown (HY110), and `--include-low-benefit` compiled it.

Measured on TF 2.21: such a function makes a variable on every trace; `tf.function` traces it
twice on its first call (the second trace checks that no variable is made) and raises
"tf.function only supports singleton tf.Variables created on the first call": the first call
already fails, eager calls work.
"""

from __future__ import annotations

import importlib.util

import pytest
from facts_helpers import analyse, run_probe

PROBE = """
import tensorflow as tf


class Handler:
    @classmethod
    def create_variables(cls, name, variables):
        variables[name] = tf.Variable(tf.zeros([2]), name=name)
        return variables


class Builder:
    @classmethod
    def variables_for(cls, handlers, key, variables=None):
        variables = dict() if variables is None else variables
        handler = handlers[key].get("op") if key in handlers else None
        return handler.create_variables(key, variables) if handler else variables

    @classmethod
    def first_argument(cls, a, b):
        return a


def run(fn):
    try:
        made = fn({"dense": {"op": Handler}}, "dense")
        made["dense"].assign(tf.ones([2]))
        return "ok"
    except Exception as error:
        return type(error).__name__


print("eager", run(Builder.variables_for), run(Builder.variables_for))
compiled = tf.function(Builder.variables_for)
print("compiled", run(compiled), run(compiled))
print("binding", Builder.first_argument("a", "b"), Builder().first_argument("a", "b"))
"""


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_a_function_making_variables_through_a_looked_up_handler_fails_compiled() -> None:
    measured = run_probe(PROBE)
    assert measured["eager"] == "ok ok", measured
    # the first call already fails: the check trace of the first call makes a variable again
    assert measured["compiled"] == "ValueError ValueError", measured
    # read off the class or off an instance, the first argument is the one after `cls`
    assert measured["binding"] == "a a", measured


BINDING = """
import tensorflow as tf


class Helper:
    @classmethod
    def inner(cls, a, b):
        return tf.reduce_sum(a) + b

    @classmethod
    def outer(cls, x):
        return cls.inner(x, 1.0)

    def method(self, x):
        return Helper.inner(x, 2.0)


def direct(x):
    return Helper.inner(x, 3.0)


def unbound(x):
    return Helper.plain(Helper(), x)


class Plain(Helper):
    pass


Helper.plain = lambda self, x: x
direct(tf.ones([2]))
Helper.outer(tf.ones([2]))
"""


def test_classmethod_read_off_its_class_binds_after_cls() -> None:
    verdicts = analyse(BINDING)
    params = {p.name: p.is_tensor for p in verdicts["Helper.inner"].facts.params}
    # `a` receives the tensors of `direct` and `outer`; `b` the Python floats. Bound one
    # parameter early, `a` had received the floats and `b` the tensors.
    assert params["a"] is True, params
    assert params["b"] is False, params


ONNX_TF_CLASS = """
import importlib

import tensorflow as tf


class Helper:
    @classmethod
    def for_graph(cls, handlers, graph, init_dict, var_dict=None):
        var_dict = dict() if var_dict is None else var_dict
        for node in graph:
            var_dict = cls.for_node(handlers, node, init_dict, var_dict)
        return var_dict

    @classmethod
    def for_node(cls, handlers, node, init_dict=None, var_dict=None):
        init_dict = dict() if init_dict is None else init_dict
        var_dict = dict() if var_dict is None else var_dict
        handler = handlers[node].get("op", None) if node in handlers else None
        var_dict = handler.create_variables(handlers, node, init_dict, var_dict) if handler else var_dict
        return var_dict


class Module(tf.Module):
    def __init__(self, backend, graph):
        super().__init__()
        self.initializers = {"w": tf.constant([1.0])}
        self.made = Helper.for_graph(backend.handlers(), graph, self.initializers)


Module(importlib.import_module("backend"), ["a"])
"""


def test_method_of_a_handler_looked_up_in_a_parameter_is_unknown() -> None:
    """onnx-tf's `_create_handler_variables_for_node`, reduced: with its arguments bound
    after `cls`, `handlers` is what the caller passes (unknown here) and the method of the
    handler looked up in it is an unknown call (HY110): not compiled."""
    found = analyse(ONNX_TF_CLASS)["Helper.for_node"]
    assert "HY110" in {f.code for f in found.findings}, found.findings
    assert not found.passes
