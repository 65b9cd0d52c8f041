"""Compiled methods with defaults that would run inside another compiled function's graph.

When Dynamo traces a compiled function and meets a call of a method that is itself compiled
(`@torch.compile` on the method, so the class attribute is the compile wrapper), it inlines
the original function into the outer graph: the inner decorator adds nothing there (measured:
one frame, the same ops as with a plain method). But where the call leaves a parameter to its
default, Dynamo guards the default through the class attribute, the wrapper, whose
`__defaults__` and `__kwdefaults__` are None: building the guards raises
`InternalTorchDynamoError` ("object of type 'NoneType' has no len()" for a positional default,
"'NoneType' object is not subscriptable" for a keyword-only one) at the outer function's first
compile (measured on torch 2.13, tests/analyzer/test_hy423_nested_compiled_methods.py). A
method without defaults, a call filling every default, a staticmethod and a free function
with defaults were fine.

A method compiled on its own fails in a compiled caller's graph in a second way, defaults
or not: called as `obj.m(x)` or `self.m(x)` (or through functions the caller runs), it loses
its instance when Dynamo breaks the graph inside it or in what it calls: "TypeError: C.m()
missing 1 required positional argument" (measured on torch 2.13: `.item()`, `.tolist()`,
print, logging, the clock, Python's `random`, `nonzero`, `unique`, boolean-mask indexing, a
tensor in an `if`, `torch._dynamo.graph_break()`). A break in the caller alone, a
staticmethod, a classmethod, a free function, an attribute write and a module's `forward`
reached through the module's call were fine. Whether a method may break is
`facts/graph_breaks.py`'s fact with the breaks its own findings name (eager-only calls,
tensors read as Python values, printing, logging, I/O, the clock, Python's `random`), and,
asked only where a compiled caller calls the method, `hidden_graph_break`: a quiet break
behind a property the method reads or in a project decorator's wrapper (linear-operator's
`@cached`, `pickle.dumps(kwargs)`). A free function loses nothing: measured fine with a break,
defaults or not, by position or by keyword.

So two decorators must not meet in one graph where the inner one sits on such a method:

- a method with defaults, or one called as a method that may break the graph, that a
  compiled function, or one that may be compiled, runs inside its graph (it calls it,
  directly or through the functions it calls) is left to be inlined: only the outermost
  function is compiled, and it carries the callee's work;
- a function whose graph would run a method the project already compiles that way (a user's
  own `@torch.compile` on it) is not compiled.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

from hybridize.analyzer.facts.callgraph import (
    MAX_FUNCTIONS_RUN,
    functions_run_by,
    opaque_tensor_call_sites,
)
from hybridize.analyzer.facts.cited_lines import cited_line
from hybridize.analyzer.facts.evaluator import (
    ResolvedCall,
    TensorFacts,
    callees,
    solved_evaluator,
)
from hybridize.analyzer.facts.evidence import Evidence
from hybridize.analyzer.facts.graph_breaks import first_graph_break, quiet_graph_break
from hybridize.analyzer.facts.helper_safety import HelperSafety
from hybridize.analyzer.facts.refs import is_ext_ref, is_func_ref
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.scan_memo import per_function
from hybridize.analyzer.frameworks import written_name
from hybridize.analyzer.frameworks.framework import Framework
from hybridize.analyzer.summaries.ir import FunctionSummary, function_syms
from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.analyzer.summaries.syms import attr_name, is_attr, kind_of, local_sym
from hybridize.model import Span

UNSEEN_RECEIVER_CALLERS = "unseen_receiver_callers"
"""The `facts.cache` entry of `_unseen_receiver_callers`: by method name, the functions that
call a method of that name on an object the analysis cannot see, with tensors."""

COMPILING_CALLER_READS = "compiling_caller_reads"
"""The `facts.cache` entry of the `CompilingCallerRead`s of the verdict phase, by function."""

OFF_GRAPH_READS = "nested_compiled_off_graph_reads"
"""The `facts.cache` entry of what the verdict phase read off the call graph, by function
(`checks.OffGraphReads`): the functions `hidden_graph_break` walked (property getters,
decorators' wrappers, a self-call's overrides), and the method names whose callers on objects
the analysis cannot see it read (`_unseen_receiver_callers`) with those callers."""


@dataclass(frozen=True, slots=True)
class CompilingCallerRead:
    """One answer of `compiling_caller` a verdict read: it names a caller at any depth, so
    an edit of a caller several levels up may change it while every direct caller of the
    function is settled (`decisions.caller_reads`)."""

    framework: Framework
    as_method: bool
    answer: FunctionKey | None


def method_defaults(fn: FunctionSummary) -> list[str]:
    """The parameters with a default (positional or keyword-only) of a method, a function
    binding its receiver; empty for a free function or a staticmethod."""
    if not fn.binds_receiver:
        return []
    return [p.name for p in fn.explicit_params if p.default is not None]


def decorated_by_compiler(index: ProjectIndex, key: FunctionKey, framework: Framework) -> bool:
    """Decorated with the framework's compile decorator under any spelling: the name the
    class (or module) binds is the compile wrapper."""
    fn = index.function(key)
    for decorator in fn.decorators:
        ref = index.resolve_dotted(key.file, decorator.name)
        if is_ext_ref(ref) and framework.is_decorator(ref[1]):
            return True
    return False


def callers_of(facts: TensorFacts, key: FunctionKey) -> list[FunctionKey]:
    """The functions that call `key`, directly or through others, nearest first (bounded,
    like `functions_run_by`)."""
    seen: dict[FunctionKey, None] = {}
    work = sorted(facts.callers.get(key, ()), key=str)
    while work and len(seen) < MAX_FUNCTIONS_RUN:
        caller = work.pop(0)
        if caller in seen or caller == key:
            continue
        seen[caller] = None
        work.extend(sorted(facts.callers.get(caller, ()), key=str))
    return list(seen)


def may_be_compiled(
    index: ProjectIndex,
    helpers: HelperSafety,
    key: FunctionKey,
    compiled: Collection[FunctionKey],
) -> bool:
    """Compiled already, or a function the rewrite may compile: one that takes arguments (a
    function taking none takes no tensor, and is never decorated) and whose graph has no
    hazard that keeps it eager (an eager-only call, a tensor used as a Python value, NumPy
    on a tensor, here or in a helper traced with it)."""
    if key in compiled:
        return True
    if key.is_module_code:
        return False
    fn = index.function(key)
    if fn.is_lambda or not fn.explicit_params:
        return False
    hazards = helpers.hazards(key)
    return not (hazards.eager_only or hazards.python_values or hazards.numpy)


def breaking_method(fn: FunctionSummary) -> bool:
    """A method bound to an instance (not a staticmethod or a classmethod), which loses that
    instance when compiled on its own and broken inside a compiled caller's graph."""
    return fn.binds_receiver and "classmethod" not in {d.name for d in fn.decorators}


def nested_compiled_methods(
    index: ProjectIndex,
    facts: TensorFacts,
    key: FunctionKey,
    framework: Framework,
    helpers: HelperSafety,
    compiled: Collection[FunctionKey],
    breaks: Mapping[FunctionKey, bool],
    own_break: str | None = None,
) -> list[Evidence]:
    """Why compiling `key` would nest a compiled method in a graph that fails: it is a
    method with defaults, or one that may break the graph (`own_break`, what its own
    findings name, or `breaks`), and a caller that is or may be compiled runs it; or its graph
    runs such a method the project already compiles."""
    found: list[Evidence] = []
    fn = index.function(key)
    defaults = method_defaults(fn)
    if defaults:
        outer = compiling_caller(index, facts, key, framework, helpers, compiled)
        if outer is not None:
            found.append(
                _nested_in(
                    outer,
                    key,
                    compiled,
                    "and runs it inside its graph: compiled too, this method (a default for "
                    f"`{defaults[0]}`) makes Dynamo fail building that graph's guards (it guards "
                    "the default through the compile wrapper, whose defaults are None)",
                    fn.span,
                )
            )
    elif breaking_method(fn):
        why = own_break or _graph_break(index, facts, key, breaks)
        outer = compiling_caller(index, facts, key, framework, helpers, compiled, as_method=True)
        unseen = False
        if outer is None:
            # a method of its name called on an object the analysis cannot see, with tensors
            # (`self.left_linear_op._matmul(rhs)`: an attribute converted from any subclass)
            # may be this one at run time
            unseen_callers = _unseen_receiver_callers(facts).get(fn.name, ())
            read_off_graph(facts, key, [fn.name, *unseen_callers])
            outer = first_compilable(index, helpers, compiled, framework, key, unseen_callers)
            unseen = outer is not None
        if outer is not None and why is None:
            why = hidden_graph_break(index, facts, key, reader=key)
        if why is None:
            outer = None
        if outer is not None:
            how = (
                f"and calls `.{fn.name}()` of an object the analysis cannot see (this method, "
                "of any class overriding it, may be the one that runs)"
                if unseen
                else "and calls it as a method"
            )
            found.append(
                _nested_in(
                    outer,
                    key,
                    compiled,
                    f"{how} inside its graph: compiled too, this method loses "
                    'its instance when Dynamo breaks the graph in it ("missing 1 required '
                    f'positional argument"), and it may: {why}',
                    fn.span,
                )
            )
    inner = _compiled_callee(index, facts, key, framework, helpers, breaks, reader=key)
    if inner is not None:
        callee, why = inner
        found.append(
            Evidence(
                f"it runs `{callee.qualname}`{_where(callee, key)}, a method already decorated "
                f"with the compiler {why}",
                fn.span,
            )
        )
    return found


def _graph_break(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, breaks: Mapping[FunctionKey, bool]
) -> str | None:
    """Where the function may break the graph although the labelling does not fail it, in
    words, or None."""
    if not breaks.get(key, False):
        return None
    found = first_graph_break(index, facts, key)
    if found is None:
        return None
    where = "" if found.function == key else f" in `{found.function.qualname}`"
    return f"it runs {found.what}{where} (line {cited_line(found.function.file, found.span.start_line)})"


def _nested_in(
    outer: FunctionKey, key: FunctionKey, compiled: Collection[FunctionKey], what: str, span: Span
) -> Evidence:
    """Why `key` compiled inside `outer`'s graph fails (`what`), and why its own decorator
    would add nothing there anyway."""
    how = "is compiled" if outer in compiled else "may be compiled"
    return Evidence(
        f"`{outer.qualname}`{_where(outer, key)} {how} {what}; inlined there, a decorator of its "
        "own adds nothing: only the outermost function is compiled",
        span,
    )


def compiling_caller(
    index: ProjectIndex,
    facts: TensorFacts,
    key: FunctionKey,
    framework: Framework,
    helpers: HelperSafety,
    compiled: Collection[FunctionKey],
    *,
    as_method: bool = False,
) -> FunctionKey | None:
    """The nearest function of the same framework that calls `key` (transitively) and is or
    may be compiled; `as_method`: through a function that calls it as a method, not as a
    module's `forward` run by the module's call (which keeps the instance)."""
    answer = nearest_compiling_caller(index, facts, key, framework, helpers, compiled, as_method)
    reads = facts.cache.setdefault(COMPILING_CALLER_READS, {})
    assert isinstance(reads, dict)
    reads.setdefault(key, []).append(CompilingCallerRead(framework, as_method, answer))
    return answer


def nearest_compiling_caller(
    index: ProjectIndex,
    facts: TensorFacts,
    key: FunctionKey,
    framework: Framework,
    helpers: HelperSafety,
    compiled: Collection[FunctionKey],
    as_method: bool,
) -> FunctionKey | None:
    """`compiling_caller` without keeping the answer as one the verdict read."""
    if as_method:
        direct = [
            c
            for c in sorted(facts.callers.get(key, ()), key=str)
            if _calls_as_method(facts, c, key)
        ]
        candidates = [*direct, *(c for d in direct for c in callers_of(facts, d))]
    else:
        candidates = callers_of(facts, key)
    return first_compilable(index, helpers, compiled, framework, key, candidates)


def first_compilable(
    index: ProjectIndex,
    helpers: HelperSafety,
    compiled: Collection[FunctionKey],
    framework: Framework,
    key: FunctionKey,
    candidates: Iterable[FunctionKey],
) -> FunctionKey | None:
    """The first of `candidates` (`key` excluded) of the same framework that is or may be
    compiled."""
    for caller in dict.fromkeys(candidates):
        if caller == key or index.function_framework(caller).name != framework.name:
            continue
        if may_be_compiled(index, helpers, caller, compiled):
            return caller
    return None


def _calls_as_method(facts: TensorFacts, caller: FunctionKey, key: FunctionKey) -> bool:
    """`caller` calls `key` other than as a module's `forward` through the module's call."""
    return any(
        target == key and kind != "layer_call"
        for resolved in facts.calls.get(caller, [])
        for kind, target in resolved.targets
    )


def _compiled_callee(
    index: ProjectIndex,
    facts: TensorFacts,
    key: FunctionKey,
    framework: Framework,
    helpers: HelperSafety,
    breaks: Mapping[FunctionKey, bool],
    reader: FunctionKey,
) -> tuple[FunctionKey, str] | None:
    """The first function `key` runs (transitively) that is decorated with the compiler and
    is a method with defaults or one called as a method that may break the graph, with why
    that fails `key`'s graph (`reader`: the verdict reading what this walks off the call
    graph, `read_off_graph`)."""
    for callee in functions_run_by(index, facts, [key])[1:]:
        function = index.function(callee)
        if not function.binds_receiver or not decorated_by_compiler(index, callee, framework):
            continue
        defaults = method_defaults(function)
        if defaults:
            return callee, (
                f"and with a default for `{defaults[0]}`: compiled, its graph would inline "
                "that method, and Dynamo fails building the guards (it guards the default "
                "through the compile wrapper, whose defaults are None)"
            )
        if not breaking_method(function) or not any(
            _calls_as_method(facts, c, callee) for c in facts.callers.get(callee, ())
        ):
            continue
        hazards = helpers.hazards(callee)
        evidence = [*hazards.eager_only, *hazards.python_values]
        why = (
            f"it {evidence[0].message}"
            if evidence
            else _graph_break(index, facts, callee, breaks)
            or hidden_graph_break(index, facts, callee, reader=reader)
        )
        if why is not None:
            return callee, (
                "and called as a method: compiled, its graph would run that method, which "
                'loses its instance when Dynamo breaks the graph in it ("missing 1 required '
                f'positional argument"), and it may: {why}'
            )
    return None


def _where(other: FunctionKey, key: FunctionKey) -> str:
    """` (file)` when `other` is in another file than `key`."""
    return "" if other.file == key.file else f" ({other.file})"


def read_off_graph(
    facts: TensorFacts, reader: FunctionKey, read: Iterable[FunctionKey | str]
) -> None:
    """Keep what `reader`'s verdict read off the call graph (`OFF_GRAPH_READS`): an edit
    that reaches one of those functions, or makes a call of one of those names, decides it
    again (`checks.OffGraphReads`)."""
    reads = facts.cache.setdefault(OFF_GRAPH_READS, {})
    assert isinstance(reads, dict)
    reads.setdefault(reader, set()).update(read)


def unseen_call_names(facts: TensorFacts, key: FunctionKey) -> tuple[str, ...]:
    """The method names `key` calls on objects the analysis cannot see, with tensors: a
    verdict that read the callers of one of them (`OFF_GRAPH_READS`) may change when `key`
    calls it anew."""
    return _unseen_names(facts, key)


def hidden_graph_break(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, *, reader: FunctionKey
) -> str | None:
    """A quiet graph break (`Framework.quiet_graph_breaks`) in what the method runs that the
    call graph does not show, in words, or None: the getter of a `@property` it (or what it
    runs) reads (`self.shape`), and the wrapper a project decorator puts in place of a function
    it calls (`@cached(name="size")` memoizing with `pickle.dumps(kwargs)`, as linear-operator's
    does: the functions the decorator, or what it calls, defines). Dynamo traces both: a
    getter as an attribute read, a decorated function as the wrapper the decorator returned
    (measured on torch 2.13, tests/analyzer/test_hy423_untraceable_calls_measured.py).
    Methods of the method's own class family only (its bases and subclasses): where a base's
    getter calls `self._size()`, a sibling class's override does not run for this instance.
    Asked only of a method a compiled caller calls as a method, breadth first and bounded like
    `functions_run_by`; the functions walked are kept as read by `reader`'s verdict
    (`read_off_graph`): the getters and wrappers are no call edges, so an edit of one reaches
    the verdict only so."""
    own = index.function(key).class_qualname
    family = _class_family(index, FunctionKey(key.file, own)) if own is not None else None
    seen: dict[FunctionKey, None] = {}
    try:
        return _first_hidden_break(index, facts, key, family, seen)
    finally:
        read_off_graph(facts, reader, seen)


def _first_hidden_break(
    index: ProjectIndex,
    facts: TensorFacts,
    key: FunctionKey,
    family: tuple[frozenset[FunctionKey], frozenset[FunctionKey]] | None,
    seen: dict[FunctionKey, None],
) -> str | None:
    """`hidden_graph_break`'s walk, the functions it looked at added to `seen`."""
    work = [key]
    while work and len(seen) < MAX_FUNCTIONS_RUN:
        run = work.pop(0)
        if run in seen or not index.has_function(run) or not _in_family(index, run, family):
            continue
        seen[run] = None
        breaks = index.function_framework(run).quiet_graph_breaks
        for resolved in facts.calls.get(run, []):
            name = quiet_graph_break(breaks, resolved) if breaks else None
            if name is not None:
                where = "" if run == key else f" in `{run.qualname}`"
                line = cited_line(run.file, resolved.site.span.start_line)
                return f"it runs `{written_name(name)}` ({breaks[name]}){where} (line {line})"
            work.extend(target for _, target in callees(index, resolved))
            work.extend(_unresolved_self_call(index, run, resolved))
        work.extend(_property_getters(index, facts, run))
        work.extend(_decorator_wrappers(index, facts, run))
    return None


def _class_family(
    index: ProjectIndex, class_key: FunctionKey
) -> tuple[frozenset[FunctionKey], frozenset[FunctionKey]]:
    """A class's bases and subclasses (itself included), and every class deriving from one
    of its bases (the family and its relatives)."""
    bases = index.mro(class_key)
    family = frozenset([*bases, *index.subclasses(class_key)])
    relatives = frozenset(c for base in bases for c in index.subclasses(base))
    return family, relatives


def _in_family(
    index: ProjectIndex,
    key: FunctionKey,
    family: tuple[frozenset[FunctionKey], frozenset[FunctionKey]] | None,
) -> bool:
    """Not a method of a sibling class (one deriving from a base of the class, outside its
    line): an attribute object's method, of an unrelated class, is kept."""
    owner = index.function(key).class_qualname
    if family is None or owner is None:
        return True
    members, relatives = family
    owner_key = FunctionKey(key.file, owner)
    return owner_key in members or owner_key not in relatives


def _property_getters(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey
) -> list[FunctionKey]:
    """The `@property` getters of the project the function reads as attributes (a read, not a
    call: the evaluator gives a read of a property the method atoms of its overrides)."""
    evaluator = solved_evaluator(index, facts, key)
    if evaluator is None:
        return []
    fn = index.function(key)
    called = {site.callee for site in fn.calls}
    found: dict[FunctionKey, None] = {}
    for sym in [*function_syms(fn), *fn.conditions]:
        if not is_attr(sym) or sym in called:
            continue
        for atom in evaluator.eval(sym):
            if kind_of(atom) != "method" or not index.has_function(atom[1]):
                continue
            getter = index.function(atom[1])
            if any(d.name.endswith("property") for d in getter.decorators):
                found[atom[1]] = None
    return sorted(found, key=str)


def _decorator_wrappers(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey
) -> list[FunctionKey]:
    """The functions a project decorator of `key`, or a project function it calls, defines:
    the wrapper it returns runs in place of `key` (`def cached(method): def g(self, *args,
    **kwargs): ...; return g`, or `cached(name=...)` handing over to `_cached`, which defines
    `g`)."""
    found: list[FunctionKey] = []
    nested = _nested_functions(index)
    for decorator in index.function(key).decorators:
        ref = index.resolve_dotted(key.file, decorator.name)
        if not is_func_ref(ref):
            continue
        for maker in functions_run_by(index, facts, [ref[1]]):
            found.extend(nested.get(maker, ()))
    return found


def _nested_functions(index: ProjectIndex) -> Mapping[FunctionKey, list[FunctionKey]]:
    """The functions defined directly inside each project function, by the enclosing one."""

    def compute() -> dict[FunctionKey, list[FunctionKey]]:
        nested: dict[FunctionKey, list[FunctionKey]] = {}
        for key in index.function_keys():
            parent = index.function(key).parent_qualname
            if parent is not None:
                nested.setdefault(FunctionKey(key.file, parent), []).append(key)
        return nested

    return index.interface_cached("nested_functions", compute)


def _unseen_receiver_callers(facts: TensorFacts) -> Mapping[str, list[FunctionKey]]:
    """By method name, the functions calling a method of that name on an object the analysis
    cannot see, with tensors (`callgraph.opaque_tensor_call_sites`), in key order; made once
    per solution, each function's names kept across updates (`per_function`)."""
    memo = facts.cache.get(UNSEEN_RECEIVER_CALLERS)
    if memo is not None:
        return memo  # type: ignore[return-value]
    names = per_function(
        facts, UNSEEN_RECEIVER_CALLERS, lambda key, _calls: _unseen_names(facts, key)
    )
    by_name: dict[str, list[FunctionKey]] = {}
    for caller in sorted(names, key=str):
        for name in names[caller]:
            by_name.setdefault(name, []).append(caller)
    facts.cache[UNSEEN_RECEIVER_CALLERS] = by_name
    return by_name


def _unseen_names(facts: TensorFacts, key: FunctionKey) -> tuple[str, ...]:
    """The names of the methods the function calls on objects the analysis cannot see; not
    special methods (`super().__init__(params)` of a library's base class is no project
    method)."""
    names = {
        attr_name(resolved.site.callee)
        for resolved in opaque_tensor_call_sites(facts, key)
        if is_attr(resolved.site.callee)
    }
    return tuple(sorted(n for n in names if not (n.startswith("__") and n.endswith("__"))))


def _unresolved_self_call(
    index: ProjectIndex, key: FunctionKey, resolved: ResolvedCall
) -> tuple[FunctionKey, ...]:
    """A call `self.m()` in a method that the solution left without targets (in a property
    getter no call site binds, `self._size()` of an abstract base): every override of `m` its
    class's instances may run (`ProjectIndex.dispatch`)."""
    callee = resolved.site.callee
    fn = index.function(key)
    if resolved.targets or not fn.binds_receiver or fn.class_qualname is None or not fn.params:
        return ()
    if not is_attr(callee) or callee[1] != local_sym(fn.params[0].name):
        return ()
    return index.dispatch(FunctionKey(key.file, fn.class_qualname), attr_name(callee))
