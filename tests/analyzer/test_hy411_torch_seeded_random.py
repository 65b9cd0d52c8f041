"""HY411 under torch.compile: a seeded program's random draws, which Inductor makes anew.

The check's examples (hybridize/check_examples/HY411, the PyTorch ones among them) run
through test_check_examples; these tests pin the analyzer's reading of PyTorch code (which
draws count, what seeds, what a generator changes) and measure the claim on the installed
torch: Inductor draws other numbers than eager after the same `torch.manual_seed`.
"""

from __future__ import annotations

import importlib.util

import pytest
from facts_helpers import verdict

SEEDED = """
import torch
import torch.nn.functional as F

torch.manual_seed(0)


def jitter(x):
    return x + torch.randn(x.shape) * 0.01


def augment(x):
    return jitter(x) * 2.0


def masked(x):
    return F.dropout(x, 0.2)


def filled(x):
    return x + torch.empty_like(x).uniform_(-1.0, 1.0)


def with_generator(x, rng):
    return x + torch.rand(x.shape, generator=rng)


def deterministic(x):
    return torch.tanh(x) * 2.0


rng = torch.Generator().manual_seed(1)
for _ in range(100):
    data = torch.ones(4, 4)
    augment(data)
    masked(data)
    filled(data)
    with_generator(data, rng)
    deterministic(data)
"""


def _hy411(source: str, qualname: str) -> list[str]:
    return [f.message for f in verdict(source, qualname).findings if f.code == "HY411"]


@pytest.mark.parametrize("qualname", ["jitter", "augment", "masked", "filled"])
def test_a_draw_from_the_seeded_default_generator_blocks_the_function(qualname: str) -> None:
    v = verdict(SEEDED, qualname)
    assert not v.passes
    assert v.fact("draws_seeded_global_random") is True
    [message] = _hy411(SEEDED, qualname)
    assert "`torch.manual_seed`" in message


def test_the_helper_that_draws_is_named_in_its_callers_finding() -> None:
    [message] = _hy411(SEEDED, "augment")
    assert "jitter" in message


@pytest.mark.parametrize("qualname", ["with_generator", "deterministic"])
def test_a_generator_of_its_own_or_no_draw_is_no_hazard(qualname: str) -> None:
    assert _hy411(SEEDED, qualname) == []


def test_without_a_seed_the_draws_are_no_hazard() -> None:
    unseeded = SEEDED.replace("torch.manual_seed(0)\n", "")
    assert _hy411(unseeded, "masked") == []


def test_a_cuda_seed_counts_as_seeding() -> None:
    cuda_seeded = SEEDED.replace("torch.manual_seed(0)", "torch.cuda.manual_seed_all(0)")
    assert _hy411(cuda_seeded, "masked") != []


def test_a_generator_that_may_be_none_draws_from_the_default_stream() -> None:
    source = SEEDED.replace("def with_generator(x, rng):", "def with_generator(x, rng=None):")
    source = source.replace("with_generator(data, rng)", "with_generator(data)")
    assert _hy411(source, "with_generator") != []


@pytest.mark.torch
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_inductor_draws_other_numbers_than_eager_after_the_same_seed() -> None:
    """Measured under torch 2.13: Inductor's draws and the eager draw after them differ from
    eager's under one seed; a generator of the function's own and `fallback_random` match."""
    import warnings

    import torch
    import torch._dynamo
    import torch._inductor.config as inductor_config

    x = torch.ones(4)

    def noisy(x: torch.Tensor) -> torch.Tensor:
        return x + torch.rand(4)

    def own_stream(x: torch.Tensor, rng: torch.Generator) -> torch.Tensor:
        return x + torch.rand(4, generator=rng)

    def draws(function: object, *extra: object) -> tuple[torch.Tensor, torch.Tensor]:
        torch.manual_seed(0)
        drawn = torch.cat([function(x, *extra) for _ in range(2)])  # type: ignore[operator]
        return drawn, torch.rand(2)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch._dynamo.reset()
        eager, eager_next = draws(noisy)
        compiled, compiled_next = draws(torch.compile(noisy, backend="inductor"))
        assert not torch.equal(eager, compiled)
        assert not torch.equal(eager_next, compiled_next)

        rng = torch.Generator()
        rng.manual_seed(3)
        own_eager = own_stream(x, rng)
        rng.manual_seed(3)
        own_compiled = torch.compile(own_stream, backend="inductor")(x, rng)
        assert torch.equal(own_eager, own_compiled)

        torch._dynamo.reset()
        with inductor_config.patch(fallback_random=True):
            fallback, fallback_next = draws(torch.compile(noisy, backend="inductor"))
        assert torch.equal(eager, fallback)
        assert torch.equal(eager_next, fallback_next)


DROPOUT_MODULE = """
import torch
from torch import nn

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.drop = nn.Dropout(0.5)

    def forward(self, x):
        return self.drop(self.lin(x))


class Plain(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def forward(self, x):
        return torch.relu(self.lin(x))


net, plain = Net(), Plain()
for _ in range(100):
    net(torch.randn(2, 3))
    plain(torch.randn(2, 3))
"""


def test_a_dropout_module_called_in_forward_draws_from_the_seeded_generator() -> None:
    [message] = _hy411(DROPOUT_MODULE, "Net.forward")
    assert "`torch.nn.Dropout`" in message
    assert _hy411(DROPOUT_MODULE, "Plain.forward") == []


DISTRIBUTIONS = """
import torch
from torch import distributions as D
from torch.distributions import Bernoulli, Normal

torch.manual_seed(0)


def flip(p):
    return Bernoulli(probs=p).sample() * 2.0


def spread(x):
    d = D.uniform.Uniform(x, x + 1.0)
    return d.rsample() * 2.0


class Waiting(D.Exponential):
    pass


def wait(rate):
    return Waiting(rate).rsample() + rate


def gauss(x):
    return Normal(x, 1.0).rsample() + x


class Fixed(D.Uniform):
    def rsample(self, sample_shape=torch.Size()):
        return self.low * 1.0


def fixed(x):
    return Fixed(x, x + 1.0).rsample() * 2.0


for _ in range(100):
    data = torch.rand(4) + 0.5
    flip(torch.sigmoid(data))
    spread(data)
    wait(data)
    gauss(data)
    fixed(data)
"""


@pytest.mark.parametrize(
    ("qualname", "sampler"),
    [
        ("flip", "torch.distributions.Bernoulli.sample"),
        ("spread", "torch.distributions.uniform.Uniform.rsample"),
        ("wait", "torch.distributions.Exponential.rsample"),
    ],
)
def test_a_distribution_sampler_drawing_with_a_replaced_op_blocks_the_function(
    qualname: str, sampler: str
) -> None:
    v = verdict(DISTRIBUTIONS, qualname)
    assert not v.passes
    [message] = _hy411(DISTRIBUTIONS, qualname)
    assert f"`{sampler}`" in message


@pytest.mark.parametrize("qualname", ["gauss", "fixed"])
def test_a_sampler_inductor_leaves_to_eager_or_the_project_overrides_is_no_hazard(
    qualname: str,
) -> None:
    assert _hy411(DISTRIBUTIONS, qualname) == []


def test_without_a_seed_a_distribution_draw_is_no_hazard() -> None:
    unseeded = DISTRIBUTIONS.replace("torch.manual_seed(0)\n", "")
    assert _hy411(unseeded, "flip") == []


@pytest.mark.torch
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_inductor_changes_the_draws_of_some_distribution_samplers_only() -> None:
    """Measured under torch 2.13: after the same seed, compiled `Uniform.rsample` and
    `Bernoulli.sample` (`torch.rand`, `torch.bernoulli`) draw other numbers than eager, and
    the eager draw after them moves; `Normal.rsample` (`torch.normal`) draws the same."""
    import warnings

    import torch
    import torch._dynamo
    from torch import distributions as D

    x = torch.zeros(4)

    def uniform(x: torch.Tensor) -> torch.Tensor:
        return D.Uniform(x, x + 1.0).rsample()

    def bernoulli(x: torch.Tensor) -> torch.Tensor:
        return D.Bernoulli(probs=torch.sigmoid(x)).sample()

    def normal(x: torch.Tensor) -> torch.Tensor:
        return D.Normal(x, torch.ones(4)).rsample()

    def draws(function: object) -> tuple[torch.Tensor, torch.Tensor]:
        torch.manual_seed(0)
        drawn = torch.cat([function(x) for _ in range(2)])  # type: ignore[operator]
        return drawn, torch.rand(2)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for sampler, changed in ((uniform, True), (bernoulli, True), (normal, False)):
            torch._dynamo.reset()
            eager, eager_next = draws(sampler)
            compiled, compiled_next = draws(torch.compile(sampler, backend="inductor"))
            assert torch.equal(eager, compiled) is not changed, sampler.__name__
            assert torch.equal(eager_next, compiled_next) is not changed, sampler.__name__
