"""Reads of the execution mode: code that asks whether it runs eagerly or is being compiled.

`tf.executing_eagerly()` is True in an eager call and False while `tf.function` traces the
function, and in every function its trace calls (`tf.inside_function()` the other way round;
`torch.compiler.is_compiling()` is True while Dynamo traces): measured under TF 2.21 and
torch 2.13. Eager callers only ever ran the eager side of every branch on it; compiling the
function (or a caller of it) switches every such branch it reaches at once, to code its
callers never ran (zfit's `Parameter.set_value` raises eagerly and adds an assert op in a
graph; its `z.function` runs the body directly once already in a graph).

A read is any call of the framework's `Framework.execution_mode_reads`; the two sides of the
branch are not compared (conservative): code reads the mode to do something else. A call of a
function a project decorator wraps runs the decorator's wrapper first, in the caller's trace:
a wrapper that reads the mode (zfit's `z.function` runs the body as is when not eager) is a
read of every function it decorates.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import cast

from hybridize.analyzer.facts.call_closure import traced_hazards
from hybridize.analyzer.facts.evaluator import TensorFacts
from hybridize.analyzer.facts.evidence import Evidence
from hybridize.analyzer.facts.refs import is_class_ref, is_func_ref
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.values import Atom, canonical, is_func_atom, is_obj_atom, obj_class
from hybridize.analyzer.frameworks import written_name
from hybridize.analyzer.summaries.ir import FunctionSummary
from hybridize.analyzer.summaries.keys import FunctionKey

MEMO = "execution_mode_reads"
OWN = "execution_mode_reads_own"
PLAIN = "execution_mode_plain_reads"
"""`facts.cache` keys: the reads through callees and wrappers, a function's own (its calls
and its decorators' wrappers), the reads through callees only (what a wrapper reaches)."""
PLAIN_OWN = "execution_mode_plain_reads_own"
WRAPPERS = "execution_mode_wrapper_reads"
"""`facts.cache` key: per decorated function whose wrapper reads were computed, the reads in
words (what `changed_wrapper_reads` compares after an edit of the decorator's module)."""

WrapperReads = dict[FunctionKey, tuple[str, ...]]
"""Per function with decorators, what its decorators' wrappers read, in words (() none)."""


def execution_mode_reads(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey
) -> list[Evidence]:
    """The function's reads of the execution mode (in its body, or in the wrapper of a
    project decorator of it), or its calls of project functions whose trace reads it (each
    with the chain of calls down to the read). Memoised per project."""
    return traced_hazards(index, facts, key, lambda current: _own(index, facts, current, OWN), MEMO)


def _plain_reads(index: ProjectIndex, facts: TensorFacts, key: FunctionKey) -> list[Evidence]:
    """The reads in the function or in the project functions its trace calls, not through
    decorators' wrappers (what a wrapper itself reaches). Memoised per project."""
    return traced_hazards(
        index, facts, key, lambda current: _own(index, facts, current, PLAIN_OWN), PLAIN
    )


def _own(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, memo_key: str
) -> list[Evidence]:
    """The function's own reads (with its decorators' wrappers unless `memo_key` is
    PLAIN_OWN), memoised per project."""
    memo = cast(dict[FunctionKey, list[Evidence]], facts.cache.setdefault(memo_key, {}))
    found = memo.get(key)
    if found is None:
        found = _calls_reading(index, facts, key)
        if memo_key == OWN:  # a wrapper's reads are solved apart: no solve re-enters its own
            found = _wrapper_reads(index, facts, key) + found
        memo[key] = found
    return found


def _calls_reading(index: ProjectIndex, facts: TensorFacts, key: FunctionKey) -> list[Evidence]:
    """The function's calls of the framework's `execution_mode_reads`."""
    reads = index.function_framework(key).execution_mode_reads
    if not reads:
        return []
    found = []
    for resolved in facts.calls.get(key, []):
        name = next((info.name for info in resolved.api if info.name in reads), None)
        if name is not None:
            found.append(
                Evidence(
                    f"`{written_name(name)}()` is read ({reads[name]}): compiled, every "
                    "branch on it takes the side its eager callers never ran",
                    resolved.site.span,
                )
            )
    return found


def _wrapper_reads(index: ProjectIndex, facts: TensorFacts, key: FunctionKey) -> list[Evidence]:
    """The function's project decorators whose wrapper (run at every call, in the caller's
    trace) reads the mode, itself or through its callees."""
    if key.is_module_code or key.file not in index.modules:
        return []
    if not index.function_framework(key).execution_mode_reads:
        return []
    fn = index.function(key)
    if not fn.decorators:
        return []
    found = _decorator_reads(index, facts, key, fn)
    memo = cast(WrapperReads, facts.cache.setdefault(WRAPPERS, {}))
    memo[key] = tuple(evidence.message for evidence in found)
    return found


def read_wrapper_reads(facts: TensorFacts, before: WrapperReads | None) -> WrapperReads | None:
    """The wrapper reads the verdicts of this solution read: those it computed, else (no
    verdict asked) those the verdicts kept from an earlier one read (`before`)."""
    found = facts.cache.get(WRAPPERS)
    return cast(WrapperReads, found) if found is not None else before


def changed_wrapper_reads(
    index: ProjectIndex, facts: TensorFacts, before: WrapperReads | None
) -> set[FunctionKey]:
    """The decorated functions whose wrappers' reads differ between `before` (what the
    verdicts kept read) and this solution: an edit of the decorator's module, which may
    leave the decorated function and its callers settled."""
    if before is None:
        return set()
    changed = set()
    for key, reads in before.items():
        if not index.has_function(key):
            continue
        now = tuple(
            evidence.message
            for evidence in _decorator_reads(index, facts, key, index.function(key))
        )
        if now != reads:
            changed.add(key)
    return changed


def _decorator_reads(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, fn: FunctionSummary
) -> list[Evidence]:
    found = []
    for decorator in fn.decorators:
        for wrapper in sorted(set(_wrappers(index, facts, key, decorator.name, decorator.called))):
            if wrapper == key:
                continue
            reached = _plain_reads(index, facts, wrapper)
            if reached:
                found.append(
                    Evidence(
                        f"its decorator `{decorator.name}` wraps it in "
                        f"`{index.function(wrapper).qualname}`, run at every call, where "
                        f"{reached[0].message}",
                        decorator.span if decorator.span.start_line else fn.span,
                    )
                )
                break
    return found


def _wrappers(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, name: str, called: bool
) -> Iterator[FunctionKey]:
    """The project functions that run at a call of a function decorated by `name` (applied
    once, or called first when `called`: `@z.function(wraps="model")`): the function the
    decorator returns, or the `__call__` of the object it returns."""
    ref = index.resolve_dotted(key.file, name)
    made: Iterable[Atom]
    if is_func_ref(ref):
        made = facts.returns.get(ref[1], frozenset())
        if called:  # a factory: what it returns is applied
            made = _applied(facts, index, made)
    elif is_class_ref(ref):
        call = index.find_method(ref[1], "__call__")
        if call is None:
            return
        if not called:
            yield call  # the decorated name is an object of the class
            return
        made = facts.returns.get(call, frozenset())
    else:
        return
    for atom in sorted(made, key=canonical):
        run = _run_by_calling(index, atom)
        if run is not None:
            yield run


def _applied(facts: TensorFacts, index: ProjectIndex, decorators: Iterable[Atom]) -> set[Atom]:
    """What applying each of `decorators` (a project function, or an object of a project
    class with `__call__`) to a function returns."""
    made: set[Atom] = set()
    for atom in sorted(decorators, key=canonical):
        run = _run_by_calling(index, atom)
        if run is not None:
            made |= facts.returns.get(run, frozenset())
    return made


def _run_by_calling(index: ProjectIndex, atom: Atom) -> FunctionKey | None:
    """The project function a call of the value `atom` runs: the function itself, or the
    `__call__` of an object of a project class."""
    if is_func_atom(atom):
        return atom[1]
    if is_obj_atom(atom):
        klass = obj_class(atom)
        return index.find_method(klass, "__call__") if klass is not None else None
    return None
