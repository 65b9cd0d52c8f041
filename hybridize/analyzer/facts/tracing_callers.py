"""Project functions that run under a tracer that cannot trace compiled code.

`torch.jit.trace` and FX's `symbolic_trace` run a callable (a function, or a module's
`forward`) on tracer values and record what it does. A `torch.compile`d function called
while they do raises: "Detected that you are using FX to torch.jit.trace a dynamo-optimized
function. This is not supported at the moment." (measured on torch 2.13, for the compiled
function traced directly, a function calling it, a module whose `forward` calls it and a
module with a compiled `forward`; `frameworks.torch_rules.COMPILED_CODE_TRACERS`).
`torch.jit.script` compiles the wrapped function's source instead and `torch.export`
traces through Dynamo: both worked (measured), and are not such tracers.

So a function the traced callable runs, itself or through the project functions it calls,
transitively, must stay uncompiled while the project traces it.
"""

from __future__ import annotations

from dataclasses import dataclass

from hybridize.analyzer.facts.callgraph import first_witness_of_runs
from hybridize.analyzer.facts.evaluator import ResolvedCall, TensorFacts
from hybridize.analyzer.facts.evidence import Evidence
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.frameworks import written_name
from hybridize.analyzer.summaries.keys import FunctionKey


@dataclass(frozen=True, slots=True)
class TracingCall:
    """A call of a tracer on a project callable."""

    by: FunctionKey
    """The function (or module code) that calls the tracer."""
    tracer: str
    """The tracer's canonical name (`torch.jit.trace`)."""
    line: int


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
    tracers = index.function_framework(key).compiled_code_tracers
    if not tracers:
        return []
    found: list[tuple[TracingCall, list[FunctionKey]]] = []
    for resolved in calls:
        tracer = next((info.name for info in resolved.api if info.name in tracers), None)
        if tracer is None or not resolved.args:
            continue
        starts: set[FunctionKey] = set()
        for atom in resolved.args[0]:
            if atom[0] in ("func", "method") and isinstance(atom[1], FunctionKey):
                starts.add(atom[1])
            elif atom[0] == "obj" and atom[1] in ("layer", "model") and atom[2] is not None:
                starts.update(index.dispatch(atom[2], index.instance_call(atom[2])))
        if starts:
            call = TracingCall(key, tracer, resolved.site.span.start_line)
            found.append((call, sorted(starts, key=str)))
    return found


def runs_under_tracers(index: ProjectIndex, facts: TensorFacts, key: FunctionKey) -> list[Evidence]:
    """The function runs inside a callable the project traces (`traced_functions`)."""
    call = traced_functions(index, facts).get(key)
    if call is None:
        return []
    by = "module code" if call.by.is_module_code else f"`{call.by.qualname}`"
    return [
        Evidence(
            f"{by} traces it with `{written_name(call.tracer)}` (line {call.line}"
            + ("" if call.by.file == key.file else f" of {call.by.file}")
            + "): tracing a torch.compile'd function raises (\"Detected that you are using FX "
            'to torch.jit.trace a dynamo-optimized function")',
            index.function(key).span,
        )
    ]
