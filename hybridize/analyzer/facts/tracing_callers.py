"""Project functions that run under a tracer or scripter that cannot handle compiled code.

`torch.jit.trace` and FX's `symbolic_trace` run a callable (a function, or a module's
`forward`) on tracer values and record what it does. A `torch.compile`d function called
while they do raises: "Detected that you are using FX to torch.jit.trace a dynamo-optimized
function. This is not supported at the moment." (measured on torch 2.13, for the compiled
function traced directly, a function calling it, a module whose `forward` calls it and a
module with a compiled `forward`; `frameworks.torch_rules.COMPILED_CODE_TRACERS`).
`torch.jit.script` compiles the callable (a module's `forward`) and every function it calls,
transitively, from their source; a compiled one's globals are read in torch's own module,
where the project's names are "undefined value"s (measured, same cases). `torch.export`
traces through Dynamo: it worked (measured), and is not such a tracer. An exporter that
traces with `torch.jit.trace` unless a keyword selects Dynamo is one when the keyword may be
False (`torch.onnx.export(..., dynamo=False)`, the TorchScript exporter:
`frameworks.torch_rules.COMPILED_CODE_TRACER_SWITCHES`).

So a function the traced or scripted callable runs, itself or through the project functions
it calls, transitively, must stay uncompiled while the project traces it. The calls may be
in files the refactoring leaves alone (`--ignore 'tests/*'`): those are analysed as callers.
"""

from __future__ import annotations

from dataclasses import dataclass

from hybridize.analyzer.facts.callgraph import first_witness_of_runs
from hybridize.analyzer.facts.cited_lines import cited_line
from hybridize.analyzer.facts.evaluator import ResolvedCall, TensorFacts
from hybridize.analyzer.facts.evidence import Evidence
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.values import is_obj_atom, obj_role
from hybridize.analyzer.frameworks import written_name
from hybridize.analyzer.frameworks.framework import FRAMEWORKS
from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.analyzer.summaries.syms import kind_of, lit_sym


@dataclass(frozen=True, slots=True)
class TracingCall:
    """A call of a tracer on a project callable."""

    by: FunctionKey
    """The function (or module code) that calls the tracer."""
    tracer: str
    """The tracer's canonical name (`torch.jit.trace`)."""
    line: int
    why: str
    """Why compiled code fails under it (`Framework.compiled_code_tracers`)."""
    switch: str = ""
    """How the call selects tracing, for a switched exporter (`dynamo=False`); else empty."""

    def verb(self) -> str:
        """What the call does to the callable: `scripts` (`torch.jit.script`), else `traces`."""
        return "scripts" if self.tracer.endswith(".script") else "traces"

    def written(self) -> str:
        """The tracer as code shows it: `torch.onnx.export(..., dynamo=False)`."""
        name = written_name(self.tracer)
        return f"{name}(..., {self.switch})" if self.switch else name


def traced_functions(index: ProjectIndex, facts: TensorFacts) -> dict[FunctionKey, TracingCall]:
    """Every project function some tracer of compiled-code-averse kind runs, with the first
    tracing call (in key order) that runs it."""
    return first_witness_of_runs(
        index, facts, "tracing_calls", lambda key, calls: _tracing_calls(index, key, calls)
    )


def _tracing_calls(
    index: ProjectIndex, key: FunctionKey, calls: list[ResolvedCall]
) -> list[tuple[TracingCall, list[FunctionKey]]]:
    """This function's tracer calls, each with the project functions its callable runs
    first: a function or method given, or the method calling a module instance runs."""
    tracers, switches, reasons = _every_frameworks_tracers()
    found: list[tuple[TracingCall, list[FunctionKey]]] = []
    for resolved in calls:
        tracer = next((info.name for info in resolved.api if info.name in tracers), None)
        switch = ""
        for info in resolved.api if tracer is None else ():
            if info.name in switches and (switch := _tracing_switch(resolved, switches[info.name])):
                tracer = info.name
                break
        if tracer is None or not resolved.args:
            continue
        starts: set[FunctionKey] = set()
        for atom in resolved.args[0]:
            if kind_of(atom) in ("func", "method") and isinstance(atom[1], FunctionKey):
                starts.add(atom[1])
            elif is_obj_atom(atom) and obj_role(atom) in ("layer", "model") and atom[2] is not None:
                starts.update(index.dispatch(atom[2], index.instance_call(atom[2])))
        if starts:
            why = reasons[tracer]
            call = TracingCall(key, tracer, resolved.site.span.start_line, why, switch)
            found.append((call, sorted(starts, key=str)))
    return found


def _every_frameworks_tracers() -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """Every framework's compiled-code-averse tracers and switched exporters
    (`Framework.compiled_code_tracers`, `compiled_code_tracer_switches`), and why each fails
    on compiled code (a switched one: `switched_tracer_failure`). A tracer call is
    one whatever the framework of the function making it: a test module testing a library's
    TensorFlow and PyTorch code counts as TensorFlow code (`compile_targets`), and its
    `torch.jit.script(layer)` still scripts the PyTorch layer (einops 0.8.2's
    `test_torch_layers_scripting`)."""
    tracers: dict[str, str] = {}
    switches: dict[str, str] = {}
    reasons: dict[str, str] = {}
    for framework in FRAMEWORKS:
        tracers.update(framework.compiled_code_tracers)
        switches.update(framework.compiled_code_tracer_switches)
        reasons.update(
            dict.fromkeys(
                framework.compiled_code_tracer_switches, framework.switched_tracer_failure
            )
        )
    return tracers, switches, {**reasons, **tracers}


def _tracing_switch(resolved: ResolvedCall, keyword: str) -> str:
    """How a call of a switched exporter selects tracing, when its keyword may be False:
    given as anything but a literal True, or left to `**kwargs` that may set it; empty when
    it takes the other path (the keyword a literal True, or left out: the default)."""
    given = dict(resolved.site.kwargs).get(keyword)
    if given is None:
        return f"**kwargs that may set {keyword}=False" if resolved.site.has_star_args else ""
    if given == lit_sym("bool", True):
        return ""
    return f"{keyword}=False" if given == lit_sym("bool", False) else f"{keyword}=<may be False>"


def runs_under_tracers(index: ProjectIndex, facts: TensorFacts, key: FunctionKey) -> list[Evidence]:
    """The function runs inside a callable the project traces or scripts
    (`traced_functions`)."""
    call = traced_functions(index, facts).get(key)
    if call is None:
        return []
    by = "module code" if call.by.is_module_code else f"`{call.by.qualname}`"
    return [
        Evidence(
            f"{by} {call.verb()} it with `{call.written()}` (line {cited_line(call.by.file, call.line)}"
            + ("" if call.by.file == key.file else f" of {call.by.file}")
            + f"): {call.why}",
            index.function(key).span,
        )
    ]
