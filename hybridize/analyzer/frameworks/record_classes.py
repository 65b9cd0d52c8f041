"""Class decorators that write `__eq__` and `__hash__`: dataclasses and attrs.

Whether instances of a class can be hashed decides whether `tf.function` can key its trace
cache on them (HY409). A record decorator writes an `__eq__` comparing fields; Python then
needs a `__hash__` consistent with it, and the decorators decide from their keywords:

* `@dataclasses.dataclass`: `eq=True, frozen=False` (the default) sets `__hash__` to None,
  so instances are unhashable; `frozen=True` or `unsafe_hash=True` writes a field hash;
  `eq=False` leaves `__hash__` as inherited (identity for plain classes).
* attrs' classic `@attr.s` and the modern `@attrs.define` / `@attrs.mutable` follow the
  same table with `hash=None` (the default) in the place of `unsafe_hash=False`; `hash=True`
  writes a hash; `hash=False` keeps the inherited one. `@attrs.frozen` is frozen.

An explicit `__hash__` in the class body wins over all of these (dataclass leaves it; the
analysis then does not claim anything).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RecordDecorator:
    """The keywords of one record decorator and their defaults."""

    eq: bool = True
    frozen: bool = False
    eq_keywords: tuple[str, ...] = ("eq",)
    hash_keywords: tuple[str, ...] = ("unsafe_hash",)
    """A literal True there writes a hash whatever `eq` and `frozen` say."""
    hash_false_inherits: bool = False
    """attrs' `hash=False` keeps the inherited `__hash__` (dataclass has no such value)."""
    opened: bool = False
    """`tf.function` opens an argument of the class field by field (TF 2.21's
    `trace_type_builder` types an attrs instance as `tf.nest` does, `attr.has`), never
    hashing it; a dataclass instance is hashed. The receiver of a method is hashed all the
    same (measured: tests/analyzer/test_python_object_arguments_measured.py)."""


_ATTRS_MUTABLE = RecordDecorator(
    eq_keywords=("eq", "cmp"),
    hash_keywords=("hash", "unsafe_hash"),
    hash_false_inherits=True,
    opened=True,
)
_ATTRS_FROZEN = RecordDecorator(
    frozen=True,
    eq_keywords=("eq", "cmp"),
    hash_keywords=("hash", "unsafe_hash"),
    hash_false_inherits=True,
    opened=True,
)

RECORD_DECORATORS: dict[str, RecordDecorator] = {
    "dataclasses.dataclass": RecordDecorator(),
    "attr.s": _ATTRS_MUTABLE,
    "attr.attrs": _ATTRS_MUTABLE,
    "attr.attributes": _ATTRS_MUTABLE,
    "attr.define": _ATTRS_MUTABLE,
    "attr.mutable": _ATTRS_MUTABLE,
    "attrs.define": _ATTRS_MUTABLE,
    "attrs.mutable": _ATTRS_MUTABLE,
    "attr.frozen": _ATTRS_FROZEN,
    "attrs.frozen": _ATTRS_FROZEN,
}
"""Record decorators by their resolved dotted name."""
