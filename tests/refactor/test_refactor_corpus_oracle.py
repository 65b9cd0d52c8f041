"""The runtime oracle: a refactored corpus program computes what the original computes.

For every corpus program: two copies; every planned refactoring applied to one of them; both
run at once (`python main.py`, one subprocess each); the last `digest:` lines must agree number
by number within the program's `digest_atol` (expected.json). A refactoring that breaks a program
is a bug in the analysis. Which functions changed is recorded (junit property
`changed_functions`, and the terminal summary of the run).
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from refactor_helpers import corpus_programs

from hybridize.project import Project, ProjectOptions
from hybridize.refactor import Selection, apply_plan, plan_refactorings

pytestmark = [
    pytest.mark.tensorflow,
    pytest.mark.slow,
    pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent"),
]

ORACLE_RECORDS: list[dict[str, object]] = []
"""What each program's run found; printed by conftest.py at the end of the session."""


def start(folder: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", "PYTHONHASHSEED": "0"}
    return subprocess.Popen(
        [sys.executable, "main.py"],
        cwd=folder,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(process: subprocess.Popen[str], label: str) -> list[float]:
    try:
        out, err = process.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        pytest.fail(f"{label}: timed out")
    assert process.returncode == 0, f"{label} failed:\n{err[-3000:]}"
    digests = [line for line in out.splitlines() if line.startswith("digest:")]
    assert digests, f"{label}: no digest line"
    return [float(n) for n in digests[-1].removeprefix("digest:").split()]


@pytest.mark.parametrize("program", corpus_programs(), ids=lambda p: p.name)
def test_refactored_program_prints_the_same_digest(
    program: Path, tmp_path: Path, record_property: pytest.RecordProperty
) -> None:
    original = tmp_path / "original"
    refactored = tmp_path / "refactored"
    shutil.copytree(program, original)
    shutil.copytree(program, refactored)
    result = Project.open(refactored, ProjectOptions(use_cache=False)).results()
    # Every safe change, paying or not: the oracle judges safety.
    plan = plan_refactorings(result, Selection(include_low_benefit=True))
    report = apply_plan(plan)
    assert report.failed == []
    changed = [f"{c.code} {c.key}" for c in plan.changes]
    record_property("changed_functions", json.dumps(changed))
    atol = json.loads((program / "expected.json").read_text(encoding="utf-8"))["digest_atol"]
    processes = (start(original), start(refactored))
    try:
        expected = finish(processes[0], f"{program.name} (original)")
        found = finish(processes[1], f"{program.name} (refactored: {', '.join(changed)})")
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.communicate()
    equal = len(expected) == len(found) and all(
        abs(a - b) <= atol + 1e-9 for a, b in zip(expected, found, strict=True)
    )
    ORACLE_RECORDS.append(
        {
            "program": program.name,
            "changed": changed,
            "equal": equal,
            "original": expected,
            "refactored": found,
        }
    )
    assert equal, f"digests differ beyond {atol}: {expected} vs {found}; changed: {changed}"
