"""The SARIF 2.1.0 report (`--format sarif`), for GitHub code scanning and SARIF viewers.

One run, and at most one result per function, only for the functions someone could act on
(`triage`): a proposed change (exactly what `hybridize refactor` makes) under its
transformation's code (HY010 add, HY011 remove, HY012 reconfigure), with `benefit` and
`benefitReasons` as properties; a function that does tensor work, or is compiled, and that a
finding blocks, under its main reason's code, with the one thing that would unblock it
(`unblock` property, and in the message). Its other findings are the result's related
locations, not results of their own: a model's `__init__` storing eighteen attributes, or a
proposal and the finding that states it, are not many alerts. Level `error` only where a
decorator exists and would break, `warning` for a compiled function's other problems, `note`
otherwise. Safe changes predicted not to pay and functions with nothing to compile are not
reported. Files that could not be analysed become tool execution notifications, not results:
they say nothing about the code, only about the run. Paths are relative to `%SRCROOT%`, which
`originalUriBaseIds` maps to the analysed root. Columns are converted here from the model's
0-based code points to SARIF's 1-based ones, and the run declares `columnKind:
unicodeCodePoints` so that viewers do not count UTF-16 units instead."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import PurePosixPath, PureWindowsPath
from typing import Any
from urllib.parse import quote

from hybridize.analyzer.summaries.sources import display_name
from hybridize.model import AnalysisResult, Finding, FunctionVerdict, Span
from hybridize.output.triage import Triage, blocking_findings, main_reason
from hybridize.refactor.selection import TRANSFORMATION_CODES, Selection

SARIF_SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_VERSION = "2.1.0"
SRCROOT = "%SRCROOT%"
INFORMATION_URI = "https://pypi.org/project/hybridize/"
"""`tool.driver.informationUri`: where users learn about the tool."""

SarifRule = tuple[str, str, str, str | None]
"""A rule descriptor: (code, name, one-line summary, help URI or None)."""


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


def proposal_message(verdict: FunctionVerdict) -> str:
    """`Model.call can be converted to a graph function; benefit high: ...`, worded per
    transformation."""
    template = _TRANSFORMATION_WORDS.get(verdict.transformation or "", "{name} can be refactored")
    text = template.format(name=verdict.qualname)
    if verdict.benefit is not None and verdict.benefit_reasons:
        text += f"; benefit {verdict.benefit}: {verdict.benefit_reasons[0]}"
    if verdict.facts.speculative and verdict.assumptions:
        text += "; assumes: " + "; ".join(verdict.assumptions)
    return text


def blocked_message(verdict: FunctionVerdict, reason: Finding, unblock: str) -> str:
    """`train_step cannot be compiled: prints with `print`...; to unblock: ...`."""
    state = "is compiled but" if verdict.facts.is_hybrid else "cannot be compiled:"
    text = f"{verdict.qualname} {state} {reason.message}"
    return f"{text}; to unblock: {unblock}" if unblock else text


def _level(verdict: FunctionVerdict, findings: list[Finding]) -> str:
    """`error` only where a decorator exists and would break (an error finding of a compiled
    function); `warning` for a compiled function's other problems; `note` for what is only an
    opportunity (an eager function's addition, or what blocks one)."""
    if not verdict.facts.is_hybrid:
        return "note"
    if any(f.severity == "error" for f in findings):
        return "error"
    if any(f.severity == "warning" for f in findings):
        return "warning"
    return "note"


def _related(verdict: FunctionVerdict, findings: list[Finding]) -> list[dict[str, Any]]:
    """The other findings (and their related spans) of a function's one result."""
    related: list[dict[str, Any]] = []
    for finding in findings:
        for span in (finding.span, *finding.related):
            related.append(
                {
                    "id": len(related) + 1,
                    **_location(verdict.file, span),
                    "message": {"text": f"{finding.code}: {finding.message}"},
                }
            )
    return related


def _function_result(
    verdict: FunctionVerdict, rule_index: dict[str, int], proposed: bool
) -> dict[str, Any] | None:
    """At most one result per function: its proposed change, or what blocks it."""
    from hybridize.analyzer.checks import registry

    properties: dict[str, Any] = {}
    if verdict.benefit is not None:
        # SARIF's property bag: where tools put facts of their own.
        properties = {"benefit": verdict.benefit, "benefitReasons": list(verdict.benefit_reasons)}
    if proposed:
        assert verdict.transformation is not None
        code = TRANSFORMATION_CODES[verdict.transformation]
        others = [f for f in verdict.findings if f.code != code]
        result = _result(
            code, rule_index, _level(verdict, list(verdict.findings)), proposal_message(verdict)
        )
        result["locations"] = [_location(verdict.file, verdict.span)]
    else:
        reason = main_reason(verdict)
        if reason is None:
            return None
        check = registry().get(reason.code)
        unblock = check.unblock if check is not None else ""
        blocking = blocking_findings(verdict)
        others = [f for f in blocking if f is not reason]
        result = _result(
            reason.code,
            rule_index,
            _level(verdict, blocking),
            blocked_message(verdict, reason, unblock),
        )
        result["locations"] = [_location(verdict.file, reason.span)]
        if unblock:
            properties["unblock"] = unblock
        others = [*(_as_related(reason)), *others]
    related = _related(verdict, others)
    if related:
        result["relatedLocations"] = related
    if properties:
        result["properties"] = properties
    return result


def _as_related(finding: Finding) -> list[Finding]:
    """A finding's own related spans (the other lines of the same hazard), kept as findings
    of the same code and message."""
    return [replace(finding, span=span, related=()) for span in finding.related]


def to_sarif_dict(
    result: AnalysisResult,
    version: str,
    rules: list[SarifRule],
    *,
    information_uri: str = INFORMATION_URI,
    selection: Selection | None = None,
) -> dict[str, Any]:
    """The SARIF log as plain JSON values; see `render_sarif`."""
    all_rules: list[SarifRule] = []
    rule_index: dict[str, int] = {}
    for rule in rules:
        if rule[0] not in rule_index:  # first descriptor of a code wins
            rule_index[rule[0]] = len(all_rules)
            all_rules.append(rule)

    triage = Triage.of_result(result, selection)
    listed = [(v, True) for v in triage.proposed] + [(v, False) for v in triage.blocked]
    listed.sort(key=lambda item: (item[0].file, item[0].line, item[0].qualname))
    results = [
        r
        for verdict, proposed in listed
        if (r := _function_result(verdict, rule_index, proposed)) is not None
    ]
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
    selection: Selection | None = None,
) -> str:
    """The SARIF 2.1.0 log as text (two-space indent, non-ASCII kept, trailing newline).

    `rules` describes the checks, `(code, name, summary, help_uri_or_None)`, in the order the
    driver should list them. Results whose code has a descriptor carry its `ruleIndex`.
    `selection` decides which changes are proposed (those `hybridize refactor` makes).
    """
    log = to_sarif_dict(
        result, version, rules, information_uri=information_uri, selection=selection
    )
    # Undecodable bytes of a name (PEP 383 surrogates) are shown as U+FFFD: valid UTF-8 always.
    return display_name(json.dumps(log, indent=2, ensure_ascii=False) + "\n")
