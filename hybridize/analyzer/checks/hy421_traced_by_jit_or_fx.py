"""HY421 runs_under_jit_or_fx_tracing: torch.jit.trace or FX traces code that runs the function."""

from __future__ import annotations

from hybridize.analyzer.checks.context import CheckContext
from hybridize.analyzer.facts.tracing_callers import runs_under_tracers
from hybridize.model import Finding

from . import TORCH_ONLY, Check


class RunsUnderJitOrFxTracing(Check):
    """Runs inside a function or module the project traces with `torch.jit.trace` or FX.

    What it detects
    ---------------
    A function that runs when the project traces a callable with `torch.jit.trace`,
    `torch.jit.trace_module` or `torch.fx.symbolic_trace`, or exports it to ONNX with the
    TorchScript exporter (`torch.onnx.export(..., dynamo=False)`, also when `dynamo` is a
    variable or may come from `**kwargs`): the callable itself (a function, or a module
    whose `forward` is traced), or a project function it calls, transitively (a helper of
    the traced module's `forward`, a submodule's `forward`). The tracing call may be
    anywhere in the project: an export script, a test, module code.

    Why it matters in graph mode
    ----------------------------
    These tracers run the callable on tracer values and record what it does; compiled code
    inside refuses them. Measured (torch 2.13): tracing a `torch.compile`d function, a
    function calling one, a module whose `forward` calls one, or a module with a compiled
    `forward` raises "Detected that you are using FX to torch.jit.trace a dynamo-optimized
    function. This is not supported at the moment." (FX: "to symbolically trace"); so does
    `torch.onnx.export(model, args, path, dynamo=False)`, whose TorchScript exporter traces
    the module with `torch.jit.trace` (measured, before it needs `onnx`). Adding
    the decorator breaks the program's export or its tests
    (tests/analyzer/test_hy421_traced_by_jit_or_fx.py measures it again).

    Example
    -------
        def f(x):
            return torch.sin(x) * 2

        class Net(nn.Module):
            def forward(self, x):
                return f(self.lin(x))

        traced = torch.jit.trace(Net(), torch.randn(2, 3))

    Instead
    -------
    Compile the module where it runs (`torch.compile(model)` in the training or serving
    code) rather than decorating what a tracer also runs, or export with `torch.export`,
    which traces through Dynamo and accepts compiled code.

    Under torch.compile
    -------------------
    It is about `torch.compile` only. `torch.jit.script` is not a hazard: it compiles the
    source of the function a `torch.compile` wrapper holds (measured: it worked), nor is
    `torch.export`, nor `torch.onnx.export` left to its default (`dynamo=True` since torch
    2.9: it exports through `torch.export`). A `tf.function` called under another trace is
    traced into it.
    """

    code = "HY421"
    frameworks = TORCH_ONLY
    name = "runs_under_jit_or_fx_tracing"
    severity = "error"
    summary = (
        "Runs inside a callable the project traces with torch.jit.trace, FX symbolic "
        "tracing or the TorchScript ONNX exporter, which raise on compiled code."
    )
    unblock = "compile the module where it runs, or export with torch.export"
    fact = "runs_under_jit_or_fx_tracing"
    fact_meaning = (
        "(PyTorch) it runs inside a callable the project traces with `torch.jit.trace`, FX "
        "`symbolic_trace` or `torch.onnx.export(..., dynamo=False)` (the callable, a traced "
        "module's `forward`, their project callees), which raise on compiled code"
    )
    decision_order = 16
    EXAMPLE_FUNCTION = "f"

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """The tracing call that runs it, for a function that may be compiled and is not."""
        if not context.changes_on_compiling:
            return []
        return cls.findings(runs_under_tracers(context.index, context.facts, context.key))
