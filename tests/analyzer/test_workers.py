"""A worker that crashes, hangs or cannot send its result costs its item, never the run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from hybridize.analyzer.workers import run_isolated

GOOD = "import tensorflow as tf\n\ndef f(x):\n    return tf.square(x)\n\nf(tf.constant(1.0))\n"


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


def test_each_item_done_is_counted_failures_included() -> None:
    counts: list[int] = []
    items = ["a", "raise", "b", "segfault", "c"]
    results = run_isolated(_work, items, 2, _failed, on_done=counts.append)
    assert counts == [1, 2, 3, 4, 5]  # one call per item, whatever became of it
    assert results[::2] == ["A", "B", "C"]


def test_one_worker_and_no_items() -> None:
    assert run_isolated(_work, [], 1, _failed) == []
    assert run_isolated(_work, ["x", "segfault", "y"], 1, _failed)[::2] == ["X", "Y"]


@pytest.mark.usefixtures("forked_workers")
def test_a_file_that_kills_its_worker_is_left_out_of_the_project(
    make_project: Callable[[dict[str, str | bytes]], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file whose summary kills the process (as libcst's native parser did on deep nesting
    before the depth guard): it becomes an error entry, and the other files are analysed."""
    import os
    import signal

    from hybridize.analyzer.summaries import file_summaries
    from hybridize.project import Project, ProjectOptions

    files: dict[str, str | bytes] = {
        f"m{i:02}.py": GOOD for i in range(file_summaries.PARALLEL_THRESHOLD)
    }
    files["deadly.py"] = GOOD
    root = make_project(files)
    summarize = file_summaries.summarize_module

    def crash_on_deadly(relpath: str, text: str, tree: object, hooks: object) -> object:
        if relpath == "deadly.py":
            os.kill(os.getpid(), signal.SIGSEGV)
        return summarize(relpath, text, tree, hooks)  # type: ignore[arg-type]

    monkeypatch.setattr(file_summaries, "summarize_module", crash_on_deadly)
    result = Project.open(root, ProjectOptions(use_cache=False, jobs=2)).results()
    assert [(e.file, "crashed" in e.message) for e in result.errors] == [("deadly.py", True)]
    assert len({v.file for v in result.functions}) == file_summaries.PARALLEL_THRESHOLD


STDIN_READER = """
import sys
import threading

from hybridize.analyzer.workers import run_isolated


def upper(item):
    return item.upper()


def failed(item, reason):
    return "failed " + item + ": " + reason


if __name__ == "__main__":
    # A thread blocked reading stdin holds its buffer's lock, as the language server's does.
    threading.Thread(target=sys.stdin.readline, daemon=True).start()
    print(run_isolated(upper, ["a", "b", "c"], 2, failed, timeout=20.0))
"""


def test_workers_started_while_another_thread_reads_stdin_do_not_hang(tmp_path: Path) -> None:
    """A forked worker would inherit the stdin lock held by the reading thread and hang when
    multiprocessing closes its stdin; the workers start from a fork server instead."""
    script = tmp_path / "reader.py"
    script.write_text(STDIN_READER, encoding="utf-8")
    reading, writing = os.pipe()
    try:
        completed = subprocess.run(
            [sys.executable, str(script)],
            stdin=reading,
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
    finally:
        os.close(reading)
        os.close(writing)
    assert completed.stdout.strip() == "['A', 'B', 'C']", completed.stdout + completed.stderr
