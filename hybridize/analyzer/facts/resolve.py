"""Name resolution across the project: what a module-level name, an import or a base class is.

Works on `ModuleSummary` values only, so it runs after the (parallel, cached) per-file phase.
What a name refers to is a `Ref`.

Module lookup follows how Python finds a script's imports: the importing file's folder first,
then each enclosing folder up to the root; a folder matches only through a `.py` file or an
`__init__.py`, so a folder named `tensorflow` never shadows the real TensorFlow.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import PurePosixPath
from typing import TypeVar, cast

from hybridize.analyzer.facts.compile_targets import CompileTargets, ModuleImport, compile_targets
from hybridize.analyzer.facts.refs import (
    UNKNOWN_REF,
    Ref,
    class_ref,
    ext_dotted,
    ext_ref,
    func_ref,
    global_ref,
    is_class_ref,
    is_ext_ref,
    is_func_ref,
    is_global_ref,
    is_module_ref,
    module_ref,
    ref_key,
)
from hybridize.analyzer.frameworks import lookup
from hybridize.analyzer.frameworks.framework import (
    DEFAULT_FRAMEWORK,
    Framework,
    LayerBase,
    framework_of_api,
    frameworks_using,
    is_foreign_library,
    named_layer_base,
)
from hybridize.analyzer.frameworks.namespaces import canonical_external
from hybridize.analyzer.summaries.ir import (
    ClassSummary,
    FunctionSummary,
    ImportSummary,
    ModuleSummary,
    function_syms,
    module_imports,
)
from hybridize.analyzer.summaries.keys import MODULE_CODE, ClassKey, FunctionKey
from hybridize.analyzer.summaries.syms import (
    Sym,
    attr_sym,
    call_sym,
    is_attr,
    is_class,
    is_def,
    is_lit,
    is_local,
    is_name,
    item_sym,
    lit_value,
    name_sym,
    sym_name,
)

BUILTIN_NAMES = frozenset(dir(builtins))
DYNAMIC_GLOBALS = "<globals>"
"""The prefix of the name of a `global_ref` standing for a name a module binds dynamically
(`ProjectIndex.dynamic_globals`): `<globals>Normal` for `Normal` (`dynamic_global_ref`)."""


def dynamic_global_ref(relpath: str, name: str) -> Ref:
    """The reference to `name` where module `relpath` may bind it dynamically."""
    return global_ref(relpath, f"{DYNAMIC_GLOBALS}{name}")


def dynamic_global_name(ref: Ref) -> str | None:
    """The name a `dynamic_global_ref` stands for; None for any other reference."""
    name = ref[2] if is_global_ref(ref) else None
    if name is not None and name.startswith(DYNAMIC_GLOBALS):
        return name[len(DYNAMIC_GLOBALS) :]
    return None


T = TypeVar("T")


def _referenced_names(fn: FunctionSummary) -> set[str]:
    """The free names a function's values (`function_syms`) and decorators refer to."""
    names = {
        sym[1]
        for sym in function_syms(fn)
        if is_name(sym) and isinstance(sym[1], str) and sym[1] not in fn.locals
    }
    names.update(d.name.split(".", 1)[0] for d in fn.decorators)
    return names


LAYER_ROLES = frozenset({"layer", "model"})
"""Class roles whose instances are called like functions and run a method of their own."""


@cache
def external_class_role(dotted: str) -> LayerBase | None:
    """The layer base a framework base class whose instances are layers is: one a framework
    knows by name (`Framework.layer_base_role`: a Keras layer or model), else whatever the
    framework tables say is a class of a layer role (a PyTorch `nn.Module`)."""
    named = named_layer_base(dotted)
    if named is not None:
        return named
    info = lookup(dotted)
    if info is None or info.kind != "class" or info.returns not in LAYER_ROLES:
        return None
    owner = framework_of_api(info.framework)
    return None if owner is None else LayerBase(info.returns, owner)


@dataclass(frozen=True, slots=True)
class ModuleFrameworks:
    """What a module's own imports say of its framework, for the summary it was read from."""

    module: ModuleSummary
    used: frozenset[Framework]
    """Every framework its imports name."""


@dataclass(slots=True)
class ProjectIndex:
    """All module summaries of a project with cross-module lookups."""

    modules: dict[str, ModuleSummary]
    package: str = ""
    """The dotted name of the analysed folder when it is itself inside a package
    (`keras.src` for `site-packages/keras/src`): `import keras.src.ops` then means `ops`."""
    _module_ref_cache: dict[tuple[str, str], Ref] = field(default_factory=dict)
    _global_cache: dict[tuple[str, str], Ref] = field(default_factory=dict)
    _class_role_cache: dict[ClassKey, LayerBase | None] = field(default_factory=dict)
    _mro_cache: dict[ClassKey, list[ClassKey]] = field(default_factory=dict)
    _base_refs_cache: dict[ClassKey, list[Ref]] = field(default_factory=dict)
    _method_cache: dict[tuple[ClassKey, str], FunctionKey | None] = field(default_factory=dict)
    _dispatch_cache: dict[tuple[ClassKey, str], tuple[FunctionKey, ...]] = field(
        default_factory=dict
    )
    _direct_subclasses: dict[ClassKey, list[ClassKey]] | None = None
    _dotted_cache: dict[tuple[str, str], Ref] = field(default_factory=dict)
    _dynamic_globals_cache: dict[str, tuple[tuple[str, Sym], ...]] = field(default_factory=dict)
    _module_frameworks_cache: dict[str, ModuleFrameworks] = field(default_factory=dict)
    _function_framework_cache: dict[FunctionKey, tuple[ModuleSummary, Framework]] = field(
        default_factory=dict
    )
    _compile_targets: CompileTargets | None = None
    _import_root_cache: dict[str, PurePosixPath] = field(default_factory=dict)
    _framework_by_key: dict[FunctionKey, Framework] = field(default_factory=dict)
    """`function_framework` by key, for this index only (never shared with the next: a
    module's body may choose its functions' framework, and an edit makes a new index); the
    verdicts and the fixed point ask tens of thousands of times."""
    _interface_memo: dict[str, object] = field(default_factory=dict)
    """`interface_cached` by name: taken over with the interface."""
    _keys: list[FunctionKey] | None = None
    _key_order: dict[FunctionKey, int] | None = None
    _function_cache: dict[FunctionKey, FunctionSummary] = field(default_factory=dict)
    """`function` by key: the fixed point and the verdicts ask millions of times, and the
    summaries of an index never change (an edit makes a new index)."""
    _test_case_cache: dict[ClassKey, bool] = field(default_factory=dict)
    """`is_test_case` by class: every construction of a project class asks (`object_role`)."""
    _folders: frozenset[str] | None = None
    """Every folder that holds a module of the project, at any depth (`namespace_package`)."""

    def __post_init__(self) -> None:
        # The project order (`project_keys`) is the order of the paths, whatever order the
        # summaries came in (workers finish in any order): the fixed points iterate in it,
        # and the first witness a finding names must not depend on it.
        if list(self.modules) != sorted(self.modules):
            self.modules = dict(sorted(self.modules.items()))

    def share_interface_caches(self, previous: ProjectIndex, changed: Iterable[str]) -> None:
        """Take over what `previous` resolved, when every module's interface is the same
        (`interface.module_interface`: imports, module-level names, classes with their bases
        and methods, function signatures) and only bodies differ: name resolution, class
        hierarchies and method lookups read nothing else. An edit then costs no new walk
        over every class of the project (`subclasses`), and the project's function keys
        when the `changed` modules list their functions in the same order."""
        self._module_ref_cache = previous._module_ref_cache
        self._global_cache = previous._global_cache
        self._class_role_cache = previous._class_role_cache
        self._mro_cache = previous._mro_cache
        self._base_refs_cache = previous._base_refs_cache
        self._method_cache = previous._method_cache
        self._dispatch_cache = previous._dispatch_cache
        self._direct_subclasses = previous._direct_subclasses
        self._dotted_cache = previous._dotted_cache
        self._module_frameworks_cache = previous._module_frameworks_cache
        self._function_framework_cache = previous._function_framework_cache
        self._compile_targets = previous._compile_targets
        self._interface_memo = previous._interface_memo
        self._framework_by_key = {}  # read through the caches just replaced
        if all(
            list(self.modules[r].functions) == list(previous.modules[r].functions) for r in changed
        ):
            self._keys = previous._keys  # the same functions, and in the same order
            self._key_order = previous._key_order

    def function_keys(self) -> list[FunctionKey]:
        """Every function key of the project (module code first), in project order: made
        once per index (the solver and the verdict phase each ask after every edit), and
        taken over with the interface, which fixes the modules and their functions. The
        list is shared: callers do not change it."""
        if self._keys is None:
            self._keys = [
                FunctionKey(relpath, q)
                for relpath, module in self.modules.items()
                for q in [MODULE_CODE, *module.functions]
            ]
        return self._keys

    def key_order(self) -> dict[FunctionKey, int]:
        """Each function key's place in `function_keys`: a part of the project (an
        incremental phase's scope) put in project order without a pass over every key.
        Taken over with the keys; shared: callers do not change it."""
        if self._key_order is None:
            self._key_order = {key: i for i, key in enumerate(self.function_keys())}
        return self._key_order

    def interface_cached(self, name: str, compute: Callable[[], T]) -> T:
        """`compute()`, a value read from the project's interface alone (imports,
        module-level names, classes with their bases and methods, signatures: what
        `share_interface_caches` takes over), made once under `name` and kept by the next
        index while the interface stays the same."""
        if name not in self._interface_memo:
            self._interface_memo[name] = compute()
        return cast("T", self._interface_memo[name])

    def key_set(self, keys: Iterable[FunctionKey]) -> Collection[FunctionKey]:
        """`keys` as a set to ask membership of: when they are every key of the project
        (`function_keys`, the list itself), the table of their places, made once per index,
        not a set of every key made again at each solve."""
        return self.key_order() if keys is self._keys else set(keys)

    # ------------------------------------------------------------- lookups by key

    def function(self, key: FunctionKey) -> FunctionSummary:
        found = self._function_cache.get(key)
        if found is not None:
            return found
        relpath, qualname = key
        module = self.modules[relpath]
        found = module.module_code if qualname == MODULE_CODE else module.functions[qualname]
        self._function_cache[key] = found
        return found

    def has_function(self, key: FunctionKey) -> bool:
        """Whether `key` names a function of the project (its module's code included): what
        `function(key)` answers without a `KeyError`."""
        if key in self._function_cache:
            return True
        module = self.modules.get(key.file)
        if module is None:
            return False
        return key.qualname == MODULE_CODE or key.qualname in module.functions

    def owner_key(self, key: FunctionKey) -> FunctionKey:
        """The function whose body runs this function's `def`: where its decorators and
        parameter defaults are evaluated (the enclosing function, else the module)."""
        relpath = key.file
        fn = self.function(key)
        if fn.parent_qualname is not None:
            return FunctionKey(relpath, fn.parent_qualname)
        if fn.class_qualname is not None:
            parent = self.modules[relpath].classes[fn.class_qualname].parent_qualname
            if parent is not None:
                return FunctionKey(relpath, parent)
        return FunctionKey.module_code(relpath)

    def klass(self, key: ClassKey) -> ClassSummary:
        relpath, qualname = key
        return self.modules[relpath].classes[qualname]

    # ------------------------------------------------------------- modules

    def find_module(self, dotted: str, importer: str) -> str | None:
        """Relpath of the project module `import dotted` loads from `importer`, if any.

        Absolute imports are searched where Python would find them: in the folder that holds
        the importer's top-level package (for a script outside any package, its own folder,
        which Python puts first on `sys.path`), then at the analysed root. A module inside a
        package never sees its siblings as top-level modules: `import jax.numpy` in
        `backend/jax/numpy.py` is the real JAX, not the file itself.
        """
        if not dotted:
            return None
        key = (dotted, importer)
        cached = self._module_ref_cache.get(key)
        if cached is not None:
            return cached[1] if cached else None
        if self.package and dotted.startswith(self.package + "."):
            dotted = dotted[len(self.package) + 1 :]
        elif self.package and dotted == self.package:
            found_init = "__init__.py" if "__init__.py" in self.modules else None
            self._module_ref_cache[key] = module_ref(found_init) if found_init else ()
            return found_init
        path = PurePosixPath(*dotted.split("."))
        found: str | None = None
        for folder in (self._import_root(importer), PurePosixPath(".")):
            for candidate in (f"{folder / path}.py", str(folder / path / "__init__.py")):
                candidate = candidate[2:] if candidate.startswith("./") else candidate
                if candidate in self.modules:
                    found = candidate
                    break
            if found is not None:
                break
        self._module_ref_cache[key] = module_ref(found) if found else ()
        return found

    def _import_root(self, importer: str) -> PurePosixPath:
        """The folder above the importer's outermost package (`__init__.py` chain), memoised
        per importer for this index (its modules, and so its packages, never change)."""
        found = self._import_root_cache.get(importer)
        if found is None:
            found = PurePosixPath(importer).parent
            while str(found) not in (".", "", "/") and self._is_package(found):
                found = found.parent
            self._import_root_cache[importer] = found
        return found

    def _is_package(self, folder: PurePosixPath) -> bool:
        init = str(folder / "__init__.py")
        return (init[2:] if init.startswith("./") else init) in self.modules

    def namespace_package(self, folder: PurePosixPath) -> str | None:
        """The module a project folder without an `__init__.py` that holds modules is when
        imported: a namespace package (PEP 420), named by the `__init__.py` path it does not
        have. It binds no name of its own; its submodules are its attributes (`member`)."""
        if self._folders is None:
            self._folders = frozenset(
                str(parent) for relpath in self.modules for parent in PurePosixPath(relpath).parents
            )
        if str(folder) in (".", "") or str(folder) not in self._folders:
            return None
        return None if self._is_package(folder) else str(folder / "__init__.py")

    def find_namespace_package(self, dotted: str, importer: str) -> str | None:
        """`namespace_package` of `import dotted` from `importer`, searched where
        `find_module` searches; never for a name of the standard library, a framework or a
        library the tables know: an installed regular package wins over a namespace one."""
        if not dotted or not is_foreign_library(dotted):
            return None
        if self.package and dotted.startswith(self.package + "."):
            dotted = dotted[len(self.package) + 1 :]
        path = PurePosixPath(*dotted.split("."))
        for folder in (self._import_root(importer), PurePosixPath(".")):
            found = self.namespace_package(folder / path)
            if found is not None:
                return found
        return None

    def find_relative_module(self, source: str, importer: str) -> str | None:
        level = len(source) - len(source.lstrip("."))
        rest = source[level:]
        folder = PurePosixPath(importer).parent
        for _ in range(level - 1):
            folder = folder.parent
        path = folder / PurePosixPath(*rest.split(".")) if rest else folder
        for candidate in (f"{path}.py", str(path / "__init__.py")):
            candidate = candidate[2:] if candidate.startswith("./") else candidate
            if candidate in self.modules:
                return candidate
        return None

    def _namespace_member(self, dotted: str, importer: str) -> str | None:
        """The submodule `from a.b import c` binds when `a.b` is a namespace package (no
        module of the project): `a/b/c.py`, a package `a/b/c/`, or a namespace folder."""
        relative = dotted.startswith(".")
        if not relative and not is_foreign_library(dotted):
            return None
        found = self.source_module(dotted, importer)
        if found is None and not relative:
            found = self.find_namespace_package(dotted, importer)
        return found

    def source_module(self, source: str, importer: str) -> str | None:
        """Relpath of the project module an import's source names from `importer` (`.x`
        relative to it, `a.b` absolute), if any."""
        if source.startswith("."):
            return self.find_relative_module(source, importer)
        return self.find_module(source, importer)

    # ------------------------------------------------------------- names

    def resolve_import(self, imp: ImportSummary, importer: str, depth: int = 0) -> Ref:
        """What an import binds its local name to."""
        if imp.member is None:
            relpath = self.source_module(imp.source, importer)
            if relpath is None:
                relpath = self.find_namespace_package(imp.source, importer)
            if relpath is not None:
                return module_ref(relpath)
            return ext_ref(canonical_external(imp.source))
        relpath = self.source_module(imp.source, importer)
        if relpath is None and imp.source.strip("."):
            # `from a.b import c` of a namespace package `a.b`: c is its submodule.
            submodule = self._namespace_member(f"{imp.source}.{imp.member}", importer)
            if submodule is not None:
                return module_ref(submodule)
        if relpath is not None:
            ref = self.resolve_global(relpath, imp.member, depth + 1)
            if ref != UNKNOWN_REF:
                return ref
            package_dir = PurePosixPath(relpath).parent
            for candidate in (
                f"{package_dir / imp.member}.py",
                str(package_dir / imp.member / "__init__.py"),
            ):
                candidate = candidate[2:] if candidate.startswith("./") else candidate
                if PurePosixPath(relpath).name == "__init__.py" and candidate in self.modules:
                    return module_ref(candidate)
            return UNKNOWN_REF
        if imp.source.startswith("."):
            if imp.source.strip(".") == "":
                # `from . import x` where x is a sibling module
                folder = PurePosixPath(importer).parent
                for _ in range(len(imp.source) - 1):
                    folder = folder.parent
                for candidate in (
                    f"{folder / imp.member}.py",
                    str(folder / imp.member / "__init__.py"),
                ):
                    candidate = candidate[2:] if candidate.startswith("./") else candidate
                    if candidate in self.modules:
                        return module_ref(candidate)
                namespace = self.namespace_package(folder / imp.member)
                if namespace is not None:
                    return module_ref(namespace)
            return UNKNOWN_REF
        return ext_ref(canonical_external(f"{imp.source}.{imp.member}"))

    def resolve_global(self, relpath: str, name: str, depth: int = 0) -> Ref:
        """A module-level name of a project module: def, class, import, variable, star, builtin."""
        key = (relpath, name)
        cached = self._global_cache.get(key)
        if cached is not None:
            return cached
        if depth > 20:
            return UNKNOWN_REF
        self._global_cache[key] = UNKNOWN_REF  # guards import cycles
        ref = self._resolve_global(relpath, name, depth)
        self._global_cache[key] = ref
        return ref

    def _resolve_global(self, relpath: str, name: str, depth: int) -> Ref:
        module = self.modules.get(relpath)
        if module is None:
            return UNKNOWN_REF
        assigned = module.module_code.locals.get(name)
        if assigned:
            for sym in reversed(assigned):
                if is_def(sym):
                    return func_ref(FunctionKey(relpath, sym[1]))
                if is_class(sym):
                    return class_ref(FunctionKey(relpath, sym[1]))
            return global_ref(relpath, name)
        imp = module.imports.get(name)
        if imp is not None:
            return self.resolve_import(imp, relpath, depth)
        for source in module.star_imports:
            star_module = self.source_module(source, relpath)
            if star_module is not None:
                exported = self.modules[star_module]
                if exported.all_names is not None and name not in exported.all_names:
                    continue
                if name.startswith("_"):
                    continue
                ref = self.resolve_global(star_module, name, depth + 1)
                if ref != UNKNOWN_REF:
                    return ref
            elif not source.startswith("."):
                candidate = canonical_external(f"{source}.{name}")
                if lookup(candidate) is not None:
                    return ext_ref(candidate)
        if name in BUILTIN_NAMES:
            return ext_ref(f"builtins.{name}")
        if self.dynamic_values(relpath, name):
            return dynamic_global_ref(relpath, name)
        return UNKNOWN_REF

    def dynamic_values(self, relpath: str, name: str) -> tuple[Sym, ...]:
        """The values module `relpath` may bind to `name` dynamically: those bound under a
        literal key equal to it, and those bound under a computed one."""
        return tuple(value for key, value in self.dynamic_globals(relpath) if key in (name, ""))

    def dynamic_globals(self, relpath: str) -> tuple[tuple[str, Sym], ...]:
        """The values a module's code binds through `globals()` at import, each with its key
        where a string literal ("" where computed): `globals()[name] = value`, through a
        local holding `globals()` too, or `setattr(sys.modules[__name__], name, value)`
        (edward2's loop binding each TFP distribution's name to `make_random_variable(cls)`).
        A name the module defines no other way may be any value bound under a computed key,
        or one bound under its own (`dynamic_values`)."""
        cached = self._dynamic_globals_cache.get(relpath)
        if cached is not None:
            return cached
        module = self.modules.get(relpath)
        if module is None:
            return ()
        code = module.module_code
        builtin = self.resolve_global(relpath, "globals") == ext_ref("builtins.globals")
        made = {
            call_sym(i) for i, site in enumerate(code.calls) if site.callee == name_sym("globals")
        }

        def globals_call(sym: Sym) -> bool:
            if is_local(sym) or is_name(sym):
                # A module-level name assigned `globals()` once (`_globals = globals()`).
                values = code.locals.get(sym_name(sym), [])
                return len(values) == 1 and values[0] in made
            return sym in made

        found: list[tuple[str, Sym]] = []
        if builtin:
            found = [
                (store.name, store.value)
                for store in code.stores
                if store.kind == "item" and globals_call(store.target)
            ]
        this_module = item_sym(attr_sym(name_sym("sys"), "modules"), name_sym("__name__"))
        for site in code.calls:
            args = site.args
            if site.callee == name_sym("setattr") and len(args) == 3 and args[0] == this_module:
                key = lit_value(args[1]) if is_lit(args[1]) else None
                found.append((key if isinstance(key, str) else "", args[2]))
        self._dynamic_globals_cache[relpath] = tuple(found)
        return self._dynamic_globals_cache[relpath]

    def resolve_dotted(self, relpath: str, dotted: str) -> Ref:
        """Resolve `a.b.c` as written in module `relpath` (annotations, decorators, bases)."""
        cached = self._dotted_cache.get((relpath, dotted))
        if cached is not None:
            return cached
        ref = self._resolve_dotted(relpath, dotted)
        self._dotted_cache[(relpath, dotted)] = ref
        return ref

    def _resolve_dotted(self, relpath: str, dotted: str) -> Ref:
        first, *rest = dotted.split(".")
        ref = self.alias_target(self.resolve_global(relpath, first))
        for part in rest:
            ref = self.alias_target(self.member(ref, part))
        return ref

    def alias_target(self, ref: Ref, depth: int = 0) -> Ref:
        """What a module-level alias names: `layers = tf.keras.layers` or `Base = mod.Base`,
        assigned once, at module level, to a dotted name, stands for that name (Python binds
        the very same object). Other refs, and variables holding computed values, are
        returned as they are."""
        if not is_global_ref(ref) or depth > 20:
            return ref
        module = self.modules.get(ref[1])
        values = module.module_code.locals.get(ref[2], []) if module is not None else []
        if len(values) != 1:
            return ref
        target = self._dotted_sym(ref[1], values[0], depth)
        return ref if target == UNKNOWN_REF else target

    def _dotted_sym(self, relpath: str, sym: tuple, depth: int) -> Ref:
        """The ref of a module-level name or attribute chain (`a.b.c`), else unknown."""
        if is_name(sym):
            return self.alias_target(self.resolve_global(relpath, sym[1]), depth + 1)
        if is_attr(sym):
            base = self._dotted_sym(relpath, sym[1], depth + 1)
            if base == UNKNOWN_REF:
                return UNKNOWN_REF
            return self.alias_target(self.member(base, sym[2]), depth + 1)
        return UNKNOWN_REF

    def member(self, ref: Ref, name: str) -> Ref:
        """`ref.name` for namespaces: modules and external names."""
        if is_module_ref(ref):
            inner = self.resolve_global(ref[1], name)
            if inner == UNKNOWN_REF:
                package_dir = PurePosixPath(ref[1]).parent
                for candidate in (
                    f"{package_dir / name}.py",
                    str(package_dir / name / "__init__.py"),
                ):
                    candidate = candidate[2:] if candidate.startswith("./") else candidate
                    if candidate in self.modules:
                        return module_ref(candidate)
                namespace = self.namespace_package(package_dir / name)
                if namespace is not None and PurePosixPath(ref[1]).name == "__init__.py":
                    return module_ref(namespace)
            return inner
        if is_ext_ref(ref):
            return ext_ref(canonical_external(f"{ref[1]}.{name}"))
        return UNKNOWN_REF

    # ------------------------------------------------------------- classes

    def base_refs(self, class_key: ClassKey) -> list[Ref]:
        """What each of the class's bases resolves to, in order (KeyError for a class the
        project does not have). Memoised with the interface caches (bases and the names they
        resolve through are the interface's): the method lookups, the class roles and the
        facts that walk a class's bases ask for the same classes thousands of times. The
        list is shared: callers do not change it."""
        found = self._base_refs_cache.get(class_key)
        if found is None:
            relpath = class_key.file
            found = [self.resolve_dotted(relpath, base) for base in self.klass(class_key).bases]
            self._base_refs_cache[class_key] = found
        return found

    def mro(self, class_key: ClassKey) -> list[ClassKey]:
        """Project classes in method-resolution order (depth-first, left to right, no repeats)."""
        cached = self._mro_cache.get(class_key)
        if cached is not None:
            return cached
        order: list[ClassKey] = []
        stack = [class_key]
        while stack:
            key = stack.pop(0)
            if key in order:
                continue
            order.append(key)
            stack[0:0] = [r[1] for r in self.base_refs(key) if is_class_ref(r)]
        self._mro_cache[class_key] = order
        return order

    def external_bases(self, class_key: ClassKey) -> list[Ref]:
        """The bases from outside the project (framework, library, builtins) of a class and
        of its project bases, in method-resolution order: what it inherits from outside."""
        return [
            ref for key in self.mro(class_key) for ref in self.base_refs(key) if is_ext_ref(ref)
        ]

    def find_method(self, class_key: ClassKey, name: str) -> FunctionKey | None:
        """Function key of `name` looked up through the class and its project bases."""
        cache_key = (class_key, name)
        if cache_key in self._method_cache:
            return self._method_cache[cache_key]
        found = self._find_method(class_key, name)
        self._method_cache[cache_key] = found
        return found

    def _find_method(self, class_key: ClassKey, name: str) -> FunctionKey | None:
        for key in self.mro(class_key):
            relpath, qualname = key
            cls = self.modules[relpath].classes[qualname]
            if name in cls.methods:
                return FunctionKey(relpath, f"{qualname}.{name}")
        return None

    def subclasses(self, class_key: ClassKey) -> list[ClassKey]:
        """Project classes deriving from `class_key`, directly or not (each once)."""
        if self._direct_subclasses is None:
            direct: dict[ClassKey, list[ClassKey]] = {}
            for relpath, module in self.modules.items():
                for qualname in module.classes:
                    key = FunctionKey(relpath, qualname)
                    for ref in self.base_refs(key):
                        if is_class_ref(ref) and ref_key(ref) != key:
                            direct.setdefault(ref[1], []).append(key)
            self._direct_subclasses = direct
        found: list[ClassKey] = []
        seen = {class_key}
        stack = list(self._direct_subclasses.get(class_key, ()))
        while stack:
            key = stack.pop()
            if key in seen:
                continue
            seen.add(key)
            found.append(key)
            stack.extend(self._direct_subclasses.get(key, ()))
        return found

    def dispatch(self, class_key: ClassKey, name: str) -> tuple[FunctionKey, ...]:
        """Every method `obj.name` may run when `obj` is an instance of `class_key` or of
        one of its project subclasses: `self.index(...)` in a base class runs the override of
        whichever subclass `self` is. The class's own lookup comes first, then the overrides
        sorted (the same in any file order)."""
        cache_key = (class_key, name)
        cached = self._dispatch_cache.get(cache_key)
        if cached is not None:
            return cached
        own = self.find_method(class_key, name)
        overrides = {
            method
            for subclass in self.subclasses(class_key)
            if (method := self.find_method(subclass, name)) is not None and method != own
        }
        result = ((own,) if own is not None else ()) + tuple(sorted(overrides, key=str))
        self._dispatch_cache[cache_key] = result
        return result

    def object_role(self, class_key: ClassKey) -> str:
        """The receiver role of an instance of a project class: its Keras role, "test_case"
        for a unittest/absltest/`tf.test` test case (whose assertions are eager-only), else
        "instance"."""
        role = self.layer_role(class_key)
        if role is not None:
            return role
        return "test_case" if self.is_test_case(class_key) else "instance"

    def is_test_case(self, class_key: ClassKey) -> bool:
        """A subclass of `unittest.TestCase` or `tf.test.TestCase`, through project bases."""
        found = self._test_case_cache.get(class_key)
        if found is None:
            found = self._test_case_cache[class_key] = any(
                ext_dotted(ref).endswith("TestCase") for ref in self.external_bases(class_key)
            )
        return found

    def compile_targets(self) -> CompileTargets:
        """Every module's compile target (`compile_targets`), from the project's imports:
        made once per index, and taken over with the interface, which fixes the imports."""
        if self._compile_targets is None:
            self._compile_targets = compile_targets(
                {
                    relpath: [
                        ModuleImport(frozenset(self.loaded_modules(imp, relpath)), imp.source)
                        for imp in module_imports(module)
                    ]
                    for relpath, module in self.modules.items()
                }
            )
        return self._compile_targets

    def loaded_modules(self, imp: ImportSummary, importer: str) -> set[str]:
        """The project modules an import loads (the source module, and a submodule member)."""
        found: set[str] = set()
        source = (
            self.find_relative_module(imp.source, importer)
            if imp.source.startswith(".")
            else self.find_module(imp.source, importer)
        )
        if source is not None:
            found.add(source)
        if imp.member is not None:
            ref = self.resolve_import(imp, importer)
            if (is_module_ref(ref) or is_global_ref(ref)) and ref[1] in self.modules:
                found.add(ref[1])
            elif is_func_ref(ref) or is_class_ref(ref):
                found.add(ref[1].file)
        return found

    def function_framework(self, key: FunctionKey) -> Framework:
        """The compile target whose rules judge a function's code, the verdict's included:
        its module's (`compile_targets`), or, in a module that imports more than one
        framework, the one the function itself uses (`_used_framework`)."""
        known = self._framework_by_key.get(key)
        if known is not None:
            return known
        relpath = key.file
        module = self.modules.get(relpath)
        if module is not None and self.mixes_frameworks(relpath):
            found = self._function_framework_cache.get(key)
            if found is None or found[0] is not module:
                used = self._used_framework(relpath, key)
                found = (module, used or self.compile_targets().framework(relpath))
                self._function_framework_cache[key] = found
            known = found[1]
        else:
            known = self.compile_targets().framework(relpath)
        self._framework_by_key[key] = known
        return known

    def mixes_frameworks(self, relpath: str) -> bool:
        """Whether the module's own imports name more than one framework (TensorFlow and
        PyTorch): its functions are then judged each by the one it uses."""
        module = self.modules.get(relpath)
        return module is not None and len(self._module_frameworks(relpath, module).used) > 1

    def _module_frameworks(self, relpath: str, module: ModuleSummary) -> ModuleFrameworks:
        """The frameworks a module's own imports name, found again only for a new summary of
        the module (an edit makes one: an edited import list is read again)."""
        found = self._module_frameworks_cache.get(relpath)
        if found is not None and found.module is module:
            return found
        roots = {
            imp.source.split(".")[0]
            for imp in module_imports(module)
            if not imp.source.startswith(".")
        }
        found = ModuleFrameworks(module, frameworks_using(roots))
        self._module_frameworks_cache[relpath] = found
        return found

    def is_shared_code(self, key: FunctionKey) -> bool:
        """Whether the function is code several frameworks share, which no one framework's
        decorator fits: its module imports none and modules of several import it (or it
        imports theirs: `CompileTargets.shared`), or its module imports several and the
        function's code names none of them (einops 0.8.2's `TorchBackend.from_numpy`, in
        the module holding every framework's backend class, each importing its framework
        when made)."""
        relpath = key.file
        if relpath in self.compile_targets().shared:
            return True
        return self.mixes_frameworks(relpath) and not self._used_frameworks(relpath, key)

    def _used_framework(self, relpath: str, key: FunctionKey) -> Framework | None:
        """The one framework whose names the function's code refers to (`torch.relu`, `tf.`
        anything, a name imported from either), its enclosing functions' included (a nested
        helper of a PyTorch function is PyTorch code); None when it names none or several."""
        used = self._used_frameworks(relpath, key)
        return next(iter(used)) if len(used) == 1 else None

    def _used_frameworks(self, relpath: str, key: FunctionKey) -> set[Framework]:
        """The frameworks whose names the function's code refers to, or else its nearest
        enclosing function's that names any (`_used_framework`)."""
        used: set[Framework] = set()
        qualname: str | None = key.qualname
        while qualname is not None and not used:
            try:
                fn = self.function(FunctionKey(relpath, qualname))
            except KeyError:
                break
            for name in _referenced_names(fn):
                ref = self.resolve_global(relpath, name)
                if is_ext_ref(ref):
                    root = ref[1].split(".", 1)[0]
                    used.update(frameworks_using((root,)))
            qualname = fn.parent_qualname
        return used

    def is_layer_call(self, key: FunctionKey) -> bool:
        """The method that calling an instance of its (framework layer) class runs: a Keras
        layer's or model's `call`, a PyTorch module's `forward` (`instance_call`)."""
        if key.is_module_code:
            return False
        fn = self.function(key)
        if fn.class_qualname is None or fn.parent_qualname is not None:
            return False
        class_key = ClassKey(key.file, fn.class_qualname)
        return self.layer_role(class_key) is not None and fn.name == self.instance_call(class_key)

    def layer_role(self, class_key: ClassKey) -> str | None:
        """'model' or 'layer' when the class derives from a framework's layer class (a Keras
        Model or Layer, a PyTorch `nn.Module`), else None."""
        found = self.layer_base(class_key)
        return None if found is None else found.role

    def instance_call(self, class_key: ClassKey) -> str:
        """The method that calling an instance of a layer class runs (`layer_role` not None):
        `call` for Keras, `forward` for PyTorch (`Framework.instance_call_method`; the
        default target's for a class that has none)."""
        found = self.layer_base(class_key)
        return DEFAULT_FRAMEWORK.instance_call_method if found is None else found.call_method

    def layer_base(self, class_key: ClassKey) -> LayerBase | None:
        """The class's framework layer base, through project bases; a "model" base wins over
        a "layer" one, and any layer base over a base that is none (a plain mixin listed
        before or after the layer base leaves the class a layer)."""
        if class_key in self._class_role_cache:
            return self._class_role_cache[class_key]
        self._class_role_cache[class_key] = None
        found: LayerBase | None = None
        for ref in self.base_refs(class_key):
            base: LayerBase | None = None
            if is_class_ref(ref):
                base = self.layer_base(ref[1])
            elif is_ext_ref(ref):
                base = external_class_role(ref[1])
            if base is not None and (found is None or base.role == "model"):
                found = base
            if found is not None and found.role == "model":
                break
        self._class_role_cache[class_key] = found
        return found
