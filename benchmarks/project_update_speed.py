"""Benchmark: what an editor waits for after a keystroke, through the `Project` API.

Usage: python benchmarks/project_update_speed.py [--lines 20000] [--edits 5]

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
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synthetic_project import generate

from hybridize.project import Project, ProjectOptions


def rss_mib() -> float:
    """The current resident set size (Linux), or the peak where /proc is missing."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=20_000)
    parser.add_argument("--edits", type=int, default=5)
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="hybridize-project-bench-"))
    os.environ["HYBRIDIZE_CACHE_DIR"] = str(workdir / "cache")
    try:
        root = workdir / "project"
        lines = generate(root, args.lines)
        started = time.perf_counter()
        project = Project.open(root, ProjectOptions())
        project.results()
        opened = time.perf_counter() - started
        edited = sorted((root / "synthproj").glob("m*.py"))[1]
        relpath = edited.relative_to(root).as_posix()
        original = edited.read_text(encoding="utf-8")
        changed = original.replace(
            "return x * tf.cast(factor, x.dtype)", "print(factor)\n    return x"
        )
        assert changed != original, "the synthetic module no longer has the edited line"
        timings = []
        solving = []
        cpu = []
        memory = []
        for i in range(args.edits):
            text = changed if i % 2 == 0 else original
            started, started_cpu = time.perf_counter(), time.process_time()
            project.update(relpath, text)
            project.results()
            project.file_result(relpath)
            timings.append(time.perf_counter() - started)
            solving.append(project.analysis.facts_seconds)
            cpu.append(time.process_time() - started_cpu)
            gc.collect()
            memory.append(rss_mib())
        fresh = Project.open(root, ProjectOptions())
        fresh.update(relpath, changed if (args.edits - 1) % 2 == 0 else original)
        assert fresh.results().functions == project.results().functions, "stale result"
        functions = len(project.results().functions)
        print(f"project: {lines} lines, {len(project.files)} files, {functions} functions")
        print(f"open + first solve (cold cache): {opened:7.2f} s")
        print(
            f"edit -> diagnostics (median of {len(timings)}): {statistics.median(timings):7.2f} s"
            f"  (min {min(timings):.2f}, max {max(timings):.2f}; CPU {statistics.median(cpu):.2f} s)"
        )
        print(
            f"  of which solving the facts (median): {statistics.median(solving):7.2f} s;"
            f" incremental solves: {project.analysis.incremental_solves} of {len(timings)}"
        )
        print(
            f"  incremental verdict phases: {project.analysis.incremental_verdicts} of {len(timings)};"
            f" functions decided again in the last: {project.analysis.decided_again} of {functions}"
        )
        print(f"resident memory after each edit: {', '.join(f'{m:.0f}' for m in memory)} MiB")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
