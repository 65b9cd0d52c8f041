"""The JSON report (`--format json`): a public, versioned interface (docs/report-format.md).

Field names and their order are part of the interface: CI jobs, editors and the benchmark stage
read them. Add fields, never rename or reorder them. `REPORT_KEYS`, `function_keys()` and the other
key tuples below are the single place that fixes the order (a check's fact field takes the place
its `report_order` gives it); `report_schema.py` describes the same shape as a JSON Schema.
"""

from __future__ import annotations

import dataclasses
import json
import operator
from collections.abc import Callable, Iterator
from typing import Any

from hybridize.analyzer.checks import report_fact_fields
from hybridize.analyzer.summaries.sources import display_name
from hybridize.model import (
    DECORATOR_ARG_NAMES,
    AnalysisResult,
    FileError,
    Finding,
    FunctionFacts,
    FunctionVerdict,
    ParamReport,
    SpecTree,
    TensorSpec,
)
from hybridize.output.summary import ReportTotals, json_summary_tail, summary_json
from hybridize.refactor.selection import Selection

SCHEMA_VERSION = 1
"""Bumped only on an incompatible change of the report; adding a field does not bump it."""

TOOL_NAME = "hybridize"

REPORT_KEYS: tuple[str, ...] = (
    "schema_version",
    "tool",
    "root",
    "errors",
    "functions",
    "refactored_files",
    "summary",
)
TOOL_KEYS: tuple[str, ...] = ("name", "version")
ERROR_KEYS: tuple[str, ...] = ("file", "message")
LEADING_FUNCTION_KEYS: tuple[str, ...] = (
    "file",
    "qualname",
    "line",
    "framework",
    "is_hybrid",
    "has_tensor_parameter",
    "has_primitive_parameters",
    "has_python_side_effects",
    "is_recursive",
    "refactoring",
    "passes",
    "passing_precondition",
    "transformation",
    "failures",
    "has_errors",
    "speculative",
    "assumptions",
    "status_severity",
    "has_tensor_computation",
)
"""A function object's keys before the facts of the registry's checks."""
TRAILING_FUNCTION_KEYS: tuple[str, ...] = (
    "caller_covered",
    "decorator_args",
    "supplied_input_signature",
    "input_signature",
    "input_signature_absence_reason",
    "params",
    "findings",
    "benefit",
    "benefit_reasons",
    "proposed",
    "benefit_rule",
)
"""A function object's keys after the facts of the registry's checks."""


def function_keys() -> tuple[str, ...]:
    """A function object's keys in order, with the facts the registry's checks decide
    (`report_fact_fields`) in their place: a check with a `report_order` adds its field."""
    return (*LEADING_FUNCTION_KEYS, *report_fact_fields(), *TRAILING_FUNCTION_KEYS)


DECORATOR_ARG_KEYS: tuple[str, ...] = DECORATOR_ARG_NAMES
SPEC_KEYS: tuple[str, ...] = ("spec", "dtype", "shape")
PARAM_KEYS: tuple[str, ...] = ("name", "is_tensor", "tensor_types")
FINDING_KEYS: tuple[str, ...] = (
    "code",
    "name",
    "severity",
    "message",
    "line",
    "column",
    "end_line",
    "end_column",
)
SUMMARY_KEYS: tuple[str, ...] = (
    "functions",
    "candidates",
    "refactorable",
    "seconds",
    "proposed",
    "low_benefit",
    "blocked",
)

_CONVERTED_KEYS: frozenset[str] = frozenset(
    {
        "proposed",
        "failures",
        "has_errors",
        "assumptions",
        "benefit_reasons",
        "decorator_args",
        "supplied_input_signature",
        "input_signature",
        "params",
        "findings",
    }
)
"""Keys whose value `_function_to_json` converts from the model (lists, nested objects)."""

Reader = Callable[[FunctionVerdict], Any]


def _check_fact(name: str) -> Reader:
    return lambda verdict: verdict.facts.check_facts.get(name, False)


def _readers(keys: tuple[str, ...]) -> tuple[tuple[str, Reader | None], ...]:
    """How a function object's value of each key is read: converted (None), a field of
    `FunctionFacts` or of `FunctionVerdict` as the model holds it, or a check's fact. Made
    once per report, not per function."""
    facts = {f.name for f in dataclasses.fields(FunctionFacts)}
    decision = {f.name for f in dataclasses.fields(FunctionVerdict)}
    readers: list[tuple[str, Reader | None]] = []
    for key in keys:
        if key in _CONVERTED_KEYS:
            readers.append((key, None))
        elif key in facts:
            readers.append((key, operator.attrgetter(f"facts.{key}")))
        elif key in decision:
            readers.append((key, operator.attrgetter(key)))
        else:
            readers.append((key, _check_fact(key)))
    return tuple(readers)


def spec_tree_to_json(tree: SpecTree) -> Any:
    """A spec as `{"spec", "dtype", "shape"}`, a nested tuple of specs as a nested list."""
    if isinstance(tree, TensorSpec):
        return {
            "spec": tree.spec,
            "dtype": tree.dtype,
            "shape": None if tree.shape is None else list(tree.shape),
        }
    return [spec_tree_to_json(item) for item in tree]


def _signature_to_json(signature: tuple[SpecTree, ...] | None) -> list[Any] | None:
    return None if signature is None else [spec_tree_to_json(item) for item in signature]


def _decorator_args_to_json(pairs: tuple[tuple[str, bool], ...]) -> dict[str, bool]:
    """Always the eight tracked keys, in the report's order; absent ones are false.

    Names outside `DECORATOR_ARG_NAMES` are not part of the report's interface and are dropped
    (the schema closes this object); a new tracked argument is added to the model's tuple first.
    """
    given = dict(pairs)
    return {name: bool(given.get(name, False)) for name in DECORATOR_ARG_NAMES}


def _param_to_json(param: ParamReport) -> dict[str, Any]:
    return {
        "name": param.name,
        "is_tensor": param.is_tensor,
        "tensor_types": [spec_tree_to_json(t) for t in param.tensor_types],
    }


def _finding_to_json(finding: Finding) -> dict[str, Any]:
    span = finding.span
    return {
        "code": finding.code,
        "name": finding.name,
        "severity": finding.severity,
        "message": finding.message,
        "line": span.start_line,
        "column": span.start_col,
        "end_line": span.end_line,
        "end_column": span.end_col,
    }


def _function_to_json(
    verdict: FunctionVerdict, selection: Selection, readers: tuple[tuple[str, Reader | None], ...]
) -> dict[str, Any]:
    """One function object, its keys and values as `readers` (`_readers`) give them."""
    facts = verdict.facts
    converted: dict[str, Any] = {
        "proposed": selection.proposes(verdict),
        "failures": list(verdict.failures),
        "has_errors": verdict.has_errors,
        "assumptions": list(verdict.assumptions),
        "benefit_reasons": list(verdict.benefit_reasons),
        "decorator_args": _decorator_args_to_json(facts.decorator_args),
        "supplied_input_signature": _signature_to_json(facts.supplied_input_signature),
        "input_signature": _signature_to_json(facts.input_signature),
        "params": [_param_to_json(p) for p in facts.params],
        "findings": [_finding_to_json(f) for f in verdict.findings],
    }
    return {key: converted[key] if read is None else read(verdict) for key, read in readers}


def _error_to_json(error: FileError) -> dict[str, str]:
    return {"file": error.file, "message": error.message}


def to_json_dict(
    result: AnalysisResult, version: str, selection: Selection | None = None
) -> dict[str, Any]:
    """The report as plain JSON values (dicts in the documented key order, lists, scalars).

    `version` is the tool's version string; `selection` says which passing verdicts are
    `proposed` (what `hybridize refactor` makes; default: the empty selection). Functions and
    errors keep the order of `result`; `refactored_files` is sorted by path so that the output
    does not depend on dict history.
    """
    selection = selection or Selection()
    readers = _readers(function_keys())
    functions = [_function_to_json(f, selection, readers) for f in result.functions]
    return _report(result, version, functions, selection)


def _report(
    result: AnalysisResult,
    version: str,
    functions: list[dict[str, Any]],
    selection: Selection,
) -> dict[str, Any]:
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": TOOL_NAME, "version": version},
        "root": result.root,
        "errors": [_error_to_json(e) for e in result.errors],
        "functions": functions,
        "refactored_files": {
            path: result.refactored_files[path] for path in sorted(result.refactored_files)
        },
        "summary": summary_json(ReportTotals.of(result, selection), result.seconds),
    }


def render_json(result: AnalysisResult, version: str, selection: Selection | None = None) -> str:
    """The report as text: one top-level key per line, one function (error, refactored file)
    per line, non-ASCII kept as is, one trailing newline.

    Line-per-record keeps a report of thousands of functions readable with grep and diff, and
    lets the C encoder write each record: an indented dump goes through json's pure-Python
    encoder, four times slower on a large project."""
    return "".join(json_chunks(result, version, selection))


_encode = json.JSONEncoder(ensure_ascii=False).encode
"""A value as JSON text, non-ASCII kept as is (one encoder: `json.dumps` with an option makes
a new one per call)."""


def json_chunks(
    result: AnalysisResult, version: str, selection: Selection | None = None
) -> Iterator[str]:
    """The text of `render_json` piece by piece, one function record at a time.

    A report of tens of thousands of functions (keras/src: 14k functions, 67 MB of JSON) held
    whole as JSON values, then as lines, then joined, cost more memory than the analysis that
    produced it; written as it is encoded, it never exists whole."""
    yield from json_body_chunks(result, version, selection)
    yield json_summary_tail(ReportTotals.of(result, selection), result.seconds)


def json_body_chunks(
    result: AnalysisResult, version: str, selection: Selection | None = None
) -> Iterator[str]:
    """`json_chunks` up to the report's `summary`."""
    selection = selection or Selection()
    readers = _readers(function_keys())
    encode = _encode
    # A name the file system holds as undecodable bytes (a root folder, a message quoting a
    # path) would make the report invalid UTF-8: such bytes are shown as U+FFFD. Pieces end
    # between JSON values, never inside a string, so each can be shown on its own.
    yield "{\n"
    report = _report(result, version, [], selection)
    del report["summary"]  # the last key
    for i, (key, value) in enumerate(report.items()):
        separator = ",\n" if i else ""
        if key == "functions" and result.functions:
            yield f"{separator}  {encode(key)}: [\n"
            for j, verdict in enumerate(result.functions):
                joint = ",\n" if j else ""
                record = _function_to_json(verdict, selection, readers)
                yield display_name(f"{joint}    {encode(record)}")
            yield "\n  ]"
        elif isinstance(value, list) and value:
            items = ",\n".join(f"    {encode(item)}" for item in value)
            yield display_name(f"{separator}  {encode(key)}: [\n{items}\n  ]")
        elif key == "refactored_files" and isinstance(value, dict) and value:
            entries = ",\n".join(f"    {encode(k)}: {encode(v)}" for k, v in value.items())
            yield display_name(f"{separator}  {encode(key)}: {{\n{entries}\n  }}")
        else:
            yield display_name(f"{separator}  {encode(key)}: {encode(value)}")
