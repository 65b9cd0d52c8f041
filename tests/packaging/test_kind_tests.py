"""No analyzer module tests the kind of a symbolic value, an atom or a reference by position.

Symbolic values (`Sym`), atoms (`Atom`) and references (`Ref`) are tuples whose first element
names their kind. A module that writes `sym[0] == "attr"` repeats the layout the vocabulary
modules own (`summaries/syms.py` for `Sym`, `facts/values.py` for `Atom`,
`facts/refs.py` for `Ref`) and gets nothing from mypy; `is_attr(sym)`
narrows `sym` to the kind's typed shape, and `kind_of(x) in (...)` tests several kinds at
once. Modules whose own records are tuples named by their first element (not migrated
yet) are listed with the number of such tests they hold: the number may only go down.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ANALYZER = REPO / "hybridize" / "analyzer"

VOCABULARIES = frozenset(
    {
        "hybridize/analyzer/summaries/syms.py",
        "hybridize/analyzer/facts/values.py",
        "hybridize/analyzer/facts/refs.py",
    }
)
"""The modules that define the kinds: they alone test a kind by position."""

KIND_TESTS_LEFT = {
    "hybridize/analyzer/facts/retracing.py": 2,  # is_varies, is_constant: its own `Value`s
    "hybridize/analyzer/facts/solver.py": 1,  # "attrs": a `Dep`, no value
}
"""Modules still testing a kind by position, and how many such tests each holds: none of them
tests a `Sym`, an `Atom` or a `Ref`; each tuple named here is a record of its own module."""


def is_kind_literal(node: ast.expr) -> bool:
    """A string, or a tuple, list or set of strings: what a kind is compared with."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return bool(node.elts) and all(is_kind_literal(e) for e in node.elts)
    return False


def is_first_element(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Subscript)
        and isinstance(node.slice, ast.Constant)
        and node.slice.value == 0
    )


def kind_tests(source: str) -> list[int]:
    """The lines of `x[0] == "kind"` (also `!=`, `in`, `not in`, either side) in a module."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Compare) or len(node.ops) != 1:
            continue
        if not isinstance(node.ops[0], ast.Eq | ast.NotEq | ast.In | ast.NotIn):
            continue
        left, right = node.left, node.comparators[0]
        if (is_first_element(left) and is_kind_literal(right)) or (
            is_first_element(right) and is_kind_literal(left)
        ):
            lines.append(node.lineno)
    return lines


def analyzer_kind_tests() -> Counter[str]:
    found: Counter[str] = Counter()
    for path in sorted(ANALYZER.rglob("*.py")):
        name = path.relative_to(REPO).as_posix()
        if name not in VOCABULARIES:
            found[name] += len(kind_tests(path.read_text(encoding="utf-8")))
    return +found


def test_no_module_adds_a_kind_test_by_position() -> None:
    grown = {
        name: (count, KIND_TESTS_LEFT.get(name, 0))
        for name, count in analyzer_kind_tests().items()
        if count > KIND_TESTS_LEFT.get(name, 0)
    }
    assert not grown, (
        "test kinds with the vocabulary's predicates (summaries/syms.py: is_attr...), not "
        f"`x[0] == 'kind'`; (found, allowed) per module: {grown}"
    )


def test_the_checker_reads_the_analyzer() -> None:
    assert (ANALYZER / "summaries" / "syms.py").is_file()
    assert sum(1 for _ in ANALYZER.rglob("*.py")) > 50


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('if sym[0] == "attr": pass', [1]),
        ('ok = a[0] in ("tensor", "variable")', [1]),
        ('ok = "lit" != x[0]', [1]),
        ("ok = a[0] == b", []),
        ('ok = a[1] == "attr"', []),
        ('ok = a[0] == "x" == b', []),
    ],
)
def test_kind_tests_are_found(source: str, expected: list[int]) -> None:
    assert kind_tests(source) == expected
