"""Which functions the proposed changes run as graphs (`BenefitModel.inside_proposed_graphs`)
is read of every verdict of the project: a callee whose only caller is proposed runs inside
that caller's graph. After an edit, the last phase's set is taken over and only the edited
scope's verdicts are asked again: the verdicts equal a fresh analysis through edits that
make a caller stop and start being proposed, in this module and in another, and an edit asks
no verdict outside its scope."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from hybridize.analyzer.decisions import benefit
from hybridize.project import Project, ProjectOptions

sys.path.insert(0, str(Path(__file__).parent))
from test_incremental import check

WORK = "    y = tf.nn.relu(tf.matmul(y, y)) + tf.sin(y) * tf.cos(y)\n" * 3

PROGRAM = (
    "import tensorflow as tf\n\n\n"
    "def helper(x):\n    return tf.nn.relu(tf.matmul(x, x)) * 2.0\n\n\n"
    "def step(x):\n    y = helper(x)\n" + WORK + "    return tf.reduce_sum(tf.matmul(y, y))\n\n\n"
    "for _ in range(1000):\n    step(tf.ones((64, 64)))\n"
)
"""`step` pays compiled (much work, in a loop); `helper`, little work, runs only inside it."""

PRINTING = PROGRAM.replace("    y = helper(x)\n", "    y = helper(x); print(y)\n")
"""`step` prints: no longer proposed, and `helper` runs eagerly again."""

FILLER = (
    "import tensorflow as tf\n\n\n"
    + "".join(f"def f{i}(x):\n    return tf.reduce_sum(x) + {i}\n\n\n" for i in range(40))
    + "".join(f"f{i}(tf.ones((2,)))\n" for i in range(40))
)


def _inside(project: Project, file: str) -> bool:
    helper = next(v for v in project.results().functions if v.key == f"{file}::helper")
    return any("inside their graphs" in reason for reason in helper.benefit_reasons)


def test_a_callee_inside_a_proposed_caller_follows_edits_of_it_here_and_elsewhere(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked: list[object] = []
    runs_as_graph = benefit._runs_as_proposed_graph

    def counted(verdict):  # type: ignore[no-untyped-def]
        asked.append(verdict)
        return runs_as_graph(verdict)

    monkeypatch.setattr(benefit, "_runs_as_proposed_graph", counted)
    texts = {"a.py": PROGRAM, "b.py": PROGRAM, "filler.py": FILLER}
    project = Project.from_texts(texts, ProjectOptions(use_cache=False))
    check(project, "opened")
    assert _inside(project, "a.py") and _inside(project, "b.py")
    everything = len(project.results().functions)
    edits = [("a.py", PRINTING), ("b.py", PRINTING), ("a.py", PROGRAM), ("b.py", PROGRAM)]
    for solves, (relpath, text) in enumerate(edits, start=1):
        asked.clear()
        project.update(relpath, text)
        project.results()
        # the edited scope's verdicts are asked again, not the project's
        assert 0 < len(asked) < everything / 4, len(asked)
        check(project, f"{relpath} {'prints' if text is PRINTING else 'as written'}")
        assert project.analysis.incremental_solves == solves
        assert _inside(project, relpath) == (text is PROGRAM)
    assert _inside(project, "a.py") and _inside(project, "b.py")
