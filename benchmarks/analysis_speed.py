"""Benchmark: analysis time against libcst's own parse time, cold and warm, and peak memory.

Usage: python benchmarks/analysis_speed.py [--lines 100000] [--keep DIR]

Generates a synthetic TensorFlow project (benchmarks/synthetic_project.py), then measures in
one run, side by side, so that the machine's noise affects every figure alike:

  parse   libcst.parse_module over every file, one process (the floor any libcst tool pays)
  cold    `hybridize analyze --format json` with an empty cache (both cores)
  warm    the same command again, the cache filled
  edit    after changing one imported module: the result must equal a --no-cache run

and prints (a) cold / parse, (b) warm / cold, (c) peak resident memory of the analysis
(the largest of the CLI process and its workers). Targets: (a) <= 3, (b) <= 0.2, (c) < 1 GiB.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import libcst as cst

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synthetic_project import generate


def parse_all(root: Path) -> float:
    files = sorted(root.rglob("*.py"))
    started = time.perf_counter()
    for path in files:
        cst.parse_module(path.read_text(encoding="utf-8"))
    return time.perf_counter() - started


def run_analyze(root: Path, cache: Path, *extra: str) -> tuple[float, float, dict[str, object]]:
    """Seconds, peak RSS in MiB (this child and its workers), and the JSON report."""
    env = {**os.environ, "HYBRIDIZE_CACHE_DIR": str(cache)}
    command = [sys.executable, "-m", "hybridize", "analyze", str(root), "--format", "json", *extra]
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.perf_counter()
    completed = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
    seconds = time.perf_counter() - started
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    report = json.loads(completed.stdout)
    return seconds, max(peak_kib, before) / 1024, report


def verdicts(report: dict[str, object]) -> list[tuple[object, ...]]:
    functions = report["functions"]
    assert isinstance(functions, list)
    return [(f["file"], f["qualname"], f["passes"], tuple(f["failures"])) for f in functions]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--keep", type=Path, default=None, help="generate into this folder")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="hybridize-bench-"))
    root = args.keep or workdir / "project"
    cache = workdir / "cache"
    try:
        lines = generate(root, args.lines)
        files = len(list(root.rglob("*.py")))
        parse = parse_all(root)
        cold, cold_mib, cold_report = run_analyze(root, cache)
        warm, _, warm_report = run_analyze(root, cache)
        assert verdicts(warm_report) == verdicts(cold_report), "warm run changed the verdicts"
        edited = sorted((root / "synthproj").glob("m*.py"))[1]
        text = edited.read_text(encoding="utf-8")
        edited.write_text(
            text.replace("return x * tf.cast(factor, x.dtype)", "print(factor)\n    return x"),
            encoding="utf-8",
        )
        after_edit, _, edit_report = run_analyze(root, cache)
        _, _, fresh_report = run_analyze(root, cache, "--no-cache")
        assert verdicts(edit_report) == verdicts(fresh_report), "cache served a stale answer"
        changed = sum(
            1 for a, b in zip(verdicts(cold_report), verdicts(edit_report), strict=True) if a != b
        )
        functions = len(verdicts(cold_report))
        print(
            f"project: {lines} lines, {files} files, {functions} functions, {os.cpu_count()} cores"
        )
        print(f"libcst parse (1 process): {parse:7.2f} s")
        print(f"analyze cold:             {cold:7.2f} s")
        print(f"analyze warm:             {warm:7.2f} s")
        print(
            f"analyze after 1 edit:     {after_edit:7.2f} s  ({changed} verdicts changed, equal to --no-cache)"
        )
        print(f"(a) cold / parse = {cold / parse:.2f}   target <= 3")
        print(f"(b) warm / cold  = {warm / cold:.2f}   target <= 0.2")
        print(f"(c) peak memory  = {cold_mib:.0f} MiB   target < 1024 MiB")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
