"""What a plan says: the planned changes, the notices and one file's plan.

Kept apart from the planner (`file_plan`, which imports the framework tables and libcst's
rewrites) so that plans from the plan cache, and the commands that only show them, do not load
the planner at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.refactor.document import Document
from hybridize.refactor.edits import LineEdit, unified_diff
from hybridize.refactor.selection import TRANSFORMATION_CODES

TRANSFORMATIONS = tuple(TRANSFORMATION_CODES)

NoticeLevel = Literal["skipped", "ignored", "note"]


@dataclass(frozen=True, slots=True)
class PlannedChange:
    """One function's planned transformation, in words."""

    file: str
    qualname: str
    line: int
    transformation: str
    description: str

    @property
    def code(self) -> str:
        return TRANSFORMATION_CODES[self.transformation]

    @property
    def key(self) -> str:
        return str(FunctionKey(self.file, self.qualname))

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.code} {self.qualname}: {self.description}"


@dataclass(frozen=True, slots=True)
class Notice:
    """Why a planned change was not made (`skipped`), was left out on request (`ignored`), or
    was made differently than the verdict suggests (`note`)."""

    file: str
    qualname: str | None
    message: str
    level: NoticeLevel = "skipped"

    def __str__(self) -> str:
        where = str(FunctionKey(self.file, self.qualname)) if self.qualname else self.file
        return f"{where}: {self.message}"


@dataclass(frozen=True, slots=True)
class FilePlan:
    """The planned edits of one file and its text after them."""

    file: str
    path: Path
    document: Document
    edits: tuple[LineEdit, ...]
    changes: tuple[PlannedChange, ...]
    new_text: str

    @property
    def old_text(self) -> str:
        return self.document.text

    def diff(self) -> str:
        """The unified diff of the file; a notebook's, one per changed cell, named
        `nb.ipynb:cell N` (the cells' own sources, as the notebook stores them)."""
        notebook = self.document.notebook
        sources = self.document.cell_sources(self.edits)
        if notebook is None or isinstance(sources, str):
            return unified_diff(self.file, self.old_text, self.new_text)
        return "".join(
            unified_diff(f"{self.file}:cell {number}", notebook.old_source(number), source)
            for number, source in sorted(sources.items())
        )

    def new_bytes(self) -> bytes:
        encoded = self.document.encode(self.new_text, self.edits)
        assert isinstance(encoded, bytes), "checked when the plan was made"
        return encoded
