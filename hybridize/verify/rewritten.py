"""Where each rewritten function's code lives in the rewritten copy.

A newly failing test is attributed to the rewritten functions it ran (a profile hook sees a
code object's first line: the first decorator's of a decorated function) and to those its
traceback passes through (a frame's line inside the function's lines). Both need, for every
rewritten function, its file, the line of its `def`, the line of its first decorator and its
last line, in the rewritten text, not in the original one.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.refactor.planned import FilePlan


@dataclass(frozen=True, slots=True)
class RewrittenFunction:
    """A function whose decorators the refactoring changed, located in the rewritten file."""

    file: str
    """Path relative to the analysed root, '/' separators (as in the JSON report)."""
    qualname: str
    def_line: int
    first_line: int
    end_line: int
    change: str
    """'added' (a decorator added), 'removed' (one removed) or 'edited' (both); for a planned
    change, its transformation code (HY010, HY011, HY012)."""

    @property
    def key(self) -> str:
        return str(FunctionKey(self.file, self.qualname))

    def contains(self, line: int) -> bool:
        return self.first_line <= line <= self.end_line


@dataclass(frozen=True, slots=True)
class FunctionSpan:
    """A function's qualname and lines in one module."""

    qualname: str
    def_line: int
    first_line: int
    end_line: int


def function_spans(source: str) -> list[FunctionSpan]:
    """Every function of a module with its qualname (Class.method, outer.inner), `def` line,
    first decorator line and last line."""
    tree = ast.parse(source)
    spans: list[FunctionSpan] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                qualname = f"{prefix}{child.name}"
                first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                end = child.end_lineno or child.lineno
                spans.append(FunctionSpan(qualname, child.lineno, first, end))
                visit(child, qualname + ".")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(tree, "")
    return spans


def planned_rewrites(files: Iterable[FilePlan]) -> list[RewrittenFunction]:
    """Every planned change of `files`, located in its file's new text. A qualname defined
    more than once names the definition nearest the change's original line (a rewrite moves
    a function by the few lines of an added import or decorator)."""
    found: list[RewrittenFunction] = []
    for file_plan in files:
        spans: dict[str, list[FunctionSpan]] = {}
        for span in function_spans(file_plan.new_text):
            spans.setdefault(span.qualname, []).append(span)
        for change in file_plan.changes:
            candidates = spans.get(change.qualname)
            if not candidates:
                continue
            span = min(candidates, key=lambda s: abs(s.def_line - change.line))
            found.append(
                RewrittenFunction(
                    change.file,
                    change.qualname,
                    span.def_line,
                    span.first_line,
                    span.end_line,
                    change.code,
                )
            )
    return found


def write_trace_targets(
    path: Path, functions: Iterable[RewrittenFunction], path_of: Mapping[str, str]
) -> Path:
    """Write the JSON list of code locations the pytest plugin's profile hook looks for
    (`$HYBRIDIZE_VERIFY_TRACE`): each function's key, absolute file (`path_of` maps a report
    file to it), first decorator line and `def` line (either may start its code object)."""
    targets = [
        {
            "key": f.key,
            "path": path_of[f.file],
            "first_line": f.first_line,
            "def_line": f.def_line,
        }
        for f in functions
    ]
    path.write_text(json.dumps(targets), encoding="utf-8")
    return path
