"""Text edits: whole physical lines replaced, inserted or deleted, and their unified diff.

Every refactoring is expressed as line edits on the original text, never as a regenerated
file: a line that no edit covers comes out byte for byte as it went in, whatever libcst or a
formatter would have made of it. A line edit maps directly to an LSP `TextEdit` (columns 0 to
0) and to a diff hunk.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from hybridize.analyzer.summaries.sources import split_lines
from hybridize.model import Span


class EditConflict(Exception):
    """Two edits of one file touch the same lines: a bug in the planner, never user input."""


class SnippetSyntaxError(Exception):
    """libcst rejects a snippet of a line that CPython accepted (`snippet_rewrites`): a bug, or
    a construct newer than the libcst this runs with. The file is not refactored."""


@dataclass(frozen=True, slots=True)
class LineEdit:
    """Replace lines `start` to `end` (1-based, end exclusive) by `new_text`.

    `start == end` inserts before line `start` (`len(lines) + 1` appends). `new_text` is whole
    lines with their endings, or '' to delete.
    """

    start: int
    end: int
    new_text: str
    order: int = 0
    """Among insertions at the same place, lower goes first (imports before decorators)."""

    @property
    def span(self) -> Span:
        """The replaced region as a Span: column 0 of `start` to column 0 of `end`."""
        return Span(self.start, 0, self.end, 0)

    @property
    def is_insertion(self) -> bool:
        return self.start == self.end


def apply_edits(lines: Sequence[str], edits: Iterable[LineEdit]) -> str:
    """The text after all edits; raises EditConflict if two of them replace the same line."""
    ordered = sorted(edits, key=lambda e: (e.start, not e.is_insertion, e.order, e.end))
    out: list[str] = []
    position = 1  # next original line to copy
    for edit in ordered:
        if edit.start < position or edit.end < edit.start or edit.end > len(lines) + 1:
            raise EditConflict(f"overlapping or out-of-range edit of lines {edit.start}-{edit.end}")
        out.extend(lines[position - 1 : edit.start - 1])
        if out and edit.new_text and not _ends_line(out[-1]):
            # Inserting after a last line that has no newline: give it one (the file's own).
            out[-1] += _some_newline(lines)
        out.append(edit.new_text)
        position = edit.end
    out.extend(lines[position - 1 :])
    return "".join(out)


def _ends_line(line: str) -> bool:
    return line.endswith(("\n", "\r"))


def _some_newline(lines: Sequence[str]) -> str:
    for line in lines:
        if line.endswith("\r\n"):
            return "\r\n"
        if line.endswith(("\n", "\r")):
            return line[-1]
    return "\n"


def unified_diff(path: str, old: str, new: str, context: int = 3) -> str:
    """A git-style unified diff of one file ('' when equal), with 'No newline at end of file'
    markers so that applying it with `patch` or `git apply` gives the exact bytes."""
    if old == new:
        return ""
    out: list[str] = []
    for line in difflib.unified_diff(
        split_lines(old), split_lines(new), f"a/{path}", f"b/{path}", n=context
    ):
        if line.startswith(("---", "+++")):
            out.append(line.rstrip("\r\n") + "\n")
        elif not _ends_line(line):
            out.append(line + "\n\\ No newline at end of file\n")
        else:
            out.append(line)
    return "".join(out)
