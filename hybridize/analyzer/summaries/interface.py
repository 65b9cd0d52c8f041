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
from dataclasses import dataclass

from hybridize.analyzer.summaries.ir import FunctionSummary, ModuleSummary
from hybridize.analyzer.summaries.keys import MODULE_CODE, FunctionKey
from hybridize.analyzer.summaries.line_shift import LineShift, shifted_class, shifted_function
from hybridize.model import Span


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


@dataclass(frozen=True, slots=True)
class ModuleEdit:
    """The functions of a module an edit touched: `edited`, whose code changed, and `moved`,
    whose code is the same but whose lines the edit moved (every position of their summary
    moved by the lines it added or removed above them)."""

    edited: frozenset[FunctionKey]
    moved: frozenset[FunctionKey] = frozenset()
    shifts: tuple[tuple[str, LineShift], ...] = ()
    """How the lines of each module with moved functions moved (`moved` holds a module's
    functions only with its shift)."""

    def shift_of(self, relpath: str) -> LineShift | None:
        """How the edit moved the lines of the module `relpath` (None: it moved none)."""
        return dict(self.shifts).get(relpath)


def edited_keys(old: ModuleSummary, new: ModuleSummary) -> ModuleEdit | None:
    """The functions an edit changed and those it only moved, when it changed nothing else of
    the module (imports, classes, module code, but for positions moved by the lines the
    edit added or removed); None when it did: then every function of the module counts as
    edited.

    A function whose summary is equal, positions and all, reads and contributes exactly what
    it did: its evaluation, facts and verdict stay valid (the solver and the verdict phase
    still re-examine it when a fact it reads changes). One whose summary is the old one with
    its lines moved (`line_shift`) has the same code: what it contributes differs only where
    it holds positions, so it is evaluated again but its facts need not be started from
    nothing, and its verdict is the old one with its lines moved (`moved_verdicts`) unless
    what it reads changed by more than those lines. An edit inside one function that moves no line, the common case
    while typing, then touches one function instead of the whole file; one that moves lines
    (Enter, a line deleted, a paste) re-evaluates the functions below it, but resets only the
    edited one."""
    if (
        old.relpath != new.relpath
        or old.imports != new.imports
        or old.star_imports != new.star_imports
        or old.all_names != new.all_names
    ):
        return None
    delta = new.line_count - old.line_count
    edited: set[FunctionKey] = set()
    moved: set[FunctionKey] = set()
    kept_end = 0
    """The last line of the functions the edit left as they were."""
    moved_start: int | None = None
    """The first line of the functions it moved."""
    everything = LineShift(0, delta, NOWHERE, NOWHERE)
    for qualname in old.functions.keys() | new.functions.keys():
        old_fn, new_fn = old.functions.get(qualname), new.functions.get(qualname)
        key = FunctionKey(new.relpath, qualname)
        # the same object when a statement edit left the function alone (`statement_edit`)
        if old_fn is new_fn or old_fn == new_fn:
            if old_fn is not None:
                kept_end = max(kept_end, old_fn.span.end_line)
            continue
        if (
            delta
            and old_fn is not None
            and new_fn is not None
            and old_fn.line + delta == new_fn.line
            and shifted_function(old_fn, everything) == new_fn
        ):
            moved.add(key)
            start = min([old_fn.span.start_line, *(d.span.start_line for d in old_fn.decorators)])
            moved_start = start if moved_start is None else min(moved_start, start)
            continue
        edited.add(key)
    if old.line_count == new.line_count and old.module_code == new.module_code:
        if old.classes != new.classes or moved:
            return None
        return ModuleEdit(frozenset(edited))
    if not delta or old.classes.keys() != new.classes.keys():
        return None
    # Where the lines moved: after the edited statement, whose last line is before the first
    # moved function and after the last kept one; the module code and the classes must be
    # the old ones moved there.
    last = (moved_start - 1) if moved_start is not None else old.line_count
    ends = [old.functions[k.qualname].span.end_line for k in edited if k.qualname in old.functions]
    for after in sorted({last, kept_end, *ends}):
        if not kept_end <= after <= last:
            continue
        shift = LineShift(after, delta, old.module_code.span, new.module_code.span)
        if shifted_function(old.module_code, shift) == new.module_code and all(
            shifted_class(cls, shift) == new.classes[name] for name, cls in old.classes.items()
        ):
            moved.add(FunctionKey(new.relpath, MODULE_CODE))
            return ModuleEdit(frozenset(edited), frozenset(moved), ((new.relpath, shift),))
    return None


NOWHERE = Span(0, 0, 0, 0)
"""A span no summary holds: a `LineShift` moving every position."""


def edited_functions(
    before: Mapping[str, ModuleSummary], after: Mapping[str, ModuleSummary], changed: Set[str]
) -> ModuleEdit:
    """The functions an edit of the `changed` modules touched: those whose summary changed
    (`edited_keys`), or every function of a module whose other parts changed; and those
    whose lines it only moved."""
    edited: set[FunctionKey] = set()
    moved: set[FunctionKey] = set()
    shifts: list[tuple[str, LineShift]] = []
    for relpath in changed:
        old, new = before[relpath], after[relpath]
        found = edited_keys(old, new)
        if found is None:
            edited |= {
                FunctionKey(relpath, q) for q in [MODULE_CODE, *old.functions, *new.functions]
            }
        else:
            edited |= found.edited
            moved |= found.moved
            shifts += found.shifts
    return ModuleEdit(
        frozenset(edited), frozenset(moved), tuple(sorted(shifts, key=lambda s: s[0]))
    )
