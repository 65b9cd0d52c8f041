"""Does `hybridize analyze` give the same report for the same code on every run?

Usage: python benchmarks/determinism_check.py TREE [--runs N] [--keep DIR]

Analyses TREE `--runs` times (default 10), each in a fresh process (`--no-cache --jobs 1`)
with its own `PYTHONHASHSEED` (0, 1, 2, ...), and compares every report with the first one
field by field (`compare_reports --strict`). A fresh process changes more than the seed: on
Python before 3.12 the hash of `None` (and of every object hashed by identity) is its
address, which address-space randomisation moves at every start, so the iteration order of a
set of atoms holding `None` differs from run to run even with the seed fixed. A result that
depends on such an order (the first or the last element that wins) shows here as a report
that differs. Exit status 0 when every run agrees, 1 otherwise (the differences listed).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))
from compare_reports import SHOWN, by_function, compare  # noqa: E402


def without_measurements(report: dict[str, object]) -> dict[str, object]:
    """`report` without how long it took (`seconds`, at the top and in its summary)."""
    out = {k: v for k, v in report.items() if k != "seconds"}
    summary = out.get("summary")
    if isinstance(summary, dict):
        out["summary"] = {k: v for k, v in summary.items() if k != "seconds"}
    return out


def analyse(tree: Path, seed: int, out: Path) -> dict[str, object]:
    """One run's JSON report (its measurements left out), written to `out` too."""
    env = {**os.environ, "PYTHONHASHSEED": str(seed), "PYTHONPATH": str(REPO)}
    command = [sys.executable, "-m", "hybridize", "analyze", str(tree), "--no-cache"]
    command += ["--jobs", "1", "--format", "json"]
    done = subprocess.run(
        command, env=env, cwd=tempfile.gettempdir(), capture_output=True, text=True, check=False
    )
    if not done.stdout.strip():
        raise SystemExit(f"run {seed} failed (rc {done.returncode}): {done.stderr[-2000:]}")
    out.write_text(done.stdout, encoding="utf-8")
    report = json.loads(done.stdout)
    assert isinstance(report, dict)
    return without_measurements(report)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", type=Path)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--keep", type=Path, help="folder for the runs' reports")
    args = parser.parse_args()
    keep = args.keep or Path(tempfile.mkdtemp(prefix="determinism-"))
    keep.mkdir(parents=True, exist_ok=True)
    first = analyse(args.tree, 0, keep / "run0.json")
    count = len(by_function(first))
    differing = 0
    for seed in range(1, args.runs):
        report = analyse(args.tree, seed, keep / f"run{seed}.json")
        differences = compare(first, report, strict=True)
        if report != first and not differences:
            differences = ["the reports differ outside the function records and file errors"]
        if differences:
            differing += 1
            print(f"run {seed} differs from run 0 in {len(differences)} places:")
            for line in differences[:SHOWN]:
                print(f"  {line}")
        else:
            print(f"run {seed}: equal to run 0", flush=True)
    print(
        f"{args.tree}: {args.runs} runs, {count} functions: "
        f"{differing} of {args.runs - 1} differ from the first (reports in {keep})"
    )
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
