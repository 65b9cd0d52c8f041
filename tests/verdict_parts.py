"""Verdicts made by hand for the tests of the layers that read them (renderers, the editor,
the refactoring, the cache): one set of keywords, each sent to the part of the verdict that
holds it (`FunctionFacts`, a check's fact in `check_facts`, or the decision)."""

from __future__ import annotations

import dataclasses
from typing import Any

from hybridize.analyzer.checks import fact_checks
from hybridize.model import FunctionFacts, FunctionVerdict

FACT_FIELDS = frozenset(f.name for f in dataclasses.fields(FunctionFacts))


def _parts(fields: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    checks = {check.fact for check in fact_checks()}
    facts = {k: v for k, v in fields.items() if k in FACT_FIELDS}
    decided = {k: v for k, v in fields.items() if k in checks}
    decision = {k: v for k, v in fields.items() if k not in FACT_FIELDS and k not in checks}
    return facts, decided, decision


def made_verdict(**fields: Any) -> FunctionVerdict:
    """A verdict with these fields (a check's fact by its name, `has_eager_only_calls=None`);
    the framework is TensorFlow unless given."""
    facts, decided, decision = _parts({"framework": "tensorflow", **fields})
    return FunctionVerdict(facts=FunctionFacts(**facts, check_facts=decided), **decision)


def changed(verdict: FunctionVerdict, **fields: Any) -> FunctionVerdict:
    """`dataclasses.replace` across the verdict's parts."""
    facts, decided, decision = _parts(fields)
    checks = {**verdict.facts.check_facts, **decided}
    new_facts = dataclasses.replace(verdict.facts, **facts, check_facts=checks)
    return dataclasses.replace(verdict, facts=new_facts, **decision)
