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

BOLD = "\x1b[1m"
RESET = "\x1b[0m"


class ReportTotals(NamedTuple):
    functions: int
    candidates: int
    refactorable: int
    errors: int

    @classmethod
    def of(cls, result: AnalysisResult) -> ReportTotals:
        return cls(
            len(result.functions), result.candidates, result.refactorable, len(result.errors)
        )


def plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def summary_words(totals: ReportTotals, seconds: float) -> str:
    """`N functions, M candidates, K refactorable, E errors in S s`."""
    return (
        f"{plural(totals.functions, 'function')}, "
        f"{plural(totals.candidates, 'candidate')}, "
        f"{totals.refactorable} refactorable, "
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
    }


def json_summary_tail(totals: ReportTotals, seconds: float) -> str:
    """The end of the JSON report from its `summary` (the last key) on."""
    summary = json.dumps(summary_json(totals, seconds), ensure_ascii=False)
    return f',\n  "summary": {summary}\n}}\n'
