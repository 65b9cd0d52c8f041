"""What a report puts before the user, and in which order: the one sorting of a project's
verdicts that the text report, the JSON report's counts, SARIF, `--fail-on-refactorable` and
the editor share.

- *proposed*: the changes `hybridize refactor` makes with the same selection
  (`Selection.proposes`), ranked by predicted benefit;
- *low benefit*: safe changes the selection leaves out only because they are predicted not to
  pay (`Selection.holds_back_for_benefit`: what `--include-low-benefit` adds);
- *blocked*: functions that do tensor work, or are already compiled, and that a finding keeps
  from their transformation; each with its main reason (`main_reason`) and the one thing that
  would unblock it (the check's `unblock`); ranked by predicted benefit;
- *others*: the rest (nothing to compile), shown only on demand.

Why one module: `analyze` once proposed every passing verdict while `refactor` made only the
ones predicted to pay, and CI gates fired on changes nobody would make.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from hybridize.model import AnalysisResult, Finding, FunctionVerdict
from hybridize.refactor.selection import Selection

BENEFIT_RANK: dict[str | None, int] = {"high": 0, None: 1, "low": 2, "none": 3}
"""Order of predicted benefit, most first (no estimate between high and low)."""

NEVER_COMPILED = frozenset({"__init__", "__new__", "__post_init__", "__init_subclass__", "__del__"})
"""Methods that build or tear down an object: they run once per object, not once per step, so
nobody compiles them and a finding in one (an `__init__` storing its attributes: HY107) is no
lead. An existing decorator on one is still reported."""


NOTHING_TO_GAIN = frozenset(
    {"has_no_tensor_parameters", "no_tensor_computation", "has_covered_callers", "dataset_builder"}
)
"""Failures (HY001, HY003, HY004, HY008) that say compiling the function would gain nothing
even if every hazard were lifted: such a function (a `main` that makes tensors, a helper every
caller already compiles) is no lead, whatever else blocks it."""


def blocking_findings(verdict: FunctionVerdict) -> list[Finding]:
    """The findings that keep a function from its transformation: every finding of an eager
    function that stays eager; for an existing `@tf.function`, its warnings and errors (an
    informational "keep it" does not block anything)."""
    if verdict.passes:
        return []
    if verdict.facts.is_hybrid:
        return [f for f in verdict.findings if f.severity in ("warning", "error")]
    return list(verdict.findings)


def is_blocked_tensor_work(verdict: FunctionVerdict) -> bool:
    """A function worth a look although nothing is proposed for it: it does tensor work (or is
    already compiled), is not a constructor, would gain from compiling (`NOTHING_TO_GAIN`),
    and a finding blocks it."""
    if verdict.passes or not verdict.failures:
        return False
    if not verdict.facts.is_hybrid:
        if verdict.facts.has_tensor_computation is not True:
            return False
        if verdict.qualname.rsplit(".", 1)[-1] in NEVER_COMPILED:
            return False
        if NOTHING_TO_GAIN.intersection(verdict.failures):
            return False
    return bool(blocking_findings(verdict))


def main_reason(verdict: FunctionVerdict) -> Finding | None:
    """The finding behind the verdict's first failure (failures are in decision order), else
    its first blocking finding; None when nothing blocks it."""
    blocking = blocking_findings(verdict)
    for failure in verdict.failures:
        for finding in blocking:
            if finding.name == failure:
                return finding
    return blocking[0] if blocking else None


def _benefit_order(verdict: FunctionVerdict) -> tuple[int, str, int, str]:
    return (BENEFIT_RANK.get(verdict.benefit, 1), verdict.file, verdict.line, verdict.qualname)


@dataclass(frozen=True, slots=True)
class Triage:
    """A project's verdicts in the report's sections (each function in exactly one)."""

    proposed: tuple[FunctionVerdict, ...]
    low_benefit: tuple[FunctionVerdict, ...]
    blocked: tuple[FunctionVerdict, ...]
    others: tuple[FunctionVerdict, ...]

    @classmethod
    def of(cls, functions: Iterable[FunctionVerdict], selection: Selection | None) -> Triage:
        selection = selection or Selection()
        proposed: list[FunctionVerdict] = []
        low: list[FunctionVerdict] = []
        blocked: list[FunctionVerdict] = []
        others: list[FunctionVerdict] = []
        for verdict in functions:
            if selection.proposes(verdict):
                proposed.append(verdict)
            elif selection.holds_back_for_benefit(verdict):
                low.append(verdict)
            elif is_blocked_tensor_work(verdict):
                blocked.append(verdict)
            else:
                others.append(verdict)
        return cls(
            tuple(sorted(proposed, key=_benefit_order)),
            tuple(sorted(low, key=_benefit_order)),
            tuple(sorted(blocked, key=_benefit_order)),
            tuple(sorted(others, key=lambda f: (f.file, f.line, f.qualname))),
        )

    @classmethod
    def of_result(cls, result: AnalysisResult, selection: Selection | None) -> Triage:
        return cls.of(result.functions, selection)
