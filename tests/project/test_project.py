"""The in-memory `Project`: updates, removals, buffers over disk, plans equal to the CLI's."""

from __future__ import annotations

import ast
import gc
import json
import shutil
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from hybridize.analyzer.cache import SummaryCache
from hybridize.cli import main
from hybridize.model import AnalysisResult
from hybridize.progress import ProgressStep, Stage
from hybridize.project import (
    Project,
    ProjectOptions,
    encode_buffer,
    load_summary_hooks,
    summarize_raw,
)
from hybridize.refactor import Selection, apply_plan, plan_refactorings, read_snapshot

MakeProject = Callable[[dict[str, str | bytes]], Path]


def one_shot(
    root: Path, *, infer_input_signatures: bool = False, jobs: int | None = None
) -> AnalysisResult:
    """The result of `root` analysed once from its files, as `hybridize analyze` does it
    (no cache: nothing of another analysis serves it)."""
    options = ProjectOptions(infer_input_signatures, use_cache=False, jobs=jobs)
    return Project.open(root, options, long_running=False).results()


EVERY_CHANGE = ProjectOptions(include_low_benefit=True)
"""These small programs call each function once: every safe change is planned, the benefit
gate aside (it has tests of its own)."""

MAIN = """\
    import tensorflow as tf

    from helpers import scale


    def total(x):
        return tf.reduce_sum(scale(x))


    def report(x):
        print(x)
        return tf.reduce_sum(x)


    if __name__ == "__main__":
        value = tf.constant([1.0, 2.0])
        total(value)
        report(value)
"""

HELPERS = """\
    import tensorflow as tf


    def scale(x):
        return x * 2.0
"""

HELPERS_WITH_EFFECT = """\
import tensorflow as tf

LOG = []


def scale(x):
    LOG.append(x)
    return x * 2.0
"""


def verdicts_by_key(functions: object) -> dict[str, tuple[bool, str | None]]:
    assert isinstance(functions, tuple)
    return {f.key: (f.passes, f.transformation) for f in functions}


def test_results_equal_the_cli_analysis(make_project: MakeProject) -> None:
    root = make_project({"main.py": MAIN, "helpers.py": HELPERS})
    project = Project.open(root, ProjectOptions(use_cache=False, include_low_benefit=True))
    expected = one_shot(root)
    assert project.results().functions == expected.functions
    assert verdicts_by_key(project.results().functions)["main.py::total"] == (
        True,
        "convert_to_hybrid",
    )


def test_a_large_project_is_summarised_on_several_processes(
    make_project: MakeProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("hybridize.analyzer.summaries.file_summaries.PARALLEL_THRESHOLD", 2)
    root = make_project({"main.py": MAIN, "helpers.py": HELPERS, "bad.py": "def f(:\n"})
    project = Project.open(root, ProjectOptions(use_cache=False, jobs=2, include_low_benefit=True))
    expected = one_shot(root, jobs=1)
    assert project.results().functions == expected.functions
    assert project.results().errors == expected.errors
    assert project.files == ["bad.py", "helpers.py", "main.py"]


def test_summaries_made_on_several_processes_are_cached_as_they_came_back(
    make_project: MakeProject, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A worker's summary comes back pickled as the cache's entry and is stored as it is:
    each entry reads back as the summary the project solved with, and a second project on
    the same files is served by them (no file summarised again) with the same verdicts."""
    monkeypatch.setattr("hybridize.analyzer.summaries.file_summaries.PARALLEL_THRESHOLD", 2)
    root = make_project({"main.py": MAIN, "helpers.py": HELPERS, "bad.py": "def f(:\n"})
    cache = SummaryCache.open(tmp_path / "cache")
    first = Project.open(root, ProjectOptions(jobs=2), long_running=False, cache=cache)
    result = first.results()
    hooks = load_summary_hooks()
    for relpath in first.files:
        raw = (root / relpath).read_bytes()
        assert cache.get(raw, relpath) == summarize_raw(relpath, raw, hooks)
    monkeypatch.setattr(
        "hybridize.project.summarize_raw", lambda *_: pytest.fail("summarised again")
    )
    shutil.rmtree(cache.directory / "results")  # the whole result is not what serves it
    second = Project.open(root, ProjectOptions(jobs=2), long_running=False, cache=cache)
    assert second.results().functions == result.functions
    assert second.results().errors == result.errors


@pytest.mark.parametrize("jobs", [1, 2])
def test_progress_of_an_analysis_from_scratch_and_none_for_an_edit(
    make_project: MakeProject, monkeypatch: pytest.MonkeyPatch, jobs: int
) -> None:
    monkeypatch.setattr("hybridize.analyzer.summaries.file_summaries.PARALLEL_THRESHOLD", 2)
    root = make_project({"main.py": MAIN, "helpers.py": HELPERS, "bad.py": "def f(:\n"})
    steps: list[ProgressStep] = []
    project = Project.open(root, ProjectOptions(use_cache=False, jobs=jobs), progress=steps.append)
    functions = len(project.results().functions)
    summaries = [(s.done, s.total) for s in steps if s.stage is Stage.SUMMARIES]
    assert summaries == [(0, 3), (1, 3), (2, 3), (3, 3)]  # the broken file counts too
    assert [s.stage for s in steps if s.stage is Stage.FACTS] == [Stage.FACTS]
    verdicts = [s for s in steps if s.stage is Stage.VERDICTS]
    assert verdicts[-1].done == verdicts[-1].total >= functions > 0
    assert [s.stage for s in steps] == sorted((s.stage for s in steps), key=list(Stage).index)
    percentages = [s.percentage for s in steps]
    assert percentages == sorted(percentages) and percentages[-1] == 100
    steps.clear()
    project.update("helpers.py", textwrap.dedent(HELPERS).replace("2.0", "3.0"))
    project.results()
    assert steps == []  # one file summarised again, its facts updated in place: quick
    assert project.analysis.incremental_solves == 1
    project.update("helpers.py", textwrap.dedent(HELPERS) + "\n\ndef more(x):\n    return x\n")
    project.results()  # a new function: its interface changed, solved from scratch
    assert [s.stage for s in steps][:1] == [Stage.FACTS] and steps[-1].percentage == 100


def test_results_are_recomputed_only_after_a_change(make_project: MakeProject) -> None:
    root = make_project({"main.py": MAIN, "helpers.py": HELPERS})
    project = Project.open(root, EVERY_CHANGE)
    first = project.results()
    assert project.results() is first
    project.update("helpers.py", HELPERS_WITH_EFFECT)
    assert project.results() is not first


def test_a_buffer_overrides_the_disk_and_reaches_its_importers(make_project: MakeProject) -> None:
    root = make_project({"main.py": MAIN, "helpers.py": HELPERS})
    project = Project.open(root, EVERY_CHANGE)
    assert verdicts_by_key(project.results().functions)["main.py::total"][0] is True
    # The helper now mutates a module-level list: its caller has a side effect too.
    assert project.update(root / "helpers.py", HELPERS_WITH_EFFECT) == "helpers.py"
    assert verdicts_by_key(project.results().functions)["main.py::total"][0] is False
    assert "LOG" not in (root / "helpers.py").read_text()  # the disk is untouched
    assert project.buffers == {"helpers.py"}
    project.reload("helpers.py")  # the buffer is closed: the disk counts again
    assert verdicts_by_key(project.results().functions)["main.py::total"][0] is True
    assert project.buffers == frozenset()


def test_a_buffer_is_summarised_without_the_summary_cache(make_project: MakeProject) -> None:
    """An editor's text is new at nearly every keystroke: its summary is neither stored nor
    looked up (a pickle and a write per change), while files read from disk are cached."""
    from hybridize.analyzer.cache import SummaryCache

    root = make_project({"main.py": MAIN, "helpers.py": HELPERS})
    project = Project.open(root, ProjectOptions())
    project.results()
    cache = SummaryCache.open()
    assert cache.get((root / "helpers.py").read_bytes(), "helpers.py") is not None
    project.update(root / "helpers.py", HELPERS_WITH_EFFECT)
    assert verdicts_by_key(project.results().functions)["main.py::total"][0] is False
    assert cache.get(encode_buffer(HELPERS_WITH_EFFECT), "helpers.py") is None


def test_update_equals_a_fresh_analysis_of_the_same_texts(
    make_project: MakeProject, tmp_path: Path
) -> None:
    root = make_project({"main.py": MAIN, "helpers.py": HELPERS})
    project = Project.open(root, EVERY_CHANGE)
    project.update("helpers.py", HELPERS_WITH_EFFECT)
    other = tmp_path / "other"
    shutil.copytree(root, other)
    (other / "helpers.py").write_text(HELPERS_WITH_EFFECT)
    expected = one_shot(other)
    assert project.results().functions == expected.functions


def test_remove_and_add_files(make_project: MakeProject) -> None:
    root = make_project({"main.py": MAIN, "helpers.py": HELPERS})
    project = Project.open(root, EVERY_CHANGE)
    assert project.remove("helpers.py") == "helpers.py"
    assert project.files == ["main.py"]
    keys = verdicts_by_key(project.results().functions)
    assert "helpers.py::scale" not in keys and "main.py::total" in keys
    # A new file that exists only as a buffer is part of the project.
    extra = "import tensorflow as tf\n\n\ndef f(x):\n    return x\n"
    assert project.update("extra.py", extra) == "extra.py"
    assert "extra.py::f" in verdicts_by_key(project.results().functions)
    # A deleted file that is reloaded disappears.
    (root / "main.py").unlink()
    project.reload("main.py")
    assert project.files == ["extra.py"]


def test_files_outside_the_project_are_not_taken(make_project: MakeProject) -> None:
    root = make_project({"main.py": MAIN})
    project = Project.open(root, EVERY_CHANGE)
    assert project.update(root.parent / "elsewhere.py", "x = 1\n") is None
    assert project.update("notes.txt", "x") is None
    assert project.update(".venv/lib/m.py", "x = 1\n") is None
    assert project.file_result("missing.py") is None
    assert project.files == ["main.py"]


def test_a_syntax_error_is_a_file_error_and_the_rest_is_analysed(
    make_project: MakeProject,
) -> None:
    root = make_project({"main.py": MAIN, "helpers.py": HELPERS})
    project = Project.open(root, EVERY_CHANGE)
    project.update("helpers.py", "def scale(x:\n")
    result = project.file_result("helpers.py")
    assert result is not None and result.error is not None
    assert "SyntaxError" in result.error.message
    assert result.verdicts == () and result.plan is None
    assert "main.py::report" in verdicts_by_key(project.results().functions)


def test_file_plan_equals_the_refactor_plan_on_disk(make_project: MakeProject) -> None:
    root = make_project({"main.py": MAIN, "helpers.py": HELPERS})
    project = Project.open(root, EVERY_CHANGE)
    analysed = one_shot(root)
    expected = plan_refactorings(
        analysed, Selection(include_low_benefit=True), snapshot=read_snapshot(root)
    )
    for name in ("main.py", "helpers.py"):
        found = project.file_result(name)
        assert found is not None
        wanted = next((f for f in expected.files if f.file == name), None)
        assert (found.plan.new_text if found.plan else None) == (
            wanted.new_text if wanted else None
        )
    assert project.plan().refactored_files() == expected.refactored_files()
    main_plan = project.file_result("main.py")
    assert main_plan is not None and main_plan.plan is not None
    assert "@tf.function\ndef total(x):" in main_plan.plan.new_text


def test_file_plan_of_a_buffer_equals_the_cli_refactor_of_that_text(
    make_project: MakeProject, tmp_path: Path
) -> None:
    root = make_project({"main.py": MAIN, "helpers.py": HELPERS})
    project = Project.open(root, EVERY_CHANGE)
    buffer = (
        textwrap.dedent(MAIN).replace("print(x)\n", "")
        + "\n\ndef more(x):\n    return total(x) * 3.0\n\n\nmore(tf.ones([2]))\n"
    )
    project.update("main.py", buffer)
    found = project.file_result("main.py")
    assert found is not None and found.plan is not None
    other = tmp_path / "cli-copy"
    shutil.copytree(root, other)
    (other / "main.py").write_bytes(encode_buffer(buffer))
    outcome = CliRunner().invoke(
        main, ["refactor", str(other), "--apply", "--no-cache", "--include-low-benefit"]
    )
    assert outcome.exit_code == 0, outcome.output
    written = (other / "main.py").read_text()
    assert found.plan.new_text == written
    ast.parse(written)
    assert written != buffer  # something was planned: the comparison says something
    assert (root / "main.py").read_text() == textwrap.dedent(MAIN)


def test_selection_options_filter_the_plan(make_project: MakeProject) -> None:
    root = make_project({"main.py": MAIN, "helpers.py": HELPERS})
    project = Project.open(root, EVERY_CHANGE)
    found = project.file_result("main.py")
    assert found is not None and found.plan is not None
    assert [c.qualname for c in found.plan.changes] == ["total"]
    project.set_options(ProjectOptions(ignore=("*::total",), include_low_benefit=True))
    ignored = project.file_result("main.py")
    assert ignored is not None and ignored.plan is None
    project.set_options(
        ProjectOptions(select=("HY011",), include_low_benefit=True)
    )  # removals only: none here
    assert project.plan().files == ()


def test_function_plan_and_ignore_comment(make_project: MakeProject) -> None:
    root = make_project({"main.py": MAIN, "helpers.py": HELPERS})
    project = Project.open(root, EVERY_CHANGE)
    found = project.file_result("main.py")
    assert found is not None
    total = found.verdict("total")
    assert total is not None and total.passes
    alone = project.function_plan("main.py", "total")
    assert alone is not None and [c.qualname for c in alone.changes] == ["total"]
    # Asked again for the same texts (an editor's cursor), it is not planned again.
    assert project.function_plan("main.py", "total") is alone
    ignored = project.ignored_text("main.py", "total", total.line)
    assert ignored is not None
    assert "\n# hybridize: ignore\ndef total(x):" in ignored
    assert project.ignored_text("main.py", "total", total.line) is ignored
    project.update("main.py", ignored)
    after = project.file_result("main.py")
    assert after is not None
    assert after.plan is None or all(c.qualname != "total" for c in after.plan.changes)
    assert project.function_plan("main.py", "total") is None  # the new text's, not the old
    assert project.ignored_text("main.py", "total", total.line + 1) is None  # already ignored


def test_repeated_updates_do_not_freeze_garbage(make_project: MakeProject) -> None:
    root = make_project({"main.py": MAIN, "helpers.py": HELPERS})
    project = Project.open(root, ProjectOptions(use_cache=False, include_low_benefit=True))
    project.results()
    before = gc.get_freeze_count()
    for i in range(5):
        project.update("helpers.py", HELPERS_WITH_EFFECT + f"\nVERSION = {i}\n")
        project.results()
        project.file_result("main.py")
    # Nothing new is frozen. (The count may drop: Python 3.13 counts frozen objects that
    # other tests froze and that are freed meanwhile.)
    assert gc.get_freeze_count() <= before


def test_a_command_line_analysis_still_freezes_its_survivors(make_project: MakeProject) -> None:
    """The default is unchanged: a one-shot analysis keeps the collector off its result."""
    root = make_project({"main.py": MAIN, "helpers.py": HELPERS})
    project = Project.open(root, ProjectOptions(use_cache=False), long_running=False)
    gc.unfreeze()
    try:
        project.results()
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


def test_a_one_shot_project_freezes_its_survivors_and_keeps_no_solver(
    make_project: MakeProject,
) -> None:
    """What the commands open (`long_running=False`): nothing is kept for an edit that never
    comes, and the report is written with the collector off the result."""
    root = make_project({"main.py": MAIN, "helpers.py": HELPERS})
    options = ProjectOptions(use_cache=False, include_low_benefit=True)
    kept = Project.open(root, options)
    kept.results()
    assert kept.analysis.solver is not None
    gc.unfreeze()
    try:
        once = Project.open(root, options, long_running=False)
        assert once.results().functions == kept.results().functions
        assert once.analysis.solver is None
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


def test_a_repeated_command_is_answered_from_the_cache_without_summarising(
    make_project: MakeProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`hybridize analyze` twice on the same files: the second reads the whole result from the
    cache, so it parses nothing; an edit of an imported module misses it and is analysed."""
    root = make_project({"main.py": MAIN, "helpers.py": HELPERS})
    runner = CliRunner()
    first = runner.invoke(main, ["analyze", str(root), "--format", "json"])
    assert first.exit_code == 0, first.output

    def not_again(*args: object) -> object:
        raise AssertionError("summarised or solved again")

    with monkeypatch.context() as patched:
        patched.setattr(Project, "_summarize_many", not_again)
        patched.setattr(Project, "_solve", not_again)
        second = runner.invoke(main, ["analyze", str(root), "--format", "json"])
        assert second.exit_code == 0, second.output
    assert without_timing(second.stdout) == without_timing(first.stdout)

    (root / "helpers.py").write_text(HELPERS_WITH_EFFECT, encoding="utf-8")
    edited = runner.invoke(main, ["analyze", str(root), "--format", "json"])
    fresh = runner.invoke(main, ["analyze", str(root), "--format", "json", "--no-cache"])
    assert without_timing(edited.stdout) != without_timing(first.stdout)
    assert '"has_python_side_effects"' in edited.stdout
    assert without_timing(edited.stdout) == without_timing(fresh.stdout)


def test_a_repeated_command_loads_neither_the_analysis_nor_the_planner(
    make_project: MakeProject,
) -> None:
    """What a cached run costs is mostly imports: the second `hybridize analyze` of the same
    files (JSON, so the refactoring's plans are in it) writes the report kept by the first,
    and imports neither the project-wide phase (the call graph, the evaluator), nor the
    planner, nor libcst, nor even the project, the model's classes or pickle; the first one
    needs the first two (libcst only for a rewrite inside a line, which this program does not
    need), and neither imports networkx (`facts/digraph.py`: its import cost every run 0.1 s
    of CPU)."""
    import subprocess
    import sys

    corpus = Path(__file__).resolve().parents[2] / "corpus" / "tensorflow"
    program = (corpus / "mlp_gradient_tape" / "main.py").read_text(encoding="utf-8")
    root = make_project({"main.py": program})
    probe = (
        "import sys\n"
        "from hybridize.cli import main\n"
        "try:\n"
        "    main(['analyze', sys.argv[1], '--format', 'json'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = ['networkx', 'libcst', 'hybridize.analyzer.engine',\n"
        "         'hybridize.analyzer.facts.digraph',\n"
        "         'hybridize.analyzer.facts.evaluator', 'hybridize.refactor.file_plan',\n"
        "         'hybridize.project', 'hybridize.model', 'hybridize.refactor.plan', 'pickle']\n"
        "print('LOADED', [m for m in heavy if m in sys.modules], file=sys.stderr)\n"
    )

    def loaded() -> str:
        run = subprocess.run(
            [sys.executable, "-c", probe, str(root)], capture_output=True, text=True, check=True
        )
        return run.stderr.rpartition("LOADED ")[2].strip()

    first = loaded()
    assert all(
        m in first for m in ("hybridize.analyzer.facts.digraph", "hybridize.refactor.file_plan")
    )
    assert "pickle" in first
    assert "networkx" not in first
    assert loaded() == "[]"


def without_timing(report: str) -> object:
    """A JSON report with its timings left out (they differ between any two runs)."""

    def strip(value: object) -> object:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k != "seconds"}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    return strip(json.loads(report))


def test_encode_buffer_follows_the_declared_encoding() -> None:
    text = "# -*- coding: latin-1 -*-\nname = 'café'\n"
    assert encode_buffer(text) == text.encode("latin-1")
    assert encode_buffer("name = 'café'\n") == "name = 'café'\n".encode()


def test_a_plan_made_on_a_buffer_is_never_written_over_a_different_disk(
    make_project: MakeProject,
) -> None:
    """The planner's safety holds for buffers: `apply_plan` writes a file only if the disk
    still holds the bytes the plan was made on."""
    root = make_project({"main.py": MAIN, "helpers.py": HELPERS})
    project = Project.open(root, EVERY_CHANGE)
    disk = (root / "main.py").read_bytes()
    project.update("main.py", textwrap.dedent(MAIN) + "\n# unsaved\n")
    plan = project.plan()
    assert [f.file for f in plan.files] == ["helpers.py", "main.py"]
    report = apply_plan(plan)
    assert [f.file for f in report.written] == ["helpers.py"]  # its buffer is the disk's
    assert [n.file for n in report.failed] == ["main.py"]
    assert (root / "main.py").read_bytes() == disk
    project.reload("main.py")  # the disk's text again: now the plan may be written
    project.reload("helpers.py")
    report = apply_plan(project.plan())
    assert [f.file for f in report.written] == ["main.py"]
    assert "@tf.function\ndef total(x):" in (root / "main.py").read_text()


def test_an_in_memory_project_equals_the_same_files_on_disk(make_project: MakeProject) -> None:
    """`Project.from_texts` is the folder's project without the folder: the same verdicts,
    and edits and removals work alike."""
    root = make_project({"main.py": MAIN, "helpers.py": HELPERS})
    texts = {"main.py": textwrap.dedent(MAIN), "helpers.py": textwrap.dedent(HELPERS)}
    project = Project.from_texts(texts, ProjectOptions(use_cache=False))
    assert project.files == ["helpers.py", "main.py"]
    assert project.results().functions == one_shot(root).functions
    project.update("helpers.py", textwrap.dedent(HELPERS_WITH_EFFECT))
    (root / "helpers.py").write_text(textwrap.dedent(HELPERS_WITH_EFFECT))
    assert project.results().functions == one_shot(root).functions
    assert project.remove("helpers.py") == "helpers.py"
    assert project.files == ["main.py"]
    assert {v.file for v in project.results().functions} == {"main.py"}


def test_a_single_file_project(make_project: MakeProject) -> None:
    root = make_project({"main.py": MAIN, "helpers.py": HELPERS})
    project = Project.open(root / "main.py", EVERY_CHANGE)
    assert project.files == ["main.py"]
    expected = one_shot(root / "main.py")
    assert project.results().functions == expected.functions
    assert project.update("helpers.py", HELPERS) is None  # not part of this project
    replaced = "import tensorflow as tf\n\n\ndef f(x):\n    return x\n"
    assert project.update(root / "main.py", replaced) == "main.py"
    assert [v.qualname for v in project.results().functions] == ["f"]


CORPUS = Path(__file__).resolve().parents[2] / "corpus" / "tensorflow"


@pytest.mark.slow
def test_the_whole_corpus_through_the_project_equals_the_cli() -> None:
    """Every labelled program as one project: the same verdicts as `hybridize analyze`, and
    per-file plans equal to `hybridize refactor`'s (with input-signature inference on, so that
    reconfigurations are planned too)."""
    expected = one_shot(CORPUS, infer_input_signatures=True, jobs=1)
    wanted = plan_refactorings(expected, snapshot=read_snapshot(CORPUS)).refactored_files()
    project = Project.open(CORPUS, ProjectOptions(infer_input_signatures=True, use_cache=False))
    assert project.results().functions == expected.functions
    planned = {}
    for name in project.files:
        found = project.file_result(name)
        assert found is not None
        if found.plan is not None:
            planned[name] = found.plan.new_text
    assert planned == wanted
    assert len(planned) >= 10  # the corpus has changes in most programs


def test_after_an_edit_the_whole_result_cache_is_neither_read_nor_written(
    make_project: MakeProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An editor's buffer is a new text at every keystroke: storing each result would pickle
    the whole project per edit, and going back to an earlier text must still be solved (from
    the project's own solver, not a stale whole result)."""
    root = make_project({"main.py": MAIN, "helpers.py": HELPERS})
    project = Project.open(root, ProjectOptions(include_low_benefit=True))
    first = project.results().functions
    stored: list[object] = []
    solved: list[object] = []
    real_solve = Project._solve
    monkeypatch.setattr(
        "hybridize.analyzer.cache.SummaryCache.put_result", lambda *a: stored.append(a)
    )
    monkeypatch.setattr(Project, "_solve", lambda self: solved.append(1) or real_solve(self))
    project.update("helpers.py", HELPERS_WITH_EFFECT)
    assert project.results().functions != first
    project.update("helpers.py", textwrap.dedent(HELPERS))
    assert project.results().functions == first
    assert len(solved) == 2 and not stored
