"""`report.md`: the benchmark report as Markdown (a pure function of report.json's object)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.compiler.decisions import MODE_CHANGES
from hybridize.compiler.headline import failure_text, headline
from hybridize.compiler.outcomes import (
    APPLY,
    OUTCOMES,
    function_outcome,
    outcome_counts,
    reasons_text,
)

HYPOTHETICAL = (
    "not applied, for comparison: every plain candidate compiled, slow-downs included "
    "(graph / xla geomean per call)"
)
"""What compiling every candidate would give: never a recommendation (slower and
non-equivalent functions are in it), so it is shown among the figures, labelled as such."""


def fmt_seconds(value: float | None) -> str:
    if value is None:
        return "-"
    if value < 1e-6:
        return f"{value * 1e9:.0f} ns"
    if value < 1e-3:
        return f"{value * 1e6:.0f} µs"
    if value < 1:
        return f"{value * 1e3:.3g} ms"
    return f"{value:.3g} s"


def fmt_ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}x"


NOT_A_MODE = "—"
"""A mode the function's framework does not have (XLA for a torch function), as opposed to
"-", a mode that was not measured."""


def has_mode(function: Mapping[str, Any], mode: str) -> bool:
    """Whether the function's framework has the mode: `xla` only where a change compiles
    with XLA (`decisions.MODE_CHANGES`; torch has none)."""
    return mode != "xla" or ("eager", "xla") in MODE_CHANGES[function["framework"]]


def framework_cell(function: Mapping[str, Any]) -> str:
    """`tensorflow`, or `torch: torch.compile (inductor)`: the framework and, when the compiled
    mode has a name of its own, that name (it says which backend was measured)."""
    framework = str(function["framework"])
    label = (function["modes"].get("graph") or {}).get("label")
    return f"{framework}: {label}" if label else framework


def graph_breaks_cell(info: Mapping[str, Any]) -> str:
    """`graphs / breaks` of a torch.compile mode, "-" when not counted."""
    if info.get("graphs") is None:
        return "-"
    return f"{info['graphs']} / {info.get('graph_breaks', '-')}"


@dataclass(frozen=True, slots=True)
class ModeCell:
    """What a function's cell for one mode says, in every format (Markdown, HTML, the
    terminal's table): each marks it up its own way."""

    shown: str
    """The median time; NOT_A_MODE, "-" (not measured) or "error" instead of one."""
    timing: Mapping[str, Any] | None = None
    """The mode's timing, when it ran (empty when it ran untimed)."""
    error: str | None = None
    speedup: float | None = None
    """Against the baseline, for a compiled mode measured beside it."""
    equivalence: str | None = None
    """How its results compared with the reference ("equal", "different", ...)."""
    mismatches: tuple[str, ...] = ()

    @property
    def differs(self) -> bool:
        """Its results were not shown equivalent to the reference."""
        return self.equivalence in ("different", "not-comparable")


def mode_cell_of(function: Mapping[str, Any], mode: str) -> ModeCell:
    """The cell of one of the function's modes."""
    if not has_mode(function, mode):
        return ModeCell(NOT_A_MODE)
    info = function["modes"].get(mode)
    if not info:
        return ModeCell("-")
    if info.get("error"):
        return ModeCell("error", error=info["error"])
    timing = info.get("timing") or {}
    equivalence = info.get("equivalence") or {}
    return ModeCell(
        fmt_seconds(timing.get("median_seconds")),
        timing=timing,
        speedup=info.get("speedup") if mode != function["decision"]["baseline"] else None,
        equivalence=equivalence.get("status"),
        mismatches=tuple(equivalence.get("mismatches") or ()),
    )


def mode_cell(function: Mapping[str, Any], mode: str) -> str:
    cell = mode_cell_of(function, mode)
    text = cell.shown
    if cell.speedup is not None:
        text += f" ({fmt_ratio(cell.speedup)})"
    if cell.differs:
        text += f" ≠ {cell.equivalence}"
    return text


def decision_cell(function: Mapping[str, Any]) -> str:
    """The function's outcome (`outcomes.function_outcome`), with the mode and speed-up of an
    applied change: `**apply** (graph, 30.00x)`, `kept: slower`."""
    outcome = function_outcome(function)
    if outcome is APPLY:
        decision = function["decision"]
        return f"**{outcome.label}** ({decision['mode']}, {fmt_ratio(decision['speedup'])})"
    return outcome.label


def why_cell(function: Mapping[str, Any]) -> str:
    """The reasons, and the flags after them."""
    flags = ", ".join(function["decision"]["flags"])
    why = reasons_text(function)
    return f"{why}; flags: {flags}" if flags else why


def _escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def lead_markdown(report: Mapping[str, Any], report_path: str) -> list[str]:
    """The failed runs, what was measured and what would be applied, the command, the counts."""
    lead = headline(report, report_path)
    lines: list[str] = []
    for failure in lead.failures:
        lines += [f"> **Failed run.** {_escape(failure_text(failure))}", ">"]
    if lead.failures:
        lines[-1] = ""
    lines += ["## Result", ""]
    for sentence in lead.sentences:
        lines += [_escape(sentence), ""]
    for win in lead.wins:
        where = f" ({_escape(win.project)})" if lead.projects > 1 else ""
        lines.append(f"- `{win.function}`{where}: {win.change}, {fmt_ratio(win.speedup)} per call")
    if lead.wins:
        lines.append("")
    if lead.commands:
        lines += ["Apply them (without `--apply`: the diff):", "", "```sh"]
        lines += list(lead.commands)
        lines += ["```", ""]
    counts = outcome_counts(report["functions"])
    lines += ["| decision | functions | meaning |", "|---|---|---|"]
    lines += [
        f"| {outcome.label} | {counts[outcome.key]} | {_escape(outcome.meaning)} |"
        for outcome in OUTCOMES
        if counts[outcome.key]
    ]
    return lines


def render_markdown(report: Mapping[str, Any], report_path: str = "report.json") -> str:
    """`report_path`: where report.json is, for the command that applies the wins."""
    summary = report["summary"]
    lines = ["# hybridize bench report", ""]
    lines.append(
        f"{report['tool']['name']} {report['tool']['version']}, {report['created']}; "
        f"machine: {_escape(str(report['machine'].get('description', '')))}"
    )
    lines.append("")
    lines += lead_markdown(report, report_path)
    lines += ["", "## Functions", ""]
    lines.append(
        "| project | function | framework | inputs | eager | graph | xla | decision | why |"
    )
    lines.append("|---|---|---|---|---|---|---|---|---|")
    for function in report["functions"]:
        name = function["qualname"] + (" (hybrid)" if function["is_hybrid"] else "")
        source = function["input_source"] or "-"
        if function["argument_sets"]:
            source += f" ×{function['argument_sets']}"
        lines.append(
            f"| {_escape(_project_name(report, function))} | `{FunctionKey(function['file'], _escape(name))}` | "
            f"{framework_cell(function)} | {source} | "
            f"{mode_cell(function, 'eager')} | {mode_cell(function, 'graph')} | "
            f"{mode_cell(function, 'xla')} | {decision_cell(function)} | "
            f"{_escape(why_cell(function))} |"
        )
    lines += ["", "## Figures", "", "| figure | value |", "|---|---|"]
    rows = [
        ("functions measured", f"{summary['functions_measured']} of {summary['functions']}"),
        (
            "changes applied (graph / xla)",
            f"{summary['changes_applied']} ({summary['applied_graph']} / {summary['applied_xla']})",
        ),
        (
            "geomean per-call speed-up of applied changes",
            fmt_ratio(summary["geomean_speedup_applied"]),
        ),
        (
            "whole-program speed-up (run time after `import tensorflow`)",
            fmt_ratio(summary["whole_program_speedup"]),
        ),
        ("whole-program speed-up (wall time)", fmt_ratio(summary["whole_program_wall_speedup"])),
        ("applied slow-downs", str(summary["applied_slowdowns"])),
        ("equivalence failures among applied changes", str(summary["equivalence_failures"])),
        ("whole-program output mismatches", str(summary["whole_program_output_mismatches"])),
        (
            "programs whose changes were withdrawn (other output, or slower)",
            str(summary.get("whole_programs_withdrawn", 0)),
        ),
        (
            HYPOTHETICAL,
            f"{fmt_ratio(summary['geomean_speedup_graph_measured'])} / {fmt_ratio(summary['geomean_speedup_xla_measured'])}",
        ),
    ]
    lines += [f"| {name} | {value} |" for name, value in rows]
    lines += ["", "## Compilation statistics", ""]
    lines.append(
        "| function | traces (graph) | trace time | graph ops | xla compile | HLO before | HLO after | fusions "
        "| cold compile (torch) | graphs / breaks (torch) |"
    )
    lines.append("|---|---|---|---|---|---|---|---|---|---|")
    for function in report["functions"]:
        if function["status"] != "measured":
            continue
        graph = function["modes"].get("graph") or {}
        xla = function["modes"].get("xla") or {}
        graph_stats = graph.get("graph") or {}
        hlo = xla.get("hlo") or {}
        lines.append(
            f"| `{FunctionKey(function['file'], _escape(function['qualname']))}` | {graph.get('traces', '-')}"
            f"{' (+' + str(graph['steady_retraces']) + ' in steady state)' if graph.get('steady_retraces') else ''} | "
            f"{fmt_seconds(graph.get('trace_seconds'))} | {graph_stats.get('graph_ops', '-')} | "
            f"{fmt_seconds(xla.get('trace_seconds')) if has_mode(function, 'xla') else NOT_A_MODE} | "
            f"{hlo.get('instructions_before', '-')} | "
            f"{hlo.get('instructions_after', '-')} | {hlo.get('fusions', '-')} | "
            f"{fmt_seconds(graph.get('compile_seconds'))} | {graph_breaks_cell(graph)} |"
        )
    lines += ["", "## Whole programs", ""]
    lines.append(
        "| project | command | changes | original run / wall | refactored run / wall | speed-up (run / wall) | output |"
    )
    lines.append("|---|---|---|---|---|---|---|")
    for project in report["projects"]:
        whole = project.get("whole_program")
        if not whole:
            note = project.get("whole_program_note") or "-"
            lines.append(
                f"| {project['name']} | {project['entry'] or '-'} | {len(project['changes'])} | - | - | - | {_escape(note)} |"
            )
            continue
        original, refactored = whole["original"], whole["refactored"]
        lines.append(
            f"| {project['name']} | `{whole['command']}` ×{whole['runs']} | {len(project['changes'])} | "
            f"{fmt_seconds(original['median_run_seconds'])} / {fmt_seconds(original['median_wall_seconds'])} | "
            f"{fmt_seconds(refactored['median_run_seconds'])} / {fmt_seconds(refactored['median_wall_seconds'])} | "
            f"{fmt_ratio(whole['speedup'])} / {fmt_ratio(whole['wall_speedup'])} | "
            f"{'same' if whole['output_match'] else 'DIFFERENT'} ({whole['comparison']})"
            + (
                f"; changes withdrawn: {_escape(whole['changes_withdrawn'])}"
                if whole.get("changes_withdrawn")
                else ""
            )
            + " |"
        )
    notes = [(p["name"], n) for p in report["projects"] for n in p.get("notes") or []]
    if notes:
        lines += ["", "## Notes", ""]
        lines += [f"- {name}: {_escape(str(n))}" for name, n in notes]
    errors = [(p["name"], e) for p in report["projects"] for e in p["errors"]]
    errors += [
        (p["name"], p["capture_error"]) for p in report["projects"] if p.get("capture_error")
    ]
    if errors:
        lines += ["", "## Errors", ""]
        lines += [f"- {name}: {_escape(str(e))}" for name, e in errors]
    lines += ["", "## Assumptions", ""]
    lines += [f"- {a}" for a in report["assumptions"]]
    lines.append("")
    return "\n".join(lines)


def _project_name(report: Mapping[str, Any], function: Mapping[str, Any]) -> str:
    for project in report["projects"]:
        if project["root"] == function["project"]:
            return str(project["name"])
    return str(function["project"])
