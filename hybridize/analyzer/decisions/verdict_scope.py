"""Which verdicts an incremental re-solve can have changed, from what the solve changed.

After `Solver.update` only a few functions' facts differ from the last solve. A verdict reads
the facts of its own function, and through the call graph those of its callees (effects,
helper safety, tensor computation and recursion flow up from callees) and of its callers
(covered callers, how often it runs, literal arguments, the graphs proposed around it flow
down from callers). So the verdicts that may change are those of:

- the *seeds*: the edited functions (`interface.edited_keys`); every function whose entry in a fact
  table changed (its evidence, return, callers, literal sites, wrapping, ...) or that the
  solve evaluated again; every function whose evaluator read a fact that changed, in the
  solve or in the verdict phase after it (`Evaluator.deps` keeps both); the methods of a
  class whose attributes changed; the readers of module state whose writes changed; and
  the functions enclosing any of these (a body looks at the calls of its nested functions);
- their callers, transitively (`up`), and then everything those call, transitively
  (`down`): the result is closed under callees, so the analyses that flow up can run on it
  alone, and what it reads of a caller outside it is unchanged since the last phase (every
  ancestor of an outside function is outside too).

`engine.decide_incrementally` recomputes those verdicts and keeps the others; the facts
that span the whole project (which modules use TensorFlow, which attributes are written,
which Keras classes are built symbolically, ...) are compared, and any change there makes
it decide everything again.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hybridize.analyzer.decisions.moved_verdicts import moved_only
from hybridize.analyzer.facts.callgraph import TRACED, forget_derived
from hybridize.analyzer.facts.candidacy import BACKEND_QUERIES
from hybridize.analyzer.facts.digraph import DiGraph
from hybridize.analyzer.facts.evaluator import TensorFacts, callees
from hybridize.analyzer.facts.frozen_state import StateReads
from hybridize.analyzer.facts.graph_run_callables import handed_functions
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.solver import FactJournal
from hybridize.analyzer.facts.values import Dep
from hybridize.analyzer.summaries.keys import ClassKey, FunctionKey
from hybridize.analyzer.summaries.line_shift import LineShift


@dataclass(slots=True)
class FactChanges:
    """What differs between the facts before an update (its `FactJournal`) and after it."""

    keys: set[FunctionKey]
    """Functions (or classes, for `attrs`) with a table entry, call list or evaluator that
    differs."""
    deps: set[Dep]
    """The facts an evaluator may read that differ."""
    classes: set[ClassKey]
    """Classes whose stored attributes differ."""
    shifted: set[FunctionKey] = field(default_factory=set)
    """The `keys` whose every differing entry is the old one with the lines an edit moved
    moved (`moved_verdicts.moved_only`): what they compute is unchanged, only where."""

    def unshifted(self) -> FactChanges:
        """The changes but those of positions moved by an edit's lines: what changed what a
        function computes, not only where (`moved_verdicts`)."""
        if not self.shifted:
            return self
        return FactChanges(
            self.keys - self.shifted,
            {d for d in self.deps if d[1] not in self.shifted},
            self.classes - self.shifted,
        )


DEP_KINDS = {"param_atoms": "params", "returns": "ret", "attrs": "attrs"}
"""The tables an evaluator reads during the solve, by the kind of their `Dep`."""


def compare_facts(
    before: FactJournal, facts: TensorFacts, shifts: Mapping[str, LineShift] | None = None
) -> FactChanges:
    """The changes of an update: the entries it wrote that differ now (the journal knows
    which), and the functions it started from nothing (`FactJournal.reset`) or added or
    removed. A function it merely evaluated again, with the facts it reads unchanged, has
    an equal evaluator (what it reads that changed makes it a reader: `changed_readers`).
    With the lines an edit moved (`shifts`, by file), the keys whose entries differ only so
    are `FactChanges.shifted` too."""
    keys: set[FunctionKey] = set()
    deps: set[Dep] = set()
    classes: set[ClassKey] = set()
    unshifted: set[FunctionKey] = set()
    for name, differing in before.changed_entries(facts).items():
        keys |= differing
        if shifts:
            table, recorded = getattr(facts, name), before.tables[name]
            unshifted.update(
                k
                for k in differing
                if isinstance(table, set)
                or not moved_only(recorded[k], table.get(k), shifts, k.file)
            )
        kind = DEP_KINDS.get(name)
        if kind is not None:
            deps.update((kind, k) for k in differing)
        if name == "attrs":
            classes |= differing
    old, new = before.evaluators, facts.evaluators
    # The functions reset, added or removed: not a pass over every function of the project.
    # One with an evaluator before the update and none now, or the other way round, is one
    # whose evaluator changed since the verdict phase last took those
    # (`TensorFacts.evaluators_changed`, which the phase after this takes: `frozen_state`).
    appeared_or_gone = {k for k in facts.evaluators_changed if (k in old) != (k in new)}
    for k in before.reset | appeared_or_gone:
        if old.get(k) is not new.get(k):
            keys.add(k)
            unshifted.add(k)
    return FactChanges(keys, deps, classes, keys - unshifted if shifts else set())


def changed_readers(facts: TensorFacts, changes: FactChanges) -> set[FunctionKey]:
    """The functions whose evaluator read a fact that changed (in the solve or after it)."""
    if not changes.deps:
        return set()
    return {
        key
        for key, evaluator in facts.evaluators.items()
        if not evaluator.deps.isdisjoint(changes.deps)
    }


def seeds(
    index: ProjectIndex,
    facts: TensorFacts,
    keys: Sequence[FunctionKey],
    edited: Collection[FunctionKey],
    changes: FactChanges,
    stale_readers: Collection[FunctionKey],
    calls_before: Callable[[FunctionKey], object],
    readers: set[FunctionKey],
) -> set[FunctionKey]:
    """The functions whose own inputs to the verdict phase may have changed (see the
    module docstring), among `keys` (`readers`: `changed_readers` of `changes`)."""
    # every key of the project, as a rule: the index's table of them, not a set made anew
    known = index.key_set(keys)
    found = {
        k for part in (edited, changes.keys, stale_readers, readers) for k in part if k in known
    }
    if changes.classes:
        for key in keys:
            fn = index.function(key)
            if fn.class_qualname is not None:
                class_key = key.sibling(fn.class_qualname)
                if not changes.classes.isdisjoint(index.mro(class_key)):
                    found.add(key)
    for key in list(found):
        # A function handed to Keras's `compile(loss=...)` reads its hander's calls
        # (`BenefitModel._with_graph_run_use`), before the edit and after it.
        for calls in (facts.calls.get(key, ()), calls_before(key)):
            found.update(k for k in handed_functions(index, key, calls) if k in known)
    for key in [k for k in found if k.is_module_code]:
        # A function asks whether its module's code branches on the Keras backend.
        if module_queries_backend(facts.calls.get(key, ())) or module_queries_backend(
            calls_before(key)
        ):
            relpath = key.file
            found.update(k for k in keys if k.file == relpath)
    for key in list(found):
        relpath = key.file
        parent = index.function(key).parent_qualname if key in known else None
        while parent is not None:
            found.add(FunctionKey(relpath, parent))
            parent = index.function(FunctionKey(relpath, parent)).parent_qualname
    return found


def module_queries_backend(calls: object) -> bool:
    """Some call reads the Keras backend's name (`Candidacy._backend_queries`)."""
    return isinstance(calls, list | tuple) and any(
        info.name in BACKEND_QUERIES for resolved in calls for info in resolved.api
    )


def callers_closure(graph: DiGraph, start: Iterable[FunctionKey]) -> set[FunctionKey]:
    """`start` and every function that calls one of them, at any depth (a key the graph does
    not hold has no callers)."""
    found = set(start)
    stack = list(found)
    while stack:
        key = stack.pop()
        for caller in graph.predecessors(key) if key in graph else ():
            if caller not in found:
                found.add(caller)
                stack.append(caller)
    return found


def affected(
    graph: DiGraph, start: Iterable[FunctionKey], extra_down: Iterable[FunctionKey] = ()
) -> tuple[set[FunctionKey], set[FunctionKey]]:
    """`up`, `start` and its callers transitively, and the scope: `up` and everything it
    (and `extra_down`) calls. A function of the scope outside `up` calls none of `up`, so
    what flows up from callees (effects, helper hazards, recursion) is unchanged for it."""
    up = callers_closure(graph, start)
    down = up | {k for k in extra_down if k in graph}
    stack = list(down)
    while stack:
        for callee in graph.successors(stack.pop()):
            if callee not in down:
                down.add(callee)
                stack.append(callee)
    return up, down


def changed_state(
    old: object,
    new: Mapping[Any, Sequence[object]],
    edited: Collection[FunctionKey],
    differing: Collection[object] | None = None,
) -> set[object]:
    """The module state (`frozen_state._writes`) whose writes differ, and the state edited
    module code writes (whether such a write follows a call of the reader depends on the
    module code's calls); every state when there was no record. `differing`: the states
    whose writes differ, when the combination of `new` knows them
    (`frozen_state.differing_states`), else they are compared."""
    if not isinstance(old, dict):
        return set(new)
    if differing is not None:
        found = set(differing)
    else:
        found = {k for k in old.keys() | new.keys() if old.get(k) != new.get(k)}
    if not any(key.is_module_code for key in edited):
        return found  # an edit inside functions: no module code writes differently
    for state, writes in new.items():
        for write in writes:
            writer = getattr(write, "writer", None)
            if isinstance(writer, FunctionKey) and writer.is_module_code and writer in edited:
                found.add(state)
    return found


def readers_of(
    frozen_reads: object, states: Collection[object], among: Collection[FunctionKey] | None = None
) -> set[FunctionKey]:
    """The functions whose memoised frozen-state reads (`frozen_state._state_reads`) name
    one of `states` (`among`: of those functions only, the readers of more states)."""
    if not states or not isinstance(frozen_reads, dict):
        return set()
    if among is not None:
        return {r for r in among if any(read[1] in states for read in frozen_reads.get(r, ()))}
    if isinstance(frozen_reads, StateReads):
        return frozen_reads.readers(states)  # by state: not a look at every reader
    # most functions read no state: their empty lists are passed over without a generator
    return {
        reader
        for reader, reads in frozen_reads.items()
        if reads and any(read[1] in states for read in reads)
    }


def out_edges(
    index: ProjectIndex,
    facts: TensorFacts,
    caller: FunctionKey,
    callbacks_of: Mapping[FunctionKey, set[FunctionKey]],
) -> dict[FunctionKey, str]:
    """The edges `build_call_graph` gives `caller`: callee -> kind (`callbacks_of` maps a
    caller to the callees it hands on as callbacks)."""
    found: dict[FunctionKey, str] = {}
    for resolved in facts.calls.get(caller, []):
        for kind, target in callees(index, resolved):
            found[target] = kind
    for callee in sorted(callbacks_of.get(caller, ()), key=str):
        if callee not in found:
            in_mode = caller in facts.caller_mode_callbacks.get(callee, ())
            found[callee] = "callback" if in_mode else TRACED
    return found


def callbacks_by_caller(facts: TensorFacts) -> dict[FunctionKey, set[FunctionKey]]:
    by_caller: dict[FunctionKey, set[FunctionKey]] = {}
    for callee, callers in facts.callback_callers.items():
        for caller in callers:
            by_caller.setdefault(caller, set()).add(callee)
    return by_caller


def refresh_edges(
    graph: DiGraph, index: ProjectIndex, facts: TensorFacts, callers: Iterable[FunctionKey]
) -> tuple[set[FunctionKey], set[FunctionKey]]:
    """Replace the out-edges of `callers` by those of the current facts; return the callers
    whose edges changed, and the callees they had before."""
    by_caller = callbacks_by_caller(facts)
    changed: set[FunctionKey] = set()
    before: set[FunctionKey] = set()
    for caller in callers:
        if caller not in graph:
            continue
        old = {t: a.get("kind") for t, a in graph[caller].items()}
        new = out_edges(index, facts, caller, by_caller)
        if old == new and list(old) == list(new):
            continue
        changed.add(caller)
        before.update(old)
        graph.remove_edges_from([(caller, t) for t in old])
        for target, kind in new.items():
            graph.add_edge(caller, target, kind=kind)
    forget_derived(graph)
    return changed, before


def induced(graph: DiGraph, keys: list[FunctionKey]) -> DiGraph:
    """The part of `graph` on `keys` (in their order), as a graph of its own."""
    members = set(keys)
    part = DiGraph()
    part.add_nodes_from(keys)
    for key in keys:
        for target, attrs in graph[key].items():
            if target in members:
                part.add_edge(key, target, **attrs)
    return part
