"""Units of the engine: documents, line edits and diffs, signatures, the plan cache, parallel
planning, cross-file import use."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from refactor_helpers import refactor_twice, verdict

from hybridize.analyzer.summaries.sources import split_lines
from hybridize.model import AnalysisResult, TensorSpec
from hybridize.refactor import PlanCache, plan_refactorings
from hybridize.refactor.document import Document
from hybridize.refactor.edits import EditConflict, LineEdit, apply_edits, unified_diff
from hybridize.refactor.signature import SignatureError, render_signature, render_spec


def test_split_lines_only_at_cr_lf_crlf() -> None:
    assert split_lines("a\r\nb\rc\nd\x0ce\u2028f") == ["a\r\n", "b\r", "c\n", "d\x0ce\u2028f"]
    assert split_lines("") == []


def test_document_round_trip_and_newline() -> None:
    document = Document.from_bytes(b"\xef\xbb\xbfx = 1\r\ny = 2\r\nz = 3\n")
    assert isinstance(document, Document)
    assert document.text.startswith("x")
    assert document.newline == "\r\n"
    assert document.ending_of(3) == "\n"
    assert document.encode(document.text) == document.raw
    assert isinstance(Document.from_bytes(b"x = '\xff'\n"), str)
    assert isinstance(Document.from_bytes(b"x\x00"), str)


def test_apply_edits_and_conflicts() -> None:
    lines = ["a\n", "b\n", "c\n"]
    assert apply_edits(lines, [LineEdit(2, 3, ""), LineEdit(2, 2, "x\n")]) == "a\nx\nc\n"
    assert apply_edits(lines, [LineEdit(4, 4, "d\n")]) == "a\nb\nc\nd\n"
    assert apply_edits(["a"], [LineEdit(2, 2, "b\n")]) == "a\nb\n"
    with pytest.raises(EditConflict):
        apply_edits(lines, [LineEdit(1, 3, ""), LineEdit(2, 3, "")])
    assert LineEdit(2, 3, "").span.start_line == 2


def test_unified_diff_marks_a_missing_final_newline() -> None:
    diff = unified_diff("m.py", "a\nb", "a\nc")
    assert diff.startswith("--- a/m.py\n+++ b/m.py\n")
    assert "-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n" in diff
    assert unified_diff("m.py", "same", "same") == ""


def test_signatures() -> None:
    spec = TensorSpec("SparseTensorSpec", "int64", (None, 3))
    assert render_spec(spec, "tf") == "tf.SparseTensorSpec(shape=(None, 3), dtype=tf.int64)"
    assert render_signature((), "tf") == "[]"
    for bad in (
        TensorSpec("TensorSpec", None, (1,)),
        TensorSpec("TensorSpec", "float31", (1,)),
        TensorSpec("Spec", "float32", (1,)),
        TensorSpec("TensorSpec", "float32", (-1,)),
    ):
        with pytest.raises(SignatureError):
            render_spec(bad, "tf")


def test_reconfigure_keeps_crlf_and_non_ascii() -> None:
    before = (
        "import tensorflow as tf\r\n\r\n"
        '@tf.function(experimental_implements="caf\u00e9",\r\n'
        "             jit_compile=True)  # \u00e9t\u00e9\r\n"
        "def f(x):\r\n    return x\r\n"
    ).encode()
    spec = (TensorSpec("TensorSpec", "float32", (2,)),)
    after, _ = refactor_twice(before, verdict("f", "reconfigure", input_signature=spec))
    assert after.decode() == (
        "import tensorflow as tf\r\n\r\n"
        '@tf.function(experimental_implements="caf\u00e9",\r\n'
        "             jit_compile=True,\r\n"
        "             input_signature=[tf.TensorSpec(shape=(2,), dtype=tf.float32)])"
        "  # \u00e9t\u00e9\r\n"
        "def f(x):\r\n    return x\r\n"
    )


def _project(root: Path, files: dict[str, str]) -> Path:
    root.mkdir(exist_ok=True)
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


def _result(root: Path, *verdicts: object) -> AnalysisResult:
    return AnalysisResult(root=str(root), functions=tuple(verdicts))  # type: ignore[arg-type]


ADD = "import tensorflow as tf\n\n\ndef f(x):\n    return tf.abs(x)\n"
REMOVE = "from tensorflow import function\n\n\n@function\ndef g(x):\n    return x\n"


def test_import_used_by_another_file_is_kept(tmp_path: Path) -> None:
    root = _project(tmp_path, {"ops.py": REMOVE, "user.py": "from ops import function\n"})
    plan = plan_refactorings(_result(root, verdict("g", "convert_to_eager", file="ops.py")))
    assert plan.files[0].new_text == REMOVE.replace("@function\n", "")
    (root / "user.py").write_text("import os\n", encoding="utf-8")
    plan = plan_refactorings(_result(root, verdict("g", "convert_to_eager", file="ops.py")))
    assert plan.files[0].new_text == "\n\ndef g(x):\n    return x\n"


def test_plan_cache_hits_and_ignores_corrupt_entries(tmp_path: Path) -> None:
    root = _project(tmp_path / "p", {"m.py": ADD})
    cache = PlanCache(tmp_path / "cache")
    result = _result(root, verdict("f", file="m.py"))
    first = plan_refactorings(result, cache=cache)
    entries = list((tmp_path / "cache").rglob("*.pickle"))
    assert len(entries) == 1
    second = plan_refactorings(result, cache=cache)
    assert second.refactored_files() == first.refactored_files()
    assert second.files[0].edits == first.files[0].edits
    entries[0].write_bytes(b"not a pickle")
    third = plan_refactorings(result, cache=cache)
    assert third.refactored_files() == first.refactored_files()


def test_plans_that_look_at_other_files_are_not_cached(tmp_path: Path) -> None:
    root = _project(tmp_path / "p", {"ops.py": REMOVE})
    cache = PlanCache(tmp_path / "cache")
    plan_refactorings(_result(root, verdict("g", "convert_to_eager", file="ops.py")), cache=cache)
    assert list((tmp_path / "cache").rglob("*.pickle")) == []


def test_parallel_planning_equals_sequential(tmp_path: Path) -> None:
    files = {f"m{i}.py": ADD for i in range(30)}
    files.update({f"r{i}.py": REMOVE for i in range(15)})
    files["user.py"] = "from r3 import function\n"
    root = _project(tmp_path, files)
    verdicts = [verdict("f", file=f"m{i}.py") for i in range(30)]
    verdicts += [verdict("g", "convert_to_eager", file=f"r{i}.py") for i in range(15)]
    result = _result(root, *verdicts)
    sequential = plan_refactorings(result, jobs=1)
    parallel = plan_refactorings(result, jobs=2)
    assert parallel.refactored_files() == sequential.refactored_files()
    assert [dataclasses.astuple(c) for c in parallel.changes] == [
        dataclasses.astuple(c) for c in sequential.changes
    ]
    texts = parallel.refactored_files()
    assert texts["r3.py"].startswith("from tensorflow import function")  # used by user.py
    assert texts["r4.py"].startswith("\n")  # dropped
