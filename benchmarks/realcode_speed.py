"""Benchmark: analysis speed on real source nobody here wrote, tree by tree.

Usage: python benchmarks/realcode_speed.py [--tree PATH ...] [--per-file-sample N]

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

Targets (issue 11): cold/parse <= 3, warm/cold <= 0.1, slowest file <= 2 s, memory < 1 GiB.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


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


def installed_environment(cache: str) -> dict[str, str]:
    """The environment of the measured commands: an empty summary cache in `cache`, and the
    tool's bytecode compiled as pip would have (under `cache`, not beside the sources)."""
    env = {**os.environ, "HYBRIDIZE_CACHE_DIR": cache, "PYTHONPYCACHEPREFIX": f"{cache}/pyc"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    compile_modules = "import hybridize.cli, hybridize.analyzer.engine, hybridize.refactor.plan"
    subprocess.run([sys.executable, "-c", compile_modules], env=env, check=True)
    return env


def run_measured(command: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """Seconds, peak RSS in MiB of the command and its children, and its standard output.

    Runs through this script's `--measure` mode, so that the peak belongs to this command
    alone (RUSAGE_CHILDREN only grows over a process's life)."""
    wrapper = [sys.executable, __file__, "--measure", "--", *command]
    completed = subprocess.run(wrapper, capture_output=True, text=True, env=env, check=False)
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


def per_file_times(files: list[Path], timeout: int) -> list[tuple[str, float, str]]:
    """Each file analysed alone, as a one-file project, in one worker process."""
    completed = subprocess.run(
        [sys.executable, "-c", PER_FILE_WORKER, str(timeout)],
        input="\n".join(str(p) for p in files),
        capture_output=True,
        text=True,
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


def measure_tree(
    root: Path, per_file_sample: int | None, timeout: int, runs: int = 3
) -> dict[str, object]:
    files = python_files(root)
    parse, lines = parse_all(files)
    ast_parse = ast_parse_all(files)
    command = [sys.executable, "-m", "hybridize", "analyze", str(root), "--format", "json"]
    colds: list[tuple[float, float]] = []
    warms: list[float] = []
    while len(colds) < runs and not (colds and colds[0][0] > LONG_COLD_RUN):
        with tempfile.TemporaryDirectory(prefix="hybridize-realcode-") as cache:
            env = installed_environment(cache)
            cold, cold_mib, cold_out = run_measured(command, env)
            colds.append((cold, cold_mib))
            while len(colds) == 1 and len(warms) < runs:
                warm, _, warm_out = run_measured(command, env)
                warms.append(warm)
                if verdict_rows(cold_out) != verdict_rows(warm_out):
                    raise AssertionError(f"{root}: the warm run changed the verdicts")
    cold = statistics.median(c for c, _ in colds)
    cold_mib = max(m for _, m in colds)
    warm = statistics.median(warms)
    report = json.loads(cold_out)
    timings = per_file_times(sample(files, per_file_sample), timeout)
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
        "cold_runs": len(colds),
        "warm_runs": len(warms),
        "files_timed": len(timings),
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
    args = parser.parse_args()
    trees = args.tree or default_trees()
    if not trees:
        print("no tree to measure: pass --tree PATH", file=sys.stderr)
        return 2
    results = []
    for tree in trees:
        result = measure_tree(tree.resolve(), args.per_file_sample, args.timeout, args.runs)
        results.append(result)
        print(render(result), flush=True)
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=2), encoding="utf-8")
    worst = max(float(str(r["cold_over_parse"])) for r in results)
    slowest = max((s["seconds"] for r in results for s in r["slowest"]), default=0.0)  # type: ignore[attr-defined]
    print(f"worst cold/parse {worst:.2f}; slowest single file {slowest:.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
