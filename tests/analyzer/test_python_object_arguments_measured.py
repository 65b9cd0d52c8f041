"""What `tf.function` keeps of Python-object arguments between calls, measured (HY408, HY409,
HY108, HY442 extended to arguments).

TF 2.21 keys an argument object of no container type by identity (`Weakref`) and traces the
body with the object itself, once: what the body reads of it while tracing (a Python value
of an attribute, an eager tensor of a field, the tensor `__tf_tensor__` converts it to, the
elements a generator yields) is what every later call with the same object computes with.
A frozen dataclass is hashed to key the trace: a tensor field makes the hash fail. Measured
here, in one program, against the eager calls; and that Dynamo (torch 2.13) gives the eager
results (it guards on what it reads, and breaks the graph on a generator).
"""

from __future__ import annotations

import importlib.util

import pytest
from facts_helpers import run_probe

COMMON = """
import dataclasses
import collections
import attr


class Settings:  # a plain class: hashed by identity
    def __init__(self, scale):
        self.scale = scale


@dataclasses.dataclass(eq=False)
class Fields:  # identity too; its field holds a tensor
    w: object


def scaled(settings, x):
    return x * settings.scale


def weighted(fields, x):
    return x * fields.w


def total(it, x):
    for v in it:
        x = x + v
    return x


def weighted_first(items, x):
    return x * items[0].w


def listed(it, x):
    return x + sum(list(it))


def summed(it, x):
    return x + sum(it)


def helper_total(it, x):
    return total(it, x)


def run_twice(fn, make_arg, mutate):
    arg = make_arg()
    values = []
    for _ in range(2):
        try:
            values.append(str(float(fn(arg, one()))))
        except Exception as error:
            values.append(type(error).__name__)
        mutate(arg)
    return ":".join(values)


def generator():
    return (float(i) for i in range(3))


CASES = (
    ("attribute", scaled, lambda: Settings(1.0), lambda s: setattr(s, "scale", 7.0)),
    ("attribute_unchanged", scaled, lambda: Settings(1.0), lambda s: None),
    ("eq_false_field", weighted, lambda: Fields(const(2.0)), lambda f: setattr(f, "w", const(9.0))),
    ("generator_for", total, generator, lambda g: None),
    ("generator_list", listed, generator, lambda g: None),
    ("generator_sum", summed, generator, lambda g: None),
    ("generator_helper", helper_total, generator, lambda g: None),
    ("list_for", total, lambda: [0.0, 1.0, 2.0], lambda g: None),
)
"""

TF_PROBE = (
    """
import tensorflow as tf


def one():
    return tf.constant(1.0)


def const(value):
    return tf.constant(value)
"""
    + COMMON
    + """

for label, fn, make, mutate in CASES:
    print(label, run_twice(fn, make, mutate), run_twice(tf.function(fn), make, mutate))


class TensorLike:
    def __init__(self, value):
        self.value = value

    def __tf_tensor__(self, dtype=None, name=None):
        return tf.constant(self.value, dtype=dtype)


def converted(v, x):
    return x + tf.convert_to_tensor(v, tf.float32)


mutate_value = lambda o: setattr(o, "value", 5.0)
print("tf_tensor", run_twice(converted, lambda: TensorLike(1.0), mutate_value),
      run_twice(tf.function(converted), lambda: TensorLike(1.0), mutate_value))


@dataclasses.dataclass(frozen=True)
class FrozenTensors:
    w: object


@dataclasses.dataclass(frozen=True)
class FrozenScalars:
    w: float


@attr.s(frozen=True)
class AttrsFrozenTensors:
    w = attr.ib()


@attr.s
class AttrsMutable:  # eq=True, not frozen: `__hash__` is None, yet opened, not hashed
    w = attr.ib()


Pair = collections.namedtuple("Pair", "w")

for label, make in (
    ("frozen_dataclass_tensor", lambda: FrozenTensors(tf.constant(2.0))),
    ("frozen_dataclass_scalar", lambda: FrozenScalars(2.0)),
    ("attrs_frozen_tensor", lambda: AttrsFrozenTensors(tf.constant(2.0))),
    ("namedtuple_tensor", lambda: Pair(tf.constant(2.0))),
    ("attrs_mutable_scalar", lambda: AttrsMutable(2.0)),
    ("attrs_mutable_tensor", lambda: AttrsMutable(tf.constant(2.0))),
    ("attrs_mutable_in_list", lambda: [AttrsMutable(tf.constant(2.0))]),
):
    fn = weighted_first if label.endswith("_in_list") else weighted
    print(label, run_twice(fn, make, lambda a: None),
          run_twice(tf.function(fn), make, lambda a: None))


# `self` of a decorated method: tf.function keys the bound method on the instance, hashed
# (an attrs class is not opened there)
@attr.s
class AttrsMutableMethod:
    w = attr.ib()

    def weighted(self, x):
        return x * self.w


@attr.s(frozen=True)
class AttrsFrozenMethod:
    w = attr.ib()

    def weighted(self, x):
        return x * self.w


def through_method(obj, x):
    return obj.weighted(x)


for label, make in (
    ("attrs_mutable_self", lambda: AttrsMutableMethod(2.0)),
    ("attrs_frozen_tensor_self", lambda: AttrsFrozenMethod(tf.constant(2.0))),
    ("attrs_frozen_scalar_self", lambda: AttrsFrozenMethod(2.0)),
):
    cls = type(make())
    eager = run_twice(through_method, make, lambda a: None)
    cls.weighted = tf.function(cls.weighted)
    print(label, eager, run_twice(through_method, make, lambda a: None))


# A new object per call: an attrs instance is opened (one trace for new objects of tensors,
# whatever its `eq`); a plain object is keyed by identity (a trace per object)
@attr.s(eq=False)
class AttrsIdentity:
    w = attr.ib()


for label, make in (("attrs_new_objects", AttrsIdentity), ("identity_new_objects", Fields)):
    traces = []

    def counted(obj, x):
        traces.append(1)
        return x * obj.w

    compiled = tf.function(counted)
    for value in (1.0, 2.0, 3.0):
        compiled(make(const(value)), one())
    print(label, len(traces))
"""
)

TORCH_PROBE = (
    """
import torch


def one():
    return torch.tensor(1.0)


def const(value):
    return torch.tensor(value)
"""
    + COMMON
    + """

for label, fn, make, mutate in CASES:
    torch._dynamo.reset()
    print(label, run_twice(fn, make, mutate),
          run_twice(torch.compile(fn, backend="eager"), make, mutate))


@dataclasses.dataclass(frozen=True)
class FrozenTensors:
    w: object


torch._dynamo.reset()
make = lambda: FrozenTensors(torch.tensor(2.0))
print("frozen_dataclass_tensor", run_twice(weighted, make, lambda a: None),
      run_twice(torch.compile(weighted, backend="eager"), make, lambda a: None))
"""
)


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_tf_function_keeps_what_it_read_of_an_argument_object_while_tracing() -> None:
    measured = run_probe(TF_PROBE)
    # D: the same object, a Python attribute reassigned between calls: the graph keeps 1.0
    assert measured["attribute"] == "1.0:7.0 1.0:1.0", measured
    assert measured["attribute_unchanged"] == "1.0:1.0 1.0:1.0", measured
    # N2: an eq=False dataclass (identity), a tensor field reassigned: a captured constant
    assert measured["eq_false_field"] == "2.0:9.0 2.0:2.0", measured
    # K1: a generator iterated by the body (for, list(), sum(), in a helper): consumed while
    # tracing; the second call with the same (now exhausted) generator replays the first
    for label in ("generator_for", "generator_list", "generator_sum", "generator_helper"):
        assert measured[label] == "4.0:1.0 4.0:4.0", (label, measured)
    # ... a list is typed element by element and stays live
    assert measured["list_for"] == "4.0:4.0 4.0:4.0", measured
    # I2: an object converted by `__tf_tensor__` inside the body: the constant it gave
    assert measured["tf_tensor"] == "2.0:6.0 2.0:2.0", measured
    # N1: a frozen dataclass is hashed: a tensor field fails the call
    assert measured["frozen_dataclass_tensor"] == "2.0:2.0 TypeError:TypeError", measured
    # ... of Python scalars it hashes; attrs classes and namedtuples are opened field by field
    assert measured["frozen_dataclass_scalar"] == "2.0:2.0 2.0:2.0", measured
    assert measured["attrs_frozen_tensor"] == "2.0:2.0 2.0:2.0", measured
    assert measured["namedtuple_tensor"] == "2.0:2.0 2.0:2.0", measured
    # ... even an attrs class whose `__hash__` is None, of a scalar, of a tensor, in a list:
    # as an argument it is opened, never hashed (HY409 claims none of them)
    assert measured["attrs_mutable_scalar"] == "2.0:2.0 2.0:2.0", measured
    assert measured["attrs_mutable_tensor"] == "2.0:2.0 2.0:2.0", measured
    assert measured["attrs_mutable_in_list"] == "2.0:2.0 2.0:2.0", measured
    # ... but as `self` of a decorated method the instance is hashed: an attrs class with
    # `__hash__` None fails, a frozen one hashes its fields (a tensor field fails, scalars
    # work), as a dataclass does (HY409 claims the two failing ones)
    assert measured["attrs_mutable_self"] == "2.0:2.0 TypeError:TypeError", measured
    assert measured["attrs_frozen_tensor_self"] == "2.0:2.0 TypeError:TypeError", measured
    assert measured["attrs_frozen_scalar_self"] == "2.0:2.0 2.0:2.0", measured
    # ... and a new attrs object per call is no new trace, a new plain one is
    # (fresh_arguments claims only the second)
    assert measured["attrs_new_objects"] == "1", measured
    assert measured["identity_new_objects"] == "3", measured


@pytest.mark.torch
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_dynamo_reads_argument_objects_again_at_every_call() -> None:
    measured = run_probe(TORCH_PROBE)
    for label, value in measured.items():
        eager, compiled = value.split()
        assert eager == compiled, (label, value)
    assert "attribute" in measured and "generator_for" in measured, measured
