"""The names a module binds and reads, scope by scope, from one walk of its syntax tree.

Bindings are everything Python counts as one: assignments and augmented assignments, `for`,
`with ... as`, `except ... as`, walrus targets (in the scope around a comprehension), `match`
captures, parameters, `def` and `class` names, imports; `global tf` in a function makes its
assignments bindings of the module's `tf`, and `nonlocal` makes a name untrusted. Each binding
records its scope (module, function, class, lambda or comprehension), so the meaning of a name
in a decorator is read from the scopes the decorator is evaluated in (the class or function
right around the `def`, the functions around that, the module), the way Python resolves it.
A name means an import only when every binding of it in the innermost scope that binds it is
that same import. What counts as the compile decorator (and as its module, for a wildcard
import) is the `Framework`'s to say.
"""

from __future__ import annotations

import ast
import builtins
import enum
import keyword
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from hybridize.analyzer.frameworks.framework import Framework
from hybridize.analyzer.summaries.summarize import dotted_name
from hybridize.refactor.locate import FoundFunction

DYNAMIC_GLOBALS = frozenset({"globals", "locals", "vars", "eval", "exec", "__import__"})
"""Calls through which a module may use any of its names without spelling them."""

ImportStatement = ast.Import | ast.ImportFrom


def bound_name(statement: ImportStatement, alias: ast.alias) -> str:
    """The name an import alias binds: `tf` in `import tensorflow as tf`, `os` in `import
    os.path`, `function` in `from tensorflow import function`."""
    if alias.asname is not None:
        return alias.asname
    return alias.name.split(".")[0] if isinstance(statement, ast.Import) else alias.name


def import_target(statement: ImportStatement, alias: ast.alias) -> str | None:
    """What the alias binds its name to (`tensorflow` for `import tensorflow as tf`), None for
    a relative or wildcard import."""
    if isinstance(statement, ast.Import):
        return alias.name if alias.asname is not None else alias.name.split(".")[0]
    if statement.level or statement.module is None or alias.name == "*":
        return None
    return f"{statement.module}.{alias.name}"


SCOPES = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.Lambda,
    ast.ClassDef,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)
COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


class _Kind(enum.Enum):
    """What `ModuleNames.of` reads of a node, by its type."""

    SCOPE = enum.auto()
    """A `def` or `class`: a scope that binds its name in the scope around it."""
    LAMBDA = enum.auto()
    COMPREHENSION = enum.auto()
    NAME = enum.auto()
    CONSTANT = enum.auto()
    ARG = enum.auto()
    IMPORT = enum.auto()
    GLOBAL = enum.auto()
    NONLOCAL = enum.auto()
    EXCEPT = enum.auto()
    NAMED_EXPR = enum.auto()
    MATCH_CAPTURE = enum.auto()


_NODE_KINDS: dict[type, _Kind] = {
    ast.FunctionDef: _Kind.SCOPE,
    ast.AsyncFunctionDef: _Kind.SCOPE,
    ast.ClassDef: _Kind.SCOPE,
    ast.Lambda: _Kind.LAMBDA,
    **{comprehension: _Kind.COMPREHENSION for comprehension in COMPREHENSIONS},
    ast.Name: _Kind.NAME,
    ast.Constant: _Kind.CONSTANT,
    ast.arg: _Kind.ARG,
    ast.Import: _Kind.IMPORT,
    ast.ImportFrom: _Kind.IMPORT,
    ast.Global: _Kind.GLOBAL,
    ast.Nonlocal: _Kind.NONLOCAL,
    ast.ExceptHandler: _Kind.EXCEPT,
    ast.NamedExpr: _Kind.NAMED_EXPR,
    ast.MatchAs: _Kind.MATCH_CAPTURE,
    ast.MatchStar: _Kind.MATCH_CAPTURE,
    ast.MatchMapping: _Kind.MATCH_CAPTURE,
}
"""The node types `ModuleNames.of` reads (`ast.parse` makes nodes of these exact types)."""

_child_fields: dict[type, tuple[str, ...]] = {}
"""Per node type, the fields that may hold child nodes (filled as types are met)."""


def _fields(node_type: type) -> tuple[str, ...]:
    """The fields of a node type but its `ctx` (remembered in `_child_fields`)."""
    fields = tuple(name for name in getattr(node_type, "_fields", ()) if name != "ctx")
    _child_fields[node_type] = fields
    return fields


MODULE_SCOPE = 0
"""The scope of a module's own code in `Binding.scope` (the others are ids of the nodes that
open them: the same for a statement an edit only moved)."""

_NAMES_OF_STATEMENT = "_hybridize_names"
"""The attribute of a top-level statement node that keeps its names (`_statement_names`)."""


def _statement_names(statement: ast.stmt, framework: Framework) -> tuple[ModuleNames, int]:
    """The names of one top-level statement for `framework`, and by how many lines its reads
    moved since they were read: kept on the statement node, which a spliced tree shares
    with the last one (moving its lines in place) until it is edited."""
    kept = getattr(statement, _NAMES_OF_STATEMENT, None)
    if kept is not None and kept[0] is framework:
        return kept[2], statement.lineno - kept[1]
    names = ModuleNames._walk(statement, framework)
    setattr(statement, _NAMES_OF_STATEMENT, (framework, statement.lineno, names))
    return names, 0


@dataclass(frozen=True, slots=True)
class Binding:
    """One binding of a name: the scope it binds in (the id of a module, function, class,
    lambda or comprehension node) and, for an import, the statement and what it imports."""

    scope: int
    statement: ImportStatement | None = None
    target: str | None = None


@dataclass(slots=True)
class ModuleNames:
    """Every name a module binds (by scope) or reads, from one walk of its syntax tree."""

    module: int = 0
    bound: dict[str, list[Binding]] = field(default_factory=dict)
    reads: dict[str, list[int]] = field(default_factory=dict)
    """name -> the lines where it is read."""
    strings: list[str] = field(default_factory=list)
    nonlocal_names: set[str] = field(default_factory=set)
    framework: Framework = field(kw_only=True)
    """The compile target whose decorator the names are read for."""
    framework_star: bool = False
    """A wildcard import from a module whose attribute is the decorator (`from tensorflow
    import *`)."""
    decorator_aliases: set[str] = field(default_factory=set)
    """Module-level names assigned the decorator (`compile = tf.function`)."""
    star_imports: list[ast.ImportFrom] = field(default_factory=list)
    """Module-level wildcard imports (`from common import *`): what they bind is another
    module's to say (`FrameworkImports` asks the project)."""

    @classmethod
    def of(cls, tree: ast.Module, framework: Framework) -> ModuleNames:
        """The names of `tree`, from those of each top-level statement: walked once per
        statement object and framework (`_statement_names`, kept on the statement), so that
        after an edit of one statement of a spliced tree (`statement_edit`: the others are
        the same objects, their lines moved) only that one is walked again."""
        names = cls(module=MODULE_SCOPE, framework=framework)
        # the order of one walk of the whole tree: its last statement first
        for statement in reversed(tree.body):
            part, delta = _statement_names(statement, framework)
            for name, bindings in part.bound.items():
                names.bound.setdefault(name, []).extend(bindings)
            for name, lines in part.reads.items():
                found = names.reads.setdefault(name, [])
                found.extend(lines if not delta else [line + delta for line in lines])
            names.strings.extend(part.strings)
            names.nonlocal_names.update(part.nonlocal_names)
            names.framework_star = names.framework_star or part.framework_star
            names.star_imports.extend(part.star_imports)
        names._find_aliases(tree)
        return names

    @classmethod
    def _walk(cls, statement: ast.stmt, framework: Framework) -> ModuleNames:
        """The names one top-level statement binds and reads (its module-level ones in
        `MODULE_SCOPE`)."""
        names = cls(module=MODULE_SCOPE, framework=framework)
        parent_scope: dict[int, int] = {}
        globals_in: dict[int, set[str]] = {}
        comprehensions: set[int] = set()
        stack: list[tuple[ast.AST, int]] = [(statement, MODULE_SCOPE)]
        kinds = _NODE_KINDS
        fields_of = _child_fields
        while stack:
            node, scope = stack.pop()
            inner = scope
            node_type = type(node)
            # One lookup by type, not a chain of isinstance tests: most nodes are none of
            # these (calls, attributes, operators), and this walk runs on every plan of a
            # file (the language server's, after each change).
            kind = kinds.get(node_type)
            if kind is None:
                pass
            elif kind is _Kind.SCOPE or kind is _Kind.COMPREHENSION or kind is _Kind.LAMBDA:
                inner = id(node)
                parent_scope[inner] = scope
                if kind is _Kind.COMPREHENSION:
                    comprehensions.add(inner)
                elif kind is _Kind.SCOPE:
                    names._bind(node.name, scope)  # type: ignore[attr-defined]
            elif kind is _Kind.NAME:
                assert isinstance(node, ast.Name)
                if type(node.ctx) is ast.Load:
                    names.reads.setdefault(node.id, []).append(node.lineno)
                else:
                    names._bind(node.id, scope)
            elif kind is _Kind.CONSTANT:
                value = node.value  # type: ignore[attr-defined]
                if isinstance(value, str):
                    names.strings.append(value)
            elif kind is _Kind.ARG:
                names._bind(node.arg, scope)  # type: ignore[attr-defined]
            elif kind is _Kind.IMPORT:
                assert isinstance(node, ast.Import | ast.ImportFrom)
                names._bind_import(node, scope)
            elif kind is _Kind.GLOBAL:
                globals_in.setdefault(scope, set()).update(node.names)  # type: ignore[attr-defined]
            elif kind is _Kind.NONLOCAL:
                names.nonlocal_names.update(node.names)  # type: ignore[attr-defined]
            elif kind is _Kind.EXCEPT:
                if node.name:  # type: ignore[attr-defined]
                    names._bind(node.name, scope)  # type: ignore[attr-defined]
            elif kind is _Kind.NAMED_EXPR:
                assert isinstance(node, ast.NamedExpr)
                target = scope
                while target in comprehensions:
                    target = parent_scope[target]
                if isinstance(node.target, ast.Name):
                    names._bind(node.target.id, target)
                stack.append((node.value, scope))
                continue
            elif kind is _Kind.MATCH_CAPTURE:
                captured = getattr(node, "name", None) or getattr(node, "rest", None)
                if isinstance(captured, str):
                    names._bind(captured, scope)
            # `ast.iter_child_nodes`, inlined (its generators were half of this walk), over
            # the fields that may hold nodes: a `ctx` (Load, Store) binds and reads nothing.
            for field_name in fields_of.get(node_type) or _fields(node_type):
                value = getattr(node, field_name, None)
                if type(value) is list:
                    for item in value:
                        if isinstance(item, ast.AST):
                            stack.append((item, inner))
                elif isinstance(value, ast.AST):
                    stack.append((value, inner))
        # `global tf` in a function: its assignments rebind the module's `tf`.
        for name, bindings in names.bound.items():
            names.bound[name] = [
                Binding(MODULE_SCOPE, b.statement, b.target)
                if name in globals_in.get(b.scope, ())
                else b
                for b in bindings
            ]
        return names

    def _bind(self, name: str, scope: int) -> None:
        self.bound.setdefault(name, []).append(Binding(scope))

    def _bind_import(self, statement: ImportStatement, scope: int) -> None:
        for alias in statement.names:
            if alias.name == "*":
                module = statement.module if isinstance(statement, ast.ImportFrom) else None
                if module in self.framework.decorator_modules and not getattr(
                    statement, "level", 0
                ):
                    self.framework_star = True
                elif isinstance(statement, ast.ImportFrom) and scope == self.module:
                    self.star_imports.append(statement)
                continue
            binding = Binding(scope, statement, import_target(statement, alias))
            self.bound.setdefault(bound_name(statement, alias), []).append(binding)

    def _find_aliases(self, tree: ast.Module) -> None:
        """Module-level `compiled = tf.function`: the name then compiles what it decorates."""
        for statement in tree.body:
            if (
                isinstance(statement, ast.Assign)
                and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name)
                and len(self.bound.get(statement.targets[0].id, ())) == 1
            ):
                value = dotted_name(statement.value)
                if value is not None:
                    head, _, rest = value.partition(".")
                    target = self.import_target(head)
                    if target is not None and self.framework.is_decorator(
                        f"{target}.{rest}" if rest else target
                    ):
                        self.decorator_aliases.add(statement.targets[0].id)

    def import_target(self, name: str) -> str | None:
        """What `name` means, when every binding of it anywhere in the module is an import
        of that one thing."""
        return single_target(self.bound.get(name, ()))

    def visible(self, name: str, chain: Sequence[int]) -> list[Binding]:
        """The bindings `name` resolves to from code whose scopes are `chain` (innermost
        first, ending with the module): those of the innermost scope that binds it."""
        if name in self.nonlocal_names:
            return []
        bindings = self.bound.get(name, ())
        for scope in chain:
            found = [b for b in bindings if b.scope == scope]
            if found:
                return found
        return []

    def target_in(self, name: str, chain: Sequence[int]) -> str | None:
        """What `name` means in the scopes `chain`, when all its bindings there are one import."""
        return single_target(self.visible(name, chain))

    def is_free(self, name: str) -> bool:
        """Whether a new import may bind `name`: the module neither binds nor reads it."""
        return (
            name not in self.bound
            and name not in self.reads
            and name not in self.strings
            and not hasattr(builtins, name)
            and not keyword.iskeyword(name)
        )

    @property
    def dynamic(self) -> bool:
        return any(name in self.reads for name in DYNAMIC_GLOBALS)

    def mentioned_in_strings(self, name: str) -> bool:
        word = re.compile(rf"\b{re.escape(name)}\b")
        return any(word.search(s) for s in self.strings)


def single_target(bindings: Sequence[Binding]) -> str | None:
    targets = {b.target for b in bindings}
    if len(targets) != 1 or None in targets:
        return None
    return next(iter(targets))


def scope_chain(found: FoundFunction, module: ast.Module) -> list[int]:
    """The scopes a function's decorators are evaluated in, innermost first: the class or
    function right around it, the functions around that (class bodies are not visible from
    nested code), the module."""
    chain: list[int] = []
    for depth, parent in enumerate(reversed(found.parents)):
        if depth == 0 or not isinstance(parent, ast.ClassDef):
            chain.append(id(parent))
    chain.append(MODULE_SCOPE)
    return chain
