"""HY422 differentiated_twice: a caller takes a higher-order gradient through the function."""

from __future__ import annotations

from hybridize.analyzer.checks.context import CheckContext
from hybridize.analyzer.facts.double_backward import differentiated_twice, double_backward_targets
from hybridize.model import Finding

from . import TORCH_ONLY, CallerTable, Check


class DifferentiatedTwice(Check):
    """Its result is differentiated twice: a gradient of a gradient, a hessian.

    What it detects
    ---------------
    A function whose result some code differentiates with a differentiable backward and so
    differentiates again: the value passed to `torch.autograd.grad(..., create_graph=True)`
    or `.backward(create_graph=True)` is computed from its result (a gradient penalty, a
    physics-informed loss), or a callable that reaches it is handed to
    `torch.autograd.functional.hessian`, `hvp`, `vhp`, `jvp` (computed as the backward of a
    backward), `jacobian`/`vjp` with `create_graph=True`, or `torch.autograd.gradgradcheck`. And a callable (a function, or a
    module: its `forward`) handed to `torch.autograd.functional.jacobian` without it, which
    runs the backward once per output over one graph. The project functions it calls are
    differentiated with it, and reported too. A value computed from a parameter of the
    function that differentiates it is followed to what each caller passes there (a helper
    `batch_jacobian(g, x)` reaches the network that computed `g` in its caller), but not
    into what computed the tensors it is differentiated with respect to; a call of a
    `functools.partial` object reaches what it wraps, and an `nn.Sequential` subclass the
    module classes its constructor builds. A call of a parameter annotated with project
    classes (`model: Model`, `Model = tp.Union[ANI, Potential]`, `Optional[...]`) reaches
    their `forward`: the model a library's helper differentiates is often built where the
    project does not show (torchani 2.9.0's `energies_and_forces`). A `create_graph` given a
    parameter of the function (`create_graph=create_graph`) counts when its default is True
    or a caller, up to two levels up, passes True there.

    Why it matters in graph mode
    ----------------------------
    `torch.compile` hands the graph to AOTAutograd, which compiles its backward too; that
    compiled backward is not differentiable. Measured (torch 2.13): the second derivative
    through a compiled `sin(x) * x` raises "torch.compile with aot_autograd does not currently
    support double backward" (`grad` of a `create_graph` gradient, `hvp`, `vhp`, `jvp`), and
    `torch.autograd.functional.hessian` returns zeros where eager gives the second derivative:
    silently. And once a plain backward has run first through a compiled graph that saves an
    intermediate, its backward has donated buffers and runs once: `jacobian`'s backward per
    output raises "This backward function was compiled with non-empty donated buffers which
    requires create_graph=False and retain_graph=False" (zuko 1.6.0's `MonotonicMLP` test
    failed so; HY428 has the other backwards that keep the graph). A single backward, and the
    `torch.func` transforms, are not affected
    (tests/analyzer/test_hy422_differentiated_twice.py measures all of it again).

    Example
    -------
        def critic_score(x):
            return torch.sin(x).sum()

        def gradient_penalty(x):
            x = x.requires_grad_(True)
            (g,) = torch.autograd.grad(critic_score(x), x, create_graph=True)
            return (g.norm() - 1) ** 2

    Instead
    -------
    Keep the twice-differentiated function eager, or take the higher-order gradient with the
    `torch.func` transforms (`torch.func.hessian`, `jacrev(grad(f))`), which compile.

    Under torch.compile
    -------------------
    The hazard is AOTAutograd's: it exists under `torch.compile` only. A `tf.function`'s
    gradient is a graph function that TensorFlow differentiates again (nested
    `GradientTape`s work through it), so the check does not apply there.
    """

    code = "HY422"
    frameworks = TORCH_ONLY
    name = "differentiated_twice"
    severity = "error"
    summary = (
        "A caller differentiates its result twice (create_graph=True, hessian): compiled, the "
        "double backward raises, or a hessian comes back as zeros."
    )
    unblock = "keep the function eager, or take the higher-order gradient with torch.func"
    fact = "differentiated_twice"
    fact_meaning = (
        "(PyTorch) a caller differentiates the result twice: `grad(..., create_graph=True)` "
        "of a value computed from it, a callable reaching it given to "
        "`torch.autograd.functional.hessian`/`hvp`/`vhp`/`jvp`; AOTAutograd's compiled "
        "backward is not differentiable (raises, or zeros from `hessian`)"
    )
    decision_order = 15
    EXAMPLE_FUNCTION = "f"
    caller_tables = (CallerTable("double_backward", double_backward_targets),)

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """Where the function's result is differentiated twice, for a function that may be
        compiled and is not yet."""
        if not context.changes_on_compiling:
            return []
        return cls.findings(differentiated_twice(context.index, context.facts, context.key))
