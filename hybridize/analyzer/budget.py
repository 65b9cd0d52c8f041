"""A CPU-time budget per function verdict: a blow-up costs one function its verdict.

Every walk of the analysis is meant to be memoised or bounded, but a walk that is not (two
checks walked every path of a cyclic call graph, and `keras/src` did not finish in half an
hour) must not hold a whole project hostage. Deciding one function gets `seconds` of this
process' CPU time; past it, `BudgetExceeded` is raised inside the walk, and the caller reports
the function undecided (HY902, nothing proposed: an unknown, never a wrong "safe") with the
reason in words, and goes on with the next one.

CPU time (`ITIMER_PROF`) rather than wall time, so that a loaded machine does not trip it; a
budget far above what any verdict takes on real code (the slowest on `keras/src` takes well
under a second), so that it fires on blow-ups only. Signals reach the main thread only: in
another thread (or where `setitimer` is missing) the block runs without a budget.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

VERDICT_SECONDS = 20.0
"""CPU seconds one function's verdict may take."""


class BudgetExceeded(Exception):
    """The block ran past its CPU-time budget."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"ran past its budget of {seconds:g} s of CPU time")
        self.seconds = seconds


def _timers_usable() -> bool:
    """CPU-time timers can interrupt this code: the main thread, where `setitimer` exists."""
    return threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")


@contextmanager
def cpu_budget(seconds: float) -> Iterator[None]:
    """Raise `BudgetExceeded` inside the block once it has used `seconds` of CPU time."""
    if not _timers_usable():
        yield
        return

    def expire(_signum: int, _frame: FrameType | None) -> None:
        raise BudgetExceeded(seconds)

    previous = signal.signal(signal.SIGPROF, expire)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


EVALUATION_SECONDS = 10.0
"""CPU seconds one evaluation of one function in the fixed point may take."""

WATCH_INTERVAL = 0.5
"""How often (CPU seconds) the step watch looks at the step that runs."""


class StepWatch:
    """A budget over many short steps (the fixed point evaluates ~10^5 functions): a timer
    that fires every `WATCH_INTERVAL` of CPU time checks how long the current step has run,
    so that each step costs one clock read, not a timer of its own. A step past `seconds`
    raises `BudgetExceeded` inside it; between steps nothing is raised."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.started: float | None = None

    def step(self) -> None:
        """A step starts now."""
        self.started = time.process_time()

    def idle(self) -> None:
        """No step runs."""
        self.started = None

    def _check(self, _signum: int, _frame: FrameType | None) -> None:
        started = self.started
        if started is not None and time.process_time() - started > self.seconds:
            self.started = None
            raise BudgetExceeded(self.seconds)


@contextmanager
def step_watch(seconds: float) -> Iterator[StepWatch]:
    """A `StepWatch` active inside the block (inert outside the main thread, as `cpu_budget`)."""
    watch = StepWatch(seconds)
    if not _timers_usable():
        yield watch
        return
    previous = signal.signal(signal.SIGPROF, watch._check)
    interval = min(WATCH_INTERVAL, seconds)
    signal.setitimer(signal.ITIMER_PROF, interval, interval)
    try:
        yield watch
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)
