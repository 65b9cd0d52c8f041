"""The Neovim set-up of docs/editors.md works as printed, in the Neovim this machine has.

Each `lua` block of the page that starts the server is used as the `init.lua` of a headless
Neovim opening a corpus program inside a project folder; after a while the buffer must carry
the server's diagnostics. The 0.10 block needs `vim.fs.root` (Neovim 0.10), the 0.7 block
only what Neovim 0.7 has (Debian's is 0.7.2): each runs where the installed Neovim has its
APIs, and is skipped elsewhere with the reason.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PAGE = (REPO / "docs" / "editors.md").read_text(encoding="utf-8")
PROGRAM = REPO / "corpus" / "tensorflow" / "logging_and_io" / "main.py"
BLOCKS = [b for b in re.findall(r"```lua\n(.*?)```", PAGE, flags=re.S) if "hybridize" in b]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("nvim") is None, reason="no Neovim (apt-get install neovim)"),
]

CHECK = """
vim.defer_fn(function()
  local f = io.open(vim.env.RESULT, "w")
  f:write(tostring(#vim.diagnostic.get(0)))
  f:close()
  vim.cmd("qa!")
end, tonumber(vim.env.WAIT_MS))
"""


def _nvim_version() -> tuple[int, int]:
    out = subprocess.run(["nvim", "--version"], capture_output=True, text=True, check=True)
    major, minor = re.search(r"NVIM v(\d+)\.(\d+)", out.stdout).groups()  # type: ignore[union-attr]
    return int(major), int(minor)


def test_the_page_has_a_snippet_for_each_neovim() -> None:
    assert any("vim.fs.root" in b for b in BLOCKS)
    assert any("start_client" in b and "vim.fs.root" not in b for b in BLOCKS)


@pytest.mark.parametrize("block", BLOCKS, ids=lambda b: "0.10" if "vim.fs.root" in b else "0.7")
def test_the_snippet_gives_diagnostics(block: str, tmp_path: Path) -> None:
    if "vim.fs.root" in block and _nvim_version() < (0, 10):
        pytest.skip(f"the 0.10 snippet needs Neovim 0.10 (installed: {_nvim_version()})")
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text("", encoding="utf-8")
    shutil.copy(PROGRAM, project / "main.py")
    (tmp_path / "init.lua").write_text(block, encoding="utf-8")
    (tmp_path / "check.lua").write_text(CHECK, encoding="utf-8")
    result = tmp_path / "result.txt"
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "HYBRIDIZE_CACHE_DIR": str(tmp_path / "cache"),
        "RESULT": str(result),
        "WAIT_MS": "40000",
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
    }
    subprocess.run(
        [
            "nvim",
            "--headless",
            "-u",
            str(tmp_path / "init.lua"),
            "-c",
            f"luafile {tmp_path / 'check.lua'}",
            "main.py",
        ],
        cwd=project,
        env=env,
        capture_output=True,
        timeout=120,
    )
    assert result.is_file(), "Neovim did not run the check"
    assert int(result.read_text()) >= 1, "no diagnostics from hybridize lsp"
