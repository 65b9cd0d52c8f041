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


HOT_PROGRAM = """\
import tensorflow as tf


def step(x, w):
    y = tf.nn.relu(tf.matmul(x, w))
    y = tf.nn.relu(tf.matmul(y, w))
    y = tf.nn.relu(tf.matmul(y, w))
    y = tf.nn.relu(tf.matmul(y, w))
    return tf.reduce_sum(y * y) + tf.reduce_mean(y)


def small(x):
    return x + 1.0


x = tf.ones((8, 8))
w = tf.ones((8, 8))
for _ in range(1000):
    step(x, w)
small(x)
"""
"""`step` pays to compile (benefit high: refactor adds it), `small` does not (benefit none)."""


def test_fail_on_refactorable_fires_on_proposed_changes_only(make_project):
    """The gate fires on what `refactor` would make by default: not on a safe change
    predicted not to pay, unless the configuration includes those."""
    projects = make_project({"cold/train.py": PROGRAM, "hot/train.py": HOT_PROGRAM})
    cold, hot = projects / "cold", projects / "hot"  # cold: a safe change not predicted to pay
    result = CliRunner().invoke(main, ["analyze", str(cold), "--fail-on-refactorable"])
    assert result.exit_code == 0, result.output
    assert "0 proposed (1 more with --include-low-benefit)" in result.output
    for _run in range(2):  # the second run is served by the report cache
        result = CliRunner().invoke(main, ["analyze", str(hot), "--fail-on-refactorable"])
        assert result.exit_code == 1
    result = CliRunner().invoke(
        main, ["analyze", str(hot), "--fail-on-refactorable", "--exit-zero"]
    )
    assert result.exit_code == 0
    (cold / "pyproject.toml").write_text("[tool.hybridize]\ninclude-low-benefit = true\n")
    result = CliRunner().invoke(main, ["analyze", str(cold), "--fail-on-refactorable"])
    assert result.exit_code == 1
    assert "1 proposed, " in result.output


def test_analyze_proposes_what_refactor_makes_and_nothing_after_apply(make_project):
    root = make_project({"train.py": HOT_PROGRAM})
    report = json.loads(CliRunner().invoke(main, ["analyze", str(root), "--format", "json"]).output)
    assert [f["qualname"] for f in report["functions"] if f["proposed"]] == ["step"]
    assert (report["summary"]["proposed"], report["summary"]["low_benefit"]) == (1, 1)
    diff = CliRunner().invoke(main, ["refactor", str(root), "--check"])
    assert diff.exit_code == 1
    assert "1 function in 1 file would change" in diff.output
    applied = CliRunner().invoke(main, ["refactor", str(root), "--apply"])
    assert applied.exit_code == 0, applied.output
    text = CliRunner().invoke(main, ["analyze", str(root), "--fail-on-refactorable"])
    assert text.exit_code == 0, text.output
    assert "0 proposed (1 more with --include-low-benefit)" in text.output.splitlines()[-1]


def test_nothing_to_analyse_is_said_on_stderr(make_project, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    for command in ("analyze", "refactor"):
        result = CliRunner().invoke(main, [command, str(empty)])
        assert result.exit_code == 0
        assert f"note: {empty} holds no Python file (.py): nothing to analyse" in result.stderr
    notes = tmp_path / "notes.txt"
    notes.write_text("just words\n")
    result = CliRunner().invoke(main, ["analyze", str(notes)])
    assert result.exit_code == 0
    assert f"note: {notes} is not named .py: read as Python source" in result.stderr
    root = make_project({"train.py": HOT_PROGRAM})
    quiet = CliRunner().invoke(main, ["analyze", str(root)])
    assert "note:" not in quiet.stderr
    nothing = CliRunner().invoke(main, ["refactor", str(root), "--select", "nope*"])
    assert nothing.exit_code == 0
    assert f"note: --select nope* matches no function of {root}" in nothing.stderr
    some = CliRunner().invoke(main, ["refactor", str(root), "--select", "*::step"])
    assert "note:" not in some.stderr


def test_help_states_every_exit_code():
    text = CliRunner().invoke(main, ["--help"]).output
    section = text[text.index("Exit codes:") :]
    for code in ("0", "1", "2", "3"):
        assert f"\n  {code}  " in section


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


NOT_CANDIDATES = {
    "prep.py": """\
import numpy as np


def standardize(a):
    return (a - a.mean(axis=0)) / a.std(axis=0)
""",
    "data.py": """\
import tensorflow as tf

from prep import standardize


def scale(x):
    return tf.cast(x, tf.float32) * 2.0


def make_dataset(x, batch_size):
    ds = tf.data.Dataset.from_tensor_slices(standardize(x)).map(scale)
    return ds.shuffle(64).batch(batch_size).prefetch(tf.data.AUTOTUNE)
""",
    "legacy.py": """\
import tensorflow.compat.v1 as tf


def dense(x):
    with tf.variable_scope("dense"):
        w = tf.get_variable("w", [4, 4])
    return tf.matmul(x, w)
""",
    "portable.py": """\
from keras import ops


def gelu(x):
    return 0.5 * x * (1.0 + ops.tanh(0.79788456 * (x + 0.044715 * ops.power(x, 3))))
""",
    "train.py": """\
import numpy as np
import tensorflow as tf

from data import make_dataset
from legacy import dense
from portable import gelu


def loss(x, y):
    return tf.reduce_mean(tf.square(x - y))


for batch in make_dataset(np.ones((8, 4), np.float32), 4):
    loss(gelu(batch), dense(batch))
""",
}


def test_only_tensorflow_candidates_are_reported_and_refactored(make_project):
    """A NumPy module gets no verdict; a pipeline builder, TF1 code and Keras 3 ops are not
    proposed, each with its own finding; only the real candidate is rewritten."""
    every_change = "[tool.hybridize]\ninclude-low-benefit = true\n"  # `loss` runs once
    root = make_project({**NOT_CANDIDATES, "pyproject.toml": every_change})
    result = CliRunner().invoke(main, ["analyze", str(root), "--format", "json", "--no-cache"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert validate_report(report) == []
    by_name = {f["qualname"]: f for f in report["functions"]}
    assert "standardize" not in by_name
    assert all(f["framework"] == "tensorflow" for f in report["functions"])
    expected_codes = {"make_dataset": "HY008", "dense": "HY007", "gelu": "HY006"}
    for name, code in expected_codes.items():
        assert by_name[name]["passes"] is False, name
        assert code in {f["code"] for f in by_name[name]["findings"]}, name
    assert by_name["loss"]["passes"] is True
    assert set(report["refactored_files"]) == {"train.py"}
    diff = CliRunner().invoke(main, ["refactor", str(root), "--no-cache", "--include-low-benefit"])
    assert diff.exit_code == 0, diff.output
    added = [line for line in diff.output.splitlines() if line.startswith("+@tf.function")]
    assert len(added) == 1
    assert [line for line in diff.output.splitlines() if line.startswith("+++")] == [
        "+++ b/train.py"
    ]
