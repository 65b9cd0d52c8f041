"""The registry of report formats: each renderer writes its format's report, body then
summary, as the format's own module renders it whole."""

from __future__ import annotations

import json

import pytest

from hybridize.analyzer.checks import registry
from hybridize.model import AnalysisResult
from hybridize.output.json_report import render_json
from hybridize.output.renderers import RENDERERS, ReportStyle, renderer
from hybridize.output.sarif import render_sarif
from hybridize.output.summary import ReportTotals
from hybridize.output.text_report import render_text


def rendered(name: str, result: AnalysisResult, style: ReportStyle) -> str:
    report = renderer(name)
    body = "".join(report.body(result, "0.1.0", style))
    return body + report.summary_tail(ReportTotals.of(result), result.seconds, style)


@pytest.mark.parametrize("verbose", [False, True])
@pytest.mark.parametrize("color", [False, True])
def test_text_is_the_terminal_report(result: AnalysisResult, color: bool, verbose: bool) -> None:
    style = ReportStyle(color=color, verbose=verbose)
    assert rendered("text", result, style) == render_text(result, color=color, verbose=verbose)


def test_json_is_the_json_report_and_comes_one_record_at_a_time(result: AnalysisResult) -> None:
    assert rendered("json", result, ReportStyle()) == render_json(result, "0.1.0")
    pieces = list(renderer("json").body(result, "0.1.0", ReportStyle()))
    assert len(pieces) > len(result.functions)
    assert renderer("json").streams and not renderer("text").streams


def test_sarif_is_the_sarif_log_with_every_check_as_a_rule(result: AnalysisResult) -> None:
    rules = [(c.code, c.name, c.summary, None) for c in registry().values()]
    text = rendered("sarif", result, ReportStyle())
    assert text == render_sarif(result, "0.1.0", rules)
    driver = json.loads(text)["runs"][0]["tool"]["driver"]
    assert {r["id"] for r in driver["rules"]} >= set(registry())


def test_only_the_json_report_states_the_refactoring_and_only_text_the_terminal() -> None:
    assert list(RENDERERS) == ["text", "json", "sarif"]
    assert [n for n, r in RENDERERS.items() if r.states_refactoring] == ["json"]
    assert [n for n, r in RENDERERS.items() if r.for_terminal] == ["text"]
    assert renderer("json").encoding() == renderer("sarif").encoding() == "utf-8"
    with pytest.raises(KeyError):
        renderer("xml")
