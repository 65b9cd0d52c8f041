"""The JSON report: exactly the fields, order and values of docs/report-format.md."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from verdict_parts import changed

from hybridize.model import AnalysisResult, Finding, Span
from hybridize.output.json_report import (
    function_keys,
    json_chunks,
    render_json,
    spec_tree_to_json,
    to_json_dict,
)
from hybridize.refactor.selection import Selection

# Copied from the jsonc example of docs/report-format.md. The report is a public interface: a
# change here is a change of that document.
EXPECTED_TOP_KEYS = [
    "schema_version",
    "tool",
    "root",
    "errors",
    "functions",
    "refactored_files",
    "summary",
]
EXPECTED_FUNCTION_KEYS = [
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
    "has_eager_only_calls",
    "has_numpy_calls_on_parameters",
    "has_invalid_name_arguments",
    "has_unresolved_statically_read_axes",
    "has_stale_variable_reads",
    "has_tensor_parameter_iteration",
    "has_conflicting_eager_dtype_coercions",
    "has_keras_symbolic_arguments",
    "has_python_value_returns",
    "has_frozen_python_state_reads",
    "has_unhashable_arguments",
    "has_rank_losing_slices",
    "has_loop_carried_shape_changes",
    "draws_seeded_global_random",
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
]
EXPECTED_DECORATOR_ARG_KEYS = [
    "input_signature",
    "autograph",
    "jit_compile",
    "reduce_retracing",
    "experimental_implements",
    "experimental_autograph_options",
    "experimental_follow_type_hints",
    "func",
]
EXPECTED_FINDING_KEYS = [
    "code",
    "name",
    "severity",
    "message",
    "line",
    "column",
    "end_line",
    "end_column",
]
EXPECTED_PARAM_KEYS = ["name", "is_tensor", "tensor_types"]
EXPECTED_SPEC_KEYS = ["spec", "dtype", "shape"]
EXPECTED_SUMMARY_KEYS = [
    "functions",
    "candidates",
    "refactorable",
    "seconds",
    "proposed",
    "low_benefit",
    "blocked",
]


def _parsed(result: AnalysisResult) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(render_json(result, "0.1.0"))
    return data


def _by_qualname(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f["qualname"]: f for f in report["functions"]}


def test_top_level_keys_and_fixed_values(result: AnalysisResult) -> None:
    report = _parsed(result)
    assert list(report) == EXPECTED_TOP_KEYS
    assert report["schema_version"] == 1
    assert report["tool"] == {"name": "hybridize", "version": "0.1.0"}
    assert list(report["tool"]) == ["name", "version"]
    assert report["root"] == "/home/user/my project/ünï"


def test_every_function_has_exactly_the_documented_keys_in_order(result: AnalysisResult) -> None:
    report = _parsed(result)
    assert len(report["functions"]) == 4
    for function in report["functions"]:
        assert list(function) == EXPECTED_FUNCTION_KEYS
    assert list(function_keys()) == EXPECTED_FUNCTION_KEYS


def test_nested_objects_have_the_documented_keys_in_order(result: AnalysisResult) -> None:
    report = _parsed(result)
    functions = _by_qualname(report)
    assert list(report["summary"]) == EXPECTED_SUMMARY_KEYS
    assert [list(e) for e in report["errors"]] == [["file", "message"]] * 2
    for function in report["functions"]:
        assert list(function["decorator_args"]) == EXPECTED_DECORATOR_ARG_KEYS
        for param in function["params"]:
            assert list(param) == EXPECTED_PARAM_KEYS
        for finding in function["findings"]:
            assert list(finding) == EXPECTED_FINDING_KEYS
    spec = functions["Model.call"]["input_signature"][0]
    assert list(spec) == EXPECTED_SPEC_KEYS


def test_function_span_is_not_in_the_report_only_line(result: AnalysisResult) -> None:
    function = _by_qualname(_parsed(result))["Model.predict"]
    assert "span" not in function
    assert function["line"] == 40  # the `def` line, not the span's first (decorator) line


def test_refactorable_function_values(result: AnalysisResult) -> None:
    call = _by_qualname(_parsed(result))["Model.call"]
    assert call["file"] == "pkg/model.py"
    assert call["framework"] == "tensorflow"
    assert call["is_hybrid"] is False
    assert call["refactoring"] == "convert_eager_to_hybrid"
    assert call["passes"] is True
    assert call["passing_precondition"] == "P1"
    assert call["transformation"] == "convert_to_hybrid"
    assert call["failures"] == []
    assert call["has_errors"] is False
    assert call["speculative"] is True
    assert call["assumptions"] == [
        "`x` is assumed to be a tensor: `call` of a Keras Model receives tensors"
    ]
    assert call["status_severity"] == "info"
    assert call["supplied_input_signature"] is None
    assert call["input_signature"] == [
        {"spec": "TensorSpec", "dtype": "float32", "shape": [None, 32]}
    ]
    assert call["input_signature_absence_reason"] is None
    assert call["params"] == [
        {
            "name": "x",
            "is_tensor": True,
            "tensor_types": [{"spec": "TensorSpec", "dtype": "float32", "shape": [2, 32]}],
        }
    ]
    assert call["findings"] == []


def test_failures_has_errors_and_tristates(result: AnalysisResult) -> None:
    step = _by_qualname(_parsed(result))["train_step"]
    assert step["failures"] == ["has_python_side_effects", "is_recursive"]
    assert step["has_errors"] is True
    assert step["passes"] is False
    assert step["passing_precondition"] is None
    assert step["transformation"] is None
    assert step["has_python_side_effects"] is True
    assert step["is_recursive"] is True
    assert step["has_eager_only_calls"] is None  # unknown stays null, not false
    assert step["has_primitive_parameters"] is False
    assert step["input_signature"] is None


def test_nested_spec_lists_and_unknown_rank(result: AnalysisResult) -> None:
    params = _by_qualname(_parsed(result))["train_step"]["params"]
    assert params[0] == {
        "name": "xs",
        "is_tensor": True,
        "tensor_types": [
            [
                {"spec": "TensorSpec", "dtype": "float32", "shape": [2]},
                [{"spec": "SparseTensorSpec", "dtype": "int32", "shape": None}],
            ]
        ],
    }
    assert params[1] == {"name": "n", "is_tensor": None, "tensor_types": []}


def test_findings_keep_model_positions(result: AnalysisResult) -> None:
    findings = _by_qualname(_parsed(result))["train_step"]["findings"]
    assert findings[1] == {
        "code": "HY101",
        "name": "has_python_side_effects",
        "severity": "error",
        "message": "print() runs only while tracing",
        "line": 32,
        "column": 4,  # 0-based as in the model; only SARIF/LSP/text convert
        "end_line": 32,
        "end_column": 20,
    }
    assert [f["code"] for f in findings] == ["HY501", "HY101"]  # model order, not re-sorted


def test_decorator_args_always_eight_keys_in_order(result: AnalysisResult) -> None:
    functions = _by_qualname(_parsed(result))
    assert functions["Model.predict"]["decorator_args"] == {
        "input_signature": False,
        "autograph": False,
        "jit_compile": True,
        "reduce_retracing": True,
        "experimental_implements": False,
        "experimental_autograph_options": False,
        "experimental_follow_type_hints": False,
        "func": False,
    }
    assert set(functions["Model.call"]["decorator_args"].values()) == {False}


def test_decorator_args_outside_the_tracked_names_are_dropped(result: AnalysisResult) -> None:
    verdict = changed(result.functions[0], decorator_args=(("unknown_flag", True),))
    args = to_json_dict(replace(result, functions=(verdict,)), "1")["functions"][0][
        "decorator_args"
    ]
    assert list(args) == EXPECTED_DECORATOR_ARG_KEYS
    assert "unknown_flag" not in args


def test_hybrid_function_with_supplied_signature(result: AnalysisResult) -> None:
    predict = _by_qualname(_parsed(result))["Model.predict"]
    assert predict["is_hybrid"] is True
    assert predict["refactoring"] == "optimize_hybrid"
    assert predict["transformation"] == "reconfigure"
    assert predict["supplied_input_signature"] == [
        {"spec": "RaggedTensorSpec", "dtype": "float32", "shape": [None, None]}
    ]


def test_errors_refactored_files_and_summary(result: AnalysisResult) -> None:
    report = _parsed(result)
    assert report["errors"] == [
        {"file": "bad.py", "message": "SyntaxError: invalid syntax (line 3)"},
        {"file": "dir with space/é#1.py", "message": "UnicodeDecodeError: invalid start byte"},
    ]
    assert report["refactored_files"] == {
        "pkg/model.py": "# new model\n",
        "pkg/train.py": "# new train\n",
    }
    assert list(report["refactored_files"]) == ["pkg/model.py", "pkg/train.py"]  # sorted
    # 4 functions; helper has no tensor parameter; Model.call and Model.predict pass (both
    # proposed: no benefit estimate); train_step does tensor work and is blocked.
    assert report["summary"] == {
        "functions": 4,
        "candidates": 3,
        "refactorable": 2,
        "seconds": 0.413,
        "proposed": 2,
        "low_benefit": 0,
        "blocked": 1,
    }


def test_proposed_is_what_refactor_makes(result: AnalysisResult) -> None:
    """A low-benefit addition passes but is not proposed, unless the selection includes low
    benefit; a removal is proposed whatever its benefit; the summary counts agree."""
    call, step, util, predict = result.functions
    low = replace(call, benefit="low")
    removal = replace(predict, transformation="convert_to_eager", benefit="none")
    changed = replace(result, functions=(low, step, util, removal))
    report = to_json_dict(changed, "1")
    assert [f["proposed"] for f in report["functions"]] == [False, False, False, True]
    assert report["summary"]["refactorable"] == 2
    assert (report["summary"]["proposed"], report["summary"]["low_benefit"]) == (1, 1)
    everything = to_json_dict(changed, "1", Selection(include_low_benefit=True))
    assert [f["proposed"] for f in everything["functions"]] == [True, False, False, True]
    assert (everything["summary"]["proposed"], everything["summary"]["low_benefit"]) == (2, 0)
    ignored = to_json_dict(changed, "1", Selection(ignore=("pkg/model.py",)))
    assert ignored["summary"]["proposed"] == 0


def test_render_json_text_form(result: AnalysisResult) -> None:
    text = render_json(result, "0.1.0")
    assert text.endswith("}\n") and not text.endswith("\n\n")
    assert text.startswith('{\n  "schema_version": 1,\n  "tool": {"name": "hybridize"')
    # One function per line: grep and diff work record by record.
    lines = text.splitlines()
    functions = lines.index('  "functions": [')
    assert all(line.startswith('    {"file": ') for line in lines[functions + 1 : functions + 3]), (
        lines[functions : functions + 3]
    )
    assert "ünï" in text and "\\u" not in text  # ensure_ascii=False
    assert json.loads(text) == to_json_dict(result, "0.1.0")  # only JSON-native values
    assert render_json(result, "0.1.0") == text  # deterministic


def test_to_json_dict_uses_lists_not_tuples(result: AnalysisResult) -> None:
    def walk(value: Any) -> None:
        assert not isinstance(value, tuple), value
        if isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(to_json_dict(result, "0.1.0"))


def test_empty_result(empty_result: AnalysisResult) -> None:
    report = _parsed(empty_result)
    assert report == {
        "schema_version": 1,
        "tool": {"name": "hybridize", "version": "0.1.0"},
        "root": "/empty",
        "errors": [],
        "functions": [],
        "refactored_files": {},
        "summary": {
            "functions": 0,
            "candidates": 0,
            "refactorable": 0,
            "seconds": 0.0,
            "proposed": 0,
            "low_benefit": 0,
            "blocked": 0,
        },
    }


def test_unicode_result(unicode_result: AnalysisResult) -> None:
    text = render_json(unicode_result, "0.1.0")
    assert '"qualname": "Modèle.appel"' in text
    assert '"message": "écrit dans « journal » → une fois"' in text
    function = json.loads(text)["functions"][0]
    assert function["file"] == "données/modèle.py"


def test_spec_tree_to_json_handles_deep_nesting() -> None:
    from hybridize.model import TensorSpec

    tree = ((TensorSpec(),), (), TensorSpec("TensorSpec", "bool", ()))
    assert spec_tree_to_json(tree) == [
        [{"spec": "TensorSpec", "dtype": None, "shape": None}],
        [],
        {"spec": "TensorSpec", "dtype": "bool", "shape": []},  # scalar: rank 0, not unknown
    ]


def test_related_spans_are_not_part_of_the_json_finding(result: AnalysisResult) -> None:
    finding = Finding("HY101", "x", "error", "m", Span(1, 0, 1, 1), related=(Span(2, 0, 2, 1),))
    verdict = replace(result.functions[0], findings=(finding,))
    out = to_json_dict(replace(result, functions=(verdict,)), "1")["functions"][0]["findings"]
    assert out == [
        {
            "code": "HY101",
            "name": "x",
            "severity": "error",
            "message": "m",
            "line": 1,
            "column": 0,
            "end_line": 1,
            "end_column": 1,
        }
    ]


def test_the_report_written_in_pieces_is_the_report_built_whole(result: AnalysisResult) -> None:
    """`json_chunks` encodes one function record at a time (a large project's report is
    never held whole); the text is that of the report built at once from `to_json_dict`."""
    report = to_json_dict(result, "0.1.0")
    lines = []
    for key, value in report.items():
        name = json.dumps(key)
        if isinstance(value, list) and value:
            items = ",\n".join(f"    {json.dumps(v, ensure_ascii=False)}" for v in value)
            lines.append(f"  {name}: [\n{items}\n  ]")
        elif isinstance(value, dict) and value and key == "refactored_files":
            entries = ",\n".join(f"    {json.dumps(k)}: {json.dumps(v)}" for k, v in value.items())
            lines.append(f"  {name}: {{\n{entries}\n  }}")
        else:
            lines.append(f"  {name}: {json.dumps(value, ensure_ascii=False)}")
    whole = "{\n" + ",\n".join(lines) + "\n}\n"
    pieces = list(json_chunks(result, "0.1.0"))
    assert "".join(pieces) == whole
    assert len(pieces) > len(result.functions) > 1
