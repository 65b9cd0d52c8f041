"""Layers received as arguments: each distinct layer object is a new trace that may build it.

`tf.function` keys its traces on its arguments, and a Python object (a Keras layer or model)
is keyed by identity: every distinct layer a caller passes starts a new trace. A layer that
has not been built yet creates its weights when it is first called, so an unbuilt layer
passed on a call after the first creates variables in a later trace, which raises
"tf.function only supports singleton tf.Variables created on the first call" (measured on
TF 2.21 with Keras 2 and Keras 3: two unbuilt `Dense` layers passed one after the other fail,
directly, as elements of a list, and as an unbuilt `Sequential`; built layers and
weightless layers pass). Whether a caller's layer is already built is not known statically,
so a call of a layer or model that a parameter holds is a hazard when the function may be
given different objects for it: positive evidence is call sites passing values of two
origins (two attributes, two locals; a caller's parameter is followed to its own callers), an
argument that changes with a loop's iteration (`tower(x, convs[level])`), or a layer made
anew by a function run from two places; origins that are all called before they are passed
on (which builds them; line order is the evidence) are built (tf-models'
`RetinaNetHead._apply_prediction_tower(features, convs, norms)`, called per level with the
classification and the box towers, fails that way). A function given the one model of a
training loop (`train_step(model, optimizer, x)` from a single call site) traces it once.

A method's own layers (`self.dense(x)`) are not arguments: a decorated method gets one
`tf.function` per instance, which builds the instance's layers on its first trace; nor are
layers a function reads from a global or a closure. A layer held by a parameter is followed
through locals, items, iteration, attributes (`model.encoder(x)`: a layer of the argument
object), the methods of the object a parameter holds (`layers.values()`) and Python's
builtins that hand their arguments' elements on (`zip`, `enumerate`, `reversed`); a project
function given such a value is followed to what it does with it: it is traced with its
caller. PyTorch code is not concerned (modules are not trace keys of `torch.compile`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import cast

from hybridize.analyzer.facts.call_closure import reach, solve
from hybridize.analyzer.facts.cited_lines import cited_line
from hybridize.analyzer.facts.evaluator import (
    ResolvedCall,
    TensorFacts,
    bind_written,
    callees,
)
from hybridize.analyzer.facts.evidence import Evidence
from hybridize.analyzer.facts.predicates import local_values, made_of, walk_syms
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.summaries.ir import CallSite, FunctionSummary, Sym
from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.analyzer.summaries.syms import (
    SymKind,
    is_attr,
    is_call,
    is_iter,
    is_local,
    is_param,
    sym_name,
)

LAYER_ROLES = frozenset({"layer", "model"})
"""Framework objects that build their variables when first called."""
HOLDING_KINDS = frozenset({"attr", "item", "iter", "enter", "cond", "dict", "seq"})
"""Values that may be a layer their parts hold: an attribute, item or element of it, a
conditional's alternative, a display's element (`made_of`)."""
MEMO = "argument_layers"
CALLING = "argument_layers_calling"
SITES = "argument_layers_sites"


def _follows_arguments(resolved: ResolvedCall) -> bool:
    """A Python builtin (`zip`, `enumerate`, `list`): its result holds its arguments' items."""
    return bool(resolved.api) and all(info.framework == "python" for info in resolved.api)


def held_parameters(
    fn: FunctionSummary, calls: dict[int, ResolvedCall], sym: Sym, receiver: str | None
) -> list[str]:
    """The parameters (not the receiver) whose object, or one of whose items, `sym` may be
    (`conv` of `for conv, norm in zip(convs, norms)` may be either's), sorted."""

    def follow(current: Sym) -> Iterable[Sym]:
        kind: SymKind = current[0]
        if kind in ("local", "name"):
            return local_values(fn, current)
        if kind in HOLDING_KINDS:
            return made_of(current)
        if kind != "call":
            return ()
        site = fn.calls[current[1]]
        resolved = calls.get(current[1])
        edges: list[Sym] = []
        if is_attr(site.callee) and (resolved is None or not resolved.targets):
            edges.append(site.callee[1])  # `layers.values()`, `model.get_layer(name)`
        if resolved is not None and _follows_arguments(resolved):
            edges.extend(site.args)
            edges.extend(value for _, value in site.kwargs)
        return edges

    held = {
        str(current[1])
        for current in walk_syms((sym,), follow)
        if is_param(current) and sym_name(current) != receiver
    }
    return sorted(held)


def _naming(params: list[str]) -> str:
    return " or ".join(f"`{p}`" for p in params)


@dataclass(frozen=True, slots=True)
class _LayerUse:
    """A call in a function that calls the layers of `params`: directly (`target` None), or
    by handing them to the project function `target` as its parameter `name`."""

    params: tuple[str, ...]
    site: CallSite
    target: FunctionKey | None = None
    name: str = ""


def _bound_values(
    index: ProjectIndex, resolved: ResolvedCall, kind: str, target: FunctionKey
) -> dict[str, frozenset[Sym]]:
    """The caller's values a call reaching `target` as `kind` passes to each of its
    parameters: the symbols as written, not their atoms (what holds a layer is read from
    them); a layer's call (`layer_call`) is never one of them."""
    return bind_written(index.function(target), resolved, kind, target)


def _layer_uses(
    index: ProjectIndex,
    facts: TensorFacts,
    key: FunctionKey,
    calling: Callable[[FunctionKey], frozenset[str]],
) -> list[_LayerUse]:
    """The function's calls of layers its parameters hold, in call order, given which
    parameters' layers each project function calls (`calling`)."""
    fn = index.function(key)
    receiver = fn.params[0].name if fn.binds_receiver and fn.params else None
    resolved_calls = facts.calls.get(key, [])
    calls = {r.index: r for r in resolved_calls}
    uses: list[_LayerUse] = []
    for resolved in resolved_calls:
        site = resolved.site
        if LAYER_ROLES & set(resolved.receiver_roles):
            params = held_parameters(fn, calls, site.callee, receiver)
            if params:
                uses.append(_LayerUse(tuple(params), site))
                continue
        for kind, target in callees(index, resolved):
            if kind == "layer_call":
                continue
            inner = calling(target)
            if not inner:
                continue
            bound = _bound_values(index, resolved, kind, target)
            for name, values in bound.items():
                if name not in inner:
                    continue
                for value in values:
                    params = held_parameters(fn, calls, value, receiver)
                    if params:
                        uses.append(_LayerUse(tuple(params), site, target, name))
    return uses


def _calling(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey
) -> dict[FunctionKey, frozenset[str]]:
    """Per function, the parameters whose layers it calls, itself or through the project
    functions it hands them to: for every function `key` reaches, memoised per project (a
    least fixed point, `call_closure`: parameters are only added, so it ends)."""
    memo = cast(dict[FunctionKey, frozenset[str]], facts.cache.setdefault(CALLING, {}))
    if key in memo:
        return memo
    reached, callers = reach(index, facts, key, memo)

    def step(
        current: FunctionKey, calling: Callable[[FunctionKey], frozenset[str]]
    ) -> frozenset[str]:
        uses = _layer_uses(index, facts, current, calling)
        return frozenset(p for use in uses for p in use.params)

    return solve(reached, callers, frozenset(), step, memo)


def _called_parameters(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey
) -> dict[str, list[Evidence]]:
    """The parameters whose layers the function calls (itself or through a project function
    it hands them to), each with the findings at the calls, memoised per project."""
    memo = cast(dict[FunctionKey, dict[str, list[Evidence]]], facts.cache.setdefault(MEMO, {}))
    if key in memo:
        return memo[key]
    solved = _calling(index, facts, key)
    if not solved.get(key):
        # Calls no layer its parameters hold, itself or through a callee (the fixed point's
        # value): no use to find; most functions, skipped before their calls are walked.
        memo[key] = {}
        return memo[key]

    def calling(target: FunctionKey) -> frozenset[str]:
        return solved.get(target, frozenset())

    target_uses: dict[FunctionKey, list[_LayerUse]] = {}

    def _uses_of(target: FunctionKey) -> list[_LayerUse]:
        if target not in target_uses:
            target_uses[target] = _layer_uses(index, facts, target, calling)
        return target_uses[target]

    found: dict[str, list[Evidence]] = {}
    for use in _layer_uses(index, facts, key, calling):
        if use.target is None:
            framework = index.function_framework(key)
            message = (
                f"calls a {framework.layer_library} layer or model that parameter "
                f"{_naming(list(use.params))} holds: each distinct layer object is a new "
                "trace, and one not yet built creates its variables there "
                f"({framework.idiom} allows them on the first trace only)"
            )
        else:
            callee = index.function(use.target)
            # The witness: a direct call of the layer where there is one, else a hand-off
            # to another function than this one (a cycle's own call explains nothing).
            line = min(
                (u.target is not None, u.target in (key, use.target), u.site.span.start_line)
                for u in _uses_of(use.target)
                if use.name in u.params
            )[2]
            message = (
                f"hands the layers that parameter {_naming(list(use.params))} holds to "
                f"`{callee.qualname}`, which calls them (line {cited_line(use.target.file, line)}): each distinct layer "
                "object is a new trace, and one not yet built creates its variables there"
            )
        finding = Evidence(message, use.site.span)
        for param in use.params:
            found.setdefault(param, []).append(finding)
    memo[key] = found
    return found


def _call_sites(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey
) -> list[tuple[FunctionKey, str, Sym, int]]:
    """The arguments the project's call sites pass to `key`, as (caller, parameter, argument,
    the call's line), memoised per function: only its callers' calls are read (an edit's
    verdicts must not cost a pass over every call of the project)."""
    memo = cast(
        dict[FunctionKey, list[tuple[FunctionKey, str, Sym, int]]],
        facts.cache.setdefault(SITES, {}),
    )
    found = memo.get(key)
    if found is not None:
        return found
    found = []
    for caller in sorted(facts.callers.get(key, ()), key=str):
        for resolved in facts.calls.get(caller, []):
            site = resolved.site
            for kind, target in callees(index, resolved):
                if kind == "layer_call" or target != key:
                    continue
                bound = _bound_values(index, resolved, kind, target)
                for name, values in bound.items():
                    for value in values:
                        found.append((caller, name, value, site.span.start_line))
    memo[key] = found
    return found


def _varies_per_iteration(fn: FunctionSummary, sym: Sym) -> bool:
    """Whether a value is computed from a loop's or a comprehension's current item."""

    def follow(current: Sym) -> Iterable[Sym]:
        kind: SymKind = current[0]
        if kind in ("local", "name"):
            return local_values(fn, current)
        if kind == "item":  # `convs[level]` varies with `level` too
            return (current[1], current[2]) if isinstance(current[2], tuple) else (current[1],)
        if kind in ("attr", "enter", "op", "cond", "dict", "seq"):
            return made_of(current)
        if kind == "call":
            site = fn.calls[current[1]]
            return (site.callee, *site.args, *(value for _, value in site.kwargs))
        return ()

    return any(is_iter(current) for current in walk_syms((sym,), follow))


def _resolved_local(fn: FunctionSummary, sym: Sym) -> Sym:
    """A value through the locals assigned exactly once (`model = Model(); f(model)`)."""
    for _ in range(20):  # bounded: `a = b; b = a` must not loop
        if not is_local(sym) or len(fn.locals.get(sym[1], ())) != 1:
            break
        sym = fn.locals[sym[1]][0]
    return sym


def _built_before(
    index: ProjectIndex, facts: TensorFacts, caller: FunctionKey, origin: Sym, line: int
) -> bool:
    """Whether the function calls the object `origin` is (which builds a layer) on a line
    before `line`: directly, or by handing it to a project function that calls it. Line order
    is the evidence: a call under a condition that does not hold is not told apart."""
    fn = index.function(caller)
    for resolved in facts.calls.get(caller, []):
        site = resolved.site
        if site.span.start_line >= line:
            continue
        if LAYER_ROLES & set(resolved.receiver_roles) and (
            _resolved_local(fn, site.callee) == origin
        ):
            return True
        for kind, target in callees(index, resolved):
            if kind == "layer_call":
                continue
            inner = _calling(index, facts, target)[target]
            if not inner:
                continue
            bound = _bound_values(index, resolved, kind, target)
            if any(
                name in inner and _resolved_local(fn, value) == origin
                for name, values in bound.items()
                for value in values
            ):
                return True
    return False


def _origins(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, param: str
) -> dict[tuple[FunctionKey, Sym], bool] | None:
    """Where the objects passed for `param` come from: (function, value) pairs, a caller's
    parameter followed to its own callers, each with whether it is built (called) before
    every call that passes it on; None on positive evidence that one origin gives different
    objects (a value that changes per loop iteration, or made anew in a function run from
    two places). A walk over (function, parameter) pairs, each visited once."""
    found: dict[tuple[FunctionKey, Sym], bool] = {}
    walk = [(key, param)]
    seen = set(walk)
    for current, wanted in walk:  # grows while iterated
        for caller, name, value, line in _call_sites(index, facts, current):
            if name != wanted:
                continue
            fn = index.function(caller)
            if _varies_per_iteration(fn, value):
                return None
            receiver = fn.params[0].name if fn.binds_receiver and fn.params else None
            calls = {r.index: r for r in facts.calls.get(caller, [])}
            outer = held_parameters(fn, calls, value, receiver)
            if not outer:
                origin = _resolved_local(fn, value)
                if is_call(origin) and len(_call_sites(index, facts, caller)) >= 2:
                    return None  # a new object on each run of a function run from two places
                built = _built_before(index, facts, caller, origin, line)
                found[(caller, origin)] = found.get((caller, origin), True) and built
                continue
            for outer_param in outer:
                if (caller, outer_param) not in seen:
                    seen.add((caller, outer_param))
                    walk.append((caller, outer_param))
    return found


def may_differ(index: ProjectIndex, facts: TensorFacts, key: FunctionKey, param: str) -> bool:
    """Positive evidence that the function's calls may pass different objects for `param`,
    one of which may be unbuilt: its call sites (followed through callers' parameters) pass
    values of two origins, not all called before, or one that changes per loop iteration or
    is made anew by a function run from two places; or no call site in the project shows
    what it is given."""
    origins = _origins(index, facts, key, param)
    if not origins:
        # None: evidence of different objects; empty: no call site in the project (the
        # layer is known from an annotation), so callers elsewhere may pass several.
        return True
    return len(origins) >= 2 and not all(origins.values())


def argument_layers_called(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey
) -> list[Evidence]:
    """The calls of layers the function's parameters hold, when it may be given different
    layer objects, where its framework's traces are keyed on them
    (`Framework.layer_arguments_trace`: TensorFlow code only)."""
    if not index.function_framework(key).layer_arguments_trace:
        return []
    found = _called_parameters(index, facts, key)
    unique = {
        f
        for param, findings in found.items()
        if may_differ(index, facts, key, param)
        for f in findings
    }
    return sorted(unique, key=lambda f: (f.span.start_line, f.span.start_col, f.message))
