"""Whether a planned text parses, judged on what the plan's edits touch.

The planner checks that CPython parses every text it writes (a failure is a planner bug,
never the user's input). Parsing the whole new text is the largest part of planning a large
file again after an editor's keystroke (18 ms of a 2,000-line file's 50), while the edits touch
a few lines: a decorator, an import. The original text parsed (its tree is the planner's), and
top-level statements parse independently of each other (the tokenizer starts each at column 0
with no bracket open), so the new text parses exactly when each region of whole top-level
statements around the edits does, with the edits applied. A region that does not parse is
judged again on the whole text, whose error message (and line) is the one the notice gives.
"""

from __future__ import annotations

import ast
import warnings
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from hybridize.refactor.edits import LineEdit, apply_edits


@dataclass(frozen=True, slots=True)
class Lines:
    """1-based lines `first` to `last`, both included."""

    first: int
    last: int


def parse_problem(text: str) -> str | None:
    """None when CPython parses `text`, else what is wrong (a planner bug, never user input)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text)
    except SyntaxError as exc:
        return f"internal error: the result would not parse ({exc.msg}, line {exc.lineno})"
    except (ValueError, RecursionError, MemoryError) as exc:
        return f"internal error: the result would not parse ({type(exc).__name__})"
    return None


def edited_parse_problem(
    tree: ast.Module, lines: Sequence[str], edits: Sequence[LineEdit], new_text: str
) -> str | None:
    """`parse_problem(new_text)`, where `new_text` is `lines` (whose tree is `tree`) with
    `edits` applied, parsing only the top-level statements next to the edits while they do."""
    statements = [_extent(statement) for statement in tree.body]
    for region, inside in _regions(statements, edits, len(lines)):
        shifted = [
            LineEdit(e.start - region.first + 1, e.end - region.first + 1, e.new_text, e.order)
            for e in inside
        ]
        text = apply_edits(lines[region.first - 1 : region.last], shifted)
        if parse_problem(text) is not None:
            return parse_problem(new_text)
    return None


def _extent(statement: ast.stmt) -> Lines:
    """The lines of a top-level statement, its decorators included."""
    decorators = getattr(statement, "decorator_list", ())
    first = min([statement.lineno, *(d.lineno for d in decorators)])
    return Lines(first, statement.end_lineno or statement.lineno)


def _regions(
    statements: list[Lines], edits: Sequence[LineEdit], line_count: int
) -> list[tuple[Lines, list[LineEdit]]]:
    """Disjoint regions of whole lines, each with the edits inside it: every edit's lines with
    a line of margin on each side (an insertion joins the statements before and after it: an
    added decorator parses only with its `def`), widened to the whole top-level statements
    they meet (`statements`, in order)."""
    firsts = [statement.first for statement in statements]
    spans = []
    for edit in edits:
        first, last = max(1, edit.start - 1), max(1, min(line_count, max(edit.end, edit.start)))
        while True:
            # The statements meeting first..last: those starting by `last` that end at `first`
            # or after, a run ending with the last one starting by `last`.
            wider_first, wider_last = first, last
            k = bisect_right(firsts, last) - 1
            while k >= 0 and statements[k].last >= first:
                wider_first = min(wider_first, statements[k].first)
                wider_last = max(wider_last, statements[k].last)
                k -= 1
            if (wider_first, wider_last) == (first, last):
                break
            first, last = wider_first, wider_last
        spans.append((Lines(first, last), edit))
    spans.sort(key=lambda span: (span[0].first, span[0].last))
    merged: list[tuple[Lines, list[LineEdit]]] = []
    for lines, edit in spans:
        if merged and lines.first <= merged[-1][0].last + 1:
            region, inside = merged[-1]
            merged[-1] = (Lines(region.first, max(region.last, lines.last)), [*inside, edit])
        else:
            merged.append((lines, [edit]))
    return merged
