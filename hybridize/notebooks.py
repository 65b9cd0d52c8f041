"""Jupyter notebooks as Python modules: code cells in, one module's text out, and back.

Much deep-learning code lives in `.ipynb` files. The analysis and the refactoring work on a
module's text, so a notebook is read the way ruff reads one: its code cells, in order, form one
module; markdown and raw cells are not part of it; what is not Python is left out without
moving any line: a cell starting with a cell magic (`%%time`) contributes no line at all, and
a line magic (`%matplotlib inline`, `x = %timeit f()`), a shell line (`!pip install ...`,
`files = !ls`) or a help request (`np.sum?`, `??model`) becomes a comment when it is at the
cell's top level (so that a docstring or a `from __future__` import after it stays first) and
a `pass` at its own indentation inside a block (which it may be alone in). A cell whose last line has no newline gets
one in the module. So every line of the module is one line of one cell (`CellMap`), and
reports name it as `nb.ipynb:cell 3:5` (cells counted from 1 over all the notebook's cells,
markdown included, as Jupyter shows them and ruff counts them).

Writing back changes nothing but the edited cells' sources: outputs, metadata, execution
counts, cell ids, key order, the JSON indentation and the final newline stay as they were, and
a source stored as a list of lines stays a list (a string stays a string). The stdlib's `json`
re-serialises the notebook; a notebook whose bytes it cannot reproduce exactly when nothing is
changed (another indentation style, escaped non-ASCII mixed with plain, floats spelled
differently) is analysed but never rewritten (`Notebook.unwritable()` says why). That check
re-serialises the whole notebook (outputs, images), so it is made only for a notebook about to
be rewritten, never for its analysis.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_NOT_PYTHON = re.compile(
    r"""^[ \t]*(?:
        [%!]                                  # line magic, shell line
      | [\w.]+(?:[ \t]*,[ \t]*[\w.]+)*[ \t]*=[ \t]*[%!]   # x = %timeit f(), files = !ls
      | \?{1,2}[\w.*]+[ \t]*$                 # ?np.sum, ??model
      | [\w.*]+\?{1,2}[ \t]*$                 # np.sum?, model??
    )""",
    re.VERBOSE,
)
TOP_LEVEL_PLACEHOLDER = "# IPython"
INDENTED_PLACEHOLDER = "pass  # IPython"
"""What a magic, shell or help line is in the module (after its own indentation)."""


def _lines(text: str) -> list[str]:
    """Physical lines with their endings, as CPython counts them (CR, LF, CRLF)."""
    return _LINE.findall(text)


@dataclass(frozen=True, slots=True)
class CellLines:
    """Where one code cell's lines are in the module: module lines `first_line` to
    `first_line + line_count - 1` are the cell's lines 1 to `line_count`."""

    cell: int
    """The cell's number: 1-based over all the notebook's cells (markdown included)."""
    first_line: int
    line_count: int


@dataclass(frozen=True, slots=True)
class CellPosition:
    """A place in a notebook: a cell (numbered from 1 over all cells) and a line in it."""

    cell: int
    line: int

    def __str__(self) -> str:
        return f"cell {self.cell}:{self.line}"


@dataclass(frozen=True, slots=True)
class CellMap:
    """Module lines <-> (cell, line) for one notebook: the code cells that contribute lines,
    in module order."""

    cells: tuple[CellLines, ...]

    def position(self, line: int) -> CellPosition | None:
        """The cell and line of the 1-based module `line` (None: not a line of any cell)."""
        starts = [c.first_line for c in self.cells]
        index = bisect.bisect_right(starts, line) - 1
        if index < 0:
            return None
        cell = self.cells[index]
        if line >= cell.first_line + cell.line_count:
            return None
        return CellPosition(cell.cell, line - cell.first_line + 1)

    def module_line(self, cell: int, line: int) -> int | None:
        """The module line of the 1-based `line` of cell number `cell` (None: no such line)."""
        for lines in self.cells:
            if lines.cell == cell and 1 <= line <= lines.line_count:
                return lines.first_line + line - 1
        return None

    def where(self, line: int) -> str:
        """`cell C:L` for a module line, or `line N` when no cell holds it."""
        position = self.position(line)
        return str(position) if position is not None else f"line {line}"


@dataclass(frozen=True, slots=True)
class _CodeCell:
    """One code cell as read: its place in the notebook, its lines and their module form."""

    index: int
    """0-based position in the notebook's `cells`."""
    lines: tuple[str, ...]
    """The source's physical lines, as stored (the last one may lack a newline)."""
    module_lines: tuple[str, ...]
    """The lines it contributes to the module (none for a cell magic's cell)."""
    source_is_list: bool


@dataclass(frozen=True, slots=True)
class Notebook:
    """A notebook's bytes, the module its code cells form, and how to write edits back."""

    raw: bytes
    text: str
    """The module: the code cells' lines, concatenated in order."""
    cell_map: CellMap
    _cells: tuple[_CodeCell, ...]
    _json: Any

    @classmethod
    def from_bytes(cls, raw: bytes) -> Notebook | str:
        """The notebook, or why it cannot be read as a Python notebook (in words)."""
        try:
            document = json.loads(raw.decode("utf-8-sig"))
        except UnicodeDecodeError as exc:
            return f"cannot decode the notebook as UTF-8: invalid byte at offset {exc.start}"
        except ValueError as exc:
            return f"not a notebook: invalid JSON ({exc})"
        problem = _not_a_python_notebook(document)
        if problem is not None:
            return problem
        cells: list[_CodeCell] = []
        spans: list[CellLines] = []
        module: list[str] = []
        for index, cell in enumerate(document["cells"]):
            if not isinstance(cell, dict) or cell.get("cell_type") != "code":
                continue
            source = cell.get("source", "")
            if isinstance(source, list) and all(isinstance(s, str) for s in source):
                text, is_list = "".join(source), True
            elif isinstance(source, str):
                text, is_list = source, False
            else:
                return f"not a notebook: cell {index + 1} has a source that is not text"
            lines = tuple(_lines(text))
            contributed = _module_lines(lines)
            cells.append(_CodeCell(index, lines, contributed, is_list))
            if contributed:
                spans.append(CellLines(index + 1, len(module) + 1, len(contributed)))
                module.extend(contributed)
        return cls(raw, "".join(module), CellMap(tuple(spans)), tuple(cells), document)

    def unwritable(self) -> str | None:
        """Why the notebook cannot be rewritten byte for byte but its edited cells (None: it
        can)."""
        if _JsonFormat.detect(self.raw, self._json) is not None:
            return None
        return (
            "its JSON formatting cannot be reproduced exactly (indentation, escapes or number "
            "spelling): it is analysed but not rewritten; save it with Jupyter first"
        )

    @property
    def code_cells(self) -> tuple[_CodeCell, ...]:
        """The code cells as read, in order (what an edit of the module is put back into:
        `hybridize.refactor.document`)."""
        return self._cells

    def with_sources(self, sources: dict[int, str]) -> bytes | str:
        """The notebook's bytes with the given cells' sources (by 1-based cell number)
        replaced, everything else as it was; or why it cannot be written."""
        if not sources:
            return self.raw
        notebook_format = _JsonFormat.detect(self.raw, self._json)
        if notebook_format is None:
            return self.unwritable() or "cannot reproduce its formatting"
        document = json.loads(self.raw.decode("utf-8-sig"))
        for number, text in sources.items():
            cell = document["cells"][number - 1]
            original = next(c for c in self._cells if c.index == number - 1)
            cell["source"] = _lines(text) if original.source_is_list else text
        return notebook_format.dump(document)

    def new_module_text(self, sources: dict[int, str]) -> str:
        """The module the notebook would form with the given cells' sources."""
        module: list[str] = []
        for cell in self._cells:
            text = sources.get(cell.index + 1)
            lines = cell.lines if text is None else tuple(_lines(text))
            module.extend(_module_lines(lines))
        return "".join(module)

    def old_source(self, number: int) -> str:
        """The source of cell number `number` as stored (joined when a list)."""
        cell = next(c for c in self._cells if c.index == number - 1)
        return "".join(cell.lines)


_LINE_NUMBER = re.compile(r"\(line (\d+)\)")


def in_cells(message: str, raw: bytes) -> str:
    """A message about a notebook's module (CPython's "SyntaxError: ... (line 12)") with its
    line as the cell's: "(cell 3, line 2)"."""
    notebook = Notebook.from_bytes(raw)
    if isinstance(notebook, str):
        return message

    def cell_line(match: re.Match[str]) -> str:
        position = notebook.cell_map.position(int(match.group(1)))
        if position is None:
            return match.group()
        return f"(cell {position.cell}, line {position.line})"

    return _LINE_NUMBER.sub(cell_line, message)


def _not_a_python_notebook(document: object) -> str | None:
    """Why a JSON document is not a notebook this module reads (None: it is one)."""
    if not isinstance(document, dict) or not isinstance(document.get("cells"), list):
        if isinstance(document, dict) and "worksheets" in document:
            return (
                "a notebook of nbformat 3 (worksheets) is not read; convert it with "
                "'jupyter nbconvert --to notebook --nbformat 4'"
            )
        return "not a notebook: no 'cells' list in its JSON"
    metadata = document.get("metadata")
    language = None
    if isinstance(metadata, dict):
        info = metadata.get("language_info")
        kernel = metadata.get("kernelspec")
        if isinstance(info, dict) and isinstance(info.get("name"), str):
            language = info["name"]
        elif isinstance(kernel, dict) and isinstance(kernel.get("language"), str):
            language = kernel["language"]
    if language is not None and language.lower() not in ("python", "python3", "ipython"):
        return f"a notebook in {language}, not Python: not analysed"
    return None


def _module_lines(lines: Sequence[str]) -> tuple[str, ...]:
    """A code cell's lines as the module holds them: none for a cell magic's cell, magic,
    shell and help lines as `pass` at their indentation, a newline after the last line."""
    if lines and lines[0].lstrip(" \t").startswith("%%"):
        return ()
    out: list[str] = []
    for line in lines:
        body = line.rstrip("\r\n")
        ending = line[len(body) :] or "\n"
        if _NOT_PYTHON.match(body):
            indent = body[: len(body) - len(body.lstrip(" \t"))]
            body = indent + INDENTED_PLACEHOLDER if indent else TOP_LEVEL_PLACEHOLDER
        out.append(body + ending)
    return tuple(out)


def ends_line(line: str) -> bool:
    return line.endswith(("\n", "\r"))


@dataclass(frozen=True, slots=True)
class _JsonFormat:
    """How a notebook's JSON was written, as `json.dumps` settings that give its bytes back."""

    indent: int | str | None
    ensure_ascii: bool
    final_newline: bool
    bom: bool

    @classmethod
    def detect(cls, raw: bytes, document: object) -> _JsonFormat | None:
        """The settings that reproduce `raw` exactly from `document`, or None."""
        bom = raw.startswith(b"\xef\xbb\xbf")
        text = raw[3:].decode("utf-8") if bom else raw.decode("utf-8")
        second = text.split("\n", 2)[1] if text.count("\n") >= 1 else ""
        indent: int | str | None
        if "\n" not in text.rstrip("\n"):
            indent = None
        else:
            lead = second[: len(second) - len(second.lstrip(" \t"))]
            indent = lead if lead.startswith("\t") else len(lead)
        final_newline = text.endswith("\n")
        ascii_only = text.isascii()
        # ASCII bytes: non-ASCII text was escaped (or there is none); else it was not.
        for ensure_ascii in (True, False) if ascii_only else (False,):
            candidate = cls(indent, ensure_ascii, final_newline, bom)
            if candidate.dump(document) == raw:
                return candidate
        return None

    def dump(self, document: object) -> bytes:
        text = json.dumps(document, indent=self.indent, ensure_ascii=self.ensure_ascii)
        if self.final_newline:
            text += "\n"
        return (b"\xef\xbb\xbf" if self.bom else b"") + text.encode("utf-8")
