"""`hybridize bench`: analysis -> worker measurements -> decisions -> whole programs -> report.

Runs in the CLI process and never imports TensorFlow or PyTorch: the analysis is static, the measuring
happens in `worker.py` subprocesses (`protocol.py`), the whole-program runs in plain
subprocesses (`whole_program.py`). Each PATH is a project (a folder, or one file and its
folder); every project is copied to a temporary folder before anything of it runs.
"""

from __future__ import annotations

import datetime
import fnmatch
import json
import os
import platform
import re
import shlex
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from hybridize.compiler import decisions, report, whole_program
from hybridize.compiler.protocol import Limits, run_job
from hybridize.compiler.refactored_copy import Change, write_changes
from hybridize.model import FunctionVerdict

_PYTHON = re.compile(r"^python(\d+(\.\d+)?)?$")


class EntryError(ValueError):
    """An --entry that is not `python SCRIPT ...` or `python -m MODULE ...`."""


def parse_entry(text: str) -> list[str]:
    """`python main.py --steps 5` -> ["main.py", "--steps", "5"] (the interpreter is ours)."""
    try:
        words = shlex.split(text)
    except ValueError as error:
        raise EntryError(f"cannot parse --entry {text!r}: {error}") from error
    if words and _PYTHON.match(os.path.basename(words[0])):
        words = words[1:]
    if not words:
        raise EntryError("--entry needs a script: 'python main.py ...' or 'python -m pkg ...'")
    if words[0] == "-m":
        if len(words) < 2:
            raise EntryError("--entry 'python -m' needs a module name")
        return words
    if words[0].startswith("-"):
        raise EntryError(f"--entry: unsupported interpreter option {words[0]!r}")
    if not words[0].endswith(".py"):
        raise EntryError(
            f"--entry must run a Python script or module ('python main.py', 'python -m pkg'), "
            f"got {text!r}"
        )
    return words


@dataclass(slots=True)
class BenchOptions:
    entry: str | None = None
    pytest: bool = False
    inputs: Path | None = None
    argument_sets: int = 3
    budget_seconds: float = 2.0
    min_rounds: int = 7
    max_rounds: int = 41
    program_runs: int = 3
    rtol: float = 1e-5
    atol: float = 1e-6
    min_speedup: float = 1.10
    amortize: bool = True
    trace_cost_factor: float = 2.0
    xla: bool = True
    torch_backend: str = "inductor"
    none_axis_size: int = 16
    digest_atol: float = 1e-3
    limits: Limits = field(default_factory=Limits)
    python: str = field(default_factory=lambda: sys.executable)
    use_cache: bool = True
    select: tuple[str, ...] = ()

    def settings(self) -> dict[str, Any]:
        data = asdict(self)
        data["inputs"] = str(self.inputs) if self.inputs else None
        data["limits"] = asdict(self.limits)
        data.pop("python")
        data["select"] = list(self.select)
        return data


class Progress:
    """What the CLI shows while the benchmark runs (the default shows nothing)."""

    def start(self, total: int) -> None:
        """`total` steps: one per candidate function, one per whole-program run."""

    def describe(self, text: str) -> None:
        """What is running now."""

    def advance(self, steps: int = 1) -> None:
        """Steps done."""


def assumptions(options: BenchOptions, frameworks: Sequence[str]) -> list[str]:
    """What the numbers of a report assume, in sentences; `frameworks`, those of the
    candidates measured (none when there were none)."""
    out = [
        "Per-call times are medians over interleaved samples of the steady state (after one "
        "warm-up call per argument set); trace and compile times are reported apart "
        "(first-call time minus the steady-state time).",
        f"A change is applied only when it is faster than the baseline by at least "
        f"{options.min_speedup:.2f}x at the median with non-overlapping interquartile ranges, "
        "equivalent, and free of steady-state retracing; XLA only when it also beats graph mode.",
        f"Equivalence: numpy.allclose(rtol={options.rtol:g}, atol={options.atol:g}) on every "
        "output (nested structures) and on every TensorFlow variable of the process after the "
        "same calls from the same state; variables are restored between modes and samples.",
        "The reference for equivalence is eager execution for a plain function and the "
        "existing compiled form for a function that already has @tf.function.",
        "Functions whose reference run is not reproducible, or that use stateful random ops "
        "seeded from the global seed, are reported as not comparable and never changed.",
        f"Inputs from an inferred signature fill each None axis with {options.none_axis_size}; "
        "floats are standard normal, integers uniform in [0, 8).",
        "Removing an existing @tf.function is never applied by bench; the measured eager time "
        "is shown for the analysis' convert_to_eager verdicts.",
    ]
    if options.amortize:
        out.append(
            "With an entry run, a change must also pay for its tracing/compilation over the "
            "calls observed in that run (taken as representative of a real run): the time the "
            f"calls save must exceed {options.trace_cost_factor:g} times the trace/compile time "
            "measured in the warmed-up worker (a fresh process traces more slowly)."
        )
    if "torch" in frameworks:
        out.append(
            "PyTorch functions: eager against torch.compile "
            f"(backend={options.torch_backend!r}; Inductor falls back to 'aot_eager' when it "
            "cannot compile on the machine, as the project's notes then say), shown as the "
            "`graph` mode and decided by the same rules. The compile time is the first call of "
            "the compiled function with Dynamo's caches reset and the FX graph cache off; "
            "traces count Dynamo's compilations of the function's own frame (a recompile is a "
            "second one); graphs and graph breaks come from torch._dynamo.explain. State "
            "compared and restored: parameters, buffers, gradients and optimizer state."
        )
    if options.entry:
        imported = " and ".join(f"`import {name}`" for name in frameworks) or "the imports"
        out.append(
            f"Whole-program speed-up: median over the runs of the time after {imported} "
            "to the program's end, original / refactored copy (the ~2 s import is the same for "
            "both); the wall-time ratio of the whole process is reported beside it. Outputs are "
            f"compared on the `digest:` line (numbers within {options.digest_atol:g}) or on the "
            "whole stdout."
        )
    return out


def machine_description(
    tensorflow: str | None, torch: str | None, frameworks: Sequence[str]
) -> dict[str, Any]:
    """The machine and the versions the workers imported of the `frameworks` of the candidates
    measured (none when there were none)."""
    versions = []
    if "tensorflow" in frameworks:
        versions.append(f"TensorFlow {tensorflow or '?'}")
    if "torch" in frameworks:
        versions.append(f"PyTorch {torch or '?'}")
    data = {
        "description": ", ".join(
            [
                f"{platform.system()} {platform.machine()}",
                f"{os.cpu_count()} CPUs",
                f"Python {platform.python_version()}",
                *versions,
            ]
        ),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "tensorflow": tensorflow,
        "platform": platform.platform(),
    }
    if "torch" in frameworks:
        data["torch"] = torch
    return data


def _verdict_dict(verdict: FunctionVerdict) -> dict[str, Any]:
    def spec(tree: Any) -> Any:
        if isinstance(tree, tuple):
            return [spec(t) for t in tree]
        return {
            "spec": tree.spec,
            "dtype": tree.dtype,
            "shape": list(tree.shape) if tree.shape is not None else None,
        }

    signature = None
    facts = verdict.facts
    if facts.input_signature is not None:
        signature = [spec(t) for t in facts.input_signature]
    return {
        "key": verdict.key,
        "file": verdict.file,
        "qualname": verdict.qualname,
        "line": verdict.line,
        "is_hybrid": facts.is_hybrid,
        "passes": verdict.passes,
        "transformation": verdict.transformation,
        "passing_precondition": verdict.passing_precondition,
        "speculative": facts.speculative,
        "input_signature": signature,
        "framework": verdict.framework,
    }


def is_candidate(verdict: FunctionVerdict) -> bool:
    """Functions the analysis passes for compilation, and existing hybrid functions."""
    return verdict.facts.is_hybrid or (
        verdict.passes and verdict.transformation == "convert_to_hybrid"
    )


def _selected(key: str, patterns: Sequence[str]) -> bool:
    return not patterns or any(fnmatch.fnmatchcase(key, p) for p in patterns)


def candidates_for(
    path: Path, options: BenchOptions
) -> tuple[Path, list[dict[str, Any]], list[str]]:
    """(project root, candidate verdicts as dicts, analysis warnings and file errors)."""
    from hybridize.project import Project, ProjectOptions

    project = Project.open(
        path,
        ProjectOptions(infer_input_signatures=True, use_cache=options.use_cache),
        long_running=False,
    )
    result = project.results()
    notes = [*project.warnings, *(f"{e.file}: {e.message}" for e in result.errors)]
    verdicts = [
        _verdict_dict(v)
        for v in result.functions
        if is_candidate(v) and _selected(v.key, options.select)
    ]
    return project.base, verdicts, notes


def run_project(
    analysed: tuple[Path, list[dict[str, Any]], list[str]],
    options: BenchOptions,
    progress: Progress,
    scratch: Path,
    entry: list[str] | None,
) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, str]]:
    root, verdicts, notes = analysed
    name = root.name
    project: dict[str, Any] = {
        "root": str(root),
        "name": name,
        "entry": shlex.join(["python", *entry]) if entry else None,
        "pytest": options.pytest,
        "capture": None,
        "capture_error": None,
        "errors": notes,
        "notes": [],
        "changes": [],
        "whole_program": None,
        "whole_program_note": None,
    }
    if not verdicts:
        project["whole_program_note"] = "no candidate function"
        return project, [], {}
    workdir = scratch / f"{len(list(scratch.iterdir()))}-{name}"
    workdir.mkdir()
    copy = whole_program.copy_project(root, workdir / "capture" / name)
    job = {
        "root": str(copy),
        "cwd": str(copy),
        "entry": entry,
        "pytest": options.pytest,
        "inputs": str(options.inputs.resolve()) if options.inputs else None,
        "candidates": verdicts,
        "settings": {
            "argument_sets": options.argument_sets,
            "budget_seconds": options.budget_seconds,
            "min_rounds": options.min_rounds,
            "max_rounds": options.max_rounds,
            "rtol": options.rtol,
            "atol": options.atol,
            "xla": options.xla,
            "torch_backend": options.torch_backend,
            "none_axis_size": options.none_axis_size,
            "capture_seconds": options.limits.capture_seconds,
        },
    }

    def on_event(event: dict[str, Any]) -> None:
        kind = event.get("event")
        if kind == "capture_start":
            progress.describe(f"{name}: running the program instrumented")
        elif kind == "function_start":
            progress.describe(f"{name}: {event.get('key')}")
        elif kind == "function_done":
            progress.advance()

    outcome = run_job(
        job, options.limits, python=options.python, on_event=on_event, workdir=workdir
    )
    project["capture"] = outcome.capture
    project["capture_error"] = outcome.capture_error
    project["errors"] += outcome.errors
    settings = decisions.DecisionSettings(
        options.min_speedup, options.amortize, options.trace_cost_factor
    )
    functions = []
    changes: dict[str, list[Change]] = {}
    results = {
        verdict["key"]: outcome.results.get(
            verdict["key"], {"status": "error", "error": "no result"}
        )
        for verdict in verdicts
    }
    decided = decisions.decide_all(
        [(v["key"], results[v["key"]], v["is_hybrid"]) for v in verdicts], settings
    )
    for verdict in verdicts:
        result = results[verdict["key"]]
        for note in result.get("notes") or []:
            if note not in project["notes"]:
                project["notes"].append(note)
        decision = decided[verdict["key"]]
        functions.append(
            report.function_entry(
                project=str(root), verdict=verdict, result=result, decision=decision.as_dict()
            )
        )
        if decision.applied:
            changes.setdefault(verdict["file"], []).append(
                Change(
                    verdict["qualname"],
                    verdict["line"],
                    decision.mode,
                    verdict["is_hybrid"],
                    verdict["framework"],
                )
            )
            project["changes"].append(f"{verdict['key']} -> {decision.mode}")
    if entry and options.program_runs > 0:
        if changes:
            project["whole_program"], note = _whole_program(
                root, workdir, entry, changes, options, progress, name, _runtime(verdicts, results)
            )
            project["whole_program_note"] = note
            withdrawn = _withdrawal_reason(project["whole_program"])
            if withdrawn is not None:
                _withdraw(functions, withdrawn)
                project["whole_program"]["changes_withdrawn"] = withdrawn
                project["changes"] = []
        else:
            project["whole_program_note"] = "no change applied: the program is unchanged"
        progress.advance()
    elif entry:
        project["whole_program_note"] = "whole-program runs disabled (--program-runs 0)"
    return project, functions, outcome.frameworks


def _runtime(
    verdicts: Sequence[dict[str, Any]], results: dict[str, dict[str, Any]]
) -> whole_program.Runtime:
    """What the whole-program runs import, and torch.compile's backend as the worker measured
    it (aot_eager when Inductor was asked for and could not compile here)."""
    frameworks = tuple(sorted({str(v["framework"]) for v in verdicts}))
    labels = {
        str(((r.get("modes") or {}).get("graph") or {}).get("label") or "")
        for r in results.values()
    }
    backend = "aot_eager" if "torch.compile (aot_eager)" in labels else None
    return whole_program.Runtime(frameworks, backend)


WITHDRAW_BELOW = 0.9
"""A refactored program this much slower (or worse), every run slower than every original
run, has its changes withdrawn: something the per-function measurements could not see (how
the changes interact, the program's real call pattern) made it slower."""


def _withdrawal_reason(whole: dict[str, Any] | None) -> str | None:
    """Why the measured whole program rules out the project's changes, if it does."""
    if whole is None:
        return None
    if not whole.get("output_match") and whole.get("original_output_stable"):
        return f"the refactored program's output differs ({whole.get('detail') or 'stdout'})"
    original = whole["original"].get("run_seconds") or []
    refactored = whole["refactored"].get("run_seconds") or []
    speedup = whole.get("speedup")
    if (
        speedup is not None
        and speedup < WITHDRAW_BELOW
        and original
        and refactored
        and min(refactored) > max(original)
    ):
        return f"the refactored program ran slower ({speedup:.2f}x the original's speed)"
    return None


def _withdraw(functions: list[dict[str, Any]], reason: str) -> None:
    """Turn the project's applied changes into kept-as-is decisions, saying why."""
    for function in functions:
        if function["decision"].get("applied"):
            applied = decisions.Decision(**function["decision"])
            withdrawn = applied.kept_as_is(f"withdrawn: {reason}", "whole-program-withdrawn")
            function["decision"] = withdrawn.as_dict()


def _whole_program(
    root: Path,
    workdir: Path,
    entry: list[str],
    changes: dict[str, list[Change]],
    options: BenchOptions,
    progress: Progress,
    name: str,
    runtime: whole_program.Runtime,
) -> tuple[dict[str, Any] | None, str | None]:
    original = whole_program.copy_project(root, workdir / "original" / name)
    refactored = whole_program.copy_project(root, workdir / "refactored" / name)
    for file, file_changes in changes.items():
        try:
            write_changes(refactored, file, file_changes)
        except (OSError, LookupError) as error:
            return None, f"could not write the refactored copy of {file}: {error}"

    def on_run(variant: str, index: int) -> None:
        progress.describe(
            f"{name}: whole program, {variant} run {index + 1}/{options.program_runs}"
        )

    result = whole_program.compare_programs(
        python=options.python,
        original=original,
        refactored=refactored,
        cwd_relative=".",
        entry=entry,
        runs=options.program_runs,
        digest_atol=options.digest_atol,
        limits=options.limits,
        on_run=on_run,
        runtime=runtime,
    )
    return result, None


def run_bench(
    paths: Sequence[Path], options: BenchOptions, progress: Progress | None = None
) -> dict[str, Any]:
    """Benchmark every project and return the report object (see `report.py`)."""
    progress = progress or Progress()
    from hybridize import __version__

    entry = parse_entry(options.entry) if options.entry else None
    started = time.perf_counter()
    projects: list[dict[str, Any]] = []
    functions: list[dict[str, Any]] = []
    versions: dict[str, str] = {}
    analysed = [candidates_for(path, options) for path in paths]
    frameworks = sorted({str(v["framework"]) for _, verdicts, _ in analysed for v in verdicts})
    whole = 1 if entry and options.program_runs > 0 else 0
    progress.start(sum(len(verdicts) + (whole if verdicts else 0) for _, verdicts, _ in analysed))
    with tempfile.TemporaryDirectory(prefix="hybridize-bench-") as scratch:
        for item in analysed:
            project, project_functions, imported = run_project(
                item, options, progress, Path(scratch), entry
            )
            projects.append(project)
            functions.extend(project_functions)
            versions = {**imported, **versions}
    seconds = time.perf_counter() - started
    return {
        "schema_version": report.SCHEMA_VERSION,
        "tool": {"name": "hybridize", "version": __version__},
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "machine": machine_description(
            versions.get("tensorflow"), versions.get("torch"), frameworks
        ),
        "settings": options.settings(),
        "assumptions": assumptions(options, frameworks),
        "projects": projects,
        "functions": functions,
        "summary": report.summarize(functions, projects, seconds),
    }


def write_reports(data: dict[str, Any], out: Path) -> list[Path]:
    """report.json, report.md and report.html in `out` (created if needed)."""
    from hybridize.compiler.render_html import render_html
    from hybridize.compiler.render_md import render_markdown

    out.mkdir(parents=True, exist_ok=True)
    paths = [out / "report.json", out / "report.md", out / "report.html"]
    paths[0].write_text(json.dumps(data, indent=2, allow_nan=False) + "\n", encoding="utf-8")
    # The reports name the command that applies the wins, with report.json's path as given.
    paths[1].write_text(render_markdown(data, str(paths[0])), encoding="utf-8")
    paths[2].write_text(render_html(data, str(paths[0])), encoding="utf-8")
    return paths
