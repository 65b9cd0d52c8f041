"""Python state a function reads while other code reassigns it: frozen at trace time.

A traced function reads `self.threshold` or a module global while tracing, and the graph
keeps what it saw: a Python value, or an eager tensor, is embedded as a constant; an object
TensorFlow converts to a tensor (`tf.register_tensor_conversion_function`, as edward2's
random variables) is embedded as the tensor it converted to; a `tf.Variable`, or a layer's
variables, are captured by reference. When other code binds a new value to the attribute or
global between calls, the eager function reads the new one and the graph keeps reading the
old one (nothing in the cache key changed, so it does not retrace), whatever the kind of
either: a new `tf.Variable` bound in place of the old one is not read either (measured on
TF 2.21: tests/analyzer/test_frozen_state_measured.py). Only state changed in place stays
live: `self.w.assign(...)` writes the variable the graph captured.

An argument object (not a container, named tuple or attrs instance, which `tf.function`
opens) is keyed by identity and the body traced with it: its attributes are state of its
class's instances as `self`'s are, and so are the attributes its `__tf_tensor__` reads
(measured: tests/analyzer/test_python_object_arguments_measured.py).

The fact holds only on evidence: the analysis sees, elsewhere in the project, an assignment
to that attribute or global after initialisation. Initialisation is the class's `__init__`
(and a Keras `build`, which runs before the first call), and module code that runs before
the first call of the function outside any loop.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import compress
from operator import is_not
from typing import Any, cast

from hybridize.analyzer.facts.cited_lines import cited_line
from hybridize.analyzer.facts.effects import bound_in_enclosing_function
from hybridize.analyzer.facts.evaluator import (
    Evaluator,
    TensorFacts,
    callees,
    get_evaluator,
    take_changed_evaluators,
)
from hybridize.analyzer.facts.evidence import Evidence
from hybridize.analyzer.facts.predicates import leaf_atoms
from hybridize.analyzer.facts.refs import is_global_ref, module_ref
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.values import (
    UNKNOWN_ATOM,
    Atom,
    canonical,
    is_lit_atom,
    is_module_atom,
    is_obj_atom,
    obj_class,
)
from hybridize.analyzer.summaries.ir import FunctionSummary, Sym
from hybridize.analyzer.summaries.keys import MODULE_CODE, ClassKey, FunctionKey
from hybridize.analyzer.summaries.syms import (
    AttrSym,
    LocalSym,
    attr_base,
    attr_name,
    attr_sym,
    is_attr,
    is_name,
    local_sym,
    param_sym,
    sym_name,
    syms_of_kinds,
)
from hybridize.model import Span

INITIALISERS = frozenset({"__init__", "__new__", "__post_init__"})
"""Methods that set an object up before anyone calls it."""


@dataclass(frozen=True, slots=True)
class Write:
    """An assignment that may change state between calls: who does it, and where."""

    writer: FunctionKey
    span: Span
    kinds: frozenset[str] = frozenset()
    """For an attribute of a module-level object of no project class (`_object_attribute`):
    the kinds of the value written (`_leaf_kinds`), which the evaluator cannot tell at the
    read (such an object has no attributes it knows)."""
    makes_variable: bool = False
    """The value written is a variable made there (`self.w = tf.Variable(...)`, a layer's
    `add_weight`): the write creates the state the graph reads by reference, as Sonnet's
    `@once` `_initialize` does before the first call, rather than changing it between calls."""


StateKey = tuple[str, ClassKey | str, str]
"""("attr", class key, attribute) or ("global", module relpath, name)."""


def attr_state(class_key: ClassKey, attribute: str) -> StateKey:
    """The state an attribute of the project class's instances holds."""
    return ("attr", class_key, attribute)


def global_state(relpath: str, name: str) -> StateKey:
    """The state a module-level variable holds (its key reads as the variable's `Ref`)."""
    return ("global", relpath, name)


MAX_HELPER_DEPTH = 4
"""How far into the project functions a traced function calls its reads are followed."""


GUARDED_KINDS = frozenset({"lit:int"})
"""Values `torch.compile` guards on by value at every change: ints (a float read from state
recompiles once and is then dynamic; measured, `torch_rules.STATE_RECOMPILES`)."""


@dataclass(frozen=True, slots=True)
class ChangingRead:
    """A read of state that other code reassigns between calls, in words."""

    text: str
    """"reads `self.t`, which `Trainer.step` reassigns (m.py, line 9)", after the path of
    calls leading to the reader ("calls `helper`, which ")."""
    entry: Span
    """The statement of the function itself that leads to the read."""


def frozen_state_reads(index: ProjectIndex, facts: TensorFacts, key: FunctionKey) -> list[Evidence]:
    """Reads of `self` attributes and module globals holding values a trace freezes, when
    the project reassigns them outside initialisation; in the function or in a project
    function it calls (traced with it)."""
    read = changing_state_read(index, facts, key, between_calls_only=True)
    if read is None:
        return []
    text = f"{read.text}: a graph keeps the value it saw while tracing"
    return [Evidence(text, read.entry)]


def changing_state_read(
    index: ProjectIndex,
    facts: TensorFacts,
    key: FunctionKey,
    holds: Callable[[frozenset[str]], bool] = lambda kinds: True,
    *,
    between_calls_only: bool = False,
) -> ChangingRead | None:
    """The first read, in the function or a project function it calls, of a `self`
    attribute or module global that the project reassigns outside initialisation and whose
    values' kinds (`_leaf_kinds`) satisfy `holds`; None when there is none.

    `between_calls_only` (what a trace freezes, HY408): leave out the writes the traced
    code runs itself (a trace runs them once, while tracing; a compiler that guards on the
    value, as Dynamo, sees them change between calls all the same) and the writes binding
    a variable they make (`Write.makes_variable`)."""
    fn = index.function(key)
    if fn.is_lambda or key.is_module_code:
        return None
    writes = _writes(index, facts)
    region = traced_with(index, facts, key)
    traced = {function for function, _, _ in region} if between_calls_only else {key}
    for reader, via, entry in region:
        for what, state, kinds in _state_reads(index, facts, reader):
            written = writes.get(state)
            if not written or not holds(kinds):  # most state is never reassigned
                continue
            for write in written:
                # A write the trace runs itself happens while tracing, not between calls
                # (a Python side effect of the trace: HY107's), where only the trace counts.
                if (
                    write.writer in traced
                    or write.writer == reader
                    or (between_calls_only and write.makes_variable)
                    or not _after_initialisation(index, facts, key, write)
                ):
                    continue
                writer = index.function(write.writer)
                who = "module code" if writer.qualname == MODULE_CODE else f"`{writer.qualname}`"
                where = write.writer.file
                line = cited_line(where, write.span.start_line)
                text = f"{via}reads {what}, which {who} reassigns ({where}, line {line})"
                return ChangingRead(text, entry)
    return None


def reassigned_reads(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, reader: FunctionKey
) -> list[tuple[Sym, str]]:
    """The reads of state in `reader` (the function `key` or a project function traced with
    it) that the project reassigns between calls of `key`, each with the words that name the
    read and its writer ("`self.scale`, which `Trainer.step` reassigns (m.py, line 9)")."""
    writes = _writes(index, facts)
    found: list[tuple[Sym, str]] = []
    for what, (state, sym) in _reads(index, facts, reader, index.function(reader)):
        for write in writes.get(state, ()):
            if write.writer in (key, reader) or not _after_initialisation(index, facts, key, write):
                continue
            writer = index.function(write.writer)
            who = "module code" if writer.qualname == MODULE_CODE else f"`{writer.qualname}`"
            found.append(
                (
                    sym,
                    f"{what}, which {who} reassigns ({write.writer.file}, line "
                    f"{cited_line(write.writer.file, write.span.start_line)})",
                )
            )
            break
    return found


def guarded_by_value(kinds: frozenset[str]) -> bool:
    """Every value the state may hold is a Python int (`GUARDED_KINDS`)."""
    return bool(kinds) and kinds <= GUARDED_KINDS


def traced_with(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey
) -> tuple[tuple[FunctionKey, str, Span], ...]:
    """The function and the project functions it calls (to MAX_HELPER_DEPTH), each with
    the words that lead to it ("calls `helper`, which ") and the call in the function's own
    body that leads to it (the function's span for the function itself): a finding about a
    helper points at the statement that brings it into the trace.

    Memoised per function in `facts.cache` (cleared with every solve): six checks ask for
    the region of every function they decide (HY408, HY411, HY420, HY424, HY433 and the
    injected doubles), each walking the same calls."""
    memo = cast(
        "dict[FunctionKey, tuple[tuple[FunctionKey, str, Span], ...]]",
        facts.cache.setdefault(TRACED_WITH, {}),
    )
    found = memo.get(key)
    if found is None:
        found = memo[key] = tuple(_traced_with(index, facts, key))
    return found


TRACED_WITH = "traced_with"
"""The `facts.cache` entry of `traced_with`, by function."""


def _traced_with(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey
) -> Iterator[tuple[FunctionKey, str, Span]]:
    seen = {key}
    frontier = [(key, "", index.function(key).span)]
    for _ in range(MAX_HELPER_DEPTH + 1):
        following: list[tuple[FunctionKey, str, Span]] = []
        for current, via, entry in frontier:
            yield current, via, entry
            for target, name, span in _first_calls(index, facts, current):
                if target not in seen:
                    seen.add(target)
                    step = span if current == key else entry
                    following.append((target, f"{via}calls `{name}`, which ", step))
        frontier = following


FIRST_CALLS = "frozen_first_calls"
"""The `facts.cache` entry of `_first_calls`, by function."""


def _first_calls(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey
) -> list[tuple[FunctionKey, str, Span]]:
    """The project functions `key` calls, each once, in the order of its first call, with
    its qualified name and the span of that call: what `_traced_with` reads of a function's
    calls (a later call of a target already met adds nothing to its walk). Memoised per
    function: every function whose region reaches it walks its calls again."""
    memo = cast(
        "dict[FunctionKey, list[tuple[FunctionKey, str, Span]]]",
        facts.cache.setdefault(FIRST_CALLS, {}),
    )
    found = memo.get(key)
    if found is None:
        met: set[FunctionKey] = set()
        found = memo[key] = []
        for resolved in facts.calls.get(key, ()):
            for _, target in callees(index, resolved):
                if target not in met:
                    met.add(target)
                    found.append((target, index.function(target).qualname, resolved.site.span))
    return found


def _state_reads(index: ProjectIndex, facts: TensorFacts, reader: FunctionKey) -> list[StateRead]:
    """The state `reader` reads, with the kinds of the values it may hold, in a fixed order.

    Memoised per reader: every function that calls it (to MAX_HELPER_DEPTH) asks again, and
    on a large project the same helpers are read thousands of times (sorting their values
    each time took a third of the verdict phase on TensorFlow's own ops)."""
    memo = facts.cache.get(FROZEN_READS)
    if not isinstance(memo, StateReads):
        memo = facts.cache[FROZEN_READS] = StateReads()
    found = memo.get(reader)
    if found is None:
        evaluator = get_evaluator(index, facts, reader)
        writes = _writes(index, facts)
        # the kinds are weighed only for state the project reassigns (most is never): of
        # any other they are left empty (a change of the writes re-reads: `differing_states`)
        found = memo[reader] = [
            (
                what,
                state,
                _held_kinds(_leaf_kinds(evaluator.eval(sym)), written)
                if (written := writes.get(state))
                else frozenset(),
            )
            for what, (state, sym) in _reads(index, facts, reader, index.function(reader))
        ]
    return found


FROZEN_READS = "frozen_reads"
"""The `facts.cache` entry of `_state_reads`, by reader (a `StateReads`)."""

StateRead = tuple[str, StateKey, frozenset[str]]
"""A read of state: its words, the state, the kinds of the values it may give."""


class StateReads(dict[FunctionKey, list[StateRead]]):
    """The state each function reads (`_state_reads`' memo, kept by an incremental verdict
    phase for the next), with the readers of each state alongside: the functions an edit's
    changed state reaches (`verdict_scope.readers_of`) are looked up by state, not found by
    a look at what every function of the project reads. A reader's reads are replaced
    whole (`memo[reader] = reads`) or dropped (`pop`), never changed in place."""

    __slots__ = ("_readers",)

    def __init__(self) -> None:
        super().__init__()
        self._readers: dict[StateKey, set[FunctionKey]] = {}

    def __setitem__(self, reader: FunctionKey, reads: list[StateRead]) -> None:
        if reader in self:
            self._forget(reader)
        super().__setitem__(reader, reads)
        for _, state, _ in reads:
            self._readers.setdefault(state, set()).add(reader)

    def __delitem__(self, reader: FunctionKey) -> None:
        self._forget(reader)
        super().__delitem__(reader)

    def pop(self, reader: FunctionKey, default: Any = None) -> Any:
        if reader not in self:
            return default
        self._forget(reader)
        return super().pop(reader)

    def update(self, *others: Any, **named: Any) -> None:
        for reader, reads in dict(*others, **named).items():
            self[reader] = reads

    def setdefault(self, reader: FunctionKey, default: Any = None) -> Any:
        if reader not in self:
            self[reader] = default
        return self[reader]

    def clear(self) -> None:
        super().clear()
        self._readers.clear()

    def popitem(self) -> tuple[FunctionKey, list[StateRead]]:
        reader = next(reversed(self))
        return reader, self.pop(reader)

    def __ior__(self, other: Any) -> StateReads:  # type: ignore[override,misc]
        self.update(other)
        return self

    def readers(self, states: Iterable[object]) -> set[FunctionKey]:
        """The functions whose reads name one of `states`."""
        found: set[FunctionKey] = set()
        for state in states:
            readers = self._readers.get(state)  # type: ignore[call-overload]
            if readers:
                found |= readers
        return found

    def _forget(self, reader: FunctionKey) -> None:
        for _, state, _ in self[reader]:
            readers = self._readers.get(state)
            if readers is not None:
                readers.discard(reader)
                if not readers:
                    del self._readers[state]


def _held_kinds(read: frozenset[str], writes: Iterable[Write]) -> frozenset[str]:
    """The kinds of the values a read of state may give: what the evaluator tells at the
    read; for an attribute of a module-level object of no project class, whose attributes
    the evaluator does not know, the kinds its writes store (the unknown among them left
    out when some are known: its initial `False` says what the flag holds)."""
    written = frozenset().union(*(write.kinds for write in writes))
    if not written:
        return read
    known = frozenset(kind for kind in written if kind != UNKNOWN_KIND)
    return (read - {UNKNOWN_KIND}) | (known or written)


UNKNOWN_KIND = UNKNOWN_ATOM[0]


def _leaf_kinds(atoms: frozenset[Atom]) -> frozenset[str]:
    """The kinds of the values held: atom kinds, a literal's with its type (`lit:int`)."""
    return frozenset(f"lit:{a[1]}" if is_lit_atom(a) else a[0] for a in leaf_atoms(atoms))


def _reads(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, fn: FunctionSummary
) -> Iterator[tuple[str, tuple[StateKey, Sym]]]:
    """The state the function reads: attributes of `self`, and module globals."""
    relpath = key.file
    receiver = fn.params[0].name if fn.binds_receiver and fn.params else None
    class_key = FunctionKey(relpath, fn.class_qualname) if fn.class_qualname else None
    selves = {param_sym(receiver), local_sym(receiver)} if receiver else set()
    evaluator = get_evaluator(index, facts, key)
    arguments = _argument_syms(fn)
    # Only attribute and name reads can be state: the others are left out before the sort,
    # whose `repr` of every value the evaluator met was most of this walk; and of the
    # attributes only those of the receiver or of a name (the branches below), not those of
    # a call's result or of another attribute (`tf.nn.relu`'s `relu`), most of them.
    reads = sorted(
        {
            sym
            for sym in syms_of_kinds((*evaluator.memo, *_getattr_reads(facts, key)), "attr", "name")
            if is_name(sym) or sym[1] in selves or is_name(sym[1]) or sym[1] in arguments
        },
        key=repr,
    )
    yield from _converted_argument_reads(index, facts, fn, evaluator)
    for sym in reads:
        if is_attr(sym) and attr_base(sym) in arguments:
            yield from _argument_attribute_reads(index, fn, evaluator, sym)
        elif is_attr(sym) and attr_base(sym) in selves and class_key is not None:
            if index.find_method(class_key, sym[2]) is None:
                yield f"`{receiver}.{sym[2]}`", (attr_state(class_key, sym[2]), sym)
        elif is_attr(sym) and _free_name(index, key, fn, sym[1], closures=True):
            # An attribute of a module-level object (`config.temperature`), or a global of
            # another module (`settings.SCALE`); of an object of a project class a nested
            # function closes over (`schedule.lr` in `train`'s `step`: state of that class's
            # instances, as an attribute of `self` is).
            described = False
            for atom in evaluator.eval(sym[1]):
                if (
                    is_obj_atom(atom)
                    and atom[2] is not None
                    and index.find_method(atom[2], sym[2]) is None
                ):
                    described = True
                    yield f"`{sym[1][1]}.{sym[2]}`", (attr_state(atom[2], sym[2]), sym)
                elif is_module_atom(atom):
                    described = True
                    ref = index.member(module_ref(atom[1]), sym[2])
                    if is_global_ref(ref):
                        yield f"`{sym[1][1]}.{sym[2]}`", (global_state(ref[1], ref[2]), sym)
            # (Only then is the global looked up: `_free_name` held above.)
            held = (
                None
                if described or not _free_name(index, key, fn, sym[1])
                else _resolved_global(index, key, sym[1])
            )
            if held is not None:
                # A module-level object of no project class (`threading.local()`): its
                # attribute is state of the global that holds it.
                yield f"`{sym[1][1]}.{sym[2]}`", (_object_attribute(held, sym[2]), sym)
        elif is_name(sym) and (found := _global(index, key, fn, sym)) is not None:
            yield f"the global `{sym[1]}`", (found, sym)


def _argument_syms(fn: FunctionSummary) -> frozenset[Sym]:
    """The parameters a caller supplies (not the receiver), as the body reads them: the
    parameter, and the local of its name when the body never binds that name again."""
    found: set[Sym] = set()
    for param in fn.explicit_params:
        found.add(param_sym(param.name))
        if all(value == param_sym(param.name) for value in fn.locals.get(param.name, ())):
            found.add(local_sym(param.name))
    return frozenset(found)


def _argument_attribute_reads(
    index: ProjectIndex, fn: FunctionSummary, evaluator: Evaluator, sym: AttrSym
) -> Iterator[tuple[str, tuple[StateKey, Sym]]]:
    """A read of an attribute of an argument object of a project class (not a method):
    state of that class's instances, as an attribute of `self` is. `tf.function` keys an
    object argument by identity (TF 2.21 `Weakref`) and traces the body with the object
    itself, once: what the body read of it is kept for later calls with the same object
    (measured: tests/analyzer/test_python_object_arguments_measured.py)."""
    base, attribute = attr_base(sym), attr_name(sym)
    name = sym_name(cast("LocalSym", base))
    for atom in sorted(evaluator.eval(base), key=canonical):
        class_key = obj_class(atom) if is_obj_atom(atom) else None
        if class_key is not None and index.find_method(class_key, attribute) is None:
            words = f"`{name}.{attribute}` of the argument `{name}`"
            yield words, (attr_state(class_key, attribute), sym)


TENSOR_CONVERSION = "__tf_tensor__"
"""The method through which TensorFlow converts an object to a tensor (TF 2.21)."""


def _converted_argument_reads(
    index: ProjectIndex, facts: TensorFacts, fn: FunctionSummary, evaluator: Evaluator
) -> Iterator[tuple[str, tuple[StateKey, Sym]]]:
    """The attributes of `self` that `__tf_tensor__` reads, for each argument object of a
    project class defining it: `tf.function` keys such an object by identity and converts
    it inside the trace, once, so the graph keeps the tensor it gave (measured on TF 2.21:
    2.0 and 2.0 where eager gives 2.0 and 6.0 after the attribute changed)."""
    for param in fn.explicit_params:
        sym = param_sym(param.name)
        # The objects converting themselves are found before the sort: most values are not.
        converting = []
        for atom in evaluator.eval(sym):
            class_key = obj_class(atom) if is_obj_atom(atom) else None
            method = None if class_key is None else index.find_method(class_key, TENSOR_CONVERSION)
            if method is not None:
                converting.append((atom, method))
        for _, method in sorted(converting, key=lambda found: canonical(found[0])):
            for what, state, _ in _state_reads(index, facts, method):
                yield (
                    f"{what} (in `{index.function(method).qualname}`, converting the "
                    f"argument `{param.name}` to a tensor inside the trace)",
                    (state, sym),
                )


GETATTR = "builtins.getattr"


def _getattr_reads(facts: TensorFacts, key: FunctionKey) -> Iterator[Sym]:
    """`getattr(obj, "name")` and `getattr(obj, "name", default)` with a literal name, as the
    attribute reads they are (`obj.name`): larq's `should_quantize()` reads its thread-local
    flag so."""
    for resolved in facts.calls.get(key, []):
        args = resolved.site.args
        if len(args) < 2 or args[1][:2] != ("lit", "str") or not isinstance(args[1][2], str):
            continue
        if any(info.name == GETATTR for info in resolved.api):
            yield attr_sym(args[0], args[1][2])


def _object_attribute(held: StateKey, attribute: str) -> StateKey:
    """The state of an attribute of the object a module global holds, when that object is
    of no project class (`_scope = threading.local()`, `_scope.flag`): keyed by the global,
    `("global", module, "_scope.flag")`."""
    return global_state(cast(str, held[1]), f"{held[2]}.{attribute}")  # a global's: a relpath


def _free_name(
    index: ProjectIndex, key: FunctionKey, fn: FunctionSummary, sym: Sym, closures: bool = False
) -> bool:
    """A name the function reads from its module (a global, an imported module), or with
    `closures` from an enclosing function too."""
    return (
        is_name(sym)
        and (sym[1] not in fn.locals or sym[1] in fn.globals_declared)
        and (closures or not bound_in_enclosing_function(index, key, sym[1]))
    )


def _global(
    index: ProjectIndex, key: FunctionKey, fn: FunctionSummary, sym: Sym
) -> StateKey | None:
    """The module global a free name read denotes, if it is one."""
    if not _free_name(index, key, fn, sym):
        return None
    return _resolved_global(index, key, sym)


def _resolved_global(index: ProjectIndex, key: FunctionKey, sym: Sym) -> StateKey | None:
    """The module global a free name (`_free_name`) of the function's module denotes, if it
    is one."""
    ref = index.resolve_global(key.file, sym[1])
    return global_state(ref[1], ref[2]) if is_global_ref(ref) else None


def _module_global(
    index: ProjectIndex, key: FunctionKey, fn: FunctionSummary, sym: Sym
) -> StateKey | None:
    """The module global a name denotes where it is written through (module code binds its
    own globals as locals)."""
    if key.is_module_code and is_name(sym):
        ref = index.resolve_global(key.file, sym[1])
        return global_state(ref[1], ref[2]) if is_global_ref(ref) else None
    return _global(index, key, fn, sym)


def frozen_state_writes(index: ProjectIndex, facts: TensorFacts) -> dict[StateKey, list[Write]]:
    """Every write of module state the frozen-state check weighs (memoised in the facts)."""
    return _writes(index, facts)


def _writes(index: ProjectIndex, facts: TensorFacts) -> dict[StateKey, list[Write]]:
    """Every assignment of an instance attribute or a module global in the project.

    Each writer's part is kept across incremental updates with the evaluator it was read
    through (`CombinedWrites` in `facts.scans`): a writer evaluated again has a new one, and
    `forget_writers` drops those whose evaluator read a fact that changed. Only the states
    those writers write are combined again."""
    cached = facts.cache.get("state_writes")
    if isinstance(cached, dict):
        return cached
    keys = index.function_keys()
    combined = facts.scans.get(COMBINED_WRITES)
    changed = take_changed_evaluators(facts)
    evaluators = facts.evaluators
    if not isinstance(combined, CombinedWrites) or (
        combined.keys is not keys and combined.keys != keys
    ):
        combined = facts.scans[COMBINED_WRITES] = CombinedWrites(keys)
        # every writer, read for the first time: their identities compared in C
        stale = list(compress(keys, map(is_not, map(evaluators.get, keys), combined.used)))
        combined.checked = len(keys)
    else:
        # The writers whose evaluator is not the one their part was read through: among
        # those whose evaluator changed since the last combination, and those forgotten
        # since: after an edit nearly every part is kept, and a pass over every function of
        # the project (even in C) cost an edit more than the rest of this one.
        order, used = combined.order, combined.used
        candidates = changed | combined.forgotten
        stale = sorted(
            (k for k in candidates if k in order and evaluators.get(k) is not used[order[k]]),
            key=order.__getitem__,
        )
        combined.checked = len(candidates)
    combined.keys = keys
    combined.forgotten = set()
    affected: set[StateKey] = set()
    for writer in stale:
        evaluator = get_evaluator(index, facts, writer)
        combined.used[combined.order[writer]] = evaluator
        part = _writes_of(index, writer, evaluator)
        old = combined.parts.pop(writer, None)
        if old:
            for state, _ in old:
                affected.add(state)
                combined.writers_of[state].discard(writer)
        if part:
            combined.parts[writer] = part
            for state, _ in part:
                affected.add(state)
                combined.writers_of.setdefault(state, set()).add(writer)
    differing: set[StateKey] = set()
    for state in affected:
        before = combined.found.get(state)
        writers = combined.writers_of.get(state)
        if not writers:
            combined.writers_of.pop(state, None)
            if combined.found.pop(state, None) is not None:
                differing.add(state)
            continue
        writes = [
            write
            for writer in sorted(writers, key=combined.order.__getitem__)
            for written, write in combined.parts[writer]
            if written == state
        ]
        if writes != before:
            differing.add(state)
        combined.found[state] = writes
    found = dict(combined.found)
    facts.cache["state_writes"] = found
    combined.differing = (combined.previous, differing)
    combined.previous = found
    return found


COMBINED_WRITES = "state_writes_combined"
_UNREAD = object()
"""The evaluator of a writer whose part is to be read (`CombinedWrites.used`)."""


class CombinedWrites:
    """The project's state writes as last combined, and what lets the next combination read
    again only the writers whose evaluator changed: per writer the evaluator its part was
    read through, the parts, and per state its writers (in project order)."""

    __slots__ = (
        "checked",
        "differing",
        "forgotten",
        "found",
        "keys",
        "order",
        "parts",
        "previous",
        "used",
        "writers_of",
    )

    def __init__(self, keys: list[FunctionKey]) -> None:
        self.keys = keys
        self.order = {key: i for i, key in enumerate(keys)}
        self.used: list[object] = [_UNREAD] * len(keys)
        """Per function of `keys`, the evaluator its part was read through (`_UNREAD`: none
        yet, or forgotten; never None, which a function with no evaluator yet has)."""
        self.parts: dict[FunctionKey, list[tuple[StateKey, Write]]] = {}
        self.writers_of: dict[StateKey, set[FunctionKey]] = {}
        self.found: dict[StateKey, list[Write]] = {}
        self.previous: dict[StateKey, list[Write]] | None = None
        """The writes the last combination cached."""
        self.differing: tuple[dict[StateKey, list[Write]] | None, set[StateKey]] = (None, set())
        """The writes the combination before the last cached, and the states whose writes
        the last one changed from them."""
        self.forgotten: set[FunctionKey] = set()
        """The writers `forget_writers` dropped since the last combination."""
        self.checked = 0
        """How many writers the last combination asked whether their evaluator changed
        (every function of the project the first time; after an edit, those whose evaluator
        may have: `TensorFacts.evaluators_changed`)."""


def differing_states(
    facts: TensorFacts, before: object, now: dict[StateKey, list[Write]]
) -> set[StateKey] | None:
    """The states whose writes differ between `before` and `now`, as the combination that
    made `now` from `before` found them; None when those are not the last two combinations
    (the caller then compares them)."""
    combined = facts.scans.get(COMBINED_WRITES)
    if not isinstance(combined, CombinedWrites) or combined.previous is not now:
        return None
    previous, differing = combined.differing
    return differing if previous is not None and previous is before else None


def forget_writers(facts: TensorFacts, writers: Iterable[FunctionKey] | None) -> None:
    """Drop the kept writes of `writers` (all when None): what their evaluators read
    changed, so a target may now be another object."""
    combined = facts.scans.get(COMBINED_WRITES)
    if not isinstance(combined, CombinedWrites):
        return
    if writers is None:
        del facts.scans[COMBINED_WRITES]
        return
    for writer in writers:
        position = combined.order.get(writer)
        if position is not None:
            combined.used[position] = _UNREAD
            combined.forgotten.add(writer)


def _writes_of(
    index: ProjectIndex, writer: FunctionKey, evaluator: Evaluator
) -> list[tuple[StateKey, Write]]:
    """The state one function (or module code) assigns, in its order."""
    relpath = writer.file
    fn = index.function(writer)
    found: list[tuple[StateKey, Write]] = []

    def _makes_variable(value: Sym) -> bool:
        return _leaf_kinds(evaluator.eval(value)) == VARIABLE_KINDS

    for store in fn.stores:
        if store.kind == "global":
            found.append((global_state(relpath, store.name), Write(writer, store.span)))
        elif store.kind == "attr":
            described = False
            for atom in sorted(evaluator.eval(store.target), key=canonical):
                if is_obj_atom(atom) and atom[2] is not None:
                    described = True
                    write = Write(writer, store.span, makes_variable=_makes_variable(store.value))
                    for class_key in index.mro(atom[2]):
                        found.append((attr_state(class_key, store.name), write))
                elif is_module_atom(atom):
                    described = True
                    found.append((global_state(atom[1], store.name), Write(writer, store.span)))
            held = _module_global(index, writer, fn, store.target) if not described else None
            if held is not None:
                state = _object_attribute(held, store.name)
                kinds = _leaf_kinds(evaluator.eval(store.value))
                found.append((state, Write(writer, store.span, kinds)))
    for name, span in fn.name_bindings:
        # Initialisation or not is decided per reader (`_after_initialisation`).
        found.append((global_state(relpath, name), Write(writer, span)))
    return found


VARIABLE_KINDS = frozenset({"variable"})
"""The kinds of a value that is a variable (`Write.makes_variable`)."""


def _in_loop(fn: FunctionSummary, span: Span) -> bool:
    """Inside a `for` statement of the module, or its target (a comprehension repeats
    nothing around it)."""
    return any(loop.span.encloses(span) for loop in fn.loops if not loop.comprehension)


def _after_initialisation(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, write: Write
) -> bool:
    """Whether a write may run between calls of function `key`: not in an initialiser, and
    at module level only in a loop or after a call of the function."""
    writer = index.function(write.writer)
    if writer.name in INITIALISERS:
        return False
    if writer.name == "build" and writer.class_qualname is not None:
        class_key = write.writer.sibling(writer.class_qualname)
        if index.layer_role(class_key) is not None:
            return False
    if writer.qualname != MODULE_CODE:
        return True
    if _in_loop(writer, write.span):
        return True
    first = _first_call_lines(index, facts, write.writer).get(key)
    return first is not None and first < write.span.start_line


FIRST_CALL_LINES = "frozen_first_call_lines"
"""The `facts.cache` entry of `_first_call_lines`, by module code."""


def _first_call_lines(
    index: ProjectIndex, facts: TensorFacts, writer: FunctionKey
) -> dict[FunctionKey, int]:
    """The first line at which the code `writer` calls each project function: a module's
    writes after it run after a call of that function (`_after_initialisation`). Memoised
    per writer: each write of the module, for each function reading it, asks again."""
    memo = cast(
        "dict[FunctionKey, dict[FunctionKey, int]]", facts.cache.setdefault(FIRST_CALL_LINES, {})
    )
    found = memo.get(writer)
    if found is None:
        found = memo[writer] = {}
        for resolved in facts.calls.get(writer, ()):
            line = resolved.site.span.start_line
            for _, target in callees(index, resolved):
                known = found.get(target)
                if known is None or line < known:
                    found[target] = line
    return found
