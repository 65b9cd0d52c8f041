"""`hybridize refactor --from-bench REPORT` applies only the measured wins."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from click.testing import CliRunner

from hybridize.cli import main

PROGRAM = textwrap.dedent(
    """\
    import tensorflow as tf


    def loss(x, y):
        return tf.reduce_mean(tf.square(x - y))


    def step(x):
        return tf.reduce_sum(tf.matmul(x, x))


    def small(x):
        return x + 1.0


    loss(tf.ones((2, 2)), tf.zeros((2, 2)))
    step(tf.ones((4, 4)))
    small(tf.ones(3))
    """
)


def bench_report(
    root: Path, decisions: dict[str, tuple[bool, str]], measured_at: Path | None = None
) -> Path:
    measured_at = measured_at or root
    report = {
        "projects": [{"root": str(measured_at)}],
        "functions": [
            {
                "project": str(measured_at),
                "file": "train.py",
                "qualname": qualname,
                "decision": {"applied": applied, "mode": mode},
            }
            for qualname, (applied, mode) in decisions.items()
        ],
    }
    path = root.parent / "report.json"
    path.write_text(json.dumps(report), encoding="utf-8")
    return path


def test_only_measured_wins_are_written(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / "train.py").write_text(PROGRAM, encoding="utf-8")
    report = bench_report(
        root, {"loss": (True, "graph"), "step": (True, "xla"), "small": (False, "eager")}
    )
    result = CliRunner().invoke(
        main, ["refactor", str(root), "--from-bench", str(report), "--apply", "--no-cache"]
    )
    assert result.exit_code == 0, result.output
    text = (root / "train.py").read_text(encoding="utf-8")
    assert "@tf.function\ndef loss(" in text
    assert "@tf.function(jit_compile=True)\ndef step(" in text
    assert "def small(" in text and "@tf.function\ndef small(" not in text


def test_without_the_report_every_passing_function_is_planned(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / "train.py").write_text(PROGRAM, encoding="utf-8")
    result = CliRunner().invoke(
        main, ["refactor", str(root), "--no-cache", "--include-low-benefit"]
    )
    assert result.exit_code == 0
    assert result.output.count("+@tf.function") == 3


def test_a_broken_report_is_a_usage_error(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / "train.py").write_text(PROGRAM, encoding="utf-8")
    broken = tmp_path / "report.json"
    broken.write_text("{not json", encoding="utf-8")
    result = CliRunner().invoke(main, ["refactor", str(root), "--from-bench", str(broken)])
    assert result.exit_code == 2


HYBRID = textwrap.dedent(
    """\
    import tensorflow as tf


    @tf.function
    def step(x):
        return tf.reduce_sum(tf.matmul(x, x))


    @tf.function(reduce_retracing=True)
    def other(x):
        return tf.reduce_sum(tf.matmul(x, x))


    @tf.function
    def kept(x):
        return tf.reduce_sum(tf.matmul(x, x))


    step(tf.ones((4, 4)))
    other(tf.ones((4, 4)))
    kept(tf.ones((4, 4)))
    """
)


def test_an_xla_win_of_an_existing_decorator_adds_jit_compile(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / "train.py").write_text(HYBRID, encoding="utf-8")
    report = bench_report(
        root, {"step": (True, "xla"), "other": (True, "xla"), "kept": (False, "graph")}
    )
    args = ["refactor", str(root), "--from-bench", str(report), "--apply", "--no-cache"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    text = (root / "train.py").read_text(encoding="utf-8")
    assert "@tf.function(jit_compile=True)\ndef step(" in text
    assert "@tf.function(reduce_retracing=True, jit_compile=True)\ndef other(" in text
    assert "@tf.function\ndef kept(" in text
    # A second run changes nothing: the decorators already say jit_compile.
    again = CliRunner().invoke(main, [*args[:-2], "--check", "--no-cache"])
    assert again.exit_code == 0, again.output


def test_a_report_measured_on_another_copy_applies_by_relative_path(tmp_path: Path) -> None:
    root = tmp_path / "checkout"
    root.mkdir()
    (root / "train.py").write_text(PROGRAM, encoding="utf-8")
    report = bench_report(
        root, {"loss": (True, "graph"), "small": (False, "eager")}, tmp_path / "ci" / "project"
    )
    result = CliRunner().invoke(
        main, ["refactor", str(root), "--from-bench", str(report), "--apply", "--no-cache"]
    )
    assert result.exit_code == 0, result.output
    text = (root / "train.py").read_text(encoding="utf-8")
    assert "@tf.function\ndef loss(" in text
    assert "@tf.function\ndef step(" not in text and "@tf.function\ndef small(" not in text
