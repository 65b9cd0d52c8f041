"""Benchmark: what an editor waits for after a keystroke, through the `Project` API.

Usage: python benchmarks/project_update_speed.py [--lines 20000] [--edits 5]
                                                 [--base REV [--base-python PYTHON]] [--rounds N]

Generates a synthetic TensorFlow project (benchmarks/synthetic_project.py), opens it as a
`Project` (cold: an empty summary cache), then edits one imported module as a buffer again
and again, alternating two texts, and times each `update` + `results` + `file_result` of the
edited file (what the language server does before it publishes diagnostics). It checks that
the last result equals a project opened fresh on the same texts, and that the process's
memory does not grow with the number of edits (old results are collected, not frozen).
The facts are re-solved incrementally (only what depends on the edited module, see
`Solver.update`), and so are the verdicts that follow (only the functions the changed facts
can reach, see `hybridize/analyzer/decisions/verdict_scope.py`); the figures say how much of each edit the solve
of the facts took and how many functions were decided again.

The measurement runs in a child process of this checkout's code (its folder first on the
child's PYTHONPATH). `--base REV` measures a commit beside it on the same generated project:
the two children run one after the other `--rounds` times, each with its own empty cache, and
each figure's median is printed for both with their ratio (this / base: below 1 is faster);
`--base-python PYTHON` alone takes the `hybridize` installed in PYTHON's environment as the
base (benchmarks/side_by_side.py).
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from side_by_side import (
    Figure,
    Side,
    add_base_arguments,
    base_label,
    load_average,
    side_by_side,
    sides,
)
from synthetic_project import generate

EDITED_LINE = "return x * tf.cast(factor, x.dtype)"
"""The line of a generated module each other edit replaces by a print and a return."""


def rss_mib() -> float:
    """The current resident set size (Linux), or the peak where /proc is missing."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@dataclass(frozen=True)
class Measured:
    """One side's run: the project's size, the cold open's and each edit's figures."""

    files: int
    functions: int
    opened: float
    """Seconds to open the project and solve it (an empty cache)."""
    timings: list[float]
    """Seconds from each edit to its file's result."""
    solving: list[float]
    """Of which the facts' solve."""
    cpu: list[float]
    memory: list[float]
    """Resident MiB after each edit (collected)."""
    incremental_solves: int
    incremental_verdicts: int
    decided_again: int

    def medians(self) -> dict[str, float]:
        """The figures a side-by-side table compares (seconds, bytes)."""
        return {
            "opened": self.opened,
            "edit": statistics.median(self.timings),
            "cpu": statistics.median(self.cpu),
            "solving": statistics.median(self.solving),
            "memory": self.memory[-1] * 2**20,
        }


def measure(root: Path, edits: int) -> Measured:
    """Open the project at `root` cold, edit it `edits` times; the figures (in this process,
    whose `hybridize` is the measured side's)."""
    from hybridize.project import Project, ProjectOptions

    started = time.perf_counter()
    project = Project.open(root, ProjectOptions())
    project.results()
    opened = time.perf_counter() - started
    # Where the project keeps its solve's counters (a base from before `ProjectAnalysis`
    # kept them on the project itself).
    analysis = getattr(project, "analysis", project)
    edited = sorted((root / "synthproj").glob("m*.py"))[1]
    relpath = edited.relative_to(root).as_posix()
    original = edited.read_text(encoding="utf-8")
    changed = original.replace(EDITED_LINE, "print(factor)\n    return x")
    assert changed != original, "the synthetic module no longer has the edited line"
    timings, solving, cpu, memory = [], [], [], []
    for i in range(edits):
        text = changed if i % 2 == 0 else original
        started, started_cpu = time.perf_counter(), time.process_time()
        project.update(relpath, text)
        project.results()
        project.file_result(relpath)
        timings.append(time.perf_counter() - started)
        solving.append(analysis.facts_seconds)
        cpu.append(time.process_time() - started_cpu)
        gc.collect()
        memory.append(rss_mib())
    fresh = Project.open(root, ProjectOptions())
    fresh.update(relpath, changed if (edits - 1) % 2 == 0 else original)
    assert fresh.results().functions == project.results().functions, "stale result"
    return Measured(
        files=len(project.files),
        functions=len(project.results().functions),
        opened=opened,
        timings=timings,
        solving=solving,
        cpu=cpu,
        memory=memory,
        incremental_solves=analysis.incremental_solves,
        incremental_verdicts=analysis.incremental_verdicts,
        decided_again=analysis.decided_again,
    )


def measure_side(side: Side, root: Path, edits: int, cache: Path) -> Measured:
    """`measure` in a child process running `side`'s code with an empty cache."""
    completed = subprocess.run(
        [side.python, __file__, "--child", str(root), "--edits", str(edits)],
        env=side.compiled_environment(
            cache.parent / f"pyc-{side.label}", {"HYBRIDIZE_CACHE_DIR": str(cache)}
        ),
        cwd=cache.parent,  # outside both checkouts
        capture_output=True,
        text=True,
        check=False,
    )
    if completed.returncode != 0:
        raise RuntimeError(f"the {side.label} side failed:\n{completed.stderr[-3000:]}")
    return Measured(**json.loads(completed.stdout.splitlines()[-1]))


FIGURES = [
    Figure("opened", "open + first solve (cold cache)", "s"),
    Figure("edit", "edit -> diagnostics, median", "ms"),
    Figure("cpu", "edit -> diagnostics, CPU median", "ms"),
    Figure("solving", "of which the facts' solve, median", "ms"),
    Figure("memory", "resident memory after the edits", "MiB"),
]
"""The figures side by side with a base."""


def print_alone(lines: int, run: Measured) -> None:
    timings, functions = run.timings, run.functions
    print(f"project: {lines} lines, {run.files} files, {functions} functions")
    print(f"open + first solve (cold cache): {run.opened:7.2f} s")
    print(
        f"edit -> diagnostics (median of {len(timings)}): {statistics.median(timings):7.2f} s"
        f"  (min {min(timings):.2f}, max {max(timings):.2f}; "
        f"CPU {statistics.median(run.cpu):.2f} s)"
    )
    print(
        f"  of which solving the facts (median): {statistics.median(run.solving):7.2f} s;"
        f" incremental solves: {run.incremental_solves} of {len(timings)}"
    )
    print(
        f"  incremental verdict phases: {run.incremental_verdicts} of {len(timings)};"
        f" functions decided again in the last: {run.decided_again} of {functions}"
    )
    print(f"resident memory after each edit: {', '.join(f'{m:.0f}' for m in run.memory)} MiB")
    print(load_average())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=20_000)
    parser.add_argument("--edits", type=int, default=5)
    add_base_arguments(parser)
    parser.add_argument("--rounds", type=int, default=1, help="runs of each side")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        print(json.dumps(dataclasses.asdict(measure(args.child, args.edits))))
        return 0
    workdir = Path(tempfile.mkdtemp(prefix="hybridize-project-bench-"))
    try:
        with sides(args.base, args.base_python, workdir) as measured:
            root = workdir / "project"
            lines = generate(root, args.lines)
            runs: dict[str, list[Measured]] = {s.label: [] for s in measured}
            for round_ in range(args.rounds):
                for side in measured:  # interleaved: a machine's load moves both alike
                    cache = workdir / f"cache-{side.label}-{round_}"
                    runs[side.label].append(measure_side(side, root, args.edits, cache))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    if len(measured) == 1:
        print_alone(lines, runs["this"][-1])
        return 0
    last = runs["this"][-1]
    print(
        f"project: {lines} lines, {last.files} files, {last.functions} functions; "
        f"{args.edits} edits"
        + (f"; {args.rounds} rounds" if args.rounds > 1 else "")
        + f"; {load_average()} at the end"
    )
    table = {label: [r.medians() for r in rounds] for label, rounds in runs.items()}
    print(side_by_side(FIGURES, table, base_label(args.base, args.base_python)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
