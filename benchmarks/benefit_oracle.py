"""The benefit oracle: does each rewrite of a real library pay on the calls its own tests make?

Usage: python benchmarks/benefit_oracle.py [--libraries sonnet,recommenders] [--venv PATH]
           [--jobs 2] [--tests-limit N|NAME=N,...] [--out build/benefit-oracle]

Beside the safety oracle (`realcode_oracle.py`, whose installing, copying, rewriting and test
running this reuses): for every library,

1. rewrite a copy with `hybridize refactor --apply --include-low-benefit` (every safe change)
   and another with the default refactoring (the changes of benefit "high"), which says which
   changes are in the default set;
2. run the library's test files on the first copy (a sample where the library has a limit:
   first the tests of every module a default change is in, so that each can be measured,
   then the safety oracle's sample: `benefit_test_files`) with the benefit plugin
   (`hybridize/verify/benefit_plugin.py`), which puts a probe in place of every function given
   a compiler decorator: per call the input signature, the traces it caused, and for a few calls
   per function the time of the same call compiled and eager (the undecorated function),
   interleaved, medians; and every call made while the graph of another function is built,
   with that graph's name and the files of the code that reached the call: a `tf.function` or
   tf.data tracing (TensorFlow's tracing function on the stack: a compiled caller, Keras's
   `predict_function`, a `map` function), or Dynamo compiling a caller that inlines the probe
   (recorded once per compilation by Dynamo's `comptime`);
3. judge each change (`hybridize/verify/benefit.py`): faster or slower, traces beyond its
   distinct input signatures, and why not when it does not pay; and whether the library ran
   it inside a graph it built (a graph reached through no test's code: a test wrapping the
   function in its own `tf.function` is no such evidence; nor is the graph of another change
   that only the low-benefit copy compiles: `low_benefit_graphs_apart`).

Prints per library the two figures of issue #34: of the default changes measured, how many are
faster with no excess traces; of every change measured that pays, how many the default set
holds, where a change faster on the tests' direct calls that the library also ran inside a
graph it built gains nothing from its own decorator in real use and is left out of that
denominator, on the run's evidence only (never on the analysis' prediction), counted on a line
of its own ("faster on direct calls, but run inside a graph by the library: N"); then one line
per change. Timings are ratios measured side by side in one run; the
machine's load moves each figure, not their comparison. Writes OUT/benefit.json.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
from collections.abc import Collection, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

import realcode_oracle as oracle  # noqa: E402
from library_steps import (  # noqa: E402
    KERAS_COMPILED_STEPS,
    compiled_step_callers,
    library_compiled_steps,
    module_imports,
)
from oracle_libraries import LIBRARIES, Library  # noqa: E402
from oracle_rewrites import rewrites_from_diff  # noqa: E402

from hybridize.verify.benefit import (  # noqa: E402
    BENEFIT_PLUGIN_MODULE,
    Change,
    FunctionBenefit,
    install_benefit_plugin,
    is_test_code,
    judge,
    module_of,
    read_records,
    summarize,
)
from hybridize.verify.command_run import install_plugin  # noqa: E402
from hybridize.verify.rewritten import RewrittenFunction  # noqa: E402

ONE_THREAD = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
"""The measured tests run with the frameworks' math libraries on one thread, in both modes:
an eager ATen op such as `tril_` opens an OpenMP region even on a 5x5 tensor, and on a loaded
two-core machine its threads spin at the region's barrier (about 6.6 ms of CPU per call,
measured on gpytorch's `_phi_for_cholesky_`): the eager time then measured the spin, not the
function (a 211x "speedup" that was the load's)."""


def default_changes(work: Path, jobs: int, not_rewritten: Sequence[str]) -> list[RewrittenFunction]:
    """The functions the default refactoring (no `--include-low-benefit`) changes, on a third
    copy (`work/default`), whose tests measure the default changes."""
    copy = work / "default"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(work / "original", copy)
    done = oracle.hybridize(
        "refactor",
        str(copy),
        "--apply",
        "--diff",
        *oracle.refactor_options("default", not_rewritten),
        cache=work / "hybridize-cache",
        jobs=jobs,
    )
    if done.returncode != 0:
        raise RuntimeError(f"hybridize refactor (default) failed: {done.stderr[-2000:]}")
    (work / "refactor-default.diff").write_text(done.stdout)
    return rewrites_from_diff(done.stdout, copy)


def targets_of(rewritten: Sequence[RewrittenFunction]) -> list[dict[str, str]]:
    """The changes that add a compiler decorator (a removed one leaves nothing to probe)."""
    return [
        {"key": f.key, "module": module_of(f.file), "qualname": f.qualname}
        for f in rewritten
        if f.change != "removed"
    ]


COPIES = {
    "default": (
        "default",
        "benefit-targets-default.json",
        "benefit-records-default",
        "logs-default",
    ),
    "low-benefit": ("rewritten", "benefit-targets.json", "benefit-records", "logs"),
}
"""Each run of the tests: the copy they run on, the targets probed, where the plugin's records
and the outcomes go (folders under the library's work folder). `default`: only the default
changes applied (what `hybridize refactor --apply` makes), which measures the default set;
`low-benefit`: every safe change (`--include-low-benefit`), which measures which changes pay."""


def judge_recorded(library: Library, work: Path) -> dict[str, Any]:
    """The verdicts from what the runs (finished or cut short) left in `work`: their targets,
    the default refactoring's diff, the plugin's records and the test outcomes. The default
    changes are judged on the default copy's run where there is one (`default_run`); a
    library's work folder from before that run judges them on the low-benefit copy's."""
    diff = (work / "refactor-default.diff").read_text()
    default = {f.key for f in rewrites_from_diff(diff, work / "default")}
    runs = {copy: _recorded_run(work, copy) for copy in COPIES}
    functions: list[FunctionBenefit] = []
    probed = 0
    if runs["low-benefit"] is not None:
        targets, records, _ = runs["low-benefit"]
        changes = [Change(t["key"], t["key"] in default) for t in targets]
        functions = judge(changes, low_benefit_graphs_apart(records, targets, default))
        probed = len(targets)
    default_functions: list[FunctionBenefit] | None = None
    if runs["default"] is not None:
        targets, records, _ = runs["default"]
        default_functions = judge([Change(t["key"], True) for t in targets], records)
        probed = probed or len(targets)
    for judged in (functions, default_functions or []):
        mark_compiled_steps(judged, work / "original", library)
    outcomes = {copy: run[2] for copy, run in runs.items() if run is not None}
    return _result(library, functions, default_functions, default, outcomes, probed)


def _recorded_run(
    work: Path, copy: str
) -> tuple[list[dict[str, str]], list[dict[str, Any]], dict[str, Any]] | None:
    """One run's targets, the plugin's records and the test outcomes, or None: not run."""
    _, targets_file, records_folder, logs = COPIES[copy]
    if not (work / targets_file).exists() or not (work / records_folder).is_dir():
        return None
    targets = json.loads((work / targets_file).read_text())
    records = read_records(sorted((work / records_folder).glob("*.jsonl")))
    outcomes: dict[str, Any] = {}
    for path in sorted((work / logs).glob("*.jsonl")):
        outcomes.update(oracle.read_outcome_file(path)[0])
    return targets, records, outcomes


def low_benefit_graphs_apart(
    records: Sequence[dict[str, Any]], targets: Sequence[dict[str, str]], default: Collection[str]
) -> list[dict[str, Any]]:
    """The plugin's records, where a call traced into the graph of another change that only
    `--include-low-benefit` makes is not counted as run inside a graph the library built: the
    tests run on the low-benefit copy, where that caller is compiled because the rewrite
    compiled it; the library (and the default copy) runs it eagerly, so the callee's own
    decorator pays there (tensorflow-graphics' `quaternion.multiply`, a default change, called
    in `dual_quaternion.multiply`'s graph, a low-benefit one). Such a record keeps the graph's
    name as `rewrite_graph`, without `graph`: still a call inside a graph, not the library's.
    A graph of a default change stays: there the default copy runs the call in a graph too.
    The graph is that change's when it bears the function's name (`traced_function`) and the
    change's file is among the files of the frames that reached the call (`graph_files`)."""
    low_benefit: dict[str, list[str]] = {}
    for target in targets:
        if target["key"] not in default:
            file, _, qualname = target["key"].rpartition("::")
            low_benefit.setdefault(qualname.rpartition(".")[2], []).append(f"/{file}")
    kept: list[dict[str, Any]] = []
    for record in records:
        graph = str(record.get("graph") or "")
        function = traced_function(graph)
        files = [str(f).replace("\\", "/") for f in record.get("graph_files") or ()]
        if record.get("in_graph") and any(
            f.endswith(changed) for changed in low_benefit.get(function, ()) for f in files
        ):
            record = {**record, "graph": None, "rewrite_graph": graph}
        kept.append(record)
    return kept


def traced_function(graph: str) -> str:
    """The name of the function a recorded graph was traced from: a `tf.function`'s graph
    bears the function's name, Dynamo's is `dynamo:NAME` (the plugin's), and the frame Dynamo
    resumes after a graph break in NAME is `torch_dynamo_resume_in_NAME_at_LINE` (torch's
    `resume_execution`; e3nn's `matrix_to_angles` resumed at line 412)."""
    name = graph.removeprefix("dynamo:")
    while resumed := re.fullmatch(r"torch_dynamo_resume_in_(.+)_at_\d+", name):
        name = resumed.group(1)
    return name


def mark_compiled_steps(functions: Sequence[FunctionBenefit], root: Path, library: Library) -> None:
    """Static evidence for the paying changes no graph of the run held: the steps of the
    library's training loop (Keras's, and those its own code compiles:
    `library_steps.library_compiled_steps`) from which alone its own code calls them
    (`library_steps.compiled_step_callers`)."""
    candidates = [f for f in functions if f.paying and not f.run_in_graph]
    if not candidates:
        return
    files = [
        (p.relative_to(root).as_posix(), p.read_text(encoding="utf-8", errors="replace"))
        for package in library.packages
        for p in sorted((root / package).rglob("*.py"))
        if not is_test_code(p.relative_to(root).as_posix())
    ]
    steps = KERAS_COMPILED_STEPS | library_compiled_steps(files)
    for function in candidates:
        file, _, qualname = function.key.rpartition("::")
        found = compiled_step_callers(files, qualname, steps, defined_in=file)
        function.static_graphs = found or []


def _result(
    library: Library,
    functions: list[FunctionBenefit],
    default_functions: list[FunctionBenefit] | None,
    default: set[str],
    outcomes: dict[str, dict[str, Any]],
    probed: int,
) -> dict[str, Any]:
    """The library's figures (`summarize`: the default changes' from the default copy's run
    when there is one) and every change judged, per run."""
    summary = summarize(functions, default_functions)
    every = {name: o for run in outcomes.values() for name, o in run.items()}
    return {
        "library": library.name,
        "requirement": library.requirement,
        "probed": probed,
        "default_keys": sorted(default),
        "copies": sorted(outcomes),
        "test_files": sorted({oracle.test_file_of(n) for n in every}),
        "tests": {copy: len(run) for copy, run in sorted(outcomes.items())},
        "passing": {copy: oracle.count(run) for copy, run in sorted(outcomes.items())},
        "summary": {
            "default_changes": summary.default_changes,
            "default_measured": summary.default_measured,
            "default_paying": summary.default_paying,
            "default_no_difference": summary.default_no_difference,
            "default_retracing": summary.default_retracing,
            "default_rate": summary.default_rate,
            "default_rate_decided": summary.default_rate_decided,
            "paying": summary.paying,
            "paying_in_default": summary.paying_in_default,
            "paying_in_graph": summary.paying_in_graph,
            "paying_in_graph_default": summary.paying_in_graph_default,
            "recall": summary.recall,
        },
        "functions": [f.as_record() for f in functions],
        "default_functions": (
            None if default_functions is None else [f.as_record() for f in default_functions]
        ),
    }


def _not_rewritten(library: Library) -> list[str]:
    """The globs the refactoring leaves alone: the library's, and its sdist's test folder."""
    globs = [*library.not_rewritten]
    if library.sdist_tests is not None:
        globs.append(f"{library.sdist_tests}/*")
    return globs


def measure_library(library: Library, args: argparse.Namespace, python: Path) -> dict[str, Any]:
    out: Path = args.out
    work = out / library.name
    if args.judge_only:
        return judge_recorded(library, work)
    site = oracle.install_library(python, out, library)
    tests = oracle.sdist_tests(python, out, library)
    for label in ("original", "rewritten"):
        oracle.copy_packages(site, work / label, library.packages)
        oracle.copy_tests(tests, work / label, library)
    not_rewritten = _not_rewritten(library)
    print(f"[{library.name}] rewriting ...", flush=True)
    done = oracle.rewrite(work, args.jobs, not_rewritten)
    default_rewritten = default_changes(work, args.jobs, not_rewritten)
    default = {f.key for f in default_rewritten}
    targets = targets_of(done.rewritten)
    default_targets = targets_of(default_rewritten)
    for _, targets_file, records_folder, logs in COPIES.values():
        # a copy not run now leaves no earlier run's records to be judged with this one's
        (work / targets_file).unlink(missing_ok=True)
        for folder in (records_folder, logs):
            shutil.rmtree(work / folder, ignore_errors=True)
    probed = {"default": default_targets, "low-benefit": targets}
    test_folders = [*library.packages, *([library.sdist_tests] if library.sdist_tests else [])]
    test_files = sorted(
        {
            str(p.relative_to(work / "original").as_posix())
            for folder in test_folders
            for p in (work / "original" / folder).rglob("*.py")
            if oracle.is_test_file(p.name)
            and not any(
                oracle.fnmatchcase(str(p.relative_to(work / "original")), g)
                for g in library.slow_tests
            )
        }
    )
    limit = args.tests_limit.get(
        library.name, args.tests_limit.get("", default_tests_limit(library))
    )
    selected = benefit_test_files(
        work / "original", test_files, default, {f.file for f in done.rewritten}, limit
    )
    plugins = work / "plugin"
    install_plugin(plugins)
    install_benefit_plugin(plugins)
    file_failures: dict[str, Any] = {}
    for copy in args.copies:
        folder, targets_file, records_folder, logs = COPIES[copy]
        (work / targets_file).write_text(json.dumps(probed[copy], indent=1))
        (work / records_folder).mkdir(parents=True)
        print(
            f"[{library.name}] {copy} copy: {len(probed[copy])} changes probed "
            f"({len(done.rewritten)} changes, {len(default)} default); running "
            f"{len(selected)} of {len(test_files)} test files ...",
            flush=True,
        )
        run = oracle.Run(
            f"benefit-{copy}",
            python,
            work / folder,
            [str(site), *oracle.tools_path(python, out), *args.pythonpath, str(plugins)],
            {
                **ONE_THREAD,
                **library.env,
                "HYBRIDIZE_BENEFIT_TARGETS": str(work / targets_file),
                "HYBRIDIZE_BENEFIT_OUT": str(work / records_folder),
            },
            library.packages,
            args.test_timeout or library.test_timeout,
            args.file_timeout or library.file_timeout,
            work / logs,
            plugins=(BENEFIT_PLUGIN_MODULE,),
        )
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            outcomes = oracle.collect(oracle.submit_tests(pool, run, selected, args.chunk_files))
        file_failures[copy] = outcomes.file_failures
    # judged from the records on disk, as a run cut short is (--judge-only)
    return judge_recorded(library, work) | {
        "changes": len(done.rewritten),
        "removed_decorators": [f.key for f in done.rewritten if f.change == "removed"],
        "file_failures": file_failures,
    }


def benefit_test_files(
    root: Path,
    test_files: Sequence[str],
    default_keys: Collection[str],
    rewritten_files: Collection[str],
    limit: int | None,
) -> list[str]:
    """The test files to run (paths under `root`, the original copy): all when `limit` is
    None or holds them; else, first, for every module the default refactoring changes, the
    tests that exercise it, so that each default change can be measured: those named after
    it (`realcode_oracle.tests_named_after`), or where none is, one test file importing it
    (`module_imports`), preferring one that names a changed function or class (the first in
    the order of the SHA-1 of its path); then, for each changed function or class that no
    file chosen names, the first test file naming it (it may call it through another module:
    a backbone's test building a block); then, up to `limit` files in all, the safety
    oracle's sample among every rewritten module's tests (`realcode_oracle.rank_test_files`).
    The default changes' tests are run even past `limit`: a sample of the rewritten modules'
    tests chosen without them ran none of tf-models' 20 default changes."""
    if limit is None or limit >= len(test_files):
        return sorted(test_files)
    names: dict[str, set[str]] = {}
    for key in default_keys:
        file, _, qualname = key.rpartition("::")
        names.setdefault(file, set()).add(qualname.split(".")[0])
    ranked = oracle.rank_test_files(test_files, rewritten_files)
    imports: dict[str, set[str]] = {}
    required: list[str] = []
    for module in sorted(names):
        named = oracle.tests_named_after(test_files, module)
        if named:
            required += [t for t in named if t not in required]
            continue
        if not imports:
            imports = {t: module_imports(root / t, t) for t in test_files}
        dotted = module.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
        importing = [t for t in ranked if dotted in imports[t]]
        mentioning = [t for t in importing if _mentions(root / t, names[module])]
        chosen = (mentioning or importing)[:1]
        if not any(t in required for t in mentioning or importing):
            required += chosen
    # a module's tests may not call every change in it: add, for each changed name no file
    # chosen so far names, the first test file (in the sample's order) that names it
    for name in sorted({n for module_names in names.values() for n in module_names}):
        if any(_mentions(root / t, [name]) for t in required):
            continue
        required += [t for t in ranked if _mentions(root / t, [name])][:1]
    rest = [t for t in ranked if t not in required][: max(0, limit - len(required))]
    return sorted([*required, *rest])


def _mentions(path: Path, names: Collection[str]) -> bool:
    """Whether the file's text names one of `names` as a whole word."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return any(re.search(rf"\b{re.escape(name)}\b", text) for name in names)


def default_tests_limit(library: Library) -> int | None:
    """The test files the benefit oracle runs of a library when `--tests-limit` says nothing:
    its own limit where it has one (`Library.benefit_tests_limit`), else the safety oracle's."""
    if library.benefit_tests_limit is not None:
        return library.benefit_tests_limit
    return library.tests_limit


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.0f}%"


def _library_graph(function: dict[str, Any]) -> str:
    """How many of the in-graph calls were traced into a graph the library built."""
    calls = function.get("library_graph_calls", 0)
    return f", {calls} the library's" if calls else ""


def _run_eagerly(function: dict[str, Any]) -> str:
    """The calls made while the tests ran `tf.function`s eagerly, when there are any."""
    calls = function.get("run_eagerly_calls", 0)
    return f", +{calls} run eagerly" if calls else ""


def _variable_traces(function: dict[str, Any]) -> str:
    """The second traces of first calls that created variables, when there are any."""
    traces = function.get("variable_traces", 0)
    return f" ({traces} creating variables)" if traces else ""


def _ratio(function: dict[str, Any]) -> str:
    """The CPU-time median with its interval and verdict mark (+ faster, - slower, = no
    measurable difference), and the wall-time median: `2.31x [1.90-2.80]+ w1.70x`."""
    if function.get("speedup") is None:
        return "-"
    text = f"{function['speedup']:.2f}x"
    interval = function.get("interval")
    if interval:
        mark = {"faster": "+", "slower": "-"}.get(function.get("speed") or "", "=")
        text += f" [{interval[0]:.2f}-{interval[1]:.2f}]{mark}"
    if function.get("wall_speedup") is not None:
        text += f" w{function['wall_speedup']:.2f}x"
    return text


def render_library(result: dict[str, Any]) -> str:
    s = result["summary"]
    copies = result.get("copies", ["low-benefit"])
    tests, passing = result["tests"], result["passing"]
    if not isinstance(tests, dict):  # a result from before the default copy's run
        tests, passing = {"low-benefit": tests}, {"low-benefit": passing}
    runs = "; ".join(f"{c} copy {tests[c]} tests ({passing[c]} passing)" for c in sorted(tests))
    default_from = (
        "with only the default changes applied"
        if "default" in copies
        else "on the low-benefit copy (every safe change applied)"
    )
    lines = [
        f"{result['requirement']}: {result['probed']} changes probed, {s['default_changes']} "
        f"default; {runs or 'no test run'} in {len(result['test_files'])} files",
        f"  default changes measured faster, no excess traces ({default_from}): "
        f"{s['default_paying']} of {s['default_measured']} measured "
        f"({_percent(s['default_rate'])}; target >= 85%); "
        f"{s['default_no_difference']} of no measurable difference, "
        f"{s['default_retracing']} retracing; of those with a measurable difference: "
        f"{_percent(s['default_rate_decided'])}",
        (
            f"  paying changes (all safe ones) in the default set: {s['paying_in_default']} of "
            f"{s['paying']} ({_percent(s['recall'])}; target >= 70%)"
            if "low-benefit" in copies
            else "  paying changes (all safe ones): not measured (the low-benefit copy not run)"
        ),
        f"  faster on direct calls, but run inside a graph by the library: "
        f"{s.get('paying_in_graph', 0)} ({s.get('paying_in_graph_default', 0)} default)",
    ]
    default_functions = result.get("default_functions")
    if default_functions is not None:
        lines.append("  default copy (only the default changes applied):")
        lines += [_function_line(f) for f in sorted(default_functions, key=lambda f: f["key"])]
    if "low-benefit" in copies:
        if default_functions is not None:
            lines.append("  low-benefit copy (every safe change applied):")
        lines += [
            _function_line(f)
            for f in sorted(result["functions"], key=lambda f: (not f["default"], f["key"]))
        ]
    return "\n".join(lines)


def _function_line(f: dict[str, Any]) -> str:
    return (
        f"  {'D' if f['default'] else ' '} {_ratio(f):>26} calls {f['calls']:>4} "
        f"(+{f['in_graph_calls']} in graph{_library_graph(f)}{_run_eagerly(f)}) signatures "
        f"{f['signatures']:>3} traces {f['traces']:>3}{_variable_traces(f)}  {f['key']}"
        + (f"  [{f['cause']}]" if f["cause"] else "")
    )


def tests_limits(text: str) -> dict[str, int]:
    """`--tests-limit`: "N" for every library (key ""), or "sonnet=15,gpytorch=20"."""
    limits: dict[str, int] = {}
    for part in text.split(","):
        name, _, number = part.strip().rpartition("=")
        limits[name.strip()] = int(number)
    return limits


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--libraries", default="sonnet,recommenders")
    parser.add_argument("--venv", type=Path, help="scratch environment with TensorFlow and pytest")
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "benefit-oracle")
    parser.add_argument("--jobs", type=int, default=2, help="test subprocesses at a time")
    parser.add_argument(
        "--tests-limit",
        type=tests_limits,
        default={},
        help="test files per library (sampled): N for every library, or NAME=N,NAME=N",
    )
    parser.add_argument("--test-timeout", type=int, help="seconds per test (default: per library)")
    parser.add_argument("--file-timeout", type=int, help="seconds per test file")
    parser.add_argument("--chunk-files", type=int, default=6, help="test files per subprocess")
    parser.add_argument(
        "--copies",
        default="default,low-benefit",
        help=(
            "the copies the tests run on: default (only the default changes applied: the "
            "default set's figure) and low-benefit (every safe change: the paying changes')"
        ),
    )
    parser.add_argument(
        "--pythonpath",
        action="append",
        default=[],
        help="a folder the tests also import from (tf-keras beside a --venv lacking it)",
    )
    parser.add_argument(
        "--judge-only",
        action="store_true",
        help="judge what an earlier run (finished or stopped) left in OUT, running nothing",
    )
    args = parser.parse_args(argv)
    args.names = [n.strip() for n in args.libraries.split(",") if n.strip()]
    unknown = [n for n in args.names if n not in LIBRARIES]
    if unknown:
        parser.error(f"unknown library {unknown[0]!r}; known: {', '.join(LIBRARIES)}")
    args.out = args.out.resolve()
    args.copies = [c.strip() for c in args.copies.split(",") if c.strip()]
    if not args.copies or any(c not in COPIES for c in args.copies):
        parser.error(f"--copies: one or more of {', '.join(COPIES)}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    venv = args.venv.resolve() if args.venv else None
    results: list[dict[str, Any]] = []
    for name in args.names:
        library = LIBRARIES[name]
        # a --venv holding both frameworks (the project's own .venv) serves every library;
        # judging reads what a run left on disk and runs nothing: no environment is built
        python = (
            Path(sys.executable)
            if args.judge_only
            else venv / "bin" / "python"
            if venv
            else oracle.scratch_python(args.out, None, library.base)
        )
        try:
            result = measure_library(library, args, python)
        except (RuntimeError, OSError) as exc:
            result = {"library": name, "requirement": library.requirement, "error": str(exc)}
            print(f"[{name}] not measured: {exc}", flush=True)
        else:
            print(render_library(result), flush=True)
        results.append(result)
        document = {"hybridize_commit": oracle._git_commit(), "libraries": results}
        (args.out / "benefit.json").write_text(json.dumps(document, indent=2) + "\n")
    print(f"details: {args.out / 'benefit.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
