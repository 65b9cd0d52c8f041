"""Python-object arguments whose graph-boundary semantics a compiled call changes (issue 33).

tests/analyzer/test_python_object_arguments_measured.py measures each on TF 2.21 and torch
2.13; these tests hold the rules to it, each in the check whose hazard it is:

* HY408: an attribute of an argument object that the project reassigns after
  initialisation (a setter, a caller), read by the body: `tf.function` keys the object by
  identity and the graph keeps the value it read (D, N2); an argument converted by its
  class's `__tf_tensor__`, whose attributes are reassigned (I2). Not an attribute assigned
  only in `__init__`; not under torch.compile (Dynamo guards on it).
* HY409: a frozen dataclass built with a tensor field (N1). Not one of Python scalars, not a
  named tuple of tensors, not an attrs class (opened field by field).
* HY108: a Python generator/iterator argument iterated by `for`, `list()`, `sum()`, or by a
  helper (K1). Not a list, not `range`, not an iterator of unknown elements (a `tf.data` one).
* HY442: a `defaultdict` argument whose items the body reads (F5). Not an `OrderedDict`, not
  one read only with `.get`.
"""

from __future__ import annotations

from facts_helpers import analyse

HEADER = """
import collections
import dataclasses

import attr
import tensorflow as tf

"""


def _codes(source: str, qualname: str, framework: str = "tensorflow") -> set[str]:
    text = HEADER + source
    if framework == "torch":
        text = text.replace("import tensorflow as tf", "import torch").replace("tf.", "torch.")
    verdict = analyse(text)[qualname]
    codes = {f.code for f in verdict.findings}
    assert not codes & {"HY408", "HY409", "HY108", "HY442"} or not verdict.passes
    return codes


SETTINGS = """
class Settings:
    def __init__(self, scale):
        self.scale = scale

    def set_scale(self, scale):
        self.scale = scale


def scaled(x, settings):
    return tf.reduce_sum(x * settings.scale)

"""


def test_an_argument_attribute_reassigned_by_a_setter_is_frozen_state() -> None:
    source = (
        SETTINGS
        + """
def train():
    settings = Settings(1.0)
    for scale in (1.0, 2.0):
        settings.set_scale(scale)
        scaled(tf.ones((3,)), settings)
"""
    )
    assert "HY408" in _codes(source, "scaled")
    message = next(
        f.message for f in analyse(HEADER + source)["scaled"].findings if f.code == "HY408"
    )
    assert "`settings.scale`" in message and "Settings.set_scale" in message, message


def test_an_argument_attribute_reassigned_by_a_caller_is_frozen_state() -> None:
    source = """
@dataclasses.dataclass(eq=False)
class Fields:
    w: object


def weighted(x, fields):
    return tf.reduce_sum(x * fields.w)


def train():
    fields = Fields(tf.constant(2.0))
    weighted(tf.ones((3,)), fields)
    fields.w = tf.constant(9.0)
    weighted(tf.ones((3,)), fields)
"""
    assert "HY408" in _codes(source, "weighted")


def test_an_attribute_assigned_only_in_init_is_not() -> None:
    source = """
class Settings:
    def __init__(self, scale):
        self.scale = scale


def scaled(x, settings):
    return tf.reduce_sum(x * settings.scale)


def train():
    for scale in (1.0, 2.0):
        scaled(tf.ones((3,)), Settings(scale))
"""
    assert "HY408" not in _codes(source, "scaled")


def test_a_write_the_function_itself_makes_and_a_method_read_are_not() -> None:
    source = """
class Counter:
    def __init__(self):
        self.count = 0

    def rate(self):
        return 2.0


def step(x, counter):
    counter.count = 1
    return tf.reduce_sum(x * counter.count * counter.rate())


def train(counter):
    step(tf.ones((3,)), counter)
"""
    assert "HY408" not in _codes(source, "step")


def test_argument_attributes_are_not_frozen_under_torch_compile() -> None:
    source = (
        SETTINGS
        + """
def train():
    settings = Settings(1.0)
    for scale in (1.0, 2.0):
        settings.set_scale(scale)
        scaled(tf.ones((3,)), settings)
"""
    )
    assert "HY408" not in _codes(source, "scaled", framework="torch")


TENSOR_LIKE = """
class TensorLike:
    def __init__(self, value):
        self.value = value

    def update(self, value):
        self.value = value

    def __tf_tensor__(self, dtype=None, name=None):
        return tf.constant(self.value, dtype=dtype)


def converted(x, v):
    return x + tf.convert_to_tensor(v, tf.float32)

"""


def test_an_argument_converted_by_tf_tensor_whose_attribute_changes_is_frozen_state() -> None:
    source = (
        TENSOR_LIKE
        + """
def train():
    t = TensorLike(1.0)
    converted(tf.ones(()), t)
    t.update(5.0)
    converted(tf.ones(()), t)
"""
    )
    assert "HY408" in _codes(source, "converted")
    # set only in `__init__`: a new object retraces, nothing is stale
    unchanged = (
        TENSOR_LIKE.replace("    def update(self, value):\n        self.value = value\n\n", "")
        + "\ndef train():\n    for value in (1.0, 5.0):\n"
        + "        converted(tf.ones(()), TensorLike(value))\n"
    )
    assert "update" not in unchanged
    assert "HY408" not in _codes(unchanged, "converted")


def _frozen(fields: str, construction: str) -> str:
    return f"""
@dataclasses.dataclass(frozen=True)
class Frozen:
{fields}


def use_w(x, c):
    return tf.reduce_sum(x * c.w)


use_w(tf.ones((3,)), {construction})
"""


def test_a_frozen_dataclass_built_with_a_tensor_field_is_unhashable() -> None:
    assert "HY409" in _codes(_frozen("    w: tf.Tensor", "Frozen(tf.constant(2.0))"), "use_w")
    assert "HY409" in _codes(_frozen("    w: tf.Tensor", "Frozen(w=tf.ones((2,)))"), "use_w")
    unsafe = _frozen("    w: object", "Frozen(tf.constant(2.0))").replace(
        "(frozen=True)", "(unsafe_hash=True)"
    )
    assert "HY409" in _codes(unsafe, "use_w")


def test_frozen_dataclass_of_scalars_named_tuples_and_attrs_are_not() -> None:
    assert "HY409" not in _codes(_frozen("    w: float", "Frozen(2.0)"), "use_w")
    named = """
Pair = collections.namedtuple("Pair", "w")


def use_w(x, c):
    return tf.reduce_sum(x * c.w)


use_w(tf.ones((3,)), Pair(tf.constant(2.0)))
"""
    assert "HY409" not in _codes(named, "use_w")
    attrs_frozen = """
@attr.s(frozen=True)
class Frozen:
    w = attr.ib()


def use_w(x, c):
    return tf.reduce_sum(x * c.w)


use_w(tf.ones((3,)), Frozen(tf.constant(2.0)))
"""
    assert "HY409" not in _codes(attrs_frozen, "use_w")
    # an eq=False dataclass hashes by identity
    identity = _frozen("    w: object", "Frozen(tf.constant(2.0))").replace(
        "(frozen=True)", "(eq=False)"
    )
    assert "HY409" not in _codes(identity, "use_w")


GENERATORS = """
def gen(n):
    for i in range(n):
        yield float(i)


def total(it, x):
    for v in it:
        x = x + v
    return x


def listed(it, x):
    return x + sum(list(it))


def enumerated(it, x):
    for _, v in enumerate(it):
        x = x + v
    return x


def helper_total(it, x):
    return total(it, x)


def taken(it, x):
    return x + next(it)

"""


def test_a_generator_argument_iterated_by_the_body_or_a_helper_is_consumed() -> None:
    for function in ("total", "listed", "enumerated", "helper_total"):
        for made in ("(float(i) for i in range(3))", "gen(3)", "iter([1.0, 2.0])"):
            source = GENERATORS + f"\n{function}({made}, tf.ones(()))\n"
            assert "HY108" in _codes(source, function), (function, made)


def test_lists_ranges_and_unknown_iterators_are_not() -> None:
    for made in ("[1.0, 2.0]", "range(3)", "(1.0, 2.0)"):
        source = GENERATORS + f"\ntotal({made}, tf.ones(()))\n"
        assert "HY108" not in _codes(source, "total"), made
    # `iter` of a value of unknown elements (a `tf.data.Dataset`, say): not claimed
    dataset = GENERATORS + "\ndef run(ds):\n    return total(iter(ds), tf.ones(()))\n"
    assert "HY108" not in _codes(dataset, "total")


def test_a_generator_iterated_in_an_eager_caller_is_not_the_callees() -> None:
    source = (
        GENERATORS
        + """
def step(x, v):
    return x + v


def train():
    it = gen(3)
    x = tf.ones(())
    for v in it:
        x = step(x, v)
    return x
"""
    )
    assert "HY108" not in _codes(source, "step")


def test_an_iterated_generator_is_consumed_under_torch_compile_too() -> None:
    # HY108 is the side-effect rule of both frameworks: Dynamo breaks the graph on it
    source = GENERATORS + "\ntotal(gen(3), tf.ones(()))\n"
    assert "HY108" in _codes(source, "total", framework="torch")


DICTS = """
def read(d, x):
    return x + d["absent"]


def counted(d, x):
    d["n"] += 1
    return x


def safe_get(d, x):
    return x + d.get("a", 0.0)

"""


def test_a_defaultdict_argument_whose_items_are_read_is_replaced() -> None:
    for function in ("read", "counted"):
        source = DICTS + f"\n{function}(collections.defaultdict(float), tf.ones(()))\n"
        assert "HY442" in _codes(source, function), function
    local = (
        DICTS + "\ndef run():\n    d = collections.defaultdict(float)\n    read(d, tf.ones(()))\n"
    )
    assert "HY442" in _codes(local, "read")


def test_an_ordered_dict_or_a_defaultdict_read_with_get_is_not() -> None:
    ordered = DICTS + "\nread(collections.OrderedDict(a=1.0), tf.ones(()))\n"
    assert "HY442" not in _codes(ordered, "read")
    got = DICTS + "\nsafe_get(collections.defaultdict(float), tf.ones(()))\n"
    assert "HY442" not in _codes(got, "safe_get")
