"""The report formats of `hybridize analyze --format`, by name: one renderer object per format
says how the report is written (its body, in pieces or whole; its summary; its encoding;
whether it states the refactoring plan), so that the command and anything else that writes a
report ask the registry instead of testing format names.

A report's summary states this run's time, so it is written apart from the body: the report
cache (`report_cache`) keeps bodies and writes the summary of a kept report again
(`Renderer.summary_tail`) without reading a verdict back. This module and that method import
only `summary`: a run served by the report cache loads neither the model nor the renderers of
the bodies.
"""

from __future__ import annotations

import sys
from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hybridize.model import AnalysisResult
    from hybridize.output.summary import ReportTotals
    from hybridize.refactor.selection import Selection


@dataclass(frozen=True, slots=True)
class ReportStyle:
    """How the user asked for the report to look (formats that have no use for one ignore it)."""

    color: bool = False
    verbose: bool = False
    """Text: list every function, not only those with something to say."""
    selection: Selection | None = None
    """Which changes the report proposes: those `hybridize refactor` makes with this selection
    (`Selection.proposes`; None: the empty selection)."""


class Renderer(ABC):
    """One report format."""

    name: str
    """The `--format` value."""
    streams: bool = False
    """The body comes in many pieces (one per function), written as they come: the report of
    a large project is never held whole."""
    states_refactoring: bool = False
    """The report lists the files `hybridize refactor` would write (`refactored_files`): the
    result must carry them (`Project.plan`) before it is rendered."""
    for_terminal: bool = False
    """Written in the terminal's encoding, in color on a terminal; the others are UTF-8 (a
    character the encoding lacks becomes '?')."""

    def encoding(self) -> str:
        if self.for_terminal:
            return getattr(sys.stdout, "encoding", None) or "utf-8"
        return "utf-8"

    def colors(self) -> bool:
        """Whether this run's report is in color: a terminal format written to a terminal."""
        return self.for_terminal and sys.stdout.isatty()

    @abstractmethod
    def body(self, result: AnalysisResult, version: str, style: ReportStyle) -> Iterable[str]:
        """The report up to its summary (`summary_tail`), in pieces."""

    @abstractmethod
    def summary_tail(self, totals: ReportTotals, seconds: float, style: ReportStyle) -> str:
        """The end of the report from its summary on: the one part that depends on this run's
        time."""


class TextRenderer(Renderer):
    """The terminal report (`text_report`)."""

    name = "text"
    for_terminal = True

    def body(self, result: AnalysisResult, version: str, style: ReportStyle) -> Iterable[str]:
        from hybridize.output.text_report import text_body

        return [
            text_body(result, color=style.color, verbose=style.verbose, selection=style.selection)
        ]

    def summary_tail(self, totals: ReportTotals, seconds: float, style: ReportStyle) -> str:
        from hybridize.output.summary import text_summary_line

        return text_summary_line(totals, seconds, color=style.color)


class JsonRenderer(Renderer):
    """The JSON report (`json_report`, docs/report-format.md), one function record at a time."""

    name = "json"
    streams = True
    states_refactoring = True

    def body(self, result: AnalysisResult, version: str, style: ReportStyle) -> Iterable[str]:
        from hybridize.output.json_report import json_body_chunks

        return json_body_chunks(result, version, style.selection)

    def summary_tail(self, totals: ReportTotals, seconds: float, style: ReportStyle) -> str:
        from hybridize.output.summary import json_summary_tail

        return json_summary_tail(totals, seconds)


class SarifRenderer(Renderer):
    """The SARIF 2.1.0 log (`sarif`): every check is a rule of the driver."""

    name = "sarif"

    def body(self, result: AnalysisResult, version: str, style: ReportStyle) -> Iterable[str]:
        from hybridize.analyzer.checks import registry
        from hybridize.output.sarif import SarifRule, render_sarif

        rules: list[SarifRule] = [(c.code, c.name, c.summary, None) for c in registry().values()]
        return [render_sarif(result, version, rules, selection=style.selection)]

    def summary_tail(self, totals: ReportTotals, seconds: float, style: ReportStyle) -> str:
        return ""  # SARIF states no summary


RENDERERS: dict[str, Renderer] = {
    r.name: r for r in (TextRenderer(), JsonRenderer(), SarifRenderer())
}
"""Every report format by name, the default (text) first."""


def renderer(name: str) -> Renderer:
    """The renderer of format `name` (KeyError: no such format)."""
    return RENDERERS[name]
