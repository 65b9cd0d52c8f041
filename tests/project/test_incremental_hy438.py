"""HY438 reads the `__eq__` of the receiver's class through its project bases, and of the
classes of the objects a function receives, which may live in another module: an edit of a
base's `__eq__` there (value comparison, identity test, removed; its `__hash__` removed:
then HY409's) must give the verdicts of
an analysis from scratch, for the methods of a subclass in another module and for a
function taking an instance."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from hybridize.project import Project, ProjectOptions

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_incremental import check

BASE = """
class Named:
    def __init__(self, name):
        self.name = name

    def __eq__(self, other):
        return isinstance(other, Named) and self.name == other.name

    def __hash__(self):
        return hash(self.name)
"""

LIMITS = """
import tensorflow as tf

from base import Named


class Limit(Named):
    def inside(self, x):
        return tf.reduce_sum(tf.sigmoid(x * 2.0))


def scaled(x, limit):
    return tf.reduce_sum(tf.sigmoid(x * 3.0))


limit = Limit("a")
for _ in range(100):
    limit.inside(tf.ones((4, 2)))
    scaled(tf.ones((4, 2)), limit)
"""


def _flagged(project: Project) -> set[str]:
    return {
        v.qualname
        for v in project.results().functions
        if any(f.code == "HY438" for f in v.findings)
    }


def test_edits_of_a_bases_eq_in_another_module_give_a_fresh_analysis(
    make_project: Callable[[dict[str, str | bytes]], Path],
) -> None:
    root = make_project({"base.py": BASE, "limits.py": LIMITS})
    project = Project.open(root, ProjectOptions(use_cache=False), long_running=True)
    check(project, "opened")
    both = {"Limit.inside", "scaled"}
    assert _flagged(project) == both
    identity = BASE.replace(
        "return isinstance(other, Named) and self.name == other.name", "return self is other"
    )
    removed = BASE.replace("    def __eq__(self, other):\n", "    def equals(self, other):\n")
    unhashable = BASE.replace("    def __hash__(self):\n        return hash(self.name)\n", "")
    assert unhashable != BASE
    steps = ((identity, set()), (BASE, both), (removed, set()), (BASE, both), (unhashable, set()))
    for text, expected in steps:
        project.update(root / "base.py", text)
        check(project, "base.py edited")
        assert _flagged(project) == expected, text
