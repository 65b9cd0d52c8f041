"""No analyzer module builds a symbolic value, an atom or a reference by hand, nor dispatches
on an untyped kind.

The vocabulary modules (`summaries/syms.py`, `facts/values.py`, `facts/refs.py`) give every
kind a constructor (`tensor_atom(dtype, shape)`, `attr_sym(base, name)`...) and a typed kind
(`AtomKind`, `SymKind`, `RefKind`). A tuple literal such as `("tensor", dtype, shape)` written
elsewhere repeats the layout those modules own, and `kind = atom[0]` gives mypy a kind of any
value, where `kind: AtomKind = atom[0]` lets its strict equality reject a kind no atom has.
Modules still holding such literals or dispatches are listed with their number: it may only
go down. (Some literals counted are records of their module named by a kind's word, such as
a call's `("class", key)` target: they count all the same, to be given a type of their own.)
"""

from __future__ import annotations

import ast
from collections import Counter
from functools import cache
from pathlib import Path
from typing import get_args

import pytest

from hybridize.analyzer.facts.refs import RefKind
from hybridize.analyzer.facts.values import AtomKind
from hybridize.analyzer.summaries.syms import SymKind

REPO = Path(__file__).resolve().parents[2]
HYBRIDIZE = REPO / "hybridize"

VOCABULARIES = frozenset(
    {
        "hybridize/analyzer/summaries/syms.py",
        "hybridize/analyzer/facts/values.py",
        "hybridize/analyzer/facts/refs.py",
    }
)
"""The modules that define the kinds: they alone write a kind's tuple."""

KINDS = frozenset(get_args(AtomKind)) | frozenset(get_args(SymKind)) | frozenset(get_args(RefKind))

KIND_LITERALS_LEFT = {
    "hybridize/analyzer/facts/effects.py": 3,  # its own origins (`Origin`)
    "hybridize/analyzer/facts/evaluator.py": 2,  # a call's targets: ("class", key)
    "hybridize/analyzer/facts/frozen_state.py": 2,  # its `StateKey` constructors
    "hybridize/analyzer/facts/retracing.py": 2,  # its own cycle markers
    "hybridize/analyzer/facts/solver.py": 1,  # fact names, no value
    "hybridize/analyzer/frameworks/output_shapes.py": 1,  # argument names, no value
    "hybridize/analyzer/summaries/summarize.py": 3,  # its assignment targets (`Target`)
}
"""Modules still writing kind tuples by hand, and how many each holds."""

UNTYPED_DISPATCHES_LEFT = {
    "hybridize/compiler/render_html.py": 1,
}
"""Modules still reading `kind = x[0]` without a typed kind, and how many such reads each holds."""

POSITIONAL_READS_LEFT = {
    "hybridize/analyzer/decisions/benefit.py": 1,
    "hybridize/analyzer/engine.py": 1,
    "hybridize/analyzer/facts/array_strings.py": 1,
    "hybridize/analyzer/facts/callgraph.py": 4,
    "hybridize/analyzer/facts/candidacy.py": 2,
    "hybridize/analyzer/facts/distribution_numbers.py": 1,
    "hybridize/analyzer/facts/double_backward.py": 1,
    "hybridize/analyzer/facts/effects.py": 2,
    "hybridize/analyzer/facts/evaluator.py": 6,
    "hybridize/analyzer/facts/frozen_state.py": 7,
    "hybridize/analyzer/facts/hashability.py": 1,
    "hybridize/analyzer/facts/helper_safety.py": 9,
    "hybridize/analyzer/facts/loop_shapes.py": 1,
    "hybridize/analyzer/facts/mocked_torch_apis.py": 1,
    "hybridize/analyzer/facts/nested_compiled.py": 1,
    "hybridize/analyzer/facts/patched_callees.py": 1,
    "hybridize/analyzer/facts/predicates.py": 1,
    "hybridize/analyzer/facts/resolve.py": 2,
    "hybridize/analyzer/facts/returns.py": 4,
    "hybridize/analyzer/facts/safety.py": 8,
    "hybridize/analyzer/facts/seeded_random.py": 1,
    "hybridize/analyzer/facts/signatures.py": 8,
    "hybridize/analyzer/facts/solver.py": 1,
    "hybridize/analyzer/facts/test_parameters.py": 2,
    "hybridize/analyzer/facts/tracing_callers.py": 1,
    "hybridize/analyzer/facts/varying_shapes.py": 1,
    "hybridize/analyzer/facts/wrapped_callables.py": 2,
    "hybridize/analyzer/frameworks/shapes.py": 1,
    "hybridize/analyzer/frameworks/tensorflow_dtypes.py": 1,
    "hybridize/analyzer/frameworks/torch_dtypes.py": 2,
    "hybridize/analyzer/summaries/summarize.py": 2,
}
"""Modules still reading a tested kind's fields by position (`positional_reads`)."""


def is_kind_literal(node: ast.AST) -> bool:
    """A tuple display naming a kind first whose other elements are no mere strings: a
    value built by hand (`("lit", "int", None)`, `("symbolic",)`), not a set of kinds tested
    at once (`("tensor", "variable")`)."""
    if not isinstance(node, ast.Tuple) or not node.elts:
        return False
    first = node.elts[0]
    if not (isinstance(first, ast.Constant) and first.value in KINDS):
        return False
    rest = node.elts[1:]
    return not rest or not all(
        isinstance(e, ast.Constant) and isinstance(e.value, str) for e in rest
    )


def is_untyped_dispatch(node: ast.AST) -> bool:
    """`kind = x[0]`: a kind read with no type (an annotated `kind: AtomKind = x[0]` is typed)."""
    return (
        isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
        and node.targets[0].id == "kind"
        and isinstance(node.value, ast.Subscript)
        and isinstance(node.value.slice, ast.Constant)
        and node.value.slice.value == 0
    )


def positional_reads(node: ast.AST) -> int:
    """In `is_attr(x) and x[2] ...`, the fields of `x` read by position after its kind is
    tested: the vocabulary names them (`attr_name(x)`). A read whose own test narrows the
    field's type (`x[2] is not None`, then `x[2]` used as a key) stays by position: a call's
    result does not narrow."""
    if not isinstance(node, ast.BoolOp) or not isinstance(node.op, ast.And):
        return 0
    found = 0
    for i, value in enumerate(node.values):
        if not (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Name)
            and value.func.id.startswith("is_")
            and len(value.args) == 1
        ):
            continue
        tested = ast.dump(value.args[0])
        for later in node.values[i + 1 :]:
            for sub in ast.walk(later):
                if (
                    isinstance(sub, ast.Subscript)
                    and ast.dump(sub.value) == tested
                    and isinstance(sub.slice, ast.Constant)
                    and isinstance(sub.slice.value, int)
                    and sub.slice.value >= 1
                ):
                    found += 1
    return found


def counts(source: str) -> tuple[int, int, int]:
    """The kind literals, the untyped kind dispatches and the fields read by position after
    a kind test, of a module."""
    nodes = list(ast.walk(ast.parse(source)))
    return (
        sum(map(is_kind_literal, nodes)),
        sum(map(is_untyped_dispatch, nodes)),
        sum(map(positional_reads, nodes)),
    )


@cache
def found() -> tuple[Counter[str], Counter[str], Counter[str]]:
    literals: Counter[str] = Counter()
    dispatches: Counter[str] = Counter()
    reads: Counter[str] = Counter()
    for path in sorted(HYBRIDIZE.rglob("*.py")):
        name = path.relative_to(REPO).as_posix()
        if name in VOCABULARIES:
            continue
        literals[name], dispatches[name], reads[name] = counts(path.read_text(encoding="utf-8"))
    return +literals, +dispatches, +reads


def grown(now: Counter[str], allowed: dict[str, int]) -> dict[str, tuple[int, int]]:
    return {
        name: (count, allowed.get(name, 0))
        for name, count in now.items()
        if count > allowed.get(name, 0)
    }


def test_no_module_adds_a_kind_literal() -> None:
    literals, _, _ = found()
    assert not grown(literals, KIND_LITERALS_LEFT), (
        "build values with the vocabulary's constructors (values.py: tensor_atom, obj_atom...; "
        "syms.py: attr_sym...), not tuple literals; (found, allowed) per module: "
        f"{grown(literals, KIND_LITERALS_LEFT)}"
    )


def test_no_module_adds_an_untyped_kind_dispatch() -> None:
    _, dispatches, _ = found()
    assert not grown(dispatches, UNTYPED_DISPATCHES_LEFT), (
        "type the kind read (`kind: AtomKind = atom[0]`, or `atom_kind(atom)`); (found, "
        f"allowed) per module: {grown(dispatches, UNTYPED_DISPATCHES_LEFT)}"
    )


def test_no_module_adds_a_positional_read() -> None:
    _, _, reads = found()
    assert not grown(reads, POSITIONAL_READS_LEFT), (
        "read a tested kind's fields by name (`is_attr(x) and attr_name(x) == ...`); (found, "
        f"allowed) per module: {grown(reads, POSITIONAL_READS_LEFT)}"
    )


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('a = ("tensor", None, None)', (1, 0, 0)),
        ('a = ("symbolic",)', (1, 0, 0)),
        ('ok = kind in ("tensor", "variable")', (0, 0, 0)),
        ('a = ("python", "spec")', (0, 0, 0)),
        ('a = ("nokind", 1)', (0, 0, 0)),
        ("kind = atom[0]", (0, 1, 0)),
        ("kind: AtomKind = atom[0]", (0, 0, 0)),
        ("kind = atom[1]", (0, 0, 0)),
        ('ok = is_attr(s.callee) and s.callee[2] == "x"', (0, 0, 1)),
        ('ok = is_attr(s) and attr_name(s) == "x"', (0, 0, 0)),
        ("ok = is_attr(s) and t[2]", (0, 0, 0)),
    ],
)
def test_literals_and_dispatches_are_found(source: str, expected: tuple[int, int, int]) -> None:
    assert counts(source) == expected
