"""A verify run still going says how far it got: real suites take minutes a run (tensorflow-gnn's
six test files over five on 2 busy cores), and a verification printing nothing between
"running tests..." and the round's end looks stuck."""

from __future__ import annotations

import re
import sys
import textwrap
from pathlib import Path

import pytest

from hybridize.project import Project, ProjectOptions
from hybridize.verify.command_run import (
    CommandRun,
    CommandSetting,
    RunLimits,
    RunSoFar,
    install_plugin,
    run_command,
)
from hybridize.verify.verification import VerifyRequest, verify_plan

FAKE_PYTEST = """\
import json, os, time
out = os.environ["HYBRIDIZE_VERIFY_OUTCOMES"]
def write(record):
    with open(out, "a") as f:
        f.write(json.dumps(record) + "\\n")
write({"kind": "collected", "nodeids": ["t.py::a", "t.py::b", "t.py::c"]})
write({"kind": "test", "nodeid": "t.py::a", "outcome": "passed"})
time.sleep(0.8)
write({"kind": "test", "nodeid": "t.py::b", "outcome": "failed", "error": "E"})
time.sleep(0.8)
write({"kind": "test", "nodeid": "t.py::c", "outcome": "passed"})
"""
"""Writes the plugin's records as a pytest run would, a test at a time."""


def test_a_run_still_going_reports_the_tests_done_so_far(tmp_path: Path) -> None:
    script = tmp_path / "fake_pytest.py"
    script.write_text(FAKE_PYTEST, encoding="utf-8")
    copy = tmp_path / "copy"
    copy.mkdir()
    setting = CommandSetting(
        f"{sys.executable} {script}",
        copy,
        tmp_path / "runs",
        install_plugin(tmp_path / "plugin"),
        RunLimits(60.0),
        heartbeat_seconds=0.25,
    )
    seen: list[RunSoFar] = []
    run = run_command(setting, "baseline", on_wait=seen.append)
    assert run.succeeded and set(run.outcomes) == {"t.py::a", "t.py::b", "t.py::c"}
    assert len(seen) >= 3
    assert all(s.collected == 3 for s in seen[1:])
    assert [s.done for s in seen] == sorted(s.done for s in seen)  # never goes back
    assert {1, 2} <= {s.done for s in seen}
    assert any(s.done == 2 and s.failing == 1 for s in seen)
    assert seen[-1].seconds > seen[0].seconds
    assert "2 of 3 tests done (1 failing)" in next(s for s in seen if s.done == 2).describe()


def test_a_run_out_of_time_still_stops_at_its_limit(tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    copy.mkdir()
    # 4 s: a loaded machine may take over a second to start the command, and the first
    # heartbeat must still come before the limit
    limit = 4.0
    setting = CommandSetting(
        f"{sys.executable} -c 'import time; time.sleep(30)'",
        copy,
        tmp_path / "runs",
        install_plugin(tmp_path / "plugin"),
        RunLimits(limit),
        heartbeat_seconds=0.3,
    )
    seen: list[RunSoFar] = []
    run = run_command(setting, "baseline", on_wait=seen.append)
    assert run.timed_out and run.seconds < limit + 6
    # heartbeats only while the run is within its limit (each reads the clock just after the
    # check, hence the small margin)
    assert seen and all(s.seconds < limit + 0.5 for s in seen)
    # no test is known yet: the line gives the time alone (rounded to whole seconds; the first
    # heartbeat comes at 0.3 s on an idle machine, later under load)
    assert re.fullmatch(r"still running, [0-4] s", seen[0].describe())


def test_a_run_is_held_to_its_address_space_limit(tmp_path: Path) -> None:
    """`--verify-memory`: the command runs with an address-space limit (`RLIMIT_AS`), so a run
    that would take the machine's memory fails on its own; the same allocation under a larger
    limit succeeds (the limit, not the allocation, fails it)."""
    copy = tmp_path / "copy"
    copy.mkdir()
    allocation = f"{sys.executable} -c 'bytearray(768 * 2**20)'"  # 768 MiB, zeroed lazily

    def run(memory_mib: int) -> CommandRun:
        setting = CommandSetting(
            allocation,
            copy,
            tmp_path / "runs",
            install_plugin(tmp_path / "plugin"),
            RunLimits(120.0, memory_mib),
        )
        return run_command(setting, f"baseline-{memory_mib}")

    limited, roomy = run(384), run(4096)
    assert limited.status not in (0, None) and "MemoryError" in limited.describe()
    assert roomy.succeeded, roomy.describe()


OPS = """\
    import tensorflow as tf


    def scale(x):
        return tf.reduce_sum(x * 2.0)


    scale(tf.constant([1.0]))
    """


def test_the_verification_reports_each_long_run_by_its_step(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HYBRIDIZE_CACHE_DIR", str(tmp_path / "cache"))
    folder = tmp_path / "proj"
    folder.mkdir()
    (folder / "ops.py").write_text(textwrap.dedent(OPS), encoding="utf-8")
    options = ProjectOptions(include_low_benefit=True, use_cache=False)
    project = Project.open(folder, options, long_running=False)
    plan = project.plan()
    assert [c.qualname for c in plan.changes] == ["scale"]
    sleeper = f"{sys.executable} -c 'import time; time.sleep(1.0)'"
    request = VerifyRequest(sleeper, per_test=False, heartbeat_seconds=0.3)
    lines: list[str] = []
    verification = verify_plan(plan, lambda keys: plan, request, lines.append)
    assert [c.qualname for c in verification.plan.changes] == ["scale"]
    assert any(line.startswith("baseline: still running, ") for line in lines), lines
    assert any(line.startswith("round 1: still running, ") for line in lines), lines
