"""One bad file never takes the project down: every report stays valid and lists it.

The project mixes good modules with every kind of file the tool cannot handle: a name that is
not UTF-8, a folder whose name is not, a FIFO (reading it would block forever), a symlink loop,
a broken link, a folder named like a module, a file nested too deeply for libcst's native
parser, and one that is not decodable. The CLI runs as a real process (a crash would be a
signal, not an exception), in every format, and `refactor --apply` still writes the good ones.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hybridize.output.report_schema import validate_report

GOOD = "import tensorflow as tf\n\n\ndef f(x):\n    return tf.square(x)\n\n\nf(tf.constant(1.0))\n"

pytestmark = pytest.mark.skipif(
    sys.platform == "win32", reason="POSIX file names, FIFOs and symlinks"
)


@pytest.fixture
def bad_project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "good.py").write_text(GOOD)
    (root / "x.py").mkdir()
    (root / "x.py" / "inner.py").write_text(GOOD)
    (root / "deep.py").write_text("x = " + "(" * 5000 + "1" + ")" * 5000 + "\n" + GOOD)
    (root / "chain.py").write_text("x = " + "not " * 10000 + "x\n")
    (root / "latin.py").write_bytes(b"x = 'caf\xe9'\n")
    os.mkfifo(root / "fifo.py")
    os.symlink("loop.py", root / "loop.py")
    os.symlink("missing.py", root / "broken.py")
    bad_name = os.fsdecode(b"caf\xe9\xff.py")
    (root / bad_name).write_text(GOOD)
    bad_folder = root / os.fsdecode(b"d\xe9")
    bad_folder.mkdir()
    (bad_folder / "m.py").write_text(GOOD)
    return root


BAD = {"deep.py", "chain.py", "latin.py", "fifo.py", "loop.py", "broken.py"}


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "hybridize", *args],
        capture_output=True,
        timeout=300,
        cwd=cwd,
    )


def test_json_report_is_valid_utf8_and_lists_every_bad_file(bad_project: Path) -> None:
    done = run("analyze", str(bad_project), "--format", "json", "--no-cache")
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    assert b"Traceback" not in done.stderr
    report = json.loads(done.stdout.decode("utf-8"))  # strict: invalid UTF-8 raises
    validate_report(report)
    errors = {e["file"]: e["message"] for e in report["errors"]}
    assert set(errors) >= BAD
    assert "nested too deeply" in errors["deep.py"]
    assert "nested too deeply" in errors["chain.py"]
    assert "symlink loop" in errors["loop.py"]
    assert "not a regular file" in errors["fifo.py"]
    assert "caf\ufffd\ufffd.py" in errors
    assert "not valid UTF-8" in errors["caf\ufffd\ufffd.py"]
    assert "d\ufffd" in errors
    assert sorted({f["file"] for f in report["functions"]}) == ["good.py", "x.py/inner.py"]


@pytest.mark.parametrize("output_format", ["text", "sarif"])
def test_text_and_sarif_are_valid_utf8(bad_project: Path, output_format: str) -> None:
    done = run("analyze", str(bad_project), "--format", output_format, "--no-cache")
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    text = done.stdout.decode("utf-8")
    if output_format == "sarif":
        notifications = json.loads(text)["runs"][0]["invocations"][0]
        uris = {
            n["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for n in notifications["toolExecutionNotifications"]
        }
        assert {"deep.py", "fifo.py", "caf%EF%BF%BD%EF%BF%BD.py"} <= uris
    else:
        assert "error: deep.py: cannot analyse: nested too deeply" in text
        assert "error: caf\ufffd\ufffd.py:" in text


def test_refactor_apply_writes_the_good_files(bad_project: Path) -> None:
    done = run("refactor", str(bad_project), "--apply", "--no-cache", "--include-low-benefit")
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    assert b"Traceback" not in done.stderr
    assert "@tf.function" in (bad_project / "good.py").read_text()
    assert "@tf.function" in (bad_project / "x.py" / "inner.py").read_text()
    assert (bad_project / "deep.py").read_text().startswith("x = (((")
    assert "@tf.function" not in (bad_project / os.fsdecode(b"caf\xe9\xff.py")).read_text()


def test_a_single_file_with_a_non_utf8_name(tmp_path: Path) -> None:
    path = tmp_path / os.fsdecode(b"m\xe9.py")
    path.write_text(GOOD)
    done = run("analyze", os.fsdecode(path), "--format", "json", "--no-cache")
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    report = json.loads(done.stdout.decode("utf-8"))
    assert report["functions"] == []
    assert [e["file"] for e in report["errors"]] == ["m\ufffd.py"]
