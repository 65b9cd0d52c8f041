"""The side-effect analysis: what a function changes outside itself, transitively.

A Python side effect runs while `tf.function` traces, not on every call, so a function that has
one changes behaviour when compiled. Effects (docs/verdicts.md section 1): printing, logging, file
and OS I/O, drawing from Python's `random`, reading the clock, assigning a global or nonlocal,
writing an attribute or item of an object the function did not create, mutating such a
container, advancing an iterator it was given; and all of these in anything it calls.

Whether an object was created within the call is tracked by *origin*: a parameter (named), a
module-level object, a variable of an enclosing function, something fresh, or unknown. A
callee that mutates its parameter is an effect of the caller only when the caller passes
something it did not create itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from hybridize.analyzer.facts.cited_lines import cited_line
from hybridize.analyzer.facts.evaluator import (
    RECEIVER_BINDING_KINDS,
    ResolvedCall,
    TensorFacts,
    callback_atoms,
    callees,
    get_evaluator,
    iterated_atoms,
)
from hybridize.analyzer.facts.passed_arguments import PassedArgument, passed_arguments
from hybridize.analyzer.facts.predicates import is_tensor_like, is_unknown
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.speculation import speculate
from hybridize.analyzer.facts.values import is_boundext_atom, is_seq_atom, is_tup_atom
from hybridize.analyzer.frameworks import is_container_mutator
from hybridize.analyzer.summaries.ir import CallSite, FunctionSummary, Store, Sym
from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.analyzer.summaries.syms import (
    SymKind,
    call_index,
    cond_sym,
    is_attr,
    is_call,
    is_param,
    is_seq,
    kind_of,
    local_sym,
    param_sym,
    seq_kind,
    sym_name,
)
from hybridize.model import Span

Origin = tuple
FRESH: Origin = ("fresh",)
GLOBAL: Origin = ("global",)
FREE: Origin = ("free",)
UNKNOWN_ORIGIN: Origin = ("unknown",)

EFFECT_CODES = {
    "print": ("HY101", "prints"),
    "logging": ("HY102", "logs"),
    "io": ("HY103", "does file or OS I/O"),
    "input": ("HY103", "reads standard input"),
    "plot": ("HY103", "draws a matplotlib figure"),
    "random": ("HY104", "draws a random number in Python"),
    "clock": ("HY105", "reads the clock"),
    "trace_time": ("HY109", "changes global framework state"),
}

LIKELY_MUTATORS = frozenset(
    {
        "append",
        "extend",
        "insert",
        "appendleft",
        "extendleft",
        "popleft",
        "update",
        "setdefault",
        "clear",
        "pop",
        "popitem",
        "remove",
        "add",
        "discard",
        "sort",
        "reverse",
    }
)


@dataclass(frozen=True, slots=True)
class Effect:
    """One side effect with the finding code it maps to and where it happens.

    `what` is a phrase that reads after "it" or "which" ("prints with `print`"); `param` names
    the parameter whose object the effect changes, when that is all it changes.
    """

    code: str
    what: str
    span: Span
    param: str | None = None
    traced_only: bool = False

    @property
    def message(self) -> str:
        if self.traced_only:
            return f"{self.what}: in a graph this runs once, while tracing, not on every call"
        return self.what


@dataclass(slots=True)
class EffectSummary:
    """A function's effects: unconditional ones, and parameters it mutates."""

    effects: list[Effect] = field(default_factory=list)
    mutated_params: dict[str, Span] = field(default_factory=dict)
    undeterminable: list[Effect] = field(default_factory=list)

    @property
    def has_effects(self) -> bool:
        return bool(self.effects or self.mutated_params)


def origins(
    index: ProjectIndex, key: FunctionKey, sym: Sym, seen: set[Sym] | None = None
) -> set[Origin]:
    """Where the object a symbolic value denotes was created, relative to function `key`."""
    seen = seen if seen is not None else set()
    if sym in seen:
        return set()
    seen.add(sym)
    fn = index.function(key)
    kind: SymKind = sym[0]
    if kind == "param":
        return {param_sym(sym[1])}
    if kind == "local":
        out: set[Origin] = set()
        for value in fn.locals.get(sym[1], ()):
            out |= origins(index, key, value, seen)
        return out
    if kind == "name":
        if sym[1] in fn.locals and sym[1] not in fn.globals_declared | fn.nonlocals_declared:
            return origins(index, key, local_sym(sym[1]), seen)
        if sym[1] in fn.nonlocals_declared or bound_in_enclosing_function(index, key, sym[1]):
            return {FREE}
        return {GLOBAL}
    if kind in ("attr", "item", "iter", "enter"):
        return origins(index, key, sym[1], seen)
    if kind == "cond":
        out = set()
        for option in sym[1]:
            out |= origins(index, key, option, seen)
        return out
    if kind == "import":
        return {GLOBAL}
    if kind == "?":
        return {UNKNOWN_ORIGIN}
    return {FRESH}


def bound_in_enclosing_function(index: ProjectIndex, key: FunctionKey, name: str) -> bool:
    """The name is a variable of an enclosing function (a closure), not a global."""
    relpath = key.file
    parent = index.function(key).parent_qualname
    while parent is not None:
        parent_fn = index.function(FunctionKey(relpath, parent))
        if name in parent_fn.locals:
            return True
        parent = parent_fn.parent_qualname
    return False


def _root_param(fn: FunctionSummary, sym: Sym) -> str | None:
    """The parameter a value is read from (`p`, `p.attr`, `p[i]`), through plain aliases."""
    for _ in range(20):
        kind: SymKind = sym[0]  # read once per step: asked of every value a call mutates
        if kind == "local":
            values = fn.locals.get(sym[1], [])
            if len(values) != 1:
                return None
            sym = values[0]
        elif kind in ("attr", "item", "iter"):
            sym = sym[1]
        else:
            return sym[1] if kind == "param" else None
    return sym[1] if is_param(sym) else None


class EffectAnalysis:
    """Computes effect summaries for every function, iterated over the call graph."""

    def __init__(self, index: ProjectIndex, facts: TensorFacts) -> None:
        self.index = index
        self.facts = facts
        self.summaries: dict[FunctionKey, EffectSummary] = {}

    def run(
        self, keys: Iterable[FunctionKey], known: Mapping[FunctionKey, EffectSummary] | None = None
    ) -> dict[FunctionKey, EffectSummary]:
        """The summaries of `keys`, and of the functions in `known` as given: summaries of
        an earlier run that still hold (an incremental verdict phase passes those of functions
        whose facts and callees are unchanged, which call none of `keys`)."""
        keys = [k for k in keys if not k.is_module_code]
        local = {k: self._local(k) for k in keys}
        self.summaries = dict(known or {})
        self.summaries.update((k, _copy(s)) for k, s in local.items())
        for _ in range(len(keys) + 1):
            changed = False
            for key in keys:
                summary = _copy(local[key])
                self._transitive(key, summary)
                old = self.summaries[key]
                if (
                    len(summary.effects),
                    set(summary.mutated_params),
                    len(summary.undeterminable),
                ) != (
                    len(old.effects),
                    set(old.mutated_params),
                    len(old.undeterminable),
                ):
                    changed = True
                self.summaries[key] = summary
            if not changed:
                break
        return self.summaries

    # ------------------------------------------------------------------ local

    def _exempt_self_store(self, fn: FunctionSummary, key: FunctionKey, target: Sym) -> bool:
        """Keras `build` writes weights to the layer: not a Python side effect."""
        if fn.name != "build" or fn.class_qualname is None or not fn.binds_receiver:
            return False
        class_key = key.sibling(fn.class_qualname)
        return self.index.layer_role(class_key) is not None and bool(
            {param_sym(fn.params[0].name)} & origins(self.index, key, target)
        )

    def _mutation(
        self,
        key: FunctionKey,
        fn: FunctionSummary,
        summary: EffectSummary,
        target: Sym,
        span: Span,
        what: str,
    ) -> None:
        if self._exempt_self_store(fn, key, target):
            return
        if _star_parameter_itself(fn, target):
            # The tuple or dict a `*args`/`**kwargs` parameter holds is made by the call
            # (`kwargs.pop("name")` changes nothing of the caller's); its elements are not.
            return
        # Sorted: the first effect of a function is what its callers name, the same in every
        # run (a set of origins iterates in an order that changes with string hashing).
        for origin in sorted(origins(self.index, key, target)):
            if origin == FRESH:
                continue
            if is_param(origin):
                summary.mutated_params.setdefault(origin[1], span)
                summary.effects.append(
                    Effect("HY107", f"{what} an object passed in as `{origin[1]}`", span, origin[1])
                )
            elif origin == FREE:
                summary.effects.append(
                    Effect("HY107", f"{what} a variable of an enclosing function", span)
                )
            elif origin == GLOBAL:
                summary.effects.append(Effect("HY107", f"{what} a module-level object", span))
            else:
                summary.effects.append(Effect("HY107", f"{what} an object of unknown origin", span))

    def _local(self, key: FunctionKey) -> EffectSummary:
        fn = self.index.function(key)
        summary = EffectSummary()
        for store in fn.stores:
            if store.kind == "global":
                summary.effects.append(
                    Effect("HY106", f"assigns the global variable `{store.name}`", store.span)
                )
            elif store.kind == "nonlocal":
                summary.effects.append(
                    Effect("HY106", f"assigns the nonlocal variable `{store.name}`", store.span)
                )
            elif store.kind == "inplace":
                self._in_place(key, fn, summary, store)
            elif store.kind in ("attr", "del_attr"):
                self._mutation(
                    key,
                    fn,
                    summary,
                    store.target,
                    store.span,
                    f"writes attribute `{store.name}` of",
                )
            else:
                self._mutation(key, fn, summary, store.target, store.span, "writes an item of")
        for resolved in self.facts.calls.get(key, []):
            self._local_call(key, fn, summary, resolved)
        self._consumed_iterators(key, fn, summary)
        return summary

    def _consumed_iterators(
        self, key: FunctionKey, fn: FunctionSummary, summary: EffectSummary
    ) -> None:
        """`for v in it` (a comprehension's too), `list(it)`, `sum(it)`... over a Python
        iterator or generator the function did not create: consumed while tracing, so
        later calls replay the elements of the first (and the iterator ends early, HY108's
        `next(it)` hazard for every element). Only values the analysis knows are Python
        iterators (a generator expression, a generator function's call, `iter`/`zip`/`map`
        of known elements): a list or a tuple argument is typed element by element and
        stays live (measured, tests/analyzer/test_python_object_arguments_measured.py)."""
        by_index = {resolved.index: resolved for resolved in self.facts.calls.get(key, [])}
        consumed: list[tuple[Sym, Span]] = [(loop.iterable, loop.span) for loop in fn.loops]
        for resolved in by_index.values():
            if resolved.site.args and any(info.name in CONSUMING_BUILTINS for info in resolved.api):
                first, *_ = resolved.site.args
                consumed.append((first, resolved.site.span))
        evaluator = get_evaluator(self.index, self.facts, key)
        for value, span in consumed:
            for iterated in _iterated(value, by_index):
                outside = origins(self.index, key, iterated) - {FRESH}
                if not outside:
                    continue
                if any(_python_iterator(atom) for atom in evaluator.eval(iterated)) or any(
                    self._passed_an_iterator(key, sym_name(origin))
                    for origin in outside
                    if is_param(origin)
                ):
                    summary.effects.append(
                        Effect(
                            "HY108",
                            f"iterates `{_dotted(iterated)}`, a Python iterator it did not "
                            "create: consumed while tracing (the same iterator passed again "
                            "replays the first elements; a new one retraces)",
                            span,
                        )
                    )
                    return

    def _passed_an_iterator(self, key: FunctionKey, parameter: str) -> bool:
        """A caller passes the parameter a generator expression or a `zip`/`map`/...
        iterator, which the evaluator takes for a Python object (`_written_iterator`)."""
        work = [(key, parameter)]
        seen = set(work)
        while work and len(seen) <= MAX_ITERATOR_FLOW:
            function, name = work.pop()
            for passed in passed_arguments(self.index, self.facts, function).get(name, ()):
                if _written_iterator(passed):
                    return True
                value = passed.value
                if is_param(value) and (passed.caller, sym_name(value)) not in seen:
                    # handed on by a caller that received it (`helper(it)` in `total(it)`)
                    seen.add((passed.caller, sym_name(value)))
                    work.append((passed.caller, sym_name(value)))
        return False

    def _in_place(
        self, key: FunctionKey, fn: FunctionSummary, summary: EffectSummary, store: Store
    ) -> None:
        """`x += y`: a list, dict, set or NumPy array changes in place; a tensor (immutable),
        a number or a string is rebound and nothing outside the function changes. The store's
        target holds only the values that reach the line, so `x = tf.convert_to_tensor(x)`
        before it makes `x` the function's own tensor whatever the caller passed."""
        atoms = get_evaluator(self.index, self.facts, key).eval(store.target)
        if any(_mutable_container(a) for a in atoms):
            self._mutation(key, fn, summary, store.target, store.span, "changes in place")
        elif (
            not atoms or any(a[0] in UNKNOWN_KINDS for a in atoms)
        ) and not self._exempt_self_store(fn, key, store.target):
            outside = origins(self.index, key, store.target) - {FRESH}
            if outside and self._speculated_tensors(key, outside):
                return  # the speculative verdict assumes these parameters are tensors
            if outside:
                summary.undeterminable.append(
                    Effect(
                        "HY110",
                        f"an augmented assignment (`+=`, `*=`, ...) changes `{store.name}`, a "
                        "value of unknown kind the function did not create: a list, dict or "
                        "array would change in place",
                        store.span,
                    )
                )

    def _speculated_tensors(self, key: FunctionKey, found: set[Origin]) -> bool:
        """Every origin is a parameter no call site gives evidence for, in a function that
        speculation takes to receive tensors (a Keras `call`, a `train_step`): under that
        stated assumption `x *= y` rebinds a tensor, and the verdict says so in words."""
        evidence = self.facts.param_atoms.get(key, {})
        if not all(is_param(o) and not evidence.get(o[1]) for o in found):
            return False
        if any(is_tensor_like(a) for atoms in evidence.values() for a in atoms):
            return False  # a tensor parameter is known: the verdict will not be speculative
        return speculate(self.index, key) is not None

    def _local_call(
        self, key: FunctionKey, fn: FunctionSummary, summary: EffectSummary, resolved: ResolvedCall
    ) -> None:
        site = resolved.site
        receiver_fresh = (
            is_attr(site.callee)
            and any(is_boundext_atom(a) for a in resolved.callee_atoms)
            and origins(self.index, key, site.callee[1]) == {FRESH}
        )
        for info in resolved.api:
            if info.effect == "random" and receiver_fresh:
                continue  # a generator created in this call: its state is the call's own
            if info.effect == "unknown_code":
                summary.undeterminable.append(
                    Effect(
                        "HY110",
                        f"runs code built at run time with `{_short(info.name)}`: what it "
                        "does is unknown",
                        site.span,
                    )
                )
            if info.effect in EFFECT_CODES:
                code, verb = EFFECT_CODES[info.effect]
                summary.effects.append(
                    Effect(code, f"{verb} with `{_short(info.name)}`", site.span, traced_only=True)
                )
            if info.mutates_receiver and is_attr(site.callee) and not receiver_fresh:
                self._mutation(
                    key, fn, summary, site.callee[1], site.span, f"calls `.{site.callee[2]}()` on"
                )
            for position in info.mutated_args:
                if info.name == "builtins.next":
                    continue
                mutated = site.argument_at((position,))
                if mutated is not None:
                    self._mutation(
                        key, fn, summary, mutated, site.span, f"calls `{_short(info.name)}` on"
                    )
            if (
                info.name == "builtins.next"
                and site.args
                and (origins(self.index, key, site.args[0]) - {FRESH})
            ):
                summary.effects.append(
                    Effect("HY108", "advances an iterator it did not create", site.span)
                )
        callee = site.callee
        if is_attr(callee):
            method = callee[2]
            roles = {a[1] for a in resolved.callee_atoms if is_boundext_atom(a)}
            unknown = not resolved.callee_atoms or all(map(is_unknown, resolved.callee_atoms))
            container_roles = {"list", "dict", "set", "tuple", "python", "deque"}
            if (roles & container_roles and is_container_mutator(method)) or (
                unknown and method in LIKELY_MUTATORS
            ):
                self._mutation(key, fn, summary, callee[1], site.span, f"calls `.{method}()` on")
            if method == "__next__" and origins(self.index, key, callee[1]) - {FRESH}:
                summary.effects.append(
                    Effect("HY108", "advances an iterator it did not create", site.span)
                )
        root = _root_param(fn, callee)
        if (
            resolved.callee_atoms
            and all(map(is_unknown, resolved.callee_atoms))
            and root is not None
            and (not fn.binds_receiver or root != fn.params[0].name)
            and not self._tensor_member(key, root, callee)
        ):
            what = (
                f"calls `{root}`, a callable parameter whose effects are unknown"
                if callee == param_sym(root)
                else f"calls `{_dotted(callee)}` on `{root}`, a parameter of unknown kind: "
                "what the call does is unknown"
            )
            summary.undeterminable.append(Effect("HY110", what, site.span))

    def _tensor_member(self, key: FunctionKey, root: str, callee: Sym) -> bool:
        """A method of a tensor parameter's static metadata (`x.shape.as_list()`,
        `x.dtype.is_floating`): TensorShape and DType methods change nothing."""
        if not is_attr(callee) or not is_attr(callee[1]):
            return False
        atoms = get_evaluator(self.index, self.facts, key).eval(param_sym(root))
        return bool(atoms) and all(kind_of(a) in ("tensor", "variable") for a in atoms)

    # ------------------------------------------------------------------ transitive

    def _transitive(self, key: FunctionKey, summary: EffectSummary) -> None:
        fn = self.index.function(key)
        for resolved in self.facts.calls.get(key, []):
            site = resolved.site
            for info in resolved.api:
                if info.traces_callbacks:
                    continue  # tf.data traces it once, whatever the caller's mode
                # A callback run in the caller's mode (`tf.map_fn`, `strategy.run`) runs
                # eagerly on every call of an eager caller and once per trace of a compiled
                # one: its effects are the caller's.
                for atom in callback_atoms(resolved, info):
                    if atom[1] != key:
                        self._through(summary, site, atom[1])
            for kind, target in callees(self.index, resolved):
                if target == key:
                    continue
                callee_summary = self._through(summary, site, target)
                if callee_summary is None:
                    continue
                callee_fn = self.index.function(target)
                name = callee_fn.qualname
                for param, _span in callee_summary.mutated_params.items():
                    arg = self._argument_for(callee_fn, kind, site, param)
                    if arg is None:
                        continue
                    self._mutation(
                        key, fn, summary, arg, site.span, f"calls `{name}`, which mutates"
                    )

    def _through(
        self, summary: EffectSummary, site: CallSite, target: FunctionKey
    ) -> EffectSummary | None:
        """Add the effects a callee has whatever it is passed; return its summary."""
        callee_summary = self.summaries.get(target)
        if callee_summary is None:
            return None
        name = self.index.function(target).qualname
        # Effects on the callee's parameters are mapped through the arguments by the caller;
        # the rest happen whatever the caller passes.
        unconditional = [e for e in callee_summary.effects if e.param is None]
        if unconditional:
            first = unconditional[0]
            # Through a chain of calls only the deepest line is named: the line of the
            # effect itself, where the reader has to look.
            # (in the callee's file: `cited_line`, which an edit that moves it moves)
            where = (
                ""
                if "(line " in first.what
                else f" (line {cited_line(target.file, first.span.start_line)})"
            )
            summary.effects.append(
                Effect(
                    first.code,
                    f"calls `{name}`, which {first.what}{where}",
                    site.span,
                    traced_only=first.traced_only,
                )
            )
        if callee_summary.undeterminable and not summary.undeterminable:
            summary.undeterminable.append(
                Effect("HY110", f"calls `{name}`, whose effects are unknown", site.span)
            )
        return callee_summary

    def _argument_for(
        self, callee: FunctionSummary, kind: str, site: CallSite, param: str
    ) -> Sym | None:
        params = callee.params
        receiver = params[0].name if callee.binds_receiver and params else None
        if kind == "class" or (kind in ("method", "layer_call") and param == receiver):
            if kind == "class":
                return None if param == receiver else self._bound_sym(callee, site, param, 1)
            callee_sym = site.callee
            if kind == "layer_call":
                return callee_sym
            if is_attr(callee_sym):
                return callee_sym[1]  # `obj.method(...)`: the receiver is `obj`
            # `obj(...)` runs `obj.__call__`, whose receiver is `obj` itself: a module that
            # builds its variables on its first call mutates the object it was handed
            # (Sonnet's `apply_split_linear` broke a test so).
            return callee_sym
        skip = 1 if kind in RECEIVER_BINDING_KINDS and receiver else 0
        return self._bound_sym(callee, site, param, skip)

    @staticmethod
    def _bound_sym(callee: FunctionSummary, site: CallSite, param: str, skip: int) -> Sym | None:
        """The caller's value that the callee's parameter `param` receives at `site`: an
        argument, the extra arguments a `*args`/`**kwargs` parameter collects, or what the
        site unpacks with `*x`/`**y` when no other argument binds the parameter (a wrapper's
        `self.layer(x, *args, **kwargs)` hands on its caller's `cache=` dict)."""
        for name, value in site.kwargs:
            if name == param:
                return value
        params = callee.params[skip:]
        positional = [p.name for p in params if p.kind in ("posonly", "normal")]
        unpacked = [("item", value) for value in site.star_values]
        kind = next((p.kind for p in params if p.name == param), None)
        if param in positional:
            i = positional.index(param)
            if i < len(site.args):
                return site.args[i]
            return _one_of(unpacked)
        if kind == "vararg":
            return _one_of([*site.args[len(positional) :], *unpacked])
        if kind == "kwarg":
            named = {p.name for p in params}
            return _one_of([v for n, v in site.kwargs if n not in named] + unpacked)
        if kind == "kwonly":
            return _one_of(unpacked)
        return None


MAX_ITERATOR_FLOW = 8
"""How many (function, parameter) places an argument is followed back through callers that
hand on a parameter of theirs, looking for where it was written."""

WRITTEN_ITERATORS = frozenset(
    f"builtins.{name}" for name in ("enumerate", "zip", "map", "filter", "reversed")
)
"""Builtins whose call makes a Python iterator whatever they are given: as a caller writes
an argument, they say it is one (`iter(x)` may be a `tf.data` iterator: its elements say)."""


def _written_iterator(passed: PassedArgument) -> bool:
    """A caller writes a generator expression, a call making a Python iterator, or `iter`
    of a Python sequence (of a `tf.data` dataset, or of a value of unknown kind, it may be
    an iterator a trace keeps live)."""
    value = passed.value
    if is_seq(value) and seq_kind(value) == "generator":
        return True
    if passed.made_by & WRITTEN_ITERATORS:
        return True
    return (
        "builtins.iter" in passed.made_by
        and bool(passed.made_from)
        and all(kind_of(atom) in ("seq", "tup") for atom in passed.made_from)
    )


CONSUMING_BUILTINS = frozenset(
    f"builtins.{name}"
    for name in (
        "list",
        "tuple",
        "set",
        "frozenset",
        "dict",
        "sorted",
        "sum",
        "min",
        "max",
        "any",
        "all",
    )
)
"""Builtins that exhaust the iterable they are given."""

LAZY_WRAPPERS = frozenset(
    f"builtins.{name}" for name in ("enumerate", "zip", "map", "filter", "reversed", "iter")
)
"""Builtins whose result iterates the iterables they are given (`for i, v in enumerate(it)`)."""


def _iterated(value: Sym, calls: Mapping[int, ResolvedCall]) -> Iterable[Sym]:
    """The values a `for` (or a consuming builtin) over `value` iterates: `value`, or the
    arguments of a lazy wrapper around them."""
    if is_call(value):
        resolved = calls.get(call_index(value))
        if resolved is not None and any(info.name in LAZY_WRAPPERS for info in resolved.api):
            for arg in resolved.site.args:
                yield from _iterated(arg, calls)
            return
    yield value


def _python_iterator(atom: tuple) -> bool:
    """A Python generator, or an iterator (`iter`, `zip`) over elements the analysis knows
    (an iterator of unknown elements may be a `tf.data` one, which a trace keeps live)."""
    if not is_seq_atom(atom):
        return False
    kind, elements = seq_kind(atom), iterated_atoms(atom)
    return kind == "generator" or (kind == "iterator" and not all(map(is_unknown, elements)))


def _star_parameter_itself(fn: FunctionSummary, target: Sym) -> bool:
    """Whether `target` is the `*args` tuple or `**kwargs` dict of `fn` itself (its name, not
    an element of it, and not rebound)."""
    if kind_of(target) not in ("param", "local", "name"):
        return False
    name = target[1]
    if not any(p.name == name and p.kind in ("vararg", "kwarg") for p in fn.params):
        return False
    return is_param(target) or all(v == param_sym(name) for v in fn.locals.get(name, ()))


def _one_of(options: list[Sym]) -> Sym | None:
    """A value that is one of `options` (None for none)."""
    if not options:
        return None
    return options[0] if len(options) == 1 else cond_sym(tuple(options))


UNKNOWN_KINDS = frozenset({"?", "ext", "boundext"})
"""Values the tables do not describe: one of them may be a list as well as a number."""


def _mutable_container(atom: tuple) -> bool:
    """A list, dict, set (not a tuple, a range or a generator) or a NumPy array: an augmented
    assignment changes it in place (`ndarray.__iadd__` writes into the array)."""
    if is_seq_atom(atom):
        return bool(atom[1] in ("list", "set", "deque"))
    if is_tup_atom(atom):
        return len(atom) > 2 and atom[2] == "list"
    return kind_of(atom) in ("dict", "numpy")


def _copy(summary: EffectSummary) -> EffectSummary:
    return EffectSummary(
        list(summary.effects), dict(summary.mutated_params), list(summary.undeterminable)
    )


def _dotted(sym: Sym) -> str:
    """`config.get` for an attribute chain on a parameter or local; `...` for the rest."""
    if is_attr(sym):
        return f"{_dotted(sym[1])}.{sym[2]}"
    if kind_of(sym) in ("param", "local"):
        return str(sym[1])
    return "..."


def _short(name: str) -> str:
    return name.removeprefix("builtins.")
