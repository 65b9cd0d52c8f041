"""The project model: modules, their imports, classes and functions, with qualified names.

A project is every `.py` file below a root. Each file is parsed once with libcst. This module
indexes definitions (functions at any nesting, classes, methods) with qualified names like
Python's `__qualname__` without `<locals>`, and resolves import statements (absolute, relative,
aliased, `import a.b as c`, `from x import *`) either to modules of the project or to external
dotted names such as `tensorflow.keras.layers`. It walks statements only; expressions are the
business of the flow analysis.

Module lookup follows how Python finds modules for a script: a dotted name is searched in the
importing file's folder, then in each enclosing folder up to the root. A folder matches only
through a `.py` file or a package `__init__.py`, so a folder that happens to be called
`tensorflow` never shadows the real TensorFlow.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath

import libcst as cst
from hybridize.analyzer.positions import PositionIndex

from hybridize.model import FileError, Span

FunctionKey = str
"""`relpath::qualname`, unique within a project; also the report's selection key."""


def dotted_name(expr: cst.BaseExpression | None) -> str | None:
    """`a.b.c` for a Name/Attribute chain, else None."""
    parts: list[str] = []
    while isinstance(expr, cst.Attribute):
        parts.append(expr.attr.value)
        expr = expr.value
    if isinstance(expr, cst.Name):
        parts.append(expr.value)
        return ".".join(reversed(parts))
    return None


@dataclass(slots=True)
class ImportBinding:
    """A name bound by an import: to a project module, a project module's member, or external."""

    local: str
    module_relpath: str | None = None
    member: str | None = None
    external: str | None = None


@dataclass(slots=True)
class ClassInfo:
    """A class definition and what the analysis learns about its instances."""

    module: ModuleInfo
    qualname: str
    node: cst.ClassDef
    base_exprs: tuple[str, ...]
    methods: dict[str, FunctionInfo] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return f"{self.module.relpath}::{self.qualname}"


@dataclass(slots=True)
class FunctionInfo:
    """A function or method definition."""

    module: ModuleInfo
    qualname: str
    node: cst.FunctionDef
    cls: ClassInfo | None
    parent: FunctionInfo | None
    decorators: tuple[str, ...]
    nested: dict[str, FunctionInfo] = field(default_factory=dict)

    @property
    def key(self) -> FunctionKey:
        return f"{self.module.relpath}::{self.qualname}"

    @property
    def name(self) -> str:
        return self.node.name.value

    @property
    def is_staticmethod(self) -> bool:
        return "staticmethod" in self.decorators

    @property
    def is_classmethod(self) -> bool:
        return "classmethod" in self.decorators

    @property
    def binds_receiver(self) -> bool:
        """A method whose first parameter is `self` or `cls`, bound at the call."""
        return self.cls is not None and not self.is_staticmethod

    @property
    def span(self) -> Span:
        return self.module.positions.span(self.node)

    def parameters(self) -> list[cst.Param]:
        """Every parameter in order: positional-only, regular, *args, keyword-only, **kwargs."""
        p = self.node.params
        params = [*p.posonly_params, *p.params]
        if isinstance(p.star_arg, cst.Param):
            params.append(p.star_arg)
        params.extend(p.kwonly_params)
        if p.star_kwarg is not None:
            params.append(p.star_kwarg)
        return params

    def explicit_parameters(self) -> list[cst.Param]:
        """The parameters a caller supplies: without the bound `self`/`cls`."""
        params = self.parameters()
        return params[1:] if self.binds_receiver and params else params


@dataclass(slots=True)
class ModuleInfo:
    """One parsed file of the project."""

    relpath: str
    tree: cst.Module
    text: str
    positions: PositionIndex
    imports: dict[str, ImportBinding] = field(default_factory=dict)
    star_imports: list[ImportBinding] = field(default_factory=list)
    functions: dict[str, FunctionInfo] = field(default_factory=dict)
    classes: dict[str, ClassInfo] = field(default_factory=dict)
    top_functions: dict[str, FunctionInfo] = field(default_factory=dict)
    top_classes: dict[str, ClassInfo] = field(default_factory=dict)
    globals_assigned: set[str] = field(default_factory=set)
    all_names: tuple[str, ...] | None = None

    @property
    def folder(self) -> PurePosixPath:
        return PurePosixPath(self.relpath).parent

    @property
    def is_package_init(self) -> bool:
        return PurePosixPath(self.relpath).name == "__init__.py"

    @property
    def is_test_module(self) -> bool:
        name = PurePosixPath(self.relpath).name
        return name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"


def decorator_name(decorator: cst.Decorator) -> str:
    """The decorator's dotted name, arguments dropped: `tf.function(jit_compile=True)` -> `tf.function`."""
    expr = decorator.decorator
    if isinstance(expr, cst.Call):
        expr = expr.func
    return dotted_name(expr) or ""


class _Indexer:
    """Collects definitions and imports of one module by walking statements only."""

    def __init__(self, module: ModuleInfo) -> None:
        self.module = module

    def run(self) -> None:
        self._body(self.module.tree.body, prefix="", cls=None, parent=None, top=True)

    def _body(
        self,
        body: Sequence[cst.BaseStatement] | Sequence[cst.BaseSmallStatement],
        *,
        prefix: str,
        cls: ClassInfo | None,
        parent: FunctionInfo | None,
        top: bool,
    ) -> None:
        for stmt in body:
            self._statement(stmt, prefix=prefix, cls=cls, parent=parent, top=top)

    def _statement(
        self,
        stmt: cst.CSTNode,
        *,
        prefix: str,
        cls: ClassInfo | None,
        parent: FunctionInfo | None,
        top: bool,
    ) -> None:
        if isinstance(stmt, cst.FunctionDef):
            self._function(stmt, prefix=prefix, cls=cls, parent=parent, top=top)
        elif isinstance(stmt, cst.ClassDef):
            self._class(stmt, prefix=prefix, parent=parent, top=top)
        elif isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if top and isinstance(small, cst.Import | cst.ImportFrom):
                    self._import(small)
                elif top and isinstance(small, cst.Assign | cst.AnnAssign | cst.AugAssign):
                    self._global_assignment(small)
        elif isinstance(stmt, cst.If | cst.Try | cst.TryStar | cst.With | cst.For | cst.While):
            # Definitions and imports under `if`, `try`, `with` keep their scope.
            for block in _blocks(stmt):
                self._body(block, prefix=prefix, cls=cls, parent=parent, top=top)
        elif isinstance(stmt, cst.Match):
            for case in stmt.cases:
                self._body(_block_body(case.body), prefix=prefix, cls=cls, parent=parent, top=top)

    def _global_assignment(self, small: cst.Assign | cst.AnnAssign | cst.AugAssign) -> None:
        targets: list[cst.BaseExpression] = []
        if isinstance(small, cst.Assign):
            targets = [t.target for t in small.targets]
        else:
            targets = [small.target]
        for target in targets:
            for name in _target_names(target):
                self.module.globals_assigned.add(name)
                if name == "__all__" and isinstance(small, cst.Assign):
                    self.module.all_names = _string_list(small.value)

    def _function(
        self,
        node: cst.FunctionDef,
        *,
        prefix: str,
        cls: ClassInfo | None,
        parent: FunctionInfo | None,
        top: bool,
    ) -> None:
        qualname = f"{prefix}{node.name.value}"
        info = FunctionInfo(
            module=self.module,
            qualname=qualname,
            node=node,
            cls=cls,
            parent=parent,
            decorators=tuple(decorator_name(d) for d in node.decorators),
        )
        self.module.functions[qualname] = info
        if cls is not None:
            cls.methods[node.name.value] = info
        elif parent is not None:
            parent.nested[node.name.value] = info
        elif top:
            self.module.top_functions[node.name.value] = info
        self._body(_block_body(node.body), prefix=f"{qualname}.", cls=None, parent=info, top=False)

    def _class(
        self, node: cst.ClassDef, *, prefix: str, parent: FunctionInfo | None, top: bool
    ) -> None:
        qualname = f"{prefix}{node.name.value}"
        bases = tuple(
            name
            for arg in node.bases
            if arg.keyword is None
            if (name := dotted_name(arg.value)) is not None
        )
        info = ClassInfo(module=self.module, qualname=qualname, node=node, base_exprs=bases)
        self.module.classes[qualname] = info
        if top:
            self.module.top_classes[node.name.value] = info
        self._body(
            _block_body(node.body), prefix=f"{qualname}.", cls=info, parent=parent, top=False
        )

    def _import(self, node: cst.Import | cst.ImportFrom) -> None:
        project = self.module
        if isinstance(node, cst.Import):
            for alias in node.names:
                full = dotted_name(alias.name) or ""
                if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                    local = alias.asname.name.value
                    project.imports[local] = ImportBinding(local, external=full)
                else:
                    first = full.split(".")[0]
                    project.imports[first] = ImportBinding(first, external=first)
            return
        level = len(node.relative)
        module = dotted_name(node.module) if node.module is not None else ""
        source = ("." * level) + (module or "")
        if isinstance(node.names, cst.ImportStar):
            project.star_imports.append(ImportBinding("*", external=source))
            return
        for alias in node.names:
            name = alias.name.value if isinstance(alias.name, cst.Name) else ""
            local = name
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            project.imports[local] = ImportBinding(local, member=name, external=source)


def _blocks(stmt: cst.CSTNode) -> Iterator[Sequence[cst.BaseStatement]]:
    if isinstance(stmt, cst.If):
        yield _block_body(stmt.body)
        orelse = stmt.orelse
        while orelse is not None:
            yield _block_body(orelse.body)
            orelse = orelse.orelse if isinstance(orelse, cst.If) else None
    elif isinstance(stmt, cst.Try | cst.TryStar):
        yield _block_body(stmt.body)
        for handler in stmt.handlers:
            yield _block_body(handler.body)
        if stmt.orelse is not None:
            yield _block_body(stmt.orelse.body)
        if stmt.finalbody is not None:
            yield _block_body(stmt.finalbody.body)
    elif isinstance(stmt, cst.With):
        yield _block_body(stmt.body)
    elif isinstance(stmt, cst.For | cst.While):
        yield _block_body(stmt.body)
        if stmt.orelse is not None:
            yield _block_body(stmt.orelse.body)


def _block_body(block: cst.BaseSuite) -> Sequence[cst.BaseStatement]:
    if isinstance(block, cst.IndentedBlock):
        return block.body
    if isinstance(block, cst.SimpleStatementSuite):
        return [cst.SimpleStatementLine(body=block.body)]
    return []


def _target_names(target: cst.BaseExpression) -> Iterator[str]:
    if isinstance(target, cst.Name):
        yield target.value
    elif isinstance(target, cst.Tuple | cst.List):
        for element in target.elements:
            yield from _target_names(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from _target_names(target.value)


def _string_list(value: cst.BaseExpression) -> tuple[str, ...] | None:
    if not isinstance(value, cst.List | cst.Tuple):
        return None
    names: list[str] = []
    for element in value.elements:
        if isinstance(element.value, cst.SimpleString):
            names.append(element.value.evaluated_value)  # type: ignore[arg-type]
        else:
            return None
    return tuple(names)


@dataclass(slots=True)
class Project:
    """All modules of one analysed root, indexed, with import resolution."""

    modules: dict[str, ModuleInfo]
    errors: list[FileError]

    def __post_init__(self) -> None:
        for module in self.modules.values():
            _Indexer(module).run()

    def functions(self) -> Iterator[FunctionInfo]:
        for relpath in sorted(self.modules):
            yield from self.modules[relpath].functions.values()

    def classes(self) -> Iterator[ClassInfo]:
        for relpath in sorted(self.modules):
            yield from self.modules[relpath].classes.values()

    def find_module(self, dotted: str, importer: ModuleInfo) -> ModuleInfo | None:
        """The project module that `import dotted` in `importer` would load, if any."""
        if not dotted:
            return None
        path = PurePosixPath(*dotted.split("."))
        folder = importer.folder
        while True:
            for candidate in (folder / f"{path}.py", folder / path / "__init__.py"):
                found = self.modules.get(_normal(candidate))
                if found is not None:
                    return found
            if folder == PurePosixPath(".") or str(folder) in ("", "/"):
                return None
            folder = folder.parent

    def find_relative_module(self, source: str, importer: ModuleInfo) -> ModuleInfo | None:
        """Resolve `from .x import ...` (source `.x`) or `from .. import` relative to a package."""
        level = len(source) - len(source.lstrip("."))
        rest = source[level:]
        folder = importer.folder
        for _ in range(level - 1):
            folder = folder.parent
        path = folder / PurePosixPath(*rest.split(".")) if rest else folder
        for candidate in (PurePosixPath(f"{path}.py"), path / "__init__.py"):
            found = self.modules.get(_normal(candidate))
            if found is not None:
                return found
        return None

    def module_for_binding(self, binding: ImportBinding, importer: ModuleInfo) -> ModuleInfo | None:
        """The project module an import statement's source names (not the member), if any."""
        source = binding.external or ""
        if source.startswith("."):
            return self.find_relative_module(source, importer)
        return self.find_module(source, importer)


def _normal(path: PurePosixPath) -> str:
    text = str(path)
    return text[2:] if text.startswith("./") else text
