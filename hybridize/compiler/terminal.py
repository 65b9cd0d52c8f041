"""The terminal side of `hybridize bench`: a progress bar while it runs, a table at the end."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    TextColumn,
    TimeElapsedColumn,
)
from rich.progress import Progress as RichProgressBar
from rich.table import Table

from hybridize.compiler.bench import Progress
from hybridize.compiler.render_md import (
    NOT_A_MODE,
    fmt_ratio,
    fmt_seconds,
    framework_cell,
    has_mode,
)


class RichProgress(Progress):
    """A rich progress bar on stderr (drawn only on a terminal)."""

    def __init__(self, console: Console) -> None:
        self.bar = RichProgressBar(
            TextColumn("[bold]bench[/bold]"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.description}"),
            console=console,
            transient=True,
        )
        self.task = self.bar.add_task("analysing", total=None)

    def __enter__(self) -> RichProgress:
        self.bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.bar.stop()

    def start(self, total: int) -> None:
        self.bar.update(self.task, total=total)

    def describe(self, text: str) -> None:
        self.bar.update(self.task, description=text)

    def advance(self, steps: int = 1) -> None:
        self.bar.advance(self.task, steps)


def _mode(function: Mapping[str, Any], mode: str) -> str:
    if not has_mode(function, mode):
        return NOT_A_MODE
    info = function["modes"].get(mode)
    if not info:
        return "-"
    if info.get("error"):
        return "[red]error[/red]"
    timing = info.get("timing") or {}
    text = fmt_seconds(timing.get("median_seconds"))
    speedup = info.get("speedup")
    if mode != function["decision"]["baseline"] and speedup is not None:
        color = "green" if speedup >= 1 else "red"
        text += f" [{color}]{fmt_ratio(speedup)}[/{color}]"
    status = (info.get("equivalence") or {}).get("status")
    if status in ("different", "not-comparable"):
        text += " [red]≠[/red]"
    return text


def summary_table(report: Mapping[str, Any]) -> Table:
    table = Table(title="hybridize bench", show_lines=False, expand=False)
    for column in ("function", "framework", "inputs", "eager", "graph", "xla", "decision"):
        table.add_column(column, no_wrap=column != "function")
    several = len(report["projects"]) > 1
    names = {p["root"]: p["name"] for p in report["projects"]}
    for function in report["functions"]:
        label = f"{function['file']}::{function['qualname']}"
        if several:
            label = f"{names.get(function['project'], '')}/{label}"
        decision = function["decision"]
        if function["status"] != "measured":
            verdict = f"[yellow]{function['status']}[/yellow]"
        elif decision["applied"]:
            verdict = (
                f"[green bold]{decision['mode']} {fmt_ratio(decision['speedup'])}[/green bold]"
            )
        else:
            verdict = f"keep {decision['baseline']}"
        source = function["input_source"] or "-"
        table.add_row(
            label,
            framework_cell(function),
            source,
            _mode(function, "eager"),
            _mode(function, "graph"),
            _mode(function, "xla"),
            verdict,
        )
    return table


def summary_lines(report: Mapping[str, Any]) -> list[str]:
    s = report["summary"]
    lines = [
        f"functions measured: {s['functions_measured']} of {s['functions']}"
        f" ({s['functions_without_inputs']} without inputs, {s['functions_failed']} failed)",
        f"changes applied: {s['changes_applied']} (graph {s['applied_graph']}, xla {s['applied_xla']});"
        f" geomean per-call speed-up {fmt_ratio(s['geomean_speedup_applied'])}",
        f"applied slow-downs: {s['applied_slowdowns']}; equivalence failures: {s['equivalence_failures']};"
        f" slow-downs found and not applied: {s['slowdowns_measured']}",
    ]
    if s["whole_program_speedup"] is not None:
        lines.append(
            f"whole programs ({s['whole_programs_compared']}): {fmt_ratio(s['whole_program_speedup'])}"
            f" run time, {fmt_ratio(s['whole_program_wall_speedup'])} wall time;"
            f" output mismatches: {s['whole_program_output_mismatches']}"
        )
    return lines
