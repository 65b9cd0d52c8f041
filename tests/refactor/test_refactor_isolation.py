"""A file whose planning kills its worker process costs that file's plan, not the run."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from pathlib import Path

import pytest

from hybridize.project import Project, ProjectOptions
from hybridize.refactor import file_plan
from hybridize.refactor.plan import PARALLEL_THRESHOLD, plan_refactorings
from hybridize.refactor.selection import Selection

GOOD = "import tensorflow as tf\n\n\ndef f(x):\n    return tf.square(x)\n\n\nf(tf.constant(1.0))\n"


@pytest.mark.usefixtures("forked_workers")
def test_a_crash_while_planning_one_file_leaves_the_others_planned(
    make_project: Callable[[dict[str, str | bytes]], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    count = PARALLEL_THRESHOLD + 2
    root = make_project({f"m{i:02}.py": GOOD for i in range(count)})
    result = Project.open(root, ProjectOptions(use_cache=False, jobs=1)).results()
    real = file_plan.plan_file

    def crashing(relpath: str, *args: object, **kwargs: object) -> object:
        if relpath == "m07.py":
            os.kill(os.getpid(), signal.SIGSEGV)
        return real(relpath, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(file_plan, "plan_file", crashing)
    plan = plan_refactorings(result, Selection(include_low_benefit=True), jobs=2)
    assert sorted(f.file for f in plan.files) == [f"m{i:02}.py" for i in range(count) if i != 7]
    assert [(n.file, "SIGSEGV" in n.message) for n in plan.notices] == [("m07.py", True)]
