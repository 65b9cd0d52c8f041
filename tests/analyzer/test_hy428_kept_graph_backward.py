"""HY428: a function whose backward a caller runs with the graph kept, or batched.

The check's examples (hybridize/check_examples/HY428) run through test_check_examples; these
tests pin which callers make the hazard (and which do not), and measure the claim on the
installed torch: a compiled backward that saves an intermediate has donated buffers and runs
once, and Inductor's compiled backward refuses batched output gradients.
"""

from __future__ import annotations

import importlib.util

import pytest
from facts_helpers import verdict

PROGRAM = """
import torch
from torch.distributions import Transform


def energy(x, w):
    return torch.tanh(x @ w) @ w


def helper(x, w):
    return energy(x, w) * 2


def forces(x, w, create_graph):
    x = x.detach().requires_grad_(True)
    y = helper(x, w).sum()
    return torch.autograd.grad(y, x, create_graph=create_graph)[0]


def once(x, w):
    x = x.detach().requires_grad_(True)
    return torch.autograd.grad(energy(x, w).sum(), x, retain_graph=False)[0]


class Scale(Transform):
    def _call(self, x):
        return x * 2


class Other(Transform):
    def _call(self, x):
        return energy(x, x)


class Composed(Transform):
    def __init__(self, *parts):
        super().__init__()
        self.parts = parts

    def _call(self, x):
        for part in self.parts:
            x = part(x)
        return x


def jac(x):
    return torch.autograd.functional.jacobian(Composed(Scale()), x)


for _ in range(100):
    forces(torch.randn(4, 4), torch.randn(4, 4), torch.is_grad_enabled())
    once(torch.randn(4, 4), torch.randn(4, 4))
    jac(torch.randn(4))
"""


def _hy428(source: str, qualname: str) -> list[str]:
    return [f.message for f in verdict(source, qualname).findings if f.code == "HY428"]


def test_a_flag_computed_at_run_time_may_keep_the_graph_and_blocks_the_producers() -> None:
    for qualname in ("helper", "energy"):
        v = verdict(PROGRAM, qualname)
        assert not v.passes
        assert "kept_graph_backward" in v.failures
    [message] = _hy428(PROGRAM, "helper")
    assert "`forces`" in message and "create_graph=..." in message and "donated" in message


def test_a_literal_false_and_a_plain_backward_are_no_hazard() -> None:
    source = PROGRAM.replace("create_graph=create_graph", "create_graph=False")
    source = source.replace("return energy(x, x)", "return x * 3")
    assert _hy428(source, "helper") == []
    assert _hy428(source, "energy") == []


def test_a_transform_handed_to_jacobian_stands_for_every_transform_of_the_project() -> None:
    """`Composed` forwards to the transforms it holds, which the analysis cannot see: the
    methods of every project `Transform` run, `Other._call` (never composed here) and its
    callee `energy` included."""
    source = PROGRAM.replace("create_graph=create_graph", "create_graph=False")
    for qualname in ("Other._call", "energy"):
        [message] = _hy428(source, qualname)
        assert "`jac`" in message and "jacobian" in message


def test_batched_output_gradients_are_their_own_reason() -> None:
    source = PROGRAM.replace("create_graph=create_graph", "is_grads_batched=True")
    [message] = _hy428(source, "helper")
    assert "is_grads_batched=..." in message and "batched" in message


def test_a_function_hy422_reports_is_left_to_it() -> None:
    source = PROGRAM.replace("create_graph=create_graph", "create_graph=True")
    codes = {f.code for f in verdict(source, "helper").findings}
    assert "HY422" in codes and "HY428" not in codes


@pytest.mark.torch
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_a_compiled_backward_with_donated_buffers_runs_once_and_refuses_batches() -> None:
    """Measured under torch 2.13: AOTAutograd compiles a graph's backward on its first run,
    donating the saved buffers when that run does not keep the graph. `tanh(x @ w) @ w`
    saves an intermediate: after a plain backward, every backward of the graph that keeps it
    raises (static shapes, no recompile); run first, a kept-graph backward compiles a backward
    without donation and all later ones pass. `sin(x) * x` saves none. `vjp` and
    `torch.func` match eager; Inductor's backward refuses `is_grads_batched` even without
    donated buffers."""
    import warnings

    import torch
    import torch._dynamo
    from torch.autograd import functional

    from hybridize.analyzer.frameworks import torch_rules

    w = torch.randn(4, 4, requires_grad=True)

    def saves(x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(x @ w) @ w

    def recomputes(x: torch.Tensor) -> torch.Tensor:
        return torch.sin(x) * x

    def leaf() -> torch.Tensor:
        return torch.randn(3, 4).requires_grad_(True)

    keep = torch_rules.KEPT_GRAPH_BACKWARD_KEYWORDS["torch.autograd.grad"]
    assert {"retain_graph", "create_graph", "is_grads_batched"} <= set(keep)
    donated = "non-empty donated buffers"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch._dynamo.reset()
        compiled = torch.compile(saves, backend="aot_eager")
        x = leaf()
        compiled(x).sum().backward()  # the first backward: compiled with donated buffers
        assert x.grad is not None
        with pytest.raises(RuntimeError, match=donated):
            compiled(leaf()).sum().backward(retain_graph=True)
        x = leaf()
        with pytest.raises(RuntimeError, match=donated):
            torch.autograd.grad(compiled(x).sum(), x, create_graph=True)
        with pytest.raises(RuntimeError, match=donated):
            functional.jacobian(compiled, torch.randn(3, 4))
        _, (vjp,) = functional.vjp(compiled, (torch.randn(3, 4),), torch.ones(3, 4))
        assert vjp.shape == (3, 4)
        xs = torch.randn(3, 4)
        assert torch.allclose(torch.func.jacrev(compiled)(xs), torch.func.jacrev(saves)(xs))

        torch._dynamo.reset()
        kept_first = torch.compile(saves, backend="aot_eager")
        out = kept_first(leaf()).sum()
        out.backward(retain_graph=True)
        out.backward()
        kept_first(leaf()).sum().backward(retain_graph=True)

        torch._dynamo.reset()
        pointwise = torch.compile(recomputes, backend="aot_eager")
        x = leaf()
        pointwise(x).sum().backward()
        out = pointwise(leaf()).sum()
        out.backward(retain_graph=True)
        out.backward()

        torch._dynamo.reset()
        inductor = torch.compile(recomputes)
        x = leaf()
        y = inductor(x)
        batch = torch.eye(y.numel()).reshape(-1, *y.shape)
        with pytest.raises(RuntimeError, match="doesn't have storage"):
            torch.autograd.grad(y, x, batch, is_grads_batched=True)
