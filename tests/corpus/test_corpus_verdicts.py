"""The analysis reaches every hand-written verdict and fact of the corpus.

Labels were written from the code and TensorFlow's semantics (corpus/README.md, with the
labelling policy there); a disagreement is either a bug in the analysis or a known limit,
and a known limit must be listed in KNOWN_DISAGREEMENTS with the reason the tool's answer
is acceptable. The list is empty: the analysis agrees with every label.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus_programs import disagreements, programs

KNOWN_DISAGREEMENTS: dict[tuple[str, str], str] = {}
"""(function key, field) -> why the tool's different answer is correct or acceptable."""


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name)
def test_verdicts_and_facts_match_the_labels(program: Path) -> None:
    found = [d for d in disagreements(program) if (d[0], d[1]) not in KNOWN_DISAGREEMENTS]
    assert found == [], "\n".join(
        f"{name}: {field} expected {expected!r}, analysis says {actual!r}"
        for name, field, expected, actual in found
    )
