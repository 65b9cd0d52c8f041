"""Benchmark: the static benefit prediction against what the bench measures, on the corpus.

Usage: python benchmarks/benefit_calibration.py [--bench-report build/corpus-bench/report.json]
           [--whole-programs] [--runs 3] [PROGRAM ...]

The truth is the bench (`benchmarks/corpus_speedups.py`, at each program's `bench_entry`
length): a change it applies paid, measured. For every function the analysis passes for a new
`@tf.function` and the bench measured, the prediction is "pays" when `benefit` is `high`. It
prints the confusion table, precision (of the changes predicted to pay, the share the bench
applies) and recall (of the changes the bench applies, the share predicted), each on the whole
corpus and on two halves of it: the programs whose rules were looked at while setting the
thresholds in `hybridize/analyzer/decisions/benefit.py` (`fit`: the first half by SHA-1 of the program name) and the
others (`held out`), so that over-fitting shows. Then every miss with the prediction's reason
and the bench's.

With `--whole-programs` it also runs what a user without the bench gets: `hybridize refactor
--apply` with its defaults (only changes predicted to pay) on a copy of each program, then the
original and the copy `--runs` times each at `bench_entry` length (interleaved, the time after
`import tensorflow` compared, outputs compared on the `digest:` line), and prints per program
the speed-up, the slow-downs (a refactored run slower than the original by more than the
noise, 5%), and the geometric mean over the changed programs.

Targets (issue 14): precision >= 0.85, recall >= 0.85, 0 whole-program slow-downs, geomean
>= 1.5x.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shlex
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "corpus" / "tensorflow"
sys.path.insert(0, str(ROOT))

from hybridize.analyzer.summaries.keys import FunctionKey  # noqa: E402
from hybridize.compiler.report_file import read_report  # noqa: E402
from hybridize.model import FunctionVerdict  # noqa: E402
from hybridize.project import Project, ProjectOptions  # noqa: E402

TARGETS = {"precision": 0.85, "recall": 0.85, "whole_program_geomean": 1.5}
SLOWDOWN = 1 / 1.05
"""A refactored program this much slower than the original (run time) is a slow-down; closer
figures are the machine's noise."""


@dataclass(frozen=True, slots=True)
class Case:
    program: str
    qualname: str
    file: str
    predicted: bool
    applied: bool
    benefit_reasons: tuple[str, ...]
    bench_reasons: tuple[str, ...]


def split_of(program: str) -> str:
    """`fit` or `held out`: a fixed half of the corpus, by the SHA-1 of the program's name."""
    return "fit" if hashlib.sha1(program.encode()).digest()[0] % 2 == 0 else "held out"


def verdicts_of(program: Path) -> dict[str, FunctionVerdict]:
    project = Project.open(program, ProjectOptions(use_cache=False), long_running=False)
    return {v.key: v for v in project.results().functions}


def cases(report: dict, programs: list[Path]) -> list[Case]:
    by_project: dict[str, list[dict]] = {}
    for entry in report["functions"]:
        if entry["framework"] != CORPUS.name:
            continue  # corpus/torch programs share names with TensorFlow ones (`gan`)
        by_project.setdefault(Path(entry["project"]).name, []).append(entry)
    found = []
    for program in programs:
        verdicts = verdicts_of(program)
        for entry in by_project.get(program.name, []):
            verdict = verdicts.get(entry["key"])
            if (
                verdict is None
                or verdict.facts.is_hybrid
                or not verdict.passes
                or verdict.transformation != "convert_to_hybrid"
                or entry.get("status") != "measured"
            ):
                continue
            decision = entry["decision"]
            found.append(
                Case(
                    program.name,
                    verdict.qualname,
                    verdict.file,
                    verdict.benefit == "high",
                    bool(decision.get("applied")),
                    verdict.benefit_reasons,
                    tuple(decision.get("reasons") or ()),
                )
            )
    return found


def confusion(selected: list[Case]) -> dict[str, float | int | None]:
    tp = sum(1 for c in selected if c.predicted and c.applied)
    fp = sum(1 for c in selected if c.predicted and not c.applied)
    fn = sum(1 for c in selected if not c.predicted and c.applied)
    tn = sum(1 for c in selected if not c.predicted and not c.applied)
    return {
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "tn": tn,
        "precision": tp / (tp + fp) if tp + fp else None,
        "recall": tp / (tp + fn) if tp + fn else None,
    }


def _ratio(value: float | int | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def print_calibration(found: list[Case]) -> None:
    print(
        "| cases | functions | predicted & applied | predicted only | applied only | neither "
        "| precision | recall |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for name, selected in (
        ("all", found),
        ("fit", [c for c in found if split_of(c.program) == "fit"]),
        ("held out", [c for c in found if split_of(c.program) == "held out"]),
    ):
        m = confusion(selected)
        print(
            f"| {name} | {len(selected)} | {m['tp']} | {m['fp']} | {m['fn']} | {m['tn']} "
            f"| {_ratio(m['precision'])} | {_ratio(m['recall'])} |"
        )
    misses = [c for c in found if c.predicted != c.applied]
    if misses:
        print("\nMisses:")
    for c in misses:
        kind = "predicted to pay, not applied" if c.predicted else "applied, not predicted"
        print(f"- {c.program}/{FunctionKey(c.file, c.qualname)} ({split_of(c.program)}): {kind}")
        print(f"    prediction: {'; '.join(c.benefit_reasons[:2])}")
        print(f"    bench: {'; '.join(c.bench_reasons[:2])}")


def whole_programs(programs: list[Path], runs: int) -> None:
    from hybridize.compiler.protocol import Limits
    from hybridize.compiler.whole_program import Runtime, compare_programs, copy_project

    hybridize = str(Path(sys.executable).with_name("hybridize"))
    speedups: list[float] = []
    slowdowns = 0
    print("\n| program | changes | run-time speed-up | outputs |")
    print("|---|---|---|---|")
    for program in programs:
        labels = json.loads((program / "expected.json").read_text(encoding="utf-8"))
        entry = shlex.split(labels.get("bench_entry", "python main.py"))[1:]
        with tempfile.TemporaryDirectory(prefix="hybridize-benefit-") as scratch:
            original = copy_project(program, Path(scratch) / "original")
            refactored = copy_project(program, Path(scratch) / "refactored")
            done = subprocess.run(
                [hybridize, "refactor", str(refactored), "--apply", "--no-cache"],
                capture_output=True,
                text=True,
                check=False,
            )
            changed = done.stderr.split("refactored ", 1)[-1].split(" function", 1)[0]
            if not changed.strip().isdigit() or int(changed) == 0:
                print(f"| {program.name} | 0 | (unchanged) | |")
                continue
            compared = compare_programs(
                python=sys.executable,
                original=original,
                refactored=refactored,
                cwd_relative=".",
                entry=entry,
                runs=runs,
                digest_atol=labels["digest_atol"],
                limits=Limits(),
                runtime=Runtime(frameworks=(CORPUS.name,)),  # the TensorFlow corpus
            )
        speedup = compared["speedup"]
        match = "same" if compared["output_match"] else f"DIFFER: {compared['detail']}"
        if speedup:
            speedups.append(speedup)
            slowdowns += speedup < SLOWDOWN
        shown = f"{speedup:.2f}x" if speedup else "-"
        print(f"| {program.name} | {changed} | {shown} | {match} |", flush=True)
    geomean = statistics.geometric_mean(speedups) if speedups else None
    print(
        f"\nwhole programs changed: {len(speedups)}, slow-downs: {slowdowns}, geomean run-time "
        f"speed-up: {_ratio(geomean)} (target >= {TARGETS['whole_program_geomean']}, 0 slow-downs)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("programs", nargs="*")
    parser.add_argument(
        "--bench-report", type=Path, default=ROOT / "build" / "corpus-bench" / "report.json"
    )
    parser.add_argument("--whole-programs", action="store_true")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    programs = sorted(p.parent for p in CORPUS.glob("*/expected.json"))
    if args.programs:
        programs = [p for p in programs if p.name in args.programs]
    if args.bench_report.is_file():
        report = read_report(args.bench_report)
        print_calibration(cases(report, programs))
    elif args.whole_programs:
        # The whole-program figures need no bench report: only the calibration does.
        print(f"no bench report at {args.bench_report}: calibration skipped")
    else:
        print(f"no bench report at {args.bench_report}: run benchmarks/corpus_speedups.py first")
        return 2
    if args.whole_programs:
        whole_programs(programs, args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
