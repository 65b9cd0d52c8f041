"""Hover on a function's name: its verdict, facts with their evidence, assumptions, and the
findings that block it, with their lines (Markdown)."""

from __future__ import annotations

from lsprotocol import types

from hybridize.analyzer.checks import fact_checks, safety_checks
from hybridize.analyzer.frameworks.framework import framework_named
from hybridize.lsp.diagnostics import name_span
from hybridize.lsp.positions import Lines
from hybridize.model import (
    FunctionVerdict,
    ParamReport,
    SpecTree,
    TensorSpec,
    Tristate,
)
from hybridize.output.text_report import verdict_text
from hybridize.output.triage import blocking_findings
from hybridize.project import FileResult

FACTS = (
    ("is_hybrid", "already a graph (`@{decorator}`)"),
    ("has_tensor_parameter", "takes tensors"),
    ("has_primitive_parameters", "takes Python literals (retraces per value)"),
    ("has_python_side_effects", "Python side effects"),
    ("is_recursive", "recursive"),
    ("has_tensor_computation", "computes on tensors"),
    ("caller_covered", "every caller is already a graph"),
)


def safety_facts() -> list[str]:
    """The facts a hover lists when they may hold: the registry's, the decision table's in
    its order first, so a new check shows up here (`FunctionFacts.check_facts`, whether the
    report has a field for it or not) without being listed twice."""
    table = safety_checks()
    ordered = [*table, *(check for check in fact_checks() if check not in table)]
    return [check.fact for check in ordered]


def _word(value: Tristate) -> str:
    return {True: "yes", False: "no", None: "unknown"}[value]


def _spec(spec: SpecTree) -> str:
    if isinstance(spec, TensorSpec):
        shape = "?" if spec.shape is None else "(" + ", ".join(map(str, spec.shape)) + ")"
        return f"{spec.dtype or '?'} {shape}"
    return "[" + ", ".join(_spec(s) for s in spec) + "]"


def _parameter(param: ParamReport) -> str:
    kinds = ", ".join(_spec(s) for s in param.tensor_types)
    evidence = f" ({kinds})" if kinds else ""
    return f"`{param.name}`: tensor {_word(param.is_tensor)}{evidence}"


def verdict_markdown(verdict: FunctionVerdict, planned: str | None) -> str:
    """The hover text of one verdict."""
    tags = " (speculative)" if verdict.facts.speculative else ""
    out = [f"**hybridize** `{verdict.qualname}`: {verdict_text(verdict)}{tags}", ""]
    if planned:
        out += [f"Planned: {planned}", ""]
    if verdict.benefit is not None:
        out += [f"Benefit: {verdict.benefit}"] + [f"- {r}" for r in verdict.benefit_reasons]
        out.append("")
    out.append("Facts:")
    decorator = framework_named(verdict.framework).idiom
    out += [
        f"- {label.format(decorator=decorator)}: {_word(getattr(verdict.facts, name))}"
        for name, label in FACTS
    ]
    risky = [name for name in safety_facts() if verdict.fact(name) is not False]
    out += [f"- {name}: {_word(verdict.fact(name))}" for name in risky]
    if verdict.facts.params:
        out += ["", "Parameters:"] + [f"- {_parameter(p)}" for p in verdict.facts.params]
    if verdict.assumptions:
        out += ["", "Assumes:"] + [f"- {a}" for a in verdict.assumptions]
    blocking = blocking_findings(verdict)
    if blocking:
        out += ["", "Blocked by:"]
        out += [
            f"- line {f.span.start_line}: {f.code} {f.message}"
            for f in sorted(blocking, key=lambda f: (f.span.start_line, f.code))
        ]
    if verdict.facts.input_signature_absence_reason:
        out += ["", f"No input_signature: {verdict.facts.input_signature_absence_reason}"]
    return "\n".join(out) + "\n"


def hover(found: FileResult, position: types.Position, encoding: str) -> types.Hover | None:
    """The hover of the function whose name is under `position`, if any."""
    if found.text is None:
        return None
    lines = Lines(found.text, encoding)
    planned = {c.qualname: c.description for c in found.plan.changes} if found.plan else {}
    for verdict in found.verdicts:
        where = lines.span_range(name_span(verdict, lines))
        if where.start.line == position.line and (
            where.start.character <= position.character <= where.end.character
        ):
            return types.Hover(
                contents=types.MarkupContent(
                    kind=types.MarkupKind.Markdown,
                    value=verdict_markdown(verdict, planned.get(verdict.qualname)),
                ),
                range=where,
            )
    return None
