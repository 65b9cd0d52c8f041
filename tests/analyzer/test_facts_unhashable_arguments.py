"""HY409 has_unhashable_arguments: `tf.function` keys its traces on every argument.

Found by the differential oracle on tf-models: `Movinet._get_initial_state_shapes(block_specs)`
receives a tuple of `@dataclasses.dataclass` specs (eq=True, not frozen, so `__hash__` is
None); decorated, every streaming test failed with "Could not generate a generic TraceType
for StemSpec(...)". Measured under TF 2.21 (hybridize/analyzer/facts/hashability.py has the table): sets,
mutable dataclasses and their subclasses, `__eq__`-only classes fail, also inside lists,
tuples and dict values, and as `self`; frozen/`unsafe_hash`/`eq=False` dataclasses, plain
classes, classes with `__eq__` and `__hash__` work.
"""

from __future__ import annotations

import pytest
from facts_helpers import case, verdict

HEADER = """
import dataclasses
from dataclasses import dataclass

import attr
import tensorflow as tf
"""


def program(classes: str, call: str, signature: str = "x, spec") -> str:
    return f"""{HEADER}
{classes}

def f({signature}):
    return tf.reduce_sum(x) * 2.0


{call}
"""


MUTABLE = "@dataclasses.dataclass\nclass Spec:\n    filters: int = 8\n"
CASES = [
    case("mutable dataclass", program(MUTABLE, "f(tf.ones((2,)), Spec())"), "f", True),
    case(
        "imported decorator name",
        program("@dataclass\nclass Spec:\n    a: int = 1\n", "f(tf.ones((2,)), Spec())"),
        "f",
        True,
    ),
    case(
        "tuple of specs in a module dict, through a subscript",
        program(
            MUTABLE,
            "SPECS = {'a0': (Spec(8), Spec(16))}\nf(tf.ones((2,)), SPECS['a0'])",
        ),
        "f",
        True,
    ),
    case(
        "subclass of a mutable dataclass inherits __hash__ = None",
        program(MUTABLE + "\nclass Sub(Spec):\n    pass\n", "f(tf.ones((2,)), [Sub()])"),
        "f",
        True,
    ),
    case(
        "dict value",
        program(MUTABLE, "f(tf.ones((2,)), {'spec': Spec()})"),
        "f",
        True,
    ),
    case(
        "eq without hash",
        program(
            "class Spec:\n    def __eq__(self, other):\n        return True\n",
            "f(tf.ones((2,)), Spec())",
        ),
        "f",
        True,
    ),
    case(
        "__hash__ = None",
        program("class Spec:\n    __hash__ = None\n", "f(tf.ones((2,)), Spec())"),
        "f",
        True,
    ),
    # An attrs instance is opened field by field as an argument, never hashed (measured in
    # test_python_object_arguments_measured: `__hash__` None, tensor fields, in a list)
    case(
        "attrs class, not frozen",
        program("@attr.s\nclass Spec:\n    a = attr.ib(default=1)\n", "f(tf.ones((2,)), Spec())"),
        "f",
        False,
    ),
    case(
        "attrs class, not frozen, in a list",
        program("@attr.s\nclass Spec:\n    a = attr.ib(default=1)\n", "f(tf.ones((2,)), [Spec()])"),
        "f",
        False,
    ),
    case(
        "subclass of an attrs class, not frozen",
        program(
            "@attr.s\nclass Spec:\n    a = attr.ib(default=1)\n\nclass Sub(Spec):\n    pass\n",
            "f(tf.ones((2,)), Sub())",
        ),
        "f",
        False,
    ),
    case(
        "frozen attrs class of a tensor",
        program(
            "@attr.s(frozen=True)\nclass Spec:\n    a = attr.ib()\n",
            "f(tf.ones((2,)), Spec(tf.ones((2,))))",
        ),
        "f",
        False,
    ),
    case(
        "annotation names a mutable attrs class",
        program(
            "@attr.s\nclass Spec:\n    a = attr.ib(default=1)\n", "", signature="x, spec: Spec"
        ),
        "f",
        False,
    ),
    case("a set", program("", "f(tf.ones((2,)), {1, 2})"), "f", True),
    case(
        "a set default",
        program("", "f(tf.ones((2,)))", signature="x, spec={1, 2}"),
        "f",
        True,
    ),
    case(
        "annotation names a mutable dataclass",
        program(MUTABLE, "", signature="x, spec: Spec"),
        "f",
        True,
    ),
    # Hashable: no finding.
    case(
        "frozen dataclass",
        program(
            "@dataclasses.dataclass(frozen=True)\nclass Spec:\n    a: int = 1\n",
            "f(tf.ones((2,)), (Spec(),))",
        ),
        "f",
        False,
    ),
    case(
        "unsafe_hash dataclass",
        program(
            "@dataclass(unsafe_hash=True)\nclass Spec:\n    a: int = 1\n",
            "f(tf.ones((2,)), Spec())",
        ),
        "f",
        False,
    ),
    case(
        "eq=False dataclass hashes by identity",
        program("@dataclass(eq=False)\nclass Spec:\n    a: int = 1\n", "f(tf.ones((2,)), Spec())"),
        "f",
        False,
    ),
    case(
        "explicit __hash__ in a dataclass body",
        program(
            "@dataclass\nclass Spec:\n    a: int = 1\n\n    def __hash__(self):\n"
            "        return 1\n",
            "f(tf.ones((2,)), Spec())",
        ),
        "f",
        False,
    ),
    case(
        "subclass defines __hash__ again",
        program(
            MUTABLE + "\nclass Sub(Spec):\n    def __hash__(self):\n        return 1\n",
            "f(tf.ones((2,)), Sub())",
        ),
        "f",
        False,
    ),
    case(
        "plain class",
        program("class Spec:\n    pass\n", "f(tf.ones((2,)), [Spec()])"),
        "f",
        False,
    ),
    case(
        "frozen attrs class",
        program(
            "@attr.s(frozen=True)\nclass Spec:\n    a = attr.ib(default=1)\n",
            "f(tf.ones((2,)), Spec())",
        ),
        "f",
        False,
    ),
    case(
        "a frozenset",
        program("", "f(tf.ones((2,)), frozenset({1, 2}))"),
        "f",
        False,
    ),
    case(
        "frozen keyword not a literal: not claimed",
        program(
            "FROZEN = True\n\n@dataclass(frozen=FROZEN)\nclass Spec:\n    a: int = 1\n",
            "f(tf.ones((2,)), Spec())",
        ),
        "f",
        False,
    ),
    case(
        "unknown external base: not claimed",
        program(
            "import pydantic\n\nclass Spec(pydantic.BaseModel):\n    a: int = 1\n",
            "f(tf.ones((2,)), Spec())",
        ),
        "f",
        False,
    ),
]


@pytest.mark.parametrize(("files", "qualname", "expected"), CASES)
def test_unhashable_arguments(files: str, qualname: str, expected: bool) -> None:
    v = verdict(files, qualname)
    assert v.fact("has_unhashable_arguments") is expected, v.findings
    assert ("has_unhashable_arguments" in v.failures) is expected


METHODS = f"""{HEADER}
@dataclass
class Head:
    units: int = 4

    def apply(self, x):
        return tf.reduce_sum(x) * float(self.units)

    @staticmethod
    def scale(x):
        return x * 2.0

    @classmethod
    def build(cls, x):
        return x * 3.0


@dataclass(frozen=True)
class FrozenHead:
    units: int = 4

    def apply(self, x):
        return tf.reduce_sum(x) * float(self.units)


@attr.s
class AttrsHead:
    units = attr.ib(default=4)

    def apply(self, x):
        return tf.reduce_sum(x) * float(self.units)


@attr.s(frozen=True)
class FrozenAttrsHead:
    units = attr.ib(default=4)

    def apply(self, x):
        return tf.reduce_sum(x) * self.units


@attr.s(frozen=True)
class FrozenAttrsScalarHead:
    units = attr.ib(default=4)

    def apply(self, x):
        return tf.reduce_sum(x) * float(self.units)


Head().apply(tf.ones((2,)))
Head.scale(tf.ones((2,)))
Head.build(tf.ones((2,)))
FrozenHead().apply(tf.ones((2,)))
AttrsHead().apply(tf.ones((2,)))
FrozenAttrsHead(tf.ones((2,))).apply(tf.ones((2,)))
FrozenAttrsScalarHead().apply(tf.ones((2,)))
"""


@pytest.mark.parametrize(
    ("qualname", "expected"),
    [
        ("Head.apply", True),
        ("Head.scale", False),
        ("Head.build", False),
        ("FrozenHead.apply", False),
        # `self` is hashed even for an attrs class (measured: a mutable one fails with
        # "unhashable type", a frozen one with a tensor field with "Tensor is unhashable")
        ("AttrsHead.apply", True),
        ("FrozenAttrsHead.apply", True),
        ("FrozenAttrsScalarHead.apply", False),
    ],
)
def test_self_is_part_of_the_key(qualname: str, expected: bool) -> None:
    """A decorated method keys its traces on `self` (measured: "unhashable type")."""
    v = verdict(METHODS, qualname)
    assert v.fact("has_unhashable_arguments") is expected, v.findings


def test_the_message_names_the_parameter_and_the_reason() -> None:
    v = verdict(program(MUTABLE, "f(tf.ones((2,)), [Spec()])"), "f")
    messages = [f.message for f in v.findings if f.code == "HY409"]
    assert len(messages) == 1
    assert "`spec`" in messages[0] and "`Spec`" in messages[0]
    assert "not frozen" in messages[0]
