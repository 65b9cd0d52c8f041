"""The project's writes of module state (`frozen_state._writes`) after edits: each writer's
part is read again only when its evaluator changed, the combination equals one made from
scratch, and the states it reports as changed are those whose writes differ."""

from __future__ import annotations

import dataclasses

import pytest

from hybridize.analyzer.decisions.verdict_scope import readers_of
from hybridize.analyzer.facts import frozen_state
from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.project import Project, ProjectOptions

STATE = """\
import tensorflow as tf

COUNT = 0


class Trainer:
    def __init__(self):
        self.scale = 1.0

    def step(self, x):
        self.scale = self.scale * 2.0
        return tf.reduce_sum(x) * self.scale


def bump():
    global COUNT
    COUNT = COUNT + 1


def total(x):
    return tf.reduce_sum(x) + COUNT


trainer = Trainer()
trainer.step(tf.ones((2,)))
total(tf.ones((2,)))
"""

OTHER = """\
import tensorflow as tf


def square(x):
    return tf.reduce_sum(x * x)


square(tf.ones((2,)))
"""

EDITS = [
    ("state.py", STATE.replace("    COUNT = COUNT + 1", "    print(COUNT + 1)")),
    ("state.py", STATE),
    ("state.py", STATE.replace("        self.scale = self.scale * 2.0", "        print(2.0)")),
    ("other.py", OTHER.replace("x * x", "x * x * x")),
    ("state.py", STATE),
]


def _fresh_writes(project: Project) -> dict[object, list[object]]:
    """The writes combined from scratch over the same solution."""
    solver = project.analysis.solver
    assert solver is not None
    facts = solver.facts
    kept_scan = facts.scans.pop(frozen_state.COMBINED_WRITES)
    kept_cache = facts.cache.pop("state_writes")
    try:
        return dict(frozen_state.frozen_state_writes(solver.index, facts))
    finally:
        facts.scans[frozen_state.COMBINED_WRITES] = kept_scan
        facts.cache["state_writes"] = kept_cache


def test_edits_read_only_changed_writers_and_equal_a_combination_from_scratch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    read: list[FunctionKey] = []
    writes_of = frozen_state._writes_of

    def counted(index, writer, evaluator):  # type: ignore[no-untyped-def]
        read.append(writer)
        return writes_of(index, writer, evaluator)

    monkeypatch.setattr(frozen_state, "_writes_of", counted)
    project = Project.from_texts(
        {"state.py": STATE, "other.py": OTHER}, ProjectOptions(use_cache=False)
    )
    project.results()
    everything = len(read)
    assert FunctionKey("state.py", "bump") in read
    before = dict(project.analysis.solver.facts.cache["state_writes"])  # type: ignore[union-attr]
    for solves, (relpath, text) in enumerate(EDITS, start=1):
        read.clear()
        kept = project.analysis._memory.state_writes  # type: ignore[union-attr]
        project.update(relpath, text)
        result = project.results()
        assert project.analysis.incremental_solves == solves, "solved from scratch"
        facts = project.analysis.solver.facts  # type: ignore[union-attr]
        now = facts.cache["state_writes"]
        assert isinstance(now, dict)
        assert 0 < len(read) < everything, "only the writers whose evaluator changed"
        assert not [k for k in read if k.file != relpath], "other modules' parts are kept"
        assert now == _fresh_writes(project), relpath
        differing = {k for k in before.keys() | now.keys() if before.get(k) != now.get(k)}
        reported = frozen_state.differing_states(facts, kept, now)
        assert reported == differing, "the combination knows what it changed"
        before = dict(now)
        options = dataclasses.replace(project.options, use_cache=False)
        fresh = Project.from_texts(project.snapshot(), options, long_running=False).results()
        assert result.functions == fresh.functions, relpath


def _writes_asked_after_an_edit(fillers: int) -> tuple[int, int]:
    """How many writers the combination after a within-line edit of `total` asks whether
    their evaluator changed, in a project of `state.py`, `other.py` and `fillers` modules
    of their own functions (and how many functions the project has)."""
    filler = "".join(
        f"def f{i}(x):\n    y = x + {i}\n    return y * 2\n\n\nf{i}(1.0)\n" for i in range(5)
    )
    texts = {"state.py": STATE, "other.py": OTHER}
    texts.update({f"filler{n}.py": filler for n in range(fillers)})
    project = Project.from_texts(texts, ProjectOptions(use_cache=False))
    project.results()
    project.update("state.py", STATE.replace("+ COUNT", "+ COUNT * 1"))
    project.results()
    assert project.analysis.incremental_solves == 1
    solver = project.analysis.solver
    assert solver is not None
    combined = solver.facts.scans[frozen_state.COMBINED_WRITES]
    assert isinstance(combined, frozen_state.CombinedWrites)
    return combined.checked, len(solver.index.function_keys())


def test_the_writers_asked_after_an_edit_do_not_grow_with_the_project() -> None:
    """The writers whose part may be stale are found among those whose evaluator changed
    (`TensorFacts.evaluators_changed`), not by a look at every function of the project: the
    same edit asks as many in a project ten times the size."""
    small, small_keys = _writes_asked_after_an_edit(2)
    large, large_keys = _writes_asked_after_an_edit(20)
    assert large_keys > 5 * small_keys
    assert 0 < small == large < small_keys


def test_the_readers_of_each_state_stay_those_a_look_at_every_reader_finds() -> None:
    """The state each function reads is kept by reader with the readers of each state
    alongside (`StateReads`), which an edit's changed state is looked up in
    (`verdict_scope.readers_of`) rather than every reader's reads: through edits that move
    lines, change a writer and undo it (the memo's entries dropped and read again), the
    readers by state are those a scan of every reader finds, and the verdicts equal a
    fresh analysis."""
    moving = STATE.replace("def total(x):\n", "def total(x):\n    print(x)\n")
    edits = [("state.py", moving), *EDITS, ("state.py", moving), ("state.py", STATE)]
    project = Project.from_texts(
        {"state.py": STATE, "other.py": OTHER}, ProjectOptions(use_cache=False)
    )
    project.results()
    for relpath, text in edits:
        project.update(relpath, text)
        result = project.results()
        memory = project.analysis._memory  # type: ignore[union-attr]
        assert memory is not None
        reads = memory.frozen_reads
        assert isinstance(reads, frozen_state.StateReads)
        states = {read[1] for found in reads.values() for read in found}
        assert FunctionKey("state.py", "total") in reads.readers(states)
        for state in states:
            scanned = {r for r, found in reads.items() if any(x[1] == state for x in found)}
            assert reads.readers([state]) == scanned, state
        assert readers_of(reads, states) == reads.readers(states)
        options = dataclasses.replace(project.options, use_cache=False)
        fresh = Project.from_texts(project.snapshot(), options, long_running=False).results()
        assert result.functions == fresh.functions, relpath
