"""The report's JSON Schema and the self-written validator."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from verdict_parts import made_verdict

from hybridize.model import (
    DECORATOR_ARG_NAMES,
    AnalysisResult,
    FileError,
    Finding,
    ParamReport,
    Span,
    SpecTree,
    TensorSpec,
)
from hybridize.output.json_report import REPORT_KEYS, function_keys, render_json, to_json_dict
from hybridize.output.report_schema import (
    ANNOTATION_KEYWORDS,
    VALIDATION_KEYWORDS,
    report_json_schema,
    validate,
    validate_report,
)


def _report(result: AnalysisResult) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(render_json(result, "0.1.0"))
    return data


def test_accepts_rendered_reports(
    result: AnalysisResult, empty_result: AnalysisResult, unicode_result: AnalysisResult
) -> None:
    assert validate_report(_report(result)) == []
    assert validate_report(_report(empty_result)) == []
    assert validate_report(_report(unicode_result)) == []
    assert validate_report(to_json_dict(result, "0.1.0")) == []


def test_schema_is_draft_2020_12_and_closed() -> None:
    assert report_json_schema()["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert report_json_schema()["required"] == list(REPORT_KEYS)
    assert report_json_schema()["additionalProperties"] is False
    function = report_json_schema()["$defs"]["function"]
    assert function["required"] == list(function_keys())
    assert list(function["properties"]) == list(function_keys())
    assert function["additionalProperties"] is False
    assert report_json_schema()["$defs"]["decorator_args"]["required"] == list(DECORATOR_ARG_NAMES)
    assert function["properties"]["has_tensor_parameter"] == {"type": ["boolean", "null"]}
    assert function["properties"]["transformation"]["enum"] == [
        "convert_to_hybrid",
        "convert_to_eager",
        "reconfigure",
        None,
    ]


def test_schema_uses_only_keywords_the_validator_implements() -> None:
    def walk(node: Any, in_properties: bool = False) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if not in_properties:
                    assert key in VALIDATION_KEYWORDS | ANNOTATION_KEYWORDS, key
                if key in {"properties", "$defs"}:
                    walk(value, in_properties=True)
                elif key not in {"enum", "required", "type"}:
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(report_json_schema())


def test_schema_is_json_serialisable() -> None:
    assert json.loads(json.dumps(report_json_schema())) == report_json_schema()


Mutation = Callable[[dict[str, Any]], None]


def _delete(path: list[str | int]) -> Mutation:
    def mutate(report: dict[str, Any]) -> None:
        node: Any = report
        for part in path[:-1]:
            node = node[part]
        del node[path[-1]]

    return mutate


def _set(path: list[str | int], value: Any) -> Mutation:
    def mutate(report: dict[str, Any]) -> None:
        node: Any = report
        for part in path[:-1]:
            node = node[part]
        node[path[-1]] = value

    return mutate


MUTATIONS: list[tuple[str, Mutation, str]] = [
    ("missing top key", _delete(["summary"]), "$: missing required key 'summary'"),
    (
        "missing function key",
        _delete(["functions", 1, "has_errors"]),
        "$.functions[1]: missing required key 'has_errors'",
    ),
    (
        "missing decorator arg",
        _delete(["functions", 0, "decorator_args", "func"]),
        "$.functions[0].decorator_args: missing required key 'func'",
    ),
    (
        "wrong type: line as string",
        _set(["functions", 0, "line"], "12"),
        '$.functions[0].line: expected integer, got string "12"',
    ),
    (
        "wrong type: bool is not an integer",
        _set(["functions", 1, "findings", 0, "column"], True),
        "$.functions[1].findings[0].column: expected integer, got boolean true",
    ),
    (
        "wrong type: passes is not tristate",
        _set(["functions", 0, "passes"], None),
        "$.functions[0].passes: expected boolean, got null",
    ),
    (
        "wrong type: tuple is not an array",
        _set(["functions", 0, "failures"], ("x",)),
        "$.functions[0].failures: expected array, got tuple ('x',)",
    ),
    (
        "bad enum: transformation",
        _set(["functions", 0, "transformation"], "convert_to_graph"),
        '$.functions[0].transformation: "convert_to_graph" is not one of "convert_to_hybrid", '
        '"convert_to_eager", "reconfigure", null',
    ),
    (
        "bad enum: precondition",
        _set(["functions", 0, "passing_precondition"], "P7"),
        '$.functions[0].passing_precondition: "P7" is not one of "P1", "P2", "P3", "P4", "P5", '
        '"P6", null',
    ),
    (
        "bad enum: refactoring",
        _set(["functions", 3, "refactoring"], "optimise_hybrid"),
        '$.functions[3].refactoring: "optimise_hybrid" is not one of "convert_eager_to_hybrid", '
        '"optimize_hybrid"',
    ),
    (
        "bad enum: status_severity",
        _set(["functions", 2, "status_severity"], "fatal"),
        ('$.functions[2].status_severity: "fatal" is not one of "ok", "info", "warning", "error"'),
    ),
    (
        "bad enum: schema_version",
        _set(["schema_version"], True),
        "$.schema_version: true is not one of 1",
    ),
    ("extra top key", _set(["extra"], 1), "$: unexpected key 'extra'"),
    (
        "extra function key",
        _set(["functions", 0, "span"], [1, 2, 3, 4]),
        "$.functions[0]: unexpected key 'span'",
    ),
    (
        "extra spec key",
        _set(["functions", 0, "input_signature", 0, "name"], "x"),
        "$.functions[0].input_signature[0]: unexpected key 'name'",
    ),
    (
        "nested spec missing dtype",
        _delete(["functions", 1, "params", 0, "tensor_types", 0, 1, 0, "dtype"]),
        "$.functions[1].params[0].tensor_types[0][1][0]: missing required key 'dtype'",
    ),
    (
        "spec tree of the wrong type",
        _set(["functions", 1, "params", 0, "tensor_types", 0, 0], "float32"),
        '$.functions[1].params[0].tensor_types[0][0]: string "float32" matches none of the '
        "anyOf alternatives",
    ),
    (
        "shape axis of the wrong type",
        _set(["functions", 0, "input_signature", 0, "shape", 1], 32.5),
        "$.functions[0].input_signature[0].shape[1]: expected integer or null, got number 32.5",
    ),
    (
        "refactored file not a string",
        _set(["refactored_files", "pkg/model.py"], None),
        "$.refactored_files['pkg/model.py']: expected string, got null",
    ),
    (
        "summary seconds as string",
        _set(["summary", "seconds"], "0.4"),
        '$.summary.seconds: expected number, got string "0.4"',
    ),
]


@pytest.mark.parametrize(
    ("mutation", "expected"), [(m, e) for _, m, e in MUTATIONS], ids=[n for n, _, _ in MUTATIONS]
)
def test_rejects_mutated_reports_with_a_useful_path(
    result: AnalysisResult, mutation: Mutation, expected: str
) -> None:
    report = _report(result)
    mutation(report)
    assert validate_report(report) == [expected]


def test_collects_several_errors(result: AnalysisResult) -> None:
    report = _report(result)
    del report["functions"][0]["file"]
    report["functions"][2]["is_recursive"] = "no"
    report["errors"][0]["line"] = 3
    errors = validate_report(report)
    assert errors == [
        "$.errors[0]: unexpected key 'line'",
        "$.functions[0]: missing required key 'file'",
        '$.functions[2].is_recursive: expected boolean or null, got string "no"',
    ]


def test_rejects_non_objects() -> None:
    assert validate_report([]) == ["$: expected object, got array []"]
    assert validate_report(None) == ["$: expected object, got null"]


def test_validate_integer_number_and_bool_semantics() -> None:
    assert validate(1.0, {"type": "integer"}) == []
    assert validate(1, {"type": "number"}) == []
    assert validate(False, {"type": "number"}) != []
    assert validate(1, {"enum": [True]}) != []
    assert validate(True, {"enum": [True]}) == []


def test_validate_one_of_and_refs() -> None:
    schema = {
        "$defs": {"int": {"type": "integer"}},
        "oneOf": [{"$ref": "#/$defs/int"}, {"type": "number"}],
    }
    assert validate(1.5, schema) == []
    assert validate(1, schema) == ["$: matches 2 alternatives of oneOf, expected exactly one"]
    assert validate("x", schema) == ['$: string "x" matches none of the oneOf alternatives']


def test_validate_refuses_unsupported_keywords_instead_of_ignoring_them() -> None:
    with pytest.raises(ValueError, match="unsupported JSON Schema keyword"):
        validate("abc", {"type": "string", "pattern": "^a"})
    with pytest.raises(ValueError, match="only local"):
        validate(1, {"$ref": "https://example.org/schema"})


# --- property: whatever the model holds, the rendered report validates ---------------------------

_names = st.text(min_size=1, max_size=12)
_tristate = st.sampled_from([True, False, None])
_spec = st.builds(
    TensorSpec,
    spec=st.sampled_from(["TensorSpec", "SparseTensorSpec", "RaggedTensorSpec"]),
    dtype=st.one_of(st.none(), st.sampled_from(["float32", "int32", "string", "bool"])),
    shape=st.one_of(
        st.none(), st.lists(st.one_of(st.none(), st.integers(0, 64)), max_size=4).map(tuple)
    ),
)
_spec_tree: st.SearchStrategy[SpecTree] = st.recursive(
    _spec, lambda inner: st.lists(inner, max_size=3).map(tuple), max_leaves=6
)
_span = st.builds(
    Span, st.integers(1, 999), st.integers(0, 99), st.integers(1, 999), st.integers(0, 99)
)
_finding = st.builds(
    Finding,
    code=st.from_regex(r"HY[0-9]{3}", fullmatch=True),
    name=_names,
    severity=st.sampled_from(["ok", "info", "warning", "error"]),
    message=st.text(max_size=40),
    span=_span,
)
_verdict = st.builds(
    made_verdict,
    file=_names,
    qualname=_names,
    line=st.integers(1, 10_000),
    span=_span,
    framework=st.sampled_from(["tensorflow", "torch"]),
    is_hybrid=st.booleans(),
    has_tensor_parameter=_tristate,
    has_python_side_effects=_tristate,
    refactoring=st.sampled_from(["convert_eager_to_hybrid", "optimize_hybrid"]),
    passes=st.booleans(),
    passing_precondition=st.sampled_from([None, "P1", "P2", "P3", "P4", "P6"]),
    transformation=st.sampled_from([None, "convert_to_hybrid", "convert_to_eager", "reconfigure"]),
    failures=st.lists(_names, max_size=3).map(tuple),
    assumptions=st.lists(st.text(max_size=30), max_size=2).map(tuple),
    status_severity=st.sampled_from(["ok", "info", "warning", "error"]),
    caller_covered=_tristate,
    has_eager_only_calls=_tristate,
    draws_seeded_global_random=_tristate,
    decorator_args=st.lists(
        st.tuples(st.sampled_from(DECORATOR_ARG_NAMES), st.booleans()), max_size=4
    ).map(tuple),
    supplied_input_signature=st.one_of(st.none(), st.lists(_spec_tree, max_size=3).map(tuple)),
    input_signature=st.one_of(st.none(), st.lists(_spec_tree, max_size=3).map(tuple)),
    input_signature_absence_reason=st.one_of(st.none(), st.text(max_size=20)),
    params=st.lists(
        st.builds(ParamReport, _names, _tristate, st.lists(_spec_tree, max_size=2).map(tuple)),
        max_size=3,
    ).map(tuple),
    findings=st.lists(_finding, max_size=3).map(tuple),
)
_result = st.builds(
    AnalysisResult,
    root=st.text(max_size=20),
    functions=st.lists(_verdict, max_size=3).map(tuple),
    errors=st.lists(st.builds(FileError, _names, st.text(max_size=30)), max_size=2).map(tuple),
    refactored_files=st.dictionaries(_names, st.text(max_size=30), max_size=2),
    seconds=st.floats(0, 1e4, allow_nan=False),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_result)
def test_any_rendered_result_validates(generated: AnalysisResult) -> None:
    report = json.loads(render_json(generated, "9.9"))
    assert validate_report(report) == []
    assert list(report) == list(REPORT_KEYS)
    broken = copy.deepcopy(report)
    broken["summary"]["functions"] = str(broken["summary"]["functions"])
    assert validate_report(broken) != []
