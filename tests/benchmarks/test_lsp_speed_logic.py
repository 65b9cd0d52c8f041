"""The language-server benchmark's own pieces: the large file it edits, its percentile, and a
tiny run of the whole benchmark (so the script does not rot between the runs that matter)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from lsp_speed import FIGURES, percentile  # noqa: E402
from synthetic_project import generate, write_large_module  # noqa: E402

from hybridize.project import Project, ProjectOptions  # noqa: E402


def test_the_large_module_is_valid_code_of_the_asked_size_with_candidates(tmp_path: Path) -> None:
    generate(tmp_path, 1500)
    large = write_large_module(tmp_path, 700)
    text = large.read_text(encoding="utf-8")
    lines = text.count("\n")
    assert 700 <= lines < 700 + 150  # whole parts of the template, one more at most
    tree = ast.parse(text)
    # Every part is defined under its own names: nothing is silently redefined.
    defined = [n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.ClassDef)]
    assert len(defined) == len(set(defined)) > 0
    # Each imported module and name exists in the generated project.
    package = tmp_path / "synthproj"
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and "synthproj" in node.module:
            module = node.module.split(".")[-1]
            source = package / f"{module}.py"
            for alias in node.names:
                if source.exists():
                    assert f"def {alias.name}(" in source.read_text() or (
                        f"class {alias.name}(" in source.read_text()
                    )
                else:
                    assert (package / f"{alias.name}.py").exists(), alias.name
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            assert (package / f"{node.module}.py").exists(), node.module
    # The benchmark edits a function of it that hybridize would decorate.
    project = Project.open(tmp_path, ProjectOptions())
    found = project.file_result(large)
    assert found is not None and found.plan is not None
    assert any(c.code == "HY010" for c in found.plan.changes)


def test_percentile_is_the_nearest_rank() -> None:
    values = [float(v) for v in range(20, 0, -1)]
    assert percentile(values, 0.95) == 19.0
    assert percentile(values, 0.5) == 10.0
    assert percentile([3.0], 0.95) == 3.0
    assert percentile([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0], 0.95) == 10.0


@pytest.mark.slow
def test_a_tiny_run_prints_every_figure() -> None:
    # four changes: a pair that moves a line, then a pair within a line
    sizes = ["--lines", "1200", "--large", "300", "--changes", "4", "--warmup", "0"]
    finished = subprocess.run(
        [sys.executable, str(BENCHMARKS / "lsp_speed.py"), *sizes, "--requests", "1"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert finished.returncode == 0, finished.stderr
    for figure in (
        "server start -> whole diagnostics",
        "didOpen -> first diagnostics",
        "didOpen -> whole diagnostics",
        "didChange -> diagnostics, median",
        "p95",
        "codeAction",
        "hover",
        "VmHWM",
    ):
        assert figure in finished.stdout


@pytest.mark.slow
def test_a_tiny_run_beside_a_base_commit_prints_ratios(tmp_path: Path) -> None:
    # four changes: a pair that moves a line, then a pair within a line
    sizes = ["--lines", "1200", "--large", "300", "--changes", "4", "--warmup", "0"]
    base = ["--base", "HEAD"]
    finished = subprocess.run(
        [sys.executable, str(BENCHMARKS / "lsp_speed.py"), *sizes, "--requests", "1", *base],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        cwd=tmp_path,  # from anywhere: the script finds its checkout
    )
    assert finished.returncode == 0, finished.stderr
    header, *rows = finished.stdout.splitlines()[1:]
    assert header.split()[-3:] == ["HEAD", "this", "this/base"]
    assert [r.rsplit(" (", 1)[0] for r in rows] == [figure.name for figure in FIGURES]
    for row in rows:
        base, this, ratio = (float(v) for v in row.split()[-3:])
        assert base > 0 and this > 0
        # The ratio is of the unrounded times; each time printed is within half a unit of
        # its last digit (0.28 / 0.30 may stand for 0.284 / 0.298: 1.05, not 1.07).
        half = 0.005
        lowest = max(this - half, 0.0) / (base + half)
        highest = (this + half) / max(base - half, 1e-9)
        assert lowest - 0.005 <= ratio <= highest + 0.005, (base, this, ratio)
