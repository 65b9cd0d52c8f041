"""A one-shot analysis (`Project(long_running=False)`: `hybridize analyze`, `refactor`) keeps
only what its one solve needs: no solver state beside the facts, no per-key sources of the
scans, each verdict once as published, each distinct value of the evaluators once. What it
decides is what an analysis kept open for edits decides."""

from __future__ import annotations

from pathlib import Path

from hybridize.analyzer.checks import summary_hooks
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.solver import Solver
from hybridize.analyzer.summaries.file_summaries import summarize_text
from hybridize.analyzer.summaries.ir import ModuleSummary
from hybridize.project import Project, ProjectOptions

CORPUS = Path(__file__).resolve().parents[2] / "corpus"

SOURCE = """\
import tensorflow as tf


def scale(x, k):
    y = x * k
    z = tf.constant(1.0) + y
    return z + x


def shift(x):
    y = x + 1.0
    z = tf.constant(1.0) + y
    return scale(z, 2.0)
"""


def test_one_shot_verdicts_equal_those_of_an_analysis_kept_open() -> None:
    options = ProjectOptions(use_cache=False, jobs=1)
    one_shot = Project.open(CORPUS, options, long_running=False).results()
    kept_open = Project.open(CORPUS, options, long_running=True).results()
    assert len(one_shot.functions) > 400
    assert one_shot.functions == kept_open.functions
    assert one_shot.errors == kept_open.errors


def test_a_one_shot_analysis_keeps_no_solver() -> None:
    project = Project.from_texts(
        {"m.py": SOURCE}, ProjectOptions(use_cache=False), long_running=False
    )
    assert project.results().functions
    assert project.analysis.solver is None
    kept = Project.from_texts({"m.py": SOURCE}, ProjectOptions(use_cache=False))
    assert kept.results().functions
    assert kept.analysis.solver is not None and kept.analysis.solver.facts.updatable


def test_facts_never_updated_refuse_an_update() -> None:
    index = ProjectIndex({"m.py": _summary(SOURCE)})
    solver = Solver(index, updatable=False)
    assert not solver.facts.updatable
    assert not solver.update(ProjectIndex({"m.py": _summary(SOURCE)}), ["m.py"])


def test_equal_values_of_the_evaluators_are_one_object() -> None:
    solver = Solver(ProjectIndex({"m.py": _summary(SOURCE)}))
    values = [
        value
        for evaluator in solver.facts.evaluators.values()
        for table in (evaluator.memo, evaluator.call_results)
        for value in table.values()
    ]
    distinct = set(values)
    assert len(values) > len(distinct)  # the same values come back (a tensor, a float)
    assert len({id(v) for v in values}) == len(distinct)


def _summary(text: str) -> ModuleSummary:
    found = summarize_text("m.py", text, summary_hooks())
    assert isinstance(found, ModuleSummary)
    return found
