"""Finding a verdict's function in a file, and the comment that tells us to leave it be.

The file is read with CPython's own parser (`ast`), which is several times faster than a
concrete syntax tree and gives every statement's lines; the text edits work on whole lines, so
nothing finer is needed, and the rare rewrite inside a line parses just that snippet with libcst.

Verdicts name functions the way the analysis does: `Class.method`, `outer.inner`, classes and
functions only, compound statements (`if`, `try`, `with`, loops) transparent, no `<locals>`.
A qualname can name several definitions (a function redefined, or defined in both branches of
an `if`): the verdict's `def` line then picks one; a unique qualname is found whatever its line,
so that a plan can be made again on the refactored text, where lines have moved.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from hybridize.analyzer.summaries.definition_lines import IGNORE_MARKER, DefinitionLines, Function
from hybridize.analyzer.summaries.parse_guard import take_parse

__all__ = ["IGNORE_MARKER", "FoundFunction", "Function", "Place", "SourceIndex", "locate"]


@dataclass(frozen=True, slots=True)
class FoundFunction:
    """A function definition and the definitions around it (outermost first)."""

    qualname: str
    node: Function
    parents: tuple[ast.AST, ...]


@dataclass(frozen=True, slots=True)
class Place:
    """Where a statement sits: the node owning the block and the block itself."""

    owner: ast.AST
    block: list[ast.stmt]
    index: int


class SourceIndex(DefinitionLines):
    """One parse of a file: its functions by qualname and the place of every statement."""

    def __init__(self, text: str, lines: Sequence[str]) -> None:
        super().__init__(take_parse(text), lines)
        self.functions: dict[str, list[FoundFunction]] = {}
        self.places: dict[int, Place] = {}
        self._walk(self.tree, self.tree.body, "", ())

    def _walk(
        self, owner: ast.AST, block: list[ast.stmt], prefix: str, parents: tuple[ast.AST, ...]
    ) -> None:
        for index, statement in enumerate(block):
            self.places[id(statement)] = Place(owner, block, index)
            if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
                qualname = prefix + statement.name
                found = FoundFunction(qualname, statement, parents)
                self.functions.setdefault(qualname, []).append(found)
                self._walk(statement, statement.body, qualname + ".", (*parents, statement))
            elif isinstance(statement, ast.ClassDef):
                inner = f"{prefix}{statement.name}."
                self._walk(statement, statement.body, inner, (*parents, statement))
            else:
                for child in _blocks(statement):
                    self._walk(statement, child, prefix, parents)

    def place(self, statement: ast.stmt) -> Place:
        return self.places[id(statement)]

    def logical_lines(self, statement: ast.stmt) -> tuple[int, int]:
        """The first and last physical line of the logical line holding `statement`, which
        may share it with others (`import os; import sys`)."""
        place = self.place(statement)
        block, first, last = place.block, place.index, place.index
        while first > 0 and block[first - 1].end_lineno == block[first].lineno:
            first -= 1
        while last + 1 < len(block) and block[last].end_lineno == block[last + 1].lineno:
            last += 1
        return block[first].lineno, block[last].end_lineno or block[last].lineno


def _blocks(statement: ast.stmt) -> list[list[ast.stmt]]:
    """The statement lists nested in a compound statement."""
    blocks: list[list[ast.stmt]] = []
    for name in ("body", "orelse", "finalbody"):
        value = getattr(statement, name, None)
        if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
            blocks.append(value)
    for handler in getattr(statement, "handlers", ()):
        blocks.append(handler.body)
    for case in getattr(statement, "cases", ()):
        blocks.append(case.body)
    return blocks


def locate(
    functions: Mapping[str, Sequence[FoundFunction]], qualname: str, line: int
) -> FoundFunction | str:
    """The definition a verdict names, or why it cannot be told apart (in words)."""
    candidates = functions.get(qualname, ())
    if not candidates:
        return f"no definition of `{qualname}` in the file"
    at_line = [c for c in candidates if c.node.lineno == line]
    if len(at_line) == 1:
        return at_line[0]
    if len(candidates) == 1:
        return candidates[0]
    return f"`{qualname}` is defined {len(candidates)} times and none is at line {line}"
