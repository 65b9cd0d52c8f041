"""`hybridize analyze corpus --format json` produces a report that validates."""

from __future__ import annotations

import json

from click.testing import CliRunner

from corpus_programs import TENSORFLOW_CORPUS, programs
from hybridize.cli import main
from hybridize.output.report_schema import validate_report


def test_corpus_json_report_validates() -> None:
    result = CliRunner().invoke(
        main, ["analyze", str(TENSORFLOW_CORPUS), "--format", "json", "--no-cache"]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert validate_report(report) == []
    assert report["errors"] == []
    files = {f["file"].split("/")[0] for f in report["functions"]}
    assert files == {p.name for p in programs()}
    assert report["summary"]["functions"] == len(report["functions"])
    assert 0 < report["summary"]["refactorable"] < report["summary"]["functions"]


def test_corpus_sarif_report_is_sarif() -> None:
    result = CliRunner().invoke(
        main, ["analyze", str(TENSORFLOW_CORPUS), "--format", "sarif", "--no-cache"]
    )
    assert result.exit_code == 0
    log = json.loads(result.output)
    assert log["version"] == "2.1.0"
    rules = {r["id"] for r in log["runs"][0]["tool"]["driver"]["rules"]}
    codes = {r["ruleId"] for r in log["runs"][0]["results"]}
    assert codes <= rules
    assert "HY101" in codes and "HY010" in codes and "HY000" not in codes
    # One result per function worth acting on: never two for the same function.
    places = [
        (r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], r["message"]["text"])
        for r in log["runs"][0]["results"]
    ]
    assert len(places) == len(set(places))
    assert len(places) < 100  # 330 functions, 23 proposed, about 60 blocked
