"""What a differentiated value is computed through: the project functions whose backward runs.

`torch.autograd.grad(out, x, ...)` runs the backward of every operation between `x` and
`out`; the project functions that produced `out` (and the values it was computed from) run
their backward in it. Inside one function those are the producers of the value
(`value_producers`). When the value is computed from a parameter, what the callers pass there
is differentiated too: normflows 1.7.3's residual flows hand the network's output `g` to
helpers (`batch_jacobian(g, x)`, an estimator chosen at run time, `estimator_fn(g, x, ...)`),
which call `torch.autograd.grad(g, x, create_graph=...)` on their parameter; the network's
compiled `forward` is what runs the kept backward. So the parameters the value is computed
from are followed to every call site of the function, and the argument there is followed in
the caller, level by level (`producers_through_callers`).

A call of a parameter whose annotation names project classes (torchani 2.9.0's
`energies_and_forces(model: Model, ...)`, `Model = tp.Union[Potential, ANI, ANIq]`) runs
the instance call of those classes (a module's `forward`) when the caller is HY422's
(`through_annotations`): the models its callers pass are built elsewhere (downloaded, in
torchani's tests), so the annotation is all the project says of them. Python does not check
it, but a value of another type would reach other code, not less of it.

What the backward differentiates with respect to (`grad`'s `inputs`) ends it: the functions
that computed `x` are not on the path from `x` to `out`. Those arguments stop the walk in the
function and, passed from a caller, in the caller. The receiver (`self`) is not followed: an
object's attributes are its state, not a value its caller computes.

A function's own part (`DifferentiatedValue`) reads only its own calls, so it is kept with
them across edits (`scan_memo`); the walk over callers is made when the answer is combined,
from the current call graph.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from hybridize.analyzer.facts.callgraph import call_sites
from hybridize.analyzer.facts.evaluator import (
    ResolvedCall,
    TensorFacts,
    bind_written,
    callees,
)
from hybridize.analyzer.facts.refs import is_class_ref, is_global_ref, ref_key
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.spec_annotations import DOTTED_NAME, MAX_ALIAS_DEPTH, dotted_names
from hybridize.analyzer.facts.values import (
    Atom,
    is_func_atom,
    is_method_atom,
    is_obj_atom,
    obj_class,
    obj_role,
    project_key,
)
from hybridize.analyzer.frameworks.framework import Framework
from hybridize.analyzer.summaries.ir import FunctionSummary
from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.analyzer.summaries.syms import (
    Sym,
    SymKind,
    is_attr,
    is_local,
    is_param,
    param_sym,
    sym_name,
)

MAX_CALLER_LEVELS = 8
"""How many levels of callers a differentiated parameter is followed up (normflows' flows
need two: the helper that differentiates, the method that calls it)."""

MAX_CALL_SITES = 200
"""How many call sites the walk over callers reads at most (a bound no real value comes near)."""


@dataclass(frozen=True, slots=True)
class DifferentiatedValue:
    """A value a function differentiates, as far as the function itself tells."""

    starts: tuple[FunctionKey, ...]
    """The project functions whose results it is computed from, in this function."""
    parameters: tuple[str, ...] = ()
    """The function's parameters it is computed from (not the receiver): what callers pass
    there is differentiated too."""
    inputs: tuple[str, ...] = ()
    """The function's parameters the backward differentiates with respect to: what callers
    pass there ends the walk in the caller too."""
    graph_kept_by: str | None = None
    """The parameter the backward's `create_graph` flag is (`create_graph=create_graph`), when
    the flag is one: the backward is differentiable where a caller passes True there."""


def differentiated_value(
    index: ProjectIndex,
    fn: FunctionSummary,
    by_index: dict[int, ResolvedCall],
    value: Sym,
    inputs: frozenset[Sym] = frozenset(),
    relpath: str | None = None,
) -> DifferentiatedValue:
    """What `value`, differentiated with respect to `inputs`, is computed from in `fn`; with
    `relpath` (the module of `fn`), a call of an annotated parameter reaches the classes the
    annotation names (`annotated_instance_calls`)."""
    parameters: set[str] = set()
    producers = value_producers(index, fn, by_index, value, set(), inputs, parameters, relpath)
    if fn.binds_receiver and fn.params:
        parameters.discard(fn.params[0].name)
    return DifferentiatedValue(
        tuple(sorted(producers, key=str)),
        tuple(sorted(parameters)),
        tuple(sorted(named_parameters(fn, inputs))),
    )


def named_parameters(fn: FunctionSummary, syms: frozenset[Sym]) -> set[str]:
    """The parameters that `syms` name, directly or as a name still bound to the parameter."""
    names = {p.name for p in fn.params}
    found: set[str] = set()
    for sym in syms:
        if (is_param(sym) and sym_name(sym) in names) or (
            is_local(sym) and param_sym(sym_name(sym)) in fn.locals.get(sym_name(sym), ())
        ):
            found.add(sym_name(sym))
    return found


def _arguments(site_args: tuple[Sym, ...], kwargs: tuple[tuple[str, Sym], ...]) -> list[Sym]:
    return [*site_args, *(value for _, value in kwargs)]


def value_producers(
    index: ProjectIndex,
    fn: FunctionSummary,
    by_index: dict[int, ResolvedCall],
    sym: Sym,
    seen: set[Sym] | None = None,
    stops: frozenset[Sym] = frozenset(),
    parameters: set[str] | None = None,
    relpath: str | None = None,
) -> set[FunctionKey]:
    """The project functions whose results a value is computed from, in this function; not
    through `stops`. The parameters it is computed from are added to `parameters`. With
    `relpath`, a call of an annotated parameter reaches the classes its annotation names."""
    seen = set() if seen is None else seen
    if sym in seen or sym in stops or len(seen) > 200:
        return set()
    seen.add(sym)
    kind: SymKind = sym[0]
    found: set[FunctionKey] = set()
    parts: list[Sym] = []
    if kind in ("local", "name") and sym[1] in fn.locals:
        parts = list(fn.locals[sym[1]])
    elif kind == "param" and parameters is not None:
        parameters.add(sym[1])
    elif kind == "call" and sym[1] in by_index:
        resolved = by_index[sym[1]]
        found = {target for _, target in callees(index, resolved)}
        site = resolved.site
        if relpath is not None:
            found |= annotated_instance_calls(index, fn, relpath, site.callee)
        parts = _arguments(site.args, site.kwargs)
        if is_attr(site.callee):
            parts.append(site.callee[1])
    elif kind in ("attr", "item", "iter", "enter"):
        parts = [sym[1]]
    elif kind in ("op", "cond"):
        parts = list(sym[1])
    elif kind == "seq":
        parts = list(sym[2])
    for part in parts:
        found |= value_producers(index, fn, by_index, part, seen, stops, parameters, relpath)
    return found


def annotated_instance_calls(
    index: ProjectIndex, fn: FunctionSummary, relpath: str, callee: Sym
) -> set[FunctionKey]:
    """What calling `callee` runs when it is a parameter of `fn` (or a name still bound to
    one) annotated with project classes: each class's instance call (`forward` for a
    module, `__call__` otherwise), through `Optional`/`Union` and module-level aliases."""
    names = named_parameters(fn, frozenset({callee}))
    if not names:
        return set()
    name = names.pop()
    annotation = next((p.annotation for p in fn.params if p.name == name), None)
    if not annotation:
        return set()
    found: set[FunctionKey] = set()
    for class_key in _annotated_classes(index, relpath, annotation, 0):
        call = index.instance_call(class_key) if index.layer_base(class_key) else "__call__"
        found.update(index.dispatch(class_key, call))
    return found


def _annotated_classes(
    index: ProjectIndex, relpath: str, annotation: str, depth: int
) -> list[FunctionKey]:
    """The project classes the names in an annotation refer to, following module-level
    aliases (`Model = tp.Union[Potential, ANI]`) as `spec_annotations` does for specs."""
    found: list[FunctionKey] = []
    for dotted in sorted(set(DOTTED_NAME.findall(annotation))):
        ref = index.resolve_dotted(relpath, dotted)
        if is_class_ref(ref):
            found.append(ref_key(ref))
        elif is_global_ref(ref) and depth < MAX_ALIAS_DEPTH:
            module = index.modules.get(ref[1])
            for value in module.module_code.locals.get(ref[2], []) if module is not None else []:
                for name in dotted_names(value):
                    found.extend(_annotated_classes(index, ref[1], name, depth + 1))
    return found


def producers_through_callers(
    index: ProjectIndex,
    facts: TensorFacts,
    key: FunctionKey,
    value: DifferentiatedValue,
    through_annotations: bool = False,
) -> list[FunctionKey]:
    """The functions `value` is computed from: its own `starts`, and, for each parameter it
    is computed from, the producers of what every caller passes there, up the callers (with
    `through_annotations`, a caller's call of an annotated parameter reaches the classes its
    annotation names)."""
    found: dict[FunctionKey, None] = dict.fromkeys(value.starts)
    work = [(key, value, 0)]
    walked: set[tuple[FunctionKey, tuple[str, ...], tuple[str, ...]]] = set()
    sites = 0
    while work and sites < MAX_CALL_SITES:
        callee, part, level = work.pop(0)
        if not part.parameters or level >= MAX_CALLER_LEVELS:
            continue
        if (callee, part.parameters, part.inputs) in walked:
            continue
        walked.add((callee, part.parameters, part.inputs))
        callee_fn = index.function(callee)
        for caller, caller_fn, resolved, kind in call_sites(index, facts, callee):
            sites += 1
            calls = facts.calls.get(caller, [])
            by_index = {call.index: call for call in calls}
            bound = _bound(callee_fn, resolved, kind, callee)
            stops = frozenset(s for name in part.inputs for s in bound.get(name, ()))
            for name in part.parameters:
                for argument in bound.get(name, ()):
                    upper = differentiated_value(
                        index,
                        caller_fn,
                        by_index,
                        argument,
                        stops,
                        caller.file if through_annotations else None,
                    )
                    found.update(dict.fromkeys(upper.starts))
                    work.append((caller, upper, level + 1))
    return list(found)


def _bound(
    fn: FunctionSummary, resolved: ResolvedCall, kind: str, target: FunctionKey
) -> dict[str, frozenset[Sym]]:
    """What a call site passes to each parameter of `fn`; a parameter the written arguments
    do not bind may take an element of what `*x` or `**y` unpacks."""
    bound = bind_written(fn, resolved, kind, target)
    star = frozenset(resolved.site.star_values)
    if star:
        for param in fn.params:
            bound.setdefault(param.name, star)
    return bound


def backward_inputs(resolved: ResolvedCall, framework: Framework) -> frozenset[Sym]:
    """What a backward call differentiates with respect to, as written (`grad(out, x)`: `x`;
    `Framework.backward_inputs_arguments`): where the backward ends."""
    for info in resolved.api:
        given = resolved.site.argument_at(framework.backward_inputs_arguments.get(info.name, ()))
        if given is not None:
            return frozenset({given})
    return frozenset()


def callables_among(index: ProjectIndex, atoms: Iterable[Atom]) -> list[FunctionKey]:
    """The project functions a value handed to a differentiating call may be: a function or
    method itself, or a layer or model object (the instance call its class, or a project
    subclass, dispatches to). Shared by the taped calls (`taped_calls.py`) and the double
    backward (`double_backward.py`): one answer to "what runs when this value is called"."""
    found: set[FunctionKey] = set()
    for atom in atoms:
        if is_func_atom(atom) or is_method_atom(atom):
            found.add(project_key(atom))
        elif is_obj_atom(atom) and obj_role(atom) in ("layer", "model"):
            held = obj_class(atom)
            if held is not None:
                found.update(index.dispatch(held, index.instance_call(held)))
    return sorted(found, key=str)
