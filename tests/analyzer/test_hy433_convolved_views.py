"""HY433: a view of a tensor made in compiled code handed to a 2-D convolution.

The check's examples (hybridize/check_examples/HY433) run through test_check_examples; these
tests pin how far the view is followed (a helper module's return, a `ModuleList` picked by
index, a network handed to a constructor, a `Sequential` holding the convolution) and the
near-misses (an op between the view and the convolution, a 1-D convolution, a linear layer, a
view used as a convolution's weight, a detached weight, a non-view slice), and measure the
claim on the installed torch: the views fail to compile before a 2-D convolution with
symbolic sizes, and each near-miss the rule leaves quiet compiles.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from facts_helpers import verdict

from hybridize.project import Project, ProjectOptions

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "project"))
from test_incremental import check

FLOWS = """
import torch
from torch import nn
import torch.nn.functional as F


class Split(nn.Module):
    def forward(self, z):
        z1, z2 = z.chunk(2, dim=1)
        return [z1, z2], 0


class Merge(Split):
    def inverse(self, z):
        return super().forward(z)


class ConvNet(nn.Module):
    def __init__(self, channels):
        super().__init__()
        net = nn.ModuleList([])
        for i in range(len(channels) - 1):
            net.append(nn.Conv2d(channels[i], channels[i + 1], 3, padding=1))
        self.net = nn.Sequential(*net)

    def forward(self, x):
        return self.net(x)


class Affine(nn.Module):
    def __init__(self, param_map):
        super().__init__()
        self.param_map = param_map

    def forward(self, z):
        z1, z2 = z
        return [z1, z2 + self.param_map(z1)], 0

    def inverse(self, z):
        z1, z2 = z
        return [z1, z2 - self.param_map(z1)], 0


class Block(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.flows = nn.ModuleList([])
        self.flows += [Split()]
        self.flows += [Affine(ConvNet((channels // 2, 8, channels // 2)))]
        self.flows += [Merge()]

    def forward(self, z):
        for flow in self.flows:
            z, _ = flow(z)
        return z

    def inverse(self, z):
        for i in range(len(self.flows) - 1, -1, -1):
            z, _ = self.flows[i].inverse(z)
        return z


class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 2, 3, padding=1)
        self.fc = nn.Linear(4, 4)
        self.conv1d = nn.Conv1d(2, 2, 3, padding=1)
        self.weight = nn.Parameter(torch.randn(4, 4))

    def transposed(self, x):
        return self.conv(x.transpose(2, 3))

    def scaled_half(self, x):
        return self.conv(x[:, :2] * 2.0)

    def linear_half(self, x):
        return self.fc(x[:, :2])

    def one_dimensional(self, x):
        return self.conv1d(x[:, :2])

    def weight_view(self, x):
        return F.conv2d(x, self.weight.view(4, 4, 1, 1))

    def flattened(self, x):
        return self.fc(self.conv(x).view(x.shape[0], -1))

    def named_half(self, x):
        c = x.shape[1] // 2
        return self.conv(x[:, :c])

    def starred_view(self, x):
        s = (x.shape[0], 2, 2 * x.shape[2], x.shape[3])
        return self.conv(x.view(*s))

    def starred_reshape(self, x, shape):
        return self.conv(x.reshape(*shape))

    def indexed_by_name(self, x, c):
        return self.conv(x[:, c : c + 1] * 2.0)

    def unwrapped(self, fn, x):
        while hasattr(fn, "func"):
            fn = fn.func
        return self.conv(fn(x[:, :2]))


def functional(x, w):
    return F.conv2d(x.narrow(1, 0, 2), w)


def detached(x, w):
    return F.conv2d(x[:, :2], w.detach())


def shuffled(x, w, perm):
    return F.conv2d(x[:, perm], w)
"""


@pytest.mark.parametrize(
    "qualname",
    [
        "Block.forward",
        "Block.inverse",
        "Scaled.transposed",
        "functional",
        "Scaled.named_half",  # a slice bounded by a name: a view all the same
        "Scaled.starred_view",  # sizes unpacked: the rank is not known, it may be 4-D
        "Scaled.starred_reshape",
    ],
)
def test_views_reaching_a_2d_convolution_block_compiling(qualname: str) -> None:
    """`Block`'s views are made in `Split.forward` (reached through `Merge.inverse`'s
    `super().forward` on the way back) and convolved in `ConvNet`, handed to `Affine`'s
    constructor, behind a `ModuleList` iterated or indexed: the analysis resolves none of
    these calls, so the region takes the modules `Block`'s constructor builds."""
    v = verdict({"m.py": FLOWS}, qualname)
    assert "HY433" in {f.code for f in v.findings}
    assert "convolves_views" in v.failures
    assert not v.passes


def test_a_local_rebound_from_itself_is_walked_to_an_end() -> None:
    """`fn = fn.func` made the walk of what a callee is held by recurse without end
    (RecursionError on gpytorch, HY902 on 21 functions)."""
    v = verdict({"m.py": FLOWS}, "Scaled.unwrapped")
    assert "HY902" not in {f.code for f in v.findings}


def test_the_finding_names_the_view_and_the_assumption() -> None:
    v = verdict({"m.py": FLOWS}, "Block.inverse")
    message = next(f.message for f in v.findings if f.code == "HY433")
    assert "`Split.forward`" in message and "`chunk`" in message
    assert "assumed" in message and "batch" in message


@pytest.mark.parametrize(
    "qualname",
    [
        "Scaled.scaled_half",  # an op first: a new tensor
        "Scaled.linear_half",  # no 2-D convolution
        "Scaled.one_dimensional",  # conv1d: no channels-last layout
        "Scaled.weight_view",  # the view is the weight
        "Scaled.flattened",  # a 2-D `view` after the convolution
        "detached",  # the weight needs no gradient
        "shuffled",  # advanced indexing copies
        "Scaled.indexed_by_name",  # a slice bounded by names, then an op: a new tensor
    ],
)
def test_near_misses_are_quiet(qualname: str) -> None:
    v = verdict({"m.py": FLOWS}, qualname)
    assert "HY433" not in {f.code for f in v.findings}


def _outcome(make_view, conv, *, dynamic: bool | None, shapes) -> str:  # type: ignore[no-untyped-def]
    import torch
    import torch._dynamo

    torch._dynamo.reset()

    def f(x):  # type: ignore[no-untyped-def]
        return conv(make_view(x)).sum()

    compiled = torch.compile(f, dynamic=dynamic)
    try:
        for shape in shapes:
            x = torch.randn(*shape)
            out = compiled(x)
            assert torch.allclose(out, f(x), rtol=1e-4, atol=1e-4)
    except Exception as error:  # the failure is what is measured
        return type(error).__name__ + ": " + str(error).splitlines()[0]
    return "ok"


@pytest.mark.torch
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_views_before_a_2d_convolution_fail_with_symbolic_sizes() -> None:
    """Measured under torch 2.13 CPU (Inductor): the views the rule reads fail to compile
    before a 2-D convolution once a size other than the batch is symbolic; the near-misses
    it leaves quiet compile. pytorch#185510."""
    import torch
    from torch import nn

    torch.manual_seed(0)
    conv = nn.Conv2d(2, 2, 3, padding=1)
    batch1 = [(1, 4, 5, 5)]
    failing = {
        "slice": (lambda x: x[:, :2], batch1),
        "chunk": (lambda x: x.chunk(2, dim=1)[1], batch1),
        "narrow": (lambda x: x.narrow(1, 0, 2), batch1),
        "contiguous slice": (lambda x: x[:, :2].contiguous(), batch1),
        "transpose, batch 2": (lambda x: x.transpose(2, 3), [(2, 2, 5, 5)]),
    }
    for name, (make_view, shapes) in failing.items():
        outcome = _outcome(make_view, conv, dynamic=True, shapes=shapes)
        assert "cannot determine truth value of Relational" in outcome, (name, outcome)
    # Automatic dynamic shapes (the default): a second spatial size makes them symbolic.
    outcome = _outcome(
        lambda x: x.chunk(2, dim=1)[0], conv, dynamic=None, shapes=[(1, 4, 5, 5), (1, 4, 6, 6)]
    )
    assert "cannot determine truth value of Relational" in outcome, outcome
    passing = {
        "batch 2 channel slice": (lambda x: x[:, :2], conv, [(2, 4, 5, 5)]),
        "op before the convolution": (lambda x: x[:, :2] * 1.0, conv, batch1),
        "linear": (lambda x: x[:, :2], nn.Linear(5, 3), batch1),
        "conv1d": (lambda x: x[:, :2], nn.Conv1d(2, 2, 3, padding=1), [(1, 4, 5)]),
    }
    for name, (make_view, module, shapes) in passing.items():
        assert _outcome(make_view, module, dynamic=True, shapes=shapes) == "ok", name

    # A slice bounded by a name and sizes unpacked into `view`/`reshape` (4-D, another
    # layout) fail alike; unpacking the same shape (a no-op view) compiles: the rule cannot
    # tell the sizes apart and counts every unpacked view.
    def named(x):  # type: ignore[no-untyped-def]
        c = x.shape[1] // 2
        return x[:, :c]

    def starred(x):  # type: ignore[no-untyped-def]
        sizes = (x.shape[0], 2, 2 * x.shape[2], x.shape[3])
        return x.view(*sizes)

    def starred_reshape(x):  # type: ignore[no-untyped-def]
        sizes = [x.shape[0], 2, 2 * x.shape[2], x.shape[3]]
        return x.reshape(*sizes)

    for make_view in (named, starred, starred_reshape):
        outcome = _outcome(make_view, conv, dynamic=True, shapes=batch1)
        assert "cannot determine truth value of Relational" in outcome, (make_view, outcome)
    conv4 = nn.Conv2d(4, 2, 3, padding=1)
    assert _outcome(lambda x: x.view(*x.shape), conv4, dynamic=True, shapes=batch1) == "ok"
    # Static shapes, and weights that need no gradient, compile the same view.
    assert _outcome(lambda x: x[:, :2], conv, dynamic=False, shapes=batch1) == "ok"
    frozen = nn.Conv2d(2, 2, 3, padding=1).requires_grad_(False)
    assert _outcome(lambda x: x[:, :2], frozen, dynamic=True, shapes=batch1) == "ok"


LAYERS = """
from torch import nn


class Inner(nn.Module):
    def __init__(self):
        super().__init__()
        self.first = nn.Linear(2, 2)

    def forward(self, x):
        return self.first(x)
"""

NETS = """
from torch import nn

from layers import Inner


class Split(nn.Module):
    def forward(self, z):
        return z.chunk(2, dim=1)


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = Inner()

    def forward(self, x):
        return self.inner(x)
"""

BLOCK = """
from torch import nn

from nets import ConvNet, Split


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.flows = nn.ModuleList([Split(), ConvNet()])

    def forward(self, z):
        for flow in self.flows:
            z = flow(z)
        return z
"""


def test_an_edit_of_a_module_a_block_builds_decides_the_block_again(
    make_project: Callable[[dict[str, str | bytes]], Path],
) -> None:
    """`Block.forward` calls nothing an edit of layers.py changes, and block.py does not
    import it, but its region takes what the modules `Block` builds build (`ConvNet`'s
    `Inner`): the check's project fact (`convolution_layout`) has the incremental phase
    decide it again, as a fresh analysis does."""
    root = make_project({"layers.py": LAYERS, "nets.py": NETS, "block.py": BLOCK})
    project = Project.open(root, ProjectOptions(use_cache=False))
    check(project, "opened")
    assert "HY433" not in _codes(project, "Block.forward")
    project.update(root / "layers.py", LAYERS.replace("nn.Linear(2, 2)", "nn.Conv2d(2, 2, 3)"))
    check(project, "a convolution built")
    assert "HY433" in _codes(project, "Block.forward")


def _codes(project: Project, qualname: str) -> list[str]:
    [found] = [v for v in project.results().functions if v.qualname == qualname]
    return [finding.code for finding in found.findings]
