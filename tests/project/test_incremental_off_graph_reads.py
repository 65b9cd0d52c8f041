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

GETTER = """\
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

WRAPPER = """\
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


@pytest.mark.parametrize("how", [SAME_LINES, MOVED_LINES])
def test_a_break_removed_from_a_property_getter_clears_the_readers_finding(
    tmp_path: Path, how: str
) -> None:
    """`Net.f` reads `self.size`, whose getter runs `pickle.dumps`: HY423 (its caller
    `Pair.log_prob` may be compiled). The edit of the getter alone takes the break away."""
    before = _opened_functions(tmp_path / "before", GETTER)
    assert _hy423(before, "Net.f")
    old = '        pickle.dumps({"n": 2})\n'
    project, _ = _edited(tmp_path, GETTER, old, _noted(how, '        len({"n": 2})\n'))
    assert not _hy423(project.results().functions, "Net.f")


@pytest.mark.parametrize("how", [SAME_LINES, MOVED_LINES])
def test_a_break_added_to_a_property_getter_gives_the_reader_the_finding(
    tmp_path: Path, how: str
) -> None:
    """The other way: a getter without a break (no HY423 for `Net.f`) edited to run
    `pickle.dumps`."""
    quiet = GETTER.replace('pickle.dumps({"n": 2})', 'len({"n": 2})')
    assert not _hy423(_opened_functions(tmp_path / "before", quiet), "Net.f")
    old = '        len({"n": 2})\n'
    project, _ = _edited(tmp_path, quiet, old, _noted(how, '        pickle.dumps({"n": 2})\n'))
    assert _hy423(project.results().functions, "Net.f")


@pytest.mark.parametrize("how", [SAME_LINES, MOVED_LINES])
def test_a_break_removed_from_a_decorators_wrapper_clears_the_callers_finding(
    tmp_path: Path, how: str
) -> None:
    """`Net.f` calls `self._size()`, decorated with the project's `@cached`, whose wrapper
    runs `pickle.dumps`: HY423. The edit of the wrapper alone takes the break away."""
    assert _hy423(_opened_functions(tmp_path / "before", WRAPPER), "Net.f")
    old = "        key = (method.__name__, args, pickle.dumps(kwargs))\n"
    new = "        key = (method.__name__, args, tuple(sorted(kwargs)))\n"
    project, _ = _edited(tmp_path, WRAPPER, old, _noted(how, new))
    assert not _hy423(project.results().functions, "Net.f")


@pytest.mark.parametrize("how", [SAME_LINES, MOVED_LINES])
def test_a_name_matched_call_removed_clears_the_methods_finding(tmp_path: Path, how: str) -> None:
    """`Product._matmul` calls `._matmul()` of objects the analysis cannot see, so every
    project `_matmul` may run in its graph: `Sparse._matmul` (`nonzero`, a break) gets HY423.
    Once `Product._matmul` calls no such method, no compilable caller runs it."""
    assert _hy423(_opened_functions(tmp_path / "before", UNSEEN_RECEIVER), "Sparse._matmul")
    old = "        return self.left_op._matmul(self.right_op._matmul(rhs))\n"
    new = "        return torch.matmul(rhs, rhs)\n"
    project, _ = _edited(tmp_path, UNSEEN_RECEIVER, old, _noted(how, new))
    assert not _hy423(project.results().functions, "Sparse._matmul")


@pytest.mark.parametrize("how", [SAME_LINES, MOVED_LINES])
def test_a_name_matched_call_added_gives_the_method_the_finding(tmp_path: Path, how: str) -> None:
    """The other way: `Product._matmul` computing on its own (no HY423 for `Sparse._matmul`)
    edited to call `._matmul()` of its unseen operands."""
    alone = UNSEEN_RECEIVER.replace(
        "self.left_op._matmul(self.right_op._matmul(rhs))", "torch.matmul(rhs, rhs)"
    )
    assert not _hy423(_opened_functions(tmp_path / "before", alone), "Sparse._matmul")
    old = "        return torch.matmul(rhs, rhs)\n"
    new = "        return self.left_op._matmul(self.right_op._matmul(rhs))\n"
    project, _ = _edited(tmp_path, alone, old, _noted(how, new))
    assert _hy423(project.results().functions, "Sparse._matmul")


def _opened_functions(root: Path, text: str) -> tuple[FunctionVerdict, ...]:
    root.mkdir()
    (root / "m.py").write_text(text, encoding="utf-8")
    return Project.open(root, ProjectOptions(use_cache=False)).results().functions
