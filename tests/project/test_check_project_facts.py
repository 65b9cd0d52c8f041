"""A check's project fact (`Check.project_fact`) reaches the incremental verdict phase through
the registry alone: a check registered from a test, whose findings on a function depend on a
module the function neither calls nor is called from, gets the same verdicts after an edit
of that module as an analysis from scratch. The engine names no check: without the registry's
hook the unchanged functions would be settled and keep their verdicts (`engine.ProjectWide`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from hybridize.analyzer.checks import TENSORFLOW_AND_TORCH, Check, registered
from hybridize.analyzer.checks.context import CheckContext
from hybridize.analyzer.facts.evaluator import TensorFacts
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.model import Finding
from hybridize.project import Project, ProjectOptions

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_incremental import check

APP = """\
import tensorflow as tf


def f(x):
    return tf.reduce_sum(x) * 2


def g(x):
    return f(x) + 1


g(tf.ones((3,)))
"""

OTHER = """\
def switch(x):
    off = x
    return off
"""

SWITCHED_ON = OTHER.replace("off", "on")
"""The same function (no key added or removed, the same parameters), a local renamed."""


class ProjectSwitchedHazard(Check):
    """A test's own check whose findings depend on the whole project.

    What it detects
    ---------------
    Every function `f`, while some function `switch` has a local `on`.

    Why it matters in graph mode
    ----------------------------
    It does not: the test says so.

    Example
    -------
        def f(x): ...

    Instead
    -------
    Remove the switch.
    """

    code = "HY997"
    name = "has_project_switched_hazard"
    severity = "error"
    summary = "A test's own check with a project fact."
    frameworks: ClassVar[frozenset[str]] = TENSORFLOW_AND_TORCH
    fact = "has_project_switched_hazard"
    fact_meaning = "some function `switch` has a local `on`"
    decision_order = 1001

    @classmethod
    def project_fact(cls, index: ProjectIndex, facts: TensorFacts) -> object:
        return any(
            fn.name == "switch" and "on" in fn.locals
            for module in index.modules.values()
            for fn in module.functions.values()
        )

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        if context.function.name != "f" or not cls.project_fact(context.index, context.facts):
            return []
        return [cls.finding("the switch is on", context.function.span)]


def _codes(project: Project, qualname: str) -> list[str]:
    [verdict] = [v for v in project.results().functions if v.qualname == qualname]
    return [finding.code for finding in verdict.findings]


def test_a_registered_checks_project_fact_decides_every_function_again_when_it_changes(
    make_project: Callable[[dict[str, str | bytes]], Path],
) -> None:
    root = make_project({"app.py": APP, "other.py": OTHER})
    with registered(ProjectSwitchedHazard):
        project = Project.open(root, ProjectOptions(use_cache=False))
        check(project, "opened")
        assert "HY997" not in _codes(project, "f")
        # An edit of a module that app.py does not import: f and g are settled (the next
        # test shows such an edit keeps their verdicts), but the check's project fact
        # changed, so every function is decided again: f, g and switch.
        project.update(root / "other.py", SWITCHED_ON)
        check(project, "the switch defined")
        assert "HY997" in _codes(project, "f")
        assert "HY997" not in _codes(project, "g")
        assert project.analysis.decided_again == 3
        project.update(root / "other.py", OTHER)
        check(project, "the switch removed")
        assert "HY997" not in _codes(project, "f")


def test_an_edit_that_leaves_the_project_fact_as_it_was_keeps_the_settled_verdicts(
    make_project: Callable[[dict[str, str | bytes]], Path],
) -> None:
    """The fact compared, not the edit: a change of other.py that leaves the switch off
    decides again only what it reaches (its own function), not f and g."""
    root = make_project({"app.py": APP, "other.py": OTHER})
    with registered(ProjectSwitchedHazard):
        project = Project.open(root, ProjectOptions(use_cache=False))
        check(project, "opened")
        incremental = project.analysis.incremental_verdicts
        project.update(root / "other.py", OTHER.replace("return off", "return off + 1"))
        check(project, "other.py edited")
        assert project.analysis.incremental_verdicts == incremental + 1
        assert project.analysis.decided_again == 1
