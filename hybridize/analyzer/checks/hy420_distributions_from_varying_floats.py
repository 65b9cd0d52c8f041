"""HY420 builds_distributions_from_varying_floats: each new float recompiles the function."""

from __future__ import annotations

from hybridize.analyzer.checks.context import CheckContext
from hybridize.analyzer.facts.distribution_numbers import distributions_from_varying_floats
from hybridize.model import Finding

from . import TORCH_ONLY, Check


class BuildsDistributionsFromVaryingFloats(Check):
    """Builds a `torch.distributions` object from a Python float that differs between calls.

    What it detects
    ---------------
    A call constructing a `torch.distributions` class (or a project class deriving from
    one), in the function or in a project function traced with it, with an argument that
    is a Python float, or computed from one in Python, that differs between calls: a
    parameter whose callers pass differing floats (a temperature, a noise scale, a schedule),
    a `self` attribute or module global the project reassigns between calls. A float that
    reaches the constructor through a tensor op (`torch.eye(n) * s`), an int and a constant
    do not count.

    Why it matters in graph mode
    ----------------------------
    Dynamo makes a float argument that changes symbolic after one recompilation, but a
    distribution's constructor checks `isinstance(value, Number)` on its parameters, which
    pins the float again: the compiled function is guarded on its exact value and
    recompiles at every new one, even with `dynamic=True`, until `recompile_limit` (8) leaves
    it eager. Measured (torch 2.13): `Normal(0.0, s).log_prob(x)` over six values of `s` (an
    argument, a module attribute, a global, or `s * 2.0 + 1.0`) compiled seven frames;
    `x / s` compiled two (tests/analyzer/test_hy420_distributions_from_varying_floats.py
    measures it again). The results stay right; the compilations are wasted, every time.

    Example
    -------
        def f(x, noise_scale):
            return torch.distributions.Normal(x, noise_scale).rsample()

        for epoch in range(100):
            f(x, 1.0 / (epoch + 1))

    Instead
    -------
    Pass the parameter as a tensor (`torch.tensor(noise_scale)` in the caller, or a buffer
    of the module), so one graph serves every value:

        f(x, torch.tensor(1.0 / (epoch + 1)))

    Under torch.compile
    -------------------
    It is about `torch.compile` only: `tf.function` has no `torch.distributions`, and its
    retracing per Python value is HY201 (which also fires on a varying parameter here).
    """

    code = "HY420"
    frameworks = TORCH_ONLY
    name = "builds_distributions_from_varying_floats"
    severity = "warning"
    summary = (
        "Builds a torch.distributions object from a Python float that differs between calls: "
        "compiled, every new value recompiles until torch.compile gives up."
    )
    unblock = "pass the float as a tensor, so that one graph serves every value"
    fact = "builds_distributions_from_varying_floats"
    fact_meaning = (
        "(PyTorch) a `torch.distributions` object built from a Python float that differs "
        "between calls (a varying parameter, a reassigned attribute or global): the "
        "constructor pins the float, so every value recompiles until `recompile_limit`"
    )
    decision_order = 125
    EXAMPLE_FUNCTION = "f"

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """The first such construction, for a function that may be compiled and is not."""
        if not context.changes_on_compiling:
            return []
        project = context.project
        return cls.findings(
            distributions_from_varying_floats(
                context.index, context.facts, project.variation, context.key
            )
        )
