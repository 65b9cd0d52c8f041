"""What other modules can see of a module: the names it binds and its functions' signatures.

Name resolution across modules (`ProjectIndex`: imports, re-exports, star imports, module
aliases, base classes and method lookup) and argument binding at call sites read only this
part of a summary, never a function's body. An edit that leaves it unchanged (a body
rewritten, a call added, lines moved) changes what the module's own functions compute and
nothing about how the rest of the project reaches them, which is what lets `Solver.update`
re-evaluate only what depends on the edited module.
"""

from __future__ import annotations

from collections.abc import Mapping, Set

from hybridize.analyzer.summaries.ir import FunctionSummary, ModuleSummary
from hybridize.analyzer.summaries.keys import MODULE_CODE, FunctionKey


def module_interface(summary: ModuleSummary) -> tuple[object, ...]:
    """A comparable value that changes whenever another module could see the change."""
    return (
        summary.relpath,
        summary.imports,
        tuple(summary.star_imports),
        summary.all_names,
        {
            qualname: (cls.name, cls.bases, cls.methods, cls.parent_qualname)
            for qualname, cls in summary.classes.items()
        },
        {qualname: _signature(fn) for qualname, fn in summary.functions.items()},
        summary.module_code.locals,
        summary.module_code.globals_declared,
    )


def _signature(fn: FunctionSummary) -> tuple[object, ...]:
    """How a function is called and what it is (positions left out: lines move on edits)."""
    decorators = tuple((d.name, d.called, d.args, d.kwargs, d.arg_sources) for d in fn.decorators)
    return (
        fn.name,
        fn.class_qualname,
        fn.parent_qualname,
        fn.params,
        decorators,
        fn.binds_receiver,
        fn.is_lambda,
        fn.is_generator,
        fn.is_async,
    )


def edited_keys(old: ModuleSummary, new: ModuleSummary) -> set[FunctionKey] | None:
    """The keys of the functions an edit changed, when it changed nothing else of the module
    (imports, classes, module code, line count); None when it did: then every function of
    the module counts as edited.

    A function whose summary is equal, positions and all, reads and contributes exactly what
    it did: its evaluation, facts and verdict stay valid (the solver and the verdict phase
    still re-examine it when a fact it reads changes). An edit inside one function that
    moves no line, the common case while typing, then touches one function instead of the
    whole file; an edit that moves lines changes the positions of every function below it."""
    if (
        old.relpath != new.relpath
        or old.imports != new.imports
        or old.star_imports != new.star_imports
        or old.all_names != new.all_names
        or old.line_count != new.line_count
        or old.classes != new.classes
        or old.module_code != new.module_code
    ):
        return None
    return {
        FunctionKey(new.relpath, qualname)
        for qualname in old.functions.keys() | new.functions.keys()
        if old.functions.get(qualname) != new.functions.get(qualname)
    }


def edited_functions(
    before: Mapping[str, ModuleSummary], after: Mapping[str, ModuleSummary], changed: Set[str]
) -> set[FunctionKey]:
    """The keys of the functions an edit of the `changed` modules touched: those whose
    summary changed (`edited_keys`), or every function of a module whose other parts
    changed."""
    found: set[FunctionKey] = set()
    for relpath in changed:
        old, new = before[relpath], after[relpath]
        keys = edited_keys(old, new)
        if keys is None:
            keys = {FunctionKey(relpath, q) for q in [MODULE_CODE, *old.functions, *new.functions]}
        found |= keys
    return found
