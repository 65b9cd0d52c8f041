"""Whether a file's text is shallow enough for the walks over its tree and for libcst.

The summary's walk recurses over CPython's tree, and the refactoring parses the lines it
rewrites with libcst, which parses in native code with no depth guard: 5,000 nested
brackets, a 20,000-long `and` chain or 5,000 brackets inside an f-string overflow its stack
and kill the whole process (SIGSEGV: no exception, no report), and its time grows with the
square of the nesting (a 1,000-deep dict took more than 30 s). So nesting is measured first,
by means that cannot crash:

- CPython's own parser, which has depth guards of its own (200 nested brackets, 100 levels of
  indentation, its recursion limit) and raises instead of crashing, then an iterative walk of
  its tree. A `BoolOp` counts one level per operand, because libcst nests `a and b and c` as
  pairs; f-strings are entered, because libcst parses their expressions too.
- When CPython rejects the file for another reason (a syntax error), a pass over `tokenize`'s
  tokens bounds the same depth (brackets, plus the operators and trailers chained inside each
  bracket), so that the message says the file is also nested too deeply.

TensorFlow's and Keras' own sources stay below 30 levels (measured over 1,244 files);
`MAX_DEPTH` allows 100. CPython's tree is handed on to the summary: one parse per file.
"""

from __future__ import annotations

import ast
import io
import tokenize
import warnings
from dataclasses import dataclass

MAX_DEPTH = 100
"""Deepest nesting analysed: statements, brackets and chained operators counted together."""

_CHAIN_KEYWORDS = frozenset({"not", "and", "or", "if", "else", "lambda", "await", "in", "is"})
"""Keywords that add a level to the expression they appear in (`not not x`, `a or b or c`)."""

_SEPARATORS = frozenset({",", ";", "=", ":=", "->"})
"""Tokens between sibling expressions: the chain of operators restarts after them."""


@dataclass(frozen=True, slots=True)
class Screened:
    """CPython's tree of the text when it has one, and why the text must go no further."""

    tree: ast.Module | None
    problem: str | None


_last_parsed: tuple[str, ast.Module] | None = None
"""The last text `parse` parsed and its tree, until `take_parse` takes it."""


def parse(text: str) -> ast.Module:
    """CPython's tree of `text`, SyntaxWarnings silenced (invalid escapes and the like are not
    this tool's business), kept for `take_parse` of the same text: the language server
    summarises an edited buffer and then plans it, and the summary and the plan share one
    parse. Only the last tree is kept, so that a run over many files holds no more."""
    global _last_parsed
    tree = _parse(text)
    _last_parsed = (text, tree)
    return tree


def keep_parse(text: str, tree: ast.Module) -> None:
    """Keep `tree`, CPython's tree of `text` made otherwise than by `parse` (an edited
    buffer's, spliced from its previous tree: `statement_edit`), for `take_parse`."""
    global _last_parsed
    _last_parsed = (text, tree)


def take_parse(text: str) -> ast.Module:
    """The tree `parse` kept of `text` (released: a tree of a large file is a hundred
    thousand objects that the cycle collector would walk again and again while it is kept),
    else a new parse."""
    global _last_parsed
    last, _last_parsed = _last_parsed, None
    if last is not None and last[0] == text:
        return last[1]
    return _parse(text)


def _parse(text: str) -> ast.Module:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(text)


def screen(text: str) -> Screened:
    """Parse with CPython and measure the nesting; never raises, never recurses in Python."""
    try:
        tree = parse(text)
    except RecursionError:
        return Screened(None, _too_deep("more levels than CPython's parser accepts"))
    except MemoryError:
        return Screened(None, _too_deep("CPython's parser ran out of stack"))
    except SyntaxError as exc:
        if _is_depth_error(exc):
            return Screened(None, _too_deep(f"{exc.msg} (line {exc.lineno})"))
        return Screened(None, _rejected_and_deep(text, f"{exc.msg} (line {exc.lineno})"))
    except ValueError as exc:  # NUL bytes and the like
        return Screened(None, _rejected_and_deep(text, str(exc)))
    depth = tree_depth(tree)
    if depth > MAX_DEPTH:
        return Screened(None, _too_deep(f"{depth} levels"))
    return Screened(tree, None)


def _is_depth_error(exc: SyntaxError) -> bool:
    message = (exc.msg or "").lower()
    return "too many nested parentheses" in message or "too many levels of indentation" in message


def _rejected_and_deep(text: str, error: str) -> str | None:
    """None when text CPython rejects is shallow (CPython's error message is then the
    report's), else CPython's error and the depth found."""
    deep = token_depth_problem(text)
    if deep is None:
        return None
    return f"SyntaxError: {error}; {deep}"


def _too_deep(detail: str) -> str:
    return (
        f"cannot analyse: nested too deeply ({detail}; the limit is {MAX_DEPTH} levels of "
        "statements, brackets and chained operators)"
    )


def tree_depth(tree: ast.AST) -> int:
    """The deepest level of `tree` as libcst will build it, walked with an explicit stack."""
    deepest = 0
    stack: list[tuple[ast.AST, int]] = [(tree, 1)]
    pop, push = stack.pop, stack.append
    node_type, bool_op = ast.AST, ast.BoolOp
    while stack:
        node, depth = pop()
        if type(node) is bool_op:
            depth += len(node.values) - 1
        if depth > deepest:
            deepest = depth
        depth += 1
        # `ast.iter_child_nodes`, inlined: its two generators per node were half the walk's
        # time on large files (this walk runs on every file before libcst sees it).
        for name in node._fields:
            value = getattr(node, name, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, node_type):
                        push((item, depth))
            elif isinstance(value, node_type):
                push((value, depth))
    return deepest


def token_depth_problem(text: str) -> str | None:
    """The depth check on tokens, for text CPython does not parse; None when it is shallow.

    Each open bracket starts a level with its own count of chained operators, keywords and
    trailers (`.x`, `(...)`, `[...]`); a separator restarts the count, except for a `lambda`'s
    levels, which last until its bracket closes. The depth is the sum over the open levels.
    Text that `tokenize` cannot read is judged by what was read before the failure.
    """
    levels: list[list[int]] = [[0, 0]]  # per open bracket: [chain count, lambda count]
    total = 0  # sum of the counts of all open levels (kept incrementally)
    indent = 0
    deepest = 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            kind, value = token.type, token.string
            level = levels[-1]
            if kind == tokenize.OP:
                if value in "([{":
                    level[0] += 1  # the bracket itself: a call, subscript or display
                    total += 1
                    levels.append([0, 0])
                elif value in ")]}":
                    if len(levels) > 1:
                        closed = levels.pop()
                        total -= closed[0] + closed[1]
                elif value in _SEPARATORS:
                    total -= level[0]
                    level[0] = 0
                else:
                    level[0] += 1
                    total += 1
            elif kind == tokenize.NAME and value in _CHAIN_KEYWORDS:
                if value == "lambda":
                    level[1] += 1
                else:
                    level[0] += 1
                total += 1
            elif kind == tokenize.NEWLINE:
                levels = [[0, 0]]
                total = 0
            elif kind == tokenize.INDENT:
                indent += 1
            elif kind == tokenize.DEDENT:
                indent -= 1
            extra = _fstring_depth(value) if kind == tokenize.STRING else 0
            depth = indent + total + len(levels) + extra
            if depth > deepest:
                deepest = depth
                if deepest > MAX_DEPTH:
                    return (
                        f"nested more than {MAX_DEPTH} levels deep on line {token.start[0]}, "
                        "too deep to parse safely"
                    )
    except (tokenize.TokenError, SyntaxError, ValueError):
        pass
    return None


def _fstring_depth(literal: str) -> int:
    """How deep the brackets inside an f-string's replacement fields go (0 for other strings):
    before Python 3.12 an f-string is one token, yet libcst parses what it holds."""
    prefix = literal[: len(literal) - len(literal.lstrip("rRbBuUfF"))]
    if "f" not in prefix.lower():
        return 0
    depth = deepest = 0
    for char in literal:
        if char in "([{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in ")]}":
            depth = max(depth - 1, 0)
    return deepest
