"""HY430: returned tensors computed from one another, and a backward with non-leaf inputs.

The check's examples (hybridize/check_examples/HY430) run through test_check_examples; these
tests pin which results and which backwards make the hazard (and which do not), and measure
the claim on the installed torch: the outputs of a compiled graph no longer depend on one
another in autograd.
"""

from __future__ import annotations

import importlib.util

import pytest
from facts_helpers import analyse

PROGRAM = """
import torch


class Scaled:
    def __init__(self, scale):
        self.scale = scale
        self.factor = torch.exp(scale)


class Block(torch.nn.Module):
    def forward(self, x):
        return x


def pair(c, w):
    a = c @ w
    return a, torch.exp(a)


def given(a, w):
    return a, a @ w


def unrelated(c, w):
    return c @ w, torch.exp(w)


def scaled(c, w):
    return Scaled(c @ w)


def block(c, w):
    return Block()


def sensitivity(t, x):
    return torch.autograd.grad((x * t.factor).sum(), t.scale)[0]


def score(x, w):
    x = x.detach().requires_grad_()
    params = [x]
    params.append(torch.zeros(3, requires_grad=True))
    a, b = pair(x, w)
    return torch.autograd.grad(b.sum(), params)


for _ in range(100):
    c, w = torch.randn(3), torch.randn(3, 3, requires_grad=True)
    pair(c, w); given(c, w); unrelated(c, w); block(c, w)
    sensitivity(scaled(c, w), torch.randn(3))
    score(c, w)
"""


def _hy430(source: str) -> dict[str, list[str]]:
    return {
        qualname: [f.message for f in v.findings if f.code == "HY430"]
        for qualname, v in analyse(source).items()
    }


def test_a_derived_pair_and_a_project_object_are_reported_with_the_first_non_leaf_backward() -> (
    None
):
    found = _hy430(PROGRAM)
    [message] = found["pair"]
    assert message.startswith("returns `a` and a tensor computed from it")
    assert "`sensitivity` (line" in message and "appears to not have been used" in message
    [message] = found["scaled"]
    assert message.startswith("returns an instance of `Scaled`")


def test_arguments_as_given_unrelated_results_and_modules_are_no_pair() -> None:
    found = _hy430(PROGRAM)
    assert found["given"] == [] and found["unrelated"] == [] and found["block"] == []


def test_backwards_at_leaves_the_function_makes_are_no_hazard() -> None:
    """`score` differentiates with respect to `x.detach().requires_grad_()` and a list of
    leaves it appends to; without `sensitivity` (a parameter's attribute) nothing is asked of
    the dependency between returned tensors."""
    source = PROGRAM.replace(
        "return torch.autograd.grad((x * t.factor).sum(), t.scale)[0]", "return x * t.factor"
    )
    found = _hy430(source)
    assert all(messages == [] for messages in found.values()), found


JVP_PROGRAM = """
import torch


def pair(c, w):
    a = c @ w
    return a, torch.exp(a)


def jvp(f, x, v):
    x = tuple(xx.requires_grad_(True) for xx in x)
    v = tuple(vv.requires_grad_(True) for vv in v)
    y = f(*x)
    grad_x = torch.autograd.grad(y, x, v, create_graph=True)
    return torch.autograd.grad(grad_x, v, v)


def use(c, w):
    a, b = pair(c, w)
    return jvp(torch.exp, (a,), (b * 2,))


for _ in range(100):
    use(torch.randn(3), torch.randn(3, 3))
"""


def test_leaves_made_in_a_generator_expression_are_leaves() -> None:
    """gpytorch's `jvp` rebinds its parameters to `tuple(xx.requires_grad_(True) for xx in
    x)` and differentiates with respect to them: leaves, whatever its callers pass (computed
    tensors here), as with the list comprehension; an element computed from `xx` is none."""
    assert _hy430(JVP_PROGRAM)["pair"] == []
    listed = JVP_PROGRAM.replace(
        "tuple(vv.requires_grad_(True) for vv in v)", "tuple([vv.requires_grad_(True) for vv in v])"
    )
    assert _hy430(listed)["pair"] == []
    computed = JVP_PROGRAM.replace("vv.requires_grad_(True) for vv", "vv * 2 for vv")
    [message] = _hy430(computed)["pair"]
    assert "`jvp` (line 15)" in message


FUNCTION_PROGRAM = """
import torch


def f(c, w):
    a = c @ w
    return a, torch.exp(a)


class Implicit(torch.autograd.Function):
    @staticmethod
    def forward(ctx, fn, x, *params):
        ctx.save_for_backward(*params)
        ctx.x = x
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        first, *params = ctx.saved_tensors
        x = ctx.x
        with torch.enable_grad():
            return torch.autograd.grad(x * 2, [x, first] + list(params), grad)


class Net(torch.nn.Module):
    def forward(self, x):
        x = x.detach().requires_grad_(True)
        return Implicit.apply(None, x, *list(self.parameters()))


for _ in range(100):
    f(torch.randn(3), torch.randn(3, 3))
    Net()(torch.randn(3))
"""


def test_a_custom_function_saving_leaves_is_followed_to_its_apply_calls() -> None:
    """`ctx.saved_tensors` and `ctx.x` are what `forward` saved, its parameters what
    `Implicit.apply(...)` passes: a module's parameters and a detached input, leaves."""
    assert _hy430(FUNCTION_PROGRAM)["f"] == []
    computed = FUNCTION_PROGRAM.replace(
        "*list(self.parameters())", "*list(self.parameters()), x * 2"
    )
    [message] = _hy430(computed)["f"]
    assert "`Implicit.backward` (line 22)" in message


@pytest.mark.torch
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_compiled_outputs_no_longer_depend_on_one_another() -> None:
    """Measured under torch 2.13: a compiled function returning `a` and `exp(a)` (or a view of
    `a`, or an object holding both) gives tensors that are sibling outputs of one autograd node;
    `grad(b, a)` raises "appears to not have been used in the graph" under AOTAutograd
    (`aot_eager`, Inductor) where `a` is an intermediate or a view, and passes where `a` is an
    input or a parameter returned as given, or with Dynamo alone (the `eager` backend). A
    gradient reaching the leaves is unchanged."""
    import warnings

    import torch
    import torch._dynamo

    w = torch.randn(3, 3, requires_grad=True)

    class Scaled:
        def __init__(self, scale: torch.Tensor) -> None:
            self.scale = scale
            self.factor = torch.exp(scale)

    def intermediate(c: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        a = c @ w
        return a, torch.exp(a)

    def view_of_intermediate(c: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        a = (c @ w)[:2]
        return a, torch.exp(a)

    def view_of_input(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        a = x[:2]
        return a, torch.exp(a)

    def view_of_result(c: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        a = c @ w
        return a, a[:2]

    def held(c: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        scaled = Scaled(c @ w)
        return scaled.scale, scaled.factor

    def argument(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return x, torch.exp(x)

    def parameter(c: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return w, torch.exp(w) * c

    def differentiable(fn, backend: str, argument: torch.Tensor) -> bool:  # type: ignore[no-untyped-def]
        torch._dynamo.reset()
        a, b = torch.compile(fn, backend=backend)(argument)
        try:
            torch.autograd.grad((b * 2).sum(), a)
        except RuntimeError as error:
            assert "appears to not have been used in the graph" in str(error)
            return False
        return True

    def plain() -> torch.Tensor:
        return torch.randn(3)

    def leaf() -> torch.Tensor:
        return torch.randn(3, requires_grad=True)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for fn, make in (
            (intermediate, plain),
            (view_of_intermediate, plain),
            (view_of_input, leaf),
            (view_of_result, plain),
            (held, plain),
        ):
            a, b = fn(make())
            assert torch.autograd.grad((b * 2).sum(), a)[0] is not None  # eagerly
            assert not differentiable(fn, "aot_eager", make()), fn.__name__
        assert not differentiable(intermediate, "inductor", plain())
        assert differentiable(intermediate, "eager", plain())
        assert differentiable(argument, "aot_eager", leaf())
        assert differentiable(parameter, "aot_eager", plain())

        torch._dynamo.reset()
        w.grad = None
        _, b = torch.compile(intermediate, backend="aot_eager")(plain())
        b.sum().backward()
        assert w.grad is not None and bool(w.grad.abs().sum() > 0)
