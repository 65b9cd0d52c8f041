"""The project-wide phase of a project kept open: the solver of the last solve, what its
verdict phase left, and the decision, at each solve, of how much of it to do again.

`Project` (hybridize/project.py) holds the files, their summaries, the options and the
results; it hands the current summaries to `ProjectAnalysis.solve` and gets the verdicts
back. What is kept between two solves, and when it can serve, is decided here:

- the facts are updated in place (`Solver.update`) when the same files changed only where no
  other module can see (`module_interface`: names, imports, signatures; bodies may differ),
  and solved from scratch otherwise (a file added, removed or broken, a changed interface, or
  an update that widened);
- after an incremental solve the verdict phase is incremental too (`decide_incrementally`):
  only the functions whose inputs the changed facts can reach are decided again, the others
  keep their verdicts.

Either way the verdicts equal those of a fresh analysis of the same summaries
(`tests/project/test_incremental.py` checks it over many edits of the corpus). A one-shot
analysis (`long_running=False`) keeps nothing: it releases the facts as soon as the verdicts
are made and freezes what survives rather than leaving it to the cycle collector.

This module imports the project-wide phase (the checks, the evaluator's tables) only
when a solve runs: a command whose whole result is in the cache never needs it.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING

from hybridize.analyzer.cycle_collector import no_cyclic_gc, survivors_collectable
from hybridize.analyzer.options import AnalysisOptions
from hybridize.progress import ProgressCallback, ProgressStep, Stage

if TYPE_CHECKING:
    from hybridize.analyzer.engine import VerdictMemory
    from hybridize.analyzer.facts.evaluator import TensorFacts
    from hybridize.analyzer.facts.resolve import ProjectIndex
    from hybridize.analyzer.facts.solver import FactJournal, Solver
    from hybridize.analyzer.summaries.interface import ModuleEdit
    from hybridize.analyzer.summaries.ir import ModuleSummary
    from hybridize.model import FileError, FunctionVerdict


class ProjectAnalysis:
    """The solver, the verdict memory and the index of a project's last solve, and the
    counts of how each solve went (a server's heap policy and the benchmarks read them)."""

    def __init__(self, *, long_running: bool = True) -> None:
        self.long_running = long_running
        """Keep the solver and the verdict memory for the next solve (a server), or release
        them once the verdicts are made (a command that solves once)."""
        self._solver: Solver | None = None
        self._solved: dict[str, ModuleSummary] = {}
        """The summaries the solver's facts are of."""
        self._memory: VerdictMemory | None = None
        """What the last verdict phase left for the next (`decide_incrementally`)."""
        self._before: FactJournal | None = None
        self._edited: ModuleEdit | None = None
        """The facts before the last incremental solve (what it wrote of them), and the
        functions it found edited or moved (no journal: the solve started from scratch, or
        widened, so every verdict is decided again)."""
        self.incremental_solves = 0
        """How many solves were incremental (the rest started from scratch)."""
        self.scratch_solves = 0
        """How many solves started from scratch (the first, and those after a change no
        update can follow): each builds the facts anew."""
        self.facts_seconds = 0.0
        """How long the last solve of the facts took (the verdicts that follow aside)."""
        self.incremental_verdicts = 0
        """How many verdict phases decided only the functions an edit can reach."""
        self.decided_again = 0
        """How many functions the last verdict phase decided (the others kept theirs)."""
        self.looked_at = 0
        """How many functions the last verdict phase looked at (its scope: the others kept
        their verdicts, or had them moved by the lines an edit moved, untouched)."""

    @property
    def solver(self) -> Solver | None:
        """The solver of the last solve (None before the first, and after a one-shot solve):
        its facts, and whether they widened (then the next edit is solved from scratch)."""
        return self._solver

    def collectable(self) -> contextlib.AbstractContextManager[None]:
        """`survivors_collectable` in a long-running analysis, nothing for one solve: what a
        server keeps is replaced at every edit, and must stay collectable."""
        return survivors_collectable() if self.long_running else contextlib.nullcontext()

    def solve(
        self,
        summaries: Mapping[str, ModuleSummary],
        package: str,
        options: AnalysisOptions,
        progress: ProgressCallback | None = None,
        files: Collection[str] | None = None,
    ) -> tuple[list[FunctionVerdict], list[FileError]]:
        """The verdicts of every function of `summaries` (by report name, in the order the
        index takes them) and the internal errors met deciding them: the facts re-solved
        from the last solve where only bodies changed (`_facts`), then the verdicts, again
        only where the changed facts reach. `progress` hears of a solve from scratch and the
        verdicts after it (an incremental one is quick: nothing is reported). `files` (one
        solve, not long-running): the verdicts of these files' functions are all that is
        wanted, the others may be left out (`decide_incrementally`)."""
        assert files is None or not self.long_running, "a kept memory must hold every verdict"
        started = time.perf_counter()
        with self.collectable():
            # The project-wide phase's modules make thousands of lasting objects (functions,
            # classes, tables) and no garbage: collections while they load would walk them
            # again and again for nothing (`no_cyclic_gc`, as for the facts below).
            with no_cyclic_gc():
                from hybridize.analyzer.engine import decide_incrementally
                from hybridize.analyzer.facts.resolve import ProjectIndex
            index = ProjectIndex(dict(summaries), package)
            scratch_solves = self.scratch_solves
            with no_cyclic_gc():
                facts = self._facts(index, progress).facts
            if not self.long_running:
                # Nothing will be updated: what the solver keeps beside the facts for an
                # update (each function's contribution, who read which fact) is freed before
                # the verdicts are made, not after.
                self._solver, self._solved = None, {}
            self.facts_seconds = time.perf_counter() - started
            memory = self._memory if self._before is not None else None
            self._memory = None
            verdicts, internal, memory = decide_incrementally(
                index,
                facts,
                options,
                memory,
                self._before,
                self._edited,
                progress if self.scratch_solves > scratch_solves else None,
                files,
            )
            self._before = None
            self.incremental_verdicts += memory.incremental
            self.decided_again = memory.decided_again
            self.looked_at = memory.looked_at
            if self.long_running:
                self._memory = memory
            else:
                # Nothing will be updated: free the facts now, not at exit (`release_facts`).
                release_facts(facts)
        return verdicts, internal

    def _facts(self, index: ProjectIndex, progress: ProgressCallback | None) -> Solver:
        """The solved facts of `index`: updated from the last solve when the same files
        changed only where no other module can see (`module_interface`), else solved anew
        (`progress` hears when)."""
        from hybridize.analyzer.facts.solver import Solver
        from hybridize.analyzer.summaries.interface import edited_functions, module_interface

        solver, previous = self._solver, self._solved
        self._solver, self._solved = None, {}
        self._before, self._edited = None, None
        changed = {
            relpath
            for relpath in previous.keys() | index.modules.keys()
            if previous.get(relpath) is not index.modules.get(relpath)
        }
        same_interface = (
            solver is not None
            and previous.keys() == index.modules.keys()
            and all(
                module_interface(previous[r]) == module_interface(index.modules[r]) for r in changed
            )
        )
        if solver is not None and same_interface:
            index.share_interface_caches(solver.index, changed)
        edit = edited_functions(previous, index.modules, changed) if same_interface else None
        if (
            solver is None
            or edit is None
            or not solver.update(index, changed, edit.edited, edit.moved, dict(edit.shifts))
        ):
            if progress is not None:
                progress(ProgressStep(Stage.FACTS, 0, 1))
            solver = Solver(index, updatable=self.long_running)
            self.scratch_solves += 1
        elif changed:
            self.incremental_solves += 1
            assert edit is not None
            self._before, self._edited = solver.journal, edit
        self._solver, self._solved = solver, dict(index.modules)
        return solver


def release_facts(facts: TensorFacts) -> None:
    """Drop the solution's references to its evaluators (each refers back to the solution).

    With the cycle collector paused and what survives frozen (`no_cyclic_gc`), that cycle
    would keep every fact and memo of the project in memory until the process ends, beside
    the report being written; without it, reference counting frees them when the verdicts
    are made."""
    facts.evaluators = {}
    facts.latest_evaluators = {}
    facts.cache.clear()
    facts.scans.clear()
