"""A worker that crashes, hangs or cannot send its result costs its item, never the run."""

from __future__ import annotations

import os
import signal
import time

from hybridize.analyzer.workers import run_isolated


def _work(item: str) -> object:
    if item == "segfault":
        os.kill(os.getpid(), signal.SIGSEGV)
    if item == "hang":
        time.sleep(60)
    if item == "raise":
        raise ValueError("bad item")
    if item == "unpicklable":
        return lambda: None
    if item == "exit":
        os._exit(3)
    return item.upper()


def _failed(item: str, reason: str) -> object:
    return f"failed {item}: {reason}"


def test_every_item_gets_a_result_in_order() -> None:
    items = ["a", "segfault", "b", "raise", "c", "unpicklable", "exit", "d", "hang", "e"]
    results = run_isolated(_work, items, 2, _failed, timeout=3.0)
    assert [r for r in results if not str(r).startswith("failed")] == ["A", "B", "C", "D", "E"]
    by_item = dict(zip(items, results, strict=True))
    assert "SIGSEGV" in str(by_item["segfault"])
    assert "ValueError: bad item" in str(by_item["raise"])
    assert "could not be sent back" in str(by_item["unpicklable"])
    assert "status 3" in str(by_item["exit"])
    assert "more than 3 s" in str(by_item["hang"])


def test_one_worker_and_no_items() -> None:
    assert run_isolated(_work, [], 1, _failed) == []
    assert run_isolated(_work, ["x", "segfault", "y"], 1, _failed)[::2] == ["X", "Y"]
