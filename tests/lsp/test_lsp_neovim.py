"""The language server in a real editor: headless Neovim's built-in LSP client.

Neovim (0.7, Debian bookworm's) opens a copy of a corpus program, shows hybridize's
diagnostics, asks for the code actions on a function's name as its own `code_action` does,
applies the quick fix with its own workspace-edit code and writes the file
(tests/lsp/neovim_client.lua). The file must then be what `hybridize refactor` writes for that
one function. Skips where `nvim` is absent (`.ci/run` installs it, best effort).
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from hybridize.cli import main

HERE = Path(__file__).resolve().parent
PROGRAM = HERE.parents[1] / "corpus" / "tensorflow" / "tf_function_misuse"
NVIM = shutil.which("nvim")
TIMEOUT_SECONDS = 55
"""The whole editor session; each wait inside it is bounded by less (`WAIT_MS`)."""
WAIT_MS = 40_000

pytestmark = pytest.mark.skipif(NVIM is None, reason="no Neovim (apt-get install neovim)")


def copy_program(folder: Path) -> Path:
    """The corpus program as a project of its own: its main.py and a pyproject.toml asking
    for every safe change (the editor and the CLI read it alike), paying or not."""
    folder.mkdir()
    shutil.copy(PROGRAM / "main.py", folder / "main.py")
    (folder / "pyproject.toml").write_text(
        "[tool.hybridize]\ninclude-low-benefit = true\n", encoding="utf-8"
    )
    return folder


def run_neovim(root: Path, tmp_path: Path) -> dict[str, Any]:
    """Run the Lua client headless on root/main.py; its JSON record of what happened."""
    assert NVIM is not None
    record = tmp_path / "neovim-result.json"
    isolated = tmp_path / "xdg"  # Neovim's state, cache and LSP log stay in the test's folder
    env = {
        **os.environ,
        "HYBRIDIZE_NVIM_ROOT": str(root),
        "HYBRIDIZE_NVIM_FILE": str(root / "main.py"),
        "HYBRIDIZE_NVIM_CMD": json.dumps([sys.executable, "-m", "hybridize", "lsp"]),
        "HYBRIDIZE_NVIM_RESULT": str(record),
        "HYBRIDIZE_NVIM_TIMEOUT_MS": str(WAIT_MS),
        "XDG_CONFIG_HOME": str(isolated / "config"),
        "XDG_DATA_HOME": str(isolated / "data"),
        "XDG_STATE_HOME": str(isolated / "state"),
        "XDG_CACHE_HOME": str(isolated / "cache"),
    }
    script = HERE / "neovim_client.lua"
    command = [NVIM, "--headless", "--clean", "-u", "NONE", "-n", "-S", str(script)]
    finished = subprocess.run(
        command,
        cwd=root,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_SECONDS,
        check=False,
    )
    assert record.exists(), f"Neovim wrote no result:\n{finished.stdout}\n{finished.stderr}"
    outcome: dict[str, Any] = json.loads(record.read_text(encoding="utf-8"))
    assert finished.returncode == 0 and outcome["ok"], outcome.get("error", outcome)
    return outcome


def expected_additions() -> set[str]:
    """The functions the corpus label says should get `@tf.function` (HY010): eager ones
    whose verdict passes."""
    labels = json.loads((PROGRAM / "expected.json").read_text(encoding="utf-8"))
    return {f["qualname"] for f in labels["functions"] if f["passes"] and not f["is_hybrid"]}


def test_neovim_shows_hy010_and_applies_the_quick_fix(tmp_path: Path) -> None:
    root = copy_program(tmp_path / "project")
    original = (root / "main.py").read_text(encoding="utf-8")
    outcome = run_neovim(root, tmp_path)

    # Neovim shows an Information diagnostic HY010 on the name of each function to decorate.
    information = 3  # vim.diagnostic.severity.INFO
    lines = original.splitlines()
    hy010 = [d for d in outcome["diagnostics"] if d["code"] == "HY010"]
    named = {lines[d["lnum"]][d["col"] : d["end_col"]] for d in hy010}
    assert named == expected_additions()
    assert all(d["severity"] == information and "add @tf.function" in d["message"] for d in hy010)
    name = outcome["function_name"]
    assert name in named

    # The quick fix it applied is the one for that function, next to "ignore" and the source
    # action; the written file is what `hybridize refactor` writes for that one function.
    assert outcome["applied"] == f"hybridize: add @tf.function ({name})"
    kinds = {a["kind"] for a in outcome["actions"]}
    assert kinds == {"quickfix", "source.hybridize"}
    edited = (root / "main.py").read_text(encoding="utf-8")
    ast.parse(edited)
    assert edited != original
    reference = copy_program(tmp_path / "reference")
    refactored = CliRunner().invoke(
        main, ["refactor", str(reference), "--apply", "--no-cache", "--select", f"main.py::{name}"]
    )
    assert refactored.exit_code == 0, refactored.output
    assert edited == (reference / "main.py").read_text(encoding="utf-8")

    # Nothing is left to do for that function, while the others' changes still are.
    checked = CliRunner().invoke(
        main, ["refactor", str(root), "--check", "--no-cache", "--select", f"main.py::{name}"]
    )
    assert checked.exit_code == 0, checked.output
    everything = CliRunner().invoke(main, ["refactor", str(root), "--check", "--no-cache"])
    assert everything.exit_code == 1, everything.output

    # The server saw Neovim's incremental edit: the republished diagnostics of the new
    # version keep the other functions' HY010 and drop this one's (the Lua client checks the
    # name under each diagnostic; here, one HY010 fewer).
    assert [d["code"] for d in outcome["after"]].count("HY010") == len(hy010) - 1
