"""One home per rule: a check holds its code, the fact it decides, its detection and its
severity, and the engine, the decision table and the report follow the registry."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path
from typing import ClassVar

import pytest
from facts_helpers import verdict

import hybridize
from hybridize.analyzer.checks import (
    TENSORFLOW_AND_TORCH,
    Check,
    check_of,
    detecting,
    registered,
    registry,
    safety_checks,
)
from hybridize.analyzer.checks.context import CheckContext
from hybridize.model import CHECK_FACT_FIELDS, Finding, FunctionVerdict, Span

SOURCE = Path(hybridize.__file__).parent
CHECKS = SOURCE / "analyzer" / "checks"

PROGRAM = """\
import tensorflow as tf

def f(x):
    return tf.reduce_sum(x) * 2

f(tf.ones((3,)))
"""


def test_every_fact_field_of_a_verdict_has_exactly_one_check_and_each_check_one_field() -> None:
    # A fact field of the report has its check; a check added later decides a fact of its own
    # that no field holds (it shows in the verdict's failures and findings): adding a rule is
    # one check module, not a change of the report's fields.
    deciding = [check.fact for check in registry().values() if check.fact]
    assert set(CHECK_FACT_FIELDS) <= set(deciding)
    assert len(set(deciding)) == len(deciding)
    # The safety facts (a true one fails the verdict) are all but the statically read axes.
    safety = {check.fact for check in safety_checks()}
    assert set(CHECK_FACT_FIELDS) - safety == {"has_unresolved_statically_read_axes"}
    fields = {f.name for f in dataclasses.fields(FunctionVerdict)}
    for check in registry().values():
        if check.fact:
            assert check.detects(), check.code
            # a fact no field holds must fail the verdict, or nothing would show it
            assert check.fact in fields or check in safety_checks(), check.code
        if check.counts_for:
            assert check_of(check.counts_for).fact and check.detects(), check.code


def test_every_hazard_code_is_decided_by_its_own_checks_detection() -> None:
    """HY1xx-HY4xx, HY501 and HY013 (a supplied signature against the call sites) come from
    `detect`; the other eligibility codes (HY0xx) are outcomes of the decision table, HY502 a
    failure without a finding, HY9xx the tool's errors."""
    detected = {check.code for check in detecting()}
    hazards = {code for code in registry() if code[2] in "1234"} | {"HY501", "HY013"}
    assert detected == hazards


def test_the_decision_order_of_the_safety_facts_is_the_registrys() -> None:
    assert [check.code for check in safety_checks()] == [
        "HY301",
        "HY422",
        "HY421",
        "HY302",
        "HY401",
        "HY402",
        "HY403",
        "HY405",
        "HY414",
        "HY415",
        "HY406",
        "HY407",
        "HY408",
        "HY409",
        "HY412",
        "HY410",
        "HY420",
        "HY411",
        "HY413",
    ]


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


def test_a_check_registered_from_a_test_detects_and_fails_the_verdict() -> None:
    class ThrowawayHazard(Check):
        """A hazard only this test knows: every `f` has it."""

        code = "HY999"
        name = "has_throwaway_hazard"
        severity = "error"
        summary = "A test's own check."
        frameworks: ClassVar[frozenset[str]] = TENSORFLOW_AND_TORCH
        fact = "has_throwaway_hazard"
        decision_order = 1000

        @classmethod
        def detect(cls, context: CheckContext) -> list[Finding]:
            if context.function.name != "f":
                return []
            return [cls.finding("the test says so", context.function.span)]

    before = verdict(PROGRAM, "f")
    assert before.passes and "HY999" not in registry()
    with registered(ThrowawayHazard):
        assert ThrowawayHazard in detecting("tensorflow")
        assert safety_checks()[-1] is ThrowawayHazard
        hazardous = verdict(PROGRAM, "f")
    assert not hazardous.passes
    assert hazardous.failures == ("has_throwaway_hazard",)
    found = [f for f in hazardous.findings if f.code == "HY999"]
    assert [(f.name, f.severity, f.message) for f in found] == [
        ("has_throwaway_hazard", "error", "the test says so")
    ]
    assert hazardous.status_severity == "error"
    # Undone: the registry and the verdicts are as before.
    assert "HY999" not in registry() and ThrowawayHazard not in safety_checks()
    assert verdict(PROGRAM, "f") == before


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
    assert verdict(source, "f").has_eager_only_calls is True
    monkeypatch.setenv("HYBRIDIZE_DISABLE_CHECKS", "HY301")
    switched_off = verdict(source, "f")
    assert switched_off.has_eager_only_calls is False
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
    assert v.has_python_value_returns is False
    assert check_of("HY407") not in detecting("torch")
