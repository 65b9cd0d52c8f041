"""Structured arguments (a dict, list or tuple of tensors) and what they cost a compiled call.

`tf.function` flattens a structured argument into its leaves at every call and computes the
trace type of each (None leaves too) to find its concrete function: a call given a dict of N
tensors costs more than one given a tensor (`CallCosts.per_leaf`; measured, TF 2.21). It opens
a named tuple and an attrs instance field by field as it does a tuple, not a dataclass
(`CallCosts.flattened_records`). A `torch.compile`d call checks a guard on each tensor the
frame reads of a structure and passes it in, about what an argument of its own costs, and
nothing for a leaf it does not read (`CallCosts.leaves_read_only`; measured, torch 2.13).
`structure_leaves` counts the leaves where the call sites show the structure: a dict or list
display, a dict the caller fills key by key, a record built by its constructor, nested ones.

A function called once per element of a Python list of such structures
(`elements_of_lists`: `for data_dict in data_dicts: f(data_dict)`) is given, at every call,
the tensors of another element: graphs, sequences or samples of their own sizes, or Python
values of their own. Each new shape or value keys a trace of its own (graph-nets'
`_populate_number_fields`, called per graph of a batch: 99 traces for 100 calls, 35-100x
slower compiled; measured, TF 2.21). It is the per-batch class of `varying_shapes.
batches_of_data` for a list the program builds of its data rather than a batch it cuts.
Iterating a data pipeline (`for batch in dataset`: fixed batch sizes) is not such a list:
the iterable must be a list or tuple the caller, or a function calling it, builds.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import cast

from hybridize.analyzer.facts.evaluator import ResolvedCall, TensorFacts, callees
from hybridize.analyzer.facts.hashability import (
    is_namedtuple_class,
    names_namedtuple,
    opened_record,
)
from hybridize.analyzer.facts.predicates import local_values, made_of, walk_syms
from hybridize.analyzer.facts.refs import ext_dotted, is_ext_ref
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.varying_shapes import (
    bound_arguments,
    built_from,
    calls_in_for_loops,
)
from hybridize.analyzer.frameworks.call_costs import CallCosts
from hybridize.analyzer.summaries.ir import FunctionSummary, Sym
from hybridize.analyzer.summaries.keys import ClassKey, FunctionKey
from hybridize.analyzer.summaries.syms import (
    attr_base,
    attr_name,
    call_index,
    is_attr,
    is_call,
    is_dict,
    is_item,
    is_lit,
    is_param,
    is_seq,
    item_base,
    item_index,
    kind_of,
    lit_type,
    local_sym,
    name_sym,
    param_sym,
    seq_kind,
    sym_name,
)

STRUCTURE_METHODS = frozenset({"get", "items", "values", "keys", "copy"})
"""Methods of a mapping whose call on a parameter shows that the function takes a dict."""

LIST_DEPTH = 3
"""How many calls up (callers passing a parameter on) or down (project functions returning
it) `_python_list` follows an iterable."""

LEAF_DEPTH = 3
"""How deep `structure_leaves` counts nested displays."""


def elements_of_lists(index: ProjectIndex, facts: TensorFacts, key: FunctionKey) -> dict[str, str]:
    """The parameters of `key` that a call inside a `for` loop of a caller fills with an
    element of a Python list of structures (the loop's target, or what the caller builds from
    it), with why: the list is built by the caller or a function calling it from its data, and
    `key` reads the parameter as a mapping (`p["nodes"]`, `p.get(...)`, `p.copy()`)."""
    fn = index.function(key)
    read = {p.name for p in fn.explicit_params if _read_as_mapping(fn, p.name)}
    if not read:
        return {}
    found: dict[str, str] = {}
    for caller in sorted(facts.callers.get(key, ()), key=str):
        if caller == key:
            continue
        owner = index.function(caller)
        for loops, parameter, argument in calls_in_for_loops(index, facts, caller, key):
            if parameter not in read or parameter in found:
                continue
            for loop in loops:
                targets: set[Sym] = {local_sym(t) for t in loop.targets}
                targets |= {name_sym(t) for t in loop.targets}
                if built_from(owner, argument, targets) and _python_list(
                    index, facts, caller, loop.header, LIST_DEPTH
                ):
                    shown = " or ".join(f"`{t}`" for t in sorted(loop.targets))
                    found[parameter] = (
                        f"`{owner.qualname}` passes {shown}, an element of a list of "
                        "structures the program builds, one call per element"
                    )
                    break
    return found


def _read_as_mapping(fn: FunctionSummary, name: str) -> bool:
    """Whether the body reads parameter `name` as a mapping: a mapping method called on it, or
    an item read with a string key."""
    # the body reads a parameter as a local whose first value is the parameter
    parameter = {param_sym(name), local_sym(name)}
    for site in fn.calls:
        callee = site.callee
        if (
            is_attr(callee)
            and attr_base(callee) in parameter
            and attr_name(callee) in STRUCTURE_METHODS
        ):
            return True
    roots = [value for values in fn.locals.values() for value in values]
    roots += [argument for site in fn.calls for argument in site.args]
    roots += list(fn.returns)
    for sym in walk_syms(roots, made_of):
        if is_item(sym) and item_base(sym) in parameter:
            index_ = item_index(sym)
            if is_lit(index_) and lit_type(index_) == "str":
                return True
    return False


def _python_list(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, value: Sym, depth: int
) -> bool:
    """Whether `value` (of `key`'s body) is a Python list or tuple: a display or comprehension
    of the body, the result of a project function returning one, or a parameter every caller
    passes one (up to `depth` calls each way)."""
    fn = index.function(key)
    params: set[str] = set()
    calls: list[Sym] = []

    def follow(current: Sym) -> Iterable[Sym]:
        if kind_of(current) in ("local", "name"):
            return local_values(fn, current)
        return ()

    for sym in walk_syms((value,), follow):
        if is_seq(sym) and seq_kind(sym) in ("list", "tuple"):
            return True
        if is_param(sym):
            params.add(sym_name(sym))
        elif is_call(sym):
            calls.append(sym)
    if depth < 1:
        return False
    for call in calls:
        site = fn.calls[call_index(call)]
        for resolved in facts.calls.get(key, ()):
            if resolved.site is not site:
                continue
            for _kind, target in callees(index, resolved):
                callee = index.function(target)
                if any(
                    _python_list(index, facts, target, returned, depth - 1)
                    for returned in callee.returns
                ):
                    return True
    for parameter in sorted(params):
        passed = _passed(index, facts, key, parameter)
        if passed and all(
            _python_list(index, facts, caller, argument, depth - 1) for caller, argument in passed
        ):
            return True
    return False


PASSED_BY_PARAMETER = "structure_passed"
"""`facts.cache` key of `_passed`'s memo, by function."""


def _passed(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, parameter: str
) -> list[tuple[FunctionKey, Sym]]:
    """What each call site of `key` passes its `parameter`, with the calling function (every
    parameter's found in one pass over the callers' calls, memoised per solution: asked per
    parameter of every function the benefit model weighs)."""
    memo = cast(
        "dict[FunctionKey, dict[str, list[tuple[FunctionKey, Sym]]]]",
        facts.cache.setdefault(PASSED_BY_PARAMETER, {}),
    )
    found = memo.get(key)
    if found is None:
        found = memo[key] = {}
        for caller in sorted(facts.callers.get(key, ()), key=str):
            if caller == key:
                continue
            for resolved in facts.calls.get(caller, ()):
                for kind, target in callees(index, resolved):
                    if target == key:
                        for name, argument in bound_arguments(index, key, resolved, kind).items():
                            found.setdefault(name, []).append((caller, argument))
    return found.get(parameter, [])


def structure_leaves(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, costs: CallCosts
) -> int:
    """How many leaves beyond one per parameter the call sites of `key` pass at least: for each
    explicit parameter every site passes a structure the caller shows (a dict or list display,
    a dict filled key by key, a record the framework opens built there: `CallCosts.
    flattened_records`; nested ones), the fewest leaves any site passes, less one. A parameter
    no site passes (a library's API no project code calls: `axis=(1, 2, 3, 4)`) has its
    default at every call the project shows: a tuple or list display counts as passed (a
    `tf.function` binds the default and computes each element's trace type at every call, as
    for a tuple passed). Where only the leaves the body reads cost (`CallCosts.
    leaves_read_only`), at most the distinct constant keys, indexes and fields the body reads
    of the parameter."""
    fn = index.function(key)
    extra = 0
    # one counter per caller, for all its sites and parameters (each indexes its calls)
    counters: dict[FunctionKey, _Leaves] = {}
    for p in fn.explicit_params:
        read = _leaves_read(fn, p.name) if costs.leaves_read_only else None
        if read is not None and read < 2:
            continue
        passed = _passed(index, facts, key, p.name)
        if not passed:
            default = defaulted_structures(index, facts, key).get(p.name)
            if default is not None:
                extra += max(min(default, read if read is not None else default) - 1, 0)
            continue
        counts = []
        for caller, argument in passed:
            counter = counters.get(caller)
            if counter is None:
                counter = counters[caller] = _Leaves(index, facts, caller, costs.flattened_records)
            counts.append(counter.count(argument, LEAF_DEPTH))
        if counts and all(count is not None for count in counts):
            fewest = min(count for count in counts if count is not None)
            extra += max(min(fewest, read if read is not None else fewest) - 1, 0)
    return extra


def defaulted_structures(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey
) -> dict[str, int]:
    """The parameters of `key` that no call site passes whose default is a tuple or list
    display (`axis=(1, 2, 3, 4)`), with the leaves of that default: every call the project
    shows gets it, and a compiled call binds it and types each element as it does a structure
    passed (`CallCosts.per_leaf`)."""
    fn = index.function(key)
    found: dict[str, int] = {}
    for p in fn.explicit_params:
        if p.default is None or not (is_seq(p.default) or is_dict(p.default)):
            continue
        if _passed(index, facts, key, p.name):
            continue
        leaves = _leaves(fn, p.default, LEAF_DEPTH, None)
        if leaves is not None and leaves > 1:
            found[p.name] = leaves
    return found


def _leaves_read(fn: FunctionSummary, name: str) -> int:
    """How many distinct leaves the body reads of parameter `name` at least: its items read
    with a constant key or index, its attributes read but not called (a record's fields)."""
    parameter = {param_sym(name), local_sym(name)}
    called = {site.callee for site in fn.calls}
    roots = [value for values in fn.locals.values() for value in values]
    roots += [part for site in fn.calls for part in (site.callee, *site.args)]
    roots += [value for site in fn.calls for _, value in site.kwargs]
    roots += list(fn.returns)
    keys: set[Sym] = set()
    fields: set[str] = set()
    for sym in walk_syms(roots, made_of):
        if is_item(sym) and item_base(sym) in parameter and is_lit(item_index(sym)):
            keys.add(item_index(sym))
        elif is_attr(sym) and attr_base(sym) in parameter and sym not in called:
            fields.add(attr_name(sym))
    return len(keys) + len(fields)


class _Leaves:
    """Counts the leaves of the structures one caller builds (`count`)."""

    def __init__(
        self, index: ProjectIndex, facts: TensorFacts, caller: FunctionKey, records: frozenset[str]
    ) -> None:
        self.index = index
        self.fn = index.function(caller)
        self.relpath = caller.file
        self.records = records
        self.resolved: Iterable[ResolvedCall] = facts.calls.get(caller, ())
        self.calls: dict[int, ResolvedCall] | None = None
        """The caller's resolved calls by index, made when a record is first asked for."""

    def count(self, sym: Sym, depth: int) -> int | None:
        """The leaves of a structure the caller builds (a display, nested ones counted leaf by
        leaf, a local dict with its string-keyed item stores, a record of `records` built by
        its constructor, its arguments counted as fields), at least; None where `sym` is not
        one."""
        return _leaves(self.fn, sym, depth, self)

    def record_fields(self, sym: Sym) -> tuple[Sym, ...] | None:
        """The arguments of a constructor call of a record class the compiled call opens into
        its fields (`CallCosts.flattened_records`), each a field; None for any other value."""
        if not self.records or not is_call(sym):
            return None
        if self.calls is None:
            self.calls = {resolved.index: resolved for resolved in self.resolved}
        resolved = self.calls.get(call_index(sym))
        if resolved is None or resolved.api or resolved.site.has_star_args:
            return None
        site = resolved.site
        fields = (*site.args, *(value for _, value in site.kwargs))
        if not resolved.targets:
            # a module binding made by `namedtuple(...)`: no project class stands for it
            known = "namedtuple" in self.records and names_namedtuple(
                self.index, self.relpath, site.callee
            )
            return fields if known else None
        if not resolved.constructs:
            return None
        for how, target in resolved.targets:
            if how != "class" or record_kind(self.index, target) not in self.records:
                return None
        return fields


def record_kind(index: ProjectIndex, class_key: ClassKey) -> str | None:
    """Which record a project class is (`CallCosts.flattened_records`'s names): a named tuple
    (`collections.namedtuple`, `typing.NamedTuple`, or based on one), an attrs class, a
    dataclass (a record decorator on it or a project base); None for any other class."""
    if is_namedtuple_class(index, class_key):
        return "namedtuple"
    if opened_record(index, class_key):
        return "attrs"
    for key in index.mro(class_key):
        for decorator in index.klass(key).decorators:
            ref = index.resolve_dotted(key.file, decorator.name)
            if is_ext_ref(ref) and ext_dotted(ref) == "dataclasses.dataclass":
                return "dataclass"
    return None


def _leaves(fn: FunctionSummary, sym: Sym, depth: int, records: _Leaves | None) -> int | None:
    """The leaves of a structure `fn` builds (`_Leaves.count`), at least; None where `sym` is
    not one."""
    if depth < 1:
        return None
    values: Iterable[Sym] = (sym,)
    stored = 0
    if kind_of(sym) in ("local", "name"):
        values = local_values(fn, sym)
        stored = len({s.name for s in fn.stores if s.kind == "item" and s.target == sym and s.name})
        # an item store also records the stored value as a one-element list of the local
        values = [
            v
            for v in values
            if not (
                is_seq(v) and any(s.kind == "item" and s.value in made_of(v) for s in fn.stores)
            )
        ]
    counts: list[int] = []
    for value in values:
        fields = None if records is None else records.record_fields(value)
        if fields is not None:
            parts: Iterable[Sym] = fields
        elif is_dict(value) or (is_seq(value) and seq_kind(value) in ("list", "tuple")):
            parts = made_of(value)
        else:
            return None
        counts.append(sum(_leaves(fn, e, depth - 1, records) or 1 for e in parts))
    if not counts:
        return None
    return max(min(counts), stored)
