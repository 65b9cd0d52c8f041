"""How far HY422/HY428 reach: through the parameters of a helper that differentiates, through
`functools.partial` objects, through a container module's constructor.

normflows 1.7.3's residual flows hand a network's output to helpers that differentiate their
parameter (`batch_jacobian(g, x)`, `estimator_fn(g, x, ..., training)`); zuko 1.6.0's
transforms hold `partial(self.f, signal)` and call it under `grad(..., create_graph=...)`,
and its `MLP(nn.Sequential)` builds its layers in `__init__`. Compiled, those networks'
`forward`s failed the libraries' tests ("does not currently support double backward",
donated buffers). The last test measures again, on the installed torch, the two framework
facts the reach rests on.
"""

from __future__ import annotations

import importlib.util

import pytest
from facts_helpers import analyse, verdict

RESIDUAL = """
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(4, 4))

    def forward(self, x):
        return torch.tanh(x @ self.w) @ self.w


def prepare(y):
    return torch.tanh(y @ y)


def estimate(g, x, training):
    return torch.autograd.grad(g.sum(), x, create_graph=training)[0]


def jacobian_of(g, x):
    return torch.autograd.grad(g.sum(), x, create_graph=True)[0]


class Block(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def log_det(self, y):
        x = prepare(y).detach().requires_grad_(True)
        g = self.net(x)
        return estimate(g, x, self.training)

    def exact(self, y):
        x = prepare(y).detach().requires_grad_(True)
        return jacobian_of(self.net(x), x)


block = Block(Net())
for _ in range(100):
    block.log_det(torch.randn(4, 4))
"""


def test_a_helper_differentiating_its_parameter_reaches_what_the_callers_pass() -> None:
    v = verdict(RESIDUAL, "Net.forward")
    assert not v.passes
    codes = {f.code for f in v.findings}
    # `jacobian_of` differentiates twice (create_graph=True): HY422 names it; HY428 leaves it.
    assert "HY422" in codes and "HY428" not in codes
    [message] = [f.message for f in v.findings if f.code == "HY422"]
    assert "`jacobian_of`" in message


def test_a_run_time_flag_through_a_helper_is_hy428s() -> None:
    source = RESIDUAL.replace("create_graph=True", "create_graph=False")
    [message] = [f.message for f in verdict(source, "Net.forward").findings if f.code == "HY428"]
    assert "`estimate`" in message and "create_graph=..." in message


def test_what_the_gradient_is_taken_with_respect_to_is_not_reached() -> None:
    """`grad(g, x)` runs the backward from `g` back to `x`, not into what computed `x`."""
    verdicts = analyse(RESIDUAL)
    codes = {f.code for f in verdicts["prepare"].findings}
    assert not codes & {"HY422", "HY428"}
    assert verdicts["prepare"].passes


def test_without_the_helper_call_nothing_is_reached() -> None:
    source = RESIDUAL.replace("return estimate(g, x, self.training)", "return g")
    source = source.replace("return jacobian_of(self.net(x), x)", "return x")
    assert verdict(source, "Net.forward").passes


PARTIAL = """
import functools
import torch
from torch import nn


class Linear(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.w = nn.Parameter(torch.randn(n, n))

    def forward(self, x):
        return torch.tanh(x @ self.w) @ self.w


class MLP(nn.Sequential):
    def __init__(self, n):
        layers = [Linear(n), nn.ReLU()]
        super().__init__(*layers)


class Monotonic:
    def __init__(self, f):
        self.f = f

    def call_and_ladj(self, x, create_graph):
        x = x.clone().requires_grad_()
        y = self.f(x)
        return torch.autograd.grad(y.sum(), x, create_graph=create_graph)[0]


class Maker(nn.Module):
    def __init__(self):
        super().__init__()
        self.network = MLP(4)

    def f(self, signal, x):
        return self.network(x * signal)

    def forward(self, signal):
        return Monotonic(functools.partial(self.f, signal))


def scale(factor, x):
    return x * factor


maker = Maker()
for _ in range(100):
    maker(torch.randn(4)).call_and_ladj(torch.randn(4, 4), torch.is_grad_enabled())
    functools.partial(scale, 3)(torch.randn(4))
"""


def test_a_partial_object_calls_what_it_wraps_and_a_container_its_modules() -> None:
    for qualname in ("Maker.f", "Linear.forward"):
        v = verdict(PARTIAL, qualname)
        assert "kept_graph_backward" in v.failures, qualname
        [message] = [f.message for f in v.findings if f.code == "HY428"]
        assert "`Monotonic.call_and_ladj`" in message


def test_a_partial_objects_arguments_come_before_the_calls() -> None:
    """`partial(scale, 3)(x)` calls `scale(3, x)`: `factor` receives the int, `x` the tensor."""
    params = {p.name: p for p in verdict(PARTIAL, "scale").facts.params}
    assert params["x"].is_tensor
    assert not params["factor"].is_tensor


def test_without_the_partial_the_wrapped_method_is_not_reached() -> None:
    source = PARTIAL.replace("functools.partial(self.f, signal)", "None")
    assert "kept_graph_backward" not in verdict(source, "Maker.f").failures


@pytest.mark.torch
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_the_backward_stops_at_the_inputs_and_a_partial_runs_compiled_code() -> None:
    """Measured under torch 2.13 (`aot_eager`): after a plain backward has compiled a
    function's backward with donated buffers, `grad(g(x), x, create_graph=True)` with `x`
    computed by that function (then detached) does not run its backward and passes, while
    calling it through `functools.partial` under such a backward raises."""
    import functools
    import warnings

    import torch
    import torch._dynamo

    w = torch.randn(4, 4, requires_grad=True)

    def saves(x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(x @ w) @ w

    def leaf() -> torch.Tensor:
        return torch.randn(3, 4).requires_grad_(True)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch._dynamo.reset()
        compiled = torch.compile(saves, backend="aot_eager")
        compiled(leaf()).sum().backward()  # compiled with donated buffers
        x = compiled(leaf()).detach().requires_grad_(True)
        (g,) = torch.autograd.grad(torch.sin(x).sum(), x, create_graph=True)
        assert g.shape == (3, 4)
        wrapped = functools.partial(compiled)
        x = leaf()
        with pytest.raises(RuntimeError, match="non-empty donated buffers"):
            torch.autograd.grad(wrapped(x).sum(), x, create_graph=True)
