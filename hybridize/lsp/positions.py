"""Positions at the editor's edge: code-point columns to the negotiated encoding, and back.

The model counts columns in code points (`model.Span`); LSP counts them in the unit the client
and server agreed on at initialisation (UTF-16 unless the client offers another). Lines are
split where Python and LSP both split them (CR, LF, CRLF), so line numbers agree. Text changes
are sent as whole-line replacements computed from the old and new text, so applying them
gives exactly the new text, byte for byte, whatever encoding the positions use.
"""

from __future__ import annotations

import difflib
import functools
from collections.abc import Sequence

from lsprotocol import types

from hybridize.analyzer.summaries.sources import split_lines
from hybridize.model import Span
from hybridize.refactor.document import line_ending


class Lines:
    """A text's physical lines, able to express code-point columns in the client's units."""

    def __init__(self, text: str, encoding: str = types.PositionEncodingKind.Utf16) -> None:
        self.lines = split_lines(text)
        self.encoding = encoding

    def units(self, chars: str) -> int:
        """How many of the client's units `chars` takes."""
        if self.encoding == types.PositionEncodingKind.Utf32:
            return len(chars)
        if self.encoding == types.PositionEncodingKind.Utf8:
            return len(chars.encode("utf-8", "surrogatepass"))
        return len(chars.encode("utf-16-le", "surrogatepass")) // 2

    def content(self, line: int) -> str:
        """The 0-based line without its ending ('' past the end)."""
        if 0 <= line < len(self.lines):
            text = self.lines[line]
            return text[: len(text) - len(line_ending(text))]
        return ""

    def position(self, line: int, column: int) -> types.Position:
        """0-based line and code-point column to an LSP position (clamped to the line)."""
        text = self.content(line)
        return types.Position(line=max(line, 0), character=self.units(text[: max(column, 0)]))

    def column(self, position: types.Position) -> int:
        """An LSP position's character back to a code-point column of its line."""
        text = self.content(position.line)
        counted = 0
        for index, char in enumerate(text):
            if counted >= position.character:
                return index
            counted += self.units(char)
        return len(text)

    def span_range(self, span: Span) -> types.Range:
        """A model span (1-based lines) as an LSP range."""
        return types.Range(
            start=self.position(span.start_line - 1, span.start_col),
            end=self.position(span.end_line - 1, span.end_col),
        )

    def line_range(self, line: int) -> types.Range:
        """The whole of the 1-based `line`, without its ending."""
        return types.Range(
            start=types.Position(line=line - 1, character=0),
            end=self.position(line - 1, len(self.content(line - 1))),
        )

    def line_start(self, index: int) -> types.Position:
        """Where 0-based line `index` begins; `len(lines)` is the end of the text."""
        if index < len(self.lines):
            return types.Position(line=index, character=0)
        last = self.lines[-1] if self.lines else ""
        if last and not line_ending(last):
            # The last line has no newline: the text ends on it, not on a line after it.
            return self.position(len(self.lines) - 1, len(last))
        return types.Position(line=len(self.lines), character=0)


def text_edits(
    old: str, new: str, encoding: str = types.PositionEncodingKind.Utf16
) -> list[types.TextEdit]:
    """Whole-line edits that turn `old` into exactly `new`, in document order; the last few
    pairs are remembered, as an editor asks for the same actions at the cursor again and again
    between two edits of the buffer."""
    return list(_text_edits(old, new, encoding))


@functools.lru_cache(maxsize=32)
def _text_edits(old: str, new: str, encoding: str) -> tuple[types.TextEdit, ...]:
    """Whole-line edits that turn `old` into exactly `new`, in document order.

    A planned change touches a few lines of a long file: the common first and last lines are
    set aside before diffing, so a 2,000-line buffer costs its changed region, not a
    quadratic `difflib` pass over every line (0.85 s per code-action request before)."""
    lines = Lines(old, encoding)
    old_lines: Sequence[str] = lines.lines
    new_lines: Sequence[str] = split_lines(new)
    head = 0
    limit = min(len(old_lines), len(new_lines))
    while head < limit and old_lines[head] == new_lines[head]:
        head += 1
    tail = 0
    while (
        tail < limit - head
        and old_lines[len(old_lines) - 1 - tail] == new_lines[len(new_lines) - 1 - tail]
    ):
        tail += 1
    old_middle = old_lines[head : len(old_lines) - tail]
    new_middle = new_lines[head : len(new_lines) - tail]
    # Between two far-apart changes (an import at the top, a decorator at the end) the middle
    # is most of the file; difflib's popularity heuristic (on from 200 lines: blank lines and
    # other lines repeated everywhere are not anchors) keeps that pass fast (0.48 s -> 0.035 s
    # on a 2,000-line file). The edits still give `new` exactly, only perhaps not the fewest.
    matcher = difflib.SequenceMatcher(a=old_middle, b=new_middle, autojunk=True)
    edits = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        edits.append(
            types.TextEdit(
                range=types.Range(
                    start=lines.line_start(head + i1), end=lines.line_start(head + i2)
                ),
                new_text="".join(new_middle[j1:j2]),
            )
        )
    return tuple(edits)


def apply_text_edits(text: str, edits: Sequence[types.TextEdit], encoding: str) -> str:
    """The text after `edits` (non-overlapping, as a client applies them): for tests and
    for checking an action before it is offered."""
    lines = Lines(text, encoding)
    offsets = [0]
    for line in lines.lines:
        offsets.append(offsets[-1] + len(line))

    def offset(position: types.Position) -> int:
        if position.line >= len(lines.lines):
            return len(text)
        return offsets[position.line] + lines.column(position)

    out = text
    for edit in sorted(edits, key=lambda e: offset(e.range.start), reverse=True):
        out = out[: offset(edit.range.start)] + edit.new_text + out[offset(edit.range.end) :]
    return out
