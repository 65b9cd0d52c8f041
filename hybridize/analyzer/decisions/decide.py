"""The decision tables of docs/verdicts.md section 2, from facts to a `FunctionVerdict`.

The first rule that applies chooses the outcome; every failing fact is still reported as a
failure code (each at most once), so a user sees all that stands in the way.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from hybridize.analyzer.checks import (
    applies_to,
    check_of,
    facts_applying,
    registry,
    safety_checks,
)
from hybridize.analyzer.facts.candidacy import NotCandidate
from hybridize.analyzer.frameworks.framework import Framework
from hybridize.analyzer.switched_off_checks import disabled_codes
from hybridize.model import Finding, FunctionFacts, FunctionVerdict, Severity, Span


@dataclass(slots=True)
class DecisionInputs:
    """One function's facts and what the decision needs beside them."""

    facts: FunctionFacts
    """What the analysis found; `check_facts` holds the facts of the checks that ran."""
    framework: Framework
    """The function's compile target (`ProjectIndex.function_framework`), `facts.framework`."""
    not_candidate: list[NotCandidate] = field(default_factory=list)
    """Why the function is no candidate by its nature (candidacy.py), in decision order."""
    assumptions: list[str] = field(default_factory=list)
    addition_assumptions: list[str] = field(default_factory=list)
    """What adding the decorator would rest on beyond the function itself (what compiling
    changes process-wide): stated only when the verdict adds one."""
    findings: list[Finding] = field(default_factory=list)
    infer_input_signatures: bool = False
    keep_reason: str | None = None
    """Why an existing decorator must stay even where P2/P3/P6 would remove it (a deliberate
    input_signature, a test of graph mode, computation on captured state), in words."""


def _finding(code: str, message: str, span: Span) -> Finding:
    return check_of(code).finding(message, span)


def _about_addition(code: str) -> bool:
    """Whether findings of `code` are about the decorator the refactoring adds
    (`Check.about_addition`; a code no check documents is not)."""
    check = registry().get(code)
    return check is not None and check.about_addition


def decide(inputs: DecisionInputs) -> FunctionVerdict:
    """Apply the decision table for an eager or an already-hybrid function."""
    failures: list[str] = []
    findings = list(inputs.findings)
    passing: str | None = None
    transformation: str | None = None
    found = inputs.facts
    span = found.span
    framework = inputs.framework
    decorator = framework.idiom
    applies = applies_to(framework.name)
    # A fact of a check that does not apply to the function's framework is false there (the
    # check did not run; NumPy on a parameter is traced by torch.compile); one whose check
    # ran and said nothing (an undecided function) is unknown. The verdict carries these.
    facts = dataclasses.replace(
        found,
        check_facts={
            fact: found.check_facts.get(fact) if applying else False
            for fact, applying in facts_applying(framework.name).items()
        },
    )
    # A true safety fact fails the verdict, in the registry's decision order (the order of
    # the failures).
    safety = [check.fact for check in safety_checks()]

    off = disabled_codes()

    def fail(code: str, finding_code: str | None = None, message: str = "") -> None:
        if finding_code in off:
            return  # switched off for an experiment (`switched_off_checks`): blocks nothing
        if code not in failures:
            failures.append(code)
        if finding_code and not any(f.code == finding_code for f in findings):
            findings.append(_finding(finding_code, message, span))

    if not facts.is_hybrid:
        refactoring = "convert_eager_to_hybrid"
        if facts.has_tensor_parameter is False:
            fail("has_no_tensor_parameters", "HY001", "no parameter receives a tensor")
        elif facts.has_tensor_parameter is None:
            fail(
                "undeterminable_tensor_parameter",
                "HY002",
                "no call site or type hint shows whether a parameter receives a tensor",
            )
        if facts.has_primitive_parameters is True:
            fail("has_primitive_parameters")
        elif facts.has_primitive_parameters is None:
            fail("undeterminable_primitive_parameter", "HY202", "parameter kinds are unknown")
        if facts.has_python_side_effects is True:
            fail("has_python_side_effects")
        elif facts.has_python_side_effects is None:
            fail("undeterminable_side_effects")
        if facts.is_recursive is True:
            fail("is_recursive")
        elif facts.is_recursive is None:
            fail("cant_approximate_recursion")
        for fact in safety:
            if facts.check_facts[fact] is True:
                fail(fact)
        for reason in inputs.not_candidate:
            if reason.code in off:
                continue
            fail(reason.failure)
            if not any(f.code == reason.code for f in findings):
                where = reason.span or span
                findings.append(_finding(reason.code, reason.message, where))
        if facts.has_tensor_computation is False:
            fail(
                "no_tensor_computation",
                "HY003",
                f"no {framework.title} operation runs in this function",
            )
        if facts.caller_covered is True:
            fail(
                "has_covered_callers",
                "HY004",
                "every caller already runs as a graph; a decorator adds nothing",
            )
        if not failures:
            passing, transformation = "P1", "convert_to_hybrid"
    else:
        refactoring = "optimize_hybrid"
        if facts.has_python_side_effects is True:
            fail("has_python_side_effects")
        elif facts.has_python_side_effects is None:
            fail("undeterminable_side_effects")
        elif facts.has_tensor_parameter is False:
            passing, transformation = "P2", "convert_to_eager"
        elif facts.has_tensor_parameter is None:
            fail(
                "undeterminable_tensor_parameter",
                "HY002",
                "no call site or type hint shows whether a parameter receives a tensor",
            )
        elif facts.has_primitive_parameters is True:
            passing, transformation = "P3", "convert_to_eager"
        elif facts.has_tensor_computation is False:
            passing, transformation = "P6", "convert_to_eager"
        elif (
            inputs.infer_input_signatures
            and facts.is_recursive is False
            and facts.input_signature is not None
            and not dict(facts.decorator_args).get("input_signature", False)
        ):
            passing, transformation = "P4", "reconfigure"
        else:
            fail(
                "has_no_primitive_parameters",
                "HY005",
                "already compiled and nothing to improve: keep the decorator",
            )
        if transformation == "convert_to_eager" and inputs.keep_reason is not None:
            passing, transformation = None, None
            fail(
                "has_no_primitive_parameters",
                "HY005",
                f"already compiled: keep the decorator ({inputs.keep_reason})",
            )
        if transformation == "convert_to_eager":
            reasons = {
                "P2": "no parameter receives a tensor: graph mode buys nothing",
                "P3": (
                    f"Python literals passed for a parameter force a {framework.retrace_noun} "
                    "per value"
                ),
                "P6": f"no {framework.title} operation runs: tracing only adds overhead",
            }
            findings.append(
                _finding(
                    "HY011",
                    f"remove @{decorator}: {reasons[passing or 'P2']}",
                    span,
                )
            )
    if transformation == "convert_to_hybrid":
        # the decorator as the refactoring writes it: with the shape-generalising argument
        # where HY014 found shapes changing per call and no inferred signature does it
        argument = framework.shape_generalising_argument
        if (
            argument is not None
            and found.input_signature is None
            and any(f.code == "HY014" for f in findings)
        ):
            decorator = f"{decorator}({argument}=True)"
        findings.append(_finding("HY010", f"can run as a graph: add @{decorator}", span))
    if transformation == "reconfigure":
        findings.append(
            _finding("HY012", f"add the inferred input_signature to @{decorator}", span)
        )
    # Only the findings of checks that apply to the function's framework, and those about
    # the decorator added only where one is (HY014's argument).
    adds = transformation == "convert_to_hybrid"
    findings = [f for f in findings if applies(f.code) and (adds or not _about_addition(f.code))]
    severity: Severity = "ok"
    if findings:
        order = {"ok": 0, "info": 1, "warning": 2, "error": 3}
        severity = max((f.severity for f in findings), key=lambda s: order[s])
    return FunctionVerdict(
        facts=facts,
        refactoring=refactoring,
        passes=transformation is not None,
        passing_precondition=passing,
        transformation=transformation,
        failures=tuple(failures),
        assumptions=tuple(
            inputs.assumptions
            + (inputs.addition_assumptions if transformation == "convert_to_hybrid" else [])
        ),
        status_severity=severity,
        findings=tuple(
            sorted(findings, key=lambda f: (f.span.start_line, f.span.start_col, f.code))
        ),
    )
