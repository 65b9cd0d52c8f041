"""One home per rule: a check holds its code, the fact it decides, its detection and its
severity, and the engine, the decision table and the report follow the registry."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import ClassVar

import pytest
from facts_helpers import project_result, verdict

import hybridize
from hybridize.analyzer.checks import (
    TENSORFLOW_AND_TORCH,
    Check,
    check_of,
    detecting,
    fact_checks,
    registered,
    registry,
    report_fact_fields,
    safety_checks,
)
from hybridize.analyzer.checks.context import CheckContext
from hybridize.analyzer.decisions.decide import DecisionInputs, decide
from hybridize.analyzer.frameworks.framework import FRAMEWORKS
from hybridize.lsp.hover import verdict_markdown
from hybridize.model import Finding, FunctionFacts, Span
from hybridize.output.json_report import function_keys, render_json
from hybridize.output.report_schema import report_json_schema, validate_report
from tools.gen_rule_docs import VERDICTS_DOC

SOURCE = Path(hybridize.__file__).parent
CHECKS = SOURCE / "analyzer" / "checks"

PROGRAM = """\
import tensorflow as tf

def f(x):
    return tf.reduce_sum(x) * 2

f(tf.ones((3,)))
"""


def test_every_fact_a_check_decides_is_its_own_and_the_reports_fields_follow_the_registry() -> None:
    # Each fact has one deciding check; the report has a field for those whose check gives a
    # `report_order` (a public interface: distinct places), the others fail the verdict and
    # show in its failures and findings (HY413).
    deciding = [check.fact for check in registry().values() if check.fact]
    assert len(set(deciding)) == len(deciding)
    reported = [check for check in fact_checks() if check.report_order is not None]
    orders = [check.report_order for check in reported]
    assert len(set(orders)) == len(orders)
    assert report_fact_fields() == tuple(
        check.fact for check in sorted(reported, key=lambda c: c.report_order or 0)
    )
    # The facts that fail no verdict are all reported (HY404's statically read axes).
    safety = set(safety_checks())
    assert {c.fact for c in fact_checks() if c not in safety} == {
        "has_unresolved_statically_read_axes"
    }
    for check in registry().values():
        if check.fact:
            assert check.detects(), check.code
            # a fact no field holds must fail the verdict, or nothing would show it
            assert check.report_order is not None or check in safety, check.code
        if check.counts_for:
            assert check_of(check.counts_for).fact and check.detects(), check.code


def test_every_hazard_code_is_decided_by_its_own_checks_detection() -> None:
    """HY1xx-HY4xx, HY501, HY013 (a supplied signature against the call sites) and HY014
    (shapes that change from call to call, which the rewrite's argument answers) come from
    `detect`; the other eligibility codes (HY0xx) are outcomes of the decision table, HY502 a
    failure without a finding, HY9xx the tool's errors."""
    detected = {check.code for check in detecting()}
    hazards = {code for code in registry() if code[2] in "1234"} | {"HY501", "HY013", "HY014"}
    assert detected == hazards


def test_the_decision_order_of_the_safety_facts_is_the_registrys() -> None:
    """Invariants of the order, not a list to edit with each rule: the safety facts are the
    facts with a `decision_order`, in that order (the code breaks ties), and a function of
    each framework with every safety fact true fails on each that applies there, in that
    order."""
    ordered = safety_checks()
    assert set(ordered) == {c for c in fact_checks() if c.decision_order is not None}
    assert len(ordered) == len(set(ordered))
    places = [(check.decision_order or 0, check.code) for check in ordered]
    assert places == sorted(places)
    for framework in FRAMEWORKS:
        everything = FunctionFacts(
            "m.py",
            "f",
            1,
            Span(1, 0, 2, 0),
            framework=framework.name,
            has_tensor_parameter=True,
            has_tensor_computation=True,
            check_facts={check.fact: True for check in fact_checks()},
        )
        failing = decide(DecisionInputs(everything, framework)).failures
        applying = [c.fact for c in ordered if framework.name in c.frameworks]
        assert failing == tuple(applying) and applying, framework.name


def test_failures_list_the_safety_facts_in_decision_order() -> None:
    source = """\
import numpy as np
import tensorflow as tf

def f(x):
    y = np.mean(x)
    return x.numpy() + y

f(tf.ones((3,)))
"""
    failures = verdict(source, "f").failures
    assert failures.index("has_eager_only_calls") < failures.index("has_numpy_calls_on_parameters")


class ThrowawayHazard(Check):
    """A hazard only these tests know: every `f` has it.

    What it detects
    ---------------
    Every function named `f`.

    Instead
    -------
    Name it otherwise.
    """

    code = "HY999"
    name = "has_throwaway_hazard"
    severity = "error"
    summary = "A test's own check."
    frameworks: ClassVar[frozenset[str]] = TENSORFLOW_AND_TORCH
    fact = "has_throwaway_hazard"
    fact_meaning = "the function is named `f`"
    decision_order = 1000

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        if context.function.name != "f":
            return []
        return [cls.finding("the test says so", context.function.span)]


class ReportedThrowawayHazard(ThrowawayHazard):
    """The same hazard with a field of its own in the report."""

    code = "HY998"
    report_order = 10_000


def test_a_check_registered_from_a_test_detects_and_fails_the_verdict() -> None:
    before = verdict(PROGRAM, "f")
    assert before.passes and "HY999" not in registry()
    with registered(ThrowawayHazard):
        assert ThrowawayHazard in detecting("tensorflow")
        assert safety_checks()[-1] is ThrowawayHazard
        hazardous = verdict(PROGRAM, "f")
        assert "has_throwaway_hazard" not in function_keys()  # no report_order: no field
    assert not hazardous.passes
    assert hazardous.failures == ("has_throwaway_hazard",)
    assert hazardous.fact("has_throwaway_hazard") is True
    found = [f for f in hazardous.findings if f.code == "HY999"]
    assert [(f.name, f.severity, f.message) for f in found] == [
        ("has_throwaway_hazard", "error", "the test says so")
    ]
    assert hazardous.status_severity == "error"
    # Undone: the registry and the verdicts are as before.
    assert "HY999" not in registry() and ThrowawayHazard not in safety_checks()
    assert verdict(PROGRAM, "f") == before


def test_a_new_check_module_reaches_the_report_schema_hover_and_docs_without_other_edits(
    tmp_path: Path,
) -> None:
    """Adding a rule is one check module: its fact, its field in the JSON report (at the end
    of the checks' facts), the schema, the editor's hover, the rule's page and its row in
    docs/verdicts.md's table of safety facts all follow from the registry."""
    from tools.gen_rule_docs import docs_out_of_date, safety_fact_table, write_docs, write_pages

    fact = "has_throwaway_hazard"
    rules = tmp_path / "rules"
    verdicts_doc = tmp_path / "verdicts.md"
    verdicts_doc.write_text(VERDICTS_DOC.read_text(encoding="utf-8"), encoding="utf-8")
    write_pages(rules)
    with registered(ReportedThrowawayHazard):
        keys = function_keys()
        assert keys.index(fact) == keys.index("caller_covered") - 1
        result = project_result(PROGRAM)
        report = json.loads(render_json(result, "0"))
        [record] = [f for f in report["functions"] if f["qualname"] == "f"]
        assert list(record) == list(keys)
        assert record[fact] is True and record["failures"] == [fact]
        assert validate_report(report) == []
        schema = report_json_schema()["$defs"]["function"]
        assert schema["properties"][fact] == {"type": ["boolean", "null"]}
        [shown] = [v for v in result.functions if v.qualname == "f"]
        assert f"- {fact}: yes" in verdict_markdown(shown, None)
        assert "| `has_throwaway_hazard` | HY998 | the function is named `f` |" in (
            safety_fact_table()
        )
        assert sorted(docs_out_of_date(rules, verdicts_doc)) == [
            "missing HY998.md",
            "out of date README.md",
            "out of date safety-fact table of verdicts.md",
        ]
        write_docs(rules, verdicts_doc)
        assert docs_out_of_date(rules, verdicts_doc) == []
        assert "# HY998 `has_throwaway_hazard`" in (rules / "HY998.md").read_text(encoding="utf-8")
    # Unregistered: the report is the package's again.
    assert fact not in function_keys()
    assert fact not in report_json_schema()["$defs"]["function"]["properties"]


def test_registering_a_code_twice_is_refused() -> None:
    class Duplicate(Check):
        code = "HY301"

    with pytest.raises(ValueError, match="HY301"), registered(Duplicate):
        pass
    assert registry()["HY301"] is not Duplicate


def test_a_variant_gives_its_own_name_and_severity() -> None:
    supplied = check_of("HY013")
    span = Span(1, 0, 1, 1)
    assert supplied.finding("fits", span, variant="fits").severity == "info"
    assert supplied.finding("tighter", span).severity == "warning"


def _literal_severity_findings(path: Path) -> list[int]:
    """Lines of `Finding(...)` calls whose severity is written as a literal."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        callee = node.func
        name = callee.id if isinstance(callee, ast.Name) else getattr(callee, "attr", "")
        if name != "Finding":
            continue
        severity = node.args[2] if len(node.args) > 2 else None
        severity = next((k.value for k in node.keywords if k.arg == "severity"), severity)
        if isinstance(severity, ast.Constant):
            lines.append(node.lineno)
    return lines


def test_no_finding_outside_the_checks_carries_its_own_severity() -> None:
    offenders = {
        str(path.relative_to(SOURCE)): found
        for path in sorted(SOURCE.rglob("*.py"))
        if CHECKS not in path.parents and (found := _literal_severity_findings(path))
    }
    assert offenders == {}


def test_the_scan_sees_a_literal_severity() -> None:
    sample = SOURCE.parent / "tests" / "output" / "conftest.py"
    assert _literal_severity_findings(sample)


def test_a_switched_off_check_decides_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    source = """\
import tensorflow as tf

def f(x):
    return x.numpy() * 2

f(tf.ones((3,)))
"""
    assert verdict(source, "f").fact("has_eager_only_calls") is True
    monkeypatch.setenv("HYBRIDIZE_DISABLE_CHECKS", "HY301")
    switched_off = verdict(source, "f")
    assert switched_off.fact("has_eager_only_calls") is False
    assert "HY301" not in {f.code for f in switched_off.findings}


def test_a_check_that_does_not_apply_to_the_framework_does_not_run() -> None:
    # HY407 is TensorFlow's (what tf.function returns): on a PyTorch function it neither
    # fails the verdict nor states its assumption, and its fact reads false.
    source = """\
import torch

def ready(x, limit):
    return bool(torch.sum(x) > limit)
"""
    v = verdict(source, "ready")
    assert v.framework == "torch"
    assert not any("tf.function" in a for a in v.assumptions), v.assumptions
    assert v.fact("has_python_value_returns") is False
    assert check_of("HY407") not in detecting("torch")


# onnx-tf's `_create_handler_variables_for_node`, reduced: a classmethod calling a method of a
# handler looked up in the mapping it is passed (HY110), with no TensorFlow operation of its
# own (HY003). `--verify` with HY110 switched off must be able to see it compiled.
HANDLER_VARIABLES = """\
import tensorflow as tf

class Helper:
    @classmethod
    def make(cls, handlers, node, init=None, out=None):
        out = dict() if out is None else out
        handler = handlers[node.domain].get(node.op_type, None)
        return handler.create_variables(handlers, node, init, out) if handler else out

    @classmethod
    def run(cls, handlers, node):
        return cls.make(handlers, node, tf.ones((2,)), {})
"""


def test_a_switched_off_effect_check_blocks_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    # HY110's hazard is a fact of the effect analysis (`has_python_side_effects` unknown), not
    # a check's own: switched off, that fact must read as if the effect were not there, or the
    # check still blocks (onnx-tf's handler helper, blocked by HY110 with HY110 off)
    on = verdict(HANDLER_VARIABLES, "Helper.make")
    assert set(on.failures) == {"undeterminable_side_effects", "no_tensor_computation"}
    assert "HY110" in {f.code for f in on.findings}
    monkeypatch.setenv("HYBRIDIZE_DISABLE_CHECKS", "HY110")
    off = verdict(HANDLER_VARIABLES, "Helper.make")
    assert off.facts.has_python_side_effects is False
    assert "undeterminable_side_effects" not in off.failures
    assert "HY110" not in {f.code for f in off.findings}
    assert "no_tensor_computation" in off.failures  # HY003 still on
    monkeypatch.setenv("HYBRIDIZE_DISABLE_CHECKS", "HY110,HY003")
    both = verdict(HANDLER_VARIABLES, "Helper.make")
    assert both.failures == () and both.passes, both.failures


def test_a_switched_off_effect_code_leaves_the_others(monkeypatch: pytest.MonkeyPatch) -> None:
    # a list passed in and appended to (HY107) stays an effect with HY110 off, and goes with
    # HY107 off; the parameter it mutates is its HY107 effect's
    source = """\
import tensorflow as tf

def f(x, seen):
    seen.append(1)
    return x * 2

f(tf.ones((3,)), [])
"""
    monkeypatch.setenv("HYBRIDIZE_DISABLE_CHECKS", "HY110")
    on = verdict(source, "f")
    assert on.facts.has_python_side_effects is True
    assert on.failures == ("has_python_side_effects",)
    monkeypatch.setenv("HYBRIDIZE_DISABLE_CHECKS", "HY107")
    off = verdict(source, "f")
    assert off.facts.has_python_side_effects is False
    assert off.passes, off.failures
