"""The decorator codemods: add `@tf.function`, remove it, give it an `input_signature`.

Each returns a line edit on the original text (see `edits`):

- adding inserts one line (two with an assumption comment) directly above the `def`, so the
  decorator is the innermost one, below `@staticmethod`, `@classmethod`, `@property` and any
  other decorator, with the indentation and line ending of the `def` line itself;
- removing deletes the decorator's own lines, arguments and trailing comment included, and the
  assumption comment that this tool wrote above it, if it is still there;
- reconfiguring rewrites the decorator expression with `input_signature=[...]` after the
  arguments it already has (parsed and printed by libcst, so layout and comments stay).

The decorator is recognised under the spellings the analysis accepts, which the `Framework`
lists (for TensorFlow: `tf.function`, `tensorflow.function`, `tf.compat.v2.function`), however
the module reaches them: a module alias, `from tensorflow import function` (aliased or not), a
module-level alias (`compile = tf.function`) and a wildcard import from the framework.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence

from hybridize.analyzer.summaries.summarize import dotted_name
from hybridize.refactor.document import Document
from hybridize.refactor.edits import LineEdit
from hybridize.refactor.locate import FoundFunction, Function, SourceIndex
from hybridize.refactor.names import ModuleNames, scope_chain

ASSUMPTION_PREFIX = "# hybridize: "
ASSUMPTION_SUFFIX = "; remove the decorator if not"
ARGUMENT_SUFFIX = "; remove the argument if not"
"""The end of a comment whose only assumption is that of a decorator argument (HY014's
shape-generalising one): the decorator itself rests on nothing assumed."""

_INDENT = re.compile(r"[ \t\f]*")
_SPACES = re.compile(r"\s+")


def callee(decorator: ast.expr) -> ast.expr:
    """`tf.function` in both `@tf.function` and `@tf.function(jit_compile=True)`."""
    return decorator.func if isinstance(decorator, ast.Call) else decorator


class DecoratorFinder:
    """Recognises the compile decorators (`tf.function`) of one module, for the framework its
    `ModuleNames` were read for."""

    def __init__(self, names: ModuleNames, module: ast.Module) -> None:
        self.names = names
        self.module = module

    def is_compile_decorator(self, decorator: ast.expr, chain: Sequence[int]) -> bool:
        """Whether `decorator`, evaluated in the scopes `chain` (see `scope_chain`), is the
        framework's compile decorator (`tf.function`)."""
        name = dotted_name(callee(decorator))
        if name is None:
            return False
        head, _, rest = name.partition(".")
        target = self.names.target_in(head, chain)
        framework = self.names.framework
        if target is not None:
            return framework.is_decorator(f"{target}.{rest}" if rest else target)
        if not rest and head in self.names.decorator_aliases:
            return True
        return (
            self.names.framework_star
            and name == framework.attribute
            and head not in self.names.bound
        )

    def find(self, found: FoundFunction) -> list[int]:
        """Indexes (in `decorator_list`) of the function's compile decorators."""
        chain = scope_chain(found, self.module)
        decorators = found.node.decorator_list
        return [i for i, d in enumerate(decorators) if self.is_compile_decorator(d, chain)]


def assumption_comment(assumptions: Sequence[str], argument_note: str | None = None) -> str:
    """The comment above a speculative decorator, e.g. `# hybridize: assumes x and y are
    tensors (train_step of a Keras Model, called by Keras); remove the decorator if not`;
    `argument_note` is what an argument written with it assumes (it follows the decorator's
    assumptions; alone, the comment says to remove the argument if it does not hold)."""
    parts = []
    for assumption in [*assumptions, *([argument_note] if argument_note else [])]:
        text = _SPACES.sub(" ", "".join(c if c.isprintable() else " " for c in assumption))
        text = text.replace("`", "").strip().rstrip(".;").strip()
        if text:
            parts.append(text)
    body = "; ".join(parts) or "assumes the parameters are tensors"
    suffix = ARGUMENT_SUFFIX if argument_note and not assumptions else ASSUMPTION_SUFFIX
    return f"{ASSUMPTION_PREFIX}{body}{suffix}"


def indentation(document: Document, line: int) -> str:
    """The leading whitespace of the 1-based `line`: what a line inserted above it takes."""
    indent = _INDENT.match(document.line(line))
    return indent.group() if indent is not None else ""


def add_decorator(
    document: Document, function: Function, decorator: str, comment: str | None
) -> LineEdit:
    """Insert `@decorator` (and `comment` above it) right above the `def` line."""
    line = function.lineno
    prefix = indentation(document, line)
    newline = document.ending_of(line)
    inserted = f"{prefix}@{decorator}{newline}"
    if comment is not None:
        inserted = f"{prefix}{comment}{newline}{inserted}"
    return LineEdit(line, line, inserted, order=1)


def remove_decorator(index: SourceIndex, function: Function, position: int) -> LineEdit:
    """Delete one decorator's lines, and the assumption comment just above it if any."""
    first, last = index.decorator_lines(function)[position]
    above = index.line(first - 1).strip()
    if (
        index.is_comment_line(first - 1)
        and above.startswith(ASSUMPTION_PREFIX)
        and above.endswith((ASSUMPTION_SUFFIX, ARGUMENT_SUFFIX))
    ):
        first -= 1
    return LineEdit(first, last + 1, "")


def has_input_signature(decorator: ast.expr) -> bool:
    """Whether the decorator already passes `input_signature` (by keyword or position)."""
    if not isinstance(decorator, ast.Call):
        return False
    positional = [a for a in decorator.args if not isinstance(a, ast.Starred)]
    return len(positional) >= 2 or any(k.arg == "input_signature" for k in decorator.keywords)


def has_keyword(decorator: ast.expr, name: str) -> bool:
    """Whether the decorator call already passes the keyword argument `name`."""
    return isinstance(decorator, ast.Call) and any(k.arg == name for k in decorator.keywords)


def reconfigure_decorator(
    document: Document, decorator: ast.expr, keywords: list[tuple[str, str]]
) -> LineEdit:
    """Rewrite the decorator expression's lines with the `(name, source)` keywords added
    (`input_signature=[...]`, `jit_compile=True`), in that order, after the existing ones."""
    first, last = decorator.lineno, decorator.end_lineno or decorator.lineno
    start = _char_column(document.line(first), decorator.col_offset)
    end = _char_column(document.line(last), decorator.end_col_offset or 0)
    lines = [document.line(n) for n in range(first, last + 1)]
    text = "".join(lines)
    expr_end = len(text) - len(lines[-1]) + end
    from hybridize.refactor.snippet_rewrites import expression_with_keywords  # libcst: lazily

    code = expression_with_keywords(text[start:expr_end], keywords, document.ending_of(first))
    return LineEdit(first, last + 1, text[:start] + code + text[expr_end:])


def _char_column(line: str, utf8_offset: int) -> int:
    """CPython's columns count UTF-8 bytes; text edits count characters."""
    return len(line.encode("utf-8")[:utf8_offset].decode("utf-8", "replace"))
