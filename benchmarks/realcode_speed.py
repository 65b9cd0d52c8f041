"""Benchmark: analysis speed on real source nobody here wrote, tree by tree.

Usage: python benchmarks/realcode_speed.py [--tree PATH ...] [--per-file-sample N] [--runs N]
                                           [--base REV [--base-python PYTHON]]

The synthetic benchmark (analysis_speed.py) is regular by construction; real code has long
numeric functions, deep class hierarchies and huge modules. By default this measures the
installed `keras/src` and `tensorflow/python/ops` (read only, from the interpreter running
the script) and every library copy the real-code oracle left under
`build/realcode-oracle/*/original` when present. Per tree, in one run so that the machine's
noise affects every figure alike:

  parse      libcst.parse_module over every file, one process (the issue's yardstick: the
             floor of any libcst tool)
  ast parse  CPython's `ast.parse` over the same files (the parser the analysis uses): a
             stricter yardstick, about ten times faster
  cold       `hybridize analyze --format json` with an empty cache (all cores)
  warm       the same command again, the cache filled (it writes the report it kept)
  runs       cold and warm are the median of `--runs` runs (3), each cold one with a cache of
             its own; a tree whose first cold run takes more than 10 s is run cold once (its
             noise is small beside it), warm still `--runs` times. On this shared machine a
             0.1 s command varies by a third from one run to the next.
  per file   each file analysed alone (one process, a timeout per file): the slowest five
  memory     peak resident memory of the cold analysis (the CLI and its workers)

The commands run as an installed tool runs: with its modules' bytecode compiled once
beforehand (in a temporary `PYTHONPYCACHEPREFIX`, the source tree untouched), even where
PYTHONDONTWRITEBYTECODE is set, as it is on the development machine; otherwise every run
would compile the tool's own modules again (a tenth of a second).

The commands run this checkout's code (its folder first on their PYTHONPATH). `--base REV`
measures a commit beside it: every cold and warm run and every file alone, for both, the
runs interleaved (base, this, base, this...), and prints per tree each figure for both and
their ratio (this / base: below 1 is faster); `--base-python PYTHON` alone takes the
`hybridize` installed in PYTHON's environment as the base (benchmarks/side_by_side.py).

Targets (issue 11): cold/parse <= 3, warm/cold <= 0.1, slowest file <= 2 s, memory < 1 GiB.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))
from side_by_side import (  # noqa: E402
    Figure,
    Side,
    add_base_arguments,
    base_label,
    load_average,
    side_by_side,
    sides,
    this_side,
)


def default_trees() -> list[Path]:
    trees: list[Path] = []
    for module, sub in (("keras", "src"), ("tensorflow", "python/ops")):
        found = _installed(module)
        if found is not None and (found / sub).is_dir():
            trees.append(found / sub)
    oracle = REPO / "build" / "realcode-oracle"
    if oracle.is_dir():
        trees.extend(sorted(p for p in oracle.glob("*/original") if p.is_dir()))
    return trees


def _installed(module: str) -> Path | None:
    """The folder of an installed package, found without importing it (TensorFlow costs 2 s
    and 0.5 GB to import, and the analysis must never need it)."""
    for entry in sys.path:
        candidate = Path(entry) / module
        if (candidate / "__init__.py").is_file():
            return candidate
    return None


def python_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.py") if p.is_file())


def parse_all(files: list[Path]) -> tuple[float, int]:
    """Seconds libcst takes to parse every file that it can, and their line count."""
    # Imported here: the `--measure` wrapper around every timed command stays light.
    import libcst as cst

    lines = 0
    started = time.perf_counter()
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
            cst.parse_module(text)
        except Exception:
            continue
        lines += text.count("\n")
    return time.perf_counter() - started, lines


def ast_parse_all(files: list[Path]) -> float:
    """Seconds CPython's parser takes over the same files."""
    started = time.perf_counter()
    for path in files:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ast.parse(path.read_text(encoding="utf-8"))
        except Exception:
            continue
    return time.perf_counter() - started


def installed_environment(side: Side, cache: str, pycache: Path) -> dict[str, str]:
    """The environment of `side`'s measured commands: an empty summary cache in `cache`, and
    the tool's bytecode compiled as pip would have (`Side.compiled_environment`)."""
    return side.compiled_environment(pycache, {"HYBRIDIZE_CACHE_DIR": cache})


def run_measured(command: list[str], env: dict[str, str], cwd: str) -> tuple[float, float, str]:
    """Seconds, peak RSS in MiB of the command and its children, and its standard output.

    Runs through this script's `--measure` mode, so that the peak belongs to this command
    alone (RUSAGE_CHILDREN only grows over a process's life)."""
    wrapper = [sys.executable, __file__, "--measure", "--", *command]
    completed = subprocess.run(
        wrapper, capture_output=True, text=True, env=env, cwd=cwd, check=False
    )
    if completed.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{completed.stderr[-2000:]}")
    figures, _, stdout = completed.stdout.partition("\n")
    seconds, peak = figures.split()
    return float(seconds), float(peak) / 1024, stdout


def measure_mode(command: list[str]) -> int:
    """Run `command` and print its wall time and peak memory, then its output. The time is
    the command's alone: the wrapper's own start is not in it."""
    started = time.perf_counter()
    completed = subprocess.run(command, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    sys.stdout.write(f"{seconds} {peak}\n{completed.stdout}")
    sys.stderr.write(completed.stderr)
    return completed.returncode


PER_FILE_WORKER = r"""
import json, signal, sys, time
from pathlib import Path
from hybridize.project import Project, ProjectOptions

class TimedOut(Exception):
    pass

def alarm(signum, frame):
    raise TimedOut()

signal.signal(signal.SIGALRM, alarm)
timeout = int(sys.argv[1])
for line in sys.stdin:
    path = line.strip()
    started = time.perf_counter()
    status = "ok"
    signal.alarm(timeout)
    try:
        Project.open(Path(path), ProjectOptions(use_cache=False, jobs=1), long_running=False).results()
    except TimedOut:
        status = "timeout"
    except Exception as exc:
        status = f"error: {type(exc).__name__}"
    finally:
        signal.alarm(0)
    print(json.dumps([path, time.perf_counter() - started, status]), flush=True)
"""


def per_file_times(
    side: Side, files: list[Path], timeout: int, env: dict[str, str], cwd: str
) -> list[tuple[str, float, str]]:
    """Each file analysed alone, as a one-file project, in one worker process of `side`."""
    completed = subprocess.run(
        [side.python, "-c", PER_FILE_WORKER, str(timeout)],
        input="\n".join(str(p) for p in files),
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        check=False,
    )
    results = []
    for line in completed.stdout.splitlines():
        path, seconds, status = json.loads(line)
        results.append((path, float(seconds), status))
    return results


def sample(files: list[Path], count: int | None) -> list[Path]:
    """The `count` largest files (blow-ups live in long functions), or all of them."""
    if count is None or count >= len(files):
        return files
    return sorted(files, key=lambda p: p.stat().st_size, reverse=True)[:count]


def verdict_rows(stdout: str) -> list[tuple[object, ...]]:
    report = json.loads(stdout)
    return [(f["file"], f["qualname"], f["passes"]) for f in report["functions"]]


LONG_COLD_RUN = 10.0
"""Seconds beyond which a tree's cold run is not repeated."""


@dataclass
class SideRuns:
    """One side's runs on a tree: its cache (kept from a cold run for the warm ones after
    it), cold seconds and peak MiB, warm seconds."""

    side: Side
    cache: Path
    env: dict[str, str]
    colds: list[tuple[float, float]] = field(default_factory=list)
    warms: list[float] = field(default_factory=list)
    report: str = ""


def measure_tree(
    root: Path,
    per_file_sample: int | None,
    timeout: int,
    runs: int = 3,
    measured: list[Side] | None = None,
    workdir: Path | None = None,
) -> dict[str, dict[str, object]]:
    """Each side's figures on the tree at `root`, by side label. The sides' runs interleave:
    each round runs every side cold (an empty cache) then warm (the cache that filled)."""
    measured = measured or [this_side()]
    files = python_files(root)
    parse, lines = parse_all(files)
    ast_parse = ast_parse_all(files)
    command = ["-m", "hybridize", "analyze", str(root), "--format", "json"]
    with tempfile.TemporaryDirectory(prefix="hybridize-realcode-", dir=workdir) as scratch:
        pycache = {s.label: Path(scratch) / f"pyc-{s.label}" for s in measured}
        sides_runs = []
        for side in measured:
            cache = Path(scratch) / f"cache-{side.label}"
            cache.mkdir()
            env = installed_environment(side, str(cache), pycache[side.label])
            sides_runs.append(SideRuns(side, cache, env))
        for round_ in range(runs):
            for current in sides_runs:
                if round_ == 0 or current.colds[0][0] <= LONG_COLD_RUN:
                    shutil.rmtree(current.cache)
                    current.cache.mkdir()
                    cold, cold_mib, current.report = run_measured(
                        [current.side.python, *command], current.env, scratch
                    )
                    current.colds.append((cold, cold_mib))
                warm, _, warm_out = run_measured(
                    [current.side.python, *command], current.env, scratch
                )
                current.warms.append(warm)
                if verdict_rows(current.report) != verdict_rows(warm_out):
                    raise AssertionError(f"{root}: the warm run changed the verdicts")
        results = {}
        for current in sides_runs:
            results[current.side.label] = tree_figures(
                root,
                files,
                lines,
                parse,
                ast_parse,
                current,
                per_file_times(
                    current.side,
                    sample(files, per_file_sample),
                    timeout,
                    current.env,
                    scratch,
                ),
            )
    return results


def tree_figures(
    root: Path,
    files: list[Path],
    lines: int,
    parse: float,
    ast_parse: float,
    runs: SideRuns,
    timings: list[tuple[str, float, str]],
) -> dict[str, object]:
    """One side's figures on a tree."""
    cold = statistics.median(c for c, _ in runs.colds)
    cold_mib = max(m for _, m in runs.colds)
    warm = statistics.median(runs.warms)
    report = json.loads(runs.report)
    slowest = sorted(timings, key=lambda t: t[1], reverse=True)[:5]
    return {
        "tree": str(root),
        "files": len(files),
        "lines": lines,
        "functions": len(report["functions"]),
        "errors": len(report["errors"]),
        "parse_s": parse,
        "cold_s": cold,
        "warm_s": warm,
        "ast_parse_s": ast_parse,
        "cold_over_parse": cold / parse if parse else float("nan"),
        "cold_over_ast_parse": cold / ast_parse if ast_parse else float("nan"),
        "warm_over_cold": warm / cold if cold else float("nan"),
        "peak_mib": cold_mib,
        "cold_runs": len(runs.colds),
        "warm_runs": len(runs.warms),
        "files_timed": len(timings),
        "slowest_s": slowest[0][1] if slowest else 0.0,
        "slowest": [
            {"file": os.path.relpath(p, root), "seconds": s, "status": st} for p, s, st in slowest
        ],
    }


def render(result: dict[str, object]) -> str:
    out = [
        f"{result['tree']}",
        f"  files {result['files']}, lines {result['lines']}, functions {result['functions']}, "
        f"file errors {result['errors']}",
        f"  parse {result['parse_s']:.2f} s (ast {result['ast_parse_s']:.2f} s), "
        f"cold {result['cold_s']:.2f} s, warm {result['warm_s']:.2f} s "
        f"(medians of {result['cold_runs']} and {result['warm_runs']} runs)",
        f"  cold/parse {result['cold_over_parse']:.2f} (target <= 3; "
        f"cold/ast parse {result['cold_over_ast_parse']:.1f}), "
        f"warm/cold {result['warm_over_cold']:.2f} (target <= 0.1), "
        f"peak memory {result['peak_mib']:.0f} MiB (target < 1024)",
        f"  slowest files alone (of {result['files_timed']} timed; target <= 2 s):",
    ]
    slowest = result["slowest"]
    assert isinstance(slowest, list)
    for entry in slowest:
        status = "" if entry["status"] == "ok" else f" [{entry['status']}]"
        out.append(f"    {entry['seconds']:7.2f} s  {entry['file']}{status}")
    return "\n".join(out)


FIGURES = [
    Figure("cold_s", "cold analysis", "s"),
    Figure("warm_s", "warm analysis", "s"),
    Figure("peak_mib", "cold peak memory", "MiB"),
    Figure("slowest_s", "slowest file alone", "s"),
]
"""The figures side by side with a base."""


def render_side_by_side(results: dict[str, dict[str, object]], base: str) -> str:
    """A tree's figures for the base and this checkout, and their ratios."""
    this = results["this"]
    in_units = {
        label: [
            {f.key: float(str(figures[f.key])) * (2**20 if f.unit == "MiB" else 1) for f in FIGURES}
        ]
        for label, figures in results.items()
    }
    return "\n".join(
        [
            f"{this['tree']}",
            f"  files {this['files']}, lines {this['lines']}, functions: base "
            f"{results['base']['functions']}, this {this['functions']}; libcst parse "
            f"{this['parse_s']:.2f} s; cold runs {this['cold_runs']}, warm {this['warm_runs']}, "
            f"files timed alone {this['files_timed']}; {load_average()}",
            side_by_side(FIGURES, in_units, base),
        ]
    )


def main() -> int:
    if len(sys.argv) > 2 and sys.argv[1] == "--measure":
        return measure_mode(sys.argv[3:])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, action="append", help="a folder (repeatable)")
    parser.add_argument(
        "--per-file-sample",
        type=int,
        default=None,
        help="time only the N largest files of each tree alone (default: every file)",
    )
    parser.add_argument("--timeout", type=int, default=60, help="per-file limit in seconds")
    parser.add_argument("--runs", type=int, default=3, help="cold and warm runs per tree")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    add_base_arguments(parser)
    args = parser.parse_args()
    trees = args.tree or default_trees()
    if not trees:
        print("no tree to measure: pass --tree PATH", file=sys.stderr)
        return 2
    results = []
    workdir = Path(tempfile.mkdtemp(prefix="hybridize-realcode-bench-"))
    try:
        with sides(args.base, args.base_python, workdir) as measured:
            for tree in trees:
                result = measure_tree(
                    tree.resolve(),
                    args.per_file_sample,
                    args.timeout,
                    args.runs,
                    measured,
                    workdir,
                )
                results.append(result)
                if len(measured) > 1:
                    print(
                        render_side_by_side(result, base_label(args.base, args.base_python)),
                        flush=True,
                    )
                else:
                    print(render(result["this"]), flush=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=2), encoding="utf-8")
    worst = max(float(str(r["this"]["cold_over_parse"])) for r in results)
    slowest = max(float(str(r["this"]["slowest_s"])) for r in results)
    print(f"worst cold/parse {worst:.2f}; slowest single file {slowest:.2f} s; {load_average()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
