"""The SARIF 2.1.0 log: structure, rules, levels, 1-based columns, URIs, notifications."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

from hybridize.model import AnalysisResult
from hybridize.output.sarif import (
    INFORMATION_URI,
    SarifRule,
    artifact_uri,
    refactorable_message,
    render_sarif,
    root_uri,
)

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


def test_rules_keep_order_help_uri_optional_and_hy000_appended(result: AnalysisResult) -> None:
    rules = _run(result)["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == ["HY101", "HY501", "HY201", "HY000"]
    assert rules[0] == {
        "id": "HY101",
        "name": "has_python_side_effects",
        "shortDescription": {"text": "Python side effect in a graph function"},
    }
    assert rules[1]["helpUri"] == "https://example.org/rules/HY501"
    assert "helpUri" not in rules[2]
    assert rules[3]["name"] == "refactorable"


def test_supplied_hy000_is_not_duplicated(result: AnalysisResult) -> None:
    own = ("HY000", "refactorable", "Can run as a graph", "https://example.org/HY000")
    rules = _run(result, [own, *RULES])["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == ["HY000", "HY101", "HY501", "HY201"]
    assert rules[0]["helpUri"] == "https://example.org/HY000"


def test_one_result_per_finding_and_per_refactorable_function(result: AnalysisResult) -> None:
    results = _run(result)["results"]
    findings = sum(len(f.findings) for f in result.functions)
    assert len(results) == findings + result.refactorable == 4 + 2
    assert [r["ruleId"] for r in results] == ["HY000", "HY501", "HY101", "HY000", "HY201", "HY202"]


def test_levels_follow_severity(result: AnalysisResult) -> None:
    levels = {r["ruleId"]: r["level"] for r in _run(result)["results"]}
    assert levels == {
        "HY000": "note",
        "HY101": "error",  # error -> error
        "HY501": "warning",  # warning -> warning
        "HY201": "note",  # info -> note
        "HY202": "none",  # ok -> none
    }


def test_rule_index_points_at_the_rule(result: AnalysisResult) -> None:
    run = _run(result)
    rules = run["tool"]["driver"]["rules"]
    for item in run["results"]:
        if item["ruleId"] == "HY202":  # no descriptor supplied: no index
            assert "ruleIndex" not in item
        else:
            assert rules[item["ruleIndex"]]["id"] == item["ruleId"]


def test_regions_use_one_based_columns(result: AnalysisResult) -> None:
    results = _run(result)["results"]
    print_finding = next(r for r in results if r["ruleId"] == "HY101")
    assert print_finding["message"] == {"text": "print() runs only while tracing"}
    assert print_finding["locations"] == [
        {
            "physicalLocation": {
                "artifactLocation": {"uri": "pkg/train.py", "uriBaseId": "%SRCROOT%"},
                # model Span(32, 4, 32, 20): columns shift by one, lines do not
                "region": {"startLine": 32, "startColumn": 5, "endLine": 32, "endColumn": 21},
            }
        }
    ]


def test_related_spans_become_related_locations(result: AnalysisResult) -> None:
    recursion = next(r for r in _run(result)["results"] if r["ruleId"] == "HY501")
    assert recursion["relatedLocations"] == [
        {
            "id": 1,
            "physicalLocation": {
                "artifactLocation": {"uri": "pkg/train.py", "uriBaseId": "%SRCROOT%"},
                "region": {"startLine": 30, "startColumn": 5, "endLine": 30, "endColumn": 15},
            },
        }
    ]
    print_finding = next(r for r in _run(result)["results"] if r["ruleId"] == "HY101")
    assert "relatedLocations" not in print_finding


def test_refactorable_results(result: AnalysisResult) -> None:
    notes = [r for r in _run(result)["results"] if r["ruleId"] == "HY000"]
    call = result.functions[0]
    plain = replace(call, speculative=False, assumptions=())
    assert refactorable_message(plain) == "Model.call can be converted to a graph function (P1)"
    assert notes[0]["message"]["text"] == (
        "Model.call can be converted to a graph function (P1); assumes: "
        "`x` is assumed to be a tensor: `call` of a Keras Model receives tensors"
    )
    assert notes[0]["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 12,
        "startColumn": 5,
        "endLine": 15,
        "endColumn": 21,
    }
    assert notes[1]["message"]["text"] == (
        "Model.predict can have its graph-function decorator reconfigured (P4)"
    )
    eager = replace(plain, passing_precondition="P2", transformation="convert_to_eager")
    assert (
        refactorable_message(eager) == "Model.call can be converted back to an eager function (P2)"
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
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == ["HY000"]
    assert run["originalUriBaseIds"] == {"%SRCROOT%": {"uri": "file:///empty/"}}


def test_render_is_deterministic(result: AnalysisResult) -> None:
    assert render_sarif(result, "0.1.0", RULES) == render_sarif(result, "0.1.0", RULES)
