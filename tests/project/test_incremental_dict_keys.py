"""HY409 reads the keys written anywhere in the project: a dict argument is followed only when
the project writes keys of two kinds that do not order (`_mixes_key_kinds`). The literal
keys' kinds are kept per module across incremental updates and the other keys are typed at
each solve, so an edit within one line that changes a key's kind, in the module of the
compiled function or in another one, must give the verdicts of an analysis from scratch.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from hybridize.project import Project, ProjectOptions

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "analyzer"))
from test_hy409_unordered_dict_keys import MEMOIZED
from test_incremental import check

_SPLIT = MEMOIZED.index("\n\ndef update_fn")
DEFERRED = MEMOIZED[:_SPLIT].lstrip() + "\n"
"""The TFCO pattern's memo class (its tuple key a display, typed by the evaluator)."""
STEPS = (
    "import tensorflow as tf\n\nfrom deferred import GLOBAL_STEP_KEY, Deferred\n"
    + MEMOIZED[_SPLIT:].replace("memoizer[GLOBAL_STEP_KEY]", 'memoizer["global_step"]')
    + "\n\nfor _ in range(100):\n    run()\n"
)
"""Its step function, keyed by a string literal, in a module of its own."""


def _has_hy409(project: Project) -> bool:
    [verdict] = [v for v in project.results().functions if v.qualname == "update_fn"]
    return any(f.code == "HY409" for f in verdict.findings)


def test_edits_changing_a_keys_kind_give_the_verdicts_of_a_fresh_analysis(
    make_project: Callable[[dict[str, str | bytes]], Path],
) -> None:
    """A tuple key (a display, typed by the evaluator) in `deferred.py` and a number (not a
    key: it indexes as often) in `steps.py`: one kind, no dict is followed. The number made
    a string literal gives two kinds and HY409; the tuple made a string leaves one kind, and
    made a tuple again gives two. A stale kind of either module's keys would miss HY409
    where two kinds appear. Every edit stays within its line, and every phase is
    incremental."""
    numbered = STEPS.replace('memoizer["global_step"]', "memoizer[0]")
    string_key = DEFERRED.replace("key = (Deferred, self)", 'key = "deferred"')
    root = make_project({"deferred.py": DEFERRED, "steps.py": numbered})
    project = Project.open(root, ProjectOptions(use_cache=False), long_running=True)
    check(project, "opened")
    assert not _has_hy409(project)
    edits = [
        ("steps.py", STEPS, True),
        ("steps.py", numbered, False),
        ("deferred.py", string_key, False),
        ("steps.py", STEPS, False),
        ("deferred.py", DEFERRED, True),
        ("deferred.py", DEFERRED.replace("key = (Deferred, self)", "key = ('d', 1)"), True),
        ("steps.py", STEPS.replace('memoizer["global_step"]', "memoizer[('g', 0)]"), False),
    ]
    for relpath, text, expected in edits:
        before = project.analysis.incremental_verdicts
        project.update(root / relpath, text)
        check(project, f"{relpath} edited")
        assert project.analysis.incremental_verdicts == before + 1, relpath
        assert _has_hy409(project) is expected, text
