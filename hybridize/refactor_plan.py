"""The bridge from verdicts to `refactored_files` of the JSON report.

The refactoring engine (issue 5) fills this in; until then no file changes, which the report
states truthfully with an empty object.
"""

from __future__ import annotations

from hybridize.model import AnalysisResult


def refactored_files(result: AnalysisResult) -> AnalysisResult:
    """The result with `refactored_files` set from the planned transformations."""
    return result
