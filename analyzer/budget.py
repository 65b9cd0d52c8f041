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


@contextmanager
def cpu_budget(seconds: float) -> Iterator[None]:
    """Raise `BudgetExceeded` inside the block once it has used `seconds` of CPU time."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(
        signal, "setitimer"
    ):
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
