"""What a wildcard import of a project module binds: `from common import *` where common.py
does `import tensorflow as tf` gives the importing module `tf`, so a decorator added there is
spelled `@tf.function` with no new import (`imports.FrameworkImports`).

The imported module is found among the project's files the way Python would find it for a
script or a package: a relative import from the importer's package, an absolute one from the
importer's folder or any folder above it within the project (nearest first). Its module-level
imports (at the top level of its body or of a module-level `try`) are what the wildcard
import binds, but for private names, names outside a literal `__all__`, and names the module
binds more than once; its own wildcard imports of project modules are followed a few levels.
A module that cannot be found or parsed binds nothing here: the caller then adds an import.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import PurePosixPath

from hybridize.refactor.names import bound_name, import_target

MAX_DEPTH = 3
"""Wildcard imports followed through other modules' wildcard imports, at most."""


def wildcard_bindings(
    texts: Mapping[str, str], importer: str, module: str | None, level: int, depth: int = 0
) -> dict[str, str]:
    """name -> import target for what `from <level dots><module> import *` in the project file
    `importer` binds (`texts`: the project's files by relative path)."""
    found = _module_file(texts, importer, module, level)
    if found is None or depth > MAX_DEPTH:
        return {}
    try:
        tree = ast.parse(texts[found])
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    statements = list(_module_level(tree.body))
    counts: dict[str, int] = {}
    targets: dict[str, str] = {}
    exported = _literal_all(statements)
    for statement in statements:
        for name in _bound_names(statement):
            counts[name] = counts.get(name, 0) + 1
        if isinstance(statement, ast.ImportFrom) and [a.name for a in statement.names] == ["*"]:
            inner = wildcard_bindings(texts, found, statement.module, statement.level, depth + 1)
            for name, inner_target in inner.items():
                counts[name] = counts.get(name, 0) + 1
                targets[name] = inner_target
        elif isinstance(statement, ast.Import | ast.ImportFrom):
            for alias in statement.names:
                target = import_target(statement, alias)
                if target is not None:
                    targets[bound_name(statement, alias)] = target
    return {
        name: target
        for name, target in targets.items()
        if counts.get(name) == 1
        and not name.startswith("_")
        and (exported is None or name in exported)
    }


def _module_file(
    texts: Mapping[str, str], importer: str, module: str | None, level: int
) -> str | None:
    """The project file a module name means from `importer`, or None."""
    parts = module.split(".") if module else []
    folder = PurePosixPath(importer).parent
    if level:
        for _ in range(level - 1):
            folder = folder.parent
        folders = [folder]
    else:
        folders = [folder, *folder.parents]
    for base in folders:
        stem = base.joinpath(*parts) if parts else base
        for candidate in (f"{stem}.py", f"{stem}/__init__.py"):
            name = candidate.removeprefix("./")
            if name in texts and name != importer:
                return name
    return None


def _module_level(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements that run when the module is imported: its body, and the bodies of its
    module-level `try` statements."""
    out: list[ast.stmt] = []
    for statement in body:
        if isinstance(statement, ast.Try):
            out.extend(_module_level(statement.body))
        else:
            out.append(statement)
    return out


def _bound_names(statement: ast.stmt) -> list[str]:
    """The module-level names one statement binds (wildcard imports aside)."""
    if isinstance(statement, ast.Import | ast.ImportFrom):
        return [bound_name(statement, a) for a in statement.names if a.name != "*"]
    if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [statement.name]
    names: list[str] = []
    targets: list[ast.expr] = []
    if isinstance(statement, ast.Assign):
        targets = list(statement.targets)
    elif isinstance(statement, ast.AnnAssign | ast.AugAssign | ast.For):
        targets = [statement.target]
    elif isinstance(statement, ast.With):
        targets = [i.optional_vars for i in statement.items if i.optional_vars is not None]
    for target in targets:
        names.extend(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    return names


def _literal_all(statements: list[ast.stmt]) -> frozenset[str] | None:
    """The names of a literal `__all__ = [...]`; None when the module has no `__all__`; none
    when it builds one some other way (what it holds is not read here)."""
    found: frozenset[str] | None = None
    for statement in statements:
        if "__all__" not in _bound_names(statement):
            continue
        if (
            found is None
            and isinstance(statement, ast.Assign)
            and isinstance(statement.value, ast.List | ast.Tuple)
            and all(isinstance(e, ast.Constant) for e in statement.value.elts)
        ):
            found = frozenset(
                e.value
                for e in statement.value.elts
                if isinstance(e, ast.Constant) and isinstance(e.value, str)
            )
        else:
            return frozenset()
    return found
