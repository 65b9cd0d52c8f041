"""A new Python object passed at every call of a compiled function: a trace per call
(`Framework.compiles_per_argument_object`, `facts/fresh_arguments.py`; measured in
test_benefit_rules_measured: tf.function keys such an argument by identity)."""

from __future__ import annotations

import pytest
from facts_helpers import verdict

PROGRAM = """
import collections

import tensorflow as tf

Pair = collections.namedtuple("Pair", ["a", "b"])


class Data:
    def __init__(self, x):
        self.x = x


class Valued:
    def __init__(self, x):
        self.x = x

    def __eq__(self, other):
        return isinstance(other, Valued)

    def __hash__(self):
        return 0


def pdf(data):
    x = data.x
    for _ in range(3):
        x = tf.sin(x) * tf.cos(x) + tf.exp(x) * 2.0
    return tf.reduce_sum(x)


def make():
    return Data(tf.ones((3, 2)))


def main(xs):
    LOOP
"""
"""`pdf` does ample work, and `main` calls it in a loop: compiled, it pays unless each call
is a new trace."""


@pytest.mark.parametrize(
    ("loop", "expected"),
    [
        # INVALID: a new object at every call (constructed in the call, or bound to a local)
        ("for x in xs:\n        pdf(Data(x))", "none"),
        ("for x in xs:\n        data = Data(x)\n        pdf(data)", "none"),
        # VALID: one object built once, outside the loop, passed at every call
        ("data = Data(xs[0])\n    for x in xs:\n        pdf(data)", "high"),
        # VALID: a namedtuple built per call is opened into its tensors (one trace)
        ("for x in xs:\n        pdf(Pair(x, x))", "high"),
        # VALID (not claimed): a class defining its own equality and hash
        ("for x in xs:\n        pdf(Valued(x))", "high"),
        # VALID (not claimed): what a factory returns may be one object
        ("for x in xs:\n        pdf(make())", "high"),
    ],
)
def test_a_new_object_per_call_is_a_trace_per_call(loop: str, expected: str) -> None:
    v = verdict(PROGRAM.replace("LOOP", loop) + "\nmain([tf.ones((3, 2))] * 1000)\n", "pdf")
    assert v.benefit == expected, v.benefit_reasons
    if expected == "none":
        assert "a new `Data` as `data`" in v.benefit_reasons[0], v.benefit_reasons
        assert "by its identity" in v.benefit_reasons[0]


def test_only_the_call_sites_building_an_object_per_call_are_named() -> None:
    """One caller builds a new object in its loop, another passes the one it keeps: `low`,
    naming the first (its calls trace each time; the other's trace once)."""
    loop = (
        "for x in xs:\n        pdf(Data(x))\n\n\n"
        "def steady(xs):\n    data = Data(xs[0])\n    for x in xs:\n        pdf(data)"
    )
    source = PROGRAM.replace("LOOP", loop) + (
        "\nmain([tf.ones((3, 2))] * 1000)\nsteady([tf.ones((3, 2))] * 1000)\n"
    )
    v = verdict(source, "pdf")
    assert v.benefit == "low", v.benefit_reasons
    assert v.benefit_reasons[0].startswith("1 of its 2 call sites"), v.benefit_reasons
    assert "`main`" in v.benefit_reasons[0] and "`steady`" not in v.benefit_reasons[0]


def test_a_generator_expression_per_call_is_a_trace_per_call() -> None:
    source = """
import tensorflow as tf


def total(items):
    out = 0.0
    for item in items:
        out = out + tf.reduce_sum(tf.sin(item) * tf.cos(item) + tf.exp(item))
    return out


def main(xs):
    for x in xs:
        total(v * 2.0 for v in x)


main([[tf.ones((3, 2))] * 3] * 1000)
"""
    v = verdict(source, "total")
    assert v.benefit == "none", v.benefit_reasons
    assert "a new generator" in v.benefit_reasons[0]


def test_torch_compile_is_not_concerned() -> None:
    """Dynamo guards on the object's type and the attributes read, not its identity."""
    source = """
import torch


class Data:
    def __init__(self, x):
        self.x = x


def pdf(data):
    x = data.x
    for _ in range(3):
        x = torch.sin(x) * torch.cos(x) + torch.exp(x) * 2.0
    return x.sum()


def main(xs):
    for x in xs:
        pdf(Data(x))


main([torch.ones(3, 2)] * 1000)
"""
    v = verdict(source, "pdf")
    assert not any("identity" in r for r in v.benefit_reasons), v.benefit_reasons


BINDINGS = """
import functools

import tensorflow as tf


class Data:
    def __init__(self, x):
        self.x = x


def work(x):
    for _ in range(3):
        x = tf.sin(x) * tf.cos(x) + tf.exp(x) * 2.0
    return tf.reduce_sum(x)


class Model:
    def pdf(self, data):
        return work(data.x)

    @staticmethod
    def static_pdf(data):
        return work(data.x)


def scaled(scale, data):
    return work(data.x) * scale


def all_of(*datas):
    return work(datas[0].x)


def by_name(**parts):
    return work(parts["data"].x)


def main(xs):
    model = Model()
    LOOP


main([tf.ones((3, 2))] * 1000)
"""
"""Each function does ample work and `main` calls it in a loop with a new `Data` per call:
compiled, every call traces. The words name the parameter the object binds, as the call
binds it (the evaluator's `bind_written`)."""


@pytest.mark.parametrize(
    ("function", "loop", "parameter"),
    [
        # the receiver passed explicitly: the object is the method's second argument
        ("Model.pdf", "for x in xs:\n        Model.pdf(model, Data(x))", "data"),
        # a staticmethod called on an instance keeps its first parameter
        ("Model.static_pdf", "for x in xs:\n        model.static_pdf(Data(x))", "data"),
        # a partial object's own arguments come before the call's
        (
            "scaled",
            "half = functools.partial(scaled, 0.5)\n    for x in xs:\n        half(Data(x))",
            "data",
        ),
        # gathered by `*args` and `**kwargs`: the parameter that receives it
        ("all_of", "for x in xs:\n        all_of(Data(x))", "datas"),
        ("by_name", "for x in xs:\n        by_name(data=Data(x))", "parts"),
    ],
)
def test_the_object_is_named_by_the_parameter_the_call_binds(
    function: str, loop: str, parameter: str
) -> None:
    v = verdict(BINDINGS.replace("LOOP", loop), function)
    assert v.benefit == "none", v.benefit_reasons
    assert f"a new `Data` as `{parameter}`" in v.benefit_reasons[0], v.benefit_reasons


def test_an_object_a_partial_binds_once_is_not_built_per_call() -> None:
    """`functools.partial(by_name, data=Data(xs[0]))` builds its `Data` once: calling the
    partial in a loop passes that one object at every call (one trace); the call's own
    argument is no new object."""
    loop = (
        "once = functools.partial(by_name, data=Data(xs[0]))\n"
        "    for x in xs:\n        once(other=x)"
    )
    v = verdict(BINDINGS.replace("LOOP", loop), "by_name")
    assert not any("identity" in r for r in v.benefit_reasons), v.benefit_reasons


def test_an_attrs_object_per_call_is_opened_not_keyed_by_identity() -> None:
    """`tf.function` opens an attrs instance field by field (measured in
    test_python_object_arguments_measured: even with `__hash__` None), so a new one per call
    of tensors is the same trace, whatever its `eq`: not claimed."""
    plain = PROGRAM.replace("LOOP", "for x in xs:\n        pdf(Data(x))")
    plain += "\nmain([tf.ones((3, 2))] * 1000)\n"
    record = plain.replace("import collections", "import collections\n\nimport attr").replace(
        "class Data:\n    def __init__(self, x):\n        self.x = x\n",
        "@attr.s(eq=False)\nclass Data:\n    x = attr.ib()\n",
    )
    assert "attr.ib()" in record
    v = verdict(record, "pdf")
    assert not any("identity" in r for r in v.benefit_reasons), v.benefit_reasons
    identity = verdict(plain, "pdf")
    assert any("identity" in r for r in identity.benefit_reasons), identity.benefit_reasons
