"""Callables that carry `__wrapped__`, received as arguments: a compiled function gets the
wrapped one.

`functools.wraps(fn)` (and `functools.update_wrapper`, or a plain `wrapper.__wrapped__ = fn`)
marks a wrapper with the function it wraps. `tf.function` keys its traces on each argument's
trace type, and the trace type of an argument that has `__wrapped__` is the wrapped object's
(TF 2.21 `trace_type_builder.from_value`): the traced body receives the *wrapped* function as
the argument's value, so whatever the wrapper adds (scaling a result, a retry, a dispatch,
binding `self` for a bound method) is gone, with or without AutoGraph. A wrapper reached
otherwise (a global, a closure, a default the body reads as a name) keeps its behaviour:
AutoGraph converts the wrapper's own code. Measured by
tests/analyzer/test_hy417_wrapped_callable_arguments.py.

What has `__wrapped__` here, from the project's code:

* a function whose `def` is decorated with `functools.wraps(...)`, or that its enclosing
  body passes to `functools.update_wrapper` or gives a `__wrapped__` attribute;
* a function decorated by a project decorator returning such a function (directly, or
  through a decorator factory: `@retry(3)`), or by a project class whose `__init__` makes
  its instances wrappers (`functools.update_wrapper(self, fn)`, `self.__wrapped__ = fn`);
* an object of such a class; a bound method of a function that has it;
* a list, tuple or dict holding one (trace types are built element by element).

Library callables that carry `__wrapped__` (TensorFlow's own dispatching ops, a
`tf.function`, `functools.lru_cache`) are left out: their wrapped function computes what the
wrapper does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import cast

from hybridize.analyzer.facts.evaluator import TensorFacts, get_evaluator
from hybridize.analyzer.facts.evidence import Evidence
from hybridize.analyzer.facts.refs import ext_dotted, is_class_ref, is_ext_ref, is_func_ref
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.values import Atom, AtomKind, canonical, is_func_atom
from hybridize.analyzer.summaries.ir import FunctionSummary, Sym
from hybridize.analyzer.summaries.keys import ClassKey, FunctionKey
from hybridize.analyzer.summaries.syms import kind_of, param_sym
from hybridize.model import Span

WRAPPING_DECORATORS = frozenset({"functools.wraps"})
"""Decorators that set `__wrapped__` on the function they decorate."""
WRAPPER_UPDATERS = frozenset({"functools.update_wrapper"})
"""Calls that set `__wrapped__` on their first argument."""
WRAPPED_ATTRIBUTE = "__wrapped__"
MAX_DEPTH = 3
"""How deep decorator factories and containers are followed."""
_MARKING_BODIES = "wrapped_callables_marking_bodies"
"""The `facts.cache` entry of `WrappedCallables._may_mark`."""
_WRAPPING_CLASSES = "wrapped_callables_wrapping_classes"
"""The `facts.cache` entry of `WrappedCallables._wraps_instances`."""
_UNASKED = object()


@dataclass(frozen=True, slots=True)
class WrappedArgument:
    """A parameter that receives a callable carrying `__wrapped__`, and how it is one."""

    parameter: str
    how: str
    """Why the value carries `__wrapped__`, in words (`` `activation` is decorated by
    `scaled`, which returns a functools.wraps wrapper``)."""


_ANSWERING_KINDS: frozenset[AtomKind] = frozenset({"func", "method", "obj", "seq", "tup", "dict"})
"""The kinds of atom `WrappedCallables._may_answer` may say yes to."""


class WrappedCallables:
    """Which project callables carry `__wrapped__` (answers memoised while it is kept)."""

    def __init__(self, index: ProjectIndex, facts: TensorFacts) -> None:
        self.index = index
        self.facts = facts
        self._functions: dict[FunctionKey, str | None] = {}
        self._classes = cast("dict[ClassKey, bool]", facts.cache.setdefault(_WRAPPING_CLASSES, {}))
        """`_wraps_instances`, which reads nothing but the class's `__init__`: kept for the
        solve in `facts.cache`, shared by every function's question."""

    def received(self, key: FunctionKey) -> Iterator[WrappedArgument]:
        """The function's parameters that a caller (or the default) fills with a callable
        carrying `__wrapped__`."""
        fn = self.index.function(key)
        evidence = self.facts.param_atoms.get(key, {})
        evaluator = None
        for param in fn.explicit_params:
            atoms: set[Atom] = set(evidence.get(param.name, ()))
            if param.default is not None:
                if evaluator is None:
                    evaluator = get_evaluator(self.index, self.facts, self.index.owner_key(key))
                atoms |= evaluator.eval(param.default)
            how = self._first(self._may_answer_in_order(atoms, 0))
            if how is not None:
                yield WrappedArgument(param.name, how)

    def _first(self, atoms: Iterable[Atom], depth: int = 0) -> str | None:
        for atom in atoms:
            how = self.carries_wrapped(atom, depth)
            if how is not None:
                return how
        return None

    def carries_wrapped(self, atom: Atom, depth: int = 0) -> str | None:
        """Why a value of `atom` has `__wrapped__` (None when it is not known to)."""
        kind: AtomKind = atom[0]
        if kind in ("func", "method"):
            return self.function_wrapped(atom[1])
        if kind == "obj" and isinstance(atom[2], FunctionKey) and self._wraps_instances(atom[2]):
            return f"an object of `{atom[2].qualname}`, whose `__init__` makes it a wrapper"
        if depth >= MAX_DEPTH:
            return None
        if kind == "seq":
            return self._first(self._may_answer_in_order(atom[2], depth + 1), depth + 1)
        if kind == "tup":
            return self._first(
                (a for part in atom[1] for a in self._may_answer_in_order(part, depth + 1)),
                depth + 1,
            )
        if kind == "dict":
            return self._first(self._may_answer_in_order(atom[1], depth + 1), depth + 1)
        return None

    def _may_answer(self, atom: Atom, depth: int) -> bool:
        """Whether `carries_wrapped(atom, depth)` may answer: it holds a project function
        not yet known to be unwrapped (`function_wrapped` memoises its answers in the order
        asked, a decorator cycle cut where it was entered: one not asked yet keeps its
        place), or an object of a class that wraps its instances (`_wraps_instances`, which
        reads nothing else). Every other atom is answered None, and asks nothing new."""
        kind: AtomKind = atom[0]
        if kind in ("func", "method"):
            known = self._functions.get(atom[1], _UNASKED)
            if known is _UNASKED:
                return self._may_be_wrapped(atom[1])
            return known is not None
        if kind == "obj":
            return isinstance(atom[2], FunctionKey) and self._wraps_instances(atom[2])
        if depth >= MAX_DEPTH:
            return False
        if kind == "seq":
            return any(self._may_answer(a, depth + 1) for a in atom[2])
        if kind == "tup":
            return any(self._may_answer(a, depth + 1) for part in atom[1] for a in part)
        if kind == "dict":
            return any(self._may_answer(a, depth + 1) for a in atom[1])
        return False

    def _may_answer_in_order(self, atoms: Iterable[Atom], depth: int) -> list[Atom]:
        """The atoms `carries_wrapped` may answer, in the same order in every run
        (`canonical`), which is the order it asks about project functions in. An atom of
        any other kind than `_ANSWERING_KINDS` is left out at once (most of them: tensors,
        literals), without a call."""
        found: list[Atom] = []
        for atom in atoms:
            kind: AtomKind = atom[0]
            if kind in _ANSWERING_KINDS and self._may_answer(atom, depth):
                found.append(atom)
        return found if len(found) < 2 else sorted(found, key=canonical)

    def _may_be_wrapped(self, key: FunctionKey) -> bool:
        """Whether `function_wrapped(key)` may answer: the function is decorated, or the body
        defining it calls `update_wrapper` or stores a `__wrapped__` attribute
        (`_marks_itself`). Any other function is answered None without asking about another
        (most functions passed as arguments: neither they nor their order are looked at)."""
        if key.is_module_code or key.file not in self.index.modules:
            return False
        fn = self.index.function(key)
        return bool(fn.decorators) or self._may_mark(self.index.owner_key(key))

    def _may_mark(self, owner: FunctionKey) -> bool:
        """Whether the body of `owner` calls `update_wrapper` or stores a `__wrapped__`
        attribute at all (`_sets_wrapped` of any target), memoised per solve in
        `facts.cache`: it reads the body's resolved calls and stores alone."""
        memo = cast("dict[FunctionKey, bool]", self.facts.cache.setdefault(_MARKING_BODIES, {}))
        found = memo.get(owner)
        if found is None:
            found = memo[owner] = self._sets_wrapped(owner, lambda sym: True)
        return found

    def function_wrapped(self, key: FunctionKey) -> str | None:
        """Why the function object of `key` (as its `def` binds it) has `__wrapped__`."""
        if key not in self._functions:
            self._functions[key] = None  # a decorator decorating itself: not wrapped
            self._functions[key] = self._compute_function(key)
        return self._functions[key]

    def _compute_function(self, key: FunctionKey) -> str | None:
        if key.is_module_code or key.file not in self.index.modules:
            return None
        fn = self.index.function(key)
        if self._marks_itself(key, fn):
            return f"`{fn.qualname}` is a wrapper (it sets `__wrapped__`)"
        for decorator in fn.decorators:
            ref = self.index.resolve_dotted(key.file, decorator.name)
            if is_func_ref(ref) and self._returns_wrapper(ref[1], decorator.called, 0):
                return (
                    f"`{fn.qualname}` is decorated by `{decorator.name}`, whose wrapper sets "
                    "`__wrapped__`"
                )
            if is_class_ref(ref) and self._wraps_instances(ref[1]):
                return (
                    f"`{fn.qualname}` is decorated by `{decorator.name}`, whose objects wrap it "
                    "(`__wrapped__`)"
                )
        return None

    def _marks_itself(self, key: FunctionKey, fn: FunctionSummary) -> bool:
        """`@functools.wraps(...)` on the `def`, or `update_wrapper(name, ...)` /
        `name.__wrapped__ = ...` in the body that defines it."""
        for decorator in fn.decorators:
            ref = self.index.resolve_dotted(key.file, decorator.name)
            if is_ext_ref(ref) and ext_dotted(ref) in WRAPPING_DECORATORS:
                return True
        owner = self.index.owner_key(key)
        return self._may_mark(owner) and self._sets_wrapped(owner, lambda sym: _names(sym, fn.name))

    def _returns_wrapper(self, decorator: FunctionKey, called: bool, depth: int) -> bool:
        """Whether applying the project function `decorator` (called first when it is a
        factory: `@retry(3)`) gives a function carrying `__wrapped__`."""
        returned = self.facts.returns.get(decorator, frozenset())
        for atom in sorted(filter(is_func_atom, returned), key=canonical):
            if called and depth < MAX_DEPTH:
                if self._returns_wrapper(atom[1], False, depth + 1):
                    return True
            elif self.function_wrapped(atom[1]) is not None:
                return True
        return False

    def _wraps_instances(self, klass: ClassKey) -> bool:
        """A project class whose `__init__` makes each object a wrapper."""
        found = self._classes.get(klass)
        if found is None:
            init = self.index.find_method(klass, "__init__")
            found = False
            if init is not None:
                fn = self.index.function(init)
                receiver = fn.params[0].name if fn.binds_receiver and fn.params else None
                found = receiver is not None and self._sets_wrapped(
                    init, lambda sym: _names(sym, receiver) or sym == param_sym(receiver)
                )
            self._classes[klass] = found
        return found

    def _sets_wrapped(self, owner: FunctionKey, is_target: Callable[[Sym], bool]) -> bool:
        """Whether the body of `owner` calls `update_wrapper` on, or stores `__wrapped__`
        into, a value `is_target` accepts."""
        for resolved in self.facts.calls.get(owner, []):
            if any(info.name in WRAPPER_UPDATERS for info in resolved.api):
                args = resolved.site.args
                if args and is_target(args[0]):
                    return True
        fn = self.index.function(owner)
        return any(
            store.kind == "attr" and store.name == WRAPPED_ATTRIBUTE and is_target(store.target)
            for store in fn.stores
        )


def _names(sym: Sym, name: str) -> bool:
    return kind_of(sym) in ("local", "name") and sym[1] == name


def wrapped_callable_arguments(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, uses: dict[str, Span]
) -> list[Evidence]:
    """Evidence per parameter receiving a callable with `__wrapped__`: at the parameter's
    first use as a callee in the body (`uses`), else at the function."""
    fn = index.function(key)
    return [
        Evidence(
            f"`{argument.parameter}` receives a callable carrying `__wrapped__` "
            f"({argument.how}): traced, tf.function passes the wrapped function in its place, "
            "and what the wrapper adds is lost",
            uses.get(argument.parameter, fn.span),
        )
        for argument in WrappedCallables(index, facts).received(key)
    ]
