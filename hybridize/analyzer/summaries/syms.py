"""The vocabulary of symbolic values (`Sym`): one constructor, one typed shape and one test
per kind, so that no module writes a kind's tuple by hand or tests its kind by position.

A symbolic value stays a plain tuple whose first element names its kind, not an object of a
class per kind: summaries hold about half a million of them on a large project
(tensorflow/models), and they are pickled twice on a cold run (from the worker that
summarised the file, into the cache) and read back from the cache on every run the report
cache misses. One `NamedTuple` per kind measured 21% larger pickles, 1.7x the time to write
them and 2.1x the time to read them (a Python `__new__` per value), about 6% of a cold
analysis's CPU; a frozen dataclass hashes in Python as well (2.7x a tuple's hash), and sets
of values are the solver's hot path. The shapes below give mypy the fields of each kind
(`is_attr(sym)` narrows `sym` to `AttrSym`), at no cost at run time.

    ("?",)                          unknown
    ("param", name)                 a parameter of the enclosing function
    ("lit", type, value)            a Python literal: int, float, str, bytes, bool, none
    ("local", name)                 a local variable (its assignments are in `locals`)
    ("name", name)                  a free name: enclosing function, module global, or builtin
    ("attr", base, name)            attribute read
    ("item", base, index)           subscript read (`index` is a Sym, or ("slice", bounds))
    ("call", n)                     the result of the function's n-th call site
    ("op", operands)                arithmetic, comparison, unary op over operands
    ("op", operands, operator)      the same, where the operator matters: "matmul", "compare"
    ("iter", base)                  one element of iterating `base`
    ("enter", base)                 what `with base as x` binds to `x`
    ("seq", kind, elements)         list/tuple/set display, list comprehension, generator
                                    expression (kind "generator"): a fresh object
    ("dict", values)                dict display (a fresh object), or dict comprehension
    ("dict", values, keys)          a dict display whose keys are all string literals:
                                    `keys[i]` the key of `values[i]` (read back by key)
    ("fresh",)                      a fresh Python object of no interest (set comprehension,
                                    starred target, caught exception)
    ("fstr", shown, formatted)      a string formatted from `formatted` (an f-string, or
                                    `"..." % x`); `shown`, those an f-string converts with
                                    `!s` or `!r`
    ("def", qualname)               a nested function or lambda defined here
    ("class", qualname)             a class defined here
    ("import", source, member)      what an import inside the function binds
    ("cond", (a, b))                `a if c else b`, `a or b`
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal, TypeGuard

Sym = tuple
"""A symbolic value: a small nested tuple, hashable and cheap to pickle, whose first element
names its kind (the module's docstring lists them)."""

SymKind = Literal[
    "?",
    "param",
    "lit",
    "local",
    "name",
    "attr",
    "item",
    "slice",
    "call",
    "op",
    "iter",
    "enter",
    "seq",
    "dict",
    "fresh",
    "fstr",
    "def",
    "class",
    "import",
    "cond",
]
"""The kinds of symbolic value: what a dispatch on a value's kind reads, typed (`kind: SymKind
= sym[0]` where the dispatch is hot, `sym_kind(sym)` elsewhere), so that mypy's strict
equality rejects a comparison with a kind no value has."""

UnknownSym = tuple[Literal["?"]]
ParamSym = tuple[Literal["param"], str]
LitSym = tuple[Literal["lit"], str, object]
LocalSym = tuple[Literal["local"], str]
NameSym = tuple[Literal["name"], str]
AttrSym = tuple[Literal["attr"], Sym, str]
ItemSym = tuple[Literal["item"], Sym, Sym]
SliceIndex = tuple[Literal["slice"], tuple[Sym, ...]]
"""The index of an `ItemSym` read with a slice: its bounds (lower, upper[, step])."""
CallSym = tuple[Literal["call"], int]
OpSym = tuple[Literal["op"], tuple[Sym, ...]] | tuple[Literal["op"], tuple[Sym, ...], str]
IterSym = tuple[Literal["iter"], Sym]
EnterSym = tuple[Literal["enter"], Sym]
SeqSym = tuple[Literal["seq"], str, tuple[Sym, ...]]
DictSym = (
    tuple[Literal["dict"], tuple[Sym, ...]]
    | tuple[Literal["dict"], tuple[Sym, ...], tuple[str, ...]]
)
FreshSym = tuple[Literal["fresh"]]
FstrSym = tuple[Literal["fstr"], tuple[Sym, ...], tuple[Sym, ...]]
DefSym = tuple[Literal["def"], str]
ClassSym = tuple[Literal["class"], str]
ImportSym = tuple[Literal["import"], str, str | None]
CondSym = tuple[Literal["cond"], tuple[Sym, ...]]

UNKNOWN: UnknownSym = ("?",)
FRESH: FreshSym = ("fresh",)
NONE: LitSym = ("lit", "none", None)


def param_sym(name: str) -> ParamSym:
    return ("param", name)


def lit_sym(type_name: str, value: object) -> LitSym:
    """A literal of a Python type ("int", "float", "str", "bytes", "bool", "none",
    "complex"); `value` None when it is not kept (computed, or not worth keeping)."""
    return ("lit", type_name, value)


def local_sym(name: str) -> LocalSym:
    return ("local", name)


def name_sym(name: str) -> NameSym:
    return ("name", name)


def attr_sym(base: Sym, name: str) -> AttrSym:
    return ("attr", base, name)


def item_sym(base: Sym, index: Sym) -> ItemSym:
    return ("item", base, index)


def slice_index(bounds: tuple[Sym, ...]) -> SliceIndex:
    return ("slice", bounds)


def call_sym(index: int) -> CallSym:
    """The result of the function's `index`-th call site (`FunctionSummary.calls`)."""
    return ("call", index)


def op_sym(operands: tuple[Sym, ...], operator: str | None = None) -> OpSym:
    """An operation over `operands`; `operator` only where it matters ("matmul",
    "compare"): without one the value is the shorter tuple."""
    return ("op", operands) if operator is None else ("op", operands, operator)


def iter_sym(base: Sym) -> IterSym:
    return ("iter", base)


def enter_sym(base: Sym) -> EnterSym:
    return ("enter", base)


def seq_sym(kind: str, elements: tuple[Sym, ...]) -> SeqSym:
    """A "list", "tuple" or "set" display, a list comprehension ("list") or a generator
    expression ("generator")."""
    return ("seq", kind, elements)


def dict_sym(values: tuple[Sym, ...], keys: tuple[str, ...] | None = None) -> DictSym:
    """A dict display of `values`; `keys`, their keys where every key is a string literal
    (`{"step": best, "L": 1.0}`: a read by a constant key takes that key's value)."""
    return ("dict", values) if keys is None else ("dict", values, keys)


def dict_keys(sym: DictSym) -> tuple[str, ...] | None:
    """The string keys of a dict display's values, in order; None where not all are known."""
    return sym[2] if len(sym) > 2 else None


def fstr_sym(shown: tuple[Sym, ...], formatted: tuple[Sym, ...]) -> FstrSym:
    return ("fstr", shown, formatted)


def def_sym(qualname: str) -> DefSym:
    return ("def", qualname)


def class_sym(qualname: str) -> ClassSym:
    return ("class", qualname)


def import_sym(source: str, member: str | None) -> ImportSym:
    return ("import", source, member)


def cond_sym(options: tuple[Sym, ...]) -> CondSym:
    return ("cond", options)


def is_unknown_sym(sym: Sym) -> TypeGuard[UnknownSym]:
    return sym[0] == "?"


def is_param(sym: Sym) -> TypeGuard[ParamSym]:
    return sym[0] == "param"


def is_lit(sym: Sym) -> TypeGuard[LitSym]:
    return sym[0] == "lit"


def is_local(sym: Sym) -> TypeGuard[LocalSym]:
    return sym[0] == "local"


def is_name(sym: Sym) -> TypeGuard[NameSym]:
    return sym[0] == "name"


def is_attr(sym: Sym) -> TypeGuard[AttrSym]:
    return sym[0] == "attr"


def is_item(sym: Sym) -> TypeGuard[ItemSym]:
    return sym[0] == "item"


def is_slice(sym: Sym) -> TypeGuard[SliceIndex]:
    return sym[0] == "slice"


def is_call(sym: Sym) -> TypeGuard[CallSym]:
    return sym[0] == "call"


def is_op(sym: Sym) -> TypeGuard[OpSym]:
    return sym[0] == "op"


def is_iter(sym: Sym) -> TypeGuard[IterSym]:
    return sym[0] == "iter"


def is_enter(sym: Sym) -> TypeGuard[EnterSym]:
    return sym[0] == "enter"


def is_seq(sym: Sym) -> TypeGuard[SeqSym]:
    return sym[0] == "seq"


def is_dict(sym: Sym) -> TypeGuard[DictSym]:
    return sym[0] == "dict"


def is_fstr(sym: Sym) -> TypeGuard[FstrSym]:
    return sym[0] == "fstr"


def is_def(sym: Sym) -> TypeGuard[DefSym]:
    return sym[0] == "def"


def is_class(sym: Sym) -> TypeGuard[ClassSym]:
    return sym[0] == "class"


def is_import(sym: Sym) -> TypeGuard[ImportSym]:
    return sym[0] == "import"


def is_cond(sym: Sym) -> TypeGuard[CondSym]:
    return sym[0] == "cond"


# Named fields of the kinds read most: typed, where `sym[2]` says nothing of what it reads.


def lit_type(lit: LitSym) -> str:
    """A literal's Python type ("int", "str"...); a literal atom (`facts/values.py`) has the
    same shape and reads the same."""
    return lit[1]


def lit_value(lit: LitSym) -> object:
    """A literal's value (None when not kept); a literal atom's too."""
    return lit[2]


def sym_name(sym: ParamSym | LocalSym | NameSym) -> str:
    """The name a parameter, a local or a free name reads."""
    return sym[1]


def op_operands(op: OpSym) -> tuple[Sym, ...]:
    """What an operation is computed from, in order (`x - y`: x, y)."""
    return op[1]


def op_operator(op: OpSym) -> str | None:
    """The operator where it matters ("matmul", "compare"), None for the others."""
    return op[2] if len(op) > 2 else None


def call_index(call: CallSym) -> int:
    """The index of a call's site in its function's `calls`."""
    return call[1]


def fstr_formatted(fstr: FstrSym) -> tuple[Sym, ...]:
    """The values a formatted string is built from (`x.shape` of `f"got {x.shape}"`)."""
    return fstr[2]


def seq_elements(seq: SeqSym) -> tuple[Sym, ...]:
    """A display's elements (`a, b` of `[a, b]`)."""
    return seq[2]


def item_base(item: ItemSym) -> Sym:
    """The value subscripted (`x` of `x[i]`)."""
    return item[1]


def item_index(item: ItemSym) -> Sym:
    """The subscript (`i` of `x[i]`; a `SliceIndex` for `x[a:b]`)."""
    return item[2]


def slice_bounds(index: SliceIndex) -> tuple[Sym, ...]:
    """A slice's bounds as written (lower, upper[, step])."""
    return index[1]


def attr_base(attr: AttrSym) -> Sym:
    """The value whose attribute is read (`x` of `x.name`)."""
    return attr[1]


def attr_name(attr: AttrSym) -> str:
    """The attribute read (`name` of `x.name`)."""
    return attr[2]


def seq_kind(seq: tuple[Literal["seq"], str, object]) -> str:
    """A display's kind ("list", "tuple", "set"); a sequence atom's too ("range"...)."""
    return seq[1]


def sym_kind(sym: Sym) -> SymKind:
    """The kind of a symbolic value, typed (see `SymKind`)."""
    kind: SymKind = sym[0]
    return kind


def syms_of_kinds(syms: Iterable[Sym], *kinds: SymKind) -> list[Sym]:
    """The values of `syms` whose kind is one of `kinds`, in their order: one pass that reads
    each kind once. The facts pick the few subscripts, operators or attribute reads among
    the hundreds of values a function's evaluation met, for every function: a predicate
    called per value (`is_item`) cost more than the test itself."""
    return [sym for sym in syms if sym[0] in kinds]


def kind_of(value: tuple) -> str:
    """The kind of a symbolic value, an atom (`facts/values.py`) or a reference
    (`facts/refs.py`): what a test of several kinds at once (`kind_of(atom) in KINDS`) or a
    dispatch on the kind reads."""
    kind: str = value[0]
    return kind
