"""Static evidence that a library runs a function only inside the graph of a step its own
training loop compiles: the benefit oracle's answer for code the tests call directly but the
library calls only from such steps (no test runs that path, so no probe can see it).

The steps: Keras's `Model.fit`/`evaluate`/`predict` wrap `train_step`/`test_step`/
`predict_step` in a `tf.function` of their own (`make_train_function`; unless the model runs
eagerly), and a library may have a training loop of its own that does the same
(`Library.compiled_steps`: tf-models' `base_trainer.Trainer` runs a task's `train_step`
through orbit's `StandardTrainer`, and its `validation_step` through `StandardEvaluator`, both
`tf.function`-wrapped by default: `use_tf_function=True`, `train_tf_function` /
`eval_tf_function` True in `official/core/config_definitions.py`). A `tf.function` called while
another traces is part of the caller's graph: its decorator adds nothing there.

The rule (`compiled_step_callers`), for a change to a callable object's method (`__call__`,
`call`) of a class C: every function of the library's code (test code aside) that names C
(constructs it) is a method of some class K reached only through `self.`/`super().` calls of
K's methods from methods named as compiled steps, and at least one such function exists. A
name used anywhere else (a module-level function, a method with another entry) is no
evidence: who calls it, and how, is open. A method of C that only C's call reaches (through
`self` calls) counts as that call; plain functions and other methods give no evidence: their
call sites are not followed.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Collection, Iterable
from pathlib import Path

KERAS_COMPILED_STEPS = frozenset({"train_step", "test_step", "predict_step"})
"""Methods of a Keras model its `fit`/`evaluate`/`predict` run as `tf.function`s."""

CALLABLE_METHODS = frozenset({"__call__", "call"})
"""Methods of an object called where it is held: its construction site is its call site."""


def _methods(tree: ast.Module) -> Iterable[tuple[ast.ClassDef, ast.FunctionDef]]:
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    yield node, item


def _names(node: ast.AST, name: str) -> bool:
    return any(
        (isinstance(n, ast.Name) and n.id == name)
        or (isinstance(n, ast.Attribute) and n.attr == name)
        for n in ast.walk(node)
    )


def _self_calls(method: ast.FunctionDef) -> set[str]:
    """The methods it calls on `self` or `super()`."""
    called: set[str] = set()
    for node in ast.walk(method):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            if (isinstance(owner, ast.Name) and owner.id == "self") or (
                isinstance(owner, ast.Call)
                and isinstance(owner.func, ast.Name)
                and owner.func.id == "super"
            ):
                called.add(node.func.attr)
    return called


def module_imports(path: Path, relpath: str) -> set[str]:
    """The dotted names of the modules a Python file imports, at any depth of its code
    (`from a.b import c` imports `a.b` and, when `c` is a module, `a.b.c`: both are given);
    relative imports resolved from `relpath`; empty when it does not parse."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, SyntaxError, ValueError):
        return set()
    return tree_imports(tree, relpath)


def tree_imports(tree: ast.Module, relpath: str) -> set[str]:
    """`module_imports` of a parsed file."""
    package = relpath.split("/")[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package[: len(package) - node.level + 1]
                base = ".".join([*parent, *([base] if base else [])])
            found.add(base)
            found.update(f"{base}.{alias.name}" if base else alias.name for alias in node.names)
    return found


def compiled_step_callers(
    files: Iterable[tuple[str, str]],
    qualname: str,
    steps: Collection[str] = KERAS_COMPILED_STEPS,
    defined_in: str = "",
) -> list[str] | None:
    """The compiled steps (`Class.step`) through which the library reaches a change of
    `qualname` (a method of `CALLABLE_METHODS`), given the library's non-test files as
    (path, source) pairs and the change's own file (`defined_in`: skipped, and only files
    importing its module or the class from it can name the class: another module's class
    of the same name is another class); None when the module docstring's rule finds no such
    evidence."""
    module = defined_in.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
    owner, _, method = qualname.rpartition(".")
    if "." in owner or not owner:
        return None
    if method not in CALLABLE_METHODS and not _called_by_call(files, defined_in, owner, method):
        return None
    pattern = re.compile(rf"\b{re.escape(owner)}\b")
    roots: set[str] = set()
    naming = 0
    for path, source in files:
        if path == defined_in or not pattern.search(source):
            continue
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        if not {module, f"{module}.{owner}"} & tree_imports(tree, path):
            continue
        in_methods: set[int] = set()
        by_class: dict[str, dict[str, ast.FunctionDef]] = {}
        for cls, item in _methods(tree):
            by_class.setdefault(cls.name, {})[item.name] = item
            in_methods.update(id(n) for n in ast.walk(item))
        # a use outside every method (module level, a module function): no evidence
        if any(
            id(n) not in in_methods
            and (
                (isinstance(n, ast.Name) and n.id == owner)
                or (isinstance(n, ast.Attribute) and n.attr == owner)
            )
            for n in ast.walk(tree)
        ):
            return None
        for cls_name, methods in by_class.items():
            for name, item in methods.items():
                if not _names(item, owner):
                    continue
                naming += 1
                reached = _entries(methods, name)
                if not reached or not reached <= set(steps):
                    return None
                roots.update(f"{cls_name}.{r}" for r in reached)
    return sorted(roots) if naming else None


def _called_by_call(
    files: Iterable[tuple[str, str]], defined_in: str, owner: str, method: str
) -> bool:
    """Whether a method of class `owner` (in `defined_in`) is reached only through `self`
    calls from its `CALLABLE_METHODS` (a helper of the object's call)."""
    for path, source in files:
        if path != defined_in:
            continue
        methods = {
            item.name: item for cls, item in _methods(ast.parse(source)) if cls.name == owner
        }
        entries = _entries(methods, method) if method in methods else set()
        return bool(entries) and entries <= CALLABLE_METHODS
    return False


def _entries(methods: dict[str, ast.FunctionDef], start: str) -> set[str]:
    """The methods of a class from which `start` is reached through `self`/`super()` calls
    and that no other of its methods calls (its entries), `start` itself when none calls it;
    a cycle's methods count as called."""
    callers: dict[str, set[str]] = {name: set() for name in methods}
    for name, item in methods.items():
        for called in _self_calls(item):
            if called in callers and called != name:
                callers[called].add(name)
    entries: set[str] = set()
    seen = {start}
    level = [start]
    while level:
        following: list[str] = []
        for name in level:
            if not callers[name]:
                entries.add(name)
            for caller in sorted(callers[name] - seen):
                seen.add(caller)
                following.append(caller)
        level = following
    return entries
