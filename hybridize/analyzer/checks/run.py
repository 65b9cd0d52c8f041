"""Running the registry on one function: every check that applies to its framework detects,
and the safety facts follow from what the checks found.

A fact holds when the check that decides it (`Check.fact`), or a check counting for that one
(`Check.counts_for`), finds something. Every detecting check runs, also one that
does not apply to the function's framework: `decide` reads such a fact as false and drops
such findings, but the assumptions a detection states are kept (HY407 states one for
`tf.function` on PyTorch code too, as the verdicts did before the registry ran the checks;
running `detecting(framework)` only would drop it and the time those checks take).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hybridize.analyzer.checks import check_of, detecting
from hybridize.analyzer.checks.context import CheckContext
from hybridize.model import Finding, Tristate


@dataclass(slots=True)
class Detected:
    """What the registry's checks found on one function."""

    facts: dict[str, Tristate] = field(default_factory=dict)
    """The facts of the checks that ran, by `FunctionVerdict` field."""
    findings: list[Finding] = field(default_factory=list)


def run_checks(context: CheckContext) -> Detected:
    """Every detecting check, in code order."""
    detected = Detected()
    for check in detecting():
        found = check.detect(context)
        detected.findings.extend(found)
        owner = check_of(check.counts_for) if check.counts_for else check
        if owner.fact:
            detected.facts[owner.fact] = detected.facts.get(owner.fact) or bool(found)
    return detected
