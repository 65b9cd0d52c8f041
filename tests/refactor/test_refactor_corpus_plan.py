"""The plan on the real corpus, with the real analysis (no TensorFlow needed).

Every passing verdict becomes exactly one change; the output parses; analysing the refactored
copy again plans nothing (the decorators it added are seen and kept); the JSON report's
`refactored_files` is the same plan.
"""

from __future__ import annotations

import ast
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from refactor_helpers import corpus_programs

from hybridize.cli import main
from hybridize.project import Project, ProjectOptions
from hybridize.refactor import Selection, apply_plan, plan_refactorings
from hybridize.refactor.selection import predicted_to_pay


@pytest.mark.parametrize("program", corpus_programs(), ids=lambda p: p.name)
def test_plan_is_complete_parses_and_is_idempotent(program: Path, tmp_path: Path) -> None:
    copy = tmp_path / program.name
    shutil.copytree(program, copy)
    result = Project.open(copy, ProjectOptions(use_cache=False)).results()
    everything = Selection(include_low_benefit=True)
    plan = plan_refactorings(result, everything)
    assert plan.notices == ()
    passing = {v.key for v in result.functions if v.passes}
    assert {c.key for c in plan.changes} == passing
    # By default, additions predicted not to pay are left out, and nothing else.
    default = {c.key for c in plan_refactorings(result).changes}
    assert default == {v.key for v in result.functions if v.passes and predicted_to_pay(v)}
    for file_plan in plan.files:
        ast.parse(file_plan.new_text)
    report = apply_plan(plan)
    assert report.failed == []
    again = Project.open(copy, ProjectOptions(use_cache=False)).results()
    assert [v.key for v in again.functions if v.passes] == []
    assert plan_refactorings(again, everything).files == ()


def test_json_report_carries_the_plan() -> None:
    program = next(p for p in corpus_programs() if p.name == "tf_function_misuse")
    result = CliRunner().invoke(main, ["analyze", str(program), "--format", "json", "--no-cache"])
    report = json.loads(result.stdout)
    analysis = Project.open(program, ProjectOptions(use_cache=False)).results()
    assert report["refactored_files"] == plan_refactorings(analysis).refactored_files()
    # The misused decorators go whatever the benefit; `validation_report` is called from one
    # place, never in a loop: its new decorator would not pay, so only the flag adds it.
    original = (program / "main.py").read_text(encoding="utf-8")
    assert report["refactored_files"]["main.py"] != original
    assert "@tf.function\ndef validation_report" not in report["refactored_files"]["main.py"]
    everything = plan_refactorings(analysis, Selection(include_low_benefit=True))
    assert "@tf.function\ndef validation_report" in everything.refactored_files()["main.py"]
