"""What the Python side-effect checks (HY101-HY109) share: one finding per effect of the
check's own code, from the function's effect summary (`facts/effects.py`)."""

from __future__ import annotations

from hybridize.analyzer.checks import Check
from hybridize.analyzer.checks.context import CheckContext
from hybridize.model import Finding


class SideEffectCheck(Check):
    """A kind of Python side effect: the effects the analysis attributes to this code."""

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """Each effect of this code, in the summary's order."""
        if context.effects is None:
            return []
        return [
            cls.finding(effect.message, effect.span)
            for effect in context.effects.effects
            if effect.code == cls.code
        ]
