"""What a verdict reads of the functions above its direct callers, for `engine._keeps_verdict`.

An incremental verdict phase keeps the verdict of a settled function (its facts and callees
unchanged) when none of its direct callers is fresh. Some checks read further up:

- project-wide tables of the functions a witness runs, transitively (the checks'
  `Check.caller_tables`, `checks.caller_tables`: a tracer call, a test's patch of a torch API,
  a value differentiated twice or with its graph kept): the entry of a function may come from,
  or stop coming from, a witness or a caller passing a value several levels up;
- answers about callers at any depth the detections record (the checks' `Check.caller_answers`:
  HY423's nearest caller that is or may be compiled).

And some read functions the call graph does not connect to the function at all (the checks'
`Check.off_graph_reads`: HY423's property getters, decorators' wrappers and methods called by
name on objects the analysis cannot see). Those are kept too (`CallerReads.off_graph`), and an
incremental phase starts from the verdicts that read a function an edit reaches
(`off_graph_readers`), as from the callers of one.

A verdict depends on nothing else of those callers, so instead of deciding again every function
some fresh function reaches (every settled function: the scope is the fresh functions and their
callees), the phase keeps what was read (`CallerReads`) and keeps a verdict only when its
entries and answers are the same now (`CallerReadCheck`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field

from hybridize.analyzer.checks import caller_answers, caller_tables, off_graph_reads
from hybridize.analyzer.checks.context import ProjectFacts
from hybridize.analyzer.facts.evaluator import TensorFacts
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.summaries.keys import FunctionKey

TargetTable = Mapping[FunctionKey, object]


@dataclass(slots=True)
class CallerReads:
    """What the verdicts of a phase read above their direct callers."""

    tables: dict[str, TargetTable] = field(default_factory=dict)
    """The `caller_tables` the phase computed (a table it did not compute, no verdict read)."""
    answers: dict[str, dict[FunctionKey, list[object]]] = field(default_factory=dict)
    """The `caller_answers` each verdict read, by their name."""
    off_graph: dict[FunctionKey, frozenset[FunctionKey | str]] = field(default_factory=dict)
    """What each verdict read off the call graph (`Check.off_graph_reads`, every check's
    together): functions, and names whose callers it read."""


def phase_reads(
    index: ProjectIndex,
    facts: TensorFacts,
    before: CallerReads | None,
    decided_again: Collection[FunctionKey],
) -> CallerReads:
    """What the verdicts read after a phase that decided `decided_again` and kept the other
    verdicts of `before` (whose reads are unchanged, `CallerReadCheck`); `before` is updated
    in place. A table the last phase held is computed again, read now or not: a verdict kept
    read it."""
    every = caller_tables()
    names = [n for n in every if n in facts.cache or (before and n in before.tables)]
    tables = {name: every[name].compute(index, facts) for name in names}
    recorded = {name: _recorded(facts, name) for name in caller_answers()}
    off_graph = _off_graph(facts)
    if before is None:
        answers = {name: dict(found) for name, found in recorded.items()}
        return CallerReads(tables, answers, off_graph)
    for name, found in recorded.items():
        kept = before.answers.setdefault(name, {})
        for key in decided_again:
            kept.pop(key, None)
            if key in found:
                kept[key] = found[key]
    for key in decided_again:
        before.off_graph.pop(key, None)
    before.off_graph.update(off_graph)
    before.tables = tables
    return before


def _off_graph(facts: TensorFacts) -> dict[FunctionKey, frozenset[FunctionKey | str]]:
    """What the verdicts of this phase read off the call graph, every check's together."""
    found: dict[FunctionKey, set[FunctionKey | str]] = {}
    for name in off_graph_reads():
        recorded = facts.cache.get(name)
        if isinstance(recorded, dict):
            for key, read in recorded.items():
                found.setdefault(key, set()).update(read)
    return {key: frozenset(read) for key, read in found.items()}


def off_graph_readers(
    reads: CallerReads,
    facts: TensorFacts,
    reached: Collection[FunctionKey],
    changed: Iterable[FunctionKey],
) -> set[FunctionKey]:
    """The functions whose last verdict read, off the call graph, a function of `reached`
    (an edit reaches it: it, or what it calls, changed), or a name one of `changed` (whose
    own facts changed) calls now (`OffGraphReads.named`): a call that names it may be new.
    A name one called before the edit and calls no more was read with its caller, which
    `reached` holds."""
    if not reads.off_graph:
        return set()
    names = {
        name
        for declared in off_graph_reads().values()
        for key in changed
        for name in declared.named(facts, key)
    }
    return {
        key
        for key, read in reads.off_graph.items()
        if any(item in names if isinstance(item, str) else item in reached for item in read)
    }


def _recorded(facts: TensorFacts, name: str) -> dict[FunctionKey, list[object]]:
    found = facts.cache.get(name)
    return found if isinstance(found, dict) else {}


class CallerReadCheck:
    """Whether a settled function read the same above its direct callers as in the last phase
    (the tables' current entries computed once, when first asked), asked of what the phase's
    detections read (`project`: an answer is the same only if a detection would give it now)."""

    def __init__(self, project: ProjectFacts, before: CallerReads) -> None:
        self.project = project
        self.before = before
        self._now: list[tuple[TargetTable, TargetTable]] | None = None

    def unchanged(self, key: FunctionKey) -> bool:
        if self._now is None:
            every = caller_tables()
            self._now = [
                (old, every[name].compute(self.project.index, self.project.facts))
                for name, old in self.before.tables.items()
            ]
        if any(old.get(key) != now.get(key) for old, now in self._now):
            return False
        answers = caller_answers()
        return all(
            answers[name].holds(self.project, key, read)
            for name, by_key in self.before.answers.items()
            for read in by_key.get(key, ())
        )
