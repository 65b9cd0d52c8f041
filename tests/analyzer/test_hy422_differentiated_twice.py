"""HY422: a function whose result a caller differentiates twice (higher-order gradients).

The check's examples (hybridize/check_examples/HY422) run through test_check_examples; these
tests pin which callers make the hazard (and which do not), and measure the claim on the
installed torch: AOTAutograd's compiled backward is not differentiable.
"""

from __future__ import annotations

import importlib.util

import pytest
from facts_helpers import verdict

PROGRAM = """
import torch
from torch.autograd.functional import hessian, hvp, jacobian


def energy(x):
    return (torch.sin(x) * x).sum()


def potential(x):
    return energy(x) * 0.5


def loss(x):
    return (torch.cos(x) * x).sum()


def penalty(x):
    x = x.detach().requires_grad_(True)
    (g,) = torch.autograd.grad(potential(x), x, create_graph=True)
    return g.norm()


def curvature(x):
    return hessian(energy, x)


def jacobian_only(x):
    return jacobian(loss, x)


def first_order(x):
    x = x.detach().requires_grad_(True)
    out = loss(x)
    out.backward(retain_graph=True)
    out.backward()
    return x.grad


for _ in range(100):
    data = torch.randn(4)
    penalty(data)
    curvature(data)
    jacobian_only(data)
    first_order(data)
"""


def _hy422(source: str, qualname: str) -> list[str]:
    return [f.message for f in verdict(source, qualname).findings if f.code == "HY422"]


def test_the_producer_of_a_create_graph_gradient_and_its_helpers_are_blocked() -> None:
    for qualname in ("potential", "energy"):
        v = verdict(PROGRAM, qualname)
        assert not v.passes
        assert "differentiated_twice" in v.failures
    [message] = _hy422(PROGRAM, "potential")
    assert "`penalty`" in message and "create_graph=True" in message


def test_a_callable_given_to_hessian_is_differentiated_twice() -> None:
    source = PROGRAM.replace("    penalty(data)\n", "")
    [message] = _hy422(source, "energy")
    assert "`curvature`" in message and "hessian" in message


def test_a_callable_given_to_gradgradcheck_is_differentiated_twice() -> None:
    source = PROGRAM.replace("    penalty(data)\n", "").replace(
        "return hessian(energy, x)", "return torch.autograd.gradgradcheck(energy, (x,))"
    )
    [message] = _hy422(source, "energy")
    assert "`curvature`" in message and "gradgradcheck" in message


def test_a_jacobian_runs_the_backward_repeatedly_and_a_first_order_backward_is_no_hazard() -> None:
    [message] = _hy422(PROGRAM, "loss")
    assert "`jacobian_only`" in message and "donated buffers" in message
    source = PROGRAM.replace("return jacobian(loss, x)", "return loss(x)")
    assert _hy422(source, "loss") == []


def test_a_module_given_to_jacobian_stands_for_its_forward() -> None:
    source = PROGRAM + (
        "\n\nclass Net(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        return torch.tanh(x) * 2\n\n\n"
        "def net_jacobian(x):\n"
        "    return jacobian(Net(), x)\n\n\n"
        "net_jacobian(torch.randn(3))\n"
    )
    [message] = _hy422(source, "Net.forward")
    assert "`net_jacobian`" in message and "jacobian" in message


def test_hvp_and_a_create_graph_jacobian_are_second_derivatives() -> None:
    for call in ("hvp(loss, x, torch.ones_like(x))", "jacobian(loss, x, create_graph=True)"):
        source = PROGRAM.replace("return jacobian(loss, x)", f"return {call}")
        assert _hy422(source, "loss") != [], call


def test_a_function_already_compiled_is_not_reported() -> None:
    source = PROGRAM.replace("def energy(x):", "@torch.compile\ndef energy(x):")
    assert _hy422(source, "energy") == []


MODEL_PROGRAM = """
import typing as tp

import torch


class Angular(torch.nn.Module):
    def cos_terms(self, x):
        return torch.cos(torch.acos(0.95 * x)) ** 2

    def forward(self, x):
        return self.cos_terms(x)


class ANI(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.angular = Angular()

    def forward(self, x):
        return self.angular(torch.cos(x)).sum(-1)


Model = tp.Union[ANI, None]


def forces(energies, coordinates, create_graph: bool = False):
    (g,) = torch.autograd.grad([energies.sum()], [coordinates], create_graph=create_graph)
    return -g


def energies_and_forces(model: Model, coordinates, create_graph: bool = False):
    energies = model(coordinates)
    return energies, forces(energies, coordinates, create_graph)


def energies_forces_and_hessians(model: Model, coordinates):
    energies, f = energies_and_forces(model, coordinates, create_graph=True)
    return torch.autograd.grad(f.sum(), coordinates)


for _ in range(100):
    energies_forces_and_hessians(torch.hub.load("repo", "ani"), torch.randn(4, requires_grad=True))
"""


def test_a_model_parameter_reaches_the_classes_its_annotation_names() -> None:
    """torchani 2.9.0's `energies_and_forces(model: Model, ...)`: the model is built where
    the project does not show (downloaded: `torch.hub.load` here), the annotation (a module-level alias of a Union)
    names the classes whose `forward` its call runs; the flag `create_graph` is a parameter
    two levels of callers set to True."""
    for qualname in ("ANI.forward", "Angular.forward", "Angular.cos_terms"):
        [message] = _hy422(MODEL_PROGRAM, qualname)
        assert "`forces`" in message and "create_graph=create_graph" in message
    unannotated = MODEL_PROGRAM.replace("model: Model,", "model,")
    assert _hy422(unannotated, "Angular.cos_terms") == []
    optional = MODEL_PROGRAM.replace("Model = tp.Union[ANI, None]", "Model = tp.Optional[ANI]")
    assert _hy422(optional, "Angular.cos_terms") != []


def test_a_submodule_stored_through_typing_cast_keeps_its_class() -> None:
    """torchani 2.9.0's `self.angular = _parse_angular_term(angular)` returns
    `typing.cast(_BaseAngular, term)`: `cast` returns its value unchanged (documented), so
    `self.angular(x)` still runs the term's `forward` and its compiled helper sits under the
    caller's double backward."""
    stored = "self.angular = Angular()"
    assert stored in MODEL_PROGRAM
    for cast in ("tp.cast(Angular, Angular())", "tp.cast('Angular', Angular())"):
        source = MODEL_PROGRAM.replace(stored, f"self.angular = {cast}")
        assert _hy422(source, "Angular.cos_terms") != [], cast
    # a call that does not return its argument keeps the term out of reach: the rule is the
    # documented identity of `cast`, not any call around a constructor
    opaque = MODEL_PROGRAM.replace(stored, "self.angular = tp.get_type_hints(Angular())")
    assert _hy422(opaque, "Angular.cos_terms") == []


def test_a_create_graph_parameter_counts_where_a_caller_passes_true() -> None:
    never_true = MODEL_PROGRAM.replace("create_graph=True)\n", "create_graph=False)\n")
    assert _hy422(never_true, "Angular.cos_terms") == []
    default_true = never_true.replace(
        "def forces(energies, coordinates, create_graph: bool = False)",
        "def forces(energies, coordinates, create_graph: bool = True)",
    )
    assert _hy422(default_true, "Angular.cos_terms") != []
    three_levels = (
        MODEL_PROGRAM.replace(
            "energies_and_forces(model, coordinates, create_graph=True)",
            "energies_and_forces(model, coordinates, create_graph=keep)",
        )
        .replace(
            "def energies_forces_and_hessians(model: Model, coordinates):",
            "def energies_forces_and_hessians(model: Model, coordinates, keep=False):",
        )
        .replace("torch.randn(4, requires_grad=True))", "torch.randn(4, requires_grad=True), True)")
    )
    assert _hy422(three_levels, "Angular.cos_terms") == []  # beyond MAX_FLAG_LEVELS


@pytest.mark.torch
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_a_compiled_backward_cannot_be_differentiated_again() -> None:
    """Measured under torch 2.13 (`aot_eager`: AOTAutograd without Inductor): the second
    derivative raises or, through `hessian`, is zeros; first-order gradients,
    `retain_graph=True` and `torch.func.hessian` match eager."""
    import warnings

    import torch
    import torch._dynamo
    from torch.autograd import functional

    def f(x: torch.Tensor) -> torch.Tensor:
        return (torch.sin(x) * x).sum()

    x = torch.tensor([0.5, 1.0, 2.0])
    v = torch.ones(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch._dynamo.reset()
        compiled = torch.compile(f, backend="aot_eager")

        def second_derivative(function: object) -> torch.Tensor:
            y = x.clone().requires_grad_(True)
            (g,) = torch.autograd.grad(function(y), y, create_graph=True)  # type: ignore[operator]
            (h,) = torch.autograd.grad(g.sum(), y)
            return h

        second_derivative(f)
        with pytest.raises(RuntimeError, match="does not currently support double backward"):
            second_derivative(compiled)
        for higher_order in (functional.hvp, functional.vhp, functional.jvp):
            with pytest.raises(RuntimeError, match="double backward"):
                higher_order(compiled, x, v)

        eager_hessian = functional.hessian(f, x)
        assert eager_hessian.abs().sum() > 0
        assert torch.equal(functional.hessian(compiled, x), torch.zeros(3, 3))

        def first_order(function: object) -> torch.Tensor:
            y = x.clone().requires_grad_(True)
            out = function(y)  # type: ignore[operator]
            out.backward(retain_graph=True)
            out.backward()
            assert y.grad is not None
            return y.grad

        assert torch.allclose(first_order(f), first_order(compiled))
        x64 = x.double().requires_grad_(True)
        assert torch.autograd.gradgradcheck(f, (x64,))
        with pytest.raises(RuntimeError, match="does not currently support double backward"):
            torch.autograd.gradgradcheck(compiled, (x64,))
        assert torch.allclose(torch.func.hessian(compiled)(x), eager_hessian)


@pytest.mark.torch
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_a_compiled_method_deep_in_a_model_given_as_a_parameter_breaks_its_hessian() -> None:
    """Measured under torch 2.13 (`aot_eager`), torchani 2.9.0's shape: a compiled method
    of a submodule, the model handed to a helper whose `create_graph` flag its caller sets:
    differentiated again, the gradient raises; with the flag False, one backward matches
    eager."""
    import warnings

    import torch
    import torch._dynamo

    class Angular(torch.nn.Module):
        def cos_terms(self, x: torch.Tensor) -> torch.Tensor:
            return torch.cos(torch.acos(0.95 * x)) ** 2

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.cos_terms(x)

    class ANI(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.angular = Angular()

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.angular(torch.cos(x)).sum(-1)

    def forces(model: ANI, x: torch.Tensor, create_graph: bool) -> torch.Tensor:
        (g,) = torch.autograd.grad([model(x).sum()], [x], create_graph=create_graph)
        return -g

    def hessian_row(model: ANI) -> torch.Tensor:
        x = torch.tensor([0.3, 0.7, 1.1], requires_grad=True)
        (h,) = torch.autograd.grad(forces(model, x, True).sum(), x)
        return h

    def gradient(model: ANI) -> torch.Tensor:
        return forces(model, torch.tensor([0.3, 0.7, 1.1], requires_grad=True), False)

    model = ANI()
    eager_row, eager_gradient = hessian_row(model), gradient(model)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch._dynamo.reset()
        model.angular.cos_terms = torch.compile(  # type: ignore[method-assign]
            model.angular.cos_terms, backend="aot_eager"
        )
        assert torch.allclose(gradient(model), eager_gradient)
        with pytest.raises(RuntimeError, match="does not currently support double backward"):
            hessian_row(model)
    assert eager_row.abs().sum() > 0


@pytest.mark.torch
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_a_compiled_backward_with_dynamic_shapes_runs_once() -> None:
    """`REPEATED_BACKWARD_CALLS`, measured under torch 2.13 (`aot_eager`; Inductor alike):
    `jacobian` and a retained backward run twice work through a graph with static shapes,
    and raise once the function was compiled again with dynamic shapes (donated buffers)."""
    import warnings

    import torch
    import torch._dynamo
    from torch.autograd import functional

    from hybridize.analyzer.frameworks import torch_rules

    weight = torch.randn(5, 3, requires_grad=True)

    def linear(x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.linear(x, weight.abs())

    def twice(function: object, x: torch.Tensor) -> None:
        y = function(x.clone().requires_grad_(True)).sum()  # type: ignore[operator]
        y.backward(retain_graph=True)
        y.backward()

    assert "torch.autograd.functional.jacobian" in torch_rules.REPEATED_BACKWARD_CALLS
    donated = "non-empty donated buffers"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch._dynamo.reset()
        compiled = torch.compile(linear, backend="aot_eager")
        x = torch.randn(8, 3)
        assert torch.allclose(functional.jacobian(compiled, x), functional.jacobian(linear, x))
        twice(compiled, torch.randn(8, 3))
        compiled(torch.randn(3))  # another shape: compiled again, with dynamic shapes
        with pytest.raises(RuntimeError, match=donated):
            functional.jacobian(compiled, torch.randn(6, 3))
        with pytest.raises(RuntimeError, match=donated):
            twice(compiled, torch.randn(6, 3))
        torch._dynamo.reset()
        dynamic = torch.compile(linear, backend="aot_eager", dynamic=True)
        with pytest.raises(RuntimeError, match=donated):
            functional.jacobian(dynamic, torch.randn(8, 3))
