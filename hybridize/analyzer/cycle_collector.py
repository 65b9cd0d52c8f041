"""Python's cycle collector during an analysis: paused while it runs, and what survives it
frozen or left collectable depending on how long the process lives."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_FREEZE_SURVIVORS: ContextVar[bool] = ContextVar("freeze_survivors", default=True)
"""Whether an analysis moves what survives it to the permanent generation (`gc.freeze`)."""


@contextmanager
def survivors_collectable() -> Iterator[None]:
    """Analyses inside this block leave their survivors to the cycle collector.

    A command runs one analysis and exits, so freezing what survives it is free. A long-running
    process (the language server, a `Project` re-analysing on every edit) replaces its results
    again and again: frozen, every old result would stay in memory until the process ends.
    """
    token = _FREEZE_SURVIVORS.set(False)
    try:
        yield
    finally:
        _FREEZE_SURVIVORS.reset(token)


@contextmanager
def collector_paused() -> Iterator[None]:
    """No automatic collection inside the block (the collector's state is restored after it;
    nothing is frozen): for work that builds many objects and leaves few cycles."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@contextmanager
def no_cyclic_gc() -> Iterator[None]:
    """Pause Python's cycle collector: the analysis builds millions of small acyclic tuples,
    and each full collection would walk them all (measured: more than half the run time)."""
    with collector_paused():
        try:
            yield
        finally:
            if _FREEZE_SURVIVORS.get():
                # What survives the analysis lives until the end of the run: keep the
                # collector off it (unless `survivors_collectable` says the process outlives
                # the result).
                gc.freeze()
