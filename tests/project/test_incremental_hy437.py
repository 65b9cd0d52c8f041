"""HY437 reads what the enclosing function's body does with a nested `def` (its summary
hook's `NestedDefinition`, recorded on the enclosing function): an edit of that body outside
the nested `def` (a rebinding of what it closes over added after it, its loop call removed,
a change in another function of the module that moves lines) leaves the nested function's
own summary as it was, and must still give the verdicts of an analysis from scratch."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from hybridize.project import Project, ProjectOptions

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_incremental import check

TRAIN = """\
import tensorflow as tf


def helper(x):
    return tf.reduce_sum(x)


def train(x, epochs):
    lr = 0.1

    def step(y):
        return tf.reduce_sum(tf.sin(y) * lr)

    for _ in range(epochs):
        step(x)


train(tf.ones([8, 8]), 100)
"""


def _hy437(project: Project) -> bool:
    (step,) = [v for v in project.results().functions if v.qualname == "train.step"]
    return any(f.code == "HY437" for f in step.findings)


def test_edits_of_the_enclosing_body_give_the_verdicts_of_a_fresh_analysis(
    make_project: Callable[[dict[str, str | bytes]], Path],
) -> None:
    root = make_project({"train.py": TRAIN})
    project = Project.open(root, ProjectOptions(use_cache=False), long_running=True)
    check(project, "opened")
    assert not _hy437(project)
    loop = "        step(x)\n"
    for text, expected in [
        (TRAIN.replace(loop, loop + "        lr = lr * 0.5\n"), True),  # rebound after the def
        (TRAIN, False),
        (TRAIN.replace("    for _ in range(epochs):\n" + loop, "    return step\n"), True),
        (TRAIN, False),
        (TRAIN.replace(loop, "        pass\n    step(x)\n"), True),  # called after the loop only
        (
            TRAIN.replace(
                "    return tf.reduce_sum(x)\n", "    y = x\n    return tf.reduce_sum(y)\n"
            ),
            False,
        ),
        (
            TRAIN.replace("    lr = 0.1\n", "    lr = 0.1\n    lr = lr * 2.0\n"),
            False,
        ),  # before the def
    ]:
        project.update(root / "train.py", text)
        check(project, "train.py edited")
        assert _hy437(project) is expected, text
