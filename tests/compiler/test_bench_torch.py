"""The PyTorch bench: torch.compile measured in real worker subprocesses, as TensorFlow is.

One module-scoped job (aot_eager, a few seconds) covers the modes, equivalence (a wrong
rewrite caught), the compile time, graph breaks (`.item()`, `.backward()`), recompiles over
the recorded argument sets, the state of a training step (parameters, gradients, optimizer)
compared and restored, and that a torch-only job never imports TensorFlow. Apart: the
fallback to aot_eager when Inductor cannot compile (a C++ compiler that does not exist), one
function with Inductor itself, and a whole-program run of a `@torch.compile` copy.
"""

from __future__ import annotations

import importlib.util
import os
import textwrap
from pathlib import Path
from typing import Any

import pytest

from hybridize.compiler import decisions, whole_program
from hybridize.compiler.protocol import Limits, WorkerOutcome, run_job
from hybridize.compiler.refactored_copy import Change, write_changes

pytestmark = [
    pytest.mark.torch,
    pytest.mark.slow,
    pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent"),
]

PROGRAM = """
import sys

import torch
from torch import nn

torch.manual_seed(0)
torch.set_num_threads(1)


def pure(x, w):
    return torch.tanh(x @ w).sum(dim=-1)


def pure_twin(x, w):
    return torch.tanh(x @ w).sum(dim=-1)


def pure_rewritten_wrongly(x, w):
    return torch.tanh(x @ w).sum(dim=-1) + 1e-3


def with_item(x):
    total = x.sum().item()
    return x * total


def scale(x, n):
    return x * n


@torch.compile(dynamic=True, fullgraph=True, backend="aot_eager")
def shaped(x):
    return torch.tanh(x).sum(dim=-1)


@torch.compile(backend="aot_eager")
def shaped_default(x):
    return torch.tanh(x).sum(dim=-1)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        return torch.relu(self.fc(x))


def train_step(model, optimizer, x):
    optimizer.zero_grad()
    loss = model(x).pow(2).mean()
    loss.backward()
    optimizer.step()
    return loss.detach()


def main():
    w = torch.randn(8, 8)
    net = Net()
    optimizer = torch.optim.Adam(net.parameters(), lr=0.1)
    for step in range(3):
        x = torch.randn(16, 8)
        pure(x, w)
        pure_twin(x, w)
        with_item(x)
        scale(x, step + 2)
        shaped(torch.randn(4 + step, 8))
        shaped_default(torch.randn(4 + step, 8))
        train_step(net, optimizer, x)
    print("tensorflow imported:", "tensorflow" in sys.modules)
    print("digest:", round(float(net(torch.ones(1, 8)).sum()), 3))


if __name__ == "__main__":
    main()
"""


def line_of(name: str) -> int:
    for number, text in enumerate(PROGRAM.splitlines(), start=1):
        if text.strip().startswith(f"def {name}("):
            return number
    raise AssertionError(name)


def candidate(qualname: str, **extra: Any) -> dict[str, Any]:
    return {
        "key": f"main.py::{qualname}",
        "file": "main.py",
        "qualname": qualname,
        "line": line_of(qualname.split(".")[-1]),
        "is_hybrid": False,
        "input_signature": None,
        "framework": "torch",
        **extra,
    }


def make_job(root: Path, candidates: list[dict[str, Any]], **settings: Any) -> dict[str, Any]:
    return {
        "root": str(root),
        "cwd": str(root),
        "entry": ["main.py"],
        "candidates": candidates,
        "settings": {
            "torch_backend": "aot_eager",
            "budget_seconds": 0.2,
            "min_rounds": 3,
            "max_rounds": 5,
            **settings,
        },
    }


@pytest.fixture(autouse=True)
def one_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OMP_NUM_THREADS", "1")


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("torchproj")
    (root / "main.py").write_text(textwrap.dedent(PROGRAM), encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def outcome(project: Path, tmp_path_factory: pytest.TempPathFactory) -> WorkerOutcome:
    os.environ["OMP_NUM_THREADS"] = "1"
    workdir = tmp_path_factory.mktemp("worker")
    candidates = [
        candidate("pure"),
        candidate("pure_twin", compile_instead="pure_rewritten_wrongly"),
        candidate("with_item"),
        candidate("scale"),
        candidate("shaped", is_hybrid=True),
        candidate("shaped_default", is_hybrid=True),
        candidate("Net.forward"),
        candidate("train_step"),
    ]
    # Adam's update after a decomposed backward differs from eager's by ~1e-6 on weights of
    # ~0.1: a program's tolerance, as `--rtol/--atol` give it (the wrong rewrite is 1e-3 off).
    job = make_job(project, candidates, rtol=1e-4, atol=1e-5)
    result = run_job(job, Limits(function_seconds=120), workdir=workdir)
    result.capture = {
        **(result.capture or {}),
        "stdout": (workdir / "worker-stdout.txt").read_text(encoding="utf-8"),
    }
    return result


def graph_of(outcome: WorkerOutcome, key: str) -> dict[str, Any]:
    result = outcome.results[f"main.py::{key}"]
    assert result["status"] == "measured", result
    graph: dict[str, Any] = result["modes"]["graph"]
    return graph


def test_a_torch_job_imports_torch_only(outcome: WorkerOutcome) -> None:
    assert outcome.errors == []
    assert set(outcome.frameworks) == {"torch"}
    assert outcome.tensorflow is None
    assert "tensorflow imported: False" in (outcome.capture or {})["stdout"]


def test_modes_are_eager_and_torch_compile(outcome: WorkerOutcome) -> None:
    result = outcome.results["main.py::pure"]
    assert result["framework"] == "torch"
    assert set(result["modes"]) == {"eager", "graph"}
    graph = result["modes"]["graph"]
    assert graph["label"] == "torch.compile (aot_eager)"
    assert graph["equivalence"]["status"] == "equal"
    assert graph["timing"]["median_seconds"] > 0
    assert result["modes"]["eager"]["timing"]["median_seconds"] > 0


def test_the_cold_compile_is_the_first_call(outcome: WorkerOutcome) -> None:
    graph = graph_of(outcome, "pure")
    assert graph["compile_seconds"] > 0
    assert graph["compile_seconds"] <= graph["first_call_seconds"]
    # The cold compile costs more than a steady-state call.
    assert graph["compile_seconds"] > graph["timing"]["median_seconds"]


def test_a_wrong_rewrite_is_caught(outcome: WorkerOutcome) -> None:
    graph = graph_of(outcome, "pure_twin")
    assert graph["equivalence"]["status"] == "different"
    assert graph["equivalence"]["mismatches"]


def test_graph_breaks_are_counted_with_their_reasons(outcome: WorkerOutcome) -> None:
    pure = graph_of(outcome, "pure")
    assert (pure["graphs"], pure["graph_breaks"], pure["break_reasons"]) == (1, 0, [])
    item = graph_of(outcome, "with_item")
    assert item["graph_breaks"] == 1
    assert item["graphs"] == 2
    assert any("item()" in reason for reason in item["break_reasons"])
    step = graph_of(outcome, "train_step")
    assert step["graph_breaks"] >= 1
    assert any("backward()" in reason for reason in step["break_reasons"])


def test_recompiles_over_the_argument_sets_are_counted(outcome: WorkerOutcome) -> None:
    # scale(x, 2), scale(x, 3), scale(x, 4): a new Python int recompiles (once: then dynamic).
    scale = graph_of(outcome, "scale")
    assert scale["recompiles"] >= 1
    assert scale["traces_warmup"] == scale["recompiles"] + 1
    assert graph_of(outcome, "pure")["recompiles"] == 0


def test_an_existing_torch_compile_is_measured_with_its_arguments(outcome: WorkerOutcome) -> None:
    """`@torch.compile(dynamic=True)` over three batch sizes compiles once; with the default
    (`dynamic=None`) the second size recompiles. Measured without its arguments, `shaped`
    would recompile as `shaped_default` does."""
    assert graph_of(outcome, "shaped")["recompiles"] == 0
    assert graph_of(outcome, "shaped_default")["recompiles"] >= 1
    assert outcome.results["main.py::shaped"]["reference"] == "graph"


def test_a_training_step_changes_state_that_is_compared(outcome: WorkerOutcome) -> None:
    result = outcome.results["main.py::train_step"]
    # weight, bias, their gradients and Adam's state at least
    assert result["variables_changed"] >= 5
    names = " ".join(result["changed_variable_names"])
    assert ".grad" in names and "Adam" in names
    assert result["modes"]["graph"]["equivalence"]["status"] == "equal"
    assert result["deterministic"] is True


def test_decisions_treat_torch_compile_as_the_graph_mode(outcome: WorkerOutcome) -> None:
    result = outcome.results["main.py::pure"]
    decision = decisions.decide(result, False, decisions.DecisionSettings(min_speedup=0.0))
    assert decision.baseline == "eager"
    if decision.applied:
        assert (decision.mode, decision.change) == ("graph", "add_torch_compile")
        assert decision.reasons[0].startswith("torch.compile (aot_eager): ")
    else:  # not clearly faster on a loaded machine: then it says so under its name
        assert any(r.startswith("torch.compile (aot_eager)") for r in decision.reasons)


def test_inductor_falls_back_to_aot_eager_without_a_compiler(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CXX", str(tmp_path / "no-such-c++"))
    job = make_job(project, [candidate("pure")], torch_backend="inductor")
    outcome = run_job(job, Limits(function_seconds=120), workdir=tmp_path)
    result = outcome.results["main.py::pure"]
    assert result["status"] == "measured", result
    assert result["modes"]["graph"]["label"] == "torch.compile (aot_eager)"
    assert result["modes"]["graph"]["error"] is None
    assert any("Inductor cannot compile" in note for note in result["notes"])


def test_inductor_compiles_on_this_machine(project: Path, tmp_path: Path) -> None:
    job = make_job(project, [candidate("pure")], torch_backend="inductor")
    outcome = run_job(job, Limits(function_seconds=170), workdir=tmp_path)
    result = outcome.results["main.py::pure"]
    assert result["status"] == "measured", result
    graph = result["modes"]["graph"]
    assert graph["label"] == "torch.compile (inductor)"
    assert graph["equivalence"]["status"] == "equal"
    assert graph["compile_seconds"] > graph["timing"]["median_seconds"]
    assert "notes" not in result


def test_a_whole_program_runs_with_its_torch_compile_copy(project: Path, tmp_path: Path) -> None:
    original = whole_program.copy_project(project, tmp_path / "original")
    refactored = whole_program.copy_project(project, tmp_path / "refactored")
    write_changes(refactored, "main.py", [Change("pure", line_of("pure"), "graph", False, "torch")])
    assert "@torch.compile" in (refactored / "main.py").read_text(encoding="utf-8")
    compared = whole_program.compare_programs(
        python=os.environ.get("PYTHON_FOR_TESTS") or __import__("sys").executable,
        original=original,
        refactored=refactored,
        cwd_relative=".",
        entry=["main.py"],
        runs=1,
        digest_atol=1e-3,
        limits=Limits(capture_seconds=120),
        runtime=whole_program.Runtime(("torch",), "aot_eager"),
    )
    assert compared["output_match"], compared
    assert compared["comparison"] == "digest"
    assert compared["original"]["run_seconds"] and compared["refactored"]["run_seconds"]
    assert compared["speedup"] is not None


def test_a_torch_that_cannot_list_cache_entries_counts_nothing_and_says_so(
    tmp_path: Path,
) -> None:
    """The count of recompiles comes from a private torch helper: without it, traces are
    unknown (null in the report, a note says why), never a made-up number."""
    import subprocess
    import sys

    probe = textwrap.dedent(
        """
        import torch._dynamo.eval_frame as eval_frame
        from hybridize.compiler.backends.torch import TorchBackend

        backend = TorchBackend({"torch_backend": "aot_eager"})
        backend._code = (lambda x: x).__code__
        print("WITH", backend.tracing_count("graph", []))
        del eval_frame._debug_get_cache_entry_list
        print("WITHOUT", backend.tracing_count("graph", []))
        print("NOTES", backend.notes())
        """
    )
    run = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=tmp_path
    )
    assert "WITH 0" in run.stdout
    assert "WITHOUT None" in run.stdout
    assert "traces and recompiles are not counted" in run.stdout
