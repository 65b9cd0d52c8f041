"""Per-file work on several processes, where a crash costs one file and never the run.

Native code can kill the process it runs in (libcst's parser overflows its stack on input
nested deeply enough), and `ProcessPoolExecutor` then fails every pending task with
`BrokenProcessPool` without saying which input did it. Here each worker takes one item at a
time and sends its result back before it takes the next, so when a worker dies the parent
knows the item it held: that item becomes `on_failure(item, reason)` and a new worker takes
the rest. An item that runs longer than `timeout` is handled the same way (its worker is
killed), and so is one whose result cannot be sent back (pickling a result recurses too).
"""

from __future__ import annotations

import contextlib
import faulthandler
import multiprocessing
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any, Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")

ITEM_TIMEOUT = 300.0
"""Seconds one item may take. Generous: an 8 MiB generated module takes about a minute on a
busy machine; only a runaway parse or walk takes longer."""


@dataclass(slots=True)
class _Worker(Generic[T]):
    process: BaseProcess
    connection: Connection
    index: int | None = None
    started: float = 0.0


def run_isolated(
    func: Callable[[T], R],
    items: Sequence[T],
    workers: int,
    on_failure: Callable[[T, str], R],
    timeout: float | None = ITEM_TIMEOUT,
    on_done: Callable[[int], None] | None = None,
) -> list[R]:
    """`[func(item) for item in items]` on up to `workers` processes, in the items' order.

    `func` must be picklable (a module-level function or a `functools.partial` of one). An
    item whose worker died, timed out, raised, or returned something that cannot be pickled
    gets `on_failure(item, reason)` instead, with the reason in words. `on_done` is told how
    many items are done each time one is (a progress bar's count).
    """
    context = _context(func)
    results: dict[int, R] = {}
    pending: deque[int] = deque(range(len(items)))
    active: list[_Worker[T]] = []

    def finished(index: int, result: R) -> None:
        results[index] = result
        if on_done is not None:
            on_done(len(results))

    def start() -> _Worker[T]:
        parent, child = context.Pipe(duplex=True)
        process = context.Process(target=_serve, args=(func, child), daemon=True)
        process.start()
        child.close()
        return _Worker(process, parent)

    def assign(worker: _Worker[T]) -> bool:
        """Give the worker its next item; False (and the worker stopped) when none is left."""
        if not pending:
            _stop(worker)
            return False
        index = pending.popleft()
        worker.index, worker.started = index, time.monotonic()
        try:
            worker.connection.send((index, items[index]))
        except (OSError, ValueError) as exc:  # a worker that died before its first item
            finished(index, on_failure(items[index], f"the worker could not start: {exc}"))
            _stop(worker)
            return False
        return True

    def fail(worker: _Worker[T], reason: str) -> None:
        if worker.index is not None and worker.index not in results:
            finished(worker.index, on_failure(items[worker.index], reason))
        worker.index = None
        _stop(worker)
        active.remove(worker)

    try:
        while pending or active:
            while pending and len(active) < max(1, workers):
                worker = start()
                if assign(worker):
                    active.append(worker)
            if not active:
                continue
            ready = wait([w.connection for w in active], timeout=_wait_time(active, timeout))
            for worker in [w for w in active if w.connection in ready]:
                try:
                    index, ok, payload = worker.connection.recv()
                except (EOFError, OSError):
                    worker.process.join(5)
                    fail(worker, _death(worker.process.exitcode))
                    continue
                finished(index, payload if ok else on_failure(items[index], payload))
                worker.index = None
                if not assign(worker):
                    active.remove(worker)
            if timeout is not None:
                now = time.monotonic()
                for worker in [w for w in active if w.index is not None]:
                    if now - worker.started > timeout:
                        fail(worker, f"it took more than {timeout:.0f} s and was stopped")
    finally:
        for worker in active:
            _stop(worker)
    return [results[i] for i in range(len(items))]


def _context(
    func: Callable[..., Any],
) -> multiprocessing.context.DefaultContext | multiprocessing.context.ForkServerContext:
    """The platform's default start method, except `forkserver` where `fork` would copy a
    process with other threads running (the language server reads stdin on one thread while
    it analyses on another). A forked child inherits their locks as they were: multiprocessing
    closes the child's stdin first thing, waits for the lock the reading thread held, and every
    worker hangs until its item times out. The fork server starts clean; it imports the
    worker function's module once and forks each worker from there."""
    context = multiprocessing.get_context()
    if context.get_start_method() != "fork" or threading.active_count() == 1:
        return context
    server = multiprocessing.get_context("forkserver")
    module = getattr(getattr(func, "func", func), "__module__", None)
    if module and module != "__main__":
        server.set_forkserver_preload([module])
    return server


def _wait_time(active: Sequence[_Worker[Any]], timeout: float | None) -> float | None:
    """How long to wait for a result before checking the item time limits again."""
    if timeout is None:
        return None
    now = time.monotonic()
    deadlines = [w.started + timeout - now for w in active if w.index is not None]
    return max(0.0, min(deadlines)) + 0.05 if deadlines else None


def _stop(worker: _Worker[Any]) -> None:
    """End a worker: politely when it is idle, by force when it still holds an item."""
    with contextlib.suppress(OSError, ValueError):
        if worker.index is None and worker.process.is_alive():
            worker.connection.send(None)
            worker.process.join(5)
    if worker.process.is_alive():
        worker.process.kill()
        worker.process.join(5)
    with contextlib.suppress(OSError):
        worker.connection.close()


def _death(exitcode: int | None) -> str:
    """Why a worker is gone, in words: the signal that killed it, or its exit status."""
    if exitcode is not None and exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        return f"the worker process crashed on it ({name})"
    return f"the worker process exited on it unexpectedly (status {exitcode})"


def _serve(func: Callable[[Any], Any], connection: Connection) -> None:
    """A worker's loop: one item in, one `(index, ok, result or reason)` out, until None."""
    faulthandler.disable()  # a crash here is the parent's to report, in one line
    while True:
        try:
            message = connection.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        index, item = message
        try:
            reply: tuple[int, bool, Any] = (index, True, func(item))
        except Exception as exc:
            reply = (index, False, f"internal error: {type(exc).__name__}: {exc}")
        try:
            connection.send(reply)
        except Exception as exc:  # pickling recursed, or the result is not picklable
            # `send` pickles before it writes: nothing of the failed reply is on the wire.
            connection.send((index, False, f"its result could not be sent back ({exc})"))
