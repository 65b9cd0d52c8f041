"""HY443 reads, for a function whose handlers of an operation's error only raise again, the
`try`s its callers call it in and the bases of the exception it raises: an edit of a caller's
handler in another module, or of the raised class's bases in a third, must give the verdicts
of an analysis from scratch."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from hybridize.project import Project, ProjectOptions

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_incremental import check

ERRORS = """
class PickError(ValueError):
    pass
"""

PICK = """
import tensorflow as tf

from errors import PickError


def pick(x, i):
    try:
        return tf.gather(x, i) * 2.0
    except tf.errors.InvalidArgumentError as error:
        raise PickError("index out of range") from error
"""

USE = """
import tensorflow as tf

from pick import pick


def pick_or_default(x, i):
    try:
        return pick(x, i)
    except ValueError:
        return tf.zeros([])


pick_or_default(tf.range(4.0), tf.constant(2))
"""


def _flagged(project: Project) -> set[str]:
    return {
        v.qualname
        for v in project.results().functions
        if any(f.code == "HY443" for f in v.findings)
    }


def test_edits_of_a_callers_handler_and_of_the_raised_class_give_a_fresh_analysis(
    make_project: Callable[[dict[str, str | bytes]], Path],
) -> None:
    root = make_project({"errors.py": ERRORS, "pick.py": PICK, "use.py": USE})
    project = Project.open(root, ProjectOptions(use_cache=False), long_running=True)
    check(project, "opened")
    assert _flagged(project) == {"pick"}
    steps = (
        ("use.py", USE.replace("except ValueError:", "except KeyError:"), set()),
        ("use.py", USE, {"pick"}),
        ("use.py", USE.replace("except ValueError:", "except Exception:"), set()),
        ("use.py", USE, {"pick"}),
        ("errors.py", ERRORS.replace("(ValueError)", "(KeyError)"), set()),
        ("errors.py", ERRORS, {"pick"}),
    )
    for relpath, text, expected in steps:
        project.update(root / relpath, text)
        check(project, f"{relpath} edited")
        assert _flagged(project) == expected, text
