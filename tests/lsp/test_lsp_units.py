"""Diagnostics and hover from hand-made verdicts, without a server."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from lsprotocol import types
from verdict_parts import changed, made_verdict

from hybridize.analyzer.checks import registry, safety_checks
from hybridize.lsp.diagnostics import file_diagnostics, name_span
from hybridize.lsp.docs import CodeDocs
from hybridize.lsp.hover import hover, verdict_markdown
from hybridize.lsp.positions import Lines
from hybridize.lsp.server import DEBOUNCE_SECONDS, analysis_delay
from hybridize.lsp.settings import load_settings
from hybridize.model import Finding, FunctionVerdict, Span
from hybridize.output.triage import blocking_findings
from hybridize.project import FileResult, ProjectOptions

TEXT = "import tensorflow as tf\n\n\n@tf.function\ndef step(x):\n    print(x)\n    return x\n"


def finding(code: str, severity: str, line: int = 5) -> Finding:
    return Finding(code, "name", severity, f"message of {code}", Span(line, 4, line, 9))  # type: ignore[arg-type]


def verdict(*findings: Finding, hybrid: bool, passes: bool = False) -> FunctionVerdict:
    return made_verdict(
        framework="tensorflow",
        file="m.py",
        qualname="step",
        line=5,
        span=Span(5, 0, 7, 12),
        is_hybrid=hybrid,
        has_tensor_parameter=True,
        passes=passes,
        findings=findings,
    )


def test_blocking_findings_of_eager_and_hybrid_functions() -> None:
    keep = finding("HY005", "info")
    printed = finding("HY101", "error", 6)
    covered = finding("HY004", "info")
    assert blocking_findings(verdict(keep, hybrid=True)) == []
    assert blocking_findings(verdict(keep, printed, hybrid=True)) == [printed]
    assert blocking_findings(verdict(covered, hybrid=False)) == [covered]
    assert blocking_findings(verdict(covered, hybrid=False, passes=True)) == []


def test_hints_only_when_asked_and_only_blocking(tmp_path: Path) -> None:
    found = FileResult(
        "m.py",
        TEXT,
        (
            replace(
                verdict(finding("HY005", "info"), finding("HY101", "error", 6), hybrid=True),
                failures=("has_python_side_effects",),
            ),
        ),
        None,
        None,
        (),
    )
    docs = CodeDocs(tmp_path)
    assert file_diagnostics(found, Lines(TEXT), docs, hints=False) == []
    [hint] = file_diagnostics(found, Lines(TEXT), docs, hints=True)
    assert hint.code == "HY101" and hint.severity == types.DiagnosticSeverity.Hint
    assert hint.range.start == types.Position(line=5, character=4)
    assert hint.code_description is not None
    [written] = tmp_path.glob("HY101-*.md")
    assert written.read_text(encoding="utf-8") == registry()["HY101"].documentation()
    assert hint.code_description.href == written.resolve().as_uri()


def test_name_span_and_hover_position() -> None:
    text = "async def  größe(x):\n    return x\n"
    named = made_verdict(
        framework="tensorflow", file="m.py", qualname="C.größe", line=1, span=Span(1, 0, 2, 12)
    )
    assert name_span(named, Lines(text)) == Span(1, 11, 1, 16)
    found = FileResult("m.py", text, (named,), None, None, ())
    assert hover(found, types.Position(line=0, character=12), "utf-16") is not None
    assert hover(found, types.Position(line=0, character=2), "utf-16") is None


def test_an_unwritable_docs_folder_gives_a_data_link(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    href = CodeDocs(blocker / "docs").href("HY010")
    assert href is not None and href.startswith("data:text/markdown")
    assert CodeDocs(tmp_path).href("HY999") is None


def test_settings_combine_pyproject_and_editor_like_the_command_line(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.hybridize]\nselect = ["HY010"]\nignore = ["tests/*"]\n'
        "infer-input-signatures = true\n"
    )
    plain = load_settings(tmp_path, None)
    assert plain.options.select == ("HY010",) and plain.options.ignore == ("tests/*",)
    assert plain.options.infer_input_signatures is True and plain.hints is False
    edited = load_settings(
        tmp_path,
        {
            "select": "HY011",
            "ignore": ["*::legacy_*"],
            "inferInputSignatures": False,
            "hints": True,
        },
    )
    assert edited.options.select == ("HY011",)  # replaces
    assert edited.options.ignore == ("tests/*", "*::legacy_*")  # adds
    assert edited.options.infer_input_signatures is False and edited.hints is True
    wrong = load_settings(tmp_path, {"select": 3, "hints": "yes"})
    assert wrong.options.select == ("HY010",) and wrong.hints is False
    assert any("hybridize.select" in w for w in wrong.warnings)
    (tmp_path / "pyproject.toml").write_text("[tool.hybridize\nselect = 1\n")
    broken = load_settings(tmp_path, None)
    assert broken.options == ProjectOptions() and broken.warnings


def test_hover_lists_every_safety_fact_that_may_hold() -> None:
    """The hover's safety facts are the decision table's: each one that holds is shown (a
    check added later, such as HY409-HY411, must not be missing from the editor)."""
    for name in (check.fact for check in safety_checks()):
        # whether the report has a field for it (HY413 has none) or not
        shown = verdict_markdown(changed(verdict(hybrid=False), **{name: True}), None)
        assert f"- {name}: yes" in shown
    quiet = verdict_markdown(verdict(hybrid=False), None)
    assert not any(f"- {check.fact}:" in quiet for check in safety_checks())


def test_another_versions_documentation_never_replaces_the_linked_file(tmp_path: Path) -> None:
    """Two hybridize versions share the cache folder: each links a file of its own text."""
    href = CodeDocs(tmp_path).href("HY010")
    assert href is not None
    (tmp_path / "HY010.md").write_text("another version's text", encoding="utf-8")
    for other in tmp_path.glob("*.md"):
        if other.resolve().as_uri() != href:
            other.write_text("another version's text", encoding="utf-8")
    linked = [p for p in tmp_path.glob("HY010-*.md") if p.resolve().as_uri() == href]
    assert linked and linked[0].read_text(encoding="utf-8") == registry()["HY010"].documentation()


def test_a_change_after_a_pause_is_analysed_at_once_and_a_burst_waits() -> None:
    """The first change, and a change after a quiet period, start their analysis at once; a
    change close behind another, or while a run of the document still waits, is part of a
    burst and waits for the document to be quiet."""
    quiet = DEBOUNCE_SECONDS
    assert analysis_delay(10.0, None, waiting=False) == 0.0
    assert analysis_delay(10.0, 10.0 - 2 * quiet, waiting=False) == 0.0
    assert analysis_delay(10.0, 10.0 - quiet / 2, waiting=False) == quiet
    assert analysis_delay(10.0, 10.0 - 2 * quiet, waiting=True) == quiet
    assert analysis_delay(10.0, None, waiting=True) == quiet


def test_the_heap_is_frozen_after_every_analysis_and_collected_whole_later() -> None:
    """Every analysis freezes the heap; a first one, or one that solved from scratch, makes a
    whole collection due (the facts it replaced may be cyclic garbage); incremental ones only
    count, until MAX_EDITS of them make one due too. Frozen cyclic garbage survives the
    collector's own collections and is freed by the whole collection."""
    import gc
    import weakref
    from types import SimpleNamespace

    from hybridize.lsp import heap as heap_module

    class Cycle:
        def __init__(self) -> None:
            self.me = self

    analysis = SimpleNamespace(scratch_solves=0)
    kept = heap_module.FrozenHeap()
    try:
        garbage = Cycle()
        alive = weakref.ref(garbage)
        kept.after_analysis(analysis)
        assert gc.get_freeze_count() > 0 and kept.collection_due
        del garbage
        gc.collect()
        assert alive() is not None
        kept.collect()
        assert alive() is None
        assert not kept.collection_due and gc.get_freeze_count() > 0
        young = Cycle()
        kept.after_analysis(analysis)  # an incremental analysis freezes what it left too
        assert not kept.collection_due
        assert not any(o is young for o in gc.get_objects())
        for _ in range(heap_module.MAX_EDITS - 2):
            kept.after_analysis(analysis)
        assert not kept.collection_due
        kept.after_analysis(analysis)
        assert kept.collection_due
        kept.collect()
        analysis.scratch_solves = 1
        kept.after_analysis(analysis)
        assert kept.collection_due
    finally:
        gc.unfreeze()


def test_hints_only_for_the_reports_blocked_functions(tmp_path: Path) -> None:
    """A function the report does not list as blocked (nothing to gain: no tensor parameter)
    gets no hint; the same finding on a blocked function that does tensor work does."""
    printed = finding("HY101", "error", 6)
    eager = changed(
        verdict(printed, hybrid=False),
        has_tensor_computation=True,
        failures=("has_python_side_effects",),
    )
    no_gain = replace(eager, failures=("has_no_tensor_parameters", "has_python_side_effects"))
    docs = CodeDocs(tmp_path)
    for shown, expected in ((eager, ["HY101"]), (no_gain, [])):
        found = FileResult("m.py", TEXT, (shown,), None, None, ())
        hints = file_diagnostics(found, Lines(TEXT), docs, hints=True)
        assert [h.code for h in hints] == expected
