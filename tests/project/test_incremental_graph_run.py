"""A function handed to Keras's `Model.compile(loss=...)` (`facts/graph_run_callables.py`) is
rated by that hand-over (`BenefitModel._with_graph_run_use`), which lives in another
function's body and is no call edge: an edit of that body that makes or unmakes the
hand-over must give the verdicts of an analysis from scratch (`verdict_scope.seeds` decides
the handed function again)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from hybridize.project import Project, ProjectOptions

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_incremental import check

LOSSES = """\
import tensorflow as tf


def _loss(y, p):
    return tf.reduce_mean(tf.square(y - p))
"""

MODEL = """\
import tensorflow as tf

from losses import _loss


def train(x, y):
    model = tf.keras.Sequential([tf.keras.layers.Dense(2)])
    model.compile(optimizer="sgd", HANDED)
    model.fit(x, y, epochs=3)
    return model
"""

TESTS = """\
import tensorflow as tf

from losses import _loss


def test_loss():
    assert _loss(tf.ones((2,)), tf.ones((2,))) is not None
"""


def _benefit(project: Project) -> str:
    found = {v.qualname: v.benefit for v in project.results().functions}
    return found["_loss"]


def test_making_and_unmaking_a_hand_over_gives_a_fresh_analysis_s_verdicts(
    make_project: Callable[[dict[str, str | bytes]], Path],
) -> None:
    """`_loss` is only called by a test (`low`) until `train` hands it to
    `compile(loss=_loss)` (`none`: run inside Keras' graph); handing it as a metric keeps
    `none`; handing a string instead brings back `low`. Each edit of `model.py` alone."""
    root = make_project(
        {
            "losses.py": LOSSES,
            "model.py": MODEL.replace("HANDED", 'loss="mse"'),
            "test_losses.py": TESTS,
        }
    )
    project = Project.open(root, ProjectOptions(use_cache=False), long_running=True)
    check(project, "opened")
    assert _benefit(project) == "low"
    for handed, expected in [
        ("loss=_loss", "none"),
        ('loss="mse", metrics=[_loss]', "none"),
        ('loss="mse"', "low"),
    ]:
        project.update(root / "model.py", MODEL.replace("HANDED", handed))
        check(project, f"model.py: {handed}")
        assert _benefit(project) == expected, handed


HEAVY = (
    "import tensorflow as tf\n\n\n"
    "def nll(x):\n" + "".join("    x = tf.sin(x) + 1.0\n" for _ in range(40)) + "    return x\n"
)

IMPORTING_TEST = """\
import tensorflow as tf

from pkg.losses import nll


def test_nll():
    assert nll(tf.ones((3,))) is not None
"""


def test_importing_a_public_function_by_its_path_gives_a_fresh_analysis_s_verdicts(
    make_project: Callable[[dict[str, str | bytes]], Path],
) -> None:
    """`pkg.losses.nll`, called by no code, is `low` ("no call site") until a test imports it
    by its package path and calls it (`high`: rule "public_function"), and `low` again once
    the test imports it relatively through a private module instead."""
    root = make_project(
        {
            "pkg/__init__.py": "",
            "pkg/losses.py": HEAVY,
            "pkg/_wiring.py": "from .losses import nll\n",
            "tests/test_nll.py": "def test_nothing():\n    pass\n",
        }
    )
    project = Project.open(root, ProjectOptions(use_cache=False), long_running=True)
    check(project, "opened")
    for text, expected in [
        (IMPORTING_TEST, "high"),
        (IMPORTING_TEST.replace("pkg.losses", "pkg._wiring"), "low"),
        (IMPORTING_TEST, "high"),
    ]:
        project.update(root / "tests/test_nll.py", text)
        check(project, "tests/test_nll.py edited")
        found = {v.qualname: v.benefit for v in project.results().functions}
        assert found["nll"] == expected, text
