"""The SARIF 2.1.0 log: structure, rules, levels, 1-based columns, URIs, notifications."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest
from verdict_parts import changed

from hybridize.analyzer.checks import registry
from hybridize.model import AnalysisResult, Finding, Span
from hybridize.output.sarif import (
    INFORMATION_URI,
    SarifRule,
    artifact_uri,
    proposal_message,
    render_sarif,
    root_uri,
    to_sarif_dict,
)
from hybridize.refactor.selection import Selection

RULES: list[SarifRule] = [
    ("HY101", "has_python_side_effects", "Python side effect in a graph function", None),
    ("HY501", "is_recursive", "Recursive function", "https://example.org/rules/HY501"),
    ("HY201", "retracing", "Shapes vary between calls", None),
]


def _log(result: AnalysisResult, rules: list[SarifRule] | None = None) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        render_sarif(result, "0.1.0", RULES if rules is None else rules)
    )
    return data


def _run(result: AnalysisResult, rules: list[SarifRule] | None = None) -> dict[str, Any]:
    runs = _log(result, rules)["runs"]
    assert len(runs) == 1
    run: dict[str, Any] = runs[0]
    return run


def test_log_header_and_driver(result: AnalysisResult) -> None:
    log = _log(result)
    assert log["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json"
    assert log["version"] == "2.1.0"
    driver = log["runs"][0]["tool"]["driver"]
    assert driver["name"] == "hybridize"
    assert driver["version"] == "0.1.0"
    assert driver["informationUri"] == INFORMATION_URI
    assert urlsplit(driver["informationUri"]).scheme == "https"
    assert log["runs"][0]["columnKind"] == "unicodeCodePoints"


def test_rules_keep_order_and_help_uri_is_optional(result: AnalysisResult) -> None:
    rules = _run(result)["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == ["HY101", "HY501", "HY201"]
    assert rules[0] == {
        "id": "HY101",
        "name": "has_python_side_effects",
        "shortDescription": {"text": "Python side effect in a graph function"},
    }
    assert rules[1]["helpUri"] == "https://example.org/rules/HY501"
    assert "helpUri" not in rules[2]


def test_one_result_per_candidate_function(result: AnalysisResult) -> None:
    """A proposed change under its transformation's code, a blocked function under its main
    reason, nothing for the rest: never a finding and a proposal for the same function."""
    results = _run(result)["results"]
    assert [r["ruleId"] for r in results] == ["HY010", "HY012", "HY101"]
    by_code = {r["ruleId"]: r for r in results}
    assert "HY000" not in by_code and "HY201" not in by_code  # stated by the proposal
    assert by_code["HY101"]["message"]["text"] == (
        "train_step cannot be compiled: print() runs only while tracing; to unblock: "
        + registry()["HY101"].unblock
    )
    assert by_code["HY101"]["properties"] == {"unblock": registry()["HY101"].unblock}


def test_results_never_outnumber_candidate_functions(result: AnalysisResult) -> None:
    """A constructor storing many attributes, a function with nothing to gain and a
    low-benefit addition are no results; each candidate is one result however many findings."""
    call, step, helper, predict = result.functions
    stores = tuple(
        Finding("HY107", "has_python_side_effects", "error", f"stores self.w{n}", Span(n, 8, n, 9))
        for n in range(20)
    )
    init = changed(step, qualname="Model.__init__", findings=stores)
    low = replace(call, benefit="low")
    many = replace(step, findings=stores)
    run = _run(replace(result, functions=(init, low, helper, many, predict)))
    results = run["results"]
    assert [r["ruleId"] for r in results] == ["HY012", "HY107"]
    assert len(results[1]["relatedLocations"]) == 19
    everything = to_sarif_dict(
        replace(result, functions=(low,)), "1", RULES, selection=Selection(include_low_benefit=True)
    )
    assert [r["ruleId"] for r in everything["runs"][0]["results"]] == ["HY010"]


def test_error_only_where_a_decorator_exists(result: AnalysisResult) -> None:
    levels = {r["ruleId"]: r["level"] for r in _run(result)["results"]}
    # An eager function blocked by an error finding breaks nothing: a note.
    assert levels == {"HY010": "note", "HY012": "note", "HY101": "note"}
    compiled = changed(result.functions[1], is_hybrid=True)
    [broken] = _run(replace(result, functions=(compiled,)))["results"]
    assert broken["level"] == "error"
    assert broken["message"]["text"].startswith("train_step is compiled but print()")
    warned = replace(compiled, findings=compiled.findings[:1])  # HY501, a warning
    [warning] = _run(replace(result, functions=(warned,)))["results"]
    assert warning["level"] == "warning"


def test_rule_index_points_at_the_rule(result: AnalysisResult) -> None:
    run = _run(result)
    rules = run["tool"]["driver"]["rules"]
    for item in run["results"]:
        if item["ruleId"] in ("HY010", "HY012"):  # no descriptor supplied: no index
            assert "ruleIndex" not in item
        else:
            assert rules[item["ruleIndex"]]["id"] == item["ruleId"]


def test_regions_use_one_based_columns(result: AnalysisResult) -> None:
    results = _run(result)["results"]
    print_finding = next(r for r in results if r["ruleId"] == "HY101")
    assert print_finding["locations"] == [
        {
            "physicalLocation": {
                "artifactLocation": {"uri": "pkg/train.py", "uriBaseId": "%SRCROOT%"},
                # model Span(32, 4, 32, 20): columns shift by one, lines do not
                "region": {"startLine": 32, "startColumn": 5, "endLine": 32, "endColumn": 21},
            }
        }
    ]


def test_other_findings_become_related_locations(result: AnalysisResult) -> None:
    blocked = next(r for r in _run(result)["results"] if r["ruleId"] == "HY101")
    assert blocked["relatedLocations"] == [
        {
            "id": 1,
            "physicalLocation": {
                "artifactLocation": {"uri": "pkg/train.py", "uriBaseId": "%SRCROOT%"},
                "region": {"startLine": 38, "startColumn": 12, "endLine": 38, "endColumn": 27},
            },
            "message": {"text": "HY501: train_step calls itself"},
        },
        {
            "id": 2,
            "physicalLocation": {
                "artifactLocation": {"uri": "pkg/train.py", "uriBaseId": "%SRCROOT%"},
                "region": {"startLine": 30, "startColumn": 5, "endLine": 30, "endColumn": 15},
            },
            "message": {"text": "HY501: train_step calls itself"},
        },
    ]


def test_proposal_results(result: AnalysisResult) -> None:
    proposals = [r for r in _run(result)["results"] if r["ruleId"] in ("HY010", "HY012")]
    call = result.functions[0]
    plain = changed(call, speculative=False, assumptions=())
    assert proposal_message(plain) == "Model.call can be converted to a graph function"
    assert proposals[0]["message"]["text"] == (
        "Model.call can be converted to a graph function; assumes: "
        "`x` is assumed to be a tensor: `call` of a Keras Model receives tensors"
    )
    assert proposals[0]["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 12,
        "startColumn": 5,
        "endLine": 15,
        "endColumn": 21,
    }
    assert proposals[1]["message"]["text"] == (
        "Model.predict can have its graph-function decorator reconfigured"
    )
    eager = replace(plain, transformation="convert_to_eager", benefit="none")
    eager = replace(eager, benefit_reasons=("tiny",))
    assert proposal_message(eager) == (
        "Model.call can be converted back to an eager function; benefit none: tiny"
    )


def test_file_errors_become_notifications(result: AnalysisResult) -> None:
    invocations = _run(result)["invocations"]
    assert len(invocations) == 1
    assert invocations[0]["executionSuccessful"] is True
    notes = invocations[0]["toolExecutionNotifications"]
    assert notes == [
        {
            "level": "error",
            "message": {"text": "SyntaxError: invalid syntax (line 3)"},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": "bad.py", "uriBaseId": "%SRCROOT%"}
                    }
                }
            ],
        },
        {
            "level": "error",
            "message": {"text": "UnicodeDecodeError: invalid start byte"},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {
                            "uri": "dir%20with%20space/%C3%A9%231.py",
                            "uriBaseId": "%SRCROOT%",
                        }
                    }
                }
            ],
        },
    ]


def test_src_root_is_a_file_uri_with_trailing_slash(result: AnalysisResult) -> None:
    base = _run(result)["originalUriBaseIds"]["%SRCROOT%"]["uri"]
    assert base == "file:///home/user/my%20project/%C3%BCn%C3%AF/"
    assert unquote(urlsplit(base).path) == "/home/user/my project/ünï/"


@pytest.mark.parametrize(
    ("root", "expected"),
    [
        ("/", "file:///"),
        ("/srv/app/", "file:///srv/app/"),
        ("/a b/c#d?e", "file:///a%20b/c%23d%3Fe/"),
        ("C:\\Users\\Zoë\\proj", "file:///C:/Users/Zo%C3%AB/proj/"),
        ("relative dir", "relative%20dir/"),
    ],
)
def test_root_uri(root: str, expected: str) -> None:
    assert root_uri(root) == expected


@pytest.mark.parametrize(
    "path",
    ["pkg/model.py", "dir with space/x.py", "données/modèle.py", "a#b/c?d%e.py", "日本/語.py"],
)
def test_artifact_uris_are_ascii_and_round_trip(path: str) -> None:
    uri = artifact_uri(path)
    assert uri.isascii()
    assert " " not in uri and "#" not in uri and "?" not in uri
    assert unquote(uri) == path


def test_unicode_result_is_kept_readable_in_messages(unicode_result: AnalysisResult) -> None:
    text = render_sarif(unicode_result, "0.1.0", RULES)
    assert "écrit dans « journal » → une fois" in text  # ensure_ascii=False
    assert text.endswith("}\n")
    location = json.loads(text)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "donn%C3%A9es/mod%C3%A8le.py"


def test_empty_result(empty_result: AnalysisResult) -> None:
    run = _run(empty_result, [])
    assert run["results"] == []
    assert run["invocations"] == [{"executionSuccessful": True, "toolExecutionNotifications": []}]
    assert run["tool"]["driver"]["rules"] == []
    assert run["originalUriBaseIds"] == {"%SRCROOT%": {"uri": "file:///empty/"}}


def test_render_is_deterministic(result: AnalysisResult) -> None:
    assert render_sarif(result, "0.1.0", RULES) == render_sarif(result, "0.1.0", RULES)
