"""Benchmark: measured speed-ups of the changes hybridize applies, over the bundled corpus.

Usage: python benchmarks/corpus_speedups.py [--out build/corpus-bench] [--program-runs 3]
                                             [--budget 2] [--min-rounds N] [--default-length]
                                             [--framework tensorflow|torch|all]
                                             [--torch-backend inductor|aot_eager]
                                             [PROGRAM ...]

Runs `hybridize bench corpus/<framework>/<program> --entry ENTRY` for every program of the
chosen frameworks (default all: corpus/tensorflow, then corpus/torch), or those named, each
with the `digest_atol` of its expected.json, merges the reports into
OUT/report.{json,md,html} and prints the summary figures. ENTRY is the program's `bench_entry`
(expected.json: the same program at five times its default training length, as a real training
run is long next to its tracing and start-up), or `python main.py` (the short length the tests
use) with `--default-length`. Targets: geometric-mean per-call
speed-up of the applied changes >= 2.16x (the research average), whole programs >= 1.5x,
zero applied slow-downs, zero equivalence failures among applied changes.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "corpus"
FRAMEWORKS = ("tensorflow", "torch")

sys.path.insert(0, str(ROOT))
from hybridize.compiler.bench import write_reports  # noqa: E402
from hybridize.compiler.report import merge_reports  # noqa: E402

TARGETS = {
    "geomean_speedup_applied": 2.16,
    "whole_program_speedup": 1.5,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("programs", nargs="*", help="program folder names (default: all)")
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "corpus-bench")
    parser.add_argument("--program-runs", type=int, default=3)
    parser.add_argument("--budget", type=float, default=2.0)
    parser.add_argument("--min-rounds", type=int, help="bench's --min-rounds (default: its own)")
    parser.add_argument(
        "--default-length",
        action="store_true",
        help="run `python main.py` (the tests' short length) instead of each bench_entry",
    )
    parser.add_argument(
        "--framework",
        choices=[*FRAMEWORKS, "all"],
        default="all",
        help="which corpus to bench (default: all, merged into one report)",
    )
    parser.add_argument(
        "--torch-backend",
        choices=["inductor", "aot_eager"],
        help="bench's --torch-backend for the torch programs (default: its own, inductor)",
    )
    args = parser.parse_args()
    frameworks = FRAMEWORKS if args.framework == "all" else (args.framework,)
    programs = [
        p.parent
        for framework in frameworks
        for p in sorted((CORPUS / framework).glob("*/expected.json"))
    ]
    if args.programs:
        programs = [p for p in programs if p.name in args.programs]
    hybridize = Path(sys.executable).with_name("hybridize")
    reports = []
    started = time.perf_counter()
    for program in programs:
        labels = json.loads((program / "expected.json").read_text(encoding="utf-8"))
        atol = labels["digest_atol"]
        entry = "python main.py"
        if not args.default_length:
            entry = labels.get("bench_entry", entry)
        # Torch programs apart: some have the names of TensorFlow ones (`gan`, `autoencoder`).
        out = args.out / program.name
        if program.parent.name != "tensorflow":
            out = args.out / program.parent.name / program.name
        command = [
            str(hybridize),
            "bench",
            str(program),
            "--entry",
            entry,
            "--out",
            str(out),
            "--program-runs",
            str(args.program_runs),
            "--budget",
            str(args.budget),
            "--digest-atol",
            str(atol),
            "--quiet",
            "--no-cache",
        ]
        if args.min_rounds is not None:
            command += ["--min-rounds", str(args.min_rounds)]
        if args.torch_backend is not None and program.parent.name == "torch":
            command += ["--torch-backend", args.torch_backend]
        print(f"== {program.parent.name}/{program.name}: {entry}", flush=True)
        completed = subprocess.run(command, check=False)
        if completed.returncode != 0:
            print(f"   bench failed with exit status {completed.returncode}", flush=True)
            continue
        report = json.loads((out / "report.json").read_text(encoding="utf-8"))
        s = report["summary"]
        whole = s["whole_program_speedup"]
        print(
            f"   applied {s['changes_applied']}, geomean {s['geomean_speedup_applied'] or 0:.2f}x, "
            f"program {whole or 0:.2f}x",
            flush=True,
        )
        reports.append(report)
    if not reports:
        print("no report")
        return 1
    merged = merge_reports(reports)
    write_reports(merged, args.out)
    s = merged["summary"]
    print(f"\ncorpus: {len(reports)} programs, {time.perf_counter() - started:.0f} s")
    for name in (
        "functions",
        "functions_measured",
        "changes_applied",
        "applied_graph",
        "applied_xla",
        "geomean_speedup_applied",
        "min_speedup_applied",
        "max_speedup_applied",
        "applied_slowdowns",
        "equivalence_failures",
        "slowdowns_measured",
        "equivalence_differences_measured",
        "geomean_speedup_graph_measured",
        "geomean_speedup_xla_measured",
        "whole_programs_compared",
        "whole_program_speedup",
        "whole_program_wall_speedup",
        "whole_program_output_mismatches",
    ):
        value = s[name]
        target = TARGETS.get(name)
        shown = f"{value:.3f}" if isinstance(value, float) else str(value)
        where = (
            " for bench_entry runs"
            if args.default_length and name == "whole_program_speedup"
            else ""
        )
        print(f"{name:36} {shown}" + (f"   (target >= {target}{where})" if target else ""))
    print(f"reports: {args.out}/report.json, report.md, report.html")
    return 0


if __name__ == "__main__":
    sys.exit(main())
