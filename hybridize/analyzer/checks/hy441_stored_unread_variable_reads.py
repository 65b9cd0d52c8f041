"""HY441 reads_stored_unread_variables: reads what an eager `assign` gave, kept on the object."""

from __future__ import annotations

from typing import cast

from hybridize.analyzer.checks.context import CheckContext
from hybridize.analyzer.facts.callgraph import calls_by_result, variable_update_in
from hybridize.analyzer.facts.evaluator import TensorFacts
from hybridize.analyzer.facts.frozen_state import traced_with
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.scan_memo import per_function
from hybridize.analyzer.frameworks.framework import FRAMEWORKS
from hybridize.analyzer.summaries.ir import FunctionSummary, Sym, function_syms
from hybridize.analyzer.summaries.keys import ClassKey, FunctionKey
from hybridize.analyzer.summaries.syms import (
    attr_base,
    attr_name,
    is_attr,
    is_local,
    is_param,
    sym_name,
)
from hybridize.model import Finding

from . import TENSORFLOW_ONLY, Check

STORED_UPDATES = "hy441_stored_updates"
"""`facts.cache` key of `stored_updates`' memo."""

METHOD_STORES = "hy441_method_stores"
"""The scan (`scan_memo.per_function`, kept across incremental updates) of each method's
stores of an update's result (`_method_stores`)."""

_UPDATE_METHODS = frozenset[str]().union(*(f.unread_variable_results for f in FRAMEWORKS))


class ReadsStoredUnreadVariables(Check):
    """Reads an attribute of its object that another method set to what a variable's
    `assign`, `assign_add` or `assign_sub` returned.

    What it detects
    ---------------
    A method reading `self.name` where a method of the object's class (a base or a
    subclass included) that is not traced with it stores there, directly or through a
    local, the result of `assign`/`assign_add`/`assign_sub` (`self.bias = bias.assign(v)` in
    `build`).

    Why it matters in graph mode
    ----------------------------
    Those methods return an unread variable (`_UnreadVariable`) tied to the update op. Run
    eagerly (in `__init__`, or in a Keras `build` that the layer's first eager call runs),
    the op is an eager one; a tf.function reading the stored value enters a control
    dependency on it, which a graph refuses: `TypeError: Can not convert a NoneType into a
    Tensor or Operation` while tracing. Eagerly the read works (measured under TF 2.21,
    tests/analyzer/test_hy441_stored_unread_variables.py; storing the variable itself, or
    `.read_value()` of the update, works compiled). edward2's `ActNorm.build` keeps
    `self.bias = bias.assign(...)` and its compiled `call` fails.

    Example
    -------
        class Shift(tf.Module):
            def __init__(self):
                bias = tf.Variable(tf.zeros([3]))
                self.bias = bias.assign(tf.ones([3]))

            def f(self, x):
                return x + self.bias

    Instead
    -------
    Store the variable (`bias.assign(...)`, then `self.bias = bias`), or a tensor
    (`.read_value()`).

    Not for torch.compile
    ---------------------
    PyTorch's in-place updates return the tensor itself; there are no unread variables.
    """

    code = "HY441"
    frameworks = TENSORFLOW_ONLY
    name = "reads_stored_unread_variables"
    severity = "error"
    summary = (
        "reads an attribute another method set, eagerly, to what a variable's `assign` gave "
        "(an unread variable): traced, reading it fails."
    )
    unblock = "store the variable itself, or `.read_value()` of the update"
    fact = "reads_stored_unread_variables"
    fact_meaning = (
        "reads an attribute another method set to what a variable's `assign` gave, eagerly: "
        "an unread variable a tf.function fails to read"
    )
    decision_order = 133
    EXAMPLE_FUNCTION = "Shift.f"

    @classmethod
    def project_fact(cls, index: ProjectIndex, facts: TensorFacts) -> object:
        """Where the project stores an update's result on an object: a finding on a method
        reads a store in another method, possibly of another module's class."""
        return frozenset(stored_updates(index, facts).items())

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        if not context.changes_on_compiling:
            return []
        fn = context.function
        receiver = context.scan.receiver
        if receiver is None or fn.class_qualname is None:
            return []
        stored = stored_updates(context.index, context.facts)
        if not stored:
            return []
        read = sorted(_receiver_attributes(fn, receiver))
        if not read:
            return []
        index, key = context.index, context.key
        own = ClassKey(key.file, fn.class_qualname)
        classes = [*index.mro(own), *index.subclasses(own)]
        with_it = {k for k, _, _ in traced_with(index, context.facts, key)}
        for attribute in read:
            for klass in classes:
                found = stored.get((klass, attribute))
                if found is None or found[0] in with_it:
                    continue
                method, update = found
                return [
                    cls.finding(
                        f"reads `{receiver}.{attribute}`, which "
                        f"`{index.function(method).qualname}` sets to what `{update}()` gives "
                        "(an unread variable tied to an eager op): traced, reading it fails "
                        "(TypeError: Can not convert a NoneType into a Tensor or Operation)",
                        fn.span,
                    )
                ]
        return []


def _receiver_attributes(fn: FunctionSummary, receiver: str) -> set[str]:
    """The attributes the function reads of its receiver (`self.name`)."""
    return {
        attr_name(sym)
        for sym in function_syms(fn)
        if is_attr(sym) and _is_named(attr_base(sym), receiver)
    }


def _is_named(sym: Sym, name: str) -> bool:
    """The value is the local or parameter `name` (the receiver)."""
    return (is_local(sym) or is_param(sym)) and sym_name(sym) == name


def stored_updates(
    index: ProjectIndex, facts: TensorFacts
) -> dict[tuple[ClassKey, str], tuple[FunctionKey, str]]:
    """(class, attribute) -> the method storing there what a variable update returns (as it
    is or through a local), and the update's method name. Memoised per solution."""
    memo = facts.cache.get(STORED_UPDATES)
    if memo is None:
        memo = facts.cache[STORED_UPDATES] = _stored_updates(index, facts)
    return cast("dict[tuple[ClassKey, str], tuple[FunctionKey, str]]", memo)


def _stored_updates(
    index: ProjectIndex, facts: TensorFacts
) -> dict[tuple[ClassKey, str], tuple[FunctionKey, str]]:
    """Each method's stores (`_method_stores`, kept across incremental updates:
    `per_function`), the first method in path order taken for each (class, attribute)."""
    scanned = per_function(
        facts, METHOD_STORES, lambda key, calls: _method_stores(index, facts, key)
    )
    found: dict[tuple[ClassKey, str], tuple[FunctionKey, str]] = {}
    for key in sorted(scanned, key=lambda k: (k.file, k.qualname)):
        for stored, update in scanned[key]:
            found.setdefault(stored, (key, update))
    return found


def _method_stores(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey
) -> tuple[tuple[tuple[ClassKey, str], str], ...]:
    """The (class, attribute) where the method `key` stores what a variable update returns,
    with the update's method name, in store order."""
    fn = index.function(key)
    if fn.class_qualname is None or not fn.binds_receiver or not fn.params:
        return ()
    receiver = fn.params[0].name
    stores = [s for s in fn.stores if s.kind == "attr" and _is_named(s.target, receiver)]
    if not stores:
        return ()
    calls = calls_by_result(facts, key)
    found: list[tuple[tuple[ClassKey, str], str]] = []
    for store in stores:
        update = variable_update_in(fn, calls, [store.value], _UPDATE_METHODS)
        if update is not None:
            klass = ClassKey(key.file, fn.class_qualname)
            found.append(((klass, store.name), update.rsplit(".", 1)[-1]))
    return tuple(found)
