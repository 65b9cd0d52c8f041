"""HY444 runs_under_gc_scans: runs between scans of the garbage collector's objects (a
memory-leak check)."""

from __future__ import annotations

from dataclasses import dataclass

from hybridize.analyzer.checks.context import CheckContext
from hybridize.analyzer.facts.callgraph import functions_run_by
from hybridize.analyzer.facts.cited_lines import cited_line
from hybridize.analyzer.facts.differentiated_values import callables_among
from hybridize.analyzer.facts.evaluator import ResolvedCall, TensorFacts, callees
from hybridize.analyzer.facts.evidence import Evidence
from hybridize.analyzer.facts.patched_callees import external_name
from hybridize.analyzer.facts.refs import is_class_ref, is_func_ref, ref_key
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.scan_memo import per_function
from hybridize.analyzer.summaries.ir import function_syms
from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.analyzer.summaries.syms import (
    attr_base,
    attr_name,
    is_attr,
    is_dict,
    is_name,
    is_seq,
    sym_name,
)
from hybridize.model import Finding

from . import TORCH_ONLY, Check

GC_SCANS = frozenset({"gc.get_objects"})
"""The calls that list every object the garbage collector tracks (measured on torch 2.13:
tests/analyzer/test_torch_rules_measured.py)."""
_GC_SCAN_LAST_NAMES = frozenset(name.rpartition(".")[2] for name in GC_SCANS)
"""The last names of `GC_SCANS`: what an attribute call of one is made with."""


@dataclass(frozen=True, slots=True)
class GcScan:
    """Where a function runs project code around a scan of the collector's objects."""

    by: FunctionKey
    """The function whose calls reach both the scan and the code."""
    scanner: FunctionKey
    """The project function it calls that scans (itself or through its callees)."""
    line: int


class RunsUnderGcScans(Check):
    """Runs between two scans of the garbage collector's objects: a memory-leak check.

    What it detects
    ---------------
    A function that some function runs (calls, passes as a callable to a call, directly or
    through the project functions those run) while it also calls a project function that
    lists the collector's objects with `gc.get_objects()` (itself or through its callees):
    a test helper `assert_no_memleak(fcn)` that sums the tensors `gc.get_objects()` finds
    before and after `fcn()`, and the test that hands it a closure running the library. The
    whole function counts (which call comes first is not followed). What runs follows two
    dispatches besides calls: an autograd `Function`'s `apply` runs its `forward` and (the
    result differentiated) its `backward`, and a function that builds or reads (among its
    module's globals) a dict or list of functions may run any of them (a solver picked by
    name: `_METHODS = {"broyden1": broyden1}`).

    Why it matters in graph mode
    ----------------------------
    Compiling is not free of objects: measured on torch 2.13, after the first call of a
    compiled `v * 2 + 1` the collector tracks `weakref.proxy` objects Dynamo made whose
    referents are gone, and `isinstance(obj, torch.Tensor)` on one raises "ReferenceError:
    weakly-referenced object no longer exists" (the usual `[o for o in gc.get_objects() if
    isinstance(o, torch.Tensor)]` scan); after a `gc.collect()` the scan runs but finds the
    tensors Dynamo and Inductor keep for the compiled code, counted as leaked. Eagerly the
    same code leaves nothing. xitorch 0.5.1's `test_memleak.py` failed so (rootfinder,
    equilibrium and minimize, whose helpers were compiled). The values computed are the
    same: what changes is what the process holds, which the scan reads.

    Example
    -------
        def norm_step(v):
            return v * 2 + 1

        def tensor_bytes():
            return sum(
                o.numel() * o.element_size()
                for o in gc.get_objects()
                if isinstance(o, torch.Tensor)
            )

        def test_no_leak():
            before = tensor_bytes()
            norm_step(torch.ones(3))
            assert tensor_bytes() == before

    Instead
    -------
    Leave the function eager while a memory check scans the collector around it, or warm
    the compiled code up (call it once) before the first scan and `gc.collect()` before each.

    Under tf.function
    -----------------
    Not reported: measured for `torch.compile` only.
    """

    code = "HY444"
    frameworks = TORCH_ONLY
    name = "runs_under_gc_scans"
    severity = "error"
    summary = (
        "runs between scans of gc.get_objects() (a memory-leak check): compiled, the scan "
        "meets Dynamo's dead weak proxies (ReferenceError) or its cached tensors."
    )
    unblock = "leave it eager, or warm it up and gc.collect() before the memory check"
    fact = "runs_under_gc_scans"
    fact_meaning = (
        "(PyTorch) a function that also lists the collector's objects (`gc.get_objects()`) "
        "runs it: compiled, the scan meets dead weak proxies or the compiler's cached tensors"
    )
    decision_order = 158
    EXAMPLE_FUNCTION = "norm_step"

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """The scan around which the function runs, for a function not compiled yet."""
        if not context.changes_on_compiling:
            return []
        return cls.findings(gc_scanned(context.index, context.facts, context.key))


def gc_scanned(index: ProjectIndex, facts: TensorFacts, key: FunctionKey) -> list[Evidence]:
    """Where the function runs around a scan of the collector's objects, as evidence."""
    scan = gc_scanned_runs(index, facts).get(key)
    if scan is None:
        return []
    return [
        Evidence(
            f"`{scan.by.qualname}` runs it and calls `{scan.scanner.qualname}`, which lists "
            f"the collector's objects with `gc.get_objects()` ({scan.by.file}, line "
            f"{cited_line(scan.by.file, scan.line)}): compiled, the scan meets Dynamo's dead "
            "weak proxies (ReferenceError) or the tensors it keeps for the compiled code",
            index.function(key).span,
        )
    ]


def gc_scanned_runs(index: ProjectIndex, facts: TensorFacts) -> dict[FunctionKey, GcScan]:
    """Every project function run by a function that also calls a gc-scanning project
    function, with the first such function (in key order)."""
    cached = facts.cache.get("gc_scans")
    if isinstance(cached, dict):
        return cached
    scanning = _scanning(index, facts)
    result: dict[FunctionKey, GcScan] = {}
    if scanning:
        for by in sorted(facts.calls, key=str):
            calls = facts.calls[by]
            witness: GcScan | None = None
            starts: set[FunctionKey] = set()
            for resolved in calls:
                for _, target in callees(index, resolved):
                    starts.add(target)
                    if witness is None and target in scanning:
                        witness = GcScan(by, target, resolved.site.span.start_line)
                for atoms in resolved.args:
                    starts.update(callables_among(index, atoms))
            if witness is None:
                continue
            starts -= scanning
            for target in _run_with_registries(index, facts, starts):
                result.setdefault(target, witness)
    facts.cache["gc_scans"] = result
    return result


def _run_with_registries(
    index: ProjectIndex, facts: TensorFacts, starts: set[FunctionKey]
) -> list[FunctionKey]:
    """The functions `starts` run (`functions_run_by`), the `forward` and `backward` of each
    autograd `Function` whose `apply` they call, and the functions held in the containers they
    build or read from their module's globals (`_METHODS = {"broyden1": broyden1}`, looked
    up by name and called: a dispatch the call graph does not follow), transitively."""
    run: list[FunctionKey] = []
    seen: set[FunctionKey] = set()
    pending = set(starts)
    while pending:
        fresh = [
            k for k in functions_run_by(index, facts, sorted(pending, key=str)) if k not in seen
        ]
        seen.update(fresh)
        run.extend(fresh)
        pending = {
            held for key in fresh for held in (*_registered(index, key), *_backward(index, key))
        } - seen
    return run


def _registered(index: ProjectIndex, key: FunctionKey) -> set[FunctionKey]:
    """Project functions held in the containers (dicts, lists, tuples) that the function
    builds, or reads by name among its own module's globals."""
    module = index.modules.get(key.file)
    if module is None:
        return set()
    module_values = module.module_code.locals
    found: set[FunctionKey] = set()
    fn = index.function(key)
    read = [name for sym in function_syms(fn) if (name := _name_of(sym))]
    held_values = [v for name in read for v in module_values.get(name, ())]
    held_values.extend(v for values in fn.locals.values() for v in values)
    for value in held_values:
        if not isinstance(value, tuple) or not value or not (is_dict(value) or is_seq(value)):
            continue
        for sym in _walk(value):
            held = _name_of(sym)
            if held is None:
                continue
            ref = index.alias_target(index.resolve_global(key.file, held))
            if is_func_ref(ref):
                found.add(ref_key(ref))
    return found


def _backward(index: ProjectIndex, key: FunctionKey) -> tuple[FunctionKey, ...]:
    """The `forward` and `backward` of each project class whose `apply` the function calls
    (an autograd `Function`: its backward runs when the result is differentiated)."""
    fn = index.function(key)
    found: list[FunctionKey] = []
    for site in fn.calls:
        callee = site.callee
        if not (isinstance(callee, tuple) and callee and is_attr(callee)):
            continue
        owner = _name_of(attr_base(callee))
        if attr_name(callee) != "apply" or owner is None:
            continue
        ref = index.alias_target(index.resolve_global(key.file, owner))
        if not is_class_ref(ref):
            continue
        for name in ("forward", "backward"):
            method = index.find_method(ref_key(ref), name)
            if method is not None:
                found.append(method)
    return tuple(found)


def _name_of(sym: object) -> str | None:
    if isinstance(sym, tuple) and sym and is_name(sym):
        return sym_name(sym)
    return None


def _walk(sym: tuple) -> list[tuple]:
    found: list[tuple] = []
    stack: list[object] = [sym]
    while stack:
        item = stack.pop()
        if isinstance(item, tuple) and item and isinstance(item[0], str):
            found.append(item)
            stack.extend(item[1:])
        elif isinstance(item, tuple):
            stack.extend(item)
    return found


def _scanning(index: ProjectIndex, facts: TensorFacts) -> set[FunctionKey]:
    """The project functions that list the collector's objects, themselves or through the
    project functions they call."""
    direct = per_function(facts, "gc_scan_calls", lambda key, calls: _scans(index, key, calls))
    found = set(direct)
    stack = list(found)
    while stack:
        key = stack.pop()
        for caller in facts.callers.get(key, ()):
            if caller not in found:
                found.add(caller)
                stack.append(caller)
    return found


def _scans(index: ProjectIndex, key: FunctionKey, calls: list[ResolvedCall]) -> bool:
    fn = index.function(key)
    # An attribute call's dotted name ends with its attribute: most call sites are no scan
    # by that alone, without resolving their head (every call site of the project, cold).
    return any(
        (not is_attr(r.site.callee) or r.site.callee[2] in _GC_SCAN_LAST_NAMES)
        and external_name(index, key, fn, r.site.callee) in GC_SCANS
        for r in calls
    )
