"""Whole-program runs: the original and the refactored copy, each run several times.

Both variants run from temporary copies of the project (the user's folder is never written or
run in: programs write logs and checkpoints next to themselves), with the same entry command,
alternately (original first in even rounds, refactored first in odd rounds) so that a change of
machine load hits both. Each run goes through a small launcher that notes the time spent
importing the frameworks apart from the rest, so the report gives two figures:

- *run time*: from after `import tensorflow` (or `import torch`: the frameworks the project's
  candidates use) to the end of the program, the part that the refactoring can change (the
  import costs ~2 s and is the same for both);
- *wall time*: the whole process, interpreter start-up and import included.

Outputs are compared on the last `digest:` line when both variants print one (numbers within an
absolute tolerance, other words exactly), else on the whole stdout. The original's own runs are
compared with each other too: a program whose output varies from run to run cannot be checked.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hybridize.compiler.protocol import Limits, limited_child

IGNORED = shutil.ignore_patterns(
    ".git",
    "__pycache__",
    "*.pyc",
    ".venv",
    "venv",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    "node_modules",
    ".hypothesis",
    "build",
    "dist",
)

LAUNCHER = r"""
import atexit, importlib, json, os, runpy, sys, time
_t0 = time.perf_counter()
for _framework in os.environ["HYBRIDIZE_FRAMEWORKS"].split(","):
    importlib.import_module(_framework)
if os.environ.get("HYBRIDIZE_TORCH_BACKEND"):
    # Measured with another backend than Inductor: @torch.compile in both copies means it.
    import functools, torch
    torch.compile = functools.partial(torch.compile, backend=os.environ["HYBRIDIZE_TORCH_BACKEND"])
_t1 = time.perf_counter()
def _hybridize_times():
    with open(os.environ["HYBRIDIZE_TIMES"], "w") as f:
        json.dump({"import_seconds": _t1 - _t0, "run_seconds": time.perf_counter() - _t1}, f)
atexit.register(_hybridize_times)
_args = sys.argv[1:]
if _args[0] == "-m":
    sys.path.insert(0, os.getcwd())
    sys.argv = [_args[1], *_args[2:]]
    runpy.run_module(_args[1], run_name="__main__", alter_sys=True)
else:
    sys.argv = _args
    sys.path.insert(0, os.path.dirname(os.path.abspath(_args[0])))
    runpy.run_path(_args[0], run_name="__main__")
"""


def copy_project(source: Path, destination: Path) -> Path:
    """Copy a project folder (without VCS data, caches and virtual environments)."""
    shutil.copytree(source, destination, ignore=IGNORED, symlinks=True)
    return destination


@dataclass(frozen=True, slots=True)
class Runtime:
    """What a run imports before the program starts (and the clock that the run time is read
    from starts after), and torch.compile's backend when it is not Inductor, the default."""

    frameworks: tuple[str, ...]
    """The frameworks of the functions changed (`Framework.name`), imported in that order."""
    torch_backend: str | None = None

    def environment(self) -> dict[str, str]:
        env = {"HYBRIDIZE_FRAMEWORKS": ",".join(self.frameworks)}
        if self.torch_backend and self.torch_backend != "inductor":
            env["HYBRIDIZE_TORCH_BACKEND"] = self.torch_backend
        return env


@dataclass(frozen=True, slots=True)
class RunRecord:
    exit_status: int | None
    wall_seconds: float
    run_seconds: float | None
    import_seconds: float | None
    stdout: str
    stderr_tail: str


def run_once(
    python: str,
    cwd: Path,
    entry: Sequence[str],
    limits: Limits,
    timeout: float,
    runtime: Runtime,
) -> RunRecord:
    """Run the entry once through the launcher; never raises for the program's failures."""
    with tempfile.TemporaryDirectory(prefix="hybridize-run-") as scratch:
        times_path = Path(scratch) / "times.json"
        env = {
            **os.environ,
            "HYBRIDIZE_TIMES": str(times_path),
            **runtime.environment(),
            "TF_CPP_MIN_LOG_LEVEL": "2",
            "PYTHONHASHSEED": "0",
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        started = time.perf_counter()
        try:
            completed = subprocess.run(
                [python, "-c", LAUNCHER, *entry],
                cwd=cwd,
                env=env,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                errors="replace",
                timeout=timeout,
                preexec_fn=limited_child(limits.memory_mib),
                check=False,
            )
            status: int | None = completed.returncode
            stdout, stderr = completed.stdout, completed.stderr
        except subprocess.TimeoutExpired as expired:
            status = None
            stdout = (
                (expired.stdout or b"").decode("utf-8", "replace")
                if isinstance(expired.stdout, bytes)
                else (expired.stdout or "")
            )
            stderr = f"did not finish within {timeout:g} s"
        wall = time.perf_counter() - started
        run_seconds = import_seconds = None
        try:
            times = json.loads(times_path.read_text(encoding="utf-8"))
            run_seconds = float(times["run_seconds"])
            import_seconds = float(times["import_seconds"])
        except (OSError, ValueError, KeyError):
            pass
    tail = "\n".join(
        line for line in stderr.splitlines()[-15:] if "oneDNN custom operations" not in line
    )
    return RunRecord(status, wall, run_seconds, import_seconds, stdout, tail[-1500:])


def digest_line(stdout: str) -> str | None:
    for line in reversed(stdout.strip().splitlines()):
        if line.startswith("digest:"):
            return line
    return None


def compare_outputs(expected: str, actual: str, digest_atol: float) -> tuple[bool, str, str]:
    """(same, how compared: "digest" | "stdout", detail)."""
    a, b = digest_line(expected), digest_line(actual)
    if a is not None and b is not None:
        left, right = a.split()[1:], b.split()[1:]
        if len(left) != len(right):
            return False, "digest", f"{a!r} != {b!r}"
        for x, y in zip(left, right, strict=True):
            try:
                if abs(float(x) - float(y)) > digest_atol + 1e-12:
                    return False, "digest", f"{a!r} != {b!r} (tolerance {digest_atol:g})"
            except ValueError:
                if x != y:
                    return False, "digest", f"{a!r} != {b!r}"
        return True, "digest", a if a == b else f"{a!r} ~ {b!r} (tolerance {digest_atol:g})"
    if expected == actual:
        return True, "stdout", "identical standard output"
    return False, "stdout", "standard output differs"


def _stats(records: Sequence[RunRecord]) -> dict[str, Any]:
    walls = [r.wall_seconds for r in records]
    runs = [r.run_seconds for r in records if r.run_seconds is not None]
    return {
        "exit_status": [r.exit_status for r in records],
        "wall_seconds": walls,
        "run_seconds": runs,
        "import_seconds": [r.import_seconds for r in records if r.import_seconds is not None],
        "median_wall_seconds": statistics.median(walls) if walls else None,
        "median_run_seconds": statistics.median(runs) if runs else None,
        "digest": digest_line(records[0].stdout) if records else None,
        "stderr_tail": next((r.stderr_tail for r in records if r.exit_status != 0), ""),
    }


def compare_programs(
    *,
    python: str,
    original: Path,
    refactored: Path,
    cwd_relative: str,
    entry: Sequence[str],
    runs: int,
    digest_atol: float,
    limits: Limits,
    runtime: Runtime,
    on_run: Callable[[str, int], None] | None = None,
) -> dict[str, Any]:
    """Run both copies `runs` times each, interleaved; timings and the output comparison."""
    records: dict[str, list[RunRecord]] = {"original": [], "refactored": []}
    folders = {"original": original / cwd_relative, "refactored": refactored / cwd_relative}
    for round_index in range(runs):
        order = ("original", "refactored") if round_index % 2 == 0 else ("refactored", "original")
        for variant in order:
            if on_run is not None:
                on_run(variant, round_index)
            records[variant].append(
                run_once(python, folders[variant], entry, limits, limits.capture_seconds, runtime)
            )
    original_stats = _stats(records["original"])
    refactored_stats = _stats(records["refactored"])
    failed = [variant for variant, recs in records.items() if any(r.exit_status != 0 for r in recs)]
    stable = all(
        compare_outputs(records["original"][0].stdout, r.stdout, digest_atol)[0]
        for r in records["original"][1:]
    )
    same_all = [
        compare_outputs(records["original"][0].stdout, r.stdout, digest_atol)
        for r in records["refactored"]
    ]
    match = bool(same_all) and all(s[0] for s in same_all) and not failed
    how = same_all[0][1] if same_all else "stdout"
    detail = next((s[2] for s in same_all if not s[0]), same_all[0][2] if same_all else "")
    if failed:
        detail = f"{' and '.join(failed)} exited with an error"
    speedup = wall_speedup = None
    if original_stats["median_run_seconds"] and refactored_stats["median_run_seconds"]:
        speedup = original_stats["median_run_seconds"] / refactored_stats["median_run_seconds"]
    if original_stats["median_wall_seconds"] and refactored_stats["median_wall_seconds"]:
        wall_speedup = (
            original_stats["median_wall_seconds"] / refactored_stats["median_wall_seconds"]
        )
    return {
        "command": " ".join(["python", *entry]),
        "runs": runs,
        "original": original_stats,
        "refactored": refactored_stats,
        "speedup": speedup,
        "wall_speedup": wall_speedup,
        "output_match": match,
        "original_output_stable": stable,
        "comparison": how,
        "detail": detail,
    }
