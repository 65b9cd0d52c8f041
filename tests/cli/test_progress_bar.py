"""The progress bar of `hybridize analyze` and `refactor`: drawn on stderr when it is a terminal
(a pseudo-terminal here), absent when stderr is piped, and absent when the result comes from
the cache (nothing is analysed)."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from hybridize.progress import ProgressStep, Stage

CORPUS = Path(__file__).resolve().parents[2] / "corpus" / "tensorflow"


def run_hybridize(args: list[str], cache: Path, *, terminal: bool) -> tuple[str, str]:
    """Run `hybridize ARGS` with stderr on a pseudo-terminal (120 columns) or a pipe; returns
    its stdout and stderr (the terminal's bytes, escapes included)."""
    env = {**os.environ, "HYBRIDIZE_CACHE_DIR": str(cache), "TERM": "xterm-256color"}
    env.pop("NO_COLOR", None)
    command = [sys.executable, "-m", "hybridize", *args]
    if not terminal:
        done = subprocess.run(command, capture_output=True, env=env, timeout=120, check=False)
        assert done.returncode == 0, done.stderr
        return done.stdout.decode(), done.stderr.decode()
    main, side = pty.openpty()
    fcntl.ioctl(side, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=side, env=env)
    os.close(side)
    seen = b""
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        seen += chunk
    os.close(main)
    assert process.stdout is not None
    stdout = process.stdout.read().decode()
    assert process.wait(timeout=120) == 0, seen
    return stdout, seen.decode(errors="replace")


@pytest.mark.parametrize("command", ["analyze", "refactor"])
def test_a_terminal_sees_the_bar_a_pipe_does_not(command: str, tmp_path: Path) -> None:
    args = [command, str(CORPUS), "--no-cache"]
    stdout, stderr = run_hybridize(args, tmp_path / "a", terminal=True)
    assert "hybridize" in stderr
    for stage in ("summarising files", "solving the facts", "deciding functions"):
        assert stage in stderr, stderr
    piped_stdout, piped_stderr = run_hybridize(args, tmp_path / "b", terminal=False)
    assert "summarising" not in piped_stderr and "\x1b[" not in piped_stderr
    # The report itself is what a pipe gets (the run's time aside).
    assert stdout.splitlines()[:-1] == piped_stdout.splitlines()[:-1]


def test_a_result_from_the_cache_draws_no_bar(tmp_path: Path) -> None:
    args = ["analyze", str(CORPUS / "gan"), "--format", "json"]
    run_hybridize(args, tmp_path, terminal=False)
    _, stderr = run_hybridize(args, tmp_path, terminal=True)
    assert "summarising" not in stderr and "deciding" not in stderr


def test_the_bar_counts_each_stage() -> None:
    from io import StringIO

    from hybridize.output.progress_bar import AnalysisBar

    bar = AnalysisBar(StringIO())
    bar.step(ProgressStep(Stage.SUMMARIES, 3, 10))
    bar.step(ProgressStep(Stage.SUMMARIES, 10, 10))
    bar.step(ProgressStep(Stage.FACTS, 0, 1))
    bar.step(ProgressStep(Stage.VERDICTS, 7, 9))
    assert bar.bar is not None
    shown = [(t.description, t.completed, t.total, t.visible) for t in bar.bar.tasks]
    bar.close()
    assert shown == [
        ("summarising files", 10, 10, False),
        ("solving the facts", 0, None, False),
        ("deciding functions", 7, 9, True),
    ]
