"""A source file as the refactoring sees it: exact bytes in, exact bytes out.

The analysis decodes files to text and forgets how they were stored. A refactoring must give
every byte it does not mean to change back unchanged: the encoding (a PEP 263 cookie), a UTF-8
byte-order mark, the line endings (LF, CRLF, a lone CR, or a mixture), a missing final newline.
A `Document` keeps the original bytes, the decoded text and its physical lines, and encodes new
text the same way; a file that would not come back byte for byte is refused up front.

A Jupyter notebook (`.ipynb`) is a document too: its text is the module its code cells form
(`hybridize/notebooks.py`), and new text goes back into the cells the edits touch, the rest of
the notebook's JSON byte for byte as it was.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass

from hybridize.analyzer.summaries.sources import decode_source, split_lines
from hybridize.notebook_files import is_notebook
from hybridize.notebooks import Notebook, ends_line
from hybridize.refactor.edits import EditConflict, LineEdit, apply_edits

_ENDING = re.compile(r"\r\n|\r|\n")


def line_ending(line: str) -> str:
    """The ending of one physical line: '\\r\\n', '\\r', '\\n' or '' (last line, no newline)."""
    match = _ENDING.search(line)
    return match.group() if match else ""


@dataclass(frozen=True, slots=True)
class Document:
    """The bytes of a file, their text and how to turn new text back into bytes."""

    raw: bytes
    text: str
    encoding: str
    lines: tuple[str, ...]
    notebook: Notebook | None = None
    """The notebook whose code cells `text` is (None: a Python file)."""

    @classmethod
    def from_bytes(cls, raw: bytes, name: str = "") -> Document | str:
        """The document, or the reason (in words) why it cannot be refactored safely. `name`
        (the file's) says whether the bytes are a notebook's."""
        if is_notebook(name):
            return cls._from_notebook(raw)
        decoded = decode_source(raw)
        if isinstance(decoded, str):
            return decoded
        text, encoding = decoded
        document = cls(raw=raw, text=text, encoding=encoding, lines=tuple(split_lines(text)))
        encoded = document.encode(text)
        if not isinstance(encoded, bytes) or encoded != raw:
            return f"cannot write it back byte for byte in its encoding ({encoding})"
        return document

    @classmethod
    def _from_notebook(cls, raw: bytes) -> Document | str:
        notebook = Notebook.from_bytes(raw)
        if isinstance(notebook, str):
            return notebook
        problem = notebook.unwritable()
        if problem is not None:
            return problem
        text = notebook.text
        return cls(raw, text, "utf-8", tuple(split_lines(text)), notebook)

    def cell_sources(self, edits: Sequence[LineEdit]) -> dict[int, str] | str:
        """A notebook's new cell sources after `edits` of its text, by cell number (an empty
        mapping for a Python file), or why they cannot be put back in the cells."""
        if self.notebook is None:
            return {}
        return notebook_cell_sources(self.notebook, edits)

    @property
    def newline(self) -> str:
        """The line ending new lines get when nothing nearby says otherwise: the most common
        one in the file, LF for a file without any."""
        counts = {"\r\n": 0, "\n": 0, "\r": 0}
        for line in self.lines:
            ending = line_ending(line)
            if ending:
                counts[ending] += 1
        best = max(counts.items(), key=lambda item: item[1])
        return best[0] if best[1] else "\n"

    def ending_of(self, line_number: int) -> str:
        """The ending of the 1-based line `line_number`, or the file's usual one if it has none."""
        if 1 <= line_number <= len(self.lines):
            ending = line_ending(self.lines[line_number - 1])
            if ending:
                return ending
        return self.newline

    def line(self, line_number: int) -> str:
        """The 1-based physical line with its ending ('' past the end)."""
        if 1 <= line_number <= len(self.lines):
            return self.lines[line_number - 1]
        return ""

    def encode(self, text: str, edits: Sequence[LineEdit] = ()) -> bytes | str:
        """Text to bytes in the file's own encoding (a BOM stays a BOM), or why it cannot be.
        A notebook's new text is `edits` of its text, put back into the cells they touch."""
        if self.notebook is not None:
            return self._encode_notebook(self.notebook, text, edits)
        try:
            return text.encode(self.encoding)
        except UnicodeEncodeError as exc:
            return (
                f"the new text has {text[exc.start : exc.end]!r}, which the file's encoding "
                f"({self.encoding}) cannot represent"
            )
        except LookupError:
            return f"unknown encoding {self.encoding!r}"

    def _encode_notebook(
        self, notebook: Notebook, text: str, edits: Sequence[LineEdit]
    ) -> bytes | str:
        sources = notebook_cell_sources(notebook, edits)
        if isinstance(sources, str):
            return f"cannot put the rewrite back into the notebook's cells: {sources}"
        if notebook.new_module_text(sources) != text:
            # The edits do not make `text` (a caller's own text, or a cell magic's cell
            # emptied): writing would lose what the module shows.
            return "cannot put the rewrite back into the notebook's cells"
        return notebook.with_sources(sources)


def notebook_cell_sources(notebook: Notebook, edits: Sequence[LineEdit]) -> dict[int, str] | str:
    """The new source of every cell of `notebook` the module `edits` change, by 1-based cell number, or
    why they cannot be put back into the cells (in words). An edit belongs to the cell of
    its first line; an insertion before a cell's first line goes to that cell, one past
    the module's end to the last cell."""
    contributing = [c for c in notebook.code_cells if c.module_lines]
    if not contributing:
        return "the notebook has no code to edit" if edits else {}
    starts = [c.first_line for c in notebook.cell_map.cells]
    local: dict[int, list[LineEdit]] = {}
    for edit in edits:
        index = max(bisect.bisect_right(starts, edit.start) - 1, 0)
        span = notebook.cell_map.cells[index]
        end_of_cell = span.first_line + span.line_count
        if edit.start > end_of_cell or edit.end > end_of_cell:
            return f"an edit of lines {edit.start}-{edit.end} spans two cells"
        offset = span.first_line - 1
        shifted = LineEdit(edit.start - offset, edit.end - offset, edit.new_text, edit.order)
        cell = contributing[index]
        replaced = range(shifted.start - 1, shifted.end - 1)
        if any(
            cell.module_lines[k].rstrip("\r\n") != cell.lines[k].rstrip("\r\n") for k in replaced
        ):
            return f"an edit of lines {edit.start}-{edit.end} replaces an IPython line"
        local.setdefault(index, []).append(shifted)
    sources: dict[int, str] = {}
    for index, cell_edits in local.items():
        cell = contributing[index]
        try:
            new = apply_edits(cell.lines, cell_edits)
        except EditConflict:
            return "two edits of one cell overlap"
        if not ends_line(cell.lines[-1]):
            # The module's newline after the cell's last line is not the cell's.
            new = new[:-2] if new.endswith("\r\n") else new[:-1] if ends_line(new) else new
        sources[cell.index + 1] = new
    return sources
