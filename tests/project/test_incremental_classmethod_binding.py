"""A classmethod read off its class binds its call's arguments after `cls`; a staticmethod
or a plain function read off the class does not (evaluator: a "method" atom or a "func"
one). An edit of the callee's decorator in another module (`@classmethod` added, removed,
swapped for `@staticmethod`) must give the verdicts of an analysis from scratch for its
callers and for the callee, whose parameters then receive other arguments."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from hybridize.project import Project, ProjectOptions

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_incremental import check

HELPERS = """
import tensorflow as tf


class Helper:
    @classmethod
    def scaled(cls, x, factor):
        return tf.reduce_sum(x) * factor
"""

CALLERS = """
import tensorflow as tf

from helpers import Helper


def total(x):
    return Helper.scaled(x, 2.0)


for _ in range(100):
    total(tf.ones((4, 2)))
"""


def _tensor_params(project: Project) -> dict[str, bool | None]:
    verdicts = {v.qualname: v for v in project.results().functions}
    return {p.name: p.is_tensor for p in verdicts["Helper.scaled"].facts.params}


def test_edits_of_a_callees_classmethod_decorator_give_a_fresh_analysis(
    make_project: Callable[[dict[str, str | bytes]], Path],
) -> None:
    root = make_project({"helpers.py": HELPERS, "main.py": CALLERS})
    project = Project.open(root, ProjectOptions(use_cache=False), long_running=True)
    check(project, "opened")
    assert _tensor_params(project)["x"] is True  # `x` gets the tensor, after `cls`
    static = HELPERS.replace(
        "    @classmethod\n    def scaled(cls, x, factor)",
        "    @staticmethod\n    def scaled(cls, x, factor)",
    )
    plain = HELPERS.replace("    @classmethod\n", "")
    assert static != HELPERS and plain != HELPERS
    for text, tensor_x in ((static, False), (HELPERS, True), (plain, False), (HELPERS, True)):
        project.update(root / "helpers.py", text)
        check(project, "helpers.py edited")
        # read off the class, a staticmethod or a plain function binds the tensor to `cls`
        assert _tensor_params(project)["x"] is tensor_x, text
