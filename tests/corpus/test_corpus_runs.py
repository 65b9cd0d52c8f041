"""Every corpus program runs with `python main.py` and ends with a deterministic digest line."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from corpus_programs import programs

pytestmark = [
    pytest.mark.tensorflow,
    pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent"),
]


def run_program(program: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", "PYTHONHASHSEED": "0"}
    return subprocess.run(
        [sys.executable, "main.py"],
        cwd=program,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name)
def test_program_runs_and_prints_digest(program: Path) -> None:
    completed = run_program(program)
    assert completed.returncode == 0, completed.stderr[-2000:]
    lines = completed.stdout.strip().splitlines()
    assert lines, "no output"
    last = lines[-1]
    assert last.startswith("digest: "), last
    numbers = last.removeprefix("digest: ").split()
    assert numbers, "empty digest"
    for number in numbers:
        float(number)
