"""HY423: a compiled method with positional defaults must not run inside another compiled graph.

The check's examples (hybridize/check_examples/HY423) run through test_check_examples; these
tests pin the class normflows showed (a method calling an attribute's method with a default,
reached by virtual dispatch), its safe near-misses, a user's own decorator on the callee, the
refactoring that follows (only the outermost function is compiled), and measure the claim on
the installed torch.
"""

from __future__ import annotations

import importlib.util

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
