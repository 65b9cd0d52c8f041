"""An edit of a caller two levels up changes the verdicts that read callers at any depth.

An incremental verdict phase keeps the verdict of a settled function when none of its direct
callers changed; HY423 (the nearest caller that may be compiled, at any depth) and the tables
of the functions a backward runs through (HY428: everything a differentiated value's producers
run) read further up. After each edit here only a caller two levels above the function changes,
and the function's verdict must change with it, as an analysis from scratch finds.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from hybridize.model import FunctionVerdict
from hybridize.project import Project, ProjectOptions

NESTED_METHOD = """\
import torch
from torch import nn


class Net(nn.Module):
    def f(self, z, context=None):
        return -0.5 * (z**2).sum(-1)


class Mid(nn.Module):
    def __init__(self):
        super().__init__()
        self.first = Net()
        self.z = torch.ones(5, 2)

    def g(self):
        return self.first.f(self.z) + 1.0


class Top(nn.Module):
    def __init__(self):
        super().__init__()
        self.mid = Mid()

    def run(self, x):
        return self.mid.g() * x


top = Top()
for _ in range(100):
    top.run(torch.randn(5))
"""

WRAPPED_CALLER = (
    NESTED_METHOD.split("class Top")[0]
    + """\
mid = Mid()


def run():
    return mid.g()


def main():
    return run() + mid.g()


for _ in range(100):
    main()
"""
)

KEPT_GRAPH_HELPERS = """\
import torch


def inner(x, w):
    return torch.tanh(x @ w) @ w


def f(x, w):
    return inner(x, w).sum()
"""

KEPT_GRAPH = """\
import torch

from helpers import f


def step(x, w):
    x = x.detach().requires_grad_(True)
    loss = f(x, w)
    (g,) = torch.autograd.grad(loss, x, retain_graph=True)
    loss.backward()
    return g


for _ in range(100):
    step(torch.randn(8, 4), torch.randn(4, 4, requires_grad=True))
"""


def _codes(project: Project, qualname: str) -> set[str]:
    functions = project.results().functions
    verdict = next(v for v in functions if v.facts.qualname == qualname)
    return {finding.code for finding in verdict.findings}


def _from_scratch(project: Project) -> tuple[FunctionVerdict, ...]:
    options = dataclasses.replace(project.options, use_cache=False)
    again = Project.from_texts(
        project.snapshot(), options, package=project.package, long_running=False
    )
    return again.results().functions


def _opened(root: Path, files: dict[str, str]) -> Project:
    root.mkdir()
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    return Project.open(root, ProjectOptions(use_cache=False))


def _edited(tmp_path: Path, files: dict[str, str], old: str, new: str) -> Project:
    """The project of `files` analysed, then `m.py` updated with `old` replaced by `new`: its
    verdicts equal an analysis from scratch, and its verdict phase was incremental."""
    text = files["m.py"]
    project = _opened(tmp_path / "project", files)
    assert project.results().functions == _from_scratch(project)
    assert old in text
    project.update("m.py", text.replace(old, new))
    assert project.results().functions == _from_scratch(project)
    assert project.analysis.incremental_verdicts == 1
    return project


def test_a_method_no_longer_nested_when_a_caller_two_levels_up_cannot_be_compiled(
    tmp_path: Path,
) -> None:
    """`Top.run` may be compiled and runs `Net.f` (a method with a default) through
    `Mid.g`, which takes no argument and so is never compiled: HY423. Once `Top.run` reads a
    tensor as a Python value it may not be compiled, and no caller of `Net.f` is."""
    files = {"m.py": NESTED_METHOD}
    assert "HY423" in _codes(_opened(tmp_path / "before", files), "Net.f")
    project = _edited(tmp_path, files, "self.mid.g() * x", "self.mid.g() * float(x.sum())")
    assert "HY423" not in _codes(project, "Net.f")


def test_a_helper_no_longer_in_a_kept_backward_when_its_callers_caller_frees_the_graph(
    tmp_path: Path,
) -> None:
    """`step` differentiates what `f` returns with the graph kept, so the backward runs
    through `f` and `inner`, which `f` calls: HY428 for both. Once `step` keeps no graph,
    neither has it, though `inner`'s own caller `f` did not change."""
    files = {"helpers.py": KEPT_GRAPH_HELPERS, "m.py": KEPT_GRAPH}
    assert "HY428" in _codes(_opened(tmp_path / "before", files), "inner")
    project = _edited(
        tmp_path, files, "retain_graph=True)\n    loss.backward()", "retain_graph=False)"
    )
    assert "HY428" not in _codes(project, "inner")


def test_a_method_nested_once_a_caller_two_levels_up_is_wrapped_by_the_compiler(
    tmp_path: Path,
) -> None:
    """`run` takes no argument, so the rewrite never compiles it, and `Mid.g` neither: no
    caller of `Net.f` (a method with a default) may be compiled, no HY423. Once `main` calls
    `torch.compile(run)`, `run` is compiled (wrapped by a call of the compiler) and runs
    `Net.f` through `Mid.g`: HY423, though `Net.f`'s caller `Mid.g` did not change and,
    called eagerly by `main` too, does not run as a graph. The answer kept for `Net.f` holds
    only if it is the same among the functions compiled by decorator or wrapping, the set
    the detection reads (not the methods a framework compiles by itself)."""
    files = {"m.py": WRAPPED_CALLER}
    assert "HY423" not in _codes(_opened(tmp_path / "before", files), "Net.f")
    project = _edited(tmp_path, files, "return run() +", "return torch.compile(run)() +")
    assert "HY423" in _codes(project, "Net.f")


def test_a_method_keeps_its_verdict_when_its_decorated_caller_two_levels_up_is_edited(
    tmp_path: Path,
) -> None:
    """`Top.run` is decorated with `@torch.compile`; it takes no argument, so only its
    decorator makes it compiled, and it runs `Net.f` (a method with a default) through
    `Mid.g`: HY423. After an edit of `Top.run`'s body that leaves it compiled, `Net.f`'s direct
    caller `Mid.g` is settled, and its verdict is kept only if its nearest compiled caller is
    still `Top.run` when asked of the decorated functions, as the detection asks: the
    incremental verdicts equal an analysis from scratch, HY423 and all."""
    files = {
        "m.py": NESTED_METHOD.replace(
            "    def run(self, x):", "    @torch.compile\n    def run(self):"
        )
        .replace("self.mid.g() * x", "self.mid.g()")
        .replace("top.run(torch.randn(5))", "top.run()")
    }
    project = _edited(tmp_path, files, "return self.mid.g()", "return self.mid.g() + 1.0")
    assert "HY423" in _codes(project, "Net.f")
