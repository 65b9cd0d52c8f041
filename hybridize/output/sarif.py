"""The SARIF 2.1.0 report (`--format sarif`), for GitHub code scanning and SARIF viewers.

One run. Every finding becomes a result under its check's code; every refactorable function
becomes one more result under `HY000` (level `note`). Files that could not be analysed become
tool execution notifications, not results: they say nothing about the code, only about the run.
Paths are relative to `%SRCROOT%`, which `originalUriBaseIds` maps to the analysed root. Columns
are converted here from the model's 0-based code points to SARIF's 1-based ones, and the run
declares `columnKind: unicodeCodePoints` so that viewers do not count UTF-16 units instead.
"""

from __future__ import annotations

import json
import re
from pathlib import PurePosixPath, PureWindowsPath
from typing import Any
from urllib.parse import quote

from hybridize.analyzer.summaries.sources import display_name
from hybridize.model import AnalysisResult, FunctionVerdict, Severity, Span

SARIF_SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_VERSION = "2.1.0"
SRCROOT = "%SRCROOT%"
INFORMATION_URI = "https://pypi.org/project/hybridize/"
"""`tool.driver.informationUri`: where users learn about the tool."""

SarifRule = tuple[str, str, str, str | None]
"""A rule descriptor: (code, name, one-line summary, help URI or None)."""

REFACTORABLE_RULE: SarifRule = (
    "HY000",
    "refactorable",
    "The function can be refactored: a transformation was chosen for it.",
    None,
)
"""The rule of the per-function `refactorable` results; added to the rules when not supplied."""

LEVELS: dict[Severity, str] = {"error": "error", "warning": "warning", "info": "note", "ok": "none"}

_TRANSFORMATION_WORDS: dict[str, str] = {
    "convert_to_hybrid": "{name} can be converted to a graph function",
    "convert_to_eager": "{name} can be converted back to an eager function",
    "reconfigure": "{name} can have its graph-function decorator reconfigured",
}

_WINDOWS_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")


def artifact_uri(path: str) -> str:
    """A relative report path as a URI reference: '/'-separated, percent-encoded (UTF-8)."""
    return quote(path.replace("\\", "/"), safe="/")


def root_uri(root: str) -> str:
    """The analysed root as a `file:` URI ending in '/', as `originalUriBaseIds` requires.

    A relative root (not produced by the CLI) stays a percent-encoded relative reference rather
    than being resolved against the current directory: renderers depend only on their input.
    """
    if _WINDOWS_DRIVE.match(root):
        uri = PureWindowsPath(root).as_uri()
    elif root.startswith("/"):
        uri = PurePosixPath(root).as_uri()
    else:
        uri = artifact_uri(root)
    return uri if uri.endswith("/") else uri + "/"


def _region(span: Span) -> dict[str, int]:
    return {
        "startLine": span.start_line,
        "startColumn": span.start_col + 1,
        "endLine": span.end_line,
        "endColumn": span.end_col + 1,
    }


def _artifact(path: str) -> dict[str, str]:
    return {"uri": artifact_uri(path), "uriBaseId": SRCROOT}


def _location(path: str, span: Span) -> dict[str, Any]:
    return {"physicalLocation": {"artifactLocation": _artifact(path), "region": _region(span)}}


def _rule_descriptor(rule: SarifRule) -> dict[str, Any]:
    code, name, summary, help_uri = rule
    descriptor: dict[str, Any] = {"id": code, "name": name, "shortDescription": {"text": summary}}
    if help_uri is not None:
        descriptor["helpUri"] = help_uri
    return descriptor


def _result(rule_id: str, rule_index: dict[str, int], level: str, message: str) -> dict[str, Any]:
    result: dict[str, Any] = {"ruleId": rule_id}
    if rule_id in rule_index:
        result["ruleIndex"] = rule_index[rule_id]
    result["level"] = level
    result["message"] = {"text": message}
    return result


def refactorable_message(verdict: FunctionVerdict) -> str:
    """`Model.call can be converted to a graph function (P1)`, worded per transformation."""
    template = _TRANSFORMATION_WORDS.get(verdict.transformation or "", "{name} can be refactored")
    text = template.format(name=verdict.qualname)
    if verdict.passing_precondition:
        text += f" ({verdict.passing_precondition})"
    if verdict.speculative and verdict.assumptions:
        text += "; assumes: " + "; ".join(verdict.assumptions)
    return text


def _function_results(verdict: FunctionVerdict, rule_index: dict[str, int]) -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = []
    if verdict.passes:
        result = _result("HY000", rule_index, "note", refactorable_message(verdict))
        result["locations"] = [_location(verdict.file, verdict.span)]
        if verdict.benefit is not None:
            # SARIF's property bag: where tools put facts of their own.
            result["properties"] = {
                "benefit": verdict.benefit,
                "benefitReasons": list(verdict.benefit_reasons),
            }
        results.append(result)
    for finding in verdict.findings:
        result = _result(
            finding.code, rule_index, LEVELS.get(finding.severity, "warning"), finding.message
        )
        result["locations"] = [_location(verdict.file, finding.span)]
        if finding.related:
            result["relatedLocations"] = [
                {"id": number, **_location(verdict.file, span)}
                for number, span in enumerate(finding.related, start=1)
            ]
        results.append(result)
    return results


def to_sarif_dict(
    result: AnalysisResult,
    version: str,
    rules: list[SarifRule],
    *,
    information_uri: str = INFORMATION_URI,
) -> dict[str, Any]:
    """The SARIF log as plain JSON values; see `render_sarif`."""
    all_rules: list[SarifRule] = []
    rule_index: dict[str, int] = {}
    for rule in [*rules, REFACTORABLE_RULE]:
        if rule[0] not in rule_index:  # first descriptor of a code wins; HY000 only if absent
            rule_index[rule[0]] = len(all_rules)
            all_rules.append(rule)

    results = [r for verdict in result.functions for r in _function_results(verdict, rule_index)]
    notifications = [
        {
            "level": "error",
            "message": {"text": error.message},
            "locations": [{"physicalLocation": {"artifactLocation": _artifact(error.file)}}],
        }
        for error in result.errors
    ]
    run = {
        "tool": {
            "driver": {
                "name": "hybridize",
                "version": version,
                "informationUri": information_uri,
                "rules": [_rule_descriptor(rule) for rule in all_rules],
            }
        },
        "invocations": [{"executionSuccessful": True, "toolExecutionNotifications": notifications}],
        "originalUriBaseIds": {SRCROOT: {"uri": root_uri(result.root)}},
        "columnKind": "unicodeCodePoints",
        "results": results,
    }
    return {"$schema": SARIF_SCHEMA_URI, "version": SARIF_VERSION, "runs": [run]}


def render_sarif(
    result: AnalysisResult,
    version: str,
    rules: list[SarifRule],
    *,
    information_uri: str = INFORMATION_URI,
) -> str:
    """The SARIF 2.1.0 log as text (two-space indent, non-ASCII kept, trailing newline).

    `rules` describes the checks, `(code, name, summary, help_uri_or_None)`, in the order the
    driver should list them; `HY000` (refactorable) is appended unless supplied. Results whose
    code has a descriptor carry its `ruleIndex`.
    """
    log = to_sarif_dict(result, version, rules, information_uri=information_uri)
    # Undecodable bytes of a name (PEP 383 surrogates) are shown as U+FFFD: valid UTF-8 always.
    return display_name(json.dumps(log, indent=2, ensure_ascii=False) + "\n")
