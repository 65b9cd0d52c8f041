"""HY420: a torch.distributions object built from a Python float that differs between calls.

The check's examples (hybridize/check_examples/HY420) run through test_check_examples; these
tests pin where the varying float may come from (a parameter, a module attribute, a global,
through a helper, a project subclass of a distribution) and the near-misses (a constant, an
int, a tensor, a float that becomes a tensor first), and measure the claim on the installed
torch: one compilation per value, where a plain float compiles twice.
"""

from __future__ import annotations

import importlib.util

import pytest
from facts_helpers import verdict

MODULE = """
import torch
from torch import nn
from torch.distributions import Normal


class ScaledNormal(Normal):
    pass


class Annealed(nn.Module):
    def __init__(self):
        super().__init__()
        self.temperature = 1.0
        self.width = 2

    def forward(self, x):
        return Normal(0.0, self.temperature).log_prob(x).sum()

    def subclassed(self, x):
        return ScaledNormal(0.0, self.temperature).log_prob(x).sum()

    def by_int(self, x):
        return Normal(0.0, self.width).log_prob(x).sum()

    def through_a_tensor(self, x):
        return Normal(0.0, torch.ones(()) * self.temperature).log_prob(x).sum()


def by_int_parameter(x, n):
    return Normal(0.0, float(n) * 0.5).log_prob(x).sum()


model = Annealed()
for step in range(100):
    model.temperature = 1.0 + step * 0.01
    model.width = step
    data = torch.randn(8)
    model(data)
    model.subclassed(data)
    model.by_int(data)
    model.through_a_tensor(data)
    by_int_parameter(data, step)
"""


def _hy420(qualname: str) -> list[str]:
    return [f.message for f in verdict(MODULE, qualname).findings if f.code == "HY420"]


def test_a_reassigned_float_attribute_blocks_the_forward() -> None:
    v = verdict(MODULE, "Annealed.forward")
    assert not v.passes
    assert "builds_distributions_from_varying_floats" in v.failures
    [message] = _hy420("Annealed.forward")
    assert "`self.temperature`" in message and "module code reassigns" in message


def test_a_project_subclass_of_a_distribution_counts() -> None:
    [message] = _hy420("Annealed.subclassed")
    assert "`ScaledNormal`" in message


@pytest.mark.parametrize(
    "qualname", ["Annealed.by_int", "Annealed.through_a_tensor", "by_int_parameter"]
)
def test_ints_and_floats_made_tensors_are_no_hazard(qualname: str) -> None:
    assert _hy420(qualname) == []


@pytest.mark.torch
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_a_distribution_of_a_varying_float_compiles_once_per_value() -> None:
    """Measured under torch 2.13 (`aot_eager`): four floats, a frame each for a distribution
    (also with dynamic=True), two for plain arithmetic; an int or a tensor does not."""
    import warnings

    import torch
    import torch._dynamo
    from torch._dynamo.testing import CompileCounterWithBackend

    x = torch.randn(4)

    def frames(function: object, values: list[object], **options: object) -> int:
        torch._dynamo.reset()
        counter = CompileCounterWithBackend("aot_eager")
        compiled = torch.compile(function, backend=counter, **options)  # type: ignore[call-overload]
        for value in values:
            compiled(x, value)
        return int(counter.frame_count)

    def distribution(x: torch.Tensor, s: object) -> torch.Tensor:
        return torch.distributions.Normal(0.0, s).log_prob(x)

    def arithmetic(x: torch.Tensor, s: float) -> torch.Tensor:
        return x / s

    floats: list[object] = [1.0, 2.0, 3.0, 4.0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert frames(distribution, floats) >= 4
        assert frames(distribution, floats, dynamic=True) >= 4
        assert frames(arithmetic, floats) <= 2
        assert frames(distribution, [1, 2, 3, 4]) <= 2
        assert frames(distribution, [torch.tensor(v) for v in floats]) <= 2
