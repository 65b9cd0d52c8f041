"""Which Python-literal arguments can differ between calls, and so retrace a `tf.function`.

`tf.function` keys its trace cache on the value of every Python argument (ints, floats,
strings, and those inside lists, tuples and dicts). A value seen before is a cache hit: a
parameter that receives the same constant at every call traces once and never again. Only
values that *differ between calls* cost a trace each, so `has_primitive_parameters`
(docs/verdicts.md section 1) holds when the literal arguments of a parameter can differ:

- two call sites (or two branches of one value) pass different constants;
- a call site passes something that changes from one call of the caller to the next: a loop
  variable or an element of an iteration, a local assigned several values or recomputed from
  itself, a parameter of the caller that itself receives differing values, a module global
  that a function reassigns, an attribute that code outside `__init__` writes, `int()` or
  `float()` of a tensor (its value is data), a random number or a clock reading.

Whatever else a site passes is taken to be fixed through the run: a computed value (`len(x)`,
`beam_width + 1`, `self.units`, a command-line option) is the same at every call as long as
nothing it is computed from changes. The same refinement applies to values of unknown kind
(HY202): one that is fixed through the run retraces at most once even if it is a Python
number. Each decision keeps the site that shows it, for the finding to point at.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeGuard

from hybridize.analyzer.facts.cited_lines import cited_line
from hybridize.analyzer.facts.evaluator import (
    LiteralSite,
    ResolvedCall,
    TensorFacts,
    get_evaluator,
    handed_on,
)
from hybridize.analyzer.facts.evidence import Evidence
from hybridize.analyzer.facts.predicates import is_tensor_like, is_unknown
from hybridize.analyzer.facts.refs import is_global_ref
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.safety import parameter_behind
from hybridize.analyzer.facts.scan_memo import per_module
from hybridize.analyzer.facts.values import ext_name, is_ext_atom
from hybridize.analyzer.summaries.ir import ModuleSummary, Sym
from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.analyzer.summaries.syms import (
    SymKind,
    attr_name,
    dict_keys,
    is_attr,
    is_dict,
    is_item,
    is_iter,
    is_lit,
    is_local,
    item_base,
    item_index,
    lit_value,
    local_sym,
    name_sym,
    seq_sym,
    sym_name,
)
from hybridize.model import Span

Value = tuple
"""("const", value) a known constant; ("fixed", token) the same value at every call, unknown
statically (equal tokens: equal values); ("varies", reason) may change between calls. A plain
tuple, as symbolic values are (`summaries/syms.py`), built and tested by the functions below."""
ConstantValue = tuple[Literal["const"], tuple[str, object]]
FixedValue = tuple[Literal["fixed"], object]
VaryingValue = tuple[Literal["varies"], str]


def constant(value: tuple[str, object]) -> ConstantValue:
    """A value known statically: a literal's (type, value), or ("seq"/"dict", the constant
    payloads of a display's elements)."""
    return ("const", value)


def fixed(token: object) -> FixedValue:
    """The same value at every call, unknown statically: equal tokens, equal values."""
    return ("fixed", token)


def varies(reason: str) -> VaryingValue:
    """A value that may change between calls, and why, in words."""
    return ("varies", reason)


def varying_reason(value: VaryingValue) -> str:
    """Why a value may change between calls, in words."""
    return value[1]


def is_constant(value: Value) -> TypeGuard[ConstantValue]:
    return value[0] == "const"


def is_varies(value: Value) -> TypeGuard[VaryingValue]:
    return value[0] == "varies"


NUMBER_CONVERSIONS = frozenset({"builtins.int", "builtins.float", "builtins.round"})
CHANGING_EFFECTS = frozenset({"random", "clock", "input"})
INITIALISERS = frozenset({"__init__", "build", "setUp", "__post_init__"})
SHAPE_ATTRIBUTES = frozenset({"shape", "ndim"})
SHAPE_METHODS = frozenset({"size", "dim", "numel", "ndimension", "nelement"})
"""How a tensor's shape is read as Python numbers (`Framework.shape_derived_numbers`)."""


@dataclass(frozen=True, slots=True)
class Retrace:
    """Why a parameter's literal arguments retrace, and the call site that shows it."""

    reason: str
    site: LiteralSite
    others: tuple[LiteralSite, ...] = ()
    """Further sites the reason involves (the other values passed)."""


@dataclass(frozen=True, slots=True)
class Retraces:
    """The parameters of one function whose arguments differ between calls: Python literals,
    or (only when no literal does) values of unknown kind."""

    literal: dict[str, Retrace]
    unknown: dict[str, Retrace]


def retrace_evidence(
    key: FunctionKey, params: dict[str, Retrace], text: str, def_span: Span
) -> Evidence:
    """The evidence of retracing `params` of function `key`, at the call site that shows it
    (in the function's file; a caller in another file is named in the message and the
    evidence stays on the `def`). `text` says what happens, around `{parts}`."""
    relpath = key.file
    sites = [r.site for r in params.values()]
    others = [o for r in params.values() for o in r.others]
    here = [s.span for s in [*sites, *others] if s.caller.file == relpath]
    span, where = def_span, ""
    if here:
        span = min(here, key=lambda s: (s.start_line, s.start_col))
        primary = [s.span for s in sites if s.caller.file == relpath]
        span = min(primary or here, key=lambda s: (s.start_line, s.start_col))
    else:
        first = min(sites, key=lambda s: (s.caller, s.span.start_line))
        line = cited_line(first.caller.file, first.span.start_line)
        where = f" (the call at {first.caller.file}:{line})"
    parts = ", ".join(f"`{n}` ({params[n].reason})" for n in sorted(params))
    related = tuple(dict.fromkeys(s for s in here if s != span))
    return Evidence(text.format(parts=parts) + where, span, related)


NO_CYCLE = 1 << 62
"""`LiteralVariation._low` when the walk met no cycle marker (above every stack position)."""
PATH_DEPENDENT = -1
"""`LiteralVariation._low` once the walk read a result that depends on where it was asked
from (below every stack position: nothing that read it is kept for other questions)."""


class LiteralVariation:
    """Decides, per parameter, whether its literal arguments can differ between calls.

    The walk is memoised, and a cycle met on the way (a parameter passed on through recursive
    calls, a local recomputed from itself) reads as varying, in words that name where the
    walk entered the cycle. So a result computed on a walk that met a cycle depends on the
    question the walk started from: kept for other questions, it made a function's verdict
    (Sonnet's `_merge`: "`params`, recomputed from itself" or "`trainable`, ...") depend on
    which functions were decided before it. A result is kept for every question
    (`param_memo`, `value_memo`) only when its walk met no cycle marker (`_low`) and read
    nothing kept for the current question only (`_scratch`, where the others go)."""

    def __init__(self, index: ProjectIndex, facts: TensorFacts) -> None:
        self.index = index
        self.facts = facts
        self.active: dict[tuple[object, ...], int] = {}
        """The markers of the walks in progress, with their positions on the stack."""
        self._low = NO_CYCLE
        """The lowest stack position of a marker the current walk met (`NO_CYCLE`: none)."""
        self.param_memo: dict[tuple[object, ...], Value] = {}
        """Per (function, parameter, unknown kind): what the parameter holds, for every question."""
        self.value_memo: dict[tuple[object, ...], Value] = {}
        """Per (function, symbolic value): what it is, for every question."""
        self._scratch: dict[tuple[object, ...], Value] = {}
        """Results that depend on the current question's walk (its cycle markers): cleared
        when the next question starts."""
        self._written_attributes: set[str] | None = None
        self._reassigned_globals: set[tuple[str, str]] | None = None

    def _enter(self, marker: tuple[object, ...]) -> tuple[int, int]:
        """Push `marker`; return its position and the enclosing walk's `_low`, for `_leave`."""
        position = len(self.active)
        self.active[marker] = position
        outer, self._low = self._low, NO_CYCLE
        return position, outer

    def _leave(self, marker: tuple[object, ...], position: int, outer: int) -> bool:
        """Pop `marker`: whether the result of its walk holds for every question (it met no
        cycle, and read nothing of the current question's)."""
        del self.active[marker]
        independent = self._low == NO_CYCLE
        self._low = min(outer, self._low)
        return independent

    def _cut(self, marker: tuple[object, ...]) -> None:
        """The walk met `marker`, in progress: its result depends on that walk."""
        self._low = min(self._low, self.active[marker])

    def _recall(
        self, memo: dict[tuple[object, ...], Value], key: tuple[object, ...]
    ) -> Value | None:
        """A kept result, or one of the current question (which then depends on its walk)."""
        found = memo.get(key)
        if found is None:
            found = self._scratch.get(key)
            if found is not None:
                self._low = PATH_DEPENDENT
        return found

    # ------------------------------------------------------------------ per parameter

    def retracing(self, key: FunctionKey, *, unknown_kind: bool = False) -> dict[str, Retrace]:
        """The parameters of `key` whose literal (or unknown-kind) arguments differ between
        calls, each with the reason and the site that shows it."""
        if not self.active:
            self._scratch.clear()  # a new question
        found: dict[str, Retrace] = {}
        # By name: the solver adds a callee's parameters to the table in the order in which
        # their sites were published, which follows string hashing; the finding's spans
        # follow this order.
        for param, sites in sorted(self.facts.literal_sites.get(key, {}).items()):
            chosen = [s for s in sites if s.unknown_kind == unknown_kind]
            if chosen:
                verdict = self._decide(chosen)
                if verdict is not None:
                    found[param] = verdict
        return found

    def retraces(self, key: FunctionKey) -> Retraces:
        """What `retracing` finds for `key`: literals, or values of unknown kind if none."""
        literal = self.retracing(key)
        return Retraces(literal, {} if literal else self.retracing(key, unknown_kind=True))

    def _decide(self, sites: list[LiteralSite]) -> Retrace | None:
        values = [(site, self.value(site.caller, site.argument)) for site in sites]
        for site, value in values:
            if is_varies(value):
                return Retrace(value[1], site)
        distinct: dict[Value, LiteralSite] = {}
        for site, value in values:
            distinct.setdefault(value, site)
        if len(distinct) > 1:
            shown = [_show(v) for v in distinct][:3]
            involved = sorted(distinct.values(), key=lambda s: (str(s.caller), s.span.start_line))
            return Retrace(
                f"different values at different call sites ({', '.join(shown)})",
                involved[1],
                (involved[0], *involved[2:]),
            )
        return None

    def _param(self, key: FunctionKey, param: str, unknown_kind: bool) -> Value:
        """What a parameter of `key` holds, over the sites that call it."""
        memo_key = (key, param, unknown_kind)
        known = self._recall(self.param_memo, memo_key)
        if known is not None:
            return known
        if memo_key in self.active:
            self._cut(memo_key)
            return varies(f"`{param}` is passed on through a cycle of calls")
        position, outer = self._enter(memo_key)
        independent = False
        try:
            sites = [
                s
                for s in self.facts.literal_sites.get(key, {}).get(param, [])
                if s.unknown_kind == unknown_kind
            ]
            result: Value = fixed(("param", key, param))
            if sites:
                retrace = self._decide(sites)
                if retrace is not None:
                    name = key.qualname
                    result = varies(f"`{param}` of `{name}` receives {retrace.reason}")
                else:
                    result = self.value(sites[0].caller, sites[0].argument)
        finally:
            independent = self._leave(memo_key, position, outer)
        (self.param_memo if independent else self._scratch)[memo_key] = result
        return result

    # ------------------------------------------------------------------ per value

    def value(self, key: FunctionKey, sym: Sym, depth: int = 0) -> Value:
        """What a value written in function `key` is across the calls of `key`; memoised, so
        that long chains of locals are walked once (a cycle met on the way reads as varying,
        the conservative answer)."""
        memo_key = (key, sym)
        found = self._recall(self.value_memo, memo_key)
        if found is None:
            marker = ("value", key, sym)
            if marker in self.active:
                # Asked again inside its own walk: the markers below decide (a local
                # recomputed from itself reads as varying).
                return self._value(key, sym, depth)
            position, outer = self._enter(marker)
            independent = False
            try:
                found = self._value(key, sym, depth)
            finally:
                independent = self._leave(marker, position, outer)
            (self.value_memo if independent else self._scratch)[memo_key] = found
        return found

    def _value(self, key: FunctionKey, sym: Sym, depth: int) -> Value:
        if depth > 25:
            self._low = PATH_DEPENDENT  # cut by the depth it was asked at
            return fixed((key, sym))
        fn = self.index.function(key)
        kind: SymKind = sym[0]
        if kind == "lit":
            if sym[2] is None and sym[1] in ("int", "float", "str"):
                return fixed((key, sym))
            return constant((sym[1], sym[2]))
        if kind == "param":
            receiver = fn.params[0].name if fn.binds_receiver and fn.params else None
            if sym[1] == receiver:
                return fixed((key, sym))
            return self._param(key, sym[1], unknown_kind=False)
        if kind == "local":
            return self._local(key, sym[1], depth)
        if kind == "name":
            return self._name(key, sym[1], depth)
        if kind == "iter":
            return varies("an element of an iteration, new on every pass")
        if kind == "attr" and sym[2] in SHAPE_ATTRIBUTES:
            shaped = self._shape_of_parameter(key, sym[1])
            if shaped is not None:
                return shaped
        if is_item(sym):
            base, index = item_base(sym), item_index(sym)
            if is_local(base) and is_lit(index) and type(lit_value(index)) is str:
                keyed = self._keyed(key, sym_name(base), str(lit_value(index)), depth)
                if keyed is not None:
                    return keyed
        if kind in ("attr", "item", "enter"):
            parts = [sym[1], *([sym[2]] if kind == "item" and isinstance(sym[2], tuple) else [])]
            for part in parts:
                inner = self.value(key, part, depth + 1)
                if is_varies(inner):
                    return inner
            if kind == "attr" and sym[2] in self.written_attributes():
                return varies(f"the attribute `{sym[2]}`, which code outside `__init__` writes")
            return fixed((key, sym))
        if kind in ("op", "cond", "seq", "dict"):
            elements = sym[1] if kind in ("op", "cond", "dict") else sym[2]
            values = [self.value(key, e, depth + 1) for e in elements]
            for value in values:
                if is_varies(value):
                    return value
            if kind == "cond" and len(set(values)) > 1:
                shown = ", ".join(_show(v) for v in dict.fromkeys(values))
                return varies(f"a choice made at run time between {shown}")
            if kind == "cond":
                return values[0] if values else fixed((key, sym))
            if kind in ("seq", "dict") and all(is_constant(v) for v in values):
                return constant((kind, tuple(v[1] for v in values)))
            return fixed((key, sym))
        if kind == "call":
            return self._call(key, sym, depth)
        if kind == "fstr":
            # A string formatted from values: a new value, a new string (a file name built
            # per step, a summary tag per epoch).
            for part in sym[2]:
                inner = self.value(key, part, depth + 1)
                if is_varies(inner):
                    return varies(f"a string formatted from {inner[1]}")
            return fixed((key, sym))
        return fixed((key, sym))

    def _local(self, key: FunctionKey, name: str, depth: int) -> Value:
        fn = self.index.function(key)
        values = fn.locals.get(name, [])
        if any(is_iter(v) for v in values):
            return varies(f"the loop variable `{name}`, new on every iteration")
        found = self._assigned(key, ("local", key, name), f"`{name}`", values, depth)
        return fixed((key, local_sym(name))) if found is None else found

    def _assigned(
        self, key: FunctionKey, marker: tuple[object, ...], shown: str, values: list, depth: int
    ) -> Value | None:
        """What a name (or a dict's key, `shown`) assigned `values` in function `key` holds
        across calls: varying if one of them does, or if they differ; None if none."""
        if marker in self.active:
            self._cut(marker)
            return varies(f"{shown}, recomputed from itself")
        position, outer = self._enter(marker)
        try:
            found = [self.value(key, v, depth + 1) for v in values]
        finally:
            self._leave(marker, position, outer)
        for value in found:
            if is_varies(value):
                return value
        distinct = list(dict.fromkeys(found))
        if len(distinct) > 1:
            listed = ", ".join(_show(v) for v in distinct[:3])
            return varies(f"{shown}, assigned different values ({listed})")
        return distinct[0] if distinct else None

    def _keyed(self, key: FunctionKey, name: str, item: str, depth: int) -> Value | None:
        """`name["item"]`, where the local `name` is only ever a dict display with string keys:
        the values written at that key (by the displays and by `name["item"] = v`), decided
        as a local's assignments are, so that a store at another key (`d["w"] = d["w"] + 1`)
        leaves the key read unchanged. None where the dict may change otherwise (another
        value assigned, a store by a computed key, the dict handed to a call): the base
        decides."""
        fn = self.index.function(key)
        base = local_sym(name)
        if base in handed_on(fn):
            return None
        stores = [s for s in fn.stores if s.kind == "item" and s.target == base]
        if any(not s.name for s in stores):
            return None
        induced = {seq_sym("list", (s.value,)) for s in stores}
        written = [s.value for s in stores if s.name == item]
        for value in fn.locals.get(name, ()):
            if value in induced:
                continue  # what a store adds to the local: its key is in `stores`
            keys = dict_keys(value) if is_dict(value) else None
            if keys is None:
                return None
            found = [v for k, v in zip(keys, value[1], strict=True) if k == item]
            written.extend(found[-1:])
        return self._assigned(
            key, ("keyed", key, name, item), f"`{name}[{item!r}]`", written, depth
        )

    def _name(self, key: FunctionKey, name: str, depth: int) -> Value:
        fn = self.index.function(key)
        relpath = key.file
        if name in fn.locals and not key.is_module_code:
            return self._local(key, name, depth)
        parent = fn.parent_qualname
        while parent is not None:
            parent_key = FunctionKey(relpath, parent)
            parent_fn = self.index.function(parent_key)
            if name in parent_fn.locals:
                return self._local(parent_key, name, depth)
            parent = parent_fn.parent_qualname
        ref = self.index.resolve_global(relpath, name)
        if not is_global_ref(ref):
            return fixed((key, name_sym(name)))
        if (ref[1], ref[2]) in self.reassigned_globals():
            return varies(f"the global `{ref[2]}`, which a function reassigns")
        module_key = FunctionKey.module_code(ref[1])
        if module_key == key:
            return self._local(key, ref[2], depth) if ref[2] in fn.locals else fixed(ref)
        # Read from a function: module-level code has assigned it by the time functions run
        # (`EPOCHS = 5`, then `EPOCHS = args.epochs` under `__main__`), and only a function
        # that reassigns it (`global`) changes it between calls.
        value = self._local(module_key, ref[2], depth)
        return fixed(ref) if is_varies(value) and "assigned" in varying_reason(value) else value

    def _call(self, key: FunctionKey, sym: Sym, depth: int) -> Value:
        fn = self.index.function(key)
        site = fn.calls[sym[1]]
        resolved = self._resolved(key, sym[1])
        if resolved is not None:
            if any(info.effect in CHANGING_EFFECTS for info in resolved.api):
                return varies("a value drawn or read anew on every call")
            converts = any(
                is_ext_atom(a) and ext_name(a) in NUMBER_CONVERSIONS for a in resolved.callee_atoms
            )
            if converts and any(is_tensor_like(a) for atoms in resolved.args for a in atoms):
                return varies("a Python number converted from a tensor, whose value is data")
            if any(a[1] == "builtins.next" for a in resolved.callee_atoms if is_ext_atom(a)):
                return varies("the next element of an iterator")
        if is_attr(site.callee) and attr_name(site.callee) in SHAPE_METHODS:
            shaped = self._shape_of_parameter(key, site.callee[1])
            if shaped is not None:
                return shaped
        for argument in (*site.args, *(v for _, v in site.kwargs)):
            value = self.value(key, argument, depth + 1)
            if is_varies(value):
                return value
        if resolved is not None:
            for kind, target in resolved.targets:
                if kind in ("func", "method") and target != key:
                    returned = self._returned(target, depth)
                    if is_varies(returned):
                        name = target.qualname
                        return varies(f"what `{name}` returns: {returned[1]}")
        return fixed((key, sym))

    def _shape_of_parameter(self, key: FunctionKey, tensor: Sym) -> Value | None:
        """Varies when `tensor` is a tensor that a parameter of `key` holds (through locals)
        and the framework's compiler makes numbers derived from shapes symbolic once they
        change (`Framework.shape_derived_numbers`); None otherwise (the usual rules decide:
        fixed, as the shape of a trace is)."""
        reason = self.index.function_framework(key).shape_derived_numbers
        if reason is None:
            return None
        fn = self.index.function(key)
        receiver = fn.params[0].name if fn.binds_receiver and fn.params else None
        param = parameter_behind(fn, tensor, receiver)
        if param is None:
            return None
        atoms = get_evaluator(self.index, self.facts, key).eval(tensor)
        if not any(is_tensor_like(a) or is_unknown(a) for a in atoms):
            return None  # a parameter known to hold no tensor (a list's `len`, say)
        return varies(reason.format(tensor=param))

    def _returned(self, key: FunctionKey, depth: int) -> Value:
        """Whether what a project function returns can change between its calls."""
        marker = ("returns", key)
        if marker in self.active:
            self._cut(marker)
            return fixed(marker)
        position, outer = self._enter(marker)
        try:
            for returned in self.index.function(key).returns:
                value = self.value(key, returned, depth + 1)
                if is_varies(value) and not varying_reason(value).startswith("`"):
                    return value
        finally:
            self._leave(marker, position, outer)
        return fixed(marker)

    def _resolved(self, key: FunctionKey, index: int) -> ResolvedCall | None:
        for resolved in self.facts.calls.get(key, []):
            if resolved.index == index:
                return resolved
        return None

    # ------------------------------------------------------------------ project-wide

    def written_attributes(self) -> set[str]:
        """Attribute names that some function other than an initialiser assigns."""
        if self._written_attributes is None:
            written = per_module(self.facts, self.index, "written_attributes", _written_attributes)
            self._written_attributes = set().union(*written.values())
        return self._written_attributes

    def reassigned_globals(self) -> set[tuple[str, str]]:
        """(module, name) of globals that a function assigns through `global`."""
        if self._reassigned_globals is None:
            assigned = per_module(self.facts, self.index, "global_statements", _global_statements)
            self._reassigned_globals = set().union(*assigned.values())
        return self._reassigned_globals


def _written_attributes(_relpath: str, module: ModuleSummary) -> set[str]:
    """Attribute names a module's functions other than initialisers assign."""
    return {
        s.name
        for fn in module.functions.values()
        if fn.name not in INITIALISERS and not fn.is_lambda
        for s in fn.stores
        if s.kind == "attr"
    }


def _global_statements(relpath: str, module: ModuleSummary) -> set[tuple[str, str]]:
    """(module, name) of the globals a module's functions assign through `global`."""
    return {
        (relpath, s.name)
        for fn in module.functions.values()
        for s in fn.stores
        if s.kind == "global"
    }


def _show(value: Value) -> str:
    """A value as a reader would write it: `3`, `'relu'`, or "a computed value"."""
    if is_constant(value):
        return _literal(value[1])
    return "a computed value"


def _literal(const: tuple) -> str:
    kind, payload = const
    if kind in ("seq", "dict"):
        inner = ", ".join(_literal(c) for c in payload)
        return f"[{inner}]" if kind == "seq" else f"{{{inner}}}"
    return repr(payload)
