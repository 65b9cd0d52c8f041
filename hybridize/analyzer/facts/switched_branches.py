"""Branches a parameter switches that no call of the program takes: work that never runs.

A function whose body branches on a parameter (`if not yxyx:` ... , `if clip:` ...) runs one
branch per call; where every call site of the program passes that parameter constants of one
truth (a literal, a module constant, the default where a site omits it, a caller's parameter
passed on as that caller's own call sites pass it), every call runs the same branch, and the
other's work is never done (tf-models' `smallest_encompassing_box`, every caller passing
`yxyx=True` and leaving `clip` False: its format conversions and clipping never run).
`untaken_branches` gives the spans of such branches, for the work estimate to leave out
(`decisions/benefit.py`). A value the code does not show leaves both branches in: computed
(from a parameter too), different at two sites, a call with `*args`, through
`functools.partial`, the function handed to another call that calls it, a caller no code
calls, a decorated function (a wrapper or a registry may call it with values of its own), a
layer's call method (the layer library calls it with arguments of its own: Keras passes
`training` from the call context), a function the package exports, or one passing on the
parameter of one (its users pass what they like: keras' `_cudnn_gru` is given `time_major`
by the exported `keras.backend.gru`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from hybridize.analyzer.facts.evaluator import (
    ResolvedCall,
    TensorFacts,
    callees,
    solved_evaluator,
)
from hybridize.analyzer.facts.predicates import local_values, made_of, walk_syms
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.values import (
    Atom,
    is_func_atom,
    is_lit_atom,
    is_method_atom,
    project_key,
)
from hybridize.analyzer.facts.varying_shapes import bound_arguments
from hybridize.analyzer.summaries.ir import FunctionSummary, Sym
from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.analyzer.summaries.syms import is_param, sym_name
from hybridize.model import Span


def untaken_branches(
    index: ProjectIndex,
    facts: TensorFacts,
    key: FunctionKey,
    is_test_code: Callable[[FunctionKey], bool],
    is_public: Callable[[FunctionKey], bool],
) -> tuple[Span, ...]:
    """The spans of the branches of `key`'s `if [not] PARAMETER:` statements
    (`FunctionSummary.switched_branches`) that no call of the program takes, tests aside:
    every call site passes the parameter values of one truth (`_truth`). `is_public`: the
    functions the package exports as its public API, whose users, outside the project, may
    pass any value (the function itself, or a caller passing its parameter on)."""
    fn = index.function(key)
    if not fn.switched_branches:
        return ()
    truths: dict[str, bool | None] = {}
    untaken: list[Span] = []
    for name, negated, body, orelse in fn.switched_branches:
        if name not in truths:
            truths[name] = _truth(index, facts, key, name, is_test_code, is_public)
        truth = truths[name]
        if truth is None:
            continue
        taken_body = truth is not negated
        other = orelse if taken_body else body
        if other is not None:
            untaken.append(other)
    return tuple(untaken)


PLAIN_DECORATORS = frozenset({"staticmethod", "classmethod"})
"""Decorators that leave the function's callers the project's: any other may wrap it (and
call it with arguments of its own) or register it where other code calls it (tf-pwa's
`@ConfigLoader.register_function()`, a method of every config a user's script makes)."""

PASSED_ON_DEPTH = 4
"""How many callers up `_truth` follows a parameter passed on from a caller's parameter."""


def _truth(
    index: ProjectIndex,
    facts: TensorFacts,
    key: FunctionKey,
    name: str,
    is_test_code: Callable[[FunctionKey], bool],
    is_public: Callable[[FunctionKey], bool],
    depth: int = PASSED_ON_DEPTH,
) -> bool | None:
    """The truth of what every call site of `key` outside tests passes its parameter `name`
    (or its default, where a site omits it), where all are constants of one truth; a caller's
    own parameter passed on is what that caller's call sites pass it, up to `depth` callers
    up. None where any is unknown or they differ, where no code of the program calls `key`,
    or where the framework calls it too (a layer's call method, which the layer library runs
    with its own arguments: Keras passes `training` from the call context)."""
    fn = index.function(key)
    param = next((p for p in fn.params if p.name == name), None)
    if param is None or param.kind in ("vararg", "kwarg") or depth < 1:
        return None
    framework = index.function_framework(key)
    if fn.class_qualname is not None and fn.name in (
        framework.instance_call_method,
        "__call__",
    ):
        return None  # the layer library calls it, with arguments of its own
    if any(d.name not in PLAIN_DECORATORS for d in fn.decorators):
        return None  # a wrapper, or a registry that exposes it, may call it with others
    if is_public(key):
        return None  # the package's public API: its users pass what they like
    truths: set[bool] = set()
    sites = 0
    for caller in sorted(facts.callers.get(key, ()), key=str):
        if caller == key or is_test_code(caller):
            continue
        evaluator = solved_evaluator(index, facts, caller)
        if evaluator is None:
            return None
        caller_fn = index.function(caller)
        direct = 0
        for resolved in facts.calls.get(caller, ()):
            if _hands(resolved, key):
                return None  # handed to a call that calls it: arguments not in the code
            for kind, target in callees(index, resolved):
                if target != key:
                    continue
                direct += 1
                if kind == "layer_call" or resolved.site.has_star_args or key in resolved.partials:
                    return None  # arguments the site does not show
                argument = bound_arguments(index, key, resolved, kind).get(name)
                found: set[bool | None]
                if argument is None:
                    if param.default is None:
                        return None
                    owner = solved_evaluator(index, facts, index.owner_key(key))
                    if owner is None:
                        return None
                    found = {_constant_truth(atom) for atom in owner.eval(param.default)}
                elif (passed_on := _passed_on(caller_fn, argument)) is not None:
                    # a parameter of the caller passed on: what its own callers pass it
                    found = {
                        _truth(index, facts, caller, passed_on, is_test_code, is_public, depth - 1)
                    }
                elif any(is_param(part) for part in _parts(caller_fn, argument)):
                    return None  # computed from a caller's parameter
                else:
                    found = {_constant_truth(atom) for atom in evaluator.eval(argument)}
                if not found or None in found:
                    return None
                truths |= {truth for truth in found if truth is not None}
                if len(truths) > 1:
                    return None
        if not direct:
            return None  # called through what it is handed to (a callback): arguments unknown
        sites += direct
    if not sites or len(truths) != 1:
        return None
    return truths.pop()


def _passed_on(fn: FunctionSummary, argument: Sym) -> str | None:
    """The parameter of `fn` an argument is, read as it came (never rebound), else None."""
    if is_param(argument):
        return sym_name(argument)
    values = local_values(fn, argument)
    if len(values) == 1 and is_param(values[0]) and sym_name(values[0]) == sym_name(argument):
        return sym_name(argument)
    return None


def _parts(fn: FunctionSummary, argument: Sym) -> Iterator[Sym]:
    """What an argument is made of, through the values of the locals it reads."""

    def follow(sym: Sym) -> Iterable[Sym]:
        return (*made_of(sym), *local_values(fn, sym))

    return walk_syms((argument,), follow)


def _hands(resolved: ResolvedCall, key: FunctionKey) -> bool:
    """Whether a call is given the function `key` itself as an argument (`tf.map_fn(f, x)`,
    `map(f, xs)`, a callback stored to be called later)."""
    handed = (*resolved.args, *resolved.kwargs.values())
    return any(
        (is_func_atom(atom) or is_method_atom(atom)) and project_key(atom) == key
        for atoms in handed
        for atom in atoms
    )


def _constant_truth(atom: Atom | None) -> bool | None:
    """The truth of a constant's atom (a literal bool, int, str or None whose value is
    known), None for any other value."""
    if atom is None or not is_lit_atom(atom) or atom[1] not in ("bool", "int", "str", "none"):
        return None
    if atom[1] == "none":
        return False
    if atom[2] is None:
        return None  # a computed value of the type
    return bool(atom[2])
