"""`benchmarks/determinism_check.py`: what it leaves out of a report before comparing runs."""

from __future__ import annotations

import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from compare_reports import compare  # noqa: E402
from determinism_check import without_measurements  # noqa: E402


def _report(seconds: float, codes: list[str]) -> dict[str, object]:
    function = {
        "file": "m.py",
        "qualname": "f",
        "line": 1,
        "passes": False,
        "failures": ["x"],
        "findings": [{"code": c} for c in codes],
    }
    summary = {"functions": 1, "seconds": seconds}
    return {"seconds": seconds, "functions": [function], "summary": summary, "errors": []}


def test_two_runs_that_differ_only_in_how_long_they_took_are_equal() -> None:
    first, second = (
        without_measurements(_report(1.5, ["HY202"])),
        without_measurements(_report(9.25, ["HY202"])),
    )
    assert first == second
    assert first["summary"] == {"functions": 1}


def test_a_finding_that_comes_and_goes_is_a_difference() -> None:
    first, second = (
        without_measurements(_report(1.5, ["HY202"])),
        without_measurements(_report(1.5, [])),
    )
    assert first != second
    [difference] = compare(first, second, strict=True)
    assert difference.startswith("verdict differs: ('m.py', 'f', 1)")
