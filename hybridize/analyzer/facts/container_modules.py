"""The modules a project container module runs: a subclass of `nn.Sequential` without a
`forward` of its own.

Calling such an object runs the framework's `forward`, which calls in turn the modules its
constructor handed to the base (`super().__init__(*layers)`). Which those are the analysis
reads from the constructors (the class's and its project bases'): every project module
class they name, built there (`Linear(before, after)`), chosen there (`normalization =
LayerNorm if normalize else ...`) or given to a built module (`layer.__class__ =
MonotonicLinear`). zuko 1.6.0's `MLP(nn.Sequential)` builds its `Linear` layers so, and
`MonotonicMLP(MLP)` turns them into `MonotonicLinear`s.

Read from the summaries as they are, each time it is asked (only for such a class), so an
edit of a constructor is seen at once.
"""

from __future__ import annotations

from collections.abc import Iterator

from hybridize.analyzer.facts.refs import ext_dotted, is_class_ref, is_ext_ref, ref_key
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.frameworks import lookup
from hybridize.analyzer.summaries.ir import FunctionSummary, function_syms
from hybridize.analyzer.summaries.keys import ClassKey, FunctionKey
from hybridize.analyzer.summaries.syms import is_name, sym_name

MAX_NAMES = 200
"""How many names the constructors of one container are read for at most."""


def container_modules(index: ProjectIndex, class_key: ClassKey) -> list[ClassKey]:
    """The project module classes an instance of `class_key` runs when called, when it is a
    container (a framework base that chains the modules it is given, `chains_modules`) with
    no project method for its call; else none."""
    if index.layer_role(class_key) is None:
        return []
    if index.find_method(class_key, index.instance_call(class_key)) is not None:
        return []
    if not any(_chains(ref) for ref in index.external_bases(class_key)):
        return []
    found: dict[ClassKey, None] = {}
    for init in own_constructors(index, class_key):
        fn = index.function(init)
        for name in _names(fn):
            ref = index.resolve_global(init.file, name)
            if is_class_ref(ref) and ref_key(ref) != class_key and index.layer_role(ref_key(ref)):
                found[ref_key(ref)] = None
    return list(found)


def own_constructors(index: ProjectIndex, class_key: ClassKey) -> list[FunctionKey]:
    """The `__init__` methods the class and its project bases define, in method resolution
    order: what builds an instance's modules."""
    found = []
    for owner in index.mro(class_key):
        init = index.find_method(owner, "__init__")
        if init is not None and init.qualname == f"{owner.qualname}.__init__":
            found.append(init)
    return found


def _chains(ref: tuple) -> bool:
    if not is_ext_ref(ref):
        return False
    info = lookup(ext_dotted(ref))
    return info is not None and info.chains_modules


def _names(fn: FunctionSummary) -> Iterator[str]:
    """The global names a body reads (in its calls, locals, stores, returns and loops), each
    once, at most `MAX_NAMES`."""
    seen: set[str] = set()
    for sym in function_syms(fn):
        if len(seen) >= MAX_NAMES:
            return
        if is_name(sym) and sym_name(sym) not in seen:
            seen.add(sym_name(sym))
            yield sym_name(sym)


def container_forward_methods(index: ProjectIndex, class_key: ClassKey) -> list[FunctionKey]:
    """The methods calling a container's instance runs (`container_modules`): the instance
    call of each module class it holds, and of their project subclasses."""
    return [
        method
        for module in container_modules(index, class_key)
        for method in index.dispatch(module, index.instance_call(module))
    ]


def instance_call_methods(index: ProjectIndex, class_key: ClassKey) -> tuple[FunctionKey, ...]:
    """The methods calling an instance of a project layer class runs: its instance call (or
    an override of a project subclass: `ProjectIndex.dispatch`), and, for a container with
    no instance call of its own (`container_modules`), those of the modules it holds."""
    runs = index.instance_call(class_key)
    methods = index.dispatch(class_key, runs)
    if index.find_method(class_key, runs) is not None:
        return methods
    held = [m for m in container_forward_methods(index, class_key) if m not in methods]
    return (*methods, *held) if held else methods
