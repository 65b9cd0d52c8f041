"""The classes a project exports as its public API: what its users import by a name the
package chose to offer, outside the project.

A package names its API in its `__init__.py`: `from .detection_generator import
MultilevelDetectionGenerator` in `official/vision/modeling/layers/__init__.py` makes
`official.vision.modeling.layers.MultilevelDetectionGenerator` a name users write (and
`tensorflow_models.vision.layers.MultilevelDetectionGenerator` one more step up). A module
names its API in `__all__`. Any module path without an underscore can be imported, but an
application's `models/resnet.py` is as importable as a library's: what tells an API apart is
that the package re-exports it, or lists it.

A class is exported when

- a package's `__init__.py` (of a public package path, no folder starting with an underscore)
  binds a public name to it: an import (`from .x import C`, `from .x import *` when `C` is
  public and in `x.__all__` where there is one), or a module-level alias (`C = x.C`);
- such an `__init__.py` binds a public name to the module defining it (`from . import x`,
  `from pkg import x`): `pkg.x.C` is an attribute path of the package (public classes of `x`);
- a module of a public path lists it in `__all__`.

A module-level function is also public API where it is reached by its module's path
(`imported_functions`): a public function of a public module that some other module of the
project (its tests, examples and documentation code included) imports by the absolute package
path users write (`from astroNN.nn.losses import nll` in `tests/test_loss_func.py`). The package
chose no name for it, but the tests stand in for its users, who import it the same way.

Read from module summaries only (`ProjectIndex`), never by importing the code.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import PurePosixPath

from hybridize.analyzer.facts.refs import (
    Ref,
    is_class_ref,
    is_func_ref,
    is_module_ref,
    module_relpath,
    ref_key,
)
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.summaries.ir import ModuleSummary, module_imports
from hybridize.analyzer.summaries.keys import ClassKey, FunctionKey

MAX_STAR_DEPTH = 10
"""How deep the names a star import binds are followed through star imports of the star
module (a cycle of star imports is an error in the program, not a reason to recurse)."""


def public_path(relpath: str, class_qualname: str | None = None) -> bool:
    """Whether a module (and a class in it) is part of its package's public names: no
    folder, module or class (outer classes included) of its path starts with an underscore
    (`__init__` aside)."""
    names = [
        *relpath.removesuffix(".py").split("/"),
        *(class_qualname.split(".") if class_qualname else ()),
    ]
    return not any(n.startswith("_") and n != "__init__" for n in names)


def exported_classes(
    index: ProjectIndex, is_test_module: Callable[[str], bool]
) -> dict[ClassKey, str]:
    """Class -> the dotted name a package exports it under (the first found, in module
    order), for every class the project exports as its public API (the module's docstring
    says which). `is_test_module` (a relpath) leaves out test code."""
    return _exported(index, is_test_module, is_class_ref, _public_classes)


def exported_functions(
    index: ProjectIndex, is_test_module: Callable[[str], bool]
) -> dict[FunctionKey, str]:
    """Module-level function -> the dotted name a package exports it under, by the rules
    `exported_classes` follows for classes: bound by a public name in a public package's
    `__init__.py` (`from ._rotation import angles_to_quaternion` in `e3nn/o3/__init__.py`),
    a public function of a module such an `__init__.py` binds by name (`from . import
    quaternion` in `tensorflow_graphics/geometry/transformation/__init__.py` makes
    `...transformation.quaternion.multiply` an attribute path), or listed in `__all__` of a
    public module. Nested functions and methods are not module attributes: never exported
    here."""
    return _exported(index, is_test_module, _is_module_function_ref, _public_functions)


def imported_functions(
    index: ProjectIndex, is_test_module: Callable[[str], bool]
) -> dict[FunctionKey, tuple[str, str]]:
    """Module-level function -> (its dotted path, the first module importing it by that
    path), for every public function (no leading underscore) of a public module (no
    underscore in its path, no test module) of a package that another module imports by its
    absolute module path (`from pkg.losses import nll`): the way its users reach it. A
    top-level module imported by its bare name (`from main import f` in a program's test)
    is a script's module beside its tests, not a package's path: it does not count. The importer is a
    test module or a module of a public path; a relative import (`from .losses import nll`)
    is the package's own wiring, and a private module's import (`pkg/_impl.py`) reaches it
    for the package only: neither counts. In module order, so the first importer is the
    same in every run."""
    found: dict[FunctionKey, tuple[str, str]] = {}
    for importer in sorted(index.modules):
        test = is_test_module(importer)
        if not test and not public_path(importer):
            continue
        for imp in module_imports(index.modules[importer]):
            if (
                imp.member is None
                or imp.member.startswith("_")
                or imp.source.startswith(".")
                or "." not in imp.source
            ):
                continue  # not `from package.module import name`
            source = index.source_module(imp.source, importer)
            if (
                source is None
                or source == importer
                or PurePosixPath(source).name == "__init__.py"
                or is_test_module(source)
                or not public_path(source)
            ):
                continue
            ref = index.alias_target(index.resolve_global(source, imp.member))
            if not _is_module_function_ref(ref):
                continue
            key = ref_key(ref)
            if key.file == source and key.qualname == imp.member and key not in found:
                found[key] = (f"{imp.source}.{imp.member}", importer)
    return found


def _is_module_function_ref(ref: Ref) -> bool:
    """A reference to a module-level function (no method, no nested definition)."""
    return is_func_ref(ref) and "." not in ref_key(ref).qualname


def _exported(
    index: ProjectIndex,
    is_test_module: Callable[[str], bool],
    is_wanted: Callable[[Ref], bool],
    public_of_module: Callable[[ModuleSummary], Iterator[str]],
) -> dict[FunctionKey, str]:
    """The definitions `is_wanted` accepts (class or function refs) that the project exports
    (`exported_classes`), by key, with the dotted name of their first export;
    `public_of_module` lists a module's public definitions of that kind (for a module bound
    by name)."""
    found: dict[FunctionKey, str] = {}

    def add(ref: Ref, dotted: str) -> None:
        if is_wanted(ref):
            key = ref_key(ref)  # `is_wanted` accepts only function and class refs
            if not is_test_module(key.file):
                found.setdefault(key, dotted)
            return
        if not is_module_ref(ref):
            return
        relpath = module_relpath(ref)
        if PurePosixPath(relpath).name != "__init__.py" and not is_test_module(relpath):
            # a module bound by name: its public definitions are attributes of the package
            # (a package's own `__init__.py` names its exports itself, read in its turn)
            module = index.modules.get(relpath)
            for qualname in () if module is None else public_of_module(module):
                found.setdefault(FunctionKey(relpath, qualname), f"{dotted}.{qualname}")

    for relpath in sorted(index.modules):
        module = index.modules[relpath]
        if is_test_module(relpath) or not public_path(relpath):
            continue
        dotted = _dotted(index, relpath)
        if PurePosixPath(relpath).name == "__init__.py":
            for name in sorted(_bound_names(index, relpath, module, 0)):
                if not name.startswith("_"):
                    ref = index.alias_target(index.resolve_global(relpath, name))
                    add(ref, f"{dotted}.{name}" if dotted else name)
        for name in module.all_names or ():
            ref = index.alias_target(index.resolve_global(relpath, name))
            if is_wanted(ref):
                add(ref, f"{dotted}.{name}" if dotted else name)
    return found


def _public_classes(module: ModuleSummary) -> Iterator[str]:
    """The module's top-level classes of public names (`__all__` where it has one)."""
    for qualname, summary in module.classes.items():
        if summary.parent_qualname is not None or "." in qualname or qualname.startswith("_"):
            continue
        if module.all_names is None or qualname in module.all_names:
            yield qualname


def _public_functions(module: ModuleSummary) -> Iterator[str]:
    """The module's top-level functions of public names (`__all__` where it has one)."""
    for qualname, summary in module.functions.items():
        if (
            summary.class_qualname is not None
            or summary.parent_qualname is not None
            or "." in qualname
            or qualname.startswith("_")
        ):
            continue
        if module.all_names is None or qualname in module.all_names:
            yield qualname


def _bound_names(index: ProjectIndex, relpath: str, module: ModuleSummary, depth: int) -> set[str]:
    """The names a module binds at module level: its imports, its assignments and
    definitions, and what its star imports of project modules bind (`__all__` where the star
    module has one)."""
    names = {*module.imports, *module.module_code.locals}
    if depth >= MAX_STAR_DEPTH:
        return names
    for source in module.star_imports:
        star = index.source_module(source, relpath)
        star_module = None if star is None else index.modules.get(star)
        if star is None or star_module is None:
            continue
        if star_module.all_names is not None:
            names.update(star_module.all_names)
        else:
            names.update(
                n
                for n in _bound_names(index, star, star_module, depth + 1)
                if not n.startswith("_")
            )
    return names


def _dotted(index: ProjectIndex, relpath: str) -> str:
    """The dotted module name of a module (a package by its `__init__.py`), with the analysed
    folder's own package name in front where it has one (`ProjectIndex.package`)."""
    parts = relpath.removesuffix(".py").split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    prefix = [index.package] if index.package else []
    return ".".join([*prefix, *parts])
