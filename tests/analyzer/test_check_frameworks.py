"""Checks declare the frameworks they apply to, and a verdict keeps only the findings of
checks that apply to its function's framework."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from hybridize.analyzer.checks import ALL_FRAMEWORKS, applies, checks_for, registry
from hybridize.analyzer.decisions.decide import DecisionInputs, decide
from hybridize.analyzer.frameworks.framework import FRAMEWORKS, framework_named
from hybridize.model import Finding, FunctionFacts, Span

SPAN = Span(3, 0, 4, 10)


def test_every_check_names_known_frameworks():
    known = {f.name for f in FRAMEWORKS}
    for code, check in registry().items():
        assert check.frameworks, code
        assert check.frameworks <= known, code


def test_registry_filters_by_framework():
    for framework in ALL_FRAMEWORKS:
        selected = checks_for(framework)
        assert set(selected) <= set(registry())
        for code, check in registry().items():
            assert (code in selected) is (framework in check.frameworks)
            assert applies(code, framework) is (framework in check.frameworks)
    # Tool errors are about the tool, not about a framework.
    assert {"HY901", "HY902"} <= set(checks_for("torch"))
    # print is a graph break under torch.compile (labelling policy): a side effect for both;
    # NumPy on parameters is traced by Dynamo: a hazard under tf.function only.
    assert "HY101" in checks_for("torch")
    assert "HY101" in checks_for("tensorflow")
    assert "HY302" not in checks_for("torch")
    assert "HY302" in checks_for("tensorflow")


def _inputs(framework: str, **facts: Any) -> DecisionInputs:
    """A function with a side effect (HY101) and findings of three checks, or with `facts`."""
    found = FunctionFacts(
        file="m.py",
        qualname="f",
        line=3,
        span=SPAN,
        framework=framework,
        has_tensor_parameter=True,
        has_python_side_effects=True,
        has_tensor_computation=True,
    )
    return DecisionInputs(
        dataclasses.replace(found, **facts),
        framework_named(framework),
        findings=[
            Finding("HY101", "has_python_side_effects", "error", "calls print", SPAN),
            Finding("HY403", "has_tensor_parameter_iteration", "error", "loops", SPAN),
            Finding("HY902", "internal_error", "warning", "failed", SPAN),
        ],
    )


@pytest.mark.parametrize(
    ("framework", "codes"),
    [("tensorflow", ["HY101", "HY403", "HY902"]), ("torch", ["HY101", "HY902"])],
)
def test_decide_keeps_the_findings_of_checks_that_apply(framework, codes):
    verdict = decide(_inputs(framework))
    assert verdict.framework == framework
    assert [f.code for f in verdict.findings] == codes
    # The failure is a fact of the function, not a finding: it stays.
    assert "has_python_side_effects" in verdict.failures


def _safe(framework: str, **check_facts: bool) -> DecisionInputs:
    """A function without side effects or findings, with these checks' facts."""
    inputs = _inputs(framework, has_python_side_effects=False, check_facts=check_facts)
    inputs.findings = []
    return inputs


def test_hy010_names_the_decorator_of_the_framework():
    assert [f.message for f in decide(_safe("tensorflow")).findings] == [
        "can run as a graph: add @tf.function"
    ]
    assert [f.message for f in decide(_safe("torch")).findings] == [
        "can run as a graph: add @torch.compile"
    ]


@pytest.mark.parametrize(
    ("framework", "numpy_fact", "passes"), [("tensorflow", True, False), ("torch", False, True)]
)
def test_a_safety_fact_of_a_check_that_does_not_apply_reads_false(framework, numpy_fact, passes):
    inputs = _safe(framework, has_numpy_calls_on_parameters=True, has_eager_only_calls=False)
    verdict = decide(inputs)
    assert verdict.fact("has_numpy_calls_on_parameters") is numpy_fact
    assert verdict.passes is passes
    assert ("has_numpy_calls_on_parameters" in verdict.failures) is numpy_fact


def test_an_eager_only_fact_fails_a_torch_function_too():
    verdict = decide(_safe("torch", has_eager_only_calls=True))
    assert verdict.failures == ("has_eager_only_calls",)
    assert verdict.fact("has_eager_only_calls") is True


def test_the_verdict_carries_every_checks_fact_false_where_it_does_not_apply():
    """The facts of all the registry's checks are in the verdict: one that ran and found
    nothing is false, one of a check that did not run on this framework is false, one whose
    check ran without an answer (an undecided function) is unknown."""
    ran = decide(_safe("torch", has_eager_only_calls=False)).facts.check_facts
    assert set(ran) == {check.fact for check in registry().values() if check.fact}
    assert ran["has_eager_only_calls"] is False
    assert ran["has_numpy_calls_on_parameters"] is False  # HY302 is TensorFlow's only
    unanswered = decide(_safe("torch")).facts.check_facts
    assert unanswered["has_eager_only_calls"] is None  # HY301 applies to torch, said nothing
    assert unanswered["has_numpy_calls_on_parameters"] is False
