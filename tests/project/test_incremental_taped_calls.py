"""Whether a function's calls are recorded on a gradient tape (`facts/taped_calls.py`) is read
from its callers, in other files: an edit there (a tape added or removed in a training step, a
function handed to a gradient check in a test, what the helper's call passes) must give the
verdicts a fresh analysis gives."""

from __future__ import annotations

import math
import sys
from pathlib import Path

from hybridize.analyzer.decisions.benefit import PAYBACK
from hybridize.analyzer.frameworks.call_costs import TENSORFLOW_CALL_COSTS
from hybridize.project import Project, ProjectOptions

sys.path.insert(0, str(Path(__file__).parent))
from test_incremental import check

_COSTS = TENSORFLOW_CALL_COSTS
_LINES = math.ceil(
    PAYBACK * _COSTS.compiled_overhead(2) / (2 * _COSTS.elementwise + _COSTS.python_operand)
)
"""Lines whose work pays untaped, not taped (`test_benefit_taped_calls.BETWEEN`)."""

OPS = (
    "import tensorflow as tf\n\n\ndef normalization(x, y):\n"
    + "    x = tf.sin(x) * y + 1.0\n" * _LINES
    + "    return x\n"
)

STEP = """\
import tensorflow as tf

from ops import normalization


def step(x, y):
    print("step")
    return normalization(x, y) * 2.0


for _ in range(1000):
    step(tf.ones((3, 3)), tf.ones((3, 3)))
"""

TAPED = STEP.replace(
    "    return normalization(x, y) * 2.0\n",
    "    with tf.GradientTape() as tape:\n"
    "        tape.watch(x)\n"
    "        out = normalization(x, y) * 2.0\n"
    "    return tape.gradient(out, x)\n",
)

CHECKS = """\
import tensorflow as tf

from ops import normalization


def check(f, x, y):
    return tf.test.compute_gradient(f, [x, y])


def test_normalization():
    check(normalization, tf.ones((3, 3)), tf.ones((3, 3)))
"""


def _benefit(project: Project) -> str:
    [verdict] = [v for v in project.results().functions if v.qualname == "normalization"]
    return verdict.benefit


def test_taped_calls_follow_edits_of_their_callers() -> None:
    files = {"ops.py": OPS, "step.py": STEP}
    project = Project.from_texts(files, ProjectOptions(use_cache=False))
    check(project, "opened")
    assert _benefit(project) == "high"
    edits = [
        ("step.py", TAPED, "the step differentiates it", "low"),
        ("step.py", STEP, "the tape removed", "high"),
        ("test_ops.py", CHECKS, "a test hands it to a gradient check through a helper", "low"),
        (
            "test_ops.py",
            CHECKS.replace("check(normalization,", "check(tf.sin,"),
            "the test hands another function",
            "high",
        ),
    ]
    for relpath, text, what, level in edits:
        project.update(relpath, text)
        check(project, what)
        assert _benefit(project) == level, what
