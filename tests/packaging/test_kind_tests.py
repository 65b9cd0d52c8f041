"""No analyzer module tests the kind of a symbolic value, an atom or a reference by position.

Symbolic values (`Sym`), atoms (`Atom`) and references (`Ref`) are tuples whose first element
names their kind. A module that writes `sym[0] == "attr"` repeats the layout the vocabulary
modules own (`summaries/syms.py` for `Sym`, `facts/refs.py` for `Ref`) and gets nothing from mypy; `is_attr(sym)`
narrows `sym` to the kind's typed shape. The modules not migrated yet are listed with the
number of such tests they still hold: the number may only go down.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ANALYZER = REPO / "hybridize" / "analyzer"

VOCABULARIES = frozenset(
    {"hybridize/analyzer/summaries/syms.py", "hybridize/analyzer/facts/refs.py"}
)
"""The modules that define the kinds: they alone test a kind by position."""

KIND_TESTS_LEFT = {
    "hybridize/analyzer/checks/hy413_received_gradient_tapes.py": 1,
    "hybridize/analyzer/checks/hy417_wrapped_callable_arguments.py": 1,
    "hybridize/analyzer/decisions/benefit.py": 9,
    "hybridize/analyzer/engine.py": 3,
    "hybridize/analyzer/facts/argument_layers.py": 5,
    "hybridize/analyzer/facts/array_strings.py": 5,
    "hybridize/analyzer/facts/atom_bounds.py": 6,
    "hybridize/analyzer/facts/callgraph.py": 15,
    "hybridize/analyzer/facts/candidacy.py": 12,
    "hybridize/analyzer/facts/distribution_numbers.py": 1,
    "hybridize/analyzer/facts/double_backward.py": 4,
    "hybridize/analyzer/facts/effects.py": 21,
    "hybridize/analyzer/facts/evaluator.py": 33,
    "hybridize/analyzer/facts/frozen_state.py": 13,
    "hybridize/analyzer/facts/graph_kernel_gaps.py": 2,
    "hybridize/analyzer/facts/hashability.py": 5,
    "hybridize/analyzer/facts/helper_safety.py": 37,
    "hybridize/analyzer/facts/loop_shapes.py": 8,
    "hybridize/analyzer/facts/nested_compiled.py": 1,
    "hybridize/analyzer/facts/numpy_boundary.py": 5,
    "hybridize/analyzer/facts/patched_callees.py": 11,
    "hybridize/analyzer/facts/predicates.py": 7,
    "hybridize/analyzer/facts/retracing.py": 16,
    "hybridize/analyzer/facts/returns.py": 33,
    "hybridize/analyzer/facts/safety.py": 33,
    "hybridize/analyzer/facts/seeded_random.py": 5,
    "hybridize/analyzer/facts/signatures.py": 14,
    "hybridize/analyzer/facts/solver.py": 15,
    "hybridize/analyzer/facts/test_parameters.py": 7,
    "hybridize/analyzer/facts/tracing_callers.py": 2,
    "hybridize/analyzer/facts/varying_shapes.py": 2,
    "hybridize/analyzer/facts/wrapped_callables.py": 5,
    "hybridize/analyzer/frameworks/shapes.py": 20,
    "hybridize/analyzer/frameworks/tensorflow_dtypes.py": 2,
    "hybridize/analyzer/frameworks/tensorflow_shapes.py": 4,
    "hybridize/analyzer/frameworks/torch_dtypes.py": 1,
    "hybridize/analyzer/summaries/summarize.py": 2,  # its own assignment targets (`Target`)
}
"""Modules still testing kinds by position, and how many such tests each holds."""


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
