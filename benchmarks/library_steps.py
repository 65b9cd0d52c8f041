"""Static evidence that a library runs a function only inside the graph of a step its own
training loop compiles: the benefit oracle's answer for code the tests call directly but the
library calls only from such steps (no test runs that path, so no probe can see it).

The steps: Keras's `Model.fit`/`evaluate`/`predict` wrap `train_step`/`test_step`/
`predict_step` in a `tf.function` of their own (`make_train_function`; unless the model runs
eagerly), and a library may have a training loop of its own that does the same, found in its
code (`library_compiled_steps`): tf-models' orbit `StandardTrainer` passes `self.train_step`
to `tf.function` (`create_train_loop_fn`, `use_tf_function=True` by default), whose override
`base_trainer.Trainer.train_step` calls a task's `train_step`, which the library calls from
nowhere else. A `tf.function` called while another traces is part of the caller's graph: its
decorator adds nothing there.

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


COMPILERS = frozenset({"tf.function", "tensorflow.function"})
"""How a library's code names `tf.function`, called or as a decorator."""

MAX_STEP_ROUNDS = 8
"""How many times `library_compiled_steps` widens the compiled code by the steps it found."""


def library_compiled_steps(files: Iterable[tuple[str, str]]) -> frozenset[str]:
    """The names of the methods a library's own code runs only inside `tf.function`s, from
    its non-test files as (path, source) pairs. Compiled code is:

    - a function a `@tf.function` decorates, or whose reference the code hands to
      `tf.function`, directly or through locals built on it (`tf.function(self.train_step)`;
      orbit's `fn = self.train_step ... loop_fn = create_loop_fn(fn) ... tf.function(loop_fn)`:
      a method by its name, in any class, as `self.train_step` runs an override; a local
      function by its name in the module);
    - a function compiled code names (a nested `step_fn` handed to `strategy.run` inside a
      compiled `eval_step_fn`), and a method it calls on `self`;
    - a method compiled code references on another object (`self.task.train_step`), where no
      reference to that name (`x.NAME`) lies outside compiled code and the bodies of methods
      of that name (`super().NAME(...)`): the library calls it only from compiled code.

    Call methods (`__call__`, `call`: what the evidence is about) are never steps. A name is
    a step for every class that defines it (the oracle's evidence matches names, as it does
    Keras's `train_step`)."""
    trees: list[ast.Module] = []
    for _path, source in files:
        try:
            trees.append(ast.parse(source))
        except SyntaxError:
            continue
    by_name: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
    methods: dict[str, list[ast.FunctionDef]] = {}
    references: dict[str, list[ast.Attribute]] = {}
    compiled: set[int] = set()
    handed: set[str] = set()
    own_class: dict[int, ast.ClassDef] = {}
    """The class of each method's nodes (nested functions included)."""
    plain: dict[int, dict[str, list[int]]] = {}
    """By module: the functions that are no methods (module functions, nested ones), by name."""
    module_of: dict[int, int] = {}
    for number, tree in enumerate(trees):
        in_methods = {id(item) for _cls, item in _methods(tree)}
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                by_name.setdefault(node.name, []).append(node)
                module_of[id(node)] = number
                if id(node) not in in_methods:
                    plain.setdefault(number, {}).setdefault(node.name, []).append(id(node))
                if any(_is_compiler(_called(d)) for d in node.decorator_list):
                    compiled.add(id(node))
            elif isinstance(node, ast.Attribute):
                references.setdefault(node.attr, []).append(node)
        for cls, item in _methods(tree):
            methods.setdefault(item.name, []).append(item)
            own_class.update({id(n): cls for n in ast.walk(item)})
        handed |= _handed_to_compiler(tree)
    for name in handed - CALLABLE_METHODS:
        compiled.update(id(f) for f in by_name.get(name, ()))
    functions = {id(f): f for fs in by_name.values() for f in fs}
    for _ in range(MAX_STEP_ROUNDS):
        inside = {id(n) for key in compiled for n in ast.walk(functions[key])}
        named: set[str] = set()
        added: set[int] = set()
        for key in list(compiled):
            local = plain.get(module_of[key], {})
            for node in ast.walk(functions[key]):
                if isinstance(node, ast.Name) and node.id in local:
                    added.update(local[node.id])  # a function of the module it names
                elif (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name)
                    and node.func.value.id == "self"
                    and id(node) in own_class
                ):
                    # `self.m(...)`: the method of the same class
                    cls = own_class[id(node)]
                    added.update(
                        id(item)
                        for item in cls.body
                        if isinstance(item, ast.FunctionDef) and item.name == node.func.attr
                    )
        for node in (n for key in compiled for n in ast.walk(functions[key])):
            if (
                isinstance(node, ast.Attribute)
                and not (isinstance(node.value, ast.Name) and node.value.id == "self")
                and node.attr in methods
            ):
                own = {id(n) for m in methods[node.attr] for n in ast.walk(m)}
                if all(id(r) in inside or id(r) in own for r in references.get(node.attr, ())):
                    named.add(node.attr)
        added |= {id(f) for name in named - CALLABLE_METHODS for f in by_name.get(name, ())}
        added -= {id(m) for name in CALLABLE_METHODS for m in methods.get(name, ())}
        if added <= compiled:
            break
        compiled |= added
    return frozenset(
        name
        for name, items in methods.items()
        if name not in CALLABLE_METHODS and any(id(m) in compiled for m in items)
    )


def _handed_to_compiler(tree: ast.Module) -> set[str]:
    """The names of the functions a module hands to `tf.function`, through locals built on
    them."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        derived: dict[str, set[str]] = {}
        assigns = [n for n in ast.walk(node) if isinstance(n, ast.Assign) and len(n.targets) == 1]
        for _ in range(2):  # a local built from another bound later in the body
            for a in assigns:
                if isinstance(a.targets[0], ast.Name):
                    names = _references(a.value, derived)
                    if names:
                        derived.setdefault(a.targets[0].id, set()).update(names)
        for call in ast.walk(node):
            if isinstance(call, ast.Call) and _is_compiler(call.func) and call.args:
                found |= _references(call.args[0], derived)
    return found


def _called(node: ast.expr) -> ast.expr:
    return node.func if isinstance(node, ast.Call) else node


def _is_compiler(node: ast.expr) -> bool:
    return ast.unparse(node) in COMPILERS


def _references(value: ast.expr, derived: dict[str, set[str]]) -> set[str]:
    """The functions an expression refers to (`self.m`, `obj.m`, `f`: the last name of a
    reference, as a value or an argument, not a callee), or through locals built on them."""
    found: set[str] = set()
    work = [value]
    while work:
        node = work.pop()
        if isinstance(node, ast.Attribute):
            found.add(node.attr)  # the last name only: `self.task.train_step` is `train_step`
        elif isinstance(node, ast.Name):
            found |= derived.get(node.id, {node.id})
        elif isinstance(node, ast.Call):
            work.extend(node.args)
            work.extend(k.value for k in node.keywords)
        else:
            work.extend(n for n in ast.iter_child_nodes(node) if isinstance(n, ast.expr))
    return found


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
