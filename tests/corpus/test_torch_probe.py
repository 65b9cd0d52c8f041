"""tools/torch_compile_probe.py measures what the corpus/torch rationales quote.

A two-function program in a temporary folder: a clean tensor function must come out as one
graph compiled once and equal to eager; a function that prints must show the graph break and
print the same lines compiled as eagerly (Dynamo runs the print on every call).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.torch,
    pytest.mark.slow,
    pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent"),
]

REPO = Path(__file__).resolve().parents[2]

PROGRAM = textwrap.dedent(
    """
    import torch

    def clean(x):
        return torch.relu(x) * 2

    def noisy(x):
        y = x * 2
        print("value")
        return y + 1

    def main():
        for i in range(3):
            clean(torch.ones(3) * i)
            noisy(torch.ones(3))
    """
)


def test_probe_reports_graphs_breaks_frames_and_equality(tmp_path: Path) -> None:
    program = tmp_path / "program"
    program.mkdir()
    (program / "main.py").write_text(PROGRAM, encoding="utf-8")
    out = tmp_path / "probes.json"
    subprocess.run(
        [sys.executable, "-m", "tools.torch_compile_probe", str(program), "--json", str(out)],
        cwd=REPO,
        check=True,
        capture_output=True,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
        timeout=300,
    )
    probes = {p["qualname"]: p for p in json.loads(out.read_text(encoding="utf-8"))}
    clean, noisy = probes["clean"], probes["noisy"]
    assert (clean["calls"], clean["graphs"], clean["graph_breaks"], clean["frames"]) == (3, 1, 0, 1)
    assert clean["equal"] is True
    assert (noisy["graphs"], noisy["graph_breaks"]) == (2, 1)
    assert noisy["same_output_lines"] is True
    assert probes["main"]["error"] == "skipped"
