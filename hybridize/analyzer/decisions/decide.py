"""The decision tables of docs/verdicts.md section 2, from facts to a `FunctionVerdict`.

The first rule that applies chooses the outcome; every failing fact is still reported as a
failure code (each at most once), so a user sees all that stands in the way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hybridize.analyzer.checks import applies_to, check_of, fact_checks, safety_checks
from hybridize.analyzer.facts.candidacy import NotCandidate
from hybridize.analyzer.frameworks.framework import Framework
from hybridize.model import (
    CHECK_FACT_FIELDS,
    DECORATOR_ARG_NAMES,
    Finding,
    FunctionVerdict,
    ParamReport,
    Severity,
    Span,
    Tristate,
)


@dataclass(slots=True)
class FunctionFacts:
    """Everything known about one function before the decision."""

    file: str
    qualname: str
    line: int
    span: Span
    is_hybrid: bool
    has_tensor_parameter: Tristate
    has_primitive_parameters: Tristate
    has_python_side_effects: Tristate
    is_recursive: Tristate
    has_tensor_computation: Tristate
    caller_covered: Tristate
    check_facts: dict[str, Tristate]
    """The facts the registry's checks decided (`Check.fact`), by `FunctionVerdict` field."""
    not_candidate: list[NotCandidate] = field(default_factory=list)
    """Why the function is no candidate by its nature (candidacy.py), in decision order."""
    speculative: bool = False
    assumptions: list[str] = field(default_factory=list)
    addition_assumptions: list[str] = field(default_factory=list)
    """What adding the decorator would rest on beyond the function itself (what compiling
    changes process-wide): stated only when the verdict adds one."""
    findings: list[Finding] = field(default_factory=list)
    params: tuple[ParamReport, ...] = ()
    decorator_args: dict[str, bool] = field(default_factory=dict)
    infer_input_signatures: bool = False
    input_signature: tuple[object, ...] | None = None
    supplied_input_signature: tuple[object, ...] | None = None
    input_signature_absence_reason: str | None = None
    framework: Framework = field(kw_only=True)
    """The function's compile target (`ProjectIndex.function_framework`)."""
    keep_reason: str | None = None
    """Why an existing decorator must stay even where P2/P3/P6 would remove it (a deliberate
    input_signature, a test of graph mode, computation on captured state), in words."""


def _finding(code: str, message: str, span: Span) -> Finding:
    return check_of(code).finding(message, span)


def decide(facts: FunctionFacts) -> FunctionVerdict:
    """Apply the decision table for an eager or an already-hybrid function."""
    failures: list[str] = []
    findings = list(facts.findings)
    passing: str | None = None
    transformation: str | None = None
    span = facts.span
    framework = facts.framework
    decorator = framework.idiom
    applies = applies_to(framework.name)
    # A safety fact is a hazard only for the frameworks its check applies to (NumPy on a
    # parameter is traced by torch.compile): for the others it is false. In the registry's
    # decision order, which is the order of the failures.
    safety = {
        check.fact: facts.check_facts.get(check.fact) if applies(check.code) else False
        for check in safety_checks()
    }

    def fail(code: str, finding_code: str | None = None, message: str = "") -> None:
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
        for fact, value in safety.items():
            if value is True:
                fail(fact)
        for reason in facts.not_candidate:
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
            facts.infer_input_signatures
            and facts.is_recursive is False
            and facts.input_signature is not None
            and not facts.decorator_args.get("input_signature", False)
        ):
            passing, transformation = "P4", "reconfigure"
        else:
            fail(
                "has_no_primitive_parameters",
                "HY005",
                "already compiled and nothing to improve: keep the decorator",
            )
        if transformation == "convert_to_eager" and facts.keep_reason is not None:
            passing, transformation = None, None
            fail(
                "has_no_primitive_parameters",
                "HY005",
                f"already compiled: keep the decorator ({facts.keep_reason})",
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
        findings.append(_finding("HY010", f"can run as a graph: add @{decorator}", span))
    if transformation == "reconfigure":
        findings.append(
            _finding("HY012", f"add the inferred input_signature to @{decorator}", span)
        )
    # Only the findings of checks that apply to the function's framework.
    findings = [f for f in findings if applies(f.code)]
    severity: Severity = "ok"
    if findings:
        order = {"ok": 0, "info": 1, "warning": 2, "error": 3}
        severity = max((f.severity for f in findings), key=lambda s: order[s])
    decorator_args = tuple((n, facts.decorator_args.get(n, False)) for n in DECORATOR_ARG_NAMES)
    # The facts the report has fields for (a check registered from outside, with a fact of
    # its own, shows in the failures and findings only); a fact outside the decision table
    # as the check found it, false where its check does not apply (it did not run).
    decided = {
        check.fact: facts.check_facts.get(check.fact) if applies(check.code) else False
        for check in fact_checks()
    }
    fact_fields: dict[str, Any] = {
        fact: value for fact, value in {**decided, **safety}.items() if fact in CHECK_FACT_FIELDS
    }
    return FunctionVerdict(
        file=facts.file,
        qualname=facts.qualname,
        line=facts.line,
        span=facts.span,
        framework=framework.name,
        is_hybrid=facts.is_hybrid,
        has_tensor_parameter=facts.has_tensor_parameter,
        has_primitive_parameters=facts.has_primitive_parameters,
        has_python_side_effects=facts.has_python_side_effects,
        is_recursive=facts.is_recursive,
        refactoring=refactoring,
        passes=transformation is not None,
        passing_precondition=passing,
        transformation=transformation,
        failures=tuple(failures),
        speculative=facts.speculative,
        assumptions=tuple(
            facts.assumptions
            + (facts.addition_assumptions if transformation == "convert_to_hybrid" else [])
        ),
        status_severity=severity,
        has_tensor_computation=facts.has_tensor_computation,
        **fact_fields,
        caller_covered=facts.caller_covered,
        decorator_args=decorator_args,
        supplied_input_signature=facts.supplied_input_signature,  # type: ignore[arg-type]
        input_signature=facts.input_signature,  # type: ignore[arg-type]
        input_signature_absence_reason=facts.input_signature_absence_reason,
        params=facts.params,
        findings=tuple(
            sorted(findings, key=lambda f: (f.span.start_line, f.span.start_col, f.code))
        ),
    )
