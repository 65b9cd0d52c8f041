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
import io
import tokenize
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

Function = ast.FunctionDef | ast.AsyncFunctionDef

IGNORE_MARKER = "hybridize: ignore"
"""A comment holding this text on a `def` line, a decorator line or just above the function
excludes it from every refactoring (the analysis still reports it)."""


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


class SourceIndex:
    """One parse of a file: its functions by qualname and the place of every statement."""

    def __init__(self, text: str, lines: Sequence[str]) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarning about escapes is not our business
            self.tree = ast.parse(text)
        self.lines = lines
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

    @cached_property
    def string_lines(self) -> frozenset[int]:
        """Lines that continue a string begun on an earlier line: a '#' there is no comment."""
        inside: set[int] = set()
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Constant | ast.JoinedStr):
                end = node.end_lineno or node.lineno
                if end > node.lineno:
                    inside.update(range(node.lineno + 1, end + 1))
        return frozenset(inside)

    def is_comment_line(self, line_number: int) -> bool:
        text = self.line(line_number).lstrip()
        return text.startswith("#") and line_number not in self.string_lines

    def line(self, line_number: int) -> str:
        if 1 <= line_number <= len(self.lines):
            return self.lines[line_number - 1]
        return ""

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

    # -- decorators -------------------------------------------------------------------------

    def decorator_lines(self, function: Function) -> list[tuple[int, int]]:
        """For each decorator, its first line (the `@`) and its last line (closing brackets
        and trailing comment included; comment lines after it belong to what follows)."""
        starts = []
        for expr in function.decorator_list:
            line = expr.lineno
            while line > 1 and not self.line(line).lstrip().startswith("@"):
                line -= 1  # `@(` on a line of its own, the expression below it
            starts.append(line)
        spans = []
        for i, expr in enumerate(function.decorator_list):
            end = (starts[i + 1] if i + 1 < len(starts) else function.lineno) - 1
            expr_end = expr.end_lineno or expr.lineno
            while end > expr_end and (
                not self.line(end).strip() or self.line(end).lstrip().startswith("#")
            ):
                end -= 1
            spans.append((starts[i], end))
        return spans

    def first_line(self, function: Function) -> int:
        """The first line of a definition: its first decorator, else its `def`."""
        spans = self.decorator_lines(function)
        return spans[0][0] if spans else function.lineno

    def has_ignore_comment(self, function: Function) -> bool:
        """`# hybridize: ignore` on the `def` line, on a decorator line, or in the comment
        lines just above the function (the places the analysis looks)."""
        first = self.first_line(function)
        top = first
        while top > 1 and (not self.line(top - 1).strip() or self.is_comment_line(top - 1)):
            top -= 1
        body_line = function.body[0].lineno
        region = "".join(self.lines[top - 1 : body_line])
        if IGNORE_MARKER not in region:
            return False
        return any(IGNORE_MARKER in c for c in _header_comments(region, function.lineno - top))


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


def _header_comments(region: str, def_offset: int) -> list[str]:
    """Comments of a definition's leading lines, decorators and header: every comment up to
    the end of the logical line of the `def` (a one-line body's trailing comment included)."""
    comments: list[str] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(region).readline):
            if token.type == tokenize.COMMENT:
                comments.append(token.string)
            elif token.type == tokenize.NEWLINE and token.start[0] > def_offset:
                break
    except (tokenize.TokenError, SyntaxError):
        pass  # the region ends inside a body statement: the header was read whole
    return comments


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
