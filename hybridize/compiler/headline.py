"""What the bench report leads with, in every format: what was measured, what would be applied,
the command that applies it, and the runs that failed.

A person opening the report wants to know what to do next. The wins listed here are exactly
those `hybridize refactor --from-bench REPORT` applies (`decisions.is_measured_win`), and the
command is spelled out with the report's own path. What compiling *every* candidate would give
is a hypothetical (no change is made on its strength): the renderers show it further down,
said as such.

A failing entry or `--pytest` run leaves the functions it did not reach without inputs, and
a failing whole-program run makes its comparison meaningless: `failed_runs` lists them so that
each format shows them above everything else, not only in report.json.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.compiler.decisions import is_measured_win

CHANGE_WORDS = {
    "add_tf_function": "@tf.function",
    "add_tf_function_jit": "@tf.function(jit_compile=True)",
    "add_jit_compile": "jit_compile=True on its @tf.function",
    "add_torch_compile": "@torch.compile",
}

PYTEST_EXIT = {
    1: "tests failed",
    2: "interrupted",
    3: "internal error",
    4: "usage error",
    5: "no tests collected",
}


@dataclass(frozen=True, slots=True)
class Win:
    """One change `refactor --from-bench` applies."""

    project: str
    function: str
    """`file::qualname`."""
    change: str
    """The change in words (`@tf.function`)."""
    speedup: float | None


@dataclass(frozen=True, slots=True)
class FailedRun:
    """A run of the user's program (or tests) that did not succeed."""

    project: str
    what: str
    """`the entry`, `pytest`, `the instrumented run`, `the original program`..."""
    command: str | None
    detail: str
    consequence: str


@dataclass(frozen=True, slots=True)
class Headline:
    projects: int
    wins: tuple[Win, ...]
    sentences: tuple[str, ...]
    """What was measured and what would be applied, as plain sentences."""
    commands: tuple[str, ...]
    """The commands that apply the wins, one per project that has some (empty: none)."""
    failures: tuple[FailedRun, ...]


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}x"


def _project_names(report: Mapping[str, Any]) -> dict[str, str]:
    return {str(p["root"]): str(p["name"]) for p in report["projects"]}


def wins(report: Mapping[str, Any]) -> list[Win]:
    names = _project_names(report)
    return [
        Win(
            names.get(str(f["project"]), str(f["project"])),
            str(FunctionKey(f["file"], f["qualname"])),
            CHANGE_WORDS.get(str(f["decision"].get("change")), str(f["decision"]["mode"])),
            f["decision"].get("speedup"),
        )
        for f in report["functions"]
        if is_measured_win(f)
    ]


def apply_commands(report: Mapping[str, Any], report_path: str) -> list[str]:
    """`hybridize refactor PROJECT --from-bench REPORT --apply`, per project with a win."""
    roots = {str(f["project"]) for f in report["functions"] if is_measured_win(f)}
    return [
        f"hybridize refactor {shlex.quote(str(p['root']))} --from-bench "
        f"{shlex.quote(report_path)} --apply"
        for p in report["projects"]
        if str(p["root"]) in roots
    ]


def failed_runs(projects: Sequence[Mapping[str, Any]]) -> list[FailedRun]:
    """The entry and pytest runs that failed, the instrumented run that crashed, and the
    whole-program runs that exited with an error, of every project of a report."""
    out: list[FailedRun] = []
    for project in projects:
        name = str(project.get("name") or project.get("root") or "the project")
        for run in (project.get("capture") or {}).get("runs") or []:
            status = run.get("exit_status")
            if status == 0 and not run.get("error"):
                continue
            pytest = run.get("kind") == "pytest"
            if run.get("error"):
                detail = str(run["error"])
            elif pytest and status in PYTEST_EXIT:
                detail = f"exit status {status}: {PYTEST_EXIT[status]}"
            else:
                detail = f"exit status {status}"
            if not pytest:
                consequence = "functions it did not call before failing have no recorded inputs"
            elif status == 5:
                consequence = "no test ran, so no inputs were recorded from the tests"
            else:
                consequence = "inputs come only from the tests that ran before or despite it"
            out.append(
                FailedRun(
                    name,
                    "pytest" if pytest else "the entry",
                    run.get("command"),
                    detail,
                    consequence,
                )
            )
        if project.get("capture_error"):
            out.append(
                FailedRun(
                    name,
                    "the instrumented run",
                    project.get("entry"),
                    str(project["capture_error"]),
                    "no inputs were recorded from it",
                )
            )
        whole = project.get("whole_program") or {}
        for variant in ("original", "refactored"):
            statuses = (whole.get(variant) or {}).get("exit_status") or []
            failing = [s for s in statuses if s != 0]
            if failing:
                out.append(
                    FailedRun(
                        name,
                        f"the {variant} program",
                        whole.get("command"),
                        f"{len(failing)} of {len(statuses)} runs exited with status "
                        + ", ".join(str(s) for s in failing),
                        "the whole-program comparison does not hold",
                    )
                )
    return out


def failure_text(failure: FailedRun) -> str:
    """One failed run in one sentence (no markup)."""
    command = f" ({failure.command})" if failure.command else ""
    return (
        f"{failure.project}: {failure.what}{command} failed: {failure.detail}. "
        f"Consequence: {failure.consequence}."
    )


def _applied_sentence(report: Mapping[str, Any], found: Sequence[Win]) -> str:
    summary = report["summary"]
    if found:
        kinds: dict[str, int] = {}
        for win in found:
            kinds[win.change] = kinds.get(win.change, 0) + 1
        notes = []
        if len(found) > 1:
            notes.append("geometric mean")
            if summary.get("min_speedup_applied") is not None:
                notes.append(
                    f"{_ratio(summary['min_speedup_applied'])} to "
                    f"{_ratio(summary['max_speedup_applied'])}"
                )
        return (
            f"{len(found)} change{'s' if len(found) != 1 else ''} would be applied ("
            + ", ".join(f"{n} {change}" for change, n in kinds.items())
            + f"): per call {_ratio(summary.get('geomean_speedup_applied'))} faster"
            + (f" ({'; '.join(notes)})" if notes else "")
            + "."
        )
    withdrawn = [
        f"in {p['name']} ({p['whole_program']['changes_withdrawn']})"
        for p in report["projects"]
        if (p.get("whole_program") or {}).get("changes_withdrawn")
    ]
    if withdrawn:
        return (
            "Nothing would be applied: the measured wins were withdrawn "
            + "; ".join(withdrawn)
            + "."
        )
    if not summary.get("functions_measured"):
        return "Nothing would be applied: no function was measured."
    return (
        "Nothing would be applied: no function was measured both faster and equivalent "
        "(each function's reason is in the table)."
    )


def _whole_program_sentence(report: Mapping[str, Any]) -> str | None:
    summary = report["summary"]
    if summary.get("whole_program_speedup") is None:
        return None
    programs = summary.get("whole_programs_compared") or 0
    mismatches = summary.get("whole_program_output_mismatches") or 0
    output = "same output" if not mismatches else f"{mismatches} with other output"
    return (
        f"The whole program{'s' if programs != 1 else ''} with these changes: "
        f"{_ratio(summary['whole_program_speedup'])} the original's speed (run time after "
        f"importing the framework; {_ratio(summary.get('whole_program_wall_speedup'))} wall "
        f"time), {output}."
    )


def headline(report: Mapping[str, Any], report_path: str = "report.json") -> Headline:
    """The report's lead; `report_path` is where report.json is (the command names it)."""
    functions = report["functions"]
    found = wins(report)
    measured = sum(1 for f in functions if f["status"] == "measured")
    projects = len(report["projects"])
    where = f" in {projects} projects" if projects > 1 else ""
    sentences = [
        f"Measured {measured} of {len(functions)} candidate function"
        f"{'s' if len(functions) != 1 else ''}{where}.",
        _applied_sentence(report, found),
    ]
    whole = _whole_program_sentence(report) if found else None
    if whole:
        sentences.append(whole)
    return Headline(
        projects=projects,
        wins=tuple(found),
        sentences=tuple(sentences),
        commands=tuple(apply_commands(report, report_path)),
        failures=tuple(failed_runs(report["projects"])),
    )
