"""Where torch.compile may break a function's graph, in its body or in what it calls.

A graph break is no failure by itself: Dynamo compiles the graph so far, runs the call it
cannot trace as Python and resumes, so the labelling keeps a function with such a call
compilable. It fails one arrangement: a method compiled on its own (its class attribute is
the compile wrapper) and called as `obj.m(x)` or `self.m(x)` inside a compiled caller's
graph loses its instance when Dynamo breaks inside it ("TypeError: C.m() missing 1 required
positional argument", torch 2.13; `nested_compiled` and HY423). Whether a method may break
is this fact.

The breaks the labelling already fails a function for (eager-only calls such as `.item()`,
a tensor read as a Python value, print, logging, I/O, Python's `random`, the clock: HY301,
HY303, HY1xx) come with the function's own findings. What this module adds are the breaks it
does not fail a function for, here or in any project function it runs:

- a call of something the analysis cannot see applied to tensors
  (`callgraph.local_opaque_tensor_call`: a method of an object of unknown class, such as a
  module taken from a list, `self.flows[i].inverse(z)`): Dynamo traces into it, and what it
  meets there may break the graph;
- a call the framework lists among its quiet graph breaks (`Framework.quiet_graph_breaks`:
  PyTorch's data-dependent output shapes, `nonzero`, `unique`, `tolist()` of a float
  tensor, the Python bools computed from tensors' values, `allclose`, `equal`, and the
  standard library's C functions Dynamo cannot trace, `pickle.dumps`, `json.dumps`...).

A compiled function with such a break runs as two graphs and the Python between them, each
frame with its own guards: the benefit model rates it `low` (`BenefitModel.estimate`, from
`first_graph_break(..., unseen=False)`).

The fact flows from callees to callers over the call graph of a verdict phase (`reaching`),
from a per-function local part, like `opaque_tensor_calls`: an incremental phase works it out
for its scope only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from hybridize.analyzer.facts.callgraph import (
    MAX_FUNCTIONS_RUN,
    TRACED,
    functions_run_by,
    opaque_tensor_call_sites,
    reaching,
)
from hybridize.analyzer.facts.digraph import DiGraph
from hybridize.analyzer.facts.evaluator import ResolvedCall, TensorFacts, callees
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.frameworks import written_name
from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.analyzer.summaries.syms import attr_name, is_attr
from hybridize.model import Span


@dataclass(frozen=True, slots=True)
class GraphBreak:
    """A call that may break the graph, in words that read after "it runs", and where."""

    what: str
    function: FunctionKey
    span: Span


def quiet_graph_break(breaks: Mapping[str, str], resolved: ResolvedCall) -> str | None:
    """The canonical name of a call of the framework's quiet graph `breaks`, or None."""
    return next((info.name for info in resolved.api if info.name in breaks), None)


def graph_breaks(
    index: ProjectIndex,
    graph: DiGraph,
    facts: TensorFacts,
    opaque: Mapping[FunctionKey, bool],
) -> dict[FunctionKey, bool]:
    """Whether each function of `opaque` (its own unknown calls on tensors:
    `callgraph.local_opaque_tensor_calls`), or a project function it runs, may break the
    graph where the labelling does not see it (callbacks traced into graphs of their own are
    not followed)."""
    local: dict[FunctionKey, bool] = {}
    for key, unseen in opaque.items():
        if key.is_module_code:
            continue
        breaks = index.function_framework(key).quiet_graph_breaks
        local[key] = unseen or bool(
            breaks
            and any(quiet_graph_break(breaks, r) is not None for r in facts.calls.get(key, []))
        )
    return reaching(graph, local, frozenset({TRACED}))


def first_graph_break(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, *, unseen: bool = True
) -> GraphBreak | None:
    """The first call, in the function or what it runs (breadth first), that may break the
    graph: the explanation of a true `graph_breaks` entry. With `unseen` False, only the
    framework's quiet graph breaks, which do break it (a call of something the analysis
    cannot see only may)."""
    for run in functions_run_by(index, facts, [key]):
        breaks = index.function_framework(run).quiet_graph_breaks
        for resolved in facts.calls.get(run, []):
            name = quiet_graph_break(breaks, resolved)
            if name is not None:
                reason = breaks[name]
                what = f"`{written_name(name)}` ({reason})"
                return GraphBreak(what, run, resolved.site.span)
        for resolved in opaque_tensor_call_sites(facts, run) if unseen else ():
            callee = resolved.site.callee
            shown = f"`.{attr_name(callee)}()`" if is_attr(callee) else "a callable"
            what = f"{shown} of an object the analysis cannot see, on tensors"
            return GraphBreak(what, run, resolved.site.span)
    return None


def first_sparse_call(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey
) -> GraphBreak | None:
    """The first call, in the function or what it surely runs (breadth first), that builds or
    reads a sparse tensor (`Framework.sparse_tensor_calls`, or a method only sparse tensors
    have, `Framework.sparse_only_methods`, on a receiver of unknown type reaching no project
    function): work torch.compile does not compile (Dynamo does not trace sparse tensors).
    None where there is none. A call is followed only where it reaches one function: a method
    that some subclasses override (`self.matmul(...)` on a base class) may run the sparse
    work for one subclass's objects only, which says nothing of the others'."""
    seen: dict[FunctionKey, None] = {}
    work = [key]
    while work and len(seen) < MAX_FUNCTIONS_RUN:
        run = work.pop(0)
        if run in seen:
            continue
        seen[run] = None
        framework = index.function_framework(run)
        sparse = framework.sparse_tensor_calls
        if not sparse:
            continue
        for resolved in facts.calls.get(run, []):
            name = next((info.name for info in resolved.api if info.name in sparse), None)
            callee = resolved.site.callee
            if name is None and not resolved.api and not resolved.targets and is_attr(callee):
                name = framework.sparse_only_methods.get(attr_name(callee))
            if name is not None and name in sparse:
                what = f"`{written_name(name)}` ({sparse[name]})"
                return GraphBreak(what, run, resolved.site.span)
        for resolved in facts.calls.get(run, []):
            targets = callees(index, resolved)
            if len(targets) == 1:
                work.append(targets[0][1])
    return None
