"""The real CLI: subcommands, formats, exit codes, bad arguments."""

from __future__ import annotations

import json
import subprocess
import sys

from click.testing import CliRunner

from hybridize import __version__
from hybridize.cli import main
from hybridize.output.report_schema import validate_report

PROGRAM = """\
import tensorflow as tf

def loss(x, y):
    return tf.reduce_mean(tf.square(x - y))

def report(x):
    print(x)
    return tf.reduce_sum(x)

loss(tf.ones((2, 2)), tf.zeros((2, 2)))
report(tf.ones(3))
"""


def test_version():
    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0
    assert __version__ in result.output


def test_help_has_examples():
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0
    for command in ("analyze", "refactor", "bench", "lsp", "explain", "checks"):
        assert command in result.output
    assert "Examples" in result.output


def test_analyze_json_validates_and_lists_functions(make_project):
    root = make_project({"train.py": PROGRAM, "broken.py": "def (:\n"})
    result = CliRunner().invoke(main, ["analyze", str(root), "--format", "json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert validate_report(report) == []
    assert {f["qualname"] for f in report["functions"]} == {"loss", "report"}
    assert report["errors"][0]["file"] == "broken.py"
    assert report["root"] == str(root.resolve())
    by_name = {f["qualname"]: f for f in report["functions"]}
    assert by_name["loss"]["line"] == 3
    assert by_name["loss"]["is_hybrid"] is False


def test_analyze_text_and_sarif(make_project):
    root = make_project({"train.py": PROGRAM})
    text = CliRunner().invoke(main, ["analyze", str(root)])
    assert text.exit_code == 0
    assert "train.py" in text.output
    sarif = CliRunner().invoke(main, ["analyze", str(root), "--format", "sarif"])
    assert sarif.exit_code == 0
    log = json.loads(sarif.output)
    assert log["version"] == "2.1.0"
    assert log["runs"][0]["tool"]["driver"]["name"] == "hybridize"


def test_nonexistent_path_is_a_usage_error():
    result = CliRunner().invoke(main, ["analyze", "/no/such/path/anywhere"])
    assert result.exit_code == 2
    assert "does not exist" in result.output


def test_bad_format_is_a_usage_error(make_project):
    root = make_project({"a.py": "x = 1\n"})
    result = CliRunner().invoke(main, ["analyze", str(root), "--format", "xml"])
    assert result.exit_code == 2


def test_fail_on_refactorable(make_project):
    root = make_project({"train.py": PROGRAM})
    result = CliRunner().invoke(main, ["analyze", str(root), "--fail-on-refactorable"])
    assert result.exit_code == 1
    result = CliRunner().invoke(
        main, ["analyze", str(root), "--fail-on-refactorable", "--exit-zero"]
    )
    assert result.exit_code == 0


def test_explain_and_checks():
    listing = CliRunner().invoke(main, ["checks"])
    assert listing.exit_code == 0
    assert "HY101" in listing.output
    explained = CliRunner().invoke(main, ["explain", "hy101"])
    assert explained.exit_code == 0
    for section in ("What it detects", "Why it matters in graph mode", "Example", "Instead"):
        assert section in explained.output
    unknown = CliRunner().invoke(main, ["explain", "HY999"])
    assert unknown.exit_code == 2


def test_module_entry_point_runs(make_project):
    root = make_project({"a.py": "import tensorflow as tf\n\n\ndef f(x):\n    return x\n"})
    completed = subprocess.run(
        [sys.executable, "-m", "hybridize", "analyze", str(root), "--format", "json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert json.loads(completed.stdout)["functions"][0]["qualname"] == "f"
