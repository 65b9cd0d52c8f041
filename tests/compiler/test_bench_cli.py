"""`hybridize bench` from the command line: usage errors, no TensorFlow in the CLI process, e2e."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from hybridize.cli import main
from hybridize.compiler import decisions
from hybridize.compiler.report import validate_report

HAS_TF = importlib.util.find_spec("tensorflow") is not None


def test_importing_the_compiler_does_not_import_tensorflow() -> None:
    code = textwrap.dedent(
        """
        import sys
        import hybridize.compiler
        from hybridize.compiler import (backends, bench, chart, cli_support, decisions,
            equivalence, errors, graphstats, headline, inputs, instrument, outcomes, protocol,
            refactored_copy, render_html, render_md, report, terminal, timing, whole_program,
            worker)
        heavy = sorted(
            m for m in sys.modules if m.split(".")[0] in ("tensorflow", "keras", "torch")
        )
        print(heavy)
        """
    )
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert completed.stdout.strip() == "[]"


def test_a_missing_path_is_a_usage_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["bench", str(tmp_path / "nope")])
    assert result.exit_code == 2
    assert "does not exist" in result.output


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("bash run.sh", "must run a Python script"),
        ("python missing.py", "missing.py is not a file"),
        ("python -c 'print(1)'", "unsupported interpreter option"),
    ],
)
def test_a_bad_entry_is_a_usage_error(tmp_path: Path, entry: str, message: str) -> None:
    (tmp_path / "main.py").write_text("print('hi')\n")
    result = CliRunner().invoke(main, ["bench", str(tmp_path), "--entry", entry])
    assert result.exit_code == 2
    assert message in result.output


@pytest.mark.skipif(not HAS_TF, reason="TensorFlow absent")
def test_bench_without_candidates_writes_a_valid_report_and_never_imports_tensorflow(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "util.py").write_text("def add(a, b):\n    return a + b\n\nprint(add(1, 2))\n")
    out = tmp_path / "out"
    code = textwrap.dedent(
        f"""
        import sys
        from click.testing import CliRunner
        from hybridize.cli import main
        result = CliRunner().invoke(main, ["bench", {str(project)!r}, "--out", {str(out)!r}])
        print(result.exit_code)
        print(any(m.split(".")[0] == "tensorflow" for m in sys.modules))
        """
    )
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert completed.stdout.split()[-2:] == ["0", "False"], completed.stdout + completed.stderr
    data = json.loads((out / "report.json").read_text())
    assert validate_report(data) == []
    assert data["summary"]["functions"] == 0
    assert data["projects"][0]["whole_program_note"] == "no candidate function"
    assert (out / "report.md").exists() and (out / "report.html").exists()


PROGRAM = """
import tensorflow as tf


def mlp_step(w1, w2, x):
    for _ in range(6):
        x = tf.tanh(tf.matmul(x, w1))
        x = tf.nn.relu(tf.matmul(x, w2)) + 0.1 * x
    return tf.reduce_mean(x), tf.reduce_max(x)


def main():
    w1 = tf.Variable(tf.random.stateless_normal([16, 16], seed=[1, 2]) * 0.3)
    w2 = tf.Variable(tf.random.stateless_normal([16, 16], seed=[3, 4]) * 0.3)
    x = tf.random.stateless_uniform([8, 16], seed=[5, 6])
    total = 0.0
    for _ in range(1500):
        mean, peak = mlp_step(w1, w2, x)
        total += float(mean)
    print(f"digest: {total:.4f} {float(peak):.4f}")


if __name__ == "__main__":
    main()
"""


@pytest.mark.tensorflow
@pytest.mark.slow
@pytest.mark.skipif(not HAS_TF, reason="TensorFlow absent")
def test_bench_end_to_end_with_an_entry(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "main.py").write_text(PROGRAM)
    before = (project / "main.py").read_text()
    out = tmp_path / "out"
    code = textwrap.dedent(
        f"""
        import sys
        from click.testing import CliRunner
        from hybridize.cli import main
        args = ["bench", {str(project)!r}, "--entry", "python main.py", "--out", {str(out)!r},
                "--program-runs", "1", "--budget", "0.3", "--min-rounds", "5", "--no-xla"]
        result = CliRunner().invoke(main, args)
        print(result.output)
        print(result.exit_code)
        print(any(m.split(".")[0] == "tensorflow" for m in sys.modules))
        """
    )
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=600
    )
    assert completed.stdout.split()[-2:] == ["0", "False"], completed.stdout + completed.stderr
    assert "mlp_step" in completed.stdout  # the summary table
    data = json.loads((out / "report.json").read_text())
    assert validate_report(data) == []
    [function] = data["functions"]
    assert function["input_source"] == "entry"
    assert function["calls_observed"] == 1500
    assert function["modes"]["graph"]["equivalence"]["status"] == "equal"
    assert function["decision"]["applied"], function["decision"]
    whole = data["projects"][0]["whole_program"]
    assert whole["output_match"], whole
    assert whole["comparison"] == "digest"
    assert whole["speedup"] > 1.0
    assert data["summary"]["whole_program_speedup"] == pytest.approx(whole["speedup"])
    assert decisions.load_applied_changes(out / "report.json") == {"main.py::mlp_step": "graph"}
    assert (project / "main.py").read_text() == before  # the user's files are untouched
    assert "<svg" in (out / "report.html").read_text()
