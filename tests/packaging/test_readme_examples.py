"""The README's examples run as printed.

Every `hybridize ...` line of the README's `sh` blocks runs, block by block in order, on a copy
of a corpus program (the README says "your project"; `PATH` and `.` name the copy): it must
exit with a documented status (0, or 1 where it asks for a failure on changes) and never with
a traceback. The text report shown in the README (`corpus/tensorflow/logging_and_io`,
shortened with `...`) must be what `hybridize analyze` prints there, line for line in order,
but for the run's time.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text(encoding="utf-8")
PROGRAM = REPO / "corpus" / "tensorflow" / "logging_and_io"
SKIPPED = ("bench", "lsp")
"""Subcommands that run the user's program or wait for an editor: not run here."""
NEEDS_USER_FILES = ("--verify", "--from-bench")
"""Options that run the user's own tests or read a bench report the user made: their examples
are exercised by tests/verify and tests/refactor/test_refactor_from_bench.py."""


def _blocks(language: str) -> list[list[str]]:
    """The lines of each fenced block of `language` ("" for a plain fence)."""
    found = re.findall(rf"^```{language}\n(.*?)^```$", README, flags=re.M | re.S)
    return [block.splitlines() for block in found]


def _commands(block: list[str]) -> list[str]:
    commands = []
    for line in block:
        command = re.split(r"\s{2,}#", line)[0].strip()
        if not command.startswith("hybridize "):
            continue
        words = shlex.split(command)
        if words[1] in SKIPPED or any(w.startswith(NEEDS_USER_FILES) for w in words):
            continue
        commands.append(command)
    return commands


COMMAND_BLOCKS = [c for c in (_commands(b) for b in _blocks("sh")) if c]


def test_the_readme_has_commands_to_run() -> None:
    assert len(COMMAND_BLOCKS) >= 2
    assert sum(len(b) for b in COMMAND_BLOCKS) >= 8


def _run(command: str, cwd: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    words = shlex.split(command.replace("PATH", "."))
    output = None
    if ">" in words:  # `... > h.sarif`
        at = words.index(">")
        words, output = words[:at], words[at + 1]
    completed = subprocess.run(
        [sys.executable, "-m", "hybridize", *words[1:]],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env={
            **__import__("os").environ,
            "HYBRIDIZE_CACHE_DIR": str(tmp_path / "cache"),
            "NO_COLOR": "1",
        },
    )
    if output is not None:
        (cwd / output).write_text(completed.stdout, encoding="utf-8")
    return completed


@pytest.mark.slow
@pytest.mark.parametrize("block", COMMAND_BLOCKS, ids=lambda b: b[0][:40])
def test_every_command_of_a_block_runs_on_a_project(block: list[str], tmp_path: Path) -> None:
    project = tmp_path / "your-project"
    shutil.copytree(PROGRAM, project, ignore=shutil.ignore_patterns("expected.json"))
    for command in block:
        completed = _run(command, project, tmp_path)
        allowed = {0, 1} if ("--check" in command or "--fail-on" in command) else {0}
        assert completed.returncode in allowed, (command, completed.stdout, completed.stderr)
        assert "Traceback" not in completed.stderr, (command, completed.stderr)


def test_the_text_report_shown_is_what_analyze_prints(tmp_path: Path) -> None:
    [shown] = [
        b for b in _blocks("") if b and b[0].startswith("Proposed changes") and "main.py" in b[1]
    ]
    project = tmp_path / "logging_and_io"
    shutil.copytree(PROGRAM, project, ignore=shutil.ignore_patterns("expected.json"))
    completed = _run("hybridize analyze .", project, tmp_path)
    assert completed.returncode == 0, completed.stderr
    printed = completed.stdout.splitlines()
    position = 0
    for line in shown:
        if line == "...":
            continue
        if re.search(r" in [\d.]+ s$", line):  # the summary: this run's time differs
            pattern = re.escape(re.sub(r"[\d.]+ s$", "", line)) + r"[\d.]+ s$"
            assert any(re.fullmatch(pattern, p) for p in printed[position:]), line
            continue
        assert line in printed[position:], (line, printed)
        position = printed.index(line, position) + 1
