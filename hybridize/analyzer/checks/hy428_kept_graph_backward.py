"""HY428 kept_graph_backward: a caller runs the function's backward with the graph kept, or batched."""

from __future__ import annotations

from hybridize.analyzer.checks.context import CheckContext
from hybridize.analyzer.facts.kept_graph_backward import kept_graph_backward, kept_graph_targets
from hybridize.model import Finding

from . import TORCH_ONLY, CallerTable, Check


class KeptGraphBackward(Check):
    """Its backward runs with the graph kept (`retain_graph`, `create_graph`) or batched.

    What it detects
    ---------------
    A function whose result some code differentiates with a backward that keeps the graph or
    runs on batched output gradients: the value passed to `torch.autograd.grad`,
    `torch.autograd.backward` or `.backward()` with `retain_graph`, `create_graph` or
    `is_grads_batched` given as anything but a literal False or None (a flag computed at run
    time may be True) is computed from its result. And an object of a project class handed to
    `torch.autograd.functional.jacobian`, `hessian`, `hvp`, `vhp` or `jvp` whose call is a
    framework base's own `__call__` (a `torch.distributions.Transform`, which runs `_call`):
    the analysis cannot follow which methods run, so the methods of every project class of
    that base are reported. The project functions they call run in the same backward, and are
    reported too; the value is followed through the parameters of the function that runs the
    backward to what its callers pass (normflows' `estimator_fn(g, x, ..., training)`),
    through `functools.partial` objects (zuko's `partial(self.f, signal)`) and into the
    modules an `nn.Sequential` subclass builds, as HY422's is. (HY422 reports a function differentiated twice, or handed to `jacobian` as a
    function or a module; this check leaves those to it.)

    Why it matters in graph mode
    ----------------------------
    `torch.compile` hands the graph to AOTAutograd, which compiles the graph's backward on its
    first run: when that run does not keep the graph and the partitioner saved an intermediate
    for it, the saved buffers are donated and every later backward of the graph that keeps it
    raises. Measured (torch 2.13, Inductor and `aot_eager`, static shapes, no recompile) on a
    function computing `tanh(x @ w) @ w`, after a plain backward: `backward(retain_graph=True)`,
    `grad(..., create_graph=True)` alone, `jacobian` and `hessian` raise "This backward function
    was compiled with non-empty donated buffers which requires create_graph=False and
    retain_graph=False"; `sin(x) * x`, whose backward recomputes from the inputs, does not.
    Which backward runs first and what the partitioner saves, a rewrite cannot know. Under
    Inductor, `grad(..., is_grads_batched=True)` and `jacobian(..., vectorize=True)` raise
    "Cannot access data pointer of Tensor that doesn't have storage" on either function. A
    plain backward, `vjp` and the `torch.func` transforms match eager
    (tests/analyzer/test_hy428_kept_graph_backward.py measures all of it again). zuko 1.6.0's
    tests failed so on compiled transforms (`jacobian` after training steps).

    Example
    -------
        def energy(x, w):
            return torch.tanh(x @ w) @ w

        def forces(x, w, create_graph):
            x = x.detach().requires_grad_(True)
            y = energy(x, w).sum()
            return torch.autograd.grad(y, x, create_graph=create_graph)[0]

    Instead
    -------
    Keep the function eager, take the gradients with the `torch.func` transforms
    (`torch.func.grad`, `jacrev`, `vmap`), which compile, or set
    `torch._functorch.config.donated_buffer = False` before compiling.

    Under torch.compile
    -------------------
    The hazard is AOTAutograd's: it exists under `torch.compile` only. A `tf.function`'s
    gradient is computed by a `GradientTape`, persistent or not, over the function's graph,
    with no donated buffers, so the check does not apply there.
    """

    code = "HY428"
    frameworks = TORCH_ONLY
    name = "kept_graph_backward"
    severity = "error"
    summary = (
        "A caller runs its backward with the graph kept (retain_graph, create_graph, jacobian) "
        "or batched: compiled, a backward with donated buffers raises."
    )
    unblock = "keep the function eager, or take the gradients with torch.func"
    fact = "kept_graph_backward"
    fact_meaning = (
        "(PyTorch) a caller runs the backward of its result with `retain_graph`/`create_graph`/"
        "`is_grads_batched` not literally False, or hands an object reaching it to `jacobian`/"
        "`hessian`; a compiled backward with donated buffers runs once (raises)"
    )
    decision_order = 15
    EXAMPLE_FUNCTION = "f"
    caller_tables = (CallerTable("kept_graph_backward", kept_graph_targets),)

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """Where the function's backward runs with the graph kept or batched, for a function
        that may be compiled and is not yet."""
        if not context.changes_on_compiling:
            return []
        return cls.findings(kept_graph_backward(context.index, context.facts, context.key))
