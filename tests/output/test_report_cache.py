"""The report cache: `hybridize analyze` run again on the same project writes the report it
wrote before (but its time), and anything the report depends on makes it analyse again."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from hybridize.cli import main

HELPERS = (
    "import tensorflow as tf\n\ndef helper(x):\n    return tf.square(x)\n\n"
    "def name():\n    return 'helpers'\n"
)
HELPERS_PRINTING = (
    "import tensorflow as tf\n\ndef helper(x):\n    print(x)\n    return tf.square(x)\n"
)
TRAIN = (
    "import tensorflow as tf\nfrom helpers import helper\n\n"
    "def step(x):\n"
    "    y = tf.matmul(x, x)\n"
    "    for _ in range(4):\n"
    "        y = tf.nn.relu(tf.matmul(y, x)) + helper(y)\n"
    "    return tf.reduce_sum(y)\n\n"
    "for _ in range(1000):\n    step(tf.ones((64, 64)))\n"
)


def analyze(root: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["analyze", str(root), *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.stdout


def timeless(output: str) -> str:
    """A report with its run time blanked out (JSON `seconds`, the text summary's `in S s`)."""
    output = re.sub(r'"seconds": [0-9.]+', '"seconds": _', output)
    return re.sub(r" in [0-9.]+ s\b", " in _ s", output)


def reports(cache: Path) -> list[Path]:
    return sorted(p for p in (cache.rglob("reports/*/*")) if p.is_file())


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("HYBRIDIZE_CACHE_DIR", str(folder))
    return folder


@pytest.mark.parametrize(
    "flags", [["--format", "json"], ["--format", "sarif"], ["--format", "text"], ["-v"]]
)
def test_a_kept_report_is_the_report_of_a_fresh_analysis(make_project, cache, flags):
    root = make_project({"helpers.py": HELPERS, "train.py": TRAIN})
    _, cold = analyze(root, *flags)
    assert len(reports(cache)) == 1
    kept_at = reports(cache)[0].stat().st_mtime_ns
    _, warm = analyze(root, *flags)
    _, fresh = analyze(root, *flags, "--no-cache")
    assert timeless(warm) == timeless(cold) == timeless(fresh)
    assert reports(cache)[0].stat().st_mtime_ns == kept_at, "a hit rewrote its entry"
    if "json" in flags:
        assert json.loads(warm)["summary"]["functions"] == 3


def test_the_summary_states_this_runs_time(make_project, cache, monkeypatch):
    root = make_project({"helpers.py": HELPERS, "train.py": TRAIN})
    analyze(root, "--format", "json")
    ticks = iter([1000.0, 1003.25])
    monkeypatch.setattr("time.perf_counter", lambda: next(ticks))
    _, warm = analyze(root, "--format", "json")
    assert json.loads(warm)["summary"]["seconds"] == 3.25


def test_each_format_and_flag_has_its_own_report(make_project, cache):
    root = make_project({"helpers.py": HELPERS, "train.py": TRAIN})
    variants = [
        ["--format", "json"],
        ["--format", "sarif"],
        [],
        ["-v"],
        ["--infer-input-signatures"],
    ]
    outputs = [timeless(analyze(root, *flags)[1]) for flags in variants]
    assert len(reports(cache)) == len(variants)
    assert len(set(outputs[:4])) == 4  # the formats and -v (a signature may change no text)
    assert [timeless(analyze(root, *flags)[1]) for flags in variants] == outputs


def test_an_edit_anywhere_analyses_again(make_project, cache):
    root = make_project({"helpers.py": HELPERS, "train.py": TRAIN})
    _, before = analyze(root, "--format", "json")
    (root / "helpers.py").write_text(HELPERS_PRINTING, encoding="utf-8")
    _, after = analyze(root, "--format", "json")
    _, fresh = analyze(root, "--format", "json", "--no-cache")
    assert timeless(after) == timeless(fresh) != timeless(before)
    step = next(f for f in json.loads(after)["functions"] if f["qualname"] == "step")
    assert step["has_python_side_effects"] is True


def test_a_new_unreadable_or_removed_file_analyses_again(make_project, cache):
    root = make_project({"helpers.py": HELPERS, "train.py": TRAIN})
    analyze(root, "--format", "json")
    (root / "extra.py").write_bytes(b"x = '\xff'\n")  # not UTF-8: a file error
    _, with_error = analyze(root, "--format", "json")
    assert [e["file"] for e in json.loads(with_error)["errors"]] == ["extra.py"]
    (root / "extra.py").unlink()
    _, without = analyze(root, "--format", "json")
    assert json.loads(without)["errors"] == []


def test_the_configuration_is_part_of_the_key(make_project, cache):
    """`refactored_files` follows `[tool.hybridize]`: a changed selection is a new report."""
    root = make_project({"helpers.py": HELPERS, "train.py": TRAIN})
    _, first = analyze(root, "--format", "json")
    assert "train.py" in json.loads(first)["refactored_files"]
    (root / "pyproject.toml").write_text('[tool.hybridize]\nignore = ["train.py::*"]\n')
    _, ignored = analyze(root, "--format", "json")
    _, fresh = analyze(root, "--format", "json", "--no-cache")
    assert "train.py" not in json.loads(ignored)["refactored_files"]
    assert timeless(ignored) == timeless(fresh)


def test_a_copy_elsewhere_names_its_own_root(make_project, cache, tmp_path):
    root = make_project({"helpers.py": HELPERS, "train.py": TRAIN})
    _, original = analyze(root, "--format", "json")
    copy = tmp_path / "copy"
    shutil.copytree(root, copy)
    _, copied = analyze(copy, "--format", "json")
    assert json.loads(original)["root"] == str(root.resolve())
    assert json.loads(copied)["root"] == str(copy.resolve())


def test_fail_on_refactorable_exits_the_same_from_a_kept_report(make_project, cache):
    root = make_project({"helpers.py": HELPERS, "train.py": TRAIN})
    first, _ = analyze(root, "--fail-on-refactorable")
    second, _ = analyze(root, "--fail-on-refactorable")
    third, _ = analyze(root, "--fail-on-refactorable", "--exit-zero")
    assert (first, second, third) == (1, 1, 0)


@pytest.mark.parametrize(
    "damage",
    [b"", b"no totals line", b"body\n[1, 2]", b'body\n[1, 2, "x", 4]', b"\xff\xfe\n[1, 1, 1, 1]"],
)
def test_a_damaged_entry_is_never_trusted(make_project, cache, damage):
    root = make_project({"helpers.py": HELPERS, "train.py": TRAIN})
    _, cold = analyze(root, "--format", "json")
    (entry,) = reports(cache)
    entry.write_bytes(damage)
    _, again = analyze(root, "--format", "json")
    assert timeless(again) == timeless(cold)
    assert entry.read_bytes() != damage, "the damaged entry was not replaced"


def test_no_cache_keeps_no_report(make_project, cache):
    root = make_project({"helpers.py": HELPERS, "train.py": TRAIN})
    analyze(root, "--no-cache")
    assert reports(cache) == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write anywhere")
def test_an_unwritable_cache_reports_and_goes_on(make_project, tmp_path, monkeypatch):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    monkeypatch.setenv("HYBRIDIZE_CACHE_DIR", str(locked / "sub"))
    root = make_project({"helpers.py": HELPERS, "train.py": TRAIN})
    result = CliRunner().invoke(main, ["analyze", str(root), "--format", "json"])
    assert result.exit_code == 0
    assert "cache disabled" in result.stderr
    assert json.loads(result.stdout)["summary"]["functions"] == 3


def test_a_report_interrupted_while_written_is_not_kept(make_project, cache, monkeypatch):
    """Output that fails half-way (a closed pipe) leaves no entry: the next run analyses."""
    root = make_project({"helpers.py": HELPERS, "train.py": TRAIN})

    def broken(text: str, encoding: str) -> None:
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr("hybridize.cli._emit", broken)
    result = CliRunner().invoke(main, ["analyze", str(root), "--format", "json"])
    assert result.exit_code == 1  # click's answer to a closed pipe
    assert reports(cache) == []
    assert not [p for p in cache.rglob(".tmp-*")], "a temporary file was left behind"


def test_a_cache_path_that_is_a_file_reports_and_goes_on(make_project, tmp_path, monkeypatch):
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where the cache folder should be")
    monkeypatch.setenv("HYBRIDIZE_CACHE_DIR", str(blocker))
    root = make_project({"helpers.py": HELPERS, "train.py": TRAIN})
    for _ in range(2):
        result = CliRunner().invoke(main, ["analyze", str(root), "--format", "json"])
        assert result.exit_code == 0
        assert result.stderr.count("cache disabled") == 1
        assert json.loads(result.stdout)["summary"]["functions"] == 3
