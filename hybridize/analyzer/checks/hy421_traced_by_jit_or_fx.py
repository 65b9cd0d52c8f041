"""HY421 runs_under_jit_or_fx_tracing: torch.jit.trace, torch.jit.script or FX compile code
that runs the function."""

from __future__ import annotations

from hybridize.analyzer.checks.context import CheckContext
from hybridize.analyzer.facts.tracing_callers import runs_under_tracers, traced_functions
from hybridize.model import Finding

from . import TORCH_ONLY, CallerTable, Check


class RunsUnderJitOrFxTracing(Check):
    """Runs inside a function or module the project traces or scripts with TorchScript or FX.

    What it detects
    ---------------
    A function that runs when the project traces a callable with `torch.jit.trace`,
    `torch.jit.trace_module` or `torch.fx.symbolic_trace`, scripts it with
    `torch.jit.script`, or exports it to ONNX with the TorchScript exporter
    (`torch.onnx.export(..., dynamo=False)`, also when `dynamo` is a variable or may come
    from `**kwargs`): the callable itself (a function, or a module whose `forward` is traced
    or scripted), or a project function it calls, transitively (a helper of the module's
    `forward`, a submodule's `forward`). The call may be anywhere in the project: an export
    script, module code, a test, also in files the refactoring leaves alone (`--ignore
    'tests/*'`), which are analysed as callers, and in code judged as TensorFlow code (a
    test module testing a library's TensorFlow and PyTorch layers: einops 0.8.2's
    `torch.jit.trace(model)` in its test_layers.py, which imports TensorFlow too).

    Why it matters in graph mode
    ----------------------------
    These tracers run the callable on tracer values and record what it does; compiled code
    inside refuses them. Measured (torch 2.13): tracing a `torch.compile`d function, a
    function calling one, a module whose `forward` calls one, or a module with a compiled
    `forward` raises "Detected that you are using FX to torch.jit.trace a dynamo-optimized
    function. This is not supported at the moment." (FX: "to symbolically trace"); so does
    `torch.onnx.export(model, args, path, dynamo=False)`, whose TorchScript exporter traces
    the module with `torch.jit.trace` (measured, before it needs `onnx`).
    `torch.jit.script` compiles the module's `forward` and every function it calls from
    their source; for a compiled one it reads the wrapped function's source but looks its
    global names up in the wrapper's module, torch/_dynamo/eval_frame.py, so a helper or an
    import alias (`F`) it uses is an "undefined value" (measured: a compiled function calling
    a helper, scripted directly, through a module's `forward` or a helper of it, a compiled
    `forward` of the module or of a submodule; julius 0.2.8's `FFTConv1d.forward`). Adding
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
    which traces through Dynamo and accepts compiled code. Scripted code may call a compiled
    function in the branch `torch.jit.is_scripting()` rules out, or through a
    `@torch.jit.ignore` function: TorchScript leaves those uncompiled (measured; the rule
    does not see these guards and blocks such functions too).

    Under torch.compile
    -------------------
    It is about `torch.compile` only. `torch.export` is not a hazard, nor is
    `torch.onnx.export` left to its default (`dynamo=True` since torch 2.9: it exports
    through `torch.export`), nor code that only a scripted module's `__init__` runs (it runs
    eagerly: measured). A scripted compiled function whose body uses no name but `torch`
    happened to work (`torch` is a global of eval_frame.py too): the rule blocks it all the
    same. A `tf.function` called under another trace is traced into it.
    """

    code = "HY421"
    frameworks = TORCH_ONLY
    name = "runs_under_jit_or_fx_tracing"
    severity = "error"
    summary = (
        "Runs inside a callable the project traces or scripts with torch.jit.trace, "
        "torch.jit.script, FX symbolic tracing or the TorchScript ONNX exporter, which fail "
        "on compiled code."
    )
    unblock = "compile the module where it runs, or export with torch.export"
    fact = "runs_under_jit_or_fx_tracing"
    fact_meaning = (
        "(PyTorch) it runs inside a callable the project traces or scripts with "
        "`torch.jit.trace`, `torch.jit.script`, FX `symbolic_trace` or "
        "`torch.onnx.export(..., dynamo=False)` (the callable, a traced or scripted module's "
        "`forward`, their project callees), which fail on compiled code"
    )
    decision_order = 16
    EXAMPLE_FUNCTION = "f"
    caller_tables = (CallerTable("tracing_calls", traced_functions),)

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """The tracing or scripting call that runs it, for a function that may be compiled
        and is not."""
        if not context.changes_on_compiling:
            return []
        return cls.findings(runs_under_tracers(context.index, context.facts, context.key))
