"""While a preliminary result of one file is solved, the rest of a large project is summarised
on the worker processes (`Project._summarize_rest_meanwhile`); the whole solve after it takes
those summaries, except those of files edited since, and gives what a project opened fresh on
the same texts gives."""

from __future__ import annotations

import sys
from pathlib import Path

from hybridize.project import PRELIMINARY_MIN_BYTES, Project, ProjectOptions

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))
from synthetic_project import generate  # noqa: E402

EDITED = "synthproj/m0003.py"


def test_the_whole_solve_takes_the_summaries_made_meanwhile_but_an_edited_files(
    tmp_path: Path,
) -> None:
    generate(tmp_path, 8000)  # more files than PARALLEL_THRESHOLD
    assert sum(len(p.read_bytes()) for p in tmp_path.rglob("*.py")) > PRELIMINARY_MIN_BYTES
    options = ProjectOptions(use_cache=False, jobs=2)
    project = Project.open(tmp_path, options)
    preliminary = project.preliminary_file_result(tmp_path / "synthproj" / "m0000.py")
    assert preliminary is not None and preliminary.preliminary
    assert project._meanwhile is not None  # the rest is being summarised
    pending = {relpath for relpath, _ in project._meanwhile[0]}
    assert EDITED in pending
    # An edit while they are summarised: its summary made meanwhile is of the old text.
    edited = (tmp_path / EDITED).read_text(encoding="utf-8")
    edited = edited.replace("def ", "def renamed_", 1)
    project.update(tmp_path / EDITED, edited)
    whole = project.results()
    assert project._meanwhile is None
    fresh = Project.open(tmp_path, options)
    fresh.update(tmp_path / EDITED, edited)
    assert any("renamed_" in v.qualname for v in whole.functions if v.file == EDITED)
    assert whole.functions == fresh.results().functions
