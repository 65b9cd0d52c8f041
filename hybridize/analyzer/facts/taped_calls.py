"""Project functions that run recorded on a gradient tape: where a compiled call costs more.

TensorFlow records operations for gradients only under a `tf.GradientTape`, and only those
with a watched input. A `tf.function` called on a watched tensor is recorded as one operation,
with a forward function that also outputs the intermediates its backward needs: the compiled
call costs more than untaped (`CallCosts.taped_call`), more than the eager ops gain from
recording themselves (measured: 10 elementwise ops, as fast compiled as eager untaped, ran
0.64x to 0.72x taped). So a function with a thin margin of saved work over the untaped
overhead loses it under a tape (tensorflow-graphics' `tile_zonal_coefficients`, 0.82x on
its tests' calls, which differentiate it in a Jacobian test).

A project function runs recorded on a tape when

- a value computed from its result is the target a tape differentiates
  (`tape.gradient(loss, variables)`, `jacobian`, `batch_jacobian`:
  `Framework.taped_gradient_calls`): the ops that computed the target ran under the tape.
  As for a differentiated value elsewhere (`differentiated_values`), a target computed from a
  parameter is followed to what every caller passes there; what is differentiated with
  respect to (the sources) ends the walk;
- it is handed to a call that differentiates the callable it is given
  (`tf.test.compute_gradient(f, x)`: `Framework.gradient_check_calls`), directly or through
  parameters of project helpers (`assert_jacobian_is_correct_fn(self, f, x)`, whose callers
  pass the function: up to `MAX_CALLER_LEVELS` levels of callers);

and so do the project functions it calls, transitively (`functions_run_by`). Test code counts:
a library's Jacobian tests say its users differentiate the function.

A function's own part reads only its own calls (memoised with them, `scan_memo`); the walks
over callers are made when the answer is combined, from the current call graph.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from hybridize.analyzer.facts.callgraph import call_sites
from hybridize.analyzer.facts.differentiated_values import MAX_CALLER_LEVELS, callables_among
from hybridize.analyzer.facts.evaluator import (
    ResolvedCall,
    TensorFacts,
    bind_written,
    callees,
    get_evaluator,
)
from hybridize.analyzer.facts.predicates import local_values, made_of
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.scan_memo import per_function
from hybridize.analyzer.summaries.ir import FunctionSummary
from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.analyzer.summaries.syms import (
    Sym,
    attr_base,
    attr_name,
    call_index,
    is_attr,
    is_call,
    is_local,
    is_param,
    param_sym,
    sym_name,
)


@dataclass(frozen=True, slots=True)
class TapedRun:
    """Where a function's calls are recorded on a gradient tape."""

    by: FunctionKey
    """The function that differentiates (or hands the function to a gradient check)."""
    how: str
    """The call, as written in the reason: "`GradientTape.gradient`"."""
    line: int


@dataclass(frozen=True, slots=True)
class HandedCallable:
    """The callables a function hands to a gradient check: the project functions it names
    there, and its own parameters it hands over (what callers pass there is handed too)."""

    starts: tuple[FunctionKey, ...]
    parameters: tuple[str, ...] = ()


def taped_functions(index: ProjectIndex, facts: TensorFacts) -> dict[FunctionKey, TapedRun]:
    """Project functions whose calls some code records on a gradient tape (see the module
    docstring), each with the first place (in key order) that does it."""
    cached = facts.cache.get("taped_calls")
    if isinstance(cached, dict):
        return cached
    result: dict[FunctionKey, TapedRun] = {}
    found = per_function(facts, "taped_calls", lambda key, calls: _taped_by(index, key, calls))
    for key in sorted(found, key=str):
        for witness, value in found[key]:
            starts = (
                [(k, None) for k in _handed_through_callers(index, facts, key, value)]
                if isinstance(value, HandedCallable)
                else list(value)
            )
            for target in _recorded_callees(index, facts, starts):
                result.setdefault(target, witness)
    facts.cache["taped_calls"] = result
    return result


def _recorded_callees(
    index: ProjectIndex,
    facts: TensorFacts,
    starts: Iterable[tuple[FunctionKey, frozenset[str] | None]],
) -> list[FunctionKey]:
    """`starts` (with their watched parameters, None: every one) and the project functions they call with an
    argument computed from a watched parameter, transitively, a callee's watched parameters
    being those such an argument binds: the tape records an op only when one of its inputs is
    watched (a helper called on constants, `_spherical_harmonics_normalization(l, m)` inside a
    function differentiated with respect to angles, is not recorded)."""
    watched: dict[FunctionKey, frozenset[str]] = {}
    work = list(starts)
    steps = 0
    while work and steps < MAX_RECORDED:
        steps += 1
        key, given = work.pop(0)
        fn = index.function(key)
        names = frozenset(p.name for p in fn.explicit_params) if given is None else given
        known = watched.get(key)
        if known is not None and names <= known:
            continue
        names = names | (known or frozenset())
        watched[key] = names
        sources = frozenset(param_sym(name) for name in names)
        unrecorded = index.function_framework(key).tape_unrecorded
        calls = facts.calls.get(key, [])
        ends = Ends(sources, unrecorded, {resolved.index: resolved for resolved in calls})
        for resolved in calls:
            work.extend(_watched_arguments(index, fn, resolved, ends).items())
    return list(watched)


@dataclass(frozen=True, slots=True)
class Ends:
    """Where a walk back over a function's values stops: the watched values (`sources`),
    and what a tape does not record (`unrecorded`: `Framework.tape_unrecorded`), read
    through the function's resolved calls (`calls`, by call index) where it has them."""

    sources: frozenset[Sym]
    unrecorded: frozenset[str]
    calls: Mapping[int, ResolvedCall]


def _watched_arguments(
    index: ProjectIndex, fn: FunctionSummary, resolved: ResolvedCall, ends: Ends
) -> dict[FunctionKey, frozenset[str]]:
    """The project functions a call of `fn` runs, each with its parameters the call binds
    to values computed from the watched `ends.sources` (not through what a tape does not
    record); those given none are left out."""
    found: dict[FunctionKey, frozenset[str]] = {}
    for kind, target in callees(index, resolved):
        bound = bind_written(index.function(target), resolved, kind, target)
        passed = frozenset(
            name
            for name, values in bound.items()
            if any(_computed_from(fn, v, ends, set()) for v in values)
        )
        if passed:
            found[target] = found.get(target, frozenset()) | passed
    return found


MAX_RECORDED = 2000
"""How many functions `_recorded_callees` visits at most (a bound no real project comes near)."""


Recorded = tuple[tuple[FunctionKey, frozenset[str] | None], ...]
"""Functions a tape records, each with its watched parameters (None: every one)."""


def _taped_by(
    index: ProjectIndex, key: FunctionKey, calls: list[ResolvedCall]
) -> list[tuple[TapedRun, Recorded | HandedCallable]]:
    """Each call of this function that differentiates with a tape, with the functions it
    records (those whose calls computing the target take a value computed from the sources
    or from a watched tensor), or the callables it hands to a gradient check."""
    framework = index.function_framework(key)
    taped, checks = framework.taped_gradient_calls, framework.gradient_check_calls
    if not (taped or checks):
        return []
    # Most functions call neither (every function of the project is scanned, cold): their
    # calls are not indexed, nor their watched tensors looked for.
    if not any(info.name in taped or info.name in checks for r in calls for info in r.api):
        return []
    fn = index.function(key)
    by_index = {resolved.index: resolved for resolved in calls}
    watched = frozenset(
        resolved.site.args[0]
        for resolved in calls
        if resolved.site.args and any(i.name in framework.tape_watch_calls for i in resolved.api)
    )
    found: list[tuple[TapedRun, Recorded | HandedCallable]] = []
    for resolved in calls:
        site = resolved.site
        names = [info.name for info in resolved.api]
        gradient = next((n for n in names if n in taped), None)
        if gradient is not None and site.args:
            where = TapedRun(key, f"`{_written(gradient)}`", site.span.start_line)
            sources = _sources(resolved, taped[gradient]) | watched
            ends = Ends(sources, framework.tape_unrecorded, by_index)
            recorded = _recorded_producers(index, fn, site.args[0], ends, set())
            if recorded:
                found.append((where, tuple(sorted(recorded.items(), key=lambda r: str(r[0])))))
            continue
        check = next((n for n in names if n in checks), None)
        if check is not None and site.args:
            where = TapedRun(key, f"`{_written(check)}`", site.span.start_line)
            handed = HandedCallable(
                tuple(callables_among(index, resolved.args[0] if resolved.args else frozenset())),
                tuple(_parameters_named(fn, site.args[0])),
            )
            found.append((where, handed))
    return found


def _recorded_producers(
    index: ProjectIndex, fn: FunctionSummary, sym: Sym, ends: Ends, seen: set[Sym]
) -> dict[FunctionKey, frozenset[str]]:
    """The project functions the differentiated value is computed from in this function
    whose call takes a value computed from `ends.sources` (the tape records them), each with
    the parameters such values bind."""
    if sym in seen or sym in ends.sources or len(seen) > MAX_SYMS:
        return {}
    seen.add(sym)
    found: dict[FunctionKey, frozenset[str]] = {}
    if is_call(sym) and call_index(sym) in ends.calls:
        found = _watched_arguments(index, fn, ends.calls[call_index(sym)], ends)
    for part in _parts(fn, sym):
        for target, passed in _recorded_producers(index, fn, part, ends, seen).items():
            found[target] = found.get(target, frozenset()) | passed
    return found


MAX_SYMS = 200
"""How many values one walk over a function's values visits at most."""


def _computed_from(fn: FunctionSummary, sym: Sym, ends: Ends, seen: set[Sym]) -> bool:
    """Whether a value of the function is computed from one of `ends.sources` (a parameter,
    a local name or an expression as written), not through what a tape does not record
    (`Framework.tape_unrecorded`: `x.dtype`, `tf.shape(x)`; `_unrecorded_call`)."""
    if sym in ends.sources:
        return True
    if is_local(sym) and param_sym(sym_name(sym)) in ends.sources:
        return True
    if sym in seen or len(seen) > MAX_SYMS:
        return False
    seen.add(sym)
    if is_attr(sym) and attr_name(sym) in ends.unrecorded:
        return False
    if is_call(sym) and _unrecorded_call(fn, call_index(sym), ends):
        return False
    return any(_computed_from(fn, part, ends, seen) for part in _parts(fn, sym))


def _unrecorded_call(fn: FunctionSummary, index: int, ends: Ends) -> bool:
    """Whether the function's call at `index` is one a tape does not record: by the
    framework calls the analysis resolved it to (`tf.shape`, `tf.stop_gradient`: each one's
    last name in `ends.unrecorded`) where it resolved it; a call it resolved to the
    project's own functions only is recorded as they are, whatever its name (a helper named
    `size`); a call it did not resolve, by the name written (`x.shape`-like methods)."""
    if not 0 <= index < len(fn.calls):
        return False
    resolved = ends.calls.get(index)
    if resolved is not None and resolved.api:
        return all(info.name.rsplit(".", 1)[-1] in ends.unrecorded for info in resolved.api)
    if resolved is not None and resolved.targets:
        return False
    callee = fn.calls[index].callee
    return is_attr(callee) and attr_name(callee) in ends.unrecorded


def _parts(fn: FunctionSummary, sym: Sym) -> list[Sym]:
    """The values a value is computed from, one step back: a local's values, a call's
    arguments and receiver, the parts of anything else (`predicates.made_of`)."""
    if is_call(sym):
        if not 0 <= call_index(sym) < len(fn.calls):
            return []
        site = fn.calls[call_index(sym)]
        parts = [*site.args, *(value for _, value in site.kwargs), *site.star_values]
        if is_attr(site.callee):
            parts.append(attr_base(site.callee))
        return parts
    return [*local_values(fn, sym), *made_of(sym)]


def _sources(resolved: ResolvedCall, positions: tuple[int | str, ...]) -> frozenset[Sym]:
    """What a tape's call differentiates with respect to, as written: where the walk ends."""
    given = resolved.site.argument_at(positions)
    return frozenset() if given is None else frozenset({given})


def _parameters_named(fn: FunctionSummary, sym: Sym) -> list[str]:
    """The parameter `sym` names, directly or as a local still bound to it (the receiver
    aside): what callers pass there is handed over too."""
    names = {p.name for i, p in enumerate(fn.params) if not (i == 0 and fn.binds_receiver)}
    if is_param(sym) and sym_name(sym) in names:
        return [sym_name(sym)]
    if (
        is_local(sym)
        and sym_name(sym) in names
        and param_sym(sym_name(sym)) in fn.locals.get(sym_name(sym), ())
    ):
        return [sym_name(sym)]
    return []


def _handed_through_callers(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, handed: HandedCallable
) -> list[FunctionKey]:
    """The callables handed over: `handed.starts`, and, for each parameter handed over,
    what every caller passes there, level by level up to `MAX_CALLER_LEVELS`."""
    found: dict[FunctionKey, None] = dict.fromkeys(handed.starts)
    level: list[tuple[FunctionKey, tuple[str, ...]]] = [(key, handed.parameters)]
    walked: set[tuple[FunctionKey, str]] = set()
    for _ in range(MAX_CALLER_LEVELS):
        following: list[tuple[FunctionKey, tuple[str, ...]]] = []
        for callee, parameters in level:
            wanted = [p for p in parameters if (callee, p) not in walked]
            if not wanted:
                continue
            walked.update((callee, p) for p in wanted)
            callee_fn = index.function(callee)
            for caller, caller_fn, resolved, kind in call_sites(index, facts, callee):
                bound: Mapping[str, frozenset[Sym]] = bind_written(
                    callee_fn, resolved, kind, callee
                )
                evaluator = get_evaluator(index, facts, caller)
                for name in wanted:
                    for argument in bound.get(name, ()):
                        found.update(
                            dict.fromkeys(callables_among(index, evaluator.eval(argument)))
                        )
                        upper = _parameters_named(caller_fn, argument)
                        if upper:
                            following.append((caller, tuple(upper)))
        level = following
        if not level:
            break
    return list(found)


def _written(name: str) -> str:
    """An API's name as the reason writes it: `GradientTape.gradient`, `tf.test.compute_gradient`."""
    return name.replace("tensorflow.GradientTape.", "GradientTape.").replace("tensorflow.", "tf.")
