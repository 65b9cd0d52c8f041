"""What a `tf.function` keeps of state bound anew between calls (HY408), measured.

`tf.function` on a method traces with `self` keyed by identity: the attributes it reads are
read while tracing, and a later `obj.attr = new` changes nothing in the cache key. Measured on
TF 2.21 for an attribute read by a compiled method, set to a first value, called, set to a
second value, called again: the second call returns the first value for a Python float, an
eager tensor, a NumPy scalar, an object TensorFlow converts to a tensor
(`tf.register_tensor_conversion_function`, edward2's `RandomVariable`: the tensor it converted
to is embedded) and a new `tf.Variable` bound in place of the old one (the old variable was
captured); only a variable changed in place (`assign`) is read live. The function traced once
in each case. The analyzer's rule (facts/frozen_state.py) counts a rebinding whatever the
value's kind; it reads a method binding a variable it makes as creating the state.
"""

from __future__ import annotations

import importlib.util

import pytest
from facts_helpers import analyse, run_probe

PROBE = """
import numpy as np
import tensorflow as tf


class Convertible:
    def __init__(self, value):
        self.value = tf.constant(value)


tf.register_tensor_conversion_function(
    Convertible, lambda obj, dtype=None, name=None, as_ref=False: obj.value
)


class Holder(tf.Module):
    def __init__(self, value):
        self.a = value

    @tf.function
    def f(self, x):
        return x + tf.cast(tf.convert_to_tensor(self.a), tf.float32)


def run(first, second=None, assign=False):
    holder = Holder(first)
    before = float(holder.f(tf.constant(0.0)))
    if assign:
        holder.a.assign(2.0)
    else:
        holder.a = second
    after = float(holder.f(tf.constant(0.0)))
    return f"{before}:{after}:{holder.f.experimental_get_tracing_count()}"


print("float", run(1.0, 2.0))
print("eager_tensor", run(tf.constant(1.0), tf.constant(2.0)))
print("numpy", run(np.float32(1.0), np.float32(2.0)))
print("convertible", run(Convertible(1.0), Convertible(2.0)))
print("new_variable", run(tf.Variable(1.0), tf.Variable(2.0)))
print("assigned_variable", run(tf.Variable(1.0), assign=True))
"""


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_a_compiled_method_keeps_what_an_attribute_held_when_it_traced() -> None:
    measured = run_probe(PROBE)
    for rebound in ("float", "eager_tensor", "numpy", "convertible", "new_variable"):
        assert measured[rebound] == "1.0:1.0:1", (rebound, measured[rebound])
    assert measured["assigned_variable"] == "1.0:2.0:1"


PROJECT = """
import tensorflow as tf


class Sample:
    def __init__(self, value):
        self.value = tf.constant(value)


tf.register_tensor_conversion_function(
    Sample, lambda obj, dtype=None, name=None, as_ref=False: obj.value
)


class Cell(tf.Module):
    def __init__(self):
        self.kernel = tf.Variable(tf.ones([3, 3]))
        self.scale = tf.Variable(1.0)

    def call_weights(self, value):
        self.kernel = Sample(value)

    def rescale(self, value):
        self.scale.assign(value)

    def step(self, h):
        return tf.matmul(h, tf.convert_to_tensor(self.kernel))

    def scaled(self, h):
        return h * self.scale


cell = Cell()
cell.step(tf.ones([2, 3]))
cell.scaled(tf.ones([2, 3]))
cell.call_weights(tf.zeros([3, 3]))
cell.rescale(2.0)
"""


def test_a_convertible_object_rebound_is_frozen_an_assigned_variable_live() -> None:
    verdicts = analyse(PROJECT)
    step, scaled = verdicts["Cell.step"], verdicts["Cell.scaled"]
    assert step.fact("has_frozen_python_state_reads"), step.findings
    assert any(f.code == "HY408" and "`Cell.call_weights`" in f.message for f in step.findings), (
        step.findings
    )
    assert not scaled.fact("has_frozen_python_state_reads"), scaled.findings
