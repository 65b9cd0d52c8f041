"""Where a definition's header lies in the text, and the comment that tells us to leave it be.

A definition's decorators, `def` line and the comment lines just above it, read from CPython's
tree and the file's lines (comments are not in the tree). Shared by the summariser, which
records whether a function carries `# hybridize: ignore`, and the refactoring, which edits the
decorator lines and writes that comment: both must agree on where it counts.
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Sequence
from functools import cached_property

Function = ast.FunctionDef | ast.AsyncFunctionDef

IGNORE_MARKER = "hybridize: ignore"
"""A comment holding this text on a `def` line, a decorator line or just above the function
excludes it from every refactoring (the analysis still reports it)."""


class DefinitionLines:
    """A parsed file's lines, read around its definitions."""

    def __init__(self, tree: ast.Module, lines: Sequence[str]) -> None:
        self.tree = tree
        self.lines = lines

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
