"""HY439 through a decorator's wrapper: the wrapper that a project decorator (in another
module) returns runs at every call of the function it decorates, so an edit of the decorator
module that makes or unmakes a read of the execution mode in the wrapper must give the
verdicts of an analysis from scratch for the callers of the decorated function.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from hybridize.project import Project, ProjectOptions

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_incremental import check

READ = "if tf.executing_eagerly():"
NO_READ = "if len(args) > 0:"

DECORATORS = f"""\
import tensorflow as tf


def graph_aware(func):
    compiled = tf.function(func)

    def wrapper(*args):
        {READ}
            return compiled(*args)
        return func(*args)

    return wrapper
"""

MODEL = """\
import tensorflow as tf

from decorators import graph_aware


@graph_aware
def integrand(x):
    return x * 2.0


def f(x):
    return tf.reduce_sum(integrand(x))


def g(x):
    return f(x) + 1.0


g(tf.ones([3]))
"""


def _hy439(project: Project) -> bool:
    """Whether `f` and its caller `g` have HY439 (both or neither)."""
    found = {
        v.qualname: any(f.code == "HY439" for f in v.findings)
        for v in project.results().functions
        if v.qualname in ("f", "g")
    }
    assert found["f"] == found["g"], found
    return found["f"]


def test_edits_of_the_decorator_module_give_the_verdicts_of_a_fresh_analysis(
    make_project: Callable[[dict[str, str | bytes]], Path],
) -> None:
    """`f` calls `integrand`, wrapped by `graph_aware` (another module) in a function that
    reads the mode: HY439 (and its caller `g`). Removing the read withdraws it, putting it
    back brings it back, a comment keeps it."""
    root = make_project({"decorators.py": DECORATORS, "model.py": MODEL})
    project = Project.open(root, ProjectOptions(use_cache=False), long_running=True)
    check(project, "opened")
    assert _hy439(project)
    for text, expected in [
        (DECORATORS.replace(READ, NO_READ), False),
        (DECORATORS, True),
        (
            DECORATORS.replace("compiled = tf.function(func)", "compiled = tf.function(func)  # c"),
            True,
        ),
    ]:
        project.update(root / "decorators.py", text)
        check(project, "decorators.py edited")
        assert _hy439(project) is expected, text
