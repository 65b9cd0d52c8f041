"""HY423: a compiled method with positional defaults must not run inside another compiled graph.

The check's examples (hybridize/check_examples/HY423) run through test_check_examples; these
tests pin the class normflows showed (a method calling an attribute's method with a default,
reached by virtual dispatch), its safe near-misses, a user's own decorator on the callee, the
refactoring that follows (only the outermost function is compiled), and measure the claim on
the installed torch.
"""

from __future__ import annotations

import importlib.util
import textwrap

import pytest
from facts_helpers import analyse

from hybridize.project import Project, ProjectOptions

TARGETS = """
import torch
from torch import nn


class Target(nn.Module):
    def log_prob(self, z):
        raise NotImplementedError


class DiagGaussian(Target):
    def __init__(self):
        super().__init__()
        self.loc = nn.Parameter(torch.zeros(2))

    def log_prob(self, z, context=None):
        return -0.5 * ((z - self.loc) ** 2).sum(-1)


class TwoIndependent(Target):
    def __init__(self, target1: Target, target2: Target):
        super().__init__()
        self.target1 = target1
        self.target2 = target2

    def log_prob(self, z):
        return self.target1.log_prob(z) + self.target2.log_prob(z)


model = TwoIndependent(DiagGaussian(), DiagGaussian())
for _ in range(100):
    model.log_prob(torch.randn(5, 2))
"""


def _hy423(source: str) -> dict[str, list[str]]:
    return {
        name: [f.message for f in v.findings if f.code == "HY423"]
        for name, v in analyse(source).items()
    }


def test_the_callee_with_a_default_is_left_to_the_outermost_compiled_caller() -> None:
    verdicts = analyse(TARGETS)
    callee = verdicts["DiagGaussian.log_prob"]
    assert not callee.passes
    assert "nests_compiled_methods" in callee.failures
    (message,) = [f.message for f in callee.findings if f.code == "HY423"]
    assert "`TwoIndependent.log_prob` may be compiled" in message
    assert "a default for `context`" in message
    outer = verdicts["TwoIndependent.log_prob"]
    assert outer.passes and not [f for f in outer.findings if f.code == "HY423"]


def test_a_keyword_only_default_counts_too() -> None:
    source = TARGETS.replace(
        "def log_prob(self, z, context=None)", "def log_prob(self, z, *, c=1.0)"
    )
    (message,) = _hy423(source)["DiagGaussian.log_prob"]
    assert "a default for `c`" in message


def test_a_callee_without_defaults_passes() -> None:
    source = TARGETS.replace(
        "def log_prob(self, z, context=None)", "def log_prob(self, z, context)"
    )
    source = source.replace("log_prob(z)", "log_prob(z, None)")
    assert _hy423(source)["DiagGaussian.log_prob"] == []


def test_a_free_function_with_a_default_called_from_a_compiled_caller_passes() -> None:
    source = """
    import torch

    def scale(z, factor=2.0):
        return torch.sin(z) * factor

    def step(z):
        return scale(z).sum()

    for _ in range(100):
        step(torch.randn(5, 2))
    """
    assert _hy423(source) == {"scale": [], "step": []}


def test_a_method_only_eager_code_calls_passes() -> None:
    source = TARGETS.replace(
        "model = TwoIndependent(DiagGaussian(), DiagGaussian())", "model = DiagGaussian()"
    )
    assert _hy423(source)["DiagGaussian.log_prob"] == []


def test_a_caller_of_a_method_the_user_compiled_with_a_default_is_not_compiled() -> None:
    source = TARGETS.replace(
        "    def log_prob(self, z, context=None):",
        "    @torch.compile\n    def log_prob(self, z, context=None):",
    )
    found = _hy423(source)
    (message,) = found["TwoIndependent.log_prob"]
    assert "runs `DiagGaussian.log_prob`, a method already decorated with the compiler" in message
    assert found["DiagGaussian.log_prob"] == []  # compiled already: nothing left to decide


def test_a_method_run_by_a_compiled_module_is_not_compiled_too() -> None:
    source = TARGETS.replace(
        "    def log_prob(self, z):\n        return self.target1",
        "    @torch.compile\n    def log_prob(self, z):\n        return self.target1",
    )
    (message,) = _hy423(source)["DiagGaussian.log_prob"]
    assert "`TwoIndependent.log_prob` is compiled and runs it inside its graph" in message


def test_the_refactoring_compiles_only_the_outermost_function() -> None:
    options = ProjectOptions(use_cache=False, include_low_benefit=True)
    project = Project.from_texts({"targets.py": TARGETS}, options)
    text = project.plan().refactored_files()["targets.py"]
    assert "    @torch.compile\n    def log_prob(self, z):\n        return self.target1" in text
    assert "@torch.compile\n    def log_prob(self, z, context=None)" not in text


@pytest.mark.torch
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_nested_compiled_methods_fail_with_defaults_left_to_the_method() -> None:
    """Measured under torch 2.13 (backend `eager`: the failure is Dynamo's, not a backend's)."""
    import warnings

    import torch
    import torch._dynamo
    from torch import nn
    from torch._dynamo.testing import CompileCounter

    def compiled(f):  # type: ignore[no-untyped-def]
        return torch.compile(f, backend="eager")

    def outer_of(inner: nn.Module, call: str):  # type: ignore[no-untyped-def]
        calls = {
            "default": lambda z: inner.m(z),
            "filled": lambda z: inner.m(z, 3.0),
            "keyword": lambda z: inner.kw(z),
            "static": lambda z: inner.s(z),
        }

        @compiled
        def outer(z: torch.Tensor) -> torch.Tensor:
            return calls[call](z) + 1

        return outer

    class Inner(nn.Module):
        @compiled
        def m(self, z: torch.Tensor, k: float = 2.0) -> torch.Tensor:
            return z * k

        @compiled
        def kw(self, z: torch.Tensor, *, k: float = 2.0) -> torch.Tensor:
            return z * k

        @staticmethod
        @compiled
        def s(z: torch.Tensor, k: float = 2.0) -> torch.Tensor:
            return z * k

    def runs(call: str) -> bool:
        torch._dynamo.reset()
        outer = outer_of(Inner(), call)
        try:
            for n in (1, 5):
                outer(torch.ones(n, 2))
        except torch._dynamo.exc.InternalTorchDynamoError as error:
            assert "'NoneType'" in str(error)  # the wrapper's __defaults__/__kwdefaults__
            return False
        return True

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert not runs("default") and not runs("keyword")
        assert runs("filled") and runs("static")

        # Inside the outer graph the inner decorator adds nothing: one frame, the same ops.
        class Plain(nn.Module):
            def m(self, z: torch.Tensor, k: float = 2.0) -> torch.Tensor:
                return (z * k).sin()

        class Decorated(nn.Module):
            @compiled
            def m(self, z: torch.Tensor, k: float = 2.0) -> torch.Tensor:
                return (z * k).sin()

        counts = []
        for inner in (Plain(), Decorated()):
            torch._dynamo.reset()
            counter = CompileCounter()
            outer = torch.compile(lambda z, inner=inner: inner.m(z, 3.0) + 1, backend=counter)
            outer(torch.ones(2, 2))
            counts.append((counter.frame_count, counter.op_count))
        assert counts[0] == counts[1] == (1, 3)


# --- a compiled method that may break the graph, called as a method in a compiled graph ------

FLOWS = """
import torch
from torch import nn


class Flow(nn.Module):
    def __init__(self, flows):
        super().__init__()
        self.flows = nn.ModuleList(flows)

    def log_prob(self, x):
        z, log_q = x, 0
        for flow in self.flows:
            z, log_det = flow.inverse(z)
            log_q = log_q + log_det
        return log_q

    def forward_kld(self, x):
        return -torch.mean(self.log_prob(x))


model = Flow(LOADED)
for _ in range(100):
    model.forward_kld(torch.randn(5, 2))
"""


def test_a_method_running_an_unseen_object_on_tensors_is_left_to_its_compiled_caller() -> None:
    """normflows' `MultiscaleFlow.log_prob`: the flows come from the caller, of no class the
    analysis sees, and Dynamo broke the graph in one of them."""
    verdicts = analyse(FLOWS)
    (message,) = [f.message for f in verdicts["Flow.log_prob"].findings if f.code == "HY423"]
    assert "`Flow.forward_kld` may be compiled and calls it as a method" in message
    assert "it runs `.inverse()` of an object the analysis cannot see" in message
    assert "missing 1 required positional argument" in message
    assert verdicts["Flow.forward_kld"].passes


BREAKS = """
import torch
from torch import nn


class Inner(nn.Module):
    def m(self, z):
        return BODY

    @classmethod
    def c(cls, z):
        return z.nonzero().float().sum() + z

    @staticmethod
    def s(z):
        return z.nonzero().float().sum() + z


class Outer(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = Inner()

    def f(self, z):
        return self.inner.m(z) + self.inner.c(z) + Inner.s(z)


outer = Outer()
for _ in range(100):
    outer.f(torch.randn(5, 2))
"""


@pytest.mark.parametrize(
    ("body", "named"),
    [
        ("z.nonzero().float().sum() + z", "`torch.Tensor.nonzero` (Dynamic shape operator"),
        ("torch.unique(z).sum() + z", "`torch.unique` (Dynamic shape operator"),
        ("z + z.sum(0).tolist()[0]", "`torch.Tensor.tolist` (Dynamo does not support"),
        ("helper(z)", "in `helper`"),
    ],
)
def test_a_method_that_may_break_the_graph_is_left_to_its_compiled_caller(
    body: str, named: str
) -> None:
    source = BREAKS.replace("BODY", body) + (
        "\n\ndef helper(z):\n    return torch.argwhere(z).float().sum() + z\n"
    )
    found = _hy423(source)
    (message,) = found["Inner.m"]
    assert "`Outer.f` may be compiled and calls it as a method" in message
    assert named in message
    # Without a receiver to lose, a classmethod and a staticmethod are fine (measured).
    assert found["Inner.c"] == [] and found["Inner.s"] == []
    assert found["Outer.f"] == []


def test_a_method_traced_whole_or_run_by_a_module_call_keeps_its_decorator() -> None:
    """The corpus's `split_heads` (views and transposes only), and a module's `forward` that
    breaks, run through the module's call (which keeps the instance, measured)."""
    whole = BREAKS.replace("BODY", "z.view(5, 2, 1).transpose(1, 2)")
    assert _hy423(whole)["Inner.m"] == []
    module_call = BREAKS.replace("def m(self, z)", "def forward(self, z)").replace(
        "self.inner.m(z)", "self.inner(z)"
    )
    module_call = module_call.replace("BODY", "z.nonzero().float().sum() + z")
    assert _hy423(module_call)["Inner.forward"] == []


def test_a_method_whose_callers_stay_eager_keeps_its_decorator() -> None:
    """Its only caller takes no argument: it is never decorated (`may_be_compiled`)."""
    source = BREAKS.replace("BODY", "z.nonzero().float().sum() + z")
    source = source.replace("    def f(self, z):", "    def f(self):\n        z = torch.ones(5, 2)")
    source = source.replace("outer.f(torch.randn(5, 2))", "outer.f()")
    assert _hy423(source)["Inner.m"] == []


def test_a_caller_of_a_compiled_method_that_may_break_is_not_compiled() -> None:
    source = BREAKS.replace("BODY", "z.nonzero().float().sum() + z").replace(
        "    def m(self, z):", "    @torch.compile\n    def m(self, z):"
    )
    (message,) = _hy423(source)["Outer.f"]
    assert "it runs `Inner.m`, a method already decorated with the compiler" in message
    assert "loses its instance when Dynamo breaks the graph in it" in message
    assert "`torch.Tensor.nonzero`" in message


def test_the_refactoring_compiles_the_caller_not_the_method_that_may_break() -> None:
    options = ProjectOptions(use_cache=False, include_low_benefit=True)
    source = textwrap.dedent(BREAKS.replace("BODY", "z.nonzero().float().sum() + z"))
    text = Project.from_texts({"m.py": source}, options).plan().refactored_files()["m.py"]
    assert "    @torch.compile\n    def f(self, z):" in text
    assert "@torch.compile\n    def m(self, z)" not in text


@pytest.mark.torch
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_a_compiled_method_broken_inside_a_compiled_graph_loses_its_instance() -> None:
    """Measured under torch 2.13 (backend `eager`): every quiet graph break the framework
    lists, and the breaks the labelling already fails a function for, fail a compiled method
    called as `obj.m(z)` in a compiled caller; a classmethod, a staticmethod, a module's
    compiled `forward` run by the module's call, an unbroken method and a break in the caller
    alone do not."""
    import logging
    import random
    import time
    import warnings

    import torch
    import torch._dynamo
    from test_hy423_untraceable_calls_measured import STDLIB_BREAKS
    from torch import nn

    from hybridize.analyzer.frameworks.framework import TORCH

    def compiled(f):  # type: ignore[no-untyped-def]
        return torch.compile(f, backend="eager")

    bodies = {
        "torch.nonzero": lambda z: torch.nonzero(z).float().sum() + z,
        "torch.Tensor.nonzero": lambda z: z.nonzero().float().sum() + z,
        "torch.argwhere": lambda z: torch.argwhere(z).float().sum() + z,
        "torch.Tensor.argwhere": lambda z: z.argwhere().float().sum() + z,
        "torch.unique": lambda z: torch.unique(z).sum() + z,
        "torch.Tensor.unique": lambda z: z.unique().sum() + z,
        "torch.unique_consecutive": lambda z: torch.unique_consecutive(z).sum() + z,
        "torch.Tensor.unique_consecutive": lambda z: z.unique_consecutive().sum() + z,
        "torch.Tensor.tolist": lambda z: z + z.sum(0).tolist()[0],
        "torch.allclose": lambda z: z * 2 if torch.allclose(z * 2, z) else z,
        "torch.Tensor.allclose": lambda z: z * 2 if (z * 2).allclose(z) else z,
        "torch.equal": lambda z: z * 2 if torch.equal(z * 2, z) else z,
        "torch.Tensor.equal": lambda z: z * 2 if (z * 2).equal(z) else z,
    }
    bodies |= STDLIB_BREAKS
    assert set(bodies) == set(TORCH.quiet_graph_breaks)
    logger = logging.getLogger("hy423-measure")
    logger.disabled = True
    bodies |= {
        "item": lambda z: z * z.sum().item(),
        "boolean mask": lambda z: z[z > 0].sum() + z,
        "tensor condition": lambda z: z * 2 if z.sum() > 0 else z,
        "print": lambda z: (print(end=""), z * 2)[1],
        "logging": lambda z: (logger.warning("x"), z * 2)[1],
        "clock": lambda z: z * time.time(),
        "random": lambda z: z * random.random(),
    }

    class Inner(nn.Module):
        def __init__(self, body):  # type: ignore[no-untyped-def]
            super().__init__()
            self.body = body

        @compiled
        def m(self, z):  # type: ignore[no-untyped-def]
            return self.body(z)

        @classmethod
        @compiled
        def c(cls, z):  # type: ignore[no-untyped-def]
            return z * z.sum().item()

        @staticmethod
        @compiled
        def s(z):  # type: ignore[no-untyped-def]
            return z * z.sum().item()

        @compiled
        def forward(self, z):  # type: ignore[no-untyped-def]
            return z * z.sum().item()

    def runs(call) -> bool:  # type: ignore[no-untyped-def]
        torch._dynamo.reset()
        try:
            compiled(call)(torch.randn(3, 2))
        except TypeError as error:
            assert "missing 1 required positional argument: 'z'" in str(error)
            return False
        return True

    def called_as_method(inner):  # type: ignore[no-untyped-def]
        return lambda z: inner.m(z)  # the attribute read inside the compiled caller

    def plain(z):  # type: ignore[no-untyped-def]
        return z.sin()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        logging.getLogger("torch").setLevel(logging.ERROR)
        unbroken = [name for name, body in bodies.items() if runs(called_as_method(Inner(body)))]
        assert unbroken == []
        inner = Inner(plain)
        assert runs(lambda z: inner.m(z) + 1)
        assert runs(lambda z: (print(end=""), inner.m(z))[1])  # a break in the caller alone
        assert runs(lambda z: inner.c(z)) and runs(lambda z: inner.s(z))
        assert runs(lambda z: inner(z))  # the module's call keeps the instance
        assert not runs(lambda z: inner.forward(z))
