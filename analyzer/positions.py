"""Source positions for the libcst nodes the summariser records, without a second libcst walk.

libcst nodes carry no positions, and its PositionProvider costs about twice the parse itself.
CPython's `ast` parser is ten times faster than libcst and records a position on every node.
Both trees hold the same definitions, calls, loops and simple statements in the same source
order, so the n-th `Call` the summariser meets in pre-order is the n-th `ast.Call` sorted by
start (an enclosing call before the calls inside it). `OrdinalPositions` hands out spans in
that order (calls inside f-strings excepted: CPython 3.11 misplaces them, so they take the
enclosing statement's span) and checks each pairing (the callee's name, the definition's name, the statement's
type); on any disagreement it raises `PositionMismatch` and the caller redoes the file with
`MetadataPositions`, libcst's exact but slower provider.
"""

from __future__ import annotations

import ast
from collections import deque
from typing import Protocol

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from hybridize.model import Span

AST_KINDS: dict[type[ast.AST], str] = {
    ast.FunctionDef: "def",
    ast.AsyncFunctionDef: "def",
    ast.ClassDef: "class",
    ast.Call: "call",
    ast.For: "for",
    ast.AsyncFor: "for",
    **{
        t: "stmt"
        for t in (
            ast.Assign,
            ast.AugAssign,
            ast.AnnAssign,
            ast.Delete,
            ast.Global,
            ast.Nonlocal,
            ast.Return,
            ast.Expr,
            ast.Raise,
            ast.Assert,
            ast.Pass,
            ast.Break,
            ast.Continue,
            ast.Import,
            ast.ImportFrom,
        )
    },
}

CST_STATEMENT_NAMES = {
    "Del": "Delete",
}
"""libcst class names of simple statements that `ast` spells differently."""


class PositionMismatch(Exception):
    """The summariser's walk and CPython's tree disagree: use the exact provider instead."""


class Positions(Protocol):
    def take(self, kind: str, node: cst.CSTNode, check: str | None = None) -> Span: ...

    def finish(self) -> None: ...


def _dotted(node: ast.AST) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _check_value(kind: str, node: ast.AST) -> str | None:
    if kind in ("def", "class"):
        return node.name  # type: ignore[attr-defined]
    if kind == "call":
        return _dotted(node.func)  # type: ignore[attr-defined]
    if kind == "stmt":
        return type(node).__name__
    return None


class OrdinalPositions:
    """Spans from `ast`, handed out per kind in the order the summariser asks for them."""

    def __init__(self, text: str, tree: ast.Module | None = None) -> None:
        """`tree`: CPython's tree of `text` when the caller has it already (one parse less)."""
        if tree is None:
            try:
                tree = ast.parse(text)
            except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
                raise PositionMismatch(str(exc)) from exc
        by_kind: dict[str, list[ast.AST]] = {
            "def": [],
            "class": [],
            "call": [],
            "for": [],
            "stmt": [],
        }
        stack: list[ast.AST] = [tree]
        pop, push, node_type, kinds = stack.pop, stack.append, ast.AST, AST_KINDS
        while stack:
            node = pop()
            kind = kinds.get(type(node))
            if kind is not None:
                by_kind[kind].append(node)
            if type(node) is ast.JoinedStr:
                continue  # before 3.12, positions inside f-strings are unreliable: not paired
            # `ast.iter_child_nodes`, inlined (its generators were half of this walk).
            for name in node._fields:
                value = getattr(node, name, None)
                if type(value) is list:
                    for item in value:
                        if isinstance(item, node_type):
                            push(item)
                elif isinstance(value, node_type):
                    push(value)
        self._queues: dict[str, deque[ast.AST]] = {}
        for kind, nodes in by_kind.items():
            nodes.sort(key=_preorder_key)
            self._queues[kind] = deque(nodes)
        self._lines = text.splitlines()

    def take(self, kind: str, node: cst.CSTNode, check: str | None = None) -> Span:
        queue = self._queues[kind]
        if not queue:
            raise PositionMismatch(f"more {kind} nodes than CPython sees")
        found = queue.popleft()
        if kind == "stmt":
            check = CST_STATEMENT_NAMES.get(type(node).__name__, type(node).__name__)
        if check is not None:
            expected = _check_value(kind, found)
            if expected is not None and expected != check:
                raise PositionMismatch(f"{kind}: walked {check!r}, CPython has {expected!r}")
        return self._span(found)

    def finish(self) -> None:
        left = {kind: len(queue) for kind, queue in self._queues.items() if queue}
        if left:
            raise PositionMismatch(f"nodes not walked: {left}")

    def _span(self, node: ast.AST) -> Span:
        line = node.lineno  # type: ignore[attr-defined]
        end_line = node.end_lineno or line  # type: ignore[attr-defined]
        col = node.col_offset  # type: ignore[attr-defined]
        end_col = node.end_col_offset if node.end_col_offset is not None else col  # type: ignore[attr-defined]
        return Span(
            line, self._codepoints(line, col), end_line, self._codepoints(end_line, end_col)
        )

    def _codepoints(self, line: int, col: int) -> int:
        """`ast` columns count UTF-8 bytes; the model counts code points."""
        if line - 1 >= len(self._lines):
            return col
        text = self._lines[line - 1]
        if text.isascii():
            return col
        return len(text.encode("utf-8")[:col].decode("utf-8", errors="ignore"))


class MetadataPositions:
    """libcst's PositionProvider: exact for any walk order, about twice a parse in cost."""

    def __init__(self, module: cst.Module) -> None:
        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        self._positions = wrapper.resolve(PositionProvider)

    def take(self, kind: str, node: cst.CSTNode, check: str | None = None) -> Span:
        rng = self._positions.get(node)
        if rng is None:
            return Span(1, 0, 1, 0)
        return Span(rng.start.line, rng.start.column, rng.end.line, rng.end.column)

    def finish(self) -> None:
        return None


def _preorder_key(node: ast.AST) -> tuple[int, int, int, int]:
    """Source order with an enclosing node before the nodes it contains."""
    return (
        node.lineno,  # type: ignore[attr-defined]
        node.col_offset,  # type: ignore[attr-defined]
        -(node.end_lineno or 0),  # type: ignore[attr-defined]
        -(node.end_col_offset or 0),  # type: ignore[attr-defined]
    )
