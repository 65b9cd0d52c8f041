"""How far a long analysis has come, for whoever shows it.

`Project` (hybridize/project.py) takes a `ProgressCallback` and calls it, from the thread
that analyses, as a long piece of work goes: the files summarised, the facts solved from
scratch, the functions decided. What shows it is the caller's: the CLI draws a bar on a
terminal (`hybridize/output/progress_bar.py`), the language server sends LSP work-done
progress (`hybridize/lsp/progress.py`). The analysis itself knows nothing of either.

Only long work is reported: summaries of more than one file, a solve of the facts from
scratch and the verdicts that follow it. An editor's edit, re-summarising one file and
re-solving incrementally (a tenth of a second), reports nothing: a progress notice per
keystroke would only flicker.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass


class Stage(enum.Enum):
    """The stages of an analysis from scratch, in the order they run, each with the share of
    its time (percent, from to) on a generated 20,000-line project: summaries 0.5 s, facts
    1.0 s, verdicts 1.7 s on one core."""

    SUMMARIES = ("summarising", "files", 0, 20)
    FACTS = ("solving the facts", "", 20, 50)
    VERDICTS = ("deciding", "functions", 50, 100)

    def __init__(self, verb: str, unit: str, start: int, end: int) -> None:
        self.verb = verb
        self.unit = unit
        self.start = start
        self.end = end


@dataclass(frozen=True, slots=True)
class ProgressStep:
    """`done` of `total` units of `stage` are done."""

    stage: Stage
    done: int
    total: int

    @property
    def message(self) -> str:
        """In words: "deciding 120/2682 functions", "solving the facts"."""
        if not self.stage.unit:
            return self.stage.verb
        return f"{self.stage.verb} {self.done}/{self.total} {self.stage.unit}"

    @property
    def percentage(self) -> int:
        """How far the whole analysis is (0-100), its stages weighted by their usual time."""
        stage = self.stage
        fraction = min(self.done / self.total, 1.0) if self.total > 0 else 0.0
        return stage.start + int((stage.end - stage.start) * fraction)


ProgressCallback = Callable[[ProgressStep], None]
"""Told of each step of a long analysis, in the analysing thread (so it must be quick)."""
