"""Bad input from day one: every problem file becomes an error entry, the rest is analysed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hybridize.analyzer.summaries.sources import decode_source, discover
from hybridize.project import Project, ProjectOptions

GOOD = "import tensorflow as tf\n\ndef f(x):\n    return tf.square(x)\n\nf(tf.constant(1.0))\n"


def analyse(root: Path) -> tuple[list[str], dict[str, str]]:
    result = Project.open(root, ProjectOptions(use_cache=False)).results()
    return [f"{v.file}::{v.qualname}" for v in result.functions], {
        e.file: e.message for e in result.errors
    }


def test_syntax_error_is_reported_and_the_rest_analysed(make_project):
    root = make_project({"good.py": GOOD, "bad.py": "def broken(:\n    pass\n"})
    functions, errors = analyse(root)
    assert functions == ["good.py::f"]
    assert errors["bad.py"].startswith("SyntaxError")
    assert "line 1" in errors["bad.py"]


def test_non_utf8_file_without_cookie(make_project):
    root = make_project({"good.py": GOOD, "latin.py": "x = 'caf\xe9'\n".encode("latin-1")})
    functions, errors = analyse(root)
    assert functions == ["good.py::f"]
    assert "cannot decode as utf-8" in errors["latin.py"]
    assert "0xe9" in errors["latin.py"]


def test_latin1_file_with_coding_cookie_is_decoded(make_project):
    source = "# -*- coding: latin-1 -*-\nimport tensorflow\n\ndef g(x):\n    return 'caf\xe9'\n"
    root = make_project({"latin.py": source.encode("latin-1")})
    functions, errors = analyse(root)
    assert functions == ["latin.py::g"]
    assert errors == {}


def test_utf8_bom_is_accepted(make_project):
    root = make_project({"bom.py": b"\xef\xbb\xbfimport tensorflow\n\ndef h(x):\n    return x\n"})
    functions, errors = analyse(root)
    assert functions == ["bom.py::h"]
    assert errors == {}


def test_binary_file(make_project):
    root = make_project({"good.py": GOOD, "blob.py": b"\x7fELF\x00\x01\x02"})
    functions, errors = analyse(root)
    assert functions == ["good.py::f"]
    assert "binary" in errors["blob.py"]


def test_unknown_encoding_cookie(make_project):
    root = make_project({"odd.py": b"# -*- coding: klingon -*-\nx = 1\n"})
    _, errors = analyse(root)
    assert "odd.py" in errors
    assert "klingon" in errors["odd.py"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every file")
def test_unreadable_file(make_project):
    root = make_project({"good.py": GOOD, "secret.py": "x = 1\n"})
    (root / "secret.py").chmod(0)
    try:
        functions, errors = analyse(root)
    finally:
        (root / "secret.py").chmod(0o644)
    assert functions == ["good.py::f"]
    assert "permission denied" in errors["secret.py"]


def test_unreadable_file_as_root_via_directory_in_place_of_file(make_project):
    """A name ending in .py that cannot be read as a file (a FIFO) is an error, not a hang."""
    root = make_project({"good.py": GOOD})
    (root / "pipe.py").mkdir()
    functions, _errors = analyse(root)
    assert functions == ["good.py::f"]


def test_symlink_loop_is_reported_once(make_project):
    root = make_project({"pkg/good.py": GOOD})
    os.symlink(root / "pkg", root / "pkg" / "again")
    functions, errors = analyse(root)
    assert functions == ["pkg/good.py::f"]
    assert any("symlink loop" in message for message in errors.values())


def test_broken_symlink(make_project):
    root = make_project({"good.py": GOOD})
    os.symlink(root / "missing.py", root / "dangling.py")
    functions, errors = analyse(root)
    assert functions == ["good.py::f"]
    assert "broken symlink" in errors["dangling.py"]


def test_tooling_folders_are_skipped(make_project):
    root = make_project(
        {
            "good.py": GOOD,
            ".venv/lib/x.py": "def hidden(): pass\n",
            "node_modules/y.py": "def hidden(): pass\n",
        }
    )
    files, _ = discover(root)
    assert [p.name for p in files] == ["good.py"]


def test_single_file_root(make_project):
    root = make_project({"one.py": GOOD, "two.py": "def other(): pass\n"})
    result = Project.open(root / "one.py", ProjectOptions(use_cache=False)).results()
    assert [v.qualname for v in result.functions] == ["f"]
    assert result.functions[0].file == "one.py"


def test_decode_source_reports_invalid_utf8_offset():
    message = decode_source(b"x = 1\n\xff\n")
    assert isinstance(message, str)
    assert "offset 6" in message


def test_empty_file_is_fine(make_project):
    root = make_project({"empty.py": ""})
    functions, errors = analyse(root)
    assert functions == [] and errors == {}
