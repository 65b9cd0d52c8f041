"""HY442: a function whose receiver or argument would reach the traced body as another object.

tests/analyzer/test_hy442_replaced_arguments_measured.py measures what TF 2.21 hands the body
(what `__wrapped__` answers; a plain list for a list subclass; a mapping rebuilt by
`type(x)(pairs)`). These tests hold the rule to that: which classes count (a `__getattr__`
answering every name or reading an item by it, a stored `__wrapped__`, a list/tuple subclass
whose own members the function reads, a mapping whose `__init__` cannot take the pairs),
which do not (a `__getattr__` choosing by the name, converting the error or delegating; a
subclass used as a plain container; the tracing protocol), where the object is seen, and
that the rule is TensorFlow's only.
"""

from __future__ import annotations

from facts_helpers import analyse

HEADER = """
import tensorflow as tf

"""

CALLS = """

def scale(x, config):
    return tf.reduce_sum(x * config.factor)


scale(tf.ones((4,)), Config(factor=2.0))
"""


def _flagged(source: str, qualname: str = "scale") -> bool:
    verdict = analyse(source)[qualname]
    found = [f for f in verdict.findings if f.code == "HY442"]
    assert not found or not verdict.passes, verdict.findings
    return bool(found)


def _getattr_class(body: str) -> str:
    return (
        HEADER
        + f"""
class Config:
    def __init__(self, **values):
        self.__dict__["_values"] = values

    def __getattr__(self, name):
{body}
"""
        + CALLS
    )


def test_a_getattr_answering_every_name_is_flagged() -> None:
    for body in (
        "        return self._values.get(name)",
        "        return self._values.get(name, 0.0)",
        "        return getattr(self._values, name, None)",
        "        return self._values[name]",  # KeyError, not AttributeError
    ):
        assert _flagged(_getattr_class(body)), body


def test_a_getattr_choosing_by_the_name_converting_or_delegating_is_not() -> None:
    for body in (
        "        if name in self._values:\n            return self._values[name]\n"
        "        raise AttributeError(name)",
        '        if name.startswith("__"):\n            raise AttributeError(name)\n'
        "        return self._values.get(name)",
        "        try:\n            return self._values[name]\n"
        "        except KeyError:\n            raise AttributeError(name)",
        "        return getattr(self._values, name)",
        "        return super().__getattr__(name)",
        "        raise AttributeError(name)",
    ):
        assert not _flagged(_getattr_class(body)), body


def test_a_base_getattr_counts_and_an_own_one_decides() -> None:
    source = (
        HEADER
        + """
class Base:
    def __getattr__(self, name):
        return self.__dict__.get("_values", {}).get(name)


class Config(Base):
    def __init__(self, **values):
        self._values = values


class Strict(Base):
    def __init__(self, **values):
        self._values = values

    def __getattr__(self, name):
        raise AttributeError(name)


def scale(x, config):
    return tf.reduce_sum(x * config.factor)


def strict(x, config):
    return tf.reduce_sum(x * config.factor)


scale(tf.ones((4,)), Config(factor=2.0))
strict(tf.ones((4,)), Strict(factor=2.0))
"""
    )
    assert _flagged(source, "scale")
    assert not _flagged(source, "strict")


def test_the_receiver_a_stored_wrapped_a_container_and_an_annotation_are_seen() -> None:
    source = (
        HEADER
        + """
class Config:
    def __init__(self, **values):
        self.__dict__["_values"] = values

    def __getattr__(self, name):
        return self._values.get(name)

    def apply(self, x):
        return tf.reduce_sum(x * self.factor)


class Wrapper:
    def __init__(self, inner, factor):
        self.__wrapped__ = inner
        self.factor = factor


def wrapped(x, w):
    return tf.reduce_sum(x * w.factor)


def in_list(x, configs):
    return tf.reduce_sum(x * configs[0].factor)


def annotated(x, config: Config):
    return tf.reduce_sum(x * 2.0)


x = tf.ones((4,))
Config(factor=2.0).apply(x)
wrapped(x, Wrapper(object(), 2.0))
in_list(x, [Config(factor=2.0)])
"""
    )
    for qualname in ("Config.apply", "wrapped", "in_list", "annotated"):
        assert _flagged(source, qualname), qualname


def test_list_and_tuple_subclasses_count_where_their_own_members_are_read() -> None:
    source = (
        HEADER
        + """
class Scales(list):
    unit = 1.0

    def product(self):
        return 1.0


class Pair(tuple):
    def first(self):
        return self[0]


def method(x, scales):
    return tf.reduce_sum(x * scales.product())


def attribute(x, scales):
    return tf.reduce_sum(x * scales.unit)


def tuple_method(x, pair):
    return tf.reduce_sum(x * pair.first())


def indexed(x, scales):
    return tf.reduce_sum(x * scales[0] * len(scales))


def list_method(x, scales):
    return tf.reduce_sum(x * scales.count(2.0))


x = tf.ones((4,))
for fn in (method, attribute, indexed, list_method):
    fn(x, Scales([2.0]))
tuple_method(x, Pair((2.0, 1.0)))
"""
    )
    for qualname in ("method", "attribute", "tuple_method"):
        assert _flagged(source, qualname), qualname
    # used as the plain container it becomes: the same whether traced or not
    for qualname in ("indexed", "list_method"):
        assert not _flagged(source, qualname), qualname


def test_a_mapping_whose_init_cannot_take_the_pairs_counts() -> None:
    source = (
        HEADER
        + """
class Named(dict):
    def __init__(self, name, values):
        super().__init__(values)
        self.name = name


class Loose(dict):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)


class Plain(dict):
    pass


def named(x, d):
    return tf.reduce_sum(x * d["a"])


def loose(x, d):
    return tf.reduce_sum(x * d["a"])


def plain(x, d):
    return tf.reduce_sum(x * d["a"])


x = tf.ones((4,))
named(x, Named("n", {"a": 2.0}))
loose(x, Loose(a=2.0))
plain(x, Plain(a=2.0))
"""
    )
    assert _flagged(source, "named")
    assert not _flagged(source, "loose")
    assert not _flagged(source, "plain")


def test_the_tracing_protocol_an_already_compiled_function_and_torch_are_not_claimed() -> None:
    protocol = _getattr_class("        return self._values.get(name)").replace(
        "    def __getattr__",
        "    def __tf_tracing_type__(self, context):\n        return None\n\n    def __getattr__",
    )
    assert not _flagged(protocol)
    compiled = _getattr_class("        return self._values.get(name)").replace(
        "def scale", "@tf.function\ndef scale"
    )
    assert not _flagged(compiled)
    torch_source = """
import torch


class Config:
    def __init__(self, **values):
        self.__dict__["_values"] = values

    def __getattr__(self, name):
        return self._values.get(name)


def scale(x, config):
    return (x * config.factor).sum()


scale(torch.ones(4), Config(factor=2.0))
"""
    assert not _flagged(torch_source)


def test_a_getattr_bound_to_a_mapping_lookup_in_the_class_body_counts() -> None:
    # the attribute-access dict idiom
    for lookup in ("dict.__getitem__", "dict.get"):
        source = (
            HEADER
            + f"""
class Config(dict):
    __getattr__ = {lookup}
"""
            + CALLS
        )
        assert _flagged(source), lookup
