"""Checks switched off for experiments: `$HYBRIDIZE_DISABLE_CHECKS` (codes, comma-separated).

A switched-off check applies to no framework (`checks.applies`), so its hazards block nothing
and its findings are not reported. The same holds where the hazard is a fact of the analysis
rather than a check's own: an effect of a switched-off code (HY101-HY110, `Effect.code`) does
not make `has_python_side_effects` true or unknown (`engine._side_effects`), and a failure the
decision table gives with a switched-off finding (HY001-HY004, HY202, a non-candidate's code)
is not given (`decide`). This is how the verification by the user's own tests is
shown to catch what a rule would have caught: `hybridize refactor --verify` with HY301 off
must drop exactly the functions HY301 would have kept. Every cache keys its entries on the
codes switched off (`analyzer.cache.version_tag`), so no verdict made with a check off is
served to a run with it on. Standard library only: the cache reads it before any analysis.
"""

from __future__ import annotations

import os
from functools import lru_cache

DISABLE_CHECKS_VARIABLE = "HYBRIDIZE_DISABLE_CHECKS"


def disabled_codes() -> frozenset[str]:
    """The codes `$HYBRIDIZE_DISABLE_CHECKS` switches off (none, normally)."""
    return _codes_of(os.environ.get(DISABLE_CHECKS_VARIABLE, ""))


@lru_cache(maxsize=8)
def _codes_of(value: str) -> frozenset[str]:
    return frozenset(code.strip().upper() for code in value.split(",") if code.strip())
