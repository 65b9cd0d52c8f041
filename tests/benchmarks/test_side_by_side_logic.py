"""The side-by-side benchmarks' shared pieces: how a side's code is found (its environment,
an old commit's packages assembled from its pyproject.toml) and the table of ratios."""

from __future__ import annotations

import os
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from side_by_side import Figure, Side, assemble_packages, side_by_side  # noqa: E402

OLD_PYPROJECT = """\
[project]
name = "hybridize"

[tool.setuptools]
package-dir = { "hybridize" = "hybridize", "hybridize.analyzer" = "analyzer", "hybridize.lsp" = "lsp", "hybridize.gone" = "gone" }
"""


def test_an_old_layout_gets_its_subpackages_linked_under_hybridize(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(OLD_PYPROJECT, encoding="utf-8")
    (tmp_path / "hybridize").mkdir()
    (tmp_path / "analyzer").mkdir()
    (tmp_path / "analyzer" / "engine.py").write_text("X = 1\n", encoding="utf-8")
    (tmp_path / "lsp").mkdir()
    (tmp_path / "hybridize" / "lsp").mkdir()  # already in place: left alone
    made = assemble_packages(tmp_path)
    assert made == [tmp_path / "hybridize" / "analyzer"]  # "gone" has no folder
    assert (tmp_path / "hybridize" / "analyzer" / "engine.py").read_text() == "X = 1\n"
    assert not (tmp_path / "hybridize" / "lsp").is_symlink()
    # Relative: the worktree may move with its folder.
    assert not os.readlink(tmp_path / "hybridize" / "analyzer").startswith("/")
    assert assemble_packages(tmp_path) == []  # a second time: nothing to make


def test_a_current_layout_needs_nothing(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'hybridize'\n")
    assert assemble_packages(tmp_path) == []
    assert assemble_packages(tmp_path / "missing") == []


def test_a_side_runs_its_checkout_first_or_the_installed_code(tmp_path: Path) -> None:
    os.environ["PYTHONPATH"] = "/elsewhere"
    try:
        checkout = Side("base", sys.executable, tmp_path).environment({"HYBRIDIZE_CACHE_DIR": "c"})
        installed = Side("base", sys.executable, None).environment()
    finally:
        del os.environ["PYTHONPATH"]
    assert checkout["PYTHONPATH"] == os.pathsep.join([str(tmp_path), "/elsewhere"])
    assert checkout["HYBRIDIZE_CACHE_DIR"] == "c"
    assert "PYTHONPATH" not in installed


def test_the_table_shows_medians_in_their_units_and_the_ratio() -> None:
    figures = [Figure("t", "time", "ms"), Figure("m", "memory", "MiB"), Figure("z", "zero", "s")]
    runs = {
        "base": [{"t": 0.2, "m": 2.0 * 2**20, "z": 0.0}, {"t": 0.4, "m": 4.0 * 2**20, "z": 0.0}],
        "this": [{"t": 0.1, "m": 3.0 * 2**20, "z": 1.0}, {"t": 0.1, "m": 3.0 * 2**20, "z": 1.0}],
    }
    header, *rows = side_by_side(figures, runs, "abc123").splitlines()
    assert header.split()[-3:] == ["abc123", "this", "this/base"]
    assert [r.split()[-3:] for r in rows] == [
        ["300.00", "100.00", "0.33"],
        ["3.00", "3.00", "1.00"],
        ["0.00", "1.00", "-"],
    ]
