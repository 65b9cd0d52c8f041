"""A report's summary: the totals it states (functions, candidates, refactorable, errors),
and how each format writes them with the run's time.

Apart from the renderers of the rest: a report served by the report cache (`report_cache`)
writes its summary without reading a verdict back, nor importing the model the verdicts are
made of.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from hybridize.model import AnalysisResult
    from hybridize.refactor.selection import Selection

BOLD = "\x1b[1m"
RESET = "\x1b[0m"


class ReportTotals(NamedTuple):
    """The counts a summary states; `proposed`, `low_benefit` and `blocked` are the sizes of
    the text report's sections (`triage.Triage`), so that the summary and the sections agree."""

    functions: int
    candidates: int
    refactorable: int
    """Verdicts that pass (a transformation is safe), proposed or not."""
    errors: int
    proposed: int = 0
    """The changes `hybridize refactor` makes with the same selection."""
    low_benefit: int = 0
    """Safe changes left out as predicted not to pay (`--include-low-benefit` adds them)."""
    blocked: int = 0
    """Functions that do tensor work (or are compiled) and that a finding blocks."""

    @classmethod
    def of(cls, result: AnalysisResult, selection: Selection | None = None) -> ReportTotals:
        from hybridize.output.triage import Triage

        triage = Triage.of_result(result, selection)
        return cls(
            len(result.functions),
            result.candidates,
            result.refactorable,
            len(result.errors),
            len(triage.proposed),
            len(triage.low_benefit),
            len(triage.blocked),
        )


def plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def summary_words(totals: ReportTotals, seconds: float) -> str:
    """`N functions, P proposed (L more with --include-low-benefit), B blocked, E errors in
    S s`: the counts of the report's sections, and this run's time."""
    low = f" ({totals.low_benefit} more with --include-low-benefit)" if totals.low_benefit else ""
    return (
        f"{plural(totals.functions, 'function')}, "
        f"{totals.proposed} proposed{low}, "
        f"{totals.blocked} blocked, "
        f"{plural(totals.errors, 'error')} in {seconds:.2f} s"
    )


def text_summary_line(totals: ReportTotals, seconds: float, *, color: bool = False) -> str:
    """The text report's last line (bold with `color`)."""
    words = summary_words(totals, seconds)
    return (f"{BOLD}{words}{RESET}" if color else words) + "\n"


def summary_json(totals: ReportTotals, seconds: float) -> dict[str, Any]:
    """The JSON report's `summary` object."""
    return {
        "functions": totals.functions,
        "candidates": totals.candidates,
        "refactorable": totals.refactorable,
        "seconds": round(seconds, 3),
        "proposed": totals.proposed,
        "low_benefit": totals.low_benefit,
        "blocked": totals.blocked,
    }


def json_summary_tail(totals: ReportTotals, seconds: float) -> str:
    """The end of the JSON report from its `summary` (the last key) on."""
    summary = json.dumps(summary_json(totals, seconds), ensure_ascii=False)
    return f',\n  "summary": {summary}\n}}\n'
