"""An edit of a function a verdict reads off the call graph changes that verdict as a fresh
analysis does.

HY423 asks whether a method called as a method inside a compiled caller's graph may break the
graph (`nested_compiled.hidden_graph_break`), and follows paths the call graph does not hold:
the getter of a `@property` the method reads (a read, not a call), the wrapper a project
decorator puts in place of a function it runs, and a method called by its name on an object
the analysis cannot see (`self.left_op._matmul(rhs)`: every project method of that name may be
the one run). An incremental verdict phase decides again the functions an edit reaches up the
call graph; a verdict that read one of these functions must be decided again too when it
changes, or the editor keeps a finding a fresh analysis no longer gives (or misses one it
gives). Each edit here touches only such a function, the verdict read elsewhere changes, and
the incremental verdicts equal an analysis from scratch.
"""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

from hybridize.model import FunctionVerdict
from hybridize.project import Project, ProjectOptions

PAIR = """

class Pair(nn.Module):
    def __init__(self):
        super().__init__()
        self.first = Net()

    def log_prob(self, z):
        return self.first.f(z) + 1.0


pair = Pair()
for _ in range(100):
    pair.log_prob(torch.randn(5, 2))
"""
"""A caller that may be compiled, running `Net.f` as a method inside its graph."""

GETTER = (
    """\
import pickle

import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(2, 2))

    @property
    def size(self):
        pickle.dumps({"n": 2})
        return self.weight.shape

    def f(self, z):
        return z @ self.weight / self.size[-1]
"""
    + PAIR
)

WRAPPER = (
    """\
import pickle

import torch
from torch import nn


def cached(method):
    def wrapper(self, *args, **kwargs):
        key = (method.__name__, args, pickle.dumps(kwargs))
        memo = self.__dict__.setdefault("_memo", {})
        if key not in memo:
            memo[key] = method(self, *args, **kwargs)
        return memo[key]

    return wrapper


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(2, 2))

    @cached
    def _size(self):
        return self.weight.shape

    def f(self, z):
        return z @ self.weight / self._size()[-1]
"""
    + PAIR
)

UNSEEN_RECEIVER = """\
import torch
from torch import Tensor

from registry import convert


class Base:
    def _matmul(self, rhs: Tensor) -> Tensor:
        raise NotImplementedError


class Dense(Base):
    def __init__(self, t: Tensor):
        self.t = t

    def _matmul(self, rhs: Tensor) -> Tensor:
        return torch.matmul(self.t, rhs)


class Sparse(Base):
    def __init__(self, t: Tensor):
        self.t = t

    def _matmul(self, rhs: Tensor) -> Tensor:
        rows = self.t.nonzero()
        return torch.matmul(self.t[rows[:, 0]], rhs)


class Product(Base):
    def __init__(self, left: Base, right: Base):
        self.left_op = convert(left)
        self.right_op = convert(right)

    def _matmul(self, rhs: Tensor) -> Tensor:
        return self.left_op._matmul(self.right_op._matmul(rhs))


def test_product():
    op = Product(Sparse(torch.randn(2, 2)), Dense(torch.randn(2, 2)))
    assert op._matmul(torch.randn(2, 2)).shape == (2, 2)
"""


def _hy423(functions: tuple[FunctionVerdict, ...], qualname: str) -> list[str]:
    verdict = next(v for v in functions if v.facts.qualname == qualname)
    return [f.message for f in verdict.findings if f.code == "HY423"]


def _from_scratch(project: Project) -> tuple[FunctionVerdict, ...]:
    options = dataclasses.replace(project.options, use_cache=False)
    again = Project.from_texts(
        project.snapshot(), options, package=project.package, long_running=False
    )
    return again.results().functions


def _edited(tmp_path: Path, text: str, old: str, new: str) -> tuple[Project, Project]:
    """`m.py` of `text` analysed and kept open, then updated with `old` replaced by `new`; and
    the project of the edited text analysed from nothing. The verdict phase after the edit
    was incremental, and its verdicts equal the fresh analysis'."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "m.py").write_text(text, encoding="utf-8")
    project = Project.open(root, ProjectOptions(use_cache=False))
    assert project.results().functions == _from_scratch(project)
    assert old in text
    ast.parse(text.replace(old, new))
    project.update("m.py", text.replace(old, new))
    fresh_root = tmp_path / "fresh"
    fresh_root.mkdir()
    (fresh_root / "m.py").write_text(text.replace(old, new), encoding="utf-8")
    fresh = Project.open(fresh_root, ProjectOptions(use_cache=False))
    assert project.results().functions == fresh.results().functions
    assert project.analysis.incremental_verdicts == 1
    return project, fresh


# Each edit keeps the file's lines where they are, and a second form adds a line above the
# edited one (the phase then also moves the verdicts of the functions below it).
SAME_LINES, MOVED_LINES = "same lines", "moved lines"


def _noted(how: str, line: str) -> str:
    """`line`, after a comment line of its indentation for `MOVED_LINES`."""
    if how == SAME_LINES:
        return line
    indent = line[: len(line) - len(line.lstrip())]
    return f"{indent}# a note\n{line}"


GETTER_BREAK = '        pickle.dumps({"n": 2})\n'
GETTER_QUIET = '        len({"n": 2})\n'
WRAPPER_BREAK = "        key = (method.__name__, args, pickle.dumps(kwargs))\n"
WRAPPER_QUIET = "        key = (method.__name__, args, tuple(sorted(kwargs)))\n"
UNSEEN_CALL = "        return self.left_op._matmul(self.right_op._matmul(rhs))\n"
UNSEEN_ALONE = "        return torch.matmul(rhs, rhs)\n"

EDITS = [
    # `Net.f` reads `self.size`, whose getter runs `pickle.dumps` (its caller `Pair.log_prob`
    # may be compiled): HY423; the edit of the getter alone takes the break away, or adds it
    pytest.param(GETTER, "Net.f", GETTER_BREAK, GETTER_QUIET, id="getter-break-removed"),
    pytest.param(
        GETTER.replace(GETTER_BREAK, GETTER_QUIET),
        "Net.f",
        GETTER_QUIET,
        GETTER_BREAK,
        id="getter-break-added",
    ),
    # `Net.f` calls `self._size()`, decorated with the project's `@cached`, whose wrapper
    # runs `pickle.dumps`: the edit of the wrapper alone takes the break away
    pytest.param(WRAPPER, "Net.f", WRAPPER_BREAK, WRAPPER_QUIET, id="wrapper-break-removed"),
    # `Product._matmul` calls `._matmul()` of objects the analysis cannot see, so every
    # project `_matmul` may run in its graph: `Sparse._matmul` (`nonzero`, a break) gets
    # HY423; the edit of `Product._matmul` alone stops calling it, or starts
    pytest.param(
        UNSEEN_RECEIVER, "Sparse._matmul", UNSEEN_CALL, UNSEEN_ALONE, id="name-call-removed"
    ),
    pytest.param(
        UNSEEN_RECEIVER.replace(UNSEEN_CALL, UNSEEN_ALONE),
        "Sparse._matmul",
        UNSEEN_ALONE,
        UNSEEN_CALL,
        id="name-call-added",
    ),
]


@pytest.mark.parametrize("how", [SAME_LINES, MOVED_LINES])
@pytest.mark.parametrize(("text", "qualname", "old", "new"), EDITS)
def test_an_edit_off_the_call_graph_changes_the_readers_finding(
    tmp_path: Path, text: str, qualname: str, old: str, new: str, how: str
) -> None:
    """The edit of a function `qualname`'s verdict reads off the call graph gives or takes
    HY423 (the line with the break, or the name-matched call, is `old` before and `new`
    after); incrementally as from scratch."""
    had = bool(_hy423(_opened_functions(tmp_path / "before", text), qualname))
    assert had is (old in (GETTER_BREAK, WRAPPER_BREAK, UNSEEN_CALL))
    project, _ = _edited(tmp_path, text, old, _noted(how, new))
    assert bool(_hy423(project.results().functions, qualname)) is not had


def _opened_functions(root: Path, text: str) -> tuple[FunctionVerdict, ...]:
    root.mkdir()
    (root / "m.py").write_text(text, encoding="utf-8")
    return Project.open(root, ProjectOptions(use_cache=False)).results().functions
