"""Which framework compiles a module's functions: the one answer every rule and the verdict read.

A project is written for a framework, and so are its helper modules, even those that import
none (a PyTorch project's `utils.py` of shape arithmetic on `torch` tensors it never names).
A module's compile target is therefore, in this order:

1. the framework its own imports name (the first in precedence, `FRAMEWORKS`, when they name
   several: each function of such a module is then judged by the one it uses itself,
   `ProjectIndex.function_framework`);
2. else the targets of the project modules it imports, through those importing no framework
   themselves (a module using a PyTorch helper module is PyTorch code, even when that helper
   imports a TensorFlow module in turn);
3. else the framework of the modules that import it, directly or through other such modules
   (a helper module that only PyTorch code imports is PyTorch's helper);
4. else the framework the project's modules import (a PyTorch project's stand-alone helper);
5. else, in a project naming no framework at all, the default target (`DEFAULT_FRAMEWORK`).

A module importing no framework whose step 2 or 3 finds several is `shared` by them: HY006
keeps its functions as they are (a decorator of either framework would tie the other's
callers to it, and make the module import it).

Only imports decide (no call graph): the facts that the rules compute depend on the answer,
so it is known before them, and it changes only when an import does (`module_interface`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from hybridize.analyzer.frameworks.framework import (
    DEFAULT_FRAMEWORK,
    FRAMEWORKS,
    Framework,
    first_framework,
    framework_of_imports,
    frameworks_using,
)

Value = TypeVar("Value")


@dataclass(frozen=True, slots=True)
class ModuleImport:
    """One import of a module: the project modules it loads, and its source as written."""

    loads: frozenset[str]
    """The project modules (relpaths) it loads: empty for an import of an outside package."""
    source: str
    """The imported module as written (`torch.nn`, `.utils`)."""

    @property
    def outside_root(self) -> str | None:
        """The top-level package of an import of an outside package, None for a project one."""
        if self.loads or self.source.startswith("."):
            return None
        return self.source.split(".")[0]


def is_framework_package(root: str) -> bool:
    """Whether a top-level package belongs to a framework (`torch`, `tensorflow`, `keras`)."""
    return any(f.uses(root) for f in FRAMEWORKS)


def reaching_roots(
    imports: Mapping[str, Iterable[ModuleImport]], relevant: Callable[[str], bool]
) -> dict[str, set[str]]:
    """The top-level packages `relevant` accepts that each module imports, directly or
    through the project modules it imports (modules reached by none are left out)."""
    direct: dict[str, set[str]] = {}
    imported_by: dict[str, set[str]] = {}
    for relpath, loaded in imports.items():
        for imp in loaded:
            for target in imp.loads:
                imported_by.setdefault(target, set()).add(relpath)
            root = imp.outside_root
            if root is not None and relevant(root):
                direct.setdefault(relpath, set()).add(root)
    return _propagate(direct, imported_by)


def _propagate(
    seeds: Mapping[str, Collection[Value]], edges: Mapping[str, Collection[str]]
) -> dict[str, set[Value]]:
    """`seeds` spread along `edges` (from a node to each of its successors) to a fixed point:
    every node's values and those of every node with a path to it."""
    found = {node: set(values) for node, values in seeds.items()}
    stack = list(found)
    while stack:
        node = stack.pop()
        for successor in edges.get(node, ()):
            known = found.setdefault(successor, set())
            if not found[node] <= known:
                known |= found[node]
                stack.append(successor)
    return found


@dataclass(frozen=True, slots=True)
class CompileTargets:
    """Every module's compile target (see the module docstring), from the project's imports."""

    reaching: dict[str, set[str]]
    """The framework packages each module imports, itself or through the project modules it
    imports (`reaching_roots`): the modules with verdicts, and whether TensorFlow or Keras."""
    frameworks: dict[str, Framework]
    """Each module's compile target."""
    shared: frozenset[str] = frozenset()
    """Modules importing no framework whose target steps 2 or 3 chose among several
    frameworks (TensorFlow by precedence): the framework-neutral core of a multi-framework
    library, which TensorFlow and PyTorch modules import alike (einops 0.8.2's `einops.py`,
    imported by its PyTorch and its TensorFlow layers)."""

    def framework(self, relpath: str) -> Framework:
        """The compile target of a module's functions (`DEFAULT_FRAMEWORK` for a module the
        project does not have)."""
        return self.frameworks.get(relpath, DEFAULT_FRAMEWORK)


def compile_targets(imports: Mapping[str, Collection[ModuleImport]]) -> CompileTargets:
    """The compile target of every module of a project whose modules import `imports`."""
    reaching = reaching_roots(imports, is_framework_package)
    own = {
        relpath: {r for imp in loaded if (r := imp.outside_root) is not None}
        for relpath, loaded in imports.items()
    }
    itself = {r: f for r, roots in own.items() if (f := framework_of_imports(roots))}
    # Up: the targets of the modules a module imports, and of those they import in turn, down
    # to the nearest modules with a framework of their own.
    importers: dict[str, set[str]] = {}
    for relpath, loaded in imports.items():
        for imp in loaded:
            for target in imp.loads:
                if relpath not in itself:
                    importers.setdefault(target, set()).add(relpath)
    # (each module importing a framework carries every framework it imports: a module shared
    # by several is found; the first of them stays the target)
    below = _propagate({r: set(frameworks_using(own[r])) for r in itself}, importers)
    known = {r: f for r in imports if (f := itself.get(r) or first_framework(below.get(r, ())))}
    # Down: what the modules with a target import, and the modules those import in turn, up
    # to the next module with a target.
    imported = {
        relpath: {m for imp in loaded for m in imp.loads if m not in known}
        for relpath, loaded in imports.items()
    }
    # (a module importing none carries down every framework it was found under: the modules
    # only a shared one imports are shared too)
    by_importers = _propagate(
        {r: set(frameworks_using(own[r])) if r in itself else below[r] for r in known}, imported
    )
    project = framework_of_imports(set().union(*own.values())) or DEFAULT_FRAMEWORK
    shared = frozenset(
        relpath
        for relpath in imports
        if relpath not in itself and len(below.get(relpath) or by_importers.get(relpath) or ()) > 1
    )
    return CompileTargets(
        reaching,
        {
            relpath: known.get(relpath) or first_framework(by_importers.get(relpath, ())) or project
            for relpath in imports
        },
        shared,
    )
