"""Branches a parameter or attribute switches: the share of calls that run each, for the
work estimate (`decisions/benefit.py`).

Python branching is resolved when a graph is traced: a compiled function holds only the side
its calls take (measured: `tests/analyzer/test_benefit_branches_measured.py`), so a body's
work is one side's, never both summed. A function whose body branches on a parameter (`if not
yxyx:`, `if clip:`, `if context is not None:`) or on an attribute of its receiver (`if
self.use_batch_norm:`) runs one side per call. Where every call site of the program passes the
parameter constants of one truth (a literal, a module constant, the default where a site omits
it, a caller's parameter passed on as that caller's own call sites pass it), every call runs
the same side, and the other's work is never done (tf-models' `smallest_encompassing_box`,
every caller passing `yxyx=True` and leaving `clip` False); for an attribute, the `__init__`
parameter stored there once is what every construction passes. A value the code does not show
leaves both sides in: computed (from a parameter too), different at two sites, a call with
`*args`, through `functools.partial`, the function handed to another call that calls it, a
caller no code calls, a decorated function (a wrapper or a registry may call it with values of
its own), a layer's call method (the layer library calls it with arguments of its own: Keras
passes `training` from the call context), a function the package exports, or one passing on
the parameter of one (its users pass what they like: keras' `_cudnn_gru` is given `time_major`
by the exported `keras.backend.gru`). There, for the estimate only, a default that no call of
the project overrides stands for the value (nflows' `MaskedResidualBlock.use_batch_norm`, False
by default through `MADE` and the transforms that build it: assumed, as its users may pass
True), and where even that is not known, each side counts at half its work (`HALF`): one runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from hybridize.analyzer.facts.evaluator import (
    Evaluator,
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
from hybridize.analyzer.summaries.ir import FunctionSummary, Store, Sym
from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.analyzer.summaries.syms import is_param, local_sym, sym_name
from hybridize.model import Span

PLAIN_DECORATORS = frozenset({"staticmethod", "classmethod"})
"""Decorators that leave the function's callers the project's: any other may wrap it (and
call it with arguments of its own) or register it where other code calls it (tf-pwa's
`@ConfigLoader.register_function()`, a method of every config a user's script makes)."""

PASSED_ON_DEPTH = 4
"""How many callers up `_truth` follows a parameter passed on from a caller's parameter."""


@dataclass(frozen=True, slots=True)
class Branch:
    """A branch of an `if` on a parameter or attribute (`FunctionSummary.switched_branches`)
    and the share of the calls that run it, for the work estimate: 0.0 where no call takes it,
    HALF where which side the calls take is not known (one side runs per call: the sides'
    work is weighted, not summed)."""

    span: Span
    weight: float
    subject: str
    """The parameter, or `self.NAME`, the test reads."""
    assumed: bool = False
    """Untaken only at the subject's default (no call of the project passes another: its users
    may); the reason says so."""


HALF = 0.5
"""The share of the calls given each side of a branch whose side is not known."""


def weighted_branches(
    index: ProjectIndex,
    facts: TensorFacts,
    key: FunctionKey,
    is_test_code: Callable[[FunctionKey], bool],
    is_public: Callable[[FunctionKey], bool],
) -> tuple[Branch, ...]:
    """The branches of `key`'s switched `if` statements with the share of calls that run
    them, for the work estimate only (Python branching is resolved when a graph is traced:
    only the side taken has ops in it). A side no call takes weighs 0: the subject's value
    known at every call (`_truth`: what every call site passes a parameter; for `self.NAME`,
    what every construction passes the `__init__` parameter stored there once), or, for a
    default of None or False, that default where no call of the project passes another value
    (assumed: the package's users may). A side not known weighs HALF, the other too."""
    fn = index.function(key)
    if not fn.switched_branches:
        return ()
    found: list[Branch] = []
    truths: dict[tuple[str, bool], tuple[bool | None, bool]] = {}
    for name, negated, none_test, body, orelse in fn.switched_branches:
        if (name, none_test) not in truths:
            truths[name, none_test] = _subject_truth(
                index, facts, key, name, none_test, is_test_code, is_public
            )
        truth, assumed = truths[name, none_test]
        if truth is None:
            found.extend(Branch(side, HALF, name) for side in (body, orelse) if side is not None)
            continue
        other = orelse if truth is not negated else body
        if other is not None:
            found.append(Branch(other, 0.0, name, assumed))
    return tuple(found)


def _subject_truth(
    index: ProjectIndex,
    facts: TensorFacts,
    key: FunctionKey,
    subject: str,
    none_test: bool,
    is_test_code: Callable[[FunctionKey], bool],
    is_public: Callable[[FunctionKey], bool],
) -> tuple[bool | None, bool]:
    """The truth of a switch's subject at every call (for a None test: whether it is None),
    and whether that holds only at its default (`weighted_branches`); None where not known."""
    name = subject
    target = key
    if "." in subject:
        stored = _stored_parameter(index, key, subject.partition(".")[2])
        if stored is None:
            return None, False
        target, name = stored
    known = _truth(index, facts, target, name, is_test_code, is_public, none_test=none_test)
    if known is not None:
        return known, False
    default = _default_truth(index, facts, target, name, is_test_code, none_test)
    return default, default is not None


def _stored_parameter(
    index: ProjectIndex, key: FunctionKey, attribute: str
) -> tuple[FunctionKey, str] | None:
    """The `__init__` of `key`'s class and its parameter stored as `self.attribute`, where
    that store is the only one the class and its subclasses make of the attribute (no other
    method, no other value); None otherwise."""
    fn = index.function(key)
    if fn.class_qualname is None:
        return None
    owner = FunctionKey(key.file, fn.class_qualname)
    init = index.find_method(owner, "__init__")
    if init is None:
        return None
    found: list[tuple[FunctionKey, Store]] = []
    for cls in (owner, *index.subclasses(owner)):
        for method in index.klass(cls).methods:
            method_key = FunctionKey(cls.file, f"{cls.qualname}.{method}")
            if not index.has_function(method_key):
                continue
            found.extend(
                (method_key, store)
                for store in index.function(method_key).stores
                if store.name == attribute and store.kind in ("attr", "del_attr", "inplace")
            )
    if len(found) != 1:
        return None
    method_key, store = found[0]
    init_fn = index.function(init)
    name = _passed_on(init_fn, store.value) if store.kind == "attr" else None
    if method_key != init or name is None:
        return None
    if not init_fn.params or store.target != local_sym(init_fn.params[0].name):
        return None
    if name not in {p.name for p in init_fn.params[1:]}:
        return None
    return init, name


def _called_by_framework(index: ProjectIndex, key: FunctionKey, fn: FunctionSummary) -> bool:
    """A layer's call method: the layer library calls it, with arguments of its own (Keras
    passes `training` from the call context)."""
    framework = index.function_framework(key)
    return fn.class_qualname is not None and fn.name in (
        framework.instance_call_method,
        "__call__",
    )


def _sites(
    index: ProjectIndex,
    facts: TensorFacts,
    key: FunctionKey,
    is_test_code: Callable[[FunctionKey], bool],
) -> Iterator[tuple[FunctionKey, Evaluator | None, ResolvedCall, str | None]]:
    """Every call of `key` in the program, tests aside: the caller, its solved evaluator, the
    call and how it reaches `key` (None for a call `key` is handed to, `_hands`)."""
    for caller in sorted(facts.callers.get(key, ()), key=str):
        if caller == key or is_test_code(caller):
            continue
        evaluator = solved_evaluator(index, facts, caller)
        for resolved in facts.calls.get(caller, ()):
            if _hands(resolved, key):
                yield caller, evaluator, resolved, None
                continue
            for kind, target in callees(index, resolved):
                if target == key:
                    yield caller, evaluator, resolved, kind


def _default_truth(
    index: ProjectIndex,
    facts: TensorFacts,
    key: FunctionKey,
    name: str,
    is_test_code: Callable[[FunctionKey], bool],
    none_test: bool,
    depth: int = PASSED_ON_DEPTH,
) -> bool | None:
    """The truth of a parameter's literal default (for a None test: whether it is None),
    where no call of the project (tests aside) passes the parameter another value: each site
    omits it, passes a constant of the default's truth, or passes on a parameter of its own of
    which the same holds. None otherwise, and for a layer's call method (the layer library
    passes arguments of its own: Keras' `training`)."""
    fn = index.function(key)
    param = next((p for p in fn.params if p.name == name), None)
    if param is None or param.kind in ("vararg", "kwarg") or param.default is None:
        return None
    if depth < 1:
        return None
    if _called_by_framework(index, key, fn):
        return None  # the layer library passes arguments of its own (Keras' `training`)
    owner = solved_evaluator(index, facts, index.owner_key(key))
    if owner is None:
        return None
    defaults = set(owner.eval(param.default))
    if len(defaults) != 1:
        return None
    atom = defaults.pop()
    if atom is None or not is_lit_atom(atom):
        return None
    value = _constant_truth(atom, none_test=none_test)
    if value is None:
        return None
    for caller, evaluator, resolved, kind in _sites(index, facts, key, is_test_code):
        if kind is None:
            continue  # called with arguments of its own: they are not the project's
        if evaluator is None or resolved.site.has_star_args or key in resolved.partials:
            return None
        argument = bound_arguments(index, key, resolved, kind).get(name)
        if argument is None:
            continue
        passed_on = _passed_on(index.function(caller), argument)
        if passed_on is not None:
            found = _default_truth(
                index, facts, caller, passed_on, is_test_code, none_test, depth - 1
            )
            if found != value:
                return None
            continue
        truths = {_constant_truth(atom, none_test=none_test) for atom in evaluator.eval(argument)}
        if truths != {value}:
            return None
    return value


def _truth(
    index: ProjectIndex,
    facts: TensorFacts,
    key: FunctionKey,
    name: str,
    is_test_code: Callable[[FunctionKey], bool],
    is_public: Callable[[FunctionKey], bool],
    depth: int = PASSED_ON_DEPTH,
    *,
    none_test: bool = False,
) -> bool | None:
    """The truth of what every call site of `key` outside tests passes its parameter `name`
    (or its default, where a site omits it), where all are constants of one truth; a caller's
    own parameter passed on is what that caller's call sites pass it, up to `depth` callers
    up. None where any is unknown or they differ, where no code of the program calls `key`,
    or where the framework calls it too (a layer's call method, which the layer library runs
    with its own arguments: Keras passes `training` from the call context). With `none_test`,
    whether the values are None instead of their truth."""
    fn = index.function(key)
    param = next((p for p in fn.params if p.name == name), None)
    if param is None or param.kind in ("vararg", "kwarg") or depth < 1:
        return None
    if _called_by_framework(index, key, fn):
        return None  # the layer library calls it, with arguments of its own
    if any(d.name not in PLAIN_DECORATORS for d in fn.decorators):
        return None  # a wrapper, or a registry that exposes it, may call it with others
    if is_public(key):
        return None  # the package's public API: its users pass what they like
    truths: set[bool] = set()
    direct: dict[FunctionKey, int] = dict.fromkeys(
        (c for c in facts.callers.get(key, ()) if c != key and not is_test_code(c)), 0
    )
    for caller, evaluator, resolved, kind in _sites(index, facts, key, is_test_code):
        if evaluator is None or kind is None:
            return None  # unsolved, or handed to a call that calls it: arguments not in the code
        direct[caller] += 1
        if kind == "layer_call" or resolved.site.has_star_args or key in resolved.partials:
            return None  # arguments the site does not show
        caller_fn = index.function(caller)
        argument = bound_arguments(index, key, resolved, kind).get(name)
        found: set[bool | None]
        if argument is None:
            if param.default is None:
                return None
            owner = solved_evaluator(index, facts, index.owner_key(key))
            if owner is None:
                return None
            found = {
                _constant_truth(atom, none_test=none_test) for atom in owner.eval(param.default)
            }
        elif (passed_on := _passed_on(caller_fn, argument)) is not None:
            # a parameter of the caller passed on: what its own callers pass it
            found = {
                _truth(
                    index,
                    facts,
                    caller,
                    passed_on,
                    is_test_code,
                    is_public,
                    depth - 1,
                    none_test=none_test,
                )
            }
        elif any(is_param(part) for part in _parts(caller_fn, argument)):
            return None  # computed from a caller's parameter
        else:
            found = {
                _constant_truth(atom, none_test=none_test) for atom in evaluator.eval(argument)
            }
        if not found or None in found:
            return None
        truths |= {truth for truth in found if truth is not None}
        if len(truths) > 1:
            return None
    if not all(direct.values()):
        return None  # called through what it is handed to (a callback): arguments unknown
    sites = sum(direct.values())
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


def _constant_truth(atom: Atom | None, *, none_test: bool = False) -> bool | None:
    """The truth of a constant's atom (a literal bool, int, str or None whose value is
    known), None for any other value; with `none_test`, whether it is None."""
    if atom is None or not is_lit_atom(atom) or atom[1] not in ("bool", "int", "str", "none"):
        return None
    if atom[1] == "none":
        return none_test
    if none_test:
        return False
    if atom[2] is None:
        return None  # a computed value of the type
    return bool(atom[2])
