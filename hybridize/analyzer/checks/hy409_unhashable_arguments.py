"""HY409 has_unhashable_arguments: an argument tf.function cannot key its traces on."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import NamedTuple, TypeVar, cast

from hybridize.analyzer.checks.context import CheckContext
from hybridize.analyzer.facts.evaluator import TensorFacts, bind_written, callees, get_evaluator
from hybridize.analyzer.facts.evidence import Evidence
from hybridize.analyzer.facts.hashability import unhashable_arguments
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.scan_memo import of_module
from hybridize.analyzer.facts.values import Atom, AtomKind, atom_kind
from hybridize.analyzer.summaries.ir import FunctionSummary, ModuleSummary, Sym, function_syms
from hybridize.analyzer.summaries.keys import MODULE_CODE, FunctionKey
from hybridize.analyzer.summaries.syms import is_slice, kind_of, param_sym, sym_name, syms_of_kinds
from hybridize.model import Finding, Span

from . import TENSORFLOW_ONLY, Check

MAX_DICT_FLOW = 24
"""How many (function, variable) places a dict argument is followed through, up to the
callers that pass it and down to the functions they and it pass it to."""


INDEXED_NOT_KEYED = frozenset({"tensor", "variable", "numpy", "seq", "tup"})
"""Values a subscript indexes rather than keys (`x[0]`, `pair[1]`): no dict to sort."""


@dataclass(frozen=True, slots=True)
class KeyUse:
    """A subscript of the dict with a key of one kind: where, in which function."""

    kind: str
    """What orders the key: "str", "tuple", "class"."""
    function: str
    span: Span


def _key_kind(atom: Atom) -> str | None:
    """The family a dict key orders within (keys of different families raise TypeError when
    `sorted`); None for a key whose order is not known (an object may define `<`)."""
    kind: AtomKind = atom[0]
    if kind == "lit":
        # A number or None indexes a list, a tuple or a tensor (`x[0]`, `x[None]`) as often
        # as it keys a dict: only a string is taken for a key.
        return "str" if atom[1] == "str" else None
    if kind == "tup" or (kind == "seq" and atom[1] == "tuple"):
        return "tuple"
    if kind == "class":
        return "class"
    return None


WRITTEN_KEYS = "hy409_written_keys"
"""The scan (`scan_memo.of_module`, kept across incremental updates) of each module's
subscripts with a written key, by function and by the name of what is subscripted: syntax
alone, and a dict followed through many places asks for the same functions again."""

FUNCTION_WRITTEN_KEYS = "hy409_function_written_keys"
"""Each function's part of `WRITTEN_KEYS` with the summary it was read from, by module
(`_module_written_keys`): kept across incremental updates."""

KEY_USES = "hy409_key_uses"
"""The `facts.cache` entry of `_key_uses`, by function and variable."""


VARIABLE_KINDS = frozenset({"local", "param", "name"})
"""Symbolic values that name a variable the dict is held in."""

T = TypeVar("T")


def _by_function(
    facts: TensorFacts,
    entry: str,
    key: FunctionKey,
    compute: Callable[[], dict[str, list[T]]],
) -> dict[str, list[T]]:
    """A function's answers for all its variables at once, made on the first question and
    kept in `facts.cache` under `entry` (cleared with every solve): a dict's flow asks about
    several variables of the same functions."""
    memo = cast("dict[FunctionKey, dict[str, list[T]]]", facts.cache.setdefault(entry, {}))
    found = memo.get(key)
    if found is None:
        found = memo[key] = compute()
    return found


def _module_written_keys(
    facts: TensorFacts,
) -> Callable[[str, ModuleSummary], dict[str, dict[str, list[Sym]]]]:
    """`_written_keys` of each function of a module (its module code included) that writes
    a key, by qualified name: each function's kept while its summary is the same object (an
    edit that replaces the module's summary keeps those of the statements it left alone), in
    `FUNCTION_WRITTEN_KEYS`."""
    memo = cast(
        "dict[str, dict[str, tuple[FunctionSummary, dict[str, list[Sym]]]]]",
        facts.scans.setdefault(FUNCTION_WRITTEN_KEYS, {}),
    )

    def scan(relpath: str, module: ModuleSummary) -> dict[str, dict[str, list[Sym]]]:
        known = memo.get(relpath, {})
        parts: dict[str, tuple[FunctionSummary, dict[str, list[Sym]]]] = {}
        found: dict[str, dict[str, list[Sym]]] = {}
        for qualname, fn in ((MODULE_CODE, module.module_code), *module.functions.items()):
            part = known.get(qualname)
            if part is None or part[0] is not fn:
                part = (fn, _written_keys(fn))
            parts[qualname] = part
            if part[1]:
                found[qualname] = part[1]
        memo[relpath] = parts
        return found

    return scan


def _written_by_module(
    index: ProjectIndex, facts: TensorFacts, relpath: str
) -> dict[str, dict[str, list[Sym]]]:
    """The module's `_module_written_keys`, from its scan (`WRITTEN_KEYS`)."""
    return of_module(facts, index, WRITTEN_KEYS, relpath, _module_written_keys(facts))


def _function_written_keys(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey
) -> dict[str, list[Sym]]:
    """`_written_keys` of the function `key`, from its module's scan."""
    found = _written_by_module(index, facts, key.file)
    return found.get(key.qualname, {})


KEY_KINDS = "hy409_key_kinds"
"""The `facts.cache` entry of `_mixes_key_kinds`."""

MODULE_KEY_KINDS = "hy409_module_key_kinds"
"""The scan (`scan_memo.of_module`, kept across incremental updates) of each module's
written keys split by what typing them needs (`_module_key_kinds`)."""


class ModuleKeyKinds(NamedTuple):
    """A module's written keys as `_mixes_key_kinds` reads them: the kinds of its literal
    keys, which the syntax gives (the evaluator gives a literal back as it is written), and
    the (function, variable) pairs with a key only the evaluator types (a constant, a tuple
    display), which read other modules and are typed again at each solve. (A named tuple:
    made at import in a tenth of a dataclass's time.)"""

    literal: frozenset[str]
    evaluated: tuple[tuple[str, str], ...]


def _module_key_kinds(written: dict[str, dict[str, list[Sym]]]) -> ModuleKeyKinds:
    """`ModuleKeyKinds` of a module's `_module_written_keys`."""
    literal: set[str] = set()
    evaluated: list[tuple[str, str]] = []
    for qualname, by_name in written.items():
        for name, keys in by_name.items():
            if any(kind_of(key) != "lit" for key in keys):
                evaluated.append((qualname, name))
            literal.update(
                kind
                for key in keys
                if kind_of(key) == "lit" and (kind := _key_kind(key)) is not None
            )
    return ModuleKeyKinds(frozenset(literal), tuple(evaluated))


def _mixes_key_kinds(index: ProjectIndex, facts: TensorFacts) -> bool:
    """Whether the keys written anywhere in the project are of two kinds or more: a dict's
    flow meets only keys written in the project, so with fewer no flow mixes them, and none
    is followed (a flow walks the calls of every function it reaches, for every parameter).

    The literal keys' kinds come from each module's scan, kept across incremental updates
    (an edit types again only the keys of the module it replaced); only the other keys are
    evaluated, at each solve."""
    found = cast("bool | None", facts.cache.get(KEY_KINDS))
    if found is None:

        def key_kinds(relpath: str, module: ModuleSummary) -> ModuleKeyKinds:
            return _module_key_kinds(_written_by_module(index, facts, relpath))

        modules = {
            relpath: of_module(facts, index, MODULE_KEY_KINDS, relpath, key_kinds)
            for relpath in index.modules
        }
        kinds: set[str] = set().union(*(module.literal for module in modules.values()))
        for relpath, module in modules.items():
            if len(kinds) >= 2:
                break
            for qualname, name in module.evaluated:
                key = FunctionKey(relpath, qualname)
                kinds.update(use.kind for use in _key_uses(index, facts, key, name))
        facts.cache[KEY_KINDS] = found = len(kinds) >= 2
    return found


def _written_keys(fn: FunctionSummary) -> dict[str, list[Sym]]:
    """The keys written in subscripts `name[k]` of the function (not slices), by `name`."""
    found: dict[str, list[Sym]] = {}
    for sym in syms_of_kinds(function_syms(fn), "item"):
        if is_slice(sym[2]):
            continue
        base = sym[1]
        if kind_of(base) not in VARIABLE_KINDS:
            continue
        written = _written_key(fn, sym[2])
        if written is not None:
            found.setdefault(base[1], []).append(written)
    return found


def _key_uses(index: ProjectIndex, facts: TensorFacts, key: FunctionKey, name: str) -> list[KeyUse]:
    """The subscripts `name[k]` in the function, by the kind of each key."""
    memo = cast("dict[tuple[FunctionKey, str], list[KeyUse]]", facts.cache.setdefault(KEY_USES, {}))
    if (key, name) in memo:
        return memo[(key, name)]
    fn = index.function(key)
    keys = _function_written_keys(index, facts, key)
    found: list[KeyUse] = []
    if name in keys:
        evaluator = get_evaluator(index, facts, key)
        for written in keys[name]:
            kinds = {_key_kind(atom) for atom in evaluator.eval(written)} - {None}
            for kind in sorted(k for k in kinds if k is not None):
                found.append(KeyUse(kind, fn.qualname, fn.span))
    memo[(key, name)] = found
    return found


WRITTEN_KEY_KINDS = frozenset({"lit", "seq", "name", "attr"})
"""Keys written in the code: a literal, a tuple display, a constant (`defaults.STEP_KEY`).
A key taken from iterating the dict (`for k in d: d[k]`) or computed is not typed: the
analysis does not know a dict's keys, only what the code writes."""


def _written_key(fn: FunctionSummary, sym: Sym) -> Sym | None:
    """The key as the code writes it, through locals assigned once (`key = (Cls, self)`);
    None for a key taken from elsewhere."""
    for _ in range(4):
        if kind_of(sym) == "local" and len(fn.locals.get(sym_name(sym), [])) == 1:
            sym = fn.locals[sym_name(sym)][0]
        else:
            break
    return sym if kind_of(sym) in WRITTEN_KEY_KINDS else None


PASSED_ON = "hy409_passed_on"
"""The `facts.cache` entry of `_passed_on_by_name`, by function: the flows of a function's
variables and its callers' cross the same places, and ask for several variables of one
function, whose calls are bound once."""


def _passed_on(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, name: str
) -> list[tuple[FunctionKey, str]]:
    """The parameters of project functions that `key` passes its variable `name` to."""
    return _passed_on_each(index, facts, key).get(name, [])


def _passed_on_each(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey
) -> dict[str, list[tuple[FunctionKey, str]]]:
    """`_passed_on` of every variable of `key` (memoised)."""
    return _by_function(facts, PASSED_ON, key, lambda: _passed_on_by_name(index, facts, key))


def _passed_on_by_name(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey
) -> dict[str, list[tuple[FunctionKey, str]]]:
    """For each variable of `key`, the parameters of project functions it is passed to, in
    call order: every call that passes a variable bound once for all of them."""
    found: dict[str, list[tuple[FunctionKey, str]]] = {}
    for resolved in facts.calls.get(key, ()):
        written = [*resolved.site.args, *(v for _, v in resolved.site.kwargs)]
        names = list(dict.fromkeys(a[1] for a in written if kind_of(a) in VARIABLE_KINDS))
        if not names:
            continue
        for kind, target in callees(index, resolved):
            bound = bind_written(index.function(target), resolved, kind, target)
            for name in names:
                for parameter, values in bound.items():
                    if any(kind_of(v) in VARIABLE_KINDS and v[1] == name for v in values):
                        found.setdefault(name, []).append((target, parameter))
    return found


def _passed_in(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, parameter: str
) -> list[tuple[FunctionKey, str]]:
    """The variables of the callers of `key` that they pass as its `parameter`."""
    return _by_function(
        facts, PASSED_IN, key, lambda: _passed_in_by_parameter(index, facts, key)
    ).get(parameter, [])


PASSED_IN = "hy409_passed_in"
"""The `facts.cache` entry of `_passed_in_by_parameter`, by function: a dict followed to
its callers asks for several parameters of one function, whose calls are bound once."""


def _passed_in_by_parameter(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey
) -> dict[str, list[tuple[FunctionKey, str]]]:
    """For each parameter of `key`, the variables its callers pass as it, in caller order:
    every call of `key` bound once for all its parameters."""
    found: dict[str, list[tuple[FunctionKey, str]]] = {}
    for caller in sorted(facts.callers.get(key, ()), key=str):
        for resolved in facts.calls.get(caller, ()):
            for kind, target in callees(index, resolved):
                if target != key:
                    continue
                bound = bind_written(index.function(key), resolved, kind, target)
                for parameter, values in bound.items():
                    for value in values:
                        if kind_of(value) in VARIABLE_KINDS:
                            found.setdefault(parameter, []).append((caller, value[1]))
    return found


def unordered_dict_keys(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey
) -> list[Evidence]:
    """Parameters that receive a dict whose keys mix kinds that do not order (a string key
    and a tuple key): the dict is followed to the callers that pass it and to every project
    function it is passed to, and each subscript's key is typed."""
    if not _mixes_key_kinds(index, facts):
        return []
    fn = index.function(key)
    found: list[Evidence] = []
    evaluator = get_evaluator(index, facts, key)
    reaching = _reaching_rarer_keys(index, facts)
    for param in fn.explicit_params:
        if param.kind in ("vararg", "kwarg") or (key, param.name) not in reaching:
            continue
        if any(
            atom_kind(atom) in INDEXED_NOT_KEYED for atom in evaluator.eval(param_sym(param.name))
        ):
            continue  # a tensor or a sequence is indexed, not keyed: nothing is sorted
        uses = _flow_key_uses(index, facts, key, param.name)
        kinds = {use.kind: use for use in uses}
        if len(kinds) < 2:
            continue
        first, second = sorted(kinds)[:2]
        found.append(
            Evidence(
                f"`{param.name}` is a dict keyed by a {first} (in `{kinds[first].function}`) "
                f"and by a {second} (in `{kinds[second].function}`): `tf.function` sorts a "
                "dict argument's keys to type it, and keys that do not order fail the call "
                "(\"TypeError: '<' not supported\")",
                fn.span,
                tuple(
                    dict.fromkeys(
                        use.span for use in (kinds[first], kinds[second]) if use.span != fn.span
                    )
                ),
            )
        )
    return found


REACHING_RARER_KEYS = "hy409_reaching_rarer_keys"
"""The `facts.cache` entry of `_reaching_rarer_keys`."""


def _reaching_rarer_keys(index: ProjectIndex, facts: TensorFacts) -> set[tuple[FunctionKey, str]]:
    """The places (function, variable) from which a dict's flow may meet a key of another
    kind than the kind most places key by: the places keying so, and every place that
    passes a variable to one of them or is passed one by it (both ways, as far as they
    go, whatever `MAX_DICT_FLOW` stops the flow at).

    A flow of mixed keys meets two kinds, so at least one that is not the commonest: one
    from any other place meets one kind at most, and is not followed. Most parameters are
    such places (a dict of string keys, or no dict at all), and each flow walks the calls of
    every function it reaches. Found once per solve, from the few places keying by the
    rarer kinds back along the edges the flows follow forward (`_passed_on` of a place,
    and the variables its callers pass to it); a flow's own steps only shrink it."""
    found = cast("set[tuple[FunctionKey, str]] | None", facts.cache.get(REACHING_RARER_KEYS))
    if found is not None:
        return found
    by_kind: dict[str, set[tuple[FunctionKey, str]]] = {}
    for relpath in index.modules:
        written = _written_by_module(index, facts, relpath)
        for qualname, by_name in written.items():
            key = FunctionKey(relpath, qualname)
            for name in by_name:
                for use in _key_uses(index, facts, key, name):
                    by_kind.setdefault(use.kind, set()).add((key, name))
    commonest = max(sorted(by_kind), key=lambda kind: len(by_kind[kind]), default=None)
    found = set().union(*(places for kind, places in by_kind.items() if kind != commonest))
    work = list(found)
    while work:
        place, variable = work.pop()
        # A flow steps from a variable to the parameters it is passed as (`_passed_on`),
        # and from a parameter to the variables callers pass as it (`_passed_in`): back
        # from `place`, the first come from its callers (each caller's variables passed
        # as this one), the second from the parameters it passes `variable` as.
        before = [*_passed_on(index, facts, place, variable)]
        for caller in sorted(facts.callers.get(place, ()), key=str):
            for passed, targets in _passed_on_each(index, facts, caller).items():
                if (place, variable) in targets:
                    before.append((caller, passed))
        for step in before:
            if step not in found:
                found.add(step)
                work.append(step)
    facts.cache[REACHING_RARER_KEYS] = found
    return found


def _flow_key_uses(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, name: str
) -> list[KeyUse]:
    """The key uses of the dict a parameter holds wherever it flows (bounded)."""
    seen: set[tuple[FunctionKey, str]] = set()
    # the places each place steps to, asked for as the flow reaches them (a flow stops at
    # `MAX_DICT_FLOW` places, long before the callers of the places it saw run out)
    work: deque[Iterator[tuple[FunctionKey, str, bool]]] = deque([iter([(key, name, True)])])
    uses: list[KeyUse] = []
    while work and len(seen) < MAX_DICT_FLOW:
        step = next(work[0], None)
        if step is None:
            work.popleft()
            continue
        place, variable, is_parameter = step
        if (place, variable) in seen:
            continue
        seen.add((place, variable))
        uses.extend(_key_uses(index, facts, place, variable))
        work.append(_flow_steps(index, facts, place, variable, is_parameter))
    return uses


def _flow_steps(
    index: ProjectIndex, facts: TensorFacts, place: FunctionKey, variable: str, is_parameter: bool
) -> Iterator[tuple[FunctionKey, str, bool]]:
    """Where a dict flows from `variable` of `place` (whether each is a parameter): to the
    parameters it is passed as, and, from a parameter, to the variables callers pass as it."""
    for target, parameter in _passed_on(index, facts, place, variable):
        yield target, parameter, True
    if is_parameter:
        for caller, passed in _passed_in(index, facts, place, variable):
            yield caller, passed, any(p.name == passed for p in index.function(caller).params)


class HasUnhashableArguments(Check):
    """A caller passes an object `tf.function` cannot hash, or `self` cannot be hashed.

    What it detects
    ---------------
    A parameter that may receive (from the project's calls, its default or its annotation) a
    set, or an instance of a project class whose instances are unhashable, alone or inside a
    list, tuple or dict value: a `@dataclasses.dataclass` with the default `eq=True,
    frozen=False` (and no `unsafe_hash`), a class that defines `__eq__` without `__hash__`
    or sets `__hash__ = None`, or a subclass of one that does not define a `__hash__` again,
    or a subclass of `tf.Variable` (a variable compares by value and never hashes; larq's
    `QuantizedVariable`), or a dataclass hashed by its fields (`frozen=True` or
    `unsafe_hash=True`) that the project builds with a tensor, a variable or a NumPy array
    among the constructor's arguments (hashing it hashes the field, which raises), unless
    the class implements the tracing protocol (`__tf_tracing_type__`), through which
    tf.function types it without hashing, or is an attrs class (`@attr.s`, `@attrs.define`,
    `@attrs.frozen`, or a subclass of one), whose instances tf.function opens field by
    field, never hashing them. Also a method of such a class, the protocol and attrs
    notwithstanding: `self` is part of the key (a method is looked up per instance in a
    dictionary keyed on it), so a method of an attrs class that is not frozen, or of a
    frozen one built with a tensor field, is claimed; and a method of a hashable class that
    a project subclass whose instances do not hash inherits, or overrides and calls through
    `super()` (seqio's `Vocabulary.encode_tf`, run on a `SentencePieceVocabulary` that
    defines `__eq__` alone). Classes whose hashing depends on
    another base outside the project, or on a decorator keyword that is not a literal, are
    not claimed. Also a parameter that receives a dict keyed by keys that do not order among
    themselves: followed to the callers that pass it and every project function it is passed
    to, the dict is subscripted with keys of two kinds (a string and a tuple or a class; a
    number or None is not taken for a key, as it indexes lists and tensors as well;
    tensorflow-constrained-optimization's `memoizer`, keyed by `"global_step"` and by
    `(DeferredVariable, self)`).

    Why it matters in graph mode
    ----------------------------
    `tf.function` chooses a trace by a `TraceType` built from every argument: lists, tuples,
    namedtuples and dict values are opened and typed leaf by leaf, and any other Python
    object must be hashable (it is part of the cache key). Eagerly nothing is hashed and the
    code works; decorated, the first call fails with "TypeError: Could not generate a
    generic TraceType for BlockSpec(...). Please verify that it is immutable/hashable" (or
    "unhashable type" for `self`, "Variable is unhashable" for a variable). Measured under
    TF 2.21: sets, mutable dataclasses (and their subclasses), `__eq__`-only classes and
    `tf.Variable` subclasses fail; frozen or `unsafe_hash` dataclasses,
    `eq=False` dataclasses, plain classes (hashed by identity), enums and frozensets work;
    a frozen dataclass holding a tensor fails ("Could not generate a generic TraceType for
    FrozenTensors(w=<tf.Tensor ...>)"), while one of Python scalars, a named tuple or an
    attrs instance, frozen or not, of tensors or scalars (both opened field by field) work;
    as `self` of a decorated method an attrs instance is hashed: a mutable one fails
    ("unhashable type"), a frozen one with a tensor field fails ("Tensor is unhashable")
    (tests/analyzer/test_python_object_arguments_measured.py).
    A dict argument's keys are sorted to type it: keys that do not order (`"global_step"`
    and `("a", 1)`, a string and an int or None or a class) fail the first call with
    "TypeError: '<' not supported between instances of 'tuple' and 'str'" (measured, TF
    2.21; keys all strings, or all tuples of strings, work).

    Example
    -------
        @dataclasses.dataclass
        class BlockSpec:
            filters: int = 8

        def apply_blocks(x, specs):
            for spec in specs:
                x = x * float(spec.filters)
            return tf.reduce_sum(x)

        apply_blocks(tf.ones((2, 2)), [BlockSpec(8), BlockSpec(16)])

    Instead
    -------
    Make the class hashable by value (`@dataclasses.dataclass(frozen=True)`; a value that
    changes between calls then retraces, as any Python argument does), pass a tuple or
    frozenset instead of a set, pass the fields the function needs (numbers become
    constants; tensors stay inputs), or compile the tensor code below the function that
    reads the configuration. For a dict of mixed keys, pass the values the function reads.

    Not for torch.compile
    ---------------------
    `tf.function` hashes every argument to key its traces; Dynamo guards on the arguments'
    contents (a set, an unhashable object) instead of hashing them, so the call does not fail.
    """

    code = "HY409"
    unblock = "make the argument hashable by value (a frozen dataclass, a tuple), or pass the fields the function needs"
    frameworks = TENSORFLOW_ONLY
    name = "has_unhashable_arguments"
    severity = "error"
    summary = (
        "an argument (or `self`) is a set or an unhashable object such as a mutable "
        "dataclass, or a dict whose keys do not order: tf.function cannot key its traces "
        "on it and fails when called."
    )
    EXAMPLE_FUNCTION = "f"
    fact = "has_unhashable_arguments"
    fact_meaning = (
        "an argument `tf.function` cannot key its traces on (a set, a mutable dataclass, "
        "a dict of mixed keys)"
    )
    report_order = 100
    decision_order = 100

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """What compiling would change: only for a function that may be compiled and is not yet."""
        if not context.changes_on_compiling:
            return []
        return cls.findings(
            [
                *unhashable_arguments(context.index, context.facts, context.key),
                *unordered_dict_keys(context.index, context.facts, context.key),
            ]
        )
