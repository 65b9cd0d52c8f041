"""HY441 reads where the whole project stores what a variable update returns
(`stored_updates`): each method's stores are kept across incremental updates with the
resolved calls they were read from (`scan_memo.per_function`), so an edit that makes or
unmakes such a store in another module than the reading method's, or that moves the storing
method's lines, must give the verdicts of an analysis from scratch.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from hybridize.project import Project, ProjectOptions

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_incremental import check

BASE = """\
import tensorflow as tf


class Base(tf.keras.layers.Layer):
    def call(self, x):
        return x + self.bias
"""

STORED = "self.bias = bias.assign(tf.ones(input_shape[-1:]))"
KEPT = "self.bias = bias"

SHIFTED = f"""\
import tensorflow as tf

from base import Base


class Shifted(Base):
    def build(self, input_shape):
        bias = self.add_weight("bias", shape=input_shape[-1:], initializer="zeros")
        {STORED}

    def scale(self, x):
        return x * 2


for _ in range(10):
    Shifted()(tf.ones([2, 3]))
"""


def _hy441(project: Project) -> bool:
    [verdict] = [v for v in project.results().functions if v.qualname == "Base.call"]
    return any(f.code == "HY441" for f in verdict.findings)


def test_edits_of_the_storing_module_give_the_verdicts_of_a_fresh_analysis(
    make_project: Callable[[dict[str, str | bytes]], Path],
) -> None:
    """`Base.call` reads `self.bias`, which `Shifted.build` (another module) sets to what
    `assign` gives: HY441. Keeping the variable itself withdraws it, the update again brings
    it back; an edit of the module's other method, within a line or moving `build`'s lines,
    keeps it. A stale store of either kind would differ from the analysis from scratch. The
    edits that keep the stores keep the phase incremental; those that change them change
    the check's project fact, and every function is decided again."""
    root = make_project({"base.py": BASE, "shifted.py": SHIFTED})
    project = Project.open(root, ProjectOptions(use_cache=False), long_running=True)
    check(project, "opened")
    assert _hy441(project)
    edits = [
        (SHIFTED.replace(STORED, KEPT), False, False),
        (SHIFTED, True, False),
        (SHIFTED.replace("x * 2", "x * 3"), True, True),
        (SHIFTED.replace("class Shifted", "# a comment\n\n\nclass Shifted"), True, True),
        (SHIFTED.replace("class Shifted", "\nclass Shifted").replace(STORED, KEPT), False, False),
        (SHIFTED, True, False),
    ]
    for text, expected, incremental in edits:
        before = project.analysis.incremental_verdicts
        project.update(root / "shifted.py", text)
        check(project, "shifted.py edited")
        assert project.analysis.incremental_verdicts == before + incremental, text
        assert _hy441(project) is expected, text
