"""The measured wins written into a *temporary copy* of the program, for the whole-program runs.

Only what the benchmark needs: `@tf.function` (or `@tf.function(jit_compile=True)`) inserted
right above the `def` line, as the innermost decorator, with the def's indentation; for an
existing `tf.function` decorator, `jit_compile=True` added to it. The module's own spelling of
TensorFlow is used (`import tensorflow as tf`, `import tensorflow`, `from tensorflow import
function`); a module without one gets `import tensorflow as tf` after its docstring and
`__future__` imports. Every other line stays byte for byte. The user's files are never written:
`hybridize refactor --from-bench REPORT` is the command that applies the same decisions to them.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Change:
    """A measured win: the function (qualname, `def` line) and the mode that won."""

    qualname: str
    line: int
    mode: str  # "graph" | "xla"
    is_hybrid: bool


def _tensorflow_spelling(tree: ast.Module) -> tuple[str | None, str | None]:
    """(module alias, `function` alias) bound at module level, e.g. ("tf", None)."""
    module_alias = None
    function_alias = None
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "tensorflow" and module_alias is None:
                    module_alias = alias.asname or "tensorflow"
        elif isinstance(node, ast.ImportFrom) and node.module == "tensorflow" and node.level == 0:
            for alias in node.names:
                if alias.name == "function" and function_alias is None:
                    function_alias = alias.asname or "function"
    return module_alias, function_alias


def _find_function(tree: ast.Module, qualname: str, line: int) -> ast.FunctionDef | None:
    by_qualname = None
    stack: list[tuple[ast.AST, str]] = [(tree, "")]
    while stack:
        node, prefix = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.ClassDef):
                name = f"{prefix}{child.name}"
                if isinstance(child, ast.FunctionDef):
                    if child.lineno == line and name == qualname:
                        return child
                    if name == qualname and by_qualname is None:
                        by_qualname = child
                stack.append((child, f"{name}."))
            elif not isinstance(child, ast.AsyncFunctionDef | ast.Lambda):
                stack.append((child, prefix))
    return by_qualname


def _is_tf_function(node: ast.expr, module_alias: str | None, function_alias: str | None) -> bool:
    target = node.func if isinstance(node, ast.Call) else node
    if isinstance(target, ast.Attribute) and target.attr == "function":
        base = target.value
        return (isinstance(base, ast.Name) and base.id in {module_alias, "tf", "tensorflow"}) or (
            isinstance(base, ast.Attribute) and base.attr == "tensorflow"
        )
    return isinstance(target, ast.Name) and target.id == function_alias


def _import_position(tree: ast.Module) -> int:
    """0-based line index after the module docstring and `from __future__` imports."""
    position = 0
    for index, node in enumerate(tree.body):
        is_docstring = (
            index == 0
            and isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        )
        if is_docstring or (isinstance(node, ast.ImportFrom) and node.module == "__future__"):
            position = node.end_lineno or node.lineno
            continue
        break
    return position


def apply_changes(source: str, changes: Iterable[Change]) -> str:
    """`source` with every change applied; raises LookupError for a function not found."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    newline = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
    module_alias, function_alias = _tensorflow_spelling(tree)
    add_import = module_alias is None and function_alias is None
    decorator_base = (
        f"{module_alias}.function" if module_alias else (function_alias or "tf.function")
    )
    edits: list[tuple[int, int, int, int, str]] = []  # (line0, col0, line1, col1, text) 0-based
    for change in changes:
        node = _find_function(tree, change.qualname, change.line)
        if node is None:
            raise LookupError(f"{change.qualname} (line {change.line}) not found")
        if not change.is_hybrid:
            def_line = node.lineno - 1
            text = lines[def_line]
            indent = text[: len(text) - len(text.lstrip())]
            arguments = "(jit_compile=True)" if change.mode == "xla" else ""
            edits.append(
                (def_line, 0, def_line, 0, f"{indent}@{decorator_base}{arguments}{newline}")
            )
            continue
        if change.mode != "xla":
            continue
        for decorator in node.decorator_list:
            if not _is_tf_function(decorator, module_alias, function_alias):
                continue
            end_line = (decorator.end_lineno or decorator.lineno) - 1
            end_col = decorator.end_col_offset or 0
            if not isinstance(decorator, ast.Call):
                edits.append((end_line, end_col, end_line, end_col, "(jit_compile=True)"))
            else:
                existing = [k for k in decorator.keywords if k.arg == "jit_compile"]
                if existing:
                    value = existing[0].value
                    edits.append(
                        (
                            value.lineno - 1,
                            value.col_offset,
                            (value.end_lineno or value.lineno) - 1,
                            value.end_col_offset or 0,
                            "True",
                        )
                    )
                else:
                    separator = ", " if decorator.args or decorator.keywords else ""
                    edits.append(
                        (
                            end_line,
                            end_col - 1,
                            end_line,
                            end_col - 1,
                            f"{separator}jit_compile=True",
                        )
                    )
            break
    # Offsets are UTF-8 byte columns: splice bytes, last edit first.
    encoded = [line.encode("utf-8") for line in lines]
    for line0, col0, line1, col1, text in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        if line0 == line1:
            encoded[line0] = encoded[line0][:col0] + text.encode("utf-8") + encoded[line0][col1:]
        else:
            head = encoded[line0][:col0] + text.encode("utf-8") + encoded[line1][col1:]
            encoded[line0 : line1 + 1] = [head]
    if add_import:
        position = _import_position(tree)
        encoded.insert(position, f"import tensorflow as tf{newline}".encode())
    return b"".join(encoded).decode("utf-8")
