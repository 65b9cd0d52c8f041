"""What TF 2.21 gives back for named tuple subclasses returned by and passed to a tf.function:
the measurement behind `hashability.namedtuple_rebuilt_wrong` (HY407 for returns, HY442 for
arguments). tf.function rebuilds a named tuple as `type(x)(*fields)`: an argument from its
fields' TensorSpecs, then their tensors; a returned one from the graph's outputs.
"""

from __future__ import annotations

import collections
import importlib.util
import typing

import pytest

pytestmark = [
    pytest.mark.tensorflow,
    pytest.mark.slow,
    pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent"),
]

Base = collections.namedtuple("Base", ["a", "b"])


class Plain(Base):
    def total(self) -> object:
        return self.a + self.b


class Validating(collections.namedtuple("Validating", ["a", "b"])):  # graph_nets' GraphsTuple
    def __init__(self, *args: object, **kwargs: object) -> None:
        del args, kwargs
        super().__init__()
        if self.a is None:
            raise ValueError("a")


class Defaulted(Base):
    def __new__(cls, a: object, b: object = None) -> Defaulted:
        return super().__new__(cls, a, b)


class Typed(typing.NamedTuple):
    a: object
    b: object


class NewTransform(Base):
    def __new__(cls, a: object, b: object) -> NewTransform:
        return super().__new__(cls, a, b + 1)  # type: ignore[operator]


class NewFewer(Base):
    def __new__(cls, a: object) -> NewFewer:
        return super().__new__(cls, a, a * 2)  # type: ignore[operator]


class NewKeyword(Base):
    def __new__(cls, *, a: object, b: object) -> NewKeyword:
        return super().__new__(cls, a, b)


class InitExtra(Base):
    note: object

    def __new__(cls, a: object, b: object, note: object = None) -> InitExtra:
        return super().__new__(cls, a, b)

    def __init__(self, a: object, b: object, note: object = None) -> None:
        super().__init__()
        self.note = note


def _state(x: object) -> tuple[object, ...]:
    """The class, the fields' values and the extra attribute of a rebuilt named tuple."""
    fields = tuple(float(v) for v in x)  # type: ignore[attr-defined]
    return (type(x), fields, getattr(x, "note", "-"))


def _returned(make: typing.Callable[[], object]) -> object:
    import tensorflow as tf

    try:
        return _state(tf.function(make, autograph=False)())
    except TypeError:
        return TypeError


def _passed(value: object) -> object:
    import tensorflow as tf

    try:
        return _state(tf.function(lambda x: x, autograph=False)(value))
    except TypeError:
        return TypeError


def test_named_tuples_whose_constructor_takes_the_fields_back_come_back_equal() -> None:
    import tensorflow as tf

    one, two = tf.constant(1.0), tf.constant(2.0)
    for make in (
        lambda: Plain(one, two),
        lambda: Validating(one, two),
        lambda: Defaulted(one, two),
        lambda: Typed(one, two),
    ):
        eager = make()
        assert _returned(make) == _state(eager)
        assert _passed(eager) == _state(eager)


def test_named_tuples_whose_constructor_changes_or_needs_more_come_back_wrong() -> None:
    import tensorflow as tf

    one, two = tf.constant(1.0), tf.constant(2.0)
    # `__new__` changing a field: applied again to the rebuilt fields (silently), and on the
    # fields' TensorSpecs for an argument (TypeError)
    transformed = NewTransform(one, two)
    assert _state(transformed)[1] == (1.0, 3.0)
    returned = _returned(lambda: NewTransform(one, two))
    assert returned is TypeError or returned != _state(transformed)
    assert _passed(transformed) is TypeError
    # `__new__` making the fields from fewer arguments, or by keyword only: TypeError
    assert _returned(lambda: NewFewer(one)) is TypeError
    assert _passed(NewFewer(one)) is TypeError
    assert _returned(lambda: NewKeyword(a=one, b=two)) is TypeError
    assert _passed(NewKeyword(a=one, b=two)) is TypeError
    # `__init__` keeping another argument: it comes back None
    extra = InitExtra(one, two, note="n")
    assert _state(extra)[2] == "n"
    assert _returned(lambda: InitExtra(one, two, note="n")) == (InitExtra, (1.0, 2.0), None)
    assert _passed(extra) == (InitExtra, (1.0, 2.0), None)


class OpAttribute(Base):
    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__()
        import tensorflow as tf

        self.n = tf.shape(self.a)[0]


class SumAttribute(Base):
    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__()
        self.total = self.a + self.b


class EagerAttribute(Base):
    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__()
        self.value = self.a.numpy()  # type: ignore[attr-defined]


class StaticAttribute(Base):
    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__()
        self.n = int(self.a.shape[0])  # type: ignore[attr-defined]


def _error(fn: typing.Callable[[], object]) -> str | None:
    try:
        fn()
    except (TypeError, AttributeError) as error:
        return type(error).__name__
    return None


@pytest.mark.parametrize(
    ("cls", "attribute", "error"),
    [
        (OpAttribute, "n", "TypeError"),  # `tf.shape` of a TensorSpec
        (SumAttribute, "total", "TypeError"),  # `TensorSpec + TensorSpec`
        (EagerAttribute, "value", "AttributeError"),  # `.numpy()` of a symbolic tensor
        (StaticAttribute, "n", None),  # a spec's shape is the tensor's
    ],
)
def test_an_init_computing_from_the_fields_fails_for_an_argument_not_for_a_return(
    cls: type, attribute: str, error: str | None
) -> None:
    """`namedtuple_argument_rebuilt_wrong`: passed in, the instance is rebuilt from its
    fields' TensorSpecs first, where only the spec's own answers (`shape`, `dtype`) work;
    built in the body and returned, it is rebuilt from the eager outputs and computes its
    attributes as eagerly (except what cannot run in the body at all, `.numpy()`)."""
    import tensorflow as tf

    a, b = tf.constant([1.0, 2.0, 3.0]), tf.constant([1.0, 1.0, 1.0])
    eager = cls(a, b)

    def read(x: object) -> object:
        return tf.reduce_sum(x.a)  # type: ignore[attr-defined]

    assert _error(lambda: read(eager)) is None
    assert _error(lambda: tf.function(read)(eager)) == error
    if cls is EagerAttribute:
        return
    returned = tf.function(lambda x: cls(x, x * 0.0))(a)
    assert type(returned) is cls
    expected = getattr(cls(a, a * 0.0), attribute)
    assert tf.reduce_all(tf.equal(getattr(returned, attribute), expected))
