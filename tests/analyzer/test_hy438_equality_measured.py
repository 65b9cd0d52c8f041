"""What `tf.function` does with a hand-written `__eq__` of its receiver or an argument (HY438), measured.

TF 2.21 keys a trace on a Python object by a weak reference, and its weak references compare
their referents with `==`; a compiled method finds its instance's own compiled function in a
`WeakKeyDictionary` keyed on `self` (`__hash__`, then `==`). Measured here, in one program:
when the class's `__eq__` runs (eager calls, calls from inside another `tf.function`, for a
method and for a plain function taking the object), whether two instances that compare equal
share a compiled method or a trace (and so the second reads the first's attributes), what a
class with `__eq__` and no `__hash__` does (it fails: HY409's), what a frozen dataclass does
(its generated `__eq__` compares the fields), and that Dynamo calls no `__eq__` at all.
"""

from __future__ import annotations

import importlib.util

import pytest
from facts_helpers import run_probe

PROBE = """
import dataclasses

import tensorflow as tf

calls = []


class Equal:
    def __init__(self, lower, scale):
        self.lower = lower
        self.scale = scale

    def __hash__(self):
        return HASH(self)

    def __eq__(self, other):
        calls.append("eager" if tf.executing_eagerly() else "graph")
        if RAISE and not tf.executing_eagerly():
            raise RuntimeError("no == in graph mode")
        return isinstance(other, Equal) and self.lower == other.lower

    @tf.function
    def scaled(self, x):
        return x * self.scale


class Plain:
    def __init__(self, lower, scale):
        self.lower = lower
        self.scale = scale

    @tf.function
    def scaled(self, x):
        return x * self.scale


x = tf.constant(1.0)


def method(cls):
    # a, b compare equal (same lower), scale differs: what b.scaled gives says whose it ran
    calls.clear()
    a, b = cls(0.0, 1.0), cls(0.0, 3.0)
    eager = f"{float(a.scaled(x))}:{float(b.scaled(x))}:{'eager' in calls}"
    calls.clear()
    c, d = cls(0.0, 1.0), cls(1.0, 3.0)

    @tf.function
    def outer(x):
        return c.scaled(x) + d.scaled(x)

    try:
        graph = f"{float(outer(x))}"
    except Exception as error:
        graph = type(error).__name__
    return f"{eager} {graph}:{'graph' in calls}"


def function(cls):
    @tf.function
    def scaled(obj, x):
        return x * obj.scale

    calls.clear()
    a, b = cls(0.0, 1.0), cls(0.0, 3.0)
    eager = f"{float(scaled(a, x))}:{float(scaled(b, x))}:{'eager' in calls}"
    calls.clear()
    c = cls(1.0, 5.0)

    @tf.function
    def outer(x):
        return scaled(c, x)

    try:
        graph = f"{float(outer(x))}"
    except Exception as error:
        graph = type(error).__name__
    return f"{eager} {graph}:{'graph' in calls}"


for label, HASH, RAISE in (
    ("same_hash", lambda self: 0, False),
    ("identity_hash", id, False),
    ("raising", id, True),
):
    print("method_" + label, method(Equal))
    print("function_" + label, function(Equal))
print("method_plain", method(Plain))
print("function_plain", function(Plain))


class EqualOnly:
    def __eq__(self, other):
        return True

    @tf.function
    def f(self, x):
        return x


try:
    EqualOnly().f(x)
    print("unhashable works")
except TypeError as error:
    print("unhashable TypeError")


@dataclasses.dataclass(frozen=True)
class Frozen:
    lower: float
    scale: float = dataclasses.field(default=1.0, compare=False)

    @tf.function
    def scaled(self, x):
        return x * self.scale


first, second = Frozen(0.0, 1.0), Frozen(1.0, 3.0)
print("frozen", f"{float(first.scaled(x))}:{float(second.scaled(x))}")
"""

TORCH_PROBE = """
import torch

calls = []


class Equal:
    def __init__(self, lower, scale):
        self.lower = lower
        self.scale = scale

    def __hash__(self):
        return 0

    def __eq__(self, other):
        calls.append(1)
        return isinstance(other, Equal) and self.lower == other.lower

    def scaled(self, x):
        return x * self.scale


Equal.compiled = torch.compile(Equal.scaled, backend="eager")


@torch.compile(backend="eager")
def scaled(obj, x):
    return x * obj.scale


x = torch.tensor(1.0)
a, b = Equal(0.0, 1.0), Equal(0.0, 3.0)
print("method", f"{float(a.compiled(x))}:{float(b.compiled(x))}:{len(calls)}")
print("function", f"{float(scaled(a, x))}:{float(scaled(b, x))}:{len(calls)}")
"""


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_tf_function_compares_its_receiver_and_object_arguments_with_their_eq() -> None:
    measured = run_probe(PROBE)
    # Equal hashes: the second instance's method IS the first's (its scale, 1.0, not 3.0),
    # __eq__ runs eagerly, and inside another graph in graph mode.
    assert measured["method_same_hash"] == "1.0:1.0:True 4.0:True", measured
    # Identity hashes: each instance keeps its own method, but __eq__ still runs at each
    # call (the instance compared with itself), in graph mode from inside a graph.
    assert measured["method_identity_hash"] == "1.0:3.0:True 4.0:True", measured
    # ... so an __eq__ that refuses graph mode fails the call from inside a graph.
    assert measured["method_raising"] == "1.0:3.0:True RuntimeError:True", measured
    # A plain function: an argument equal to an earlier one reuses its trace whatever the
    # hashes (its scale read as the earlier object's, 1.0).
    assert measured["function_same_hash"].startswith("1.0:1.0:True "), measured
    assert measured["function_identity_hash"].startswith("1.0:1.0:True "), measured
    assert measured["function_raising"] == "1.0:1.0:True RuntimeError:True", measured
    # Identity (no __eq__): each instance its own, nothing compared.
    assert measured["method_plain"] == "1.0:3.0:False 4.0:False", measured
    assert measured["function_plain"] == "1.0:3.0:False 5.0:False", measured
    # __eq__ without __hash__: unhashable, the call fails (HY409, not HY438).
    assert measured["unhashable"] == "TypeError"
    # A frozen dataclass compares its fields: different fields, each its own (a field left
    # out of the comparison is the documented exception, not claimed).
    assert measured["frozen"] == "1.0:3.0"


@pytest.mark.torch
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_dynamo_never_calls_eq_and_keeps_equal_instances_apart() -> None:
    measured = run_probe(TORCH_PROBE)
    assert measured["method"] == "1.0:3.0:0"
    assert measured["function"] == "1.0:3.0:0"


IDENTITY_ANSWER_PROBE = """
import contextlib

import tensorflow as tf

calls = []


class BaseObject:
    # zfit 0.28.0's BaseObject.__eq__: compares each entry of `_repr`, then answers by identity
    def __init__(self, scale, entries):
        self.scale = scale
        self._repr = entries

    def __hash__(self):
        return object.__hash__(self)

    def __eq__(self, other):
        calls.append("self" if other is self else "other")
        if not isinstance(self, type(other)):
            return False
        with contextlib.suppress(AttributeError):
            for key, own in self._repr.items():
                if not own == other._repr.get(key):
                    return False
        return self is other

    @tf.function
    def scaled(self, x):
        return x * self.scale


@tf.function
def scaled(obj, x):
    return x * obj.scale


x = tf.constant(1.0)
for label, entries in (("python", lambda s: {"scale": s}), ("tensor", lambda s: {"scale": tf.constant(s)})):
    calls.clear()
    a, b = BaseObject(1.0, entries(1.0)), BaseObject(3.0, entries(1.0))
    eager = f"{float(a.scaled(x))}:{float(b.scaled(x))}:{float(a.scaled(x))}"
    print(label + "_method", eager, ",".join(sorted(set(calls))), len(calls))

    @tf.function
    def outer(x):
        return a.scaled(x) + b.scaled(x)

    try:
        print(label + "_from_graph", float(outer(x)))
    except Exception as error:
        print(label + "_from_graph", type(error).__name__)
    calls.clear()
    objects = [BaseObject(float(i), entries(1.0)) for i in range(4)]
    results = ",".join(str(float(scaled(o, x))) for o in objects)
    print(label + "_arguments", results, ",".join(sorted(set(calls))), scaled.experimental_get_tracing_count())
"""


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_an_eq_answering_by_identity_shares_nothing_and_raises_only_on_tensors() -> None:
    measured = run_probe(IDENTITY_ANSWER_PROBE)
    # A compiled method compares its instance with itself (twice a call, TF 2.21), never
    # with another: each instance keeps its own compiled method (3.0, not 1.0).
    method, compared, count = measured["python_method"].split()
    assert method == "1.0:3.0:1.0" and compared == "self" and int(count) >= 3, measured
    # Python entries compared in graph mode: nothing raises.
    assert measured["python_from_graph"] == "4.0", measured
    # A new argument is compared with the live earlier ones, and never equal to them: one
    # trace each, each with its own attributes.
    assert measured["python_arguments"] == "0.0,1.0,2.0,3.0 other 4", measured
    # Tensor entries: the same comparison of an instance with itself, in graph mode, is a
    # symbolic tensor tested for truth: the call from a graph fails (HY438 keeps these).
    assert measured["tensor_method"].startswith("1.0:3.0:1.0 self"), measured
    assert measured["tensor_from_graph"] == "OperatorNotAllowedInGraphError", measured
