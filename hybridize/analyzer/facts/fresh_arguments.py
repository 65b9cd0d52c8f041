"""Call sites that pass a compiled function a new Python object at every run: a trace per call.

`tf.function` types an argument that is no list, tuple, namedtuple, mapping, attrs class or
array by a weak reference to it, hashed by identity unless its class defines otherwise
(`trace_type_builder.from_value`): a new object is a new trace (measured on TF 2.21: 6 new
objects, 6 traces, a trace per call about 20x a cached call; `Framework.
compiles_per_argument_object`). A call site passes a new object at every run when the argument
is built there: a constructor call of a project class its instances are hashed by identity
(no `__eq__`/`__hash__` of its own or of a project base, every base in the project or
`object`, no tracing protocol), a local bound only to such calls, or a generator expression.
An object built once and passed at every call (outside the loop, an attribute) is one trace;
a namedtuple of tensors built per call is opened into its tensors (one trace: a class based
outside the project is never claimed).
"""

from __future__ import annotations

from dataclasses import dataclass

from hybridize.analyzer.facts.evaluator import ResolvedCall, TensorFacts, bind_written, callees
from hybridize.analyzer.facts.hashability import (
    hash_status,
    implements_tracing_protocol,
    opened_record,
)
from hybridize.analyzer.facts.predicates import local_values
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.summaries.ir import CallSite, FunctionSummary, Sym
from hybridize.analyzer.summaries.keys import ClassKey, FunctionKey
from hybridize.analyzer.summaries.syms import is_call, is_seq, seq_kind
from hybridize.model import Span

CUSTOM_TRACE_TYPES = frozenset({"__tf_tracing_type__", "__tf_flatten__"})
"""Methods with which a class gives `tf.function` a trace type of its own (the tracing
protocol, `CustomNestProtocol`): its instances are not keyed by identity."""


@dataclass(frozen=True, slots=True)
class FreshArgument:
    """A call site of the function that passes it a new object at every run."""

    caller: FunctionKey
    span: Span
    argument: str
    """The parameter (or position) that receives it, for the reason's words."""
    made: str
    """What is built, in words: "a new `Data`", "a new generator"."""
    in_loop: bool


def _identity_keyed(index: ProjectIndex, key: ClassKey) -> bool:
    """Whether `tf.function` keys the class's instances by identity: hashed as `object` is
    (`hash_status` "inherits": no `__eq__`/`__hash__`, no record decorator, every base in
    the project or `object`), and no custom trace type in its project MRO."""
    status, _ = hash_status(index, key)
    if status != "inherits" or implements_tracing_protocol(index, key):
        return False
    if opened_record(index, key):
        return False  # an attrs instance is opened field by field, not keyed by identity
    return not any(CUSTOM_TRACE_TYPES & set(index.klass(k).methods) for k in index.mro(key))


def _made_here(
    index: ProjectIndex, fn: FunctionSummary, calls: dict[int, ResolvedCall], sym: Sym
) -> str | None:
    """What new object `sym` is wherever it is evaluated, in words; None where it may be an
    object built elsewhere or once."""
    if is_seq(sym) and seq_kind(sym) == "generator":
        return "a new generator"
    if not is_call(sym):
        return None
    resolved = calls.get(sym[1])
    if resolved is None or not resolved.constructs or not resolved.targets or resolved.api:
        return None
    classes = [target for how, target in resolved.targets if how == "class"]
    if len(classes) != len(resolved.targets):
        return None
    if not all(_identity_keyed(index, c) for c in classes):
        return None
    return f"a new `{classes[0].qualname.rsplit('.', 1)[-1]}`"


def _made_per_run(
    index: ProjectIndex,
    fn: FunctionSummary,
    calls: dict[int, ResolvedCall],
    site: CallSite,
    sym: Sym,
) -> str | None:
    """What new object the argument `sym` of `site` is at every run of the site: built in
    the argument, or a local every assignment of which builds one, inside a loop around the
    site where the site is in one (a local built before the loop is one object for its
    calls)."""
    made = _made_here(index, fn, calls, sym)
    if made is not None:
        return made
    values = local_values(fn, sym)
    if not values:
        return None
    if site.in_loop:
        inside = {
            i
            for loop in fn.statement_loops
            if loop.span.encloses(site.span)
            for name, i, _ in loop.rebinds
            if name == sym[1]
        }
        if inside != set(range(len(values))):
            return None
    built = [_made_here(index, fn, calls, v) for v in values]
    return built[0] if all(built) else None


def _argument_names(
    index: ProjectIndex, resolved: ResolvedCall, kind: str, target: FunctionKey
) -> list[tuple[str, Sym]]:
    """The call's arguments with the parameter each binds, as the call binds them
    (`bind_written`, the evaluator's binding: the receiver left out where the call binds it,
    a staticmethod's first parameter kept, a `functools.partial` object's own arguments
    before the call's, `*args` and `**kwargs` by their names), positional ones first;
    arguments no parameter takes (the call raises) are none."""
    bound = bind_written(index.function(target), resolved, kind, target)
    return [(name, sym) for name, syms in bound.items() for sym in sorted(syms, key=repr)]


def fresh_argument_sites(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, callers: list[FunctionKey]
) -> tuple[list[FreshArgument], int]:
    """The call sites of `key` in `callers` that pass it a new object at every run, and how
    many call sites of it those callers hold in all."""
    found: list[FreshArgument] = []
    sites = 0
    for caller in callers:
        resolved_calls = facts.calls.get(caller, ())
        by_index = {r.index: r for r in resolved_calls}
        fn = index.function(caller)
        for resolved in resolved_calls:
            kind = next((how for how, target in callees(index, resolved) if target == key), None)
            if kind is None:
                continue
            sites += 1
            site = resolved.site
            for name, sym in _argument_names(index, resolved, kind, key):
                made = _made_per_run(index, fn, by_index, site, sym)
                if made is not None:
                    found.append(FreshArgument(caller, site.span, name, made, site.in_loop))
                    break
    return found, sites
