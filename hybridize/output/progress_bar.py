"""A progress bar on stderr while `hybridize analyze` or `refactor` analyses a project.

Drawn only when stderr is a terminal (a person waits and watches); piped or redirected, the
command writes exactly what it wrote before (tools and tests read it). The bar is rich's, the
steps are the project's (hybridize/progress.py); it disappears when the analysis is done, so
the report that follows reads as it always did. rich is imported only when a bar is drawn.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, TextIO

from hybridize.progress import ProgressCallback, ProgressStep, Stage

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID


class AnalysisBar:
    """A bar per stage of the analysis, one at a time: the stage in words, its count done of
    its total (a stage without a count, solving the facts, pulses), the time elapsed. It
    appears at the first step: a run whose result the cache holds reports none, and draws
    nothing."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.bar: Progress | None = None
        self.stage: Stage | None = None
        self.task: TaskID | None = None

    def step(self, step: ProgressStep) -> None:
        stage = step.stage
        counted = bool(stage.unit)
        if self.bar is None:
            self.bar = self._start()
        if stage is not self.stage or self.task is None:
            if self.task is not None:
                self.bar.update(self.task, visible=False)
            self.stage = stage
            self.task = self.bar.add_task(
                f"{stage.verb} {stage.unit}".rstrip(), total=step.total if counted else None
            )
        if counted:
            self.bar.update(self.task, completed=step.done, total=step.total)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()

    def _start(self) -> Progress:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        bar = Progress(
            TextColumn("[bold]hybridize[/bold] {task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=Console(file=self.stream),
            transient=True,
        )
        bar.start()
        return bar


@contextlib.contextmanager
def terminal_progress(stream: TextIO | None = None) -> Iterator[ProgressCallback | None]:
    """A progress callback drawing a bar on `stream` (stderr) while the block runs, or None
    when `stream` is not a terminal."""
    stream = sys.stderr if stream is None else stream
    if not stream.isatty():
        yield None
        return
    bar = AnalysisBar(stream)
    try:
        yield bar.step
    finally:
        bar.close()
