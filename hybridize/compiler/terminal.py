"""The terminal side of `hybridize bench`: a progress bar while it runs, a table at the end."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    TextColumn,
    TimeElapsedColumn,
)
from rich.progress import Progress as RichProgressBar
from rich.table import Table

from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.compiler.bench import Progress
from hybridize.compiler.headline import failure_text, headline
from hybridize.compiler.outcomes import (
    APPLY,
    DIFFERS,
    FAILED,
    NO_INPUTS,
    OUTCOMES,
    WITHDRAWN,
    function_outcome,
    outcome_counts,
    reasons_text,
)
from hybridize.compiler.render_md import (
    decision_cell,
    fmt_ratio,
    framework_cell,
    mode_cell_of,
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
    cell = mode_cell_of(function, mode)
    if cell.error is not None:
        return "[red]error[/red]"
    text = cell.shown
    if cell.speedup is not None:
        color = "green" if cell.speedup >= 1 else "red"
        text += f" [{color}]{fmt_ratio(cell.speedup)}[/{color}]"
    if cell.differs:
        text += " [red]≠[/red]"
    return text


def summary_table(report: Mapping[str, Any]) -> Table:
    table = Table(title="hybridize bench", show_lines=False, expand=False)
    for column in ("function", "framework", "inputs", "eager", "graph", "xla", "decision", "why"):
        table.add_column(column, no_wrap=column not in ("function", "why"))
    several = len(report["projects"]) > 1
    names = {p["root"]: p["name"] for p in report["projects"]}
    for function in report["functions"]:
        label = str(FunctionKey(function["file"], function["qualname"]))
        if several:
            label = f"{names.get(function['project'], '')}/{label}"
        outcome = function_outcome(function)
        verdict = escape(decision_cell(function).replace("**", ""))
        if outcome is APPLY:
            verdict = f"[green bold]{verdict}[/green bold]"
        elif outcome in (FAILED, NO_INPUTS, WITHDRAWN, DIFFERS):
            verdict = f"[yellow]{verdict}[/yellow]"
        source = function["input_source"] or "-"
        table.add_row(
            escape(label),
            framework_cell(function),
            source,
            _mode(function, "eager"),
            _mode(function, "graph"),
            _mode(function, "xla"),
            verdict,
            escape(reasons_text(function)),
        )
    return table


def summary_lines(report: Mapping[str, Any], report_path: str = "report.json") -> list[str]:
    """What the report leads with (rich markup): the failed runs in red, what was measured
    and what would be applied, the command that applies it, the decisions counted."""
    lead = headline(report, report_path)
    lines = [
        f"[bold red]Failed run.[/bold red] [red]{escape(failure_text(failure))}[/red]"
        for failure in lead.failures
    ]
    lines += [escape(sentence) for sentence in lead.sentences]
    for win in lead.wins:
        where = f" ({win.project})" if lead.projects > 1 else ""
        lines.append(
            f"  {escape(win.function + where)}: {escape(win.change)}, "
            f"[green]{fmt_ratio(win.speedup)}[/green] per call"
        )
    if lead.commands:
        lines.append("Apply them (without --apply: the diff):")
        lines += [f"  [bold]{escape(command)}[/bold]" for command in lead.commands]
    counts = outcome_counts(report["functions"])
    lines.append(
        "decisions: "
        + ", ".join(
            f"{escape(outcome.label)} {counts[outcome.key]}"
            for outcome in OUTCOMES
            if counts[outcome.key]
        )
    )
    return lines
