"""A line-moving edit above the functions of every check's INVALID examples: their verdicts,
whatever lines their words cite, equal a fresh analysis; and a verdict citing a line of its
file through `cited_lines` is moved, not decided again.

Each example gets a function `_spare` before its first statement that is not an import, which
nothing calls; Enter typed in it moves every line below (the example's functions, their
findings and the lines their words cite) by one. `_spare` is the only edited function, and its
facts reach no other function: the verdict phase looks at it alone (`MovedLines.narrowed`)
unless a verdict below cites a line as digits (`moved_verdicts.cites_lines`: decided again) or
a project-wide fact holds a line.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from hybridize.analyzer.checks import registry
from hybridize.project import Project, ProjectOptions

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_incremental import check

SPARE = "def _spare(x):\n    return x\n\n\n"
ENTER = ("def _spare(x):\n", "def _spare(x):\n    x = x\n")


def _with_spare(source: str) -> str | None:
    """`source` with `_spare` before its first statement that is not an import or the module
    docstring (None: it has none)."""
    body = [
        s
        for s in ast.parse(source).body
        if not isinstance(s, ast.Import | ast.ImportFrom)
        and not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
    ]
    if not body:
        return None
    first = body[0]
    decorators = getattr(first, "decorator_list", [])
    line = min([first.lineno, *(d.lineno for d in decorators)])
    lines = source.splitlines(keepends=True)
    return "".join(lines[: line - 1]) + SPARE + "".join(lines[line - 1 :])


def _examples() -> list[object]:
    return [
        pytest.param(source, id=f"{check.code}-{i}")
        for check in registry().values()
        for i, source in enumerate(check.INVALID)
    ]


@pytest.mark.parametrize("source", _examples())
def test_enter_above_an_examples_functions_equals_a_fresh_analysis(source: str) -> None:
    text = _with_spare(source)
    if text is None:
        pytest.skip("no statement to put a function before")
    project = Project.from_texts({"m.py": text}, ProjectOptions(use_cache=False))
    before = project.results().functions
    solves = project.analysis.incremental_solves
    project.update("m.py", text.replace(*ENTER, 1))
    check(project, "Enter typed in `_spare`")
    assert project.analysis.incremental_solves == solves + 1  # the facts were updated
    project.update("m.py", text)
    check(project, "the line deleted again")
    assert project.results().functions == before


MOVED_CITATIONS = [
    ("HY402", 0, "a variable list read before the model's first call (line of the call)"),
    ("HY407", 0, "a caller's use of the returned Python value (its line)"),
    ("HY408", 0, "the line that reassigns the state read"),
    ("HY412", 0, "the line of the slice with a tensor step"),
    ("HY420", 1, "the line of a helper's distribution"),
    ("HY421", 0, "the line of the tracing call"),
    ("HY422", 0, "the line of the second differentiation"),
    ("HY425", 0, "the line of the layer call without `training=`"),
    ("HY426", 0, "the line of the test's mock"),
    ("HY428", 0, "the line of the backward that keeps the graph"),
    ("HY429", 0, "the caller's line comparing by identity"),
    ("HY431", 0, "the lines of the offset sum and of the op not finite at 0"),
    ("HY431", 2, "the lines of the offset sum and of the op in the caller"),
]
"""Examples whose verdicts cite a line of the example (the words above), each through
`cited_lines`: after Enter above them the phase decides `_spare` alone and moves theirs."""


@pytest.mark.parametrize(
    ("code", "which", "what"), MOVED_CITATIONS, ids=[f"{c}-{i}" for c, i, _ in MOVED_CITATIONS]
)
def test_verdicts_citing_lines_with_their_file_are_moved_not_decided(
    code: str, which: int, what: str
) -> None:
    text = _with_spare(registry()[code].INVALID[which])
    assert text is not None
    project = Project.from_texts({"m.py": text}, ProjectOptions(use_cache=False))
    before = {v.qualname: v for v in project.results().functions}
    cited = [
        v
        for v in before.values()
        if any(f.code == code and "line " in f.message for f in v.findings)
    ]
    assert cited, f"{code}'s example cites no line ({what})"
    project.update("m.py", text.replace(*ENTER, 1))
    check(project, "Enter typed in `_spare`")
    assert project.analysis.looked_at == 1, what
    after = {v.qualname: v for v in project.results().functions}
    for verdict in cited:
        moved = after[verdict.qualname]
        assert moved.line == verdict.line + 1
        assert [f.message for f in moved.findings] != [f.message for f in verdict.findings], (
            "the cited line moved with the edit"
        )
