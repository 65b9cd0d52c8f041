"""Checks declare the frameworks they apply to, and a verdict keeps only the findings of
checks that apply to its function's framework."""

from __future__ import annotations

import pytest

from hybridize.analyzer.checks import ALL_FRAMEWORKS, applies, checks_for, registry
from hybridize.analyzer.decisions.decide import FunctionFacts, decide
from hybridize.analyzer.frameworks.framework import FRAMEWORKS, framework_named
from hybridize.model import Finding, Span

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


def _facts(framework: str) -> FunctionFacts:
    return FunctionFacts(
        file="m.py",
        qualname="f",
        line=3,
        span=SPAN,
        is_hybrid=False,
        has_tensor_parameter=True,
        has_primitive_parameters=False,
        has_python_side_effects=True,
        is_recursive=False,
        has_tensor_computation=True,
        caller_covered=False,
        check_facts={},
        findings=[
            Finding("HY101", "has_python_side_effects", "error", "calls print", SPAN),
            Finding("HY403", "has_tensor_parameter_iteration", "error", "loops", SPAN),
            Finding("HY902", "internal_error", "warning", "failed", SPAN),
        ],
        framework=framework_named(framework),
    )


@pytest.mark.parametrize(
    ("framework", "codes"),
    [("tensorflow", ["HY101", "HY403", "HY902"]), ("torch", ["HY101", "HY902"])],
)
def test_decide_keeps_the_findings_of_checks_that_apply(framework, codes):
    verdict = decide(_facts(framework))
    assert verdict.framework == framework
    assert [f.code for f in verdict.findings] == codes
    # The failure is a fact of the function, not a finding: it stays.
    assert "has_python_side_effects" in verdict.failures


def test_hy010_names_the_decorator_of_the_framework():
    facts = _facts("tensorflow")
    facts.has_python_side_effects = False
    facts.findings = []
    assert [f.message for f in decide(facts).findings] == ["can run as a graph: add @tf.function"]
    facts.framework = framework_named("torch")
    assert [f.message for f in decide(facts).findings] == ["can run as a graph: add @torch.compile"]


@pytest.mark.parametrize(
    ("framework", "numpy_fact", "passes"), [("tensorflow", True, False), ("torch", False, True)]
)
def test_a_safety_fact_of_a_check_that_does_not_apply_reads_false(framework, numpy_fact, passes):
    facts = _facts(framework)
    facts.has_python_side_effects = False
    facts.findings = []
    facts.check_facts = {"has_numpy_calls_on_parameters": True, "has_eager_only_calls": False}
    verdict = decide(facts)
    assert verdict.has_numpy_calls_on_parameters is numpy_fact
    assert verdict.passes is passes
    assert ("has_numpy_calls_on_parameters" in verdict.failures) is numpy_fact


def test_an_eager_only_fact_fails_a_torch_function_too():
    facts = _facts("torch")
    facts.has_python_side_effects = False
    facts.findings = []
    facts.check_facts = {"has_eager_only_calls": True}
    verdict = decide(facts)
    assert verdict.failures == ("has_eager_only_calls",)
    assert verdict.has_eager_only_calls is True
