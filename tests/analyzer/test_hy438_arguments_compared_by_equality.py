"""HY438: a function whose receiver or argument has a hand-written `__eq__` is not compiled.

tests/analyzer/test_hy438_equality_measured.py measures what TF 2.21 does with such a class
(`__eq__` runs at every call, in graph mode from inside a graph; equal instances share a
compiled method or a trace). These tests hold the rule to that: which classes count (a
hand-written `__eq__` in the class or a project base, hashable), which do not (identity
tests, `object`'s, generated field comparisons, a base outside the project, unhashable ones:
HY409's), where the object is seen (the receiver, an argument, inside a list, an
annotation), and that the rule is TensorFlow's only.
"""

from __future__ import annotations

from facts_helpers import analyse


def _codes(source: str, qualname: str) -> list[str]:
    return [f.code for f in analyse(source)[qualname].findings]


HEADER = """
import dataclasses

import tensorflow as tf

"""


def _method_of(cls_body: str, bases: str = "", decorator: str = "") -> str:
    return (
        HEADER
        + f"""
{decorator}
class Limit{bases}:
    def __init__(self, lower=0.0):
        self.lower = lower
{cls_body}
    def inside(self, x):
        return tf.reduce_sum(tf.sigmoid(x * 2.0 - self.lower))


limit = Limit(1.0)
limit.inside(tf.ones((4, 2)))
"""
    )


VALUE_EQ = """
    def __eq__(self, other):
        return isinstance(other, Limit) and self.lower == other.lower

    def __hash__(self):
        return hash(self.lower)
"""


def test_a_method_of_a_class_comparing_by_value_is_blocked() -> None:
    verdict = analyse(_method_of(VALUE_EQ))["Limit.inside"]
    found = [f for f in verdict.findings if f.code == "HY438"]
    assert found and not verdict.passes, verdict.findings
    assert "`Limit` defines `__eq__`" in found[0].message
    assert found[0].severity == "error"


def test_identity_tests_are_what_object_does() -> None:
    for body in (
        "\n    def __eq__(self, other):\n        return self is other\n\n"
        "    def __hash__(self):\n        return id(self)\n",
        "\n    def __eq__(self, other):\n        return id(self) == id(other)\n\n"
        "    def __hash__(self):\n        return hash(id(self))\n",
        # Sonnet's utils.CompareById: identity of a wrapped object, guarded
        "\n    def __eq__(self, other):\n        if other is None:\n            return False\n"
        '        return self.lower is getattr(other, "lower", None)\n\n'
        "    def __hash__(self):\n        return id(self.lower)\n",
        "",
    ):
        assert "HY438" not in _codes(_method_of(body), "Limit.inside"), body


def test_an_eq_comparing_every_attribute_before_answering_by_identity_is_kept() -> None:
    # `__dict__` holds whatever the instance holds, tensors included: compared with itself
    # in graph mode a tensor entry raises (measured)
    body = (
        "\n    def __eq__(self, other):\n        for key, own in self.__dict__.items():\n"
        "            if not own == other.__dict__.get(key):\n                return False\n"
        "        return self is other\n\n    def __hash__(self):\n        return id(self)\n"
    )
    assert "HY438" in _codes(_method_of(body), "Limit.inside")


ZFIT_BASE_OBJECT = """
import contextlib

import tensorflow as tf


class BaseObject:
    def __init__(self, lower):
        self.lower = LOWER
        self._repr = {"lower": LOWER}

    def __eq__(self, other):
        if not isinstance(self, type(other)):
            return False
        with contextlib.suppress(AttributeError):
            for key, own_element in self._repr.items():
                if not own_element == other._repr.get(key):
                    return False
        return ANSWER

    def __hash__(self):
        return object.__hash__(self)


class Pdf(BaseObject):
    def pdf(self, x):
        return tf.reduce_sum(tf.exp(-x * x))


def integrate(pdf, x):
    return tf.reduce_sum(x) * 2.0


pdf = Pdf(1.0)
pdf.pdf(tf.ones((4,)))
integrate(pdf, tf.ones((4,)))
"""


def _zfit_like(lower: str, answer: str = "self is other") -> str:
    return ZFIT_BASE_OBJECT.replace("LOWER", lower).replace("ANSWER", answer)


def test_an_eq_answering_by_identity_after_comparing_python_values_spares_the_receiver() -> None:
    # zfit 0.28.0's BaseObject.__eq__: True for no object but itself (no shared trace), and
    # comparing Python values raises nothing in graph mode (measured): harmless as the
    # receiver, compared with itself at each call
    verdicts = analyse(_zfit_like("lower"))
    assert not any(f.code == "HY438" for f in verdicts["Pdf.pdf"].findings)
    # as an argument it is compared with every live earlier argument when a new one comes,
    # and each new object is a new trace (zfit's Data made per `pdf(x)` call: a timeout)
    found = [f for f in verdicts["integrate"].findings if f.code == "HY438"]
    assert found and "`pdf` may receive" in found[0].message, verdicts["integrate"].findings


def test_an_eq_answering_by_identity_after_comparing_tensors_is_kept() -> None:
    # the entries compared are tensors or variables: `not (t == t)` raises in graph mode
    for lower in ("tf.constant(lower)", "tf.Variable(lower)"):
        verdicts = analyse(_zfit_like(lower))
        for qualname in ("Pdf.pdf", "integrate"):
            assert any(f.code == "HY438" for f in verdicts[qualname].findings), (lower, qualname)


def test_an_eq_that_may_answer_true_for_another_object_is_kept() -> None:
    # `return True` after the comparisons: equal instances share one trace
    for answer in ("True", "self.lower == other.lower"):
        verdicts = analyse(_zfit_like("lower", answer))
        assert any(f.code == "HY438" for f in verdicts["Pdf.pdf"].findings), answer


def test_an_eq_answering_by_identity_that_calls_anything_else_is_kept() -> None:
    # a call of its own (zfit's `Limit.__eq__` calls `equal_limits`, which refuses graph
    # mode) may raise or cost: only type tests and mapping reads are known harmless
    source = _zfit_like("lower").replace(
        "        return self is other", "        check(self, other)\n        return self is other"
    )
    source = source.replace(
        "class BaseObject:", "def check(a, b):\n    pass\n\n\nclass BaseObject:"
    )
    assert "HY438" in _codes(source, "Pdf.pdf")


def test_unhashable_classes_are_hy409s() -> None:
    body = "\n    def __eq__(self, other):\n        return self.lower == other.lower\n"
    codes = _codes(_method_of(body), "Limit.inside")
    assert "HY409" in codes and "HY438" not in codes, codes


def test_generated_field_comparisons_are_not_claimed() -> None:
    for decorator in (
        "@dataclasses.dataclass(frozen=True)",
        "@dataclasses.dataclass(unsafe_hash=True)",
    ):
        source = (
            HEADER
            + f"""
{decorator}
class Limit:
    lower: float = 0.0

    def inside(self, x):
        return tf.reduce_sum(tf.sigmoid(x * 2.0 - self.lower))


Limit(1.0).inside(tf.ones((4, 2)))
"""
        )
        assert "HY438" not in _codes(source, "Limit.inside"), decorator


def test_an_eq_inherited_from_a_project_base_counts_and_an_outside_base_is_not_claimed() -> None:
    source = (
        HEADER
        + """
class Named:
    def __eq__(self, other):
        return self.name == other.name

    def __hash__(self):
        return hash(self.name)


class Limit(Named):
    def __init__(self):
        self.name = "l"

    def inside(self, x):
        return tf.reduce_sum(tf.sigmoid(x * 2.0))


class Plain(Named):
    def __eq__(self, other):
        return self is other

    def __hash__(self):
        return id(self)

    def inside(self, x):
        return tf.reduce_sum(tf.sigmoid(x * 3.0))


class Layer(tf.Module):
    def inside(self, x):
        return tf.reduce_sum(tf.sigmoid(x * 4.0))


Limit().inside(tf.ones((4, 2)))
Plain().inside(tf.ones((4, 2)))
Layer().inside(tf.ones((4, 2)))
"""
    )
    verdicts = analyse(source)
    found = [f for f in verdicts["Limit.inside"].findings if f.code == "HY438"]
    assert found and "`Named.__eq__`" in found[0].message, verdicts["Limit.inside"].findings
    for qualname in ("Plain.inside", "Layer.inside"):
        assert not any(f.code == "HY438" for f in verdicts[qualname].findings), qualname


def test_arguments_in_containers_and_annotations_are_seen() -> None:
    source = (
        HEADER
        + """
class Bounds:
    def __init__(self, scale):
        self.scale = scale

    def __eq__(self, other):
        return self.scale == other.scale

    def __hash__(self):
        return 0


def direct(x, bounds):
    return tf.reduce_sum(tf.sigmoid(x * bounds.scale))


def in_list(x, all_bounds):
    return tf.reduce_sum(tf.sigmoid(x * all_bounds[0].scale))


def annotated(x, bounds: Bounds):
    return tf.reduce_sum(tf.sigmoid(x * 5.0))


def tensors_only(x, y):
    return tf.reduce_sum(tf.sigmoid(x * y))


direct(tf.ones((4, 2)), Bounds(2.0))
in_list(tf.ones((4, 2)), [Bounds(2.0)])
tensors_only(tf.ones((4, 2)), tf.ones((4, 2)))
"""
    )
    verdicts = analyse(source)
    for qualname, parameter in (
        ("direct", "bounds"),
        ("in_list", "all_bounds"),
        ("annotated", "bounds"),
    ):
        found = [f for f in verdicts[qualname].findings if f.code == "HY438"]
        assert found and f"`{parameter}` may receive" in found[0].message, qualname
        assert not verdicts[qualname].passes
    assert not any(f.code == "HY438" for f in verdicts["tensors_only"].findings)


def test_a_tracing_protocol_argument_is_typed_without_eq() -> None:
    source = (
        HEADER
        + """
class Spec:
    def __eq__(self, other):
        return self.n == other.n

    def __hash__(self):
        return 0

    def __tf_tracing_type__(self, context):
        return None


def f(x, spec):
    return tf.reduce_sum(tf.sigmoid(x * 2.0))


f(tf.ones((4, 2)), Spec())
"""
    )
    assert "HY438" not in _codes(source, "f")


def test_a_method_already_compiled_is_not_flagged() -> None:
    source = _method_of(VALUE_EQ).replace("    def inside", "    @tf.function\n    def inside")
    assert "HY438" not in _codes(source, "Limit.inside")


def test_torch_compile_does_not_compare_by_eq() -> None:
    source = """
import torch


class Limit:
    def __init__(self, lower):
        self.lower = lower

    def __eq__(self, other):
        return self.lower == other.lower

    def __hash__(self):
        return 0

    def inside(self, x):
        return torch.sigmoid(x * 2.0 - self.lower).sum()


Limit(1.0).inside(torch.ones(4, 2))
"""
    assert "HY438" not in _codes(source, "Limit.inside")
