"""Source positions for libcst nodes, without libcst's PositionProvider.

libcst nodes carry no positions, and its PositionProvider costs about twice the parse itself.
CPython's `ast` parser is ten times faster than libcst and records positions on every node. Both
trees contain the same definitions, calls and statements in the same source order, so the n-th
libcst `Call` of a file (in pre-order) is the n-th `ast.Call` (sorted by start, outer first).
This module pairs them up by kind and order. Should the counts ever disagree (they do not for
any grammar both parsers accept), it falls back to PositionProvider for that file.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from hybridize.model import Span

CST_KINDS: dict[type[cst.CSTNode], str] = {
    cst.FunctionDef: "def",
    cst.ClassDef: "class",
    cst.Call: "call",
    cst.For: "for",
    cst.Assign: "assign",
    cst.AugAssign: "augassign",
    cst.AnnAssign: "annassign",
    cst.Del: "del",
    cst.Global: "global",
    cst.Nonlocal: "nonlocal",
    cst.Return: "return",
    cst.Attribute: "attribute",
    cst.Subscript: "subscript",
}

AST_KINDS: dict[type[ast.AST], str] = {
    ast.FunctionDef: "def",
    ast.AsyncFunctionDef: "def",
    ast.ClassDef: "class",
    ast.Call: "call",
    ast.For: "for",
    ast.AsyncFor: "for",
    ast.Assign: "assign",
    ast.AugAssign: "augassign",
    ast.AnnAssign: "annassign",
    ast.Delete: "del",
    ast.Global: "global",
    ast.Nonlocal: "nonlocal",
    ast.Return: "return",
    ast.Attribute: "attribute",
    ast.Subscript: "subscript",
}


def _ast_span(node: ast.AST) -> Span:
    return Span(
        node.lineno,  # type: ignore[attr-defined]
        node.col_offset,  # type: ignore[attr-defined]
        node.end_lineno or node.lineno,  # type: ignore[attr-defined]
        node.end_col_offset if node.end_col_offset is not None else node.col_offset,  # type: ignore[attr-defined]
    )


def _utf8_to_codepoint_columns(lines: list[str]) -> Callable[[int, int], int]:
    """`ast` columns are UTF-8 byte offsets; the model wants code points."""

    def convert(line: int, col: int) -> int:
        if line - 1 >= len(lines):
            return col
        text = lines[line - 1]
        if text.isascii():
            return col
        return len(text.encode("utf-8")[:col].decode("utf-8", errors="ignore"))

    return convert


class _Collector(cst.CSTVisitor):
    def __init__(self) -> None:
        self.by_kind: dict[str, list[cst.CSTNode]] = {k: [] for k in set(CST_KINDS.values())}

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.Import | cst.ImportFrom):
            return False  # libcst spells dotted module names as Attribute nodes; ast does not
        kind = CST_KINDS.get(type(node))
        if kind is not None:
            self.by_kind[kind].append(node)
        return True


class PositionIndex:
    """Maps libcst nodes of one module to spans; built on first use."""

    def __init__(self, module: cst.Module, text: str) -> None:
        self._module = module
        self._text = text
        self._spans: dict[int, Span] | None = None

    def span(self, node: cst.CSTNode) -> Span:
        """The node's span; (1, 0, 1, 0) for a node kind this index does not track."""
        if self._spans is None:
            self._spans = self._build()
        return self._spans.get(id(node), Span(1, 0, 1, 0))

    def _build(self) -> dict[int, Span]:
        collector = _Collector()
        self._module.visit(collector)
        try:
            tree = ast.parse(self._text)
        except (SyntaxError, ValueError, RecursionError):
            return self._fallback()
        ast_by_kind: dict[str, list[ast.AST]] = {k: [] for k in set(AST_KINDS.values())}
        for node in ast.walk(tree):
            kind = AST_KINDS.get(type(node))
            if kind is not None:
                ast_by_kind[kind].append(node)
        to_codepoints = _utf8_to_codepoint_columns(self._text.splitlines())
        spans: dict[int, Span] = {}
        for kind, cst_nodes in collector.by_kind.items():
            ast_nodes = ast_by_kind[kind]
            if len(ast_nodes) != len(cst_nodes):
                return self._fallback()
            ast_nodes.sort(key=_preorder_key)
            for cst_node, ast_node in zip(cst_nodes, ast_nodes, strict=True):
                raw = _ast_span(ast_node)
                spans[id(cst_node)] = Span(
                    raw.start_line,
                    to_codepoints(raw.start_line, raw.start_col),
                    raw.end_line,
                    to_codepoints(raw.end_line, raw.end_col),
                )
        return spans

    def _fallback(self) -> dict[int, Span]:
        wrapper = MetadataWrapper(self._module, unsafe_skip_copy=True)
        positions = wrapper.resolve(PositionProvider)
        spans: dict[int, Span] = {}
        for node, rng in positions.items():
            if type(node) in CST_KINDS:
                spans[id(node)] = Span(
                    rng.start.line, rng.start.column, rng.end.line, rng.end.column
                )
        return spans


def _preorder_key(node: ast.AST) -> tuple[int, int, int, int]:
    """Source order with an enclosing node before the nodes it contains."""
    span = _ast_span(node)
    return (span.start_line, span.start_col, -span.end_line, -span.end_col)
