"""Running the registry on one function: every check that applies to its framework detects,
and the safety facts follow from what the checks found.

A fact holds when the check that decides it (`Check.fact`), or a check counting for that one
(`Check.counts_for`), finds something. A check that does not apply to the function's
framework does not run: its fact is no hazard there (`decide` reads it as false), and what
its detection would say, assumptions included, is about another compiler (HY407's
assumption about what `tf.function` returns was stated on PyTorch functions while every
check ran).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hybridize.analyzer.checks import detections
from hybridize.analyzer.checks.context import CheckContext
from hybridize.model import Finding, Tristate


@dataclass(slots=True)
class Detected:
    """What the registry's checks found on one function."""

    facts: dict[str, Tristate] = field(default_factory=dict)
    """The facts of the checks that ran, by `FunctionVerdict` field."""
    findings: list[Finding] = field(default_factory=list)


def run_checks(context: CheckContext) -> Detected:
    """Every detecting check that applies to the function's framework, in code order."""
    detected = Detected()
    facts, findings = detected.facts, detected.findings
    for detection in detections(context.framework.name):
        found = detection.check.detect(context)
        findings.extend(found)
        fact = detection.fact
        if fact:
            facts[fact] = facts.get(fact) or bool(found)
    return detected
