"""Tensor parameters whose shapes change from call to call (issue 34's retracing class 2).

A compiled function specialises what it compiles on the static shapes of the tensors it is
given: `tf.function` traces a new graph for every new shape (a sequence one token longer at
every decoding step traces at every step), `torch.compile` recompiles at the first new shape
and then compiles sizes as symbols. The decorator's shape-generalising argument
(`Framework.shape_generalising_argument`: `reduce_retracing=True`, `dynamic=True`) avoids
that, and the rewrite writes it where this module finds evidence (HY014). Evidence is positive
only:

- the call sites pass a parameter tensors of different static shapes (`param_atoms`: one
  site passes `[8, 32]`, another `[3, 32]`);
- a call inside a loop passes a local that a loop of the caller rebinds with a value grown
  from itself (`cache = tf.concat([cache, step], axis=1)`), read as `loop_shapes` reads growth
  (`frameworks.output_shapes`): a larger tensor at every pass.

- a call inside a loop passes a batch of the caller's own data (`batches_of_data`): the loop's
  target where the loop iterates over something built from a parameter of the caller
  (`for chunk in split(p, batch)`, `for x in np.array_split(p, k)`), or a slice of a parameter
  bounded by the loop's target (`p[i:i + batch]`). Its length follows the data the caller is
  given (the last batch shorter, and every call with other data another length), and a
  function the caller passes what it builds from such a batch takes it too, so down the calls
  (tf-pwa's `cal_angle_from_particle`, three calls below its batch loop: a trace per batch,
  15.6x slower plain; measured, TF 2.21). Iterating a parameter itself (`for x, y in
  dataset`) is not such evidence, nor a batch of a value built from constants.

A tensor whose shape is unknown at every site (`[None, 32]` at one site only) is no evidence:
the analysis does not know that its size changes.

The argument is safe only where no code of the trace needs a varying axis as a Python int
(`statically_read_axes`). Traced with `reduce_retracing=True`, the second shape leaves the
varying axes `None`: `range(x.shape[1])` raises TypeError (measured, TF 2.21); under
`dynamic=True` Dynamo specialises on a size read as an int and recompiles per size anyway.
Such a function gets neither the argument nor a plain decorator by default
(`shape_read_as_int`): a plain one would trace once per shape. Where the call sites' ranks
differ, the generalised trace has an unknown rank: a function that reads a varying
parameter's rank as a Python value (`p.shape.ndims`, `p.shape.dims is None`, `as_list()`;
`statically_read_ranks`), or calls one that reads a rank, is left alone the same way
(tensorflow-constrained-optimization's `_project_distribution_wrt_euclidean_norm`, called with
shapes (3,) and (3, 3), raised "distribution must have a known rank"; measured, TF 2.21).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import cast

from hybridize.analyzer.facts.evaluator import ResolvedCall, TensorFacts, callees, param_layout
from hybridize.analyzer.facts.frozen_state import traced_with
from hybridize.analyzer.facts.loop_shapes import growth_in_loops
from hybridize.analyzer.facts.predicates import local_values, made_of, walk_syms
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.signatures import (
    axes_read_through_rebound_names,
    statically_compared_shapes,
    statically_read_axes,
    statically_read_ranks,
    statically_read_slices,
)
from hybridize.analyzer.facts.values import is_tensor_atom
from hybridize.analyzer.summaries.ir import FunctionSummary, StatementLoop, Sym
from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.analyzer.summaries.syms import (
    call_index,
    is_call,
    is_item,
    is_lit,
    is_slice,
    item_base,
    item_index,
    kind_of,
    local_sym,
    name_sym,
    param_sym,
    slice_bounds,
)

MAX_SHOWN_SHAPES = 3
"""How many of the shapes the call sites pass a reason writes out."""


@dataclass(frozen=True, slots=True)
class VaryingShape:
    """A parameter whose tensor shapes change from call to call, and the evidence in words."""

    parameter: str
    evidence: str
    """What shows it: "call sites pass shapes (8, 32) and (3, 32)", "`decode` passes `cache`,
    which `tf.concat` grows at every pass of its loop"."""
    axes: frozenset[int] | None = None
    """The axes whose sizes differ, each counted from the start and from the end (`1` and
    `-2` of a rank-3 shape), where the call sites' shapes of one rank say so; None when not
    known (a loop's growth, ranks that differ): any axis may vary."""

    ranks_differ: bool = False
    """The call sites pass shapes of different ranks: generalised, the trace's rank is
    unknown (not only its axes)."""

    def varies(self, axis: int) -> bool:
        """Whether the axis read (negative counts from the end) may differ between calls."""
        return self.axes is None or axis in self.axes


def varying_shapes(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey
) -> tuple[VaryingShape, ...]:
    """The parameters of `key` whose tensor shapes change between calls, by name.
    Memoised per function per solution: the benefit model asks twice per function and HY014
    once more."""
    memo = facts.cache.setdefault("varying_shapes", {})
    assert isinstance(memo, dict)
    cached = memo.get(key)
    if cached is None:
        cached = memo[key] = _varying_shapes(index, facts, key)
    return cast("tuple[VaryingShape, ...]", cached)


def _varying_shapes(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey
) -> tuple[VaryingShape, ...]:
    found: dict[str, str] = {}
    axes: dict[str, frozenset[int] | None] = {}
    ranks_differ: set[str] = set()
    for name, atoms in sorted(facts.param_atoms.get(key, {}).items()):
        shapes = sorted(
            {a[2] for a in atoms if is_tensor_atom(a) and len(a) > 2 and a[2] is not None},
            key=repr,
        )
        if len(shapes) > 1:
            shown = [_shape(s) for s in shapes[:MAX_SHOWN_SHAPES]]
            more = ", ..." if len(shapes) > MAX_SHOWN_SHAPES else ""
            found[name] = f"call sites pass shapes {', '.join(shown[:-1])} and {shown[-1]}{more}"
            axes[name] = _differing_axes(shapes)
            if len({len(s) for s in shapes}) > 1:
                ranks_differ.add(name)
    for caller in sorted(facts.callers.get(key, ()), key=str):
        if caller == key:
            continue
        for parameter, why in _grown_in_caller_loops(index, facts, caller, key).items():
            found.setdefault(parameter, why)
    for parameter, why in batches_of_data(index, facts, key).items():
        found.setdefault(parameter, why)
    return tuple(
        VaryingShape(name, found[name], axes.get(name), name in ranks_differ)
        for name in sorted(found)
    )


def _differing_axes(shapes: list[tuple[int | None, ...]]) -> frozenset[int] | None:
    """The axes whose sizes differ among shapes of one rank (an unknown size differs); None
    when the ranks differ."""
    if len({len(s) for s in shapes}) != 1:
        return None
    rank = len(shapes[0])
    differing = [
        axis
        for axis in range(rank)
        if len({s[axis] for s in shapes}) > 1 or any(s[axis] is None for s in shapes)
    ]
    return frozenset(differing) | frozenset(axis - rank for axis in differing)


def _grown_in_caller_loops(
    index: ProjectIndex, facts: TensorFacts, caller: FunctionKey, key: FunctionKey
) -> dict[str, str]:
    """The parameters of `key` that a call inside a loop of `caller` fills with a local the
    caller's loops grow, with the reason."""
    if key not in _called_in_loops(index, facts, caller):
        return {}
    sites = [
        (resolved, kind)
        for resolved in facts.calls.get(caller, ())
        if resolved.site.in_loop
        for kind, target in callees(index, resolved)
        if target == key
    ]
    if not sites:
        return {}
    grown = growth_in_loops(index, facts, caller)
    if not grown:
        return {}
    found: dict[str, str] = {}
    owner = index.function(caller).qualname
    for resolved, kind in sites:
        for parameter, argument in bound_arguments(index, key, resolved, kind).items():
            name = argument[1] if kind_of(argument) in ("local", "name") else None
            if name in grown and parameter not in found:
                found[parameter] = f"`{owner}` passes `{name}`, which {grown[name]}"
    return found


MAX_PASSED_ON = 4
"""How many calls below the loop that splits the data a batch is followed (each a call that
passes on what it builds from its batch parameter)."""


def batches_of_data(index: ProjectIndex, facts: TensorFacts, key: FunctionKey) -> dict[str, str]:
    """The parameters of `key` that receive a batch of a caller's data at a call inside a loop,
    or what a caller builds from such a parameter of its own (up to `MAX_PASSED_ON` calls
    down), with why: their lengths follow the data's, a new one per batch."""
    return {
        name: why
        for name, (why, _root) in _batches_of_data(index, facts, key, MAX_PASSED_ON).items()
    }


BATCHES = "batches_of_data"
"""`facts.cache` key of `_batches_of_data`'s memo, by function and depth: every function's
varying shapes ask it of their callers again, up to `MAX_PASSED_ON` calls up."""


def _batches_of_data(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, depth: int
) -> dict[str, tuple[str, str]]:
    """By parameter: why, and the batching function's words a caller further down repeats
    (memoised per solution: read, never changed, by the callers)."""
    memo = cast(
        "dict[tuple[FunctionKey, int], dict[str, tuple[str, str]]]",
        facts.cache.setdefault(BATCHES, {}),
    )
    found = memo.get((key, depth))
    if found is None:
        found = memo[key, depth] = _batches_of_data_uncached(index, facts, key, depth)
    return found


def _batches_of_data_uncached(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, depth: int
) -> dict[str, tuple[str, str]]:
    found: dict[str, tuple[str, str]] = {}
    for caller in sorted(facts.callers.get(key, ()), key=str):
        if caller == key:
            continue
        owner = index.function(caller).qualname
        for parameter, why in _batches_in_caller_loops(index, facts, caller, key).items():
            root = f"a batch `{owner}` cuts from its data per pass of a loop"
            found.setdefault(parameter, (f"`{owner}` passes {why}", root))
        if depth <= 1:
            continue
        upstream = _batches_of_data(index, facts, caller, depth - 1)
        if not upstream:
            continue
        fn = index.function(caller)
        for resolved in facts.calls.get(caller, ()):
            for kind, target in callees(index, resolved):
                if target != key:
                    continue
                for parameter, argument in bound_arguments(index, key, resolved, kind).items():
                    if parameter in found:
                        continue
                    source = next(
                        (p for p in sorted(upstream) if built_from(fn, argument, {param_sym(p)})),
                        None,
                    )
                    if source is not None:
                        root = upstream[source][1]
                        found[parameter] = (
                            f"`{owner}` passes it what it builds from its `{source}`, {root}",
                            root,
                        )
    return found


def _batches_in_caller_loops(
    index: ProjectIndex, facts: TensorFacts, caller: FunctionKey, key: FunctionKey
) -> dict[str, str]:
    """The parameters of `key` that a call inside a `for` loop of `caller` fills with a batch
    of the caller's parameters: the loop's target where the loop iterates a value built from
    a parameter (not the parameter itself), or a slice of a parameter bounded by the target."""
    if key not in _called_in_loops(index, facts, caller):
        return {}
    fn = index.function(caller)
    # A parameter with a literal default (`batch=64`, `axis=0`) is a setting, not data.
    data = {
        param_sym(p.name) for p in fn.explicit_params if p.default is None or not is_lit(p.default)
    }
    if not data or not _runs_repeatedly(index, facts, caller, MAX_PASSED_ON):
        return {}
    found: dict[str, str] = {}
    for loops, parameter, argument in calls_in_for_loops(index, facts, caller, key):
        why = _batch(index, facts, caller, argument, loops, data)
        if why is not None and parameter not in found:
            found[parameter] = why
    return found


def calls_in_for_loops(
    index: ProjectIndex, facts: TensorFacts, caller: FunctionKey, key: FunctionKey
) -> Iterator[tuple[list[StatementLoop], str, Sym]]:
    """For each call of `key` inside `for` loops of `caller`: the loops enclosing it, and each
    parameter of `key` with the argument it binds (`bound_arguments`)."""
    fn = index.function(caller)
    for resolved in facts.calls.get(caller, ()):
        site = resolved.site
        if not site.in_loop:
            continue
        loops = [
            loop
            for loop in fn.statement_loops
            if loop.kind == "for" and loop.targets and loop.span.encloses(site.span)
        ]
        if not loops:
            continue
        for kind, target in callees(index, resolved):
            if target == key:
                for parameter, argument in bound_arguments(index, key, resolved, kind).items():
                    yield loops, parameter, argument


RUNS_REPEATEDLY = "runs_repeatedly"
"""`facts.cache` key of `_runs_repeatedly`'s memo, by function and depth."""
CALLED_IN_LOOPS = "called_in_loops"
"""`facts.cache` key of `_called_in_loops`' memo, by caller."""


def _runs_repeatedly(index: ProjectIndex, facts: TensorFacts, key: FunctionKey, depth: int) -> bool:
    """Whether the function is called inside a loop, or by a function that is (up to `depth`
    calls up): called once, its batches of one data set take at most two lengths (the full
    one and the last), a trace each with or without the argument; called again and again,
    every call's data brings a new last length. Memoised per solution: each function's
    callers ask it again, up to `depth` calls up."""
    memo = cast("dict[tuple[FunctionKey, int], bool]", facts.cache.setdefault(RUNS_REPEATEDLY, {}))
    found = memo.get((key, depth))
    if found is None:
        found = memo[key, depth] = any(
            key in _called_in_loops(index, facts, caller)
            or (depth > 1 and _runs_repeatedly(index, facts, caller, depth - 1))
            for caller in facts.callers.get(key, ())
            if caller != key
        )
    return found


def _called_in_loops(
    index: ProjectIndex, facts: TensorFacts, caller: FunctionKey
) -> frozenset[FunctionKey]:
    """The project functions `caller` calls inside a loop (memoised per solution)."""
    memo = cast(
        "dict[FunctionKey, frozenset[FunctionKey]]", facts.cache.setdefault(CALLED_IN_LOOPS, {})
    )
    found = memo.get(caller)
    if found is None:
        found = memo[caller] = frozenset(
            target
            for resolved in facts.calls.get(caller, ())
            if resolved.site.in_loop
            for _, target in callees(index, resolved)
        )
    return found


def _batch(
    index: ProjectIndex,
    facts: TensorFacts,
    caller: FunctionKey,
    argument: Sym,
    loops: list[StatementLoop],
    data: set[Sym],
) -> str | None:
    """Why `argument` is a batch of the data (`data`: the caller's parameters) in one of the
    `loops` enclosing the call, in words; None when it is not."""
    fn = index.function(caller)
    for loop in loops:
        targets = {local_sym(t) for t in loop.targets} | {name_sym(t) for t in loop.targets}
        if (
            _from_project_generator(index, facts, caller, loop.header, MAX_PASSED_ON)
            and built_from(fn, argument, targets)
            and built_from(fn, loop.header, data)
        ):
            shown = " or ".join(f"`{t}`" for t in sorted(loop.targets))
            return (
                f"{shown} (or what it builds from it), a batch of its own data per pass of a "
                "loop over a generator of the project given its parameters: its length "
                "follows the data's"
            )
        index_ = item_index(argument) if is_item(argument) else None
        if (
            is_item(argument)
            and index_ is not None
            and is_slice(index_)
            and built_from(fn, item_base(argument), data)
            and any(built_from(fn, bound, targets) for bound in slice_bounds(index_))
        ):
            return (
                "a slice of its own data bounded by the target of its loop: its length "
                "follows the data's (the last slice shorter)"
            )
    return None


def built_from(fn: FunctionSummary, sym: Sym, sources: set[Sym]) -> bool:
    """Whether `sym` is, or is built from, one of `sources` (through locals, calls' arguments,
    containers and dicts: `{"p": batch}` carries the batch)."""

    def follow(current: Sym) -> Iterable[Sym]:
        kind = kind_of(current)
        if kind in ("local", "name"):
            return local_values(fn, current)
        if is_call(current):
            site = fn.calls[call_index(current)]
            return (*site.args, *(value for _, value in site.kwargs))
        return made_of(current)

    return any(current in sources for current in walk_syms((sym,), follow))


def _from_project_generator(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, value: Sym, depth: int
) -> bool:
    """Whether `value` (of `key`'s body) is what a call of a project generator function
    returns, directly or through the functions returning it (up to `depth` calls): the
    caller's own way of cutting its data into batches. A list, a `zip` or a `range` of the
    caller's parameters is not: their elements are the items the caller was given, or
    Python numbers (a value per pass, HY201's class)."""
    if not is_call(value) or depth < 1:
        return False
    site = index.function(key).calls[call_index(value)]
    for resolved in facts.calls.get(key, ()):
        if resolved.site is not site and resolved.site != site:
            continue
        for _kind, target in callees(index, resolved):
            callee = index.function(target)
            if callee.is_generator or any(
                _from_project_generator(index, facts, target, returned, depth - 1)
                for returned in callee.returns
            ):
                return True
    return False


def bound_arguments(
    index: ProjectIndex, key: FunctionKey, resolved: ResolvedCall, kind: str
) -> dict[str, Sym]:
    """The arguments of a call as written, by the parameter of `key` each binds (positional
    and keyword; what `*args` or `**kwargs` collect is left out)."""
    fn = index.function(key)
    layout = param_layout(fn, kind in ("method", "layer_call", "class"))
    site = resolved.site
    bound: dict[str, Sym] = {}
    if not site.has_star_args:
        for position, argument in enumerate(site.args[: len(layout.positional)]):
            bound[layout.positional[position]] = argument
    for name, argument in site.kwargs:
        if name in layout.keywords:
            bound[name] = argument
    return bound


def _shape(shape: tuple[int | None, ...]) -> str:
    """A static shape as the reasons write it: `(8, None)`."""
    inner = ", ".join("None" if d is None else str(d) for d in shape)
    return f"({inner},)" if len(shape) == 1 else f"({inner})"


SHAPES_READ_AS_INTS = "shapes_read_as_ints"
"""`facts.cache` key of `shape_read_as_int`'s memo."""


def shape_read_as_int(index: ProjectIndex, facts: TensorFacts, key: FunctionKey) -> str | None:
    """Why the shape-generalising argument cannot be written for `key`'s varying shapes
    (`varying_shapes`; None when it can, or none varies): the function reads an axis of a
    varying parameter that may differ between calls as a Python value (`p.shape[i]`,
    `len(p)`, `p.shape[1:]`), or a project function traced with it (`traced_with`) reads
    some parameter's axes so (conservative: which argument reaches which parameter is not
    followed). Memoised per function per solution: HY014 and the benefit model both ask."""
    memo = cast("dict[FunctionKey, str | None]", facts.cache.setdefault(SHAPES_READ_AS_INTS, {}))
    if key not in memo:
        varying = varying_shapes(index, facts, key)
        memo[key] = _shape_read_as_int(index, facts, key, varying) if varying else None
    return memo[key]


def _shape_read_as_int(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, varying: tuple[VaryingShape, ...]
) -> str | None:
    by_name = {v.parameter: v for v in varying}
    axes, slices = _shape_reads(index, facts, key)
    own = sorted(
        {n for n, axis in axes if n in by_name and by_name[n].varies(axis)}
        | {n for n, _ in slices if n in by_name}
    )
    if own:
        return f"it reads the shape of `{own[0]}` as Python ints"
    rebound = sorted(set(by_name) & axes_read_through_rebound_names(index.function(key)))
    if rebound:
        # `x = tf.convert_to_tensor(x)` then `range(x.shape[-1])` (edward2's one_hot_minus):
        # relaxed, the axis is None and `range(None)` raises TypeError (measured, TF 2.21).
        return f"it rebinds `{rebound[0]}` and reads its shape as Python ints"
    compared = sorted(set(by_name) & statically_compared_shapes(index.function(key)))
    if compared:
        return (
            f"it compares the static shape of `{compared[0]}` as a Python value, which the "
            "generalised trace leaves unknown"
        )
    ranked = sorted(v.parameter for v in varying if v.ranks_differ)
    rank_reads = statically_read_ranks(index.function(key)) if ranked else set()
    own_ranks = sorted(set(ranked) & rank_reads)
    if own_ranks:
        return f"it reads the rank of `{own_ranks[0]}`, which differs between calls, statically"
    if ranked and "" in rank_reads:
        # A rank read of a tensor the analysis does not tie to one parameter (a parameter
        # rebound later in the body): maybe the varying one.
        return f"it reads a rank statically, and the rank of `{ranked[0]}` differs between calls"
    for callee_key, _via, _entry in traced_with(index, facts, key):
        if callee_key == key:
            continue
        if (
            any(_shape_reads(index, facts, callee_key))
            or axes_read_through_rebound_names(index.function(callee_key))
            or statically_compared_shapes(index.function(callee_key))
        ):
            callee = index.function(callee_key)
            return f"`{callee.qualname}`, which it calls, reads shapes as Python ints"
        if ranked and statically_read_ranks(index.function(callee_key)):
            callee = index.function(callee_key)
            return f"`{callee.qualname}`, which it calls, reads ranks statically"
    return None


SHAPE_READS = "varying_shapes_reads"
"""`facts.cache` key of `_shape_reads`' memo."""


def _shape_reads(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey
) -> tuple[set[tuple[str, int]], set[tuple[str, int]]]:
    """The axes and the slices of shapes the function reads as Python values
    (`statically_read_axes`, `statically_read_slices`), memoised per function for the
    analysis (`facts.cache` is emptied on every update): every function traced with a
    varying one asks again for the helpers it calls."""
    memo = cast(
        dict[FunctionKey, tuple[set[tuple[str, int]], set[tuple[str, int]]]],
        facts.cache.setdefault(SHAPE_READS, {}),
    )
    found = memo.get(key)
    if found is None:
        fn = index.function(key)
        found = memo[key] = (statically_read_axes(fn), statically_read_slices(fn))
    return found
