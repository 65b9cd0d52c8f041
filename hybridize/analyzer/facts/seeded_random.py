"""Random draws a global seed makes reproducible, which compiling changes.

TensorFlow's stateful random ops (`tf.random.uniform`, `tf.nn.dropout`,
`tf.image.random_flip_left_right`...) take their op seed, when none is given, from the global
seed and a counter of the random ops created so far. Eagerly that counter lives in the eager
context; a `tf.function` numbers its ops in its own graph and leaves the eager counter alone.
So under `tf.random.set_seed(s)` the compiled function draws other numbers than the eager one
did, and every eager draw after it moves too (measured; the table is in
`frameworks.tensorflow_rules.GLOBAL_SEED_RANDOM_OPS`). A seeded test or a reproduced
experiment then sees other results: a behaviour change, not a crash.

The hazard exists only when the project makes the stream reproducible: it calls a global
seed setter somewhere (tests count), or has a `tf.test.TestCase`, whose `setUp` seeds every
test. Without a seed the draws are as random compiled as eagerly: nothing a program could
rely on changes, so there is no finding. Stateless ops, `tf.random.Generator` draws and Keras'
seeded layers give the same numbers compiled (measured) and are not in the table.

An op given its own `seed=` draws as eagerly only in one trace called alone: its stream lives
in its kernel, which eager ops of one seed share and every traced concrete function has anew.
So every instance of a compiled method, every retrace and every other function tracing the
same helper restarts it (measured, with or without a global seed:
`frameworks.tensorflow_rules.OP_SEEDED_STREAMS_RESTART_PER_TRACE`); such an op is a hazard
where one of those is shown (`_several_traces`), in any program.

PyTorch's random ops draw from the default generator `torch.manual_seed` seeds; Inductor draws
with kernels of its own instead, so the same holds there (measured:
`frameworks.torch_rules.GLOBAL_SEED_RANDOM_OPS`), and a `generator=` is the op's own seed.
So do the `sample`/`rsample` methods of the `torch.distributions` classes that draw with such
an op (`Uniform`, `Bernoulli`...; not `Normal`, whose `torch.normal` Inductor leaves to eager:
`frameworks.torch_rules.SEEDED_DISTRIBUTION_SAMPLERS`), called on an object of such a class or
of a project class inheriting the sampler from one; they take no generator.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import cast

from hybridize.analyzer.facts.cited_lines import cited_line
from hybridize.analyzer.facts.evaluator import ResolvedCall, TensorFacts, get_evaluator
from hybridize.analyzer.facts.evidence import Evidence
from hybridize.analyzer.facts.frozen_state import traced_with
from hybridize.analyzer.facts.predicates import local_values, walk_syms
from hybridize.analyzer.facts.refs import is_ext_ref
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.scan_memo import per_function, per_module
from hybridize.analyzer.facts.values import NONE_ATOM, canonical, is_ext_atom
from hybridize.analyzer.facts.varying_shapes import varying_shapes
from hybridize.analyzer.frameworks import lookup_parameters, written_name
from hybridize.analyzer.frameworks.api_info import ApiInfo
from hybridize.analyzer.frameworks.framework import FRAMEWORKS, framework_of_api
from hybridize.analyzer.frameworks.namespaces import canonical_external
from hybridize.analyzer.summaries.ir import FunctionSummary, ModuleSummary, Sym
from hybridize.analyzer.summaries.keys import MODULE_CODE, ClassKey, FunctionKey
from hybridize.analyzer.summaries.syms import (
    NONE,
    is_attr,
    is_call,
    is_lit,
    is_param,
    kind_of,
    sym_name,
)

GLOBAL_SEED_SETTERS = frozenset(name for f in FRAMEWORKS for name in f.global_seed_setters)
"""Every framework's calls that set its global random seed."""
SEEDING_TEST_CASES = frozenset(name for f in FRAMEWORKS for name in f.seeding_test_cases)
"""Every framework's test case classes that set its global seed before each test."""


@dataclass(frozen=True, slots=True)
class GlobalSeeding:
    """Where the project sets the global seed (the first place found, in file order)."""

    how: str
    """What seeds: "`tf.random.set_seed`", or "the `tf.test.TestCase` `Foo`" (its setUp)."""
    relpath: str
    line: int

    def describe(self) -> str:
        return f"{self.how} ({self.relpath}, line {cited_line(self.relpath, self.line)})"


def global_seeding(index: ProjectIndex, facts: TensorFacts) -> GlobalSeeding | None:
    """Where the project makes a framework's global random stream reproducible, if it does:
    a call of a global seed setter in any module (test files included), else a subclass of
    a test case that seeds in its `setUp`. Memoised per solution: the engine's project facts
    and every function's HY411 detection ask it."""
    cached = facts.cache.get("global_seeding")
    if isinstance(cached, tuple):
        return cast("GlobalSeeding | None", cached[0])
    found = _global_seeding(index, facts)
    facts.cache["global_seeding"] = (found,)
    return found


def _global_seeding(index: ProjectIndex, facts: TensorFacts) -> GlobalSeeding | None:
    setters = per_function(facts, "global_seed_setters", _seed_setter)
    for relpath in sorted({key.file for key in setters} & index.modules.keys()):
        module = index.modules[relpath]
        for qualname in [MODULE_CODE, *module.functions]:
            found = setters.get(FunctionKey(relpath, qualname))
            if found is not None:
                return GlobalSeeding(f"`{_display(found[0])}`", relpath, found[1])
    cases = per_module(facts, index, "seeding_test_cases", lambda r, m: _seeding_cases(index, r, m))
    for relpath in sorted(cases):
        class_qualname, line, base = cases[relpath][0]
        how = f"the {_display(base)} `{class_qualname}` (its setUp seeds every test)"
        return GlobalSeeding(how, relpath, line)
    return None


def _seed_setter(_key: FunctionKey, calls: list[ResolvedCall]) -> tuple[str, int] | None:
    """The first global seed setter a function calls, and its line."""
    for resolved in calls:
        for info in resolved.api:
            if info.name in GLOBAL_SEED_SETTERS:
                return info.name, resolved.site.span.start_line
    return None


def _seeding_cases(
    index: ProjectIndex, relpath: str, module: ModuleSummary
) -> list[tuple[str, int, str]]:
    """The classes of a module that are seeding test cases, with their lines and the test
    case they derive from."""
    found = []
    for class_qualname in module.classes:
        class_key = FunctionKey(relpath, class_qualname)
        base = _seeding_test_case(index, class_key)
        if base is not None:
            found.append((class_qualname, index.klass(class_key).line, base))
    return found


def seeded_random_draws(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, seeding: GlobalSeeding | None
) -> list[Evidence]:
    """A draw whose numbers compiling changes, in the function or in a project function
    traced with it: one from a global-seeded random op without its own seed, when the project
    seeds the global stream; or one from an op given its own seed, where that framework's
    traces restart the seed's stream (TensorFlow) and the function may be traced more than
    once (`_several_traces`)."""
    fn = index.function(key)
    if fn.is_lambda or key.is_module_code:
        return []
    for reader, via, entry in traced_with(index, facts, key):
        for draw in _global_draws(index, facts, reader):
            resolved = draw.resolved
            where = (
                ""
                if reader == key
                else f" (line {cited_line(reader.file, resolved.site.span.start_line)})"
            )
            span = resolved.site.span if reader == key else entry
            if draw.op is None or not _has_op_seed(index, facts, reader, resolved, draw.op):
                if seeding is None:
                    continue
                return [
                    Evidence(
                        f"{via}draws `{_display(draw.name)}`{where} without an op seed while "
                        f"the project seeds the global random stream with "
                        f"{seeding.describe()}: compiled, it draws other numbers and shifts "
                        "the eager draws after it",
                        span,
                    )
                ]
            owner = framework_of_api(draw.op.framework)
            if owner is None or not owner.op_seeded_streams_restart_per_trace:
                continue
            traces = _several_traces(index, facts, key, reader)
            why = (
                f"{traces}: each trace's op restarts the seed's stream, so compiled they draw "
                "the same numbers where eagerly they continue one stream"
                if traces is not None
                else None
            )
            if why is None and (shared := _shared_seed(index, facts, key, draw)) is not None:
                why = (
                    f"{shared}: eagerly the two continue one stream; compiled, this function's "
                    "op restarts it, so they draw the same numbers"
                )
            if why is not None:
                return [
                    Evidence(
                        f"{via}draws `{_display(draw.name)}`{where} with an op seed, and {why}",
                        span,
                    )
                ]
    return []


def _several_traces(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, reader: FunctionKey
) -> str | None:
    """Why the compiled function, or the helper drawing in its trace, may be traced more than
    once, in words; None when nothing shows it. Every instance of a class traces its own copy
    of a compiled method; a parameter whose shape changes between call sites traces again;
    a helper several functions call is traced into each of them (eagerly, every call of it
    continues one stream)."""
    fn = index.function(key)
    if fn.binds_receiver and fn.class_qualname is not None:
        return f"every instance of `{fn.class_qualname}` traces its own `{fn.name}`"
    varying = varying_shapes(index, facts, key)
    if varying:
        return f"`{varying[0].parameter}` changes shape ({varying[0].evidence}): it retraces"
    if reader != key:
        callers = sorted(facts.callers.get(reader, set()) - {reader}, key=str)
        if len(callers) > 1:
            names = " and ".join(f"`{c.qualname}`" for c in callers[:2])
            return f"{names} both call `{reader.qualname}`, each tracing its own copy"
    return None


@dataclass(frozen=True, slots=True)
class GlobalDraw:
    """A call that draws from the global random stream."""

    resolved: ResolvedCall
    name: str
    """What draws, by canonical name: `torch.rand`, `torch.distributions.Uniform.rsample`."""
    op: ApiInfo | None
    """The random op called, which may take an op seed; None for a distribution's sampler,
    which takes none."""


def _global_draws(index: ProjectIndex, facts: TensorFacts, reader: FunctionKey) -> list[GlobalDraw]:
    """The calls of `reader` that draw from the global random stream, in call order: those of
    a global-seeded random op (the first such op each calls) and those of a distribution's
    sampler that draws with one. Memoised per reader: every function that calls it (to
    MAX_HELPER_DEPTH) asks again, and most functions draw nothing."""
    memo = facts.cache.setdefault("global_random_draws", {})
    assert isinstance(memo, dict)
    found = memo.get(reader)
    if found is None:
        found = memo[reader] = []
        samplers = index.function_framework(reader).seeded_distribution_samplers
        for resolved in facts.calls.get(reader, []):
            op = next((i for i in resolved.api if i.global_random), None)
            if op is not None:
                found.append(GlobalDraw(resolved, op.name, op))
            elif samplers and (sampler := _distribution_sampler(index, facts, reader, resolved)):
                found.append(GlobalDraw(resolved, sampler, None))
    return found


def _distribution_sampler(
    index: ProjectIndex, facts: TensorFacts, reader: FunctionKey, resolved: ResolvedCall
) -> str | None:
    """The sampler a call runs (`torch.distributions.Uniform.rsample`) when it calls a sampling
    method that draws from the global stream (`seeded_distribution_samplers`) on a
    distribution: one constructed in the function (`Uniform(a, b).rsample()`, through locals),
    or an instance of a project class that inherits the sampler from such a class (a project
    class that defines the method runs its own code, which is read as a callee)."""
    callee = resolved.site.callee
    if not is_attr(callee) or resolved.targets:
        return None
    method = callee[2]
    samplers = index.function_framework(reader).seeded_distribution_samplers
    if not any(method in methods for methods in samplers.values()):
        return None  # most method calls: no walk of the receiver's values
    for name in _distribution_classes(index, facts, reader, callee[1]):
        if method in samplers.get(name, ()):
            return f"{name}.{method}"
    return None


def _distribution_classes(
    index: ProjectIndex, facts: TensorFacts, reader: FunctionKey, receiver: Sym
) -> list[str]:
    """The framework distribution classes whose methods a receiver's may be: the classes of
    the framework constructions it comes from in `reader` (through locals), and the framework
    bases of the project classes of the instances it may be, in order."""
    fn = index.function(reader)
    by_index = {r.index: r for r in facts.calls.get(reader, [])}
    found: list[str] = []
    for sym in walk_syms([receiver], partial(local_values, fn)):
        constructed = by_index.get(sym[1]) if is_call(sym) else None
        if constructed is None:
            continue
        found += [i.name for i in constructed.api if i.kind == "class"]
        found += sorted(
            canonical_external(a[1]) for a in constructed.callee_atoms if is_ext_atom(a)
        )
        found += [
            base
            for kind, target in constructed.targets
            if kind == "class"
            for base in _framework_bases(index, target)
        ]
    instances = get_evaluator(index, facts, reader).eval(receiver)
    for atom in sorted(instances, key=canonical):  # in the same order in every run
        if atom[:2] == ("obj", "instance") and isinstance(atom[2], FunctionKey):
            found += _framework_bases(index, atom[2])
    return found


def _framework_bases(index: ProjectIndex, class_key: ClassKey) -> list[str]:
    """The framework classes a project class derives from, by canonical name (through its
    project bases)."""
    return [canonical_external(ref[1]) for ref in index.external_bases(class_key)]


def _has_op_seed(
    index: ProjectIndex,
    facts: TensorFacts,
    reader: FunctionKey,
    resolved: ResolvedCall,
    op: ApiInfo,
) -> bool:
    """The call passes an op-level seed that cannot be None: its draws then do not depend
    on the op counter, and are the same compiled. A seed handed on from a parameter that
    defaults to None (`def random_crop(..., seed=None)`), or that a caller passes as None,
    may be None: then the op draws from the global stream like one without a seed."""
    if resolved.site.has_star_args:
        return True  # the seed may be among the unpacked arguments: no evidence of a hazard
    given = _seed_given(resolved, op)
    if given is None or given[:2] == ("lit", "none"):
        return False
    return not _may_be_none(index, facts, reader, given)


def _seed_given(resolved: ResolvedCall, op: ApiInfo) -> Sym | None:
    """What the call passes as the op's seed, by keyword or by position, or None."""
    owner = framework_of_api(op.framework)
    seed_argument = owner.op_seed_argument if owner is not None else None
    return None if seed_argument is None else _argument(resolved, op, seed_argument)


def _argument(resolved: ResolvedCall, op: ApiInfo, name: str) -> Sym | None:
    """What the call passes as the op's parameter `name`, by keyword or by position."""
    return resolved.site.named_argument(name, lookup_parameters(op.name) or ())


SeededOp = tuple[str, int, Sym | None]
"""A random op by canonical name, the integer op seed a call writes for it and the `dtype`
it writes (None: the op's default). Eagerly, the calls of one op with one seed and one dtype
share a kernel (measured: the dtype is the kernel's, the shape an input)."""


def _literal_seeds(_key: FunctionKey, calls: list[ResolvedCall]) -> tuple[SeededOp, ...]:
    """The (op, seed) pairs a function's calls draw with: a stateful random op given an
    integer literal as its op seed (`tf.random.uniform([], seed=7)`)."""
    found: dict[SeededOp, None] = {}
    for resolved in calls:
        op = next((i for i in resolved.api if i.global_random), None)
        if op is None or resolved.site.has_star_args:
            continue
        pair = _seeded_op(resolved, op)
        if pair is not None:
            found[pair] = None
    return tuple(found)


def _seeded_op(resolved: ResolvedCall, op: ApiInfo) -> SeededOp | None:
    """The call's op, integer literal seed and dtype; None without such a seed."""
    given = _seed_given(resolved, op)
    if given is None or not is_lit(given) or given[1] != "int" or given[2] is None:
        return None
    return (op.name, cast("int", given[2]), _argument(resolved, op, "dtype"))


def shared_op_seeds(facts: TensorFacts) -> dict[SeededOp, tuple[FunctionKey, ...]]:
    """The (op, literal seed) pairs that more than one function of the project draws with,
    each with those functions in key order: eagerly the ops of one pair share one kernel and
    continue one stream, compiled every function's op has its own and restarts it
    (`OP_SEEDED_STREAMS_RESTART_PER_TRACE`). Memoised per solution; each function's pairs are
    kept across updates (`per_function`)."""
    memo = facts.cache.get(SHARED_OP_SEEDS)
    if isinstance(memo, dict):
        return memo
    by_pair: dict[SeededOp, list[FunctionKey]] = {}
    for key, pairs in per_function(facts, SHARED_OP_SEEDS, _literal_seeds).items():
        for pair in pairs:
            by_pair.setdefault(pair, []).append(key)
    shared = {
        pair: tuple(sorted(keys, key=str))
        for pair, keys in sorted(by_pair.items(), key=lambda item: repr(item[0]))
        if len(keys) > 1
    }
    facts.cache[SHARED_OP_SEEDS] = shared
    return shared


SHARED_OP_SEEDS = "shared_op_seeds"
"""The `facts.cache` entry (and `per_function` scan) of `shared_op_seeds`."""


def _shared_seed(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, draw: GlobalDraw
) -> str | None:
    """Another function drawing with the same op and the same literal op seed as `draw`,
    outside the trace of `key`, in words; None when there is none."""
    if draw.op is None or draw.resolved.site.has_star_args:
        return None
    pair = _seeded_op(draw.resolved, draw.op)
    if pair is None:
        return None
    others = shared_op_seeds(facts).get(pair, ())
    traced = {reader for reader, _, _ in traced_with(index, facts, key)}
    for other in others:
        if other not in traced:
            where = "" if other.file == key.file else f" ({other.file})"
            return f"`{other.qualname}`{where} draws it with the same seed ({pair[1]})"
    return None


def _may_be_none(index: ProjectIndex, facts: TensorFacts, reader: FunctionKey, value: Sym) -> bool:
    """Whether a seed argument may be None: a parameter defaulting to None (a caller may
    leave it out) that reaches the call through any of a local's definitions or a
    conditional's alternatives, or a value some caller passes as None.

    Every definition counts, not only a local assigned once: `if stateless: seed =
    tf.convert_to_tensor(seed)` leaves the parameter itself as the seed on the other branch,
    where it is still None when the caller left it out."""
    fn = index.function(reader)
    if _reaches_none_default(fn, value):
        return True
    if any(
        _attribute_may_be_none(index, fn, reader, reached)
        for reached in walk_syms((value,), partial(_definitions, fn))
        if is_attr(reached)
    ):
        return True
    return NONE_ATOM in get_evaluator(index, facts, reader).eval(value)


def _definitions(fn: FunctionSummary, sym: Sym) -> Sequence[Sym]:
    """What a value may be in `fn`: a conditional's alternatives, a local's definitions."""
    return sym[1] if kind_of(sym) == "cond" else local_values(fn, sym)


def _reaches_none_default(fn: FunctionSummary, value: Sym) -> bool:
    """A parameter of `fn` defaulting to None reaches `value` through any definition."""
    defaults_to_none = {p.name for p in fn.params if p.default == NONE}
    return bool(defaults_to_none) and any(
        is_param(reached) and sym_name(reached) in defaults_to_none
        for reached in walk_syms((value,), partial(_definitions, fn))
    )


def _attribute_may_be_none(
    index: ProjectIndex, fn: FunctionSummary, reader: FunctionKey, value: Sym
) -> bool:
    """An attribute of the receiver (`seed=self.seed`) that a method of its class (through
    project bases) sets to None or to a parameter defaulting to None (`def __init__(self,
    seed=None): self.seed = seed`): a layer built without a seed hands the op None."""
    if fn.class_qualname is None or not fn.binds_receiver or not fn.params:
        return False
    if not _is_receiver(value[1], fn):
        return False
    name = value[2]
    for class_key in index.mro(FunctionKey(reader.file, fn.class_qualname)):
        module = index.modules.get(class_key.file)
        if module is None:
            continue
        for method in module.functions.values():
            if method.class_qualname != class_key.qualname or not method.binds_receiver:
                continue
            for store in method.stores:
                if (
                    store.kind == "attr"
                    and store.name == name
                    and _is_receiver(store.target, method)
                    and (store.value == NONE or _reaches_none_default(method, store.value))
                ):
                    return True
    return False


def _is_receiver(sym: Sym, method: FunctionSummary) -> bool:
    """`sym` reads the method's receiver (`self`), which the body does not rebind."""
    return (
        kind_of(sym) in ("param", "local")
        and bool(method.params)
        and sym[1] == method.params[0].name
        and all(is_param(v) for v in method.locals.get(method.params[0].name, ()))
    )


def _seeding_test_case(index: ProjectIndex, class_key: ClassKey) -> str | None:
    """The test case that seeds in setUp the class derives from (through project classes),
    by its canonical name; None when it derives from none."""
    for project_class in index.mro(class_key):
        for ref in index.base_refs(project_class):
            if is_ext_ref(ref) and (base := canonical_external(ref[1])) in SEEDING_TEST_CASES:
                return base
    return None


def _display(name: str) -> str:
    """`tensorflow.random.uniform` as written in code: `tf.random.uniform`; a module's call
    (`torch.nn.Dropout.__call__`) by its class."""
    return written_name(name.removesuffix(".__call__"))
