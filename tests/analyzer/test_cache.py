"""The cache: warm runs agree with cold ones, edits invalidate, damage degrades to a cold run."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hybridize.analyzer.cache import default_cache_dir
from hybridize.model import AnalysisResult
from hybridize.project import Project, ProjectOptions

HELPER_PURE = "import tensorflow as tf\n\ndef helper(x):\n    return tf.square(x)\n"
HELPER_PRINTS = "import tensorflow as tf\n\ndef helper(x):\n    print(x)\n    return tf.square(x)\n"
CALLER = (
    "import tensorflow as tf\nfrom helpers import helper\n\n"
    "def step(x):\n    return helper(x) + 1.0\n\nstep(tf.ones(3))\n"
)


def analysed(root: Path, **options: bool) -> tuple[AnalysisResult, list[str]]:
    """The result of a one-shot analysis of `root` (as the command line makes it), and its
    warnings."""
    project = Project.open(root, ProjectOptions(**options), long_running=False)
    return project.results(), project.warnings


def verdicts(root: Path, **options: bool) -> dict[str, tuple[bool, tuple[str, ...]]]:
    result, _ = analysed(root, **options)
    return {f"{v.file}::{v.qualname}": (v.passes, v.failures) for v in result.functions}


def test_warm_run_equals_cold_run(make_project, tmp_path, monkeypatch):
    monkeypatch.setenv("HYBRIDIZE_CACHE_DIR", str(tmp_path / "c"))
    root = make_project({"helpers.py": HELPER_PURE, "train.py": CALLER})
    cold = verdicts(root)
    assert any((tmp_path / "c").rglob("*")), "the cold run wrote nothing to the cache"
    assert verdicts(root) == cold == verdicts(root, use_cache=False)


def test_edit_of_an_imported_module_reaches_its_importer(make_project, tmp_path, monkeypatch):
    monkeypatch.setenv("HYBRIDIZE_CACHE_DIR", str(tmp_path / "c"))
    root = make_project({"helpers.py": HELPER_PURE, "train.py": CALLER})
    assert verdicts(root)["train.py::step"][0] is True
    (root / "helpers.py").write_text(HELPER_PRINTS, encoding="utf-8")
    after = verdicts(root)
    assert after["train.py::step"] == (False, ("has_python_side_effects",))
    assert after == verdicts(root, use_cache=False)


def test_renaming_a_file_is_a_different_project(make_project, tmp_path, monkeypatch):
    monkeypatch.setenv("HYBRIDIZE_CACHE_DIR", str(tmp_path / "c"))
    root = make_project({"helpers.py": HELPER_PURE, "train.py": CALLER})
    verdicts(root)
    (root / "helpers.py").rename(root / "other.py")
    after = verdicts(root)
    assert "other.py::helper" in after and "helpers.py::helper" not in after


def test_corrupt_entries_are_ignored(make_project, tmp_path, monkeypatch):
    cache = tmp_path / "c"
    monkeypatch.setenv("HYBRIDIZE_CACHE_DIR", str(cache))
    root = make_project({"helpers.py": HELPER_PURE, "train.py": CALLER})
    cold = verdicts(root)
    entries = [p for p in cache.rglob("*") if p.is_file()]
    assert entries
    for entry in entries:
        entry.write_bytes(b"not a pickle \x00\xff")
    assert verdicts(root) == cold


def test_wrong_type_in_an_entry_is_ignored(make_project, tmp_path, monkeypatch):
    import pickle

    cache = tmp_path / "c"
    monkeypatch.setenv("HYBRIDIZE_CACHE_DIR", str(cache))
    root = make_project({"helpers.py": HELPER_PURE, "train.py": CALLER})
    cold = verdicts(root)
    for entry in [p for p in cache.rglob("*") if p.is_file()]:
        entry.write_bytes(pickle.dumps({"a": "dict, not a summary"}))
    assert verdicts(root) == cold


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write anywhere")
def test_unwritable_cache_degrades_with_a_warning(make_project, tmp_path, monkeypatch):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    monkeypatch.setenv("HYBRIDIZE_CACHE_DIR", str(locked / "sub"))
    root = make_project({"helpers.py": HELPER_PURE, "train.py": CALLER})
    result, warnings = analysed(root)
    assert any("cache disabled" in w for w in warnings)
    assert {v.qualname for v in result.functions} == {"helper", "step"}


def test_cache_path_that_is_a_file_degrades_with_a_warning(make_project, tmp_path, monkeypatch):
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where the cache folder should be")
    monkeypatch.setenv("HYBRIDIZE_CACHE_DIR", str(blocker))
    root = make_project({"helpers.py": HELPER_PURE, "train.py": CALLER})
    result, warnings = analysed(root)
    assert any("cache disabled" in w for w in warnings)
    assert len(result.functions) == 2


def test_no_cache_writes_nothing(make_project, tmp_path, monkeypatch):
    cache = tmp_path / "c"
    monkeypatch.setenv("HYBRIDIZE_CACHE_DIR", str(cache))
    root = make_project({"helpers.py": HELPER_PURE, "train.py": CALLER})
    verdicts(root, use_cache=False)
    assert not cache.exists()


def test_default_location_follows_xdg(monkeypatch, tmp_path):
    monkeypatch.delenv("HYBRIDIZE_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "xdg" / "hybridize"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert default_cache_dir() == Path.home() / ".cache" / "hybridize"


def test_options_are_part_of_the_key(make_project, tmp_path, monkeypatch):
    monkeypatch.setenv("HYBRIDIZE_CACHE_DIR", str(tmp_path / "c"))
    root = make_project({"helpers.py": HELPER_PURE, "train.py": CALLER})
    verdicts(root)
    result, _ = analysed(root, infer_input_signatures=True)
    assert len(result.functions) == 2


def test_an_entry_is_in_place_whole_or_not_at_all(tmp_path):
    from hybridize.analyzer.cache import EntryWriter

    failures: list[OSError] = []
    entry = tmp_path / "kind" / "ab" / "abcdef"
    writer = EntryWriter(entry, failures.append)
    writer.write(b"first ")
    assert not entry.exists(), "a reader could see part of the entry"
    writer.write(b"part")
    writer.commit()
    assert entry.read_bytes() == b"first part"

    replacing = EntryWriter(entry, failures.append)
    replacing.write(b"never finished")
    replacing.discard()
    assert entry.read_bytes() == b"first part"
    assert sorted(p.name for p in entry.parent.iterdir()) == ["abcdef"], "a temporary file stayed"
    assert failures == []


def test_a_writer_that_cannot_write_reports_once_and_never_raises(tmp_path):
    from hybridize.analyzer.cache import EntryWriter

    blocker = tmp_path / "blocker"
    blocker.write_text("a file where a folder should be")
    failures: list[OSError] = []
    writer = EntryWriter(blocker / "ab" / "abcdef", failures.append)
    writer.write(b"data")
    writer.commit()
    assert len(failures) == 1 and isinstance(failures[0], OSError)
    assert blocker.read_text() == "a file where a folder should be"


def test_fast_pickling_reads_back_what_either_way_wrote():
    """`fast_pickling` keeps the state dataclasses gives (the values in field order): a cache
    written before it, or by a class without it, reads back the same objects."""
    import dataclasses
    import pickle

    from verdict_parts import made_verdict

    from hybridize.model import Finding, FunctionVerdict, Span, fast_pickling

    span = Span(3, 0, 5, 4)
    verdict = made_verdict(
        framework="tensorflow",
        file="a.py",
        qualname="f",
        line=3,
        span=span,
        failures=("has_python_side_effects",),
        findings=(Finding("HY101", "has_python_side_effects", "warning", "prints", span),),
    )
    assert pickle.loads(pickle.dumps(verdict)) == verdict
    as_dataclasses_wrote = [getattr(verdict, f.name) for f in dataclasses.fields(verdict)]
    restored = FunctionVerdict.__new__(FunctionVerdict)
    restored.__setstate__(as_dataclasses_wrote)  # type: ignore[attr-defined]
    assert restored == verdict
    with pytest.raises(ValueError):  # a state of another layout is refused, not half-read
        restored.__setstate__(as_dataclasses_wrote[:-1])  # type: ignore[attr-defined]

    @dataclasses.dataclass(slots=True)
    class Mutable:
        value: int

    with pytest.raises(TypeError):
        fast_pickling(Mutable)


def test_the_code_fingerprint_follows_the_installed_code(tmp_path, monkeypatch):
    """Entries are keyed on the code that computed them, not on the version number alone: an
    install from a repository keeps its version across commits (`code_fingerprint`)."""
    from hybridize.analyzer import cache

    package = tmp_path / "fingerprinted"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "rules.json").write_text("{}")
    (package / "__pycache__").mkdir()
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(cache, "CODE_PACKAGES", ("fingerprinted",))
    first = cache.code_fingerprint()
    assert cache.code_fingerprint() == first
    (package / "__pycache__" / "x.pyc").write_bytes(b"compiled")
    assert cache.code_fingerprint() == first, "compiled files are no code"
    (package / "sub" / "rules.json").write_text('{"a": 1}')
    edited = cache.code_fingerprint()
    assert edited != first
    (package / "new.py").write_text("x = 1\n")
    assert cache.code_fingerprint() not in (first, edited)


def test_the_version_tag_carries_the_code_fingerprint():
    from hybridize.analyzer import cache

    assert cache.version_tag().decode().endswith("/" + cache.code_fingerprint())
