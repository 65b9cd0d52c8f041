"""Project functions whose results some code differentiates twice (higher-order gradients).

AOTAutograd compiles a function's backward into a graph of its own, and that compiled
backward is not differentiable: a gradient taken with `create_graph=True` through a compiled
region and then differentiated again raises "torch.compile with aot_autograd does not
currently support double backward", and `torch.autograd.functional.hessian` (which
differentiates a `create_graph` jacobian with `strict=False`) silently returns zeros
(measured on torch 2.13: `frameworks.torch_rules.DOUBLE_BACKWARD_CALLS`,
`HIGHER_ORDER_GRADIENT_CALLS`). A first-order backward, `retain_graph=True` and the
`torch.func` transforms are unaffected (measured).

Code differentiates a project function's result twice when

- it passes a value computed from the function's result to a call that differentiates it
  with a differentiable backward (`torch.autograd.grad(out, x, create_graph=True)`,
  `out.backward(create_graph=True)`), or
- it hands a callable reaching the function to a call that differentiates the callable twice
  (`hessian(f, x)`, `hvp`, `vhp`, or `jacobian(f, x, create_graph=True)`).

The flag may be a parameter of the function (torchani 2.9.0's `forces(energies, coordinates,
create_graph=False)` calls `grad([energies.sum()], [coordinates], create_graph=create_graph)`):
it counts when its default is True or some caller, up to `MAX_FLAG_LEVELS` levels up, passes
a literal True there (`forces_for_training`, or `energies_and_forces(model, ...,
create_graph=create_graph)` whose own callers pass True). And the model a function calls may
be a parameter annotated with project classes (`model: Model`, `Model = tp.Union[ANI,
...]`): its call reaches those classes' `forward` (`annotated_instance_calls`).

Either way the functions the result is computed through are differentiated twice too, so the
project functions they call are included, transitively.

A callable handed to `torch.autograd.functional.jacobian` without `create_graph` is not
differentiated twice, but its graph's backward runs once per output element
(`REPEATED_BACKWARD_CALLS`): a compiled backward first run without keeping the graph has
donated buffers, and the second run raises (measured on torch 2.13, zuko's `MonotonicMLP`
test; the other backwards that keep the graph are `kept_graph_backward`'s). It is read
here too, with its own reason: the same family of limits of a compiled backward. A module
handed over stands for its `forward` (`dispatch` of its instance call).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from hybridize.analyzer.facts.callgraph import call_sites, first_witness_of_expanded_runs
from hybridize.analyzer.facts.cited_lines import cited_line
from hybridize.analyzer.facts.differentiated_values import (
    DifferentiatedValue,
    backward_inputs,
    callables_among,
    differentiated_value,
    named_parameters,
    producers_through_callers,
)
from hybridize.analyzer.facts.evaluator import ResolvedCall, TensorFacts, bind_written
from hybridize.analyzer.facts.evidence import Evidence
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.values import is_boundext_atom
from hybridize.analyzer.frameworks.framework import Framework
from hybridize.analyzer.summaries.ir import FunctionSummary
from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.analyzer.summaries.syms import (
    Sym,
    is_attr,
    lit_sym,
)

MAX_FLAG_LEVELS = 2
"""How many levels of callers a `create_graph` flag that is a parameter is followed up
(torchani: `forces` <- `energies_and_forces(..., create_graph=create_graph)` <-
`energies_forces_and_hessians`, which passes True)."""

TRUE = lit_sym("bool", True)


@dataclass(frozen=True, slots=True)
class SecondDerivative:
    """Where a project function's result is differentiated twice."""

    by: FunctionKey
    """The function that differentiates it."""
    how: str
    """The call, as written in the message: "`torch.autograd.grad(..., create_graph=True)`"."""
    line: int
    what: str = "differentiates its result twice"
    reason: str = (
        "AOTAutograd's compiled backward is not differentiable (double backward raises, "
        "a hessian comes back as zeros)"
    )


def double_backward_targets(
    index: ProjectIndex, facts: TensorFacts
) -> dict[FunctionKey, SecondDerivative]:
    """Project functions whose result some function differentiates twice, each with the
    first place (in key order) that does it."""
    return first_witness_of_expanded_runs(
        index,
        facts,
        "double_backward",
        lambda key, calls: _double_backward_of(index, key, calls),
        lambda key, value: (
            producers_through_callers(index, facts, key, value, through_annotations=True)
            if value.graph_kept_by is None
            or _flag_may_be_true(index, facts, key, value.graph_kept_by, 0)
            else []
        ),
    )


def _double_backward_of(
    index: ProjectIndex, key: FunctionKey, calls: list[ResolvedCall]
) -> list[tuple[SecondDerivative, DifferentiatedValue]]:
    """Each call of this function that differentiates twice, with what it differentiates
    (the value, its producers and the parameters it comes from; or the callable handed
    over)."""
    framework = index.function_framework(key)
    if not (
        framework.double_backward_calls
        or framework.higher_order_gradient_calls
        or framework.repeated_backward_calls
    ):
        return []
    by_index = {resolved.index: resolved for resolved in calls}
    fn = index.function(key)
    found: list[tuple[SecondDerivative, DifferentiatedValue]] = []
    for resolved in calls:
        line = resolved.site.span.start_line
        asked, flag = _asks_double_backward(fn, resolved, framework.double_backward_calls)
        if asked is not None:
            site = resolved.site
            # `loss.backward(...)` differentiates its receiver, `grad(out, x, ...)` its first
            # argument.
            method = is_attr(site.callee) and any(
                is_boundext_atom(a) for a in resolved.callee_atoms
            )
            differentiated = site.callee[1] if method else site.args[0] if site.args else None
            if differentiated is not None:
                inputs = backward_inputs(resolved, framework)
                value = differentiated_value(index, fn, by_index, differentiated, inputs, key.file)
                how = f"`{asked}(..., create_graph=True)`"
                if flag is not None:
                    value = replace(value, graph_kept_by=flag)
                    how = f"`{asked}(..., create_graph={flag})` (a caller passes True)"
                found.append((SecondDerivative(key, how, line), value))
            continue
        handed = _differentiates_callable_twice(resolved, framework)
        if handed is not None:
            starts = tuple(callables_among(index, resolved.args[0] if resolved.args else ()))
            found.append((SecondDerivative(key, f"`{handed}`", line), DifferentiatedValue(starts)))
            continue
        repeated = next(
            (i.name for i in resolved.api if i.name in framework.repeated_backward_calls), None
        )
        if repeated is not None:
            reason = (
                "it runs the backward once per output over one graph, and a compiled backward "
                "first run without keeping the graph has donated buffers: the second run raises"
            )
            what = "runs the backward of its result repeatedly"
            where = SecondDerivative(key, f"`{_written(repeated)}`", line, what, reason)
            starts = tuple(callables_among(index, resolved.args[0] if resolved.args else ()))
            found.append((where, DifferentiatedValue(starts)))
    return found


def _asks_double_backward(
    fn: FunctionSummary, resolved: ResolvedCall, calls: tuple[tuple[str, str], ...]
) -> tuple[str | None, str | None]:
    """The API a call differentiates its value with, when it keeps the backward
    differentiable (the keyword set to a literal True, or to a parameter defaulting to
    True), else None; and the parameter of `fn` the keyword is set to otherwise, whose
    callers decide (`_flag_may_be_true`)."""
    kwargs = dict(resolved.site.kwargs)
    for info in resolved.api:
        for name, keyword in calls:
            if info.name != name or keyword not in kwargs:
                continue
            if kwargs[keyword] == TRUE:
                return _written(name), None
            flag = _parameter_named(fn, kwargs[keyword])
            if flag is not None:
                if _default(fn, flag) == TRUE:
                    return _written(name), None
                return _written(name), flag
    return None, None


def _parameter_named(fn: FunctionSummary, sym: Sym) -> str | None:
    """The parameter of `fn` a value is (directly, or a name that may still hold it)."""
    return next(iter(named_parameters(fn, frozenset({sym}))), None)


def _default(fn: FunctionSummary, name: str) -> Sym | None:
    return next((p.default for p in fn.params if p.name == name), None)


def _flag_may_be_true(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, name: str, level: int
) -> bool:
    """Some caller of `key` passes a literal True to its parameter `name` (or passes a
    parameter of its own that defaults to True or whose callers pass True, up to
    `MAX_FLAG_LEVELS` levels)."""
    fn = index.function(key)
    for caller, caller_fn, resolved, kind in call_sites(index, facts, key):
        for argument in bind_written(fn, resolved, kind, key).get(name, ()):
            if argument == TRUE:
                return True
            upper = _parameter_named(caller_fn, argument)
            if upper is None:
                continue
            if _default(caller_fn, upper) == TRUE or (
                level + 1 < MAX_FLAG_LEVELS
                and _flag_may_be_true(index, facts, caller, upper, level + 1)
            ):
                return True
    return False


def _differentiates_callable_twice(resolved: ResolvedCall, framework: Framework) -> str | None:
    """The API a call differentiates its callable argument twice with, if it does: always
    (`hessian`), or with the keyword given as a literal True (`jacobian(..., create_graph=
    True)`)."""
    kwargs = dict(resolved.site.kwargs)
    for info in resolved.api:
        for name, keyword in framework.higher_order_gradient_calls:
            if info.name != name:
                continue
            if keyword is None:
                return _written(name)
            if kwargs.get(keyword) == lit_sym("bool", True):
                return f"{_written(name)}(..., {keyword}=True)"
    return None


def _written(name: str) -> str:
    return name.replace("torch.Tensor.", "Tensor.")


def differentiated_twice(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey
) -> list[Evidence]:
    """The function's result is differentiated twice (`double_backward_targets`)."""
    where = double_backward_targets(index, facts).get(key)
    if where is None:
        return []
    by = where.by.qualname
    return [
        Evidence(
            f"`{by}` {where.what} with {where.how} (line {cited_line(where.by.file, where.line)}): {where.reason}",
            index.function(key).span,
        )
    ]
