"""HY407 and HY442 on named tuple classes: `tf.function` rebuilds a named tuple as
`type(x)(*fields)` (a returned one, and an argument for the body), so only a subclass whose
constructor does not take its fields back unchanged comes back wrong
(`hashability.namedtuple_rebuilt_wrong`; measured in test_rebuilt_namedtuples_measured.py).
"""

from __future__ import annotations

import textwrap

import pytest
from facts_helpers import analyse

PROGRAM = """
import collections
import typing

import tensorflow as tf

Base = collections.namedtuple("Base", ["a", "b"])


class Plain(Base):
    def total(self):
        return self.a + self.b


class Validating(collections.namedtuple("Validating", ["a", "b"])):
    def __init__(self, *args, **kwargs):
        del args, kwargs
        super().__init__()
        self._validate()

    def _validate(self):
        if self.a is None:
            raise ValueError("a")

    def replace(self, **kwargs):
        return self._replace(**kwargs)


class Defaulted(Base):
    def __new__(cls, a, b=None):
        return super().__new__(cls, a, b)


class Typed(typing.NamedTuple):
    a: object
    b: object


class NewTransform(Base):
    def __new__(cls, a, b):
        return super().__new__(cls, a, b + 1)


class NewFewer(Base):
    def __new__(cls, a):
        return super().__new__(cls, a, a * 2)


class NewKeyword(Base):
    def __new__(cls, *, a, b):
        return super().__new__(cls, a, b)


class InitExtra(Base):
    def __new__(cls, a, b, note=None):
        return super().__new__(cls, a, b)

    def __init__(self, a, b, note=None):
        super().__init__()
        self.note = note


def make_plain(x):
    return Plain(x * 2.0, x)


def make_validating(x):
    return Validating(x * 2.0, x)


def make_defaulted(x):
    return Defaulted(x * 2.0)


def make_typed(x):
    return Typed(x * 2.0, x)


def make_transform(x):
    return NewTransform(x * 2.0, x)


def make_fewer(x):
    return NewFewer(x * 2.0)


def make_keyword(x):
    return NewKeyword(a=x * 2.0, b=x)


def make_extra(x):
    return InitExtra(x * 2.0, x, note="n")


def take_validating(p, t):
    return p.a * t


def take_transform(p, t):
    return p.a * t


def take_extra(p, t):
    return p.a * t


for _ in range(100):
    t = tf.ones([3])
    make_plain(t).total()
    make_validating(t)
    make_defaulted(t)
    make_typed(t)
    make_transform(t)
    make_fewer(t)
    make_keyword(t)
    make_extra(t)
    take_validating(Validating(t, t), t)
    take_transform(NewTransform(t, t), t)
    take_extra(InitExtra(t, t, note="n"), t)
"""


@pytest.fixture(scope="module")
def verdicts() -> dict:
    return analyse(textwrap.dedent(PROGRAM))


@pytest.mark.parametrize(
    "function",
    [
        "make_plain",  # methods added
        "make_validating",  # graph_nets' GraphsTuple: a call base, `__init__(*args, **kwargs)`
        "make_defaulted",  # `__new__` taking the fields, a default, handing them on
        "make_typed",  # typing.NamedTuple
        "take_validating",
    ],
)
def test_a_named_tuple_rebuilt_equal_is_returned_and_passed(verdicts: dict, function: str) -> None:
    v = verdicts[function]
    assert not any(f.code in ("HY407", "HY442") for f in v.findings), v.findings
    assert v.passes, v.failures


@pytest.mark.parametrize(
    ("function", "code", "why"),
    [
        ("make_transform", "HY407", "`NewTransform.__new__` does not hand its parameters"),
        ("make_fewer", "HY407", "`NewFewer.__new__` does not hand its parameters"),
        ("make_keyword", "HY407", "`NewKeyword.__new__` requires the keyword `a`"),
        ("make_extra", "HY407", "`InitExtra.__init__` sets `self.note` from its parameters"),
        ("take_transform", "HY442", "`NewTransform.__new__` does not hand its parameters"),
        ("take_extra", "HY442", "`InitExtra.__init__` sets `self.note`"),
    ],
)
def test_a_named_tuple_rebuilt_wrong_blocks(
    verdicts: dict, function: str, code: str, why: str
) -> None:
    v = verdicts[function]
    [message] = [f.message for f in v.findings if f.code == code]
    assert "type(x)(*fields)" in message
    assert why in message
    assert not v.passes


COMPUTED = """
import collections

import tensorflow as tf

Base = collections.namedtuple("Base", ["x", "y"])


class Counted(Base):
    def __init__(self, *args, **kwargs):
        super().__init__()
        self.n = tf.shape(self.x)[0]


class Summed(Base):
    def __init__(self, *args, **kwargs):
        super().__init__()
        total = self.x + self.y
        self.total = total


class Static(Base):
    def __init__(self, *args, **kwargs):
        super().__init__()
        self.n = int(self.x.shape[0])
        self.kind = self.x.dtype
        self.pair = (self.x, self.y)


def take_counted(p, t):
    return p.x * t


def take_summed(p, t):
    y = p.y
    return y + t


def take_static(p, t):
    return tf.reduce_sum(p.x) * t


def make_counted(x):
    return Counted(x * 2.0, x)


def make_summed(x):
    return Summed(x * 2.0, x)


for _ in range(100):
    t = tf.ones([3])
    take_counted(Counted(t, t), t)
    take_summed(Summed(t, t), t)
    take_static(Static(t, t), t)
    make_counted(t)
    make_summed(t)
"""


@pytest.fixture(scope="module")
def computed() -> dict:
    return analyse(textwrap.dedent(COMPUTED))


@pytest.mark.parametrize(
    ("function", "why"),
    [
        ("take_counted", "`Counted.__init__` computes `self.n` from `self.x`"),
        ("take_summed", "`Summed.__init__` computes `self.total` from `self."),
    ],
)
def test_an_argument_whose_init_computes_from_the_fields_is_hy442(
    computed: dict, function: str, why: str
) -> None:
    """Passed in, the named tuple is rebuilt from its fields' TensorSpecs first: an
    attribute computed from them raises while tracing (measured)."""
    v = computed[function]
    [message] = [f.message for f in v.findings if f.code == "HY442"]
    assert why in message
    assert "TensorSpecs" in message
    assert not v.passes


@pytest.mark.parametrize(
    "function",
    [
        "take_static",  # only what a spec answers as the tensor does: shape, dtype, holding
        "make_counted",  # returned: rebuilt from the eager outputs, computed as eagerly
        "make_summed",
    ],
)
def test_attributes_a_spec_answers_or_a_returned_tuple_computes_are_not_concerned(
    computed: dict, function: str
) -> None:
    v = computed[function]
    assert not any(f.code in ("HY407", "HY442") for f in v.findings), v.findings
