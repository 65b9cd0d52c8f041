"""The package's modules keep to six rules that nothing else would notice breaking.

1. No module uses another module's private name (`from hybridize.x import _y`, `x._y` on an
   imported module, or a private module `_m` from outside its own package). A helper that two
   modules need is shared: it gets a public name, and a docstring that says who shares it.
2. No import cycle among the package's modules. Imports inside functions count like those at
   the top of a module (a lazy import hides a cycle from Python, not from the design); only
   `if TYPE_CHECKING:` imports, which never run, do not. A lazy import kept to defer a heavy
   module for start-up speed is fine as long as it closes no cycle.
3. No TensorFlow or PyTorch import, in any form, in the parts that analyse, rewrite and report
   on code: they must work, and start quickly, where neither framework is installed.
4. A function key's text (`file::qualname`) is made and read by the key type alone
   (`analyzer/summaries/keys.py`: `str(key)`, `FunctionKey.parse`): no other module splits a
   text at `::` (`split`, `rsplit`, `partition`, `rpartition`) or joins two values with it
   (`"::".join`, `f"{a}::{b}"`). A hand-made split gets a file whose name holds `::` wrong,
   and a hand-made join is a key the analysis cannot find again.
5. What a framework does is reached through its `Framework` adapter
   (`analyzer/frameworks/framework.py`): outside `analyzer/frameworks/`, no module of the
   framework-free parts imports a framework's own module there (`tensorflow_rules`,
   `torch_api`, `tensorflow_shapes`, ...). Core code asks the function's framework, so a
   PyTorch analysis never consults TensorFlow's tables by accident.
6. No framework is a default: outside `analyzer/frameworks/`, no parameter or class field of
   the framework-free parts defaults to a framework's name (`framework: str = "tensorflow"`):
   a caller that forgot to pass one would be analysed as TensorFlow code silently.

The rules are checked on the source text (`ast`), so that nothing is imported to check them.
Tests are outside the rules: a test poking at a module's internals is testing that module.
"""

from __future__ import annotations

import ast
import itertools
import textwrap
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGE = "hybridize"
FRAMEWORKS = frozenset({"tensorflow", "torch"})
FRAMEWORK_FREE = (
    "hybridize/analyzer",
    "hybridize/refactor",
    "hybridize/lsp",
    "hybridize/output",
    "hybridize/project.py",
    "hybridize/cli.py",
    "hybridize/model.py",
)
"""Paths (relative to the tree's root) where no framework may be imported."""
KEY_TYPE = "hybridize/analyzer/summaries/keys.py"
"""The one module that turns a function key into text and back (rule 4)."""
KEY_SEPARATOR = "::"
SPLITTERS = frozenset({"split", "rsplit", "partition", "rpartition"})
NOT_FUNCTION_KEYS = frozenset({("hybridize/verify/outcomes.py", "test_file_of")})
"""(file, function) that split other texts at `::` (a pytest node id, `tests/x.py::test_a`)."""
FRAMEWORK_ADAPTER = "hybridize/analyzer/frameworks"
"""Where a framework's own modules live, and the only code that may import them (rule 5)."""
FRAMEWORK_MODULES_PACKAGE = "hybridize.analyzer.frameworks"
DYNAMIC_IMPORTERS = frozenset({"import_module", "__import__"})
"""Calls that import the module their literal first argument names."""


@dataclass(frozen=True)
class Violation:
    """One broken rule: which rule, where (a file and line, or a cycle's modules), and what."""

    rule: str
    where: str
    detail: str

    def __str__(self) -> str:
        return f"[{self.rule}] {self.where}: {self.detail}"


@dataclass(frozen=True)
class ModuleSource:
    """A module of the tree: its dotted name, its file, and whether it is a package."""

    name: str
    path: Path
    relative: str
    is_package: bool

    @property
    def package(self) -> str:
        """The package its relative imports start from."""
        return self.name if self.is_package else self.name.rpartition(".")[0]


@dataclass(frozen=True)
class ImportEdge:
    """`importer` needs `target` to be executed: at `line`, lazily (inside a function) or not."""

    importer: str
    target: str
    line: int
    lazy: bool


def modules_of(root: Path, package: str = PACKAGE) -> dict[str, ModuleSource]:
    """Every module of `package` under `root`, by dotted name."""
    found = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts.pop()
        name = ".".join(parts)
        found[name] = ModuleSource(name, path, path.relative_to(root).as_posix(), is_package)
    return found


def is_private(name: str) -> bool:
    """`_helper` is private; `__version__`, `__all__` and `__init__` are not."""
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def is_type_checking_guard(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


@dataclass(frozen=True)
class ImportSite:
    """An import statement with what the walk knows about its place in the module."""

    node: ast.Import | ast.ImportFrom | ast.Call
    lazy: bool
    type_checking: bool


def import_sites(tree: ast.Module) -> Iterator[ImportSite]:
    """Every import statement, and every `import_module("...")` / `__import__("...")` call
    with a literal name, marked lazy when inside a function and whether under TYPE_CHECKING."""

    def walk(node: ast.AST, lazy: bool, type_checking: bool) -> Iterator[ImportSite]:
        if isinstance(node, (ast.Import, ast.ImportFrom)) or (
            isinstance(node, ast.Call) and dynamic_import_name(node) is not None
        ):
            yield ImportSite(node, lazy, type_checking)
        if isinstance(node, ast.If) and is_type_checking_guard(node):
            for guarded in node.body:
                yield from walk(guarded, lazy, True)
            for other in node.orelse:
                yield from walk(other, lazy, type_checking)
            return
        inner = lazy or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        for child in ast.iter_child_nodes(node):
            yield from walk(child, inner, type_checking)

    yield from walk(tree, False, False)


def dynamic_import_name(call: ast.Call) -> str | None:
    """The literal module name an `importlib.import_module(...)` or `__import__(...)` call
    imports, if it is one."""
    func = call.func
    called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    if called not in DYNAMIC_IMPORTERS or not call.args:
        return None
    first = call.args[0]
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        return first.value
    return None


def absolute_base(node: ast.ImportFrom, module: ModuleSource) -> str:
    """The module a `from ... import` reads from, relative levels resolved."""
    if not node.level:
        return node.module or ""
    base = module.package.split(".")
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def ancestors(name: str) -> list[str]:
    """`a.b.c` -> [`a`, `a.b`]: the packages Python initialises before it runs `a.b.c`."""
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


@dataclass(frozen=True)
class ImportedName:
    """One name an import statement reaches: `module` (a module of the tree) or `module.name`
    (an attribute of it), as `from module import name` or `import module` says."""

    module: str
    name: str | None
    line: int


def imported_names(site: ImportSite, module: ModuleSource) -> Iterator[ImportedName]:
    node = site.node
    if isinstance(node, ast.Import):
        for alias in node.names:
            yield ImportedName(alias.name, None, node.lineno)
    elif isinstance(node, ast.ImportFrom):
        base = absolute_base(node, module)
        for alias in node.names:
            yield ImportedName(base, None if alias.name == "*" else alias.name, node.lineno)
    else:
        name = dynamic_import_name(node)
        if name is not None:
            yield ImportedName(name, None, node.lineno)


def parsed(modules: Mapping[str, ModuleSource]) -> dict[str, ast.Module]:
    return {
        name: ast.parse(m.path.read_text(encoding="utf-8"), str(m.path))
        for name, m in modules.items()
    }


def private_module_use(importer: str, target: str) -> str | None:
    """The private module on the way to `target` (`a._b` of `a._b.c`) that `importer` may not
    reach, being outside the package (`a`) that owns it; None when there is none."""
    parts = target.split(".")
    for i, part in enumerate(parts):
        owner = ".".join(parts[:i])
        if is_private(part) and not (importer == owner or importer.startswith(owner + ".")):
            return ".".join(parts[: i + 1])
    return None


def private_name_violations(
    modules: Mapping[str, ModuleSource], trees: Mapping[str, ast.Module]
) -> Iterator[Violation]:
    """Rule 1: imports of, and attribute reads on imported modules of, another module's
    private names; and private modules used from outside their package."""

    for name, tree in trees.items():
        source = modules[name]
        aliases: dict[str, str] = {}
        for site in import_sites(tree):
            for reached in imported_names(site, source):
                if reached.module not in modules:
                    continue
                where = f"{source.relative}:{reached.line}"
                target = reached.module
                if reached.name is not None and f"{target}.{reached.name}" in modules:
                    target = f"{target}.{reached.name}"
                    if isinstance(site.node, ast.ImportFrom):
                        bound = next(a for a in site.node.names if a.name == reached.name)
                        aliases[bound.asname or bound.name] = target
                elif reached.name is not None and is_private(reached.name) and target != name:
                    yield Violation("private-name", where, f"imports {reached.name} from {target}")
                hidden = private_module_use(name, target)
                if hidden is not None:
                    yield Violation(
                        "private-name", where, f"imports {hidden}, private to its package"
                    )
            if isinstance(site.node, ast.Import):
                for alias in site.node.names:
                    if alias.asname:
                        aliases[alias.asname] = alias.name
                    else:
                        top = alias.name.partition(".")[0]
                        aliases[top] = top
        attributes = [n for n in ast.walk(tree) if isinstance(n, ast.Attribute)]
        inner = {id(n.value) for n in attributes}  # `a.b` of `a.b.c`: read with the whole
        for node in attributes:
            if id(node) in inner:
                continue
            chain = attribute_chain(node)
            if chain is None or chain[0] not in aliases:
                continue
            current = aliases[chain[0]]
            where = f"{source.relative}:{node.lineno}"
            for attr in chain[1:]:
                if f"{current}.{attr}" in modules:
                    current = f"{current}.{attr}"
                    if private_module_use(name, current) == current:
                        yield Violation(
                            "private-name", where, f"reads {current}, private to its package"
                        )
                    continue
                if current in modules and current != name and is_private(attr):
                    yield Violation("private-name", where, f"reads {attr} of {current}")
                break


def attribute_chain(node: ast.Attribute) -> list[str] | None:
    """`a.b.c` -> ["a", "b", "c"]; None when the chain starts with anything but a name."""
    parts: list[str] = []
    current: ast.expr = node
    while isinstance(current, ast.Attribute):
        parts.append(current.attr)
        current = current.value
    if not isinstance(current, ast.Name):
        return None
    parts.append(current.id)
    return parts[::-1]


def import_edges(
    modules: Mapping[str, ModuleSource], trees: Mapping[str, ast.Module]
) -> Iterator[ImportEdge]:
    """Every module of the tree each module needs executed, `if TYPE_CHECKING:` aside.

    `from a.b import c` needs the module `a.b.c` if there is one, else `a.b`; and every
    package on the way (`a`, `a.b`) that is not already a package of the importer itself
    (those are initialised before the importer runs, whatever it imports)."""
    for name, tree in trees.items():
        source = modules[name]
        own = set(ancestors(name))
        for site in import_sites(tree):
            if site.type_checking:
                continue
            for reached in imported_names(site, source):
                if reached.module not in modules:
                    continue
                target = reached.module
                if reached.name is not None and f"{target}.{reached.name}" in modules:
                    target = f"{target}.{reached.name}"
                for needed in [*ancestors(target), target]:
                    if needed != name and (needed == target or needed not in own):
                        yield ImportEdge(name, needed, reached.line, site.lazy)


def strongly_connected(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """Tarjan's components of more than one module, each sorted, in a stable order."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in sorted(graph.get(node, ())):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def cycle_violations(
    modules: Mapping[str, ModuleSource], trees: Mapping[str, ast.Module]
) -> Iterator[Violation]:
    """Rule 2: one violation per group of modules that import each other, with the imports
    (file:line, lazy ones marked) that tie the group together."""
    edges = list(import_edges(modules, trees))
    graph: dict[str, set[str]] = {}
    for edge in edges:
        graph.setdefault(edge.importer, set()).add(edge.target)
    for component in strongly_connected(graph):
        members = set(component)
        ties = sorted(
            {
                f"{modules[e.importer].relative}:{e.line} -> {e.target}"
                + (" (lazy)" if e.lazy else "")
                for e in edges
                if e.importer in members and e.target in members
            }
        )
        yield Violation("import-cycle", ", ".join(component), "; ".join(ties))


def framework_violations(
    modules: Mapping[str, ModuleSource],
    trees: Mapping[str, ast.Module],
    framework_free: Iterable[str] = FRAMEWORK_FREE,
) -> Iterator[Violation]:
    """Rule 3: any import of TensorFlow or PyTorch, at any depth and under any guard, in a
    framework-free part of the tree."""
    scopes = tuple(framework_free)
    for name, tree in trees.items():
        source = modules[name]
        if not any(
            source.relative == scope or source.relative.startswith(scope + "/") for scope in scopes
        ):
            continue
        for site in import_sites(tree):
            for reached in imported_names(site, source):
                if reached.module.partition(".")[0] in FRAMEWORKS:
                    yield Violation(
                        "framework-import",
                        f"{source.relative}:{reached.line}",
                        f"imports {reached.module}",
                    )


def _separator(node: ast.AST) -> bool:
    """The literal `::`, or the key type's `SEPARATOR` named."""
    if isinstance(node, ast.Constant):
        return node.value == KEY_SEPARATOR
    name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", None)
    return name == "SEPARATOR"


def _joins_at_separator(node: ast.JoinedStr) -> bool:
    """An f-string with `::` right after a formatted value (`f"{file}::{qualname}"`)."""
    parts = node.values
    return any(
        isinstance(before, ast.FormattedValue)
        and isinstance(after, ast.Constant)
        and isinstance(after.value, str)
        and after.value.startswith(KEY_SEPARATOR)
        for before, after in itertools.pairwise(parts)
    )


def key_text_violations(
    modules: Mapping[str, ModuleSource], trees: Mapping[str, ast.Module]
) -> Iterator[Violation]:
    """Rule 4: a function key's text split or joined outside the key type."""
    for name, tree in trees.items():
        source = modules[name]
        if source.relative == KEY_TYPE:
            continue
        exempt = {
            id(inner)
            for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and (source.relative, node.name) in NOT_FUNCTION_KEYS
            for inner in ast.walk(node)
        }
        found: list[tuple[int, str]] = []
        for node in ast.walk(tree):
            if id(node) in exempt:
                continue
            what = None
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                method = node.func.attr
                if method in SPLITTERS and node.args and _separator(node.args[0]):
                    what = f"splits a text at `::` ({method})"
                elif method == "join" and _separator(node.func.value):
                    what = "joins texts with `::`"
            elif isinstance(node, ast.JoinedStr) and _joins_at_separator(node):
                what = "joins two values with `::` in an f-string"
            if what is not None:
                found.append((node.lineno, what))
        for line, what in sorted(found):
            yield Violation(
                "key-text",
                f"{source.relative}:{line}",
                f"{what}: a function key is made by `str(key)` and read by `FunctionKey.parse`",
            )


def _in_scope(relative: str, scopes: Iterable[str]) -> bool:
    return any(relative == scope or relative.startswith(scope + "/") for scope in scopes)


def core_modules(
    modules: Mapping[str, ModuleSource], trees: Mapping[str, ast.Module]
) -> Iterator[tuple[ModuleSource, ast.Module]]:
    """The modules of the framework-free parts outside the framework adapter's package, with
    their trees (rules 5 and 6)."""
    for name, tree in trees.items():
        source = modules[name]
        relative = source.relative
        if _in_scope(relative, FRAMEWORK_FREE) and not _in_scope(relative, (FRAMEWORK_ADAPTER,)):
            yield source, tree


def _framework_module(dotted: str) -> bool:
    """A module of the adapter's package named after a framework (`tensorflow_rules`)."""
    package, _, leaf = dotted.rpartition(".")
    return package == FRAMEWORK_MODULES_PACKAGE and leaf.partition("_")[0] in FRAMEWORKS


def framework_table_violations(
    modules: Mapping[str, ModuleSource], trees: Mapping[str, ast.Module]
) -> Iterator[Violation]:
    """Rule 5: a framework's own module imported by core code, not asked of its `Framework`."""
    for source, tree in core_modules(modules, trees):
        found: set[tuple[int, str]] = set()  # one per statement and module
        for site in import_sites(tree):
            for reached in imported_names(site, source):
                named = f"{reached.module}.{reached.name}" if reached.name else reached.module
                hit = next((m for m in (named, reached.module) if _framework_module(m)), None)
                if hit is not None:
                    found.add((reached.line, hit))
        for line, hit in sorted(found):
            yield Violation(
                "framework-table",
                f"{source.relative}:{line}",
                f"imports {hit}: ask the function's `Framework` for it",
            )


def _names_a_framework(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and node.value in FRAMEWORKS


def _field_default(value: ast.expr | None) -> ast.expr | None:
    """A class field's default: the value, or `field(default=...)`'s."""
    if isinstance(value, ast.Call) and getattr(value.func, "id", None) == "field":
        return next((k.value for k in value.keywords if k.arg == "default"), None)
    return value


def framework_default_violations(
    modules: Mapping[str, ModuleSource], trees: Mapping[str, ast.Module]
) -> Iterator[Violation]:
    """Rule 6: a parameter or class field of core code defaulting to a framework's name."""
    for source, tree in core_modules(modules, trees):
        found: list[tuple[int, str]] = []
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                defaults = [*node.args.defaults, *node.args.kw_defaults]
                if any(_names_a_framework(d) for d in defaults):
                    found.append((node.lineno, "a parameter defaults to a framework's name"))
            elif isinstance(node, ast.ClassDef):
                for stmt in node.body:
                    if isinstance(stmt, ast.AnnAssign) and _names_a_framework(
                        _field_default(stmt.value)
                    ):
                        found.append((stmt.lineno, "a field defaults to a framework's name"))
        for line, what in sorted(found):
            yield Violation("framework-default", f"{source.relative}:{line}", what)


def check_tree(root: Path, package: str = PACKAGE) -> list[Violation]:
    """Every violation of the six rules in `package` under `root`."""
    modules = modules_of(root, package)
    trees = parsed(modules)
    return [
        *private_name_violations(modules, trees),
        *cycle_violations(modules, trees),
        *framework_violations(modules, trees),
        *key_text_violations(modules, trees),
        *framework_table_violations(modules, trees),
        *framework_default_violations(modules, trees),
    ]


RULES = (
    "private-name",
    "import-cycle",
    "framework-import",
    "key-text",
    "framework-table",
    "framework-default",
)


@pytest.fixture(scope="module")
def package_violations() -> list[Violation]:
    return check_tree(REPO)


@pytest.mark.parametrize("rule", RULES)
def test_the_package_keeps_the_rule(rule: str, package_violations: list[Violation]) -> None:
    broken = [str(v) for v in package_violations if v.rule == rule]
    assert not broken, "\n".join(broken)


def test_the_checker_reads_the_package_it_guards() -> None:
    # No violation would also come from a checker that found no files, no imports, or a
    # framework-free scope that names no file any more.
    modules = modules_of(REPO)
    assert {"hybridize.cli", "hybridize.analyzer.engine", "hybridize.refactor"} <= set(modules)
    edges = list(import_edges(modules, parsed(modules)))
    assert any(e.lazy for e in edges) and any(not e.lazy for e in edges)
    for scope in FRAMEWORK_FREE:
        assert any(
            m.relative == scope or m.relative.startswith(scope + "/") for m in modules.values()
        ), scope


def write_tree(root: Path, files: Mapping[str, str]) -> Path:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def rules_broken(root: Path) -> dict[str, list[str]]:
    broken: dict[str, list[str]] = {}
    for violation in check_tree(root):
        broken.setdefault(violation.rule, []).append(f"{violation.where}: {violation.detail}")
    return broken


def test_a_private_name_imported_from_another_module_is_reported(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "hybridize/__init__.py": "",
            "hybridize/a.py": "def _helper(): ...\n_CONSTANT = 1\n__version__ = '1'\n",
            "hybridize/b.py": "from hybridize.a import _helper, __version__\n",
            "hybridize/c.py": "from . import a\n\ndef f():\n    return a._CONSTANT\n",
            "hybridize/d.py": "import hybridize.a\n\nvalue = hybridize.a._CONSTANT\n",
            "hybridize/e.py": "import hybridize.a as mod\n\nvalue = mod.__version__\n",
        },
    )
    assert rules_broken(root) == {
        "private-name": [
            "hybridize/b.py:1: imports _helper from hybridize.a",
            "hybridize/c.py:4: reads _CONSTANT of hybridize.a",
            "hybridize/d.py:3: reads _CONSTANT of hybridize.a",
        ]
    }


def test_a_private_module_is_private_to_its_package(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "hybridize/__init__.py": "",
            "hybridize/pkg/__init__.py": "from ._tables import TABLE\n",
            "hybridize/pkg/_tables.py": "TABLE = {}\n",
            "hybridize/pkg/user.py": "from hybridize.pkg._tables import TABLE\n",
            "hybridize/outsider.py": "from hybridize.pkg import _tables\n",
            "hybridize/reader.py": "import hybridize.pkg\n\nTABLE = hybridize.pkg._tables.TABLE\n",
        },
    )
    assert rules_broken(root) == {
        "private-name": [
            "hybridize/outsider.py:1: imports hybridize.pkg._tables, private to its package",
            "hybridize/reader.py:3: reads hybridize.pkg._tables, private to its package",
        ]
    }


def test_an_import_cycle_is_reported_even_through_a_lazy_import(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "hybridize/__init__.py": "",
            "hybridize/low.py": "def helper():\n    from hybridize.high import thing\n    return thing\n",
            "hybridize/high.py": "from hybridize.low import helper\nthing = 1\n",
            # A lazy import of a heavy module that closes no cycle, and a guarded one, are fine.
            "hybridize/cli.py": "def run():\n    import hybridize.high\n",
            "hybridize/typed.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n    from hybridize.user import User\n"
            ),
            "hybridize/user.py": "from hybridize.typed import TYPE_CHECKING\n",
        },
    )
    assert rules_broken(root) == {
        "import-cycle": [
            "hybridize.high, hybridize.low: hybridize/high.py:1 -> hybridize.low; "
            "hybridize/low.py:2 -> hybridize.high (lazy)"
        ]
    }


def test_a_package_init_importing_its_importer_is_a_cycle(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "hybridize/__init__.py": "",
            "hybridize/pkg/__init__.py": "from hybridize.pkg.inner import Thing\n",
            "hybridize/pkg/inner.py": "from hybridize.user import use\nclass Thing: ...\n",
            # Reaching pkg.other runs pkg/__init__, which needs inner, which needs this module.
            "hybridize/user.py": "def use():\n    import hybridize.pkg.other\n",
            "hybridize/pkg/other.py": "",
        },
    )
    assert rules_broken(root) == {
        "import-cycle": [
            "hybridize.pkg, hybridize.pkg.inner, hybridize.user: "
            "hybridize/pkg/__init__.py:1 -> hybridize.pkg.inner; "
            "hybridize/pkg/inner.py:1 -> hybridize.user; "
            "hybridize/user.py:2 -> hybridize.pkg (lazy)"
        ]
    }


def test_a_framework_import_in_a_framework_free_module_is_reported(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "hybridize/__init__.py": "",
            "hybridize/analyzer/__init__.py": "",
            "hybridize/analyzer/a.py": "import tensorflow as tf\n",
            "hybridize/analyzer/b.py": (
                "import importlib\n\ndef load():\n    return importlib.import_module('torch.nn')\n"
            ),
            "hybridize/analyzer/c.py": (
                "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from torch import Tensor\n"
            ),
            "hybridize/cli.py": "def f():\n    return __import__('tensorflow')\n",
            # The compiler runs the frameworks: it may import them.
            "hybridize/compiler/__init__.py": "import torch\n",
            # A module merely named after a framework is not one.
            "hybridize/analyzer/torch_rules.py": "from hybridize.analyzer import a\n",
        },
    )
    assert rules_broken(root) == {
        "framework-import": [
            "hybridize/analyzer/a.py:1: imports tensorflow",
            "hybridize/analyzer/b.py:4: imports torch.nn",
            "hybridize/analyzer/c.py:3: imports torch",
            "hybridize/cli.py:2: imports tensorflow",
        ]
    }


def test_a_key_split_or_joined_outside_the_key_type_is_reported(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "hybridize/__init__.py": "",
            "hybridize/analyzer/summaries/keys.py": (
                'SEPARATOR = "::"\n'
                "def parse(text):\n    return text.rpartition(SEPARATOR)\n"
                'def text(file, qualname):\n    return f"{file}::{qualname}"\n'
            ),
            "hybridize/user.py": (
                "def file_of(key):\n    return key.split('::')[0]\n"
                "def qualname_of(key):\n    return key.rpartition('::')[2]\n"
                'def key_of(file, qualname):\n    return f"{file}::{qualname}"\n'
                'def joined(parts):\n    return "::".join(parts)\n'
                # Other uses of `::` in a text are none of the rule's business.
                'def shown(key):\n    return f"function {key}: ::"\n'
            ),
            "hybridize/verify/outcomes.py": (
                "def test_file_of(nodeid):\n    return nodeid.partition('::')[0]\n"
            ),
        },
    )
    assert rules_broken(root) == {
        "key-text": [
            "hybridize/user.py:2: splits a text at `::` (split): a function key is made by "
            "`str(key)` and read by `FunctionKey.parse`",
            "hybridize/user.py:4: splits a text at `::` (rpartition): a function key is made by "
            "`str(key)` and read by `FunctionKey.parse`",
            "hybridize/user.py:6: joins two values with `::` in an f-string: a function key is "
            "made by `str(key)` and read by `FunctionKey.parse`",
            "hybridize/user.py:8: joins texts with `::`: a function key is made by `str(key)` "
            "and read by `FunctionKey.parse`",
        ]
    }


def test_a_framework_module_imported_outside_the_adapter_is_reported(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "hybridize/__init__.py": "",
            "hybridize/analyzer/__init__.py": "",
            "hybridize/analyzer/frameworks/__init__.py": "",
            "hybridize/analyzer/frameworks/tensorflow_rules.py": "TABLE = {}\n",
            "hybridize/analyzer/frameworks/torch_api.py": "TABLE = {}\n",
            "hybridize/analyzer/frameworks/numpy_rules.py": "TABLE = {}\n",
            # the adapter itself reads them: that is its job
            "hybridize/analyzer/frameworks/framework.py": (
                "from . import tensorflow_rules, torch_api\n"
            ),
            "hybridize/analyzer/facts/__init__.py": "",
            "hybridize/analyzer/facts/a.py": (
                "from hybridize.analyzer.frameworks.tensorflow_rules import TABLE\n"
                "from hybridize.analyzer.frameworks import torch_api\n"
                # shared, framework-neutral data is no framework's module
                "from hybridize.analyzer.frameworks.numpy_rules import TABLE as T\n"
                "from hybridize.analyzer.frameworks.framework import framework_of_api\n"
            ),
            "hybridize/lsp/b.py": (
                "def f():\n    import hybridize.analyzer.frameworks.torch_api\n"
            ),
            # the compiler runs the frameworks: outside the rule's scope
            "hybridize/compiler/c.py": "from hybridize.analyzer.frameworks import torch_api\n",
        },
    )
    imported = [
        ("hybridize/analyzer/facts/a.py:1", "tensorflow_rules"),
        ("hybridize/analyzer/facts/a.py:2", "torch_api"),
        ("hybridize/lsp/b.py:2", "torch_api"),
    ]
    assert rules_broken(root) == {
        "framework-table": [
            f"{where}: imports hybridize.analyzer.frameworks.{module}: ask the function's "
            "`Framework` for it"
            for where, module in imported
        ]
    }


def test_a_framework_name_as_a_default_is_reported(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "hybridize/__init__.py": "",
            "hybridize/analyzer/__init__.py": "",
            "hybridize/analyzer/a.py": (
                "from dataclasses import dataclass, field\n"
                "def f(x, framework='tensorflow'):\n    return x\n"
                "def g(*, target='torch'):\n    return target\n"
                "@dataclass\nclass C:\n    framework: str = 'tensorflow'\n"
                "    other: str = field(default='torch')\n"
                # a framework's name elsewhere is none of the rule's business
                "def h(name):\n    return name == 'tensorflow'\n"
                "def k(title='TensorFlow code'):\n    return title\n"
            ),
            # the adapter defines the frameworks: it may name them
            "hybridize/analyzer/frameworks/framework.py": "def f(name='torch'):\n    return name\n",
        },
    )
    defaults = [(2, "parameter"), (4, "parameter"), (8, "field"), (9, "field")]
    assert rules_broken(root) == {
        "framework-default": [
            f"hybridize/analyzer/a.py:{line}: a {what} defaults to a framework's name"
            for line, what in defaults
        ]
    }
