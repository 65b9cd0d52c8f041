"""Per-function and per-module parts of the project-wide facts, kept across incremental updates.

The verdict phase starts from facts that span the project (which modules switch TensorFlow to
graph mode, where the global seed is set, which Keras models run eagerly, which attributes
are written outside initialisers, ...). Each is a union over functions or modules, and an
editor asks for it again after every keystroke. `Solver.update` replaces the resolved calls
of the functions it evaluates again, and `Project` the summaries of the edited modules; every
other object stays as it was. So a part computed from one function's resolved calls alone
(or one module's summary alone) is kept with the object it came from, and computed again only
when that object was replaced: the union then costs a lookup per function, not a walk over
its calls.

Only computations that read nothing else may use it, besides the project's interface (class
hierarchy, imports, module-level names), which an incremental update leaves unchanged
(`project.py`); the memo lives in the facts, which a solve from scratch makes anew.

Facts that are never updated (`TensorFacts.updatable` False: a one-shot analysis) keep only
the values: what each key's value came from serves only an update (on `keras/src`, 315,000
entries and 27 MiB beside the values), and the facts of a one-shot solve do not change after
it, so a scan is computed once, the first time it is asked for.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import Any, TypeVar

from hybridize.analyzer.facts.evaluator import ResolvedCall, TensorFacts
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.summaries.ir import ModuleSummary
from hybridize.analyzer.summaries.keys import FunctionKey

T = TypeVar("T")
_ABSENT = object()


class _Scan:
    """One memoised scan: per key, the object it was computed from; and the value of the
    keys whose value is not empty (most are not: an empty value is not kept), which is what
    callers iterate."""

    __slots__ = ("by_key", "found", "synced")

    def __init__(self) -> None:
        self.by_key: dict[Hashable, object] = {}
        """Key -> the object its value was computed from (one entry per function of the
        project for a function scan: no pair per entry)."""
        self.found: dict[Hashable, object] = {}
        self.synced: tuple[object, int, int] | None = None
        """For a function scan: the `calls` dict, `calls_epoch` and position in `calls_log`
        it last caught up with; for a module scan: the `modules_log`, `modules_epoch` and
        position in it."""

    def refresh_keys(
        self,
        items: dict[Any, object],
        keys: Iterable[Hashable],
        compute: Callable[[Any, object], object],
    ) -> None:
        """Catch up with `items` where only `keys` may have changed."""
        for key in set(keys):
            source = items.get(key, _ABSENT)
            if source is _ABSENT:
                self.by_key.pop(key, None)
                self.found.pop(key, None)
            else:
                self._catch_up(key, source, compute)

    def refresh(self, items: dict[Any, object], compute: Callable[[Any, object], object]) -> None:
        """Catch up with every entry of `items`."""
        for key, source in items.items():
            self._catch_up(key, source, compute)
        if len(self.by_key) != len(items):
            for key in self.by_key.keys() - items.keys():
                del self.by_key[key]
                self.found.pop(key, None)

    def recompute(self, items: dict[Any, object], compute: Callable[[Any, object], object]) -> None:
        """The values of every entry of `items`, computed again, without their sources: for
        facts that are never updated (`TensorFacts.updatable`)."""
        self.by_key = {}
        self.found = {
            key: value for key, source in items.items() if (value := compute(key, source))
        }

    def _catch_up(
        self, key: Hashable, source: object, compute: Callable[[Any, object], object]
    ) -> None:
        if self.by_key.get(key, _ABSENT) is source:
            return
        value = compute(key, source)
        self.by_key[key] = source
        if value:
            self.found[key] = value
        else:
            self.found.pop(key, None)


def _scan(facts: TensorFacts, name: str) -> _Scan:
    scan = facts.scans.get(name)
    if not isinstance(scan, _Scan):
        scan = facts.scans[name] = _Scan()
    return scan


def per_function(
    facts: TensorFacts, name: str, compute: Callable[[FunctionKey, list[ResolvedCall]], T]
) -> dict[FunctionKey, T]:
    """`compute(key, calls)` of every function with resolved calls, for those where it is
    not empty (falsy), memoised under `name` by the identity of the calls list."""
    scan = _scan(facts, name)
    synced = scan.synced
    now = (facts.calls, facts.calls_epoch, len(facts.calls_log))
    if not facts.updatable:
        if synced is None or synced[0] is not now[0] or synced[1:] != now[1:]:
            scan.recompute(facts.calls, compute)  # type: ignore[arg-type]
    elif synced is not None and synced[0] is facts.calls and synced[1] == facts.calls_epoch:
        # Only the entries logged since (`calls_written`) may differ.
        scan.refresh_keys(facts.calls, facts.calls_log[synced[2] :], compute)  # type: ignore[arg-type]
    else:
        scan.refresh(facts.calls, compute)  # type: ignore[arg-type]
    scan.synced = now
    return scan.found  # type: ignore[return-value]


def per_module(
    facts: TensorFacts,
    index: ProjectIndex,
    name: str,
    compute: Callable[[str, ModuleSummary], T],
) -> dict[str, T]:
    """`compute(relpath, module)` of every module of `index`, for those where it is not
    empty, memoised under `name` by the identity of the module's summary: after an update,
    of the modules it replaced (`TensorFacts.modules_log`), not a look at every module of
    the project by each of a dozen scans."""
    scan = _scan(facts, name)
    if not facts.updatable:
        if scan.synced is None or scan.synced[0] is not index.modules:
            scan.recompute(index.modules, compute)  # type: ignore[arg-type]
            scan.synced = (index.modules, 0, 0)
        return scan.found  # type: ignore[return-value]
    synced = scan.synced
    log = facts.modules_log
    if synced is not None and synced[0] is log and synced[1] == facts.modules_epoch:
        scan.refresh_keys(index.modules, log[synced[2] :], compute)  # type: ignore[arg-type]
    else:
        scan.refresh(index.modules, compute)  # type: ignore[arg-type]
    scan.synced = (log, facts.modules_epoch, len(log))
    return scan.found  # type: ignore[return-value]


def of_module(
    facts: TensorFacts,
    index: ProjectIndex,
    name: str,
    relpath: str,
    compute: Callable[[str, ModuleSummary], T],
) -> T:
    """`compute(relpath, module)` of one module of `index`, memoised under `name` by the
    identity of the module's summary, as `per_module` is, for a caller that may need only a
    few modules (it stops at the first that answers it)."""
    # its own table of (summary, value) pairs (a falsy value is an answer too), apart from
    # the `_Scan`s of the other two
    entry = f"{name} (of_module)"
    scans = facts.scans.get(entry)
    if not isinstance(scans, dict):
        scans = facts.scans[entry] = {}
    module = index.modules[relpath]
    known = scans.get(relpath)
    if known is not None and known[0] is module:
        return known[1]
    value = compute(relpath, module)
    scans[relpath] = (module, value)
    return value
