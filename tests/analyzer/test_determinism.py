"""The same project gives the same verdicts in any file order and with any number of jobs.

The solver iterates over dicts built from the summaries; if its answer depended on the order
in which files were found (or on which worker summarised which file), a verdict could flip
between two runs of an unchanged project, and `refactor --apply` then `--check` would not be
a no-op. These tests analyse the whole bundled corpus as one project in several orders.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from hybridize.analyzer import engine
from hybridize.analyzer.engine import (
    AnalysisOptions,
    analyze_path,
    analyze_summaries,
    summarize_text,
)
from hybridize.analyzer.ir import ModuleSummary
from hybridize.model import FunctionVerdict

CORPUS = Path(__file__).resolve().parents[2] / "corpus"


def _essence(verdicts: list[FunctionVerdict] | tuple[FunctionVerdict, ...]) -> list[object]:
    return sorted(
        (
            v.file,
            v.qualname,
            v.passes,
            tuple(v.failures),
            v.has_tensor_parameter,
            v.has_python_side_effects,
            tuple(sorted((f.code, f.span.start_line) for f in v.findings)),
        )
        for v in verdicts
    )


def _summaries() -> list[ModuleSummary]:
    summaries = []
    for path in sorted(CORPUS.rglob("*.py")):
        relpath = path.relative_to(CORPUS).as_posix()
        summary = summarize_text(relpath, path.read_text(encoding="utf-8"))
        assert isinstance(summary, ModuleSummary), relpath
        summaries.append(summary)
    return summaries


@pytest.mark.slow
def test_file_order_does_not_change_verdicts() -> None:
    summaries = _summaries()
    options = AnalysisOptions(use_cache=False)
    reference = _essence(analyze_summaries(summaries, options))
    assert reference, "the corpus gave no verdicts"
    shuffled = list(summaries)
    for seed in (1, 2):
        random.Random(seed).shuffle(shuffled)
        assert _essence(analyze_summaries(shuffled, options)) == reference
    assert _essence(analyze_summaries(list(reversed(summaries)), options)) == reference


@pytest.mark.slow
def test_jobs_do_not_change_verdicts(monkeypatch: pytest.MonkeyPatch) -> None:
    # The corpus is smaller than the size from which the pool pays: use it regardless.
    monkeypatch.setattr(engine, "PARALLEL_THRESHOLD", 1)
    one, _ = analyze_path(CORPUS, AnalysisOptions(use_cache=False, jobs=1))
    two, _ = analyze_path(CORPUS, AnalysisOptions(use_cache=False, jobs=2))
    assert _essence(one.functions) == _essence(two.functions)
    assert one.errors == two.errors
