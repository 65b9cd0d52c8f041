"""The cycle collector in the language server, kept off the project's stable heap.

An open 100,000-line project is about 2.3 million container objects (summaries, solved facts,
evaluators), nearly all of them kept from one edit to the next. Python's cycle collector walks
every one in each full collection: 2.3 s on that project, several times in 30 edits, each time
inside an edit's analysis (measured in process over 30 edits: median 0.33 s, max 1.7 s). After
an analysis that built the heap anew (the first, or a solve from scratch after a change no
incremental update can follow), the server freezes it (`gc.freeze`, which only moves the
collector's lists): collections then walk only what edits add (median 0.26 s, max 0.40 s). And
no automatic collection runs during an analysis (`paused`).

What an edit adds is frozen too, after every analysis. An incremental analysis keeps most of
the heap, but it leaves new tables the size of the project (the verdict memory's, the solved
evaluators', the sorted verdicts: 230,000 entries on that project), and the first allocation
after the pause walked every one of their entries (35-45 ms per edit, measured in process on
a loaded machine: each entry visited is a cache miss in a heap of a gigabyte); frozen, they
are never walked. An edit leaves no cyclic garbage of its own there (measured: a whole
collection after each of 8 edits found nothing unreachable), and what it replaces is freed by
reference counting, frozen or not.

Frozen objects are still freed as soon as nothing refers to them; only garbage cycles among
them stay, until the heap is collected as a whole again (unfreeze, collect, freeze). The
server does that once it has been idle for `IDLE_SECONDS` after an analysis froze a new heap
(the facts it replaced are garbage then, some of it cyclic), and after every `MAX_EDITS`
edits otherwise (measured: 80 edits left 156 unreachable objects behind). A change that
arrives during that collection waits for it (about 2.5 s on the project above).
"""

from __future__ import annotations

import gc
from contextlib import AbstractContextManager
from typing import Protocol

from hybridize.analyzer.cycle_collector import collector_paused

IDLE_SECONDS = 1.0
"""How long the server must have been quiet before the whole heap is collected."""

MAX_EDITS = 500
"""Incremental analyses after which the whole heap is collected at the next quiet moment."""


class Solves(Protocol):
    """What the heap policy reads of a project's analysis (`ProjectAnalysis`): how many
    solves started from scratch."""

    @property
    def scratch_solves(self) -> int: ...


class FrozenHeap:
    """When to freeze the heap and when to collect it whole (see the module's docstring).
    Its methods run where the project runs: in the server's worker, under its lock."""

    def __init__(self) -> None:
        self.scratch_solves: int | None = None
        """The project's count of solves from scratch at the last freeze (None: never)."""
        self.replaced = False
        """A new heap was frozen since the last whole collection: the old one's cyclic
        garbage is still frozen."""
        self.edits = 0
        """Incremental analyses since the last whole collection."""

    def after_analysis(self, analysis: Solves) -> None:
        """Freeze what an analysis leaves; one that built the facts anew makes a whole
        collection due, the others are counted."""
        gc.freeze()
        if analysis.scratch_solves != self.scratch_solves:
            self.scratch_solves = analysis.scratch_solves
            self.replaced = True
        else:
            self.edits += 1

    @property
    def collection_due(self) -> bool:
        return self.replaced or self.edits >= MAX_EDITS

    @staticmethod
    def paused() -> AbstractContextManager[None]:
        """No automatic collection during an analysis. The project pauses the collector in
        each of its phases, and each phase's end left a young generation of tens of thousands
        of objects that the next allocation made the collector walk (four collections per
        edit, 40-110 ms); paused over the whole analysis, what died in it is never walked,
        and what survives it is walked once, after it. Nothing is frozen here."""
        return collector_paused()

    def collect(self) -> None:
        """Collect the whole heap, frozen part included, and freeze what survives."""
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        self.replaced = False
        self.edits = 0
