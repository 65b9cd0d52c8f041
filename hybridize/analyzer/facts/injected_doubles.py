"""Recording test doubles that the project's tests put into the objects of project classes.

A test hands a project object a double for something it calls, and then reads what the
double recorded or relies on what it does per call:

    original = tf.keras.Sequential()
    original.call = mock.MagicMock(side_effect=fake_call)   # a double on an object ...
    model = MinDiffModel(original, loss)                    # ... given to the constructor
    model._loss = mock.MagicMock()                          # a double on the object itself
    model.compute_min_diff_loss(data)
    model._loss.assert_called_once_with(predictions=..., ...)

The double is a `unittest.mock` one (`Mock`, `MagicMock`, `create_autospec`, ...; bound in
the test, or called from a method of a class the test defines, as a closure), stored on an
object's attribute or passed to a project class's constructor (directly, or on an object that
carries it), and recording: the test reads its records (`call_args`, `call_count`,
`assert_called_with`, ...) or gives it per-call behaviour (`side_effect`).

Eagerly the double runs at every call with the values of that call. Under `tf.function` a
Python callable runs only while the function is traced (measured under TF 2.21,
tests/analyzer/test_hy424_injected_doubles.py): the double records symbolic tensors, which
are "out of scope" when the test reads them or compares them with `assert_called_with`; it
is not called at all by the calls the graph serves (`call_count` 1 for two calls, 0 after
`reset_mock()`); a `side_effect` function that tests a tensor with a Python `if` fails the
trace (OperatorNotAllowedInGraphError); a `side_effect` list gives its first value for good.

The compiled function concerned calls the double: a method (of the class, or of a base it
inherits from) that calls `self.a(...)` or `self.a.m(...)`, where `a` is the attribute the
test put the double on, or the attribute the constructor stores the argument in
(`self._original_model = original_model`, read directly or through a property returning
it), and `m` the doubled member of the object there (calling a Keras layer or model calls
its `call`). Under `torch.compile` Dynamo does not trace into `unittest.mock` (it breaks the
graph there and runs the double with the real tensors: measured), so this is TensorFlow's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

from hybridize.analyzer.facts.cited_lines import cited_line
from hybridize.analyzer.facts.evaluator import ResolvedCall, TensorFacts
from hybridize.analyzer.facts.evidence import Evidence
from hybridize.analyzer.facts.frozen_state import traced_with
from hybridize.analyzer.facts.mocked_torch_apis import MOCK_FACTORIES
from hybridize.analyzer.facts.patched_callees import describe_test, external_name
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.scan_memo import per_function
from hybridize.analyzer.summaries.ir import FunctionSummary, Sym
from hybridize.analyzer.summaries.keys import ClassKey, FunctionKey
from hybridize.analyzer.summaries.syms import (
    attr_base,
    attr_name,
    attr_sym,
    call_sym,
    is_attr,
    is_call,
    kind_of,
    local_sym,
    param_sym,
)
from hybridize.model import Span

FACTORY_LAST_NAMES = frozenset(name.rsplit(".", 1)[1] for name in MOCK_FACTORIES)
"""`MagicMock`, `create_autospec`, ...: a function calling none of these makes no double."""
RECORD_READS = frozenset(
    {
        "call_args",
        "call_args_list",
        "call_count",
        "called",
        "mock_calls",
        "method_calls",
        "await_args",
        "await_args_list",
        "await_count",
    }
)
"""The attributes of a mock that give what it recorded; its `assert_*` methods check them."""
PER_CALL = "side_effect"
"""The mock option that makes each call run a function (or give the next value)."""
ITSELF = "__call__"
"""A member name for the double itself: calling the attribute calls it."""
CALLED_BY_CALLING = frozenset({ITSELF, "call"})
"""What calling an object runs: itself (a double), or a Keras layer's or model's `call`."""
CONTAINER_WRITES = frozenset({"append", "extend", "add", "insert", "appendleft", "update"})
"""The methods that keep a value in a list, a set, a deque or a dict."""
KEPT_STORES = frozenset({"attr", "item", "nonlocal", "global"})
"""The stores that keep a value beyond the call."""
SYM_DEPTH = 6
"""How deep a test's values are searched for reads of a double's records."""


@dataclass(frozen=True, slots=True)
class Injection:
    """A recording double that a test puts into objects of a project class: at attribute
    `attribute` of an instance of `owner` there is the double itself (`members` holds
    `ITSELF`) or an object whose `members` are doubles."""

    test: FunctionKey
    span: Span
    owner: ClassKey
    attribute: str
    members: frozenset[str]


@dataclass(frozen=True, slots=True)
class DoubleCall:
    """A project method's call of an attribute a test put a recording double into."""

    injection: Injection
    span: Span
    written: str
    """The call's callee as written (`self.original_model`)."""


def injected_double_calls(index: ProjectIndex, facts: TensorFacts) -> dict[FunctionKey, DoubleCall]:
    """Every project method that calls an attribute of its receiver into which a test puts
    a recording double, with its first such call. Memoised per solution; the injections of
    each function are kept across updates with its resolved calls (`per_function`)."""
    cached = facts.cache.get("injected_double_calls")
    if cached is not None:
        return cast("dict[FunctionKey, DoubleCall]", cached)
    injected = per_function(
        facts, "injected_doubles", lambda key, calls: _injections(index, key, calls)
    )
    by_class: dict[ClassKey, dict[str, Injection]] = {}
    for key in sorted(injected, key=str):
        for injection in injected[key]:
            for owner in index.mro(injection.owner):
                by_class.setdefault(owner, {}).setdefault(injection.attribute, injection)
    found: dict[FunctionKey, DoubleCall] = {}
    for owner in sorted(by_class, key=str):
        klass = index.klass(owner)
        for method in klass.methods:
            key = FunctionKey(owner.file, f"{owner.qualname}.{method}")
            call = _double_call(index, owner, index.function(key), by_class[owner])
            if call is not None:
                found[key] = call
    facts.cache["injected_double_calls"] = found
    return found


def read_double_calls(
    facts: TensorFacts, before: dict[FunctionKey, DoubleCall] | None
) -> dict[FunctionKey, DoubleCall] | None:
    """The double calls the verdicts of this solution read: those it computed, else (no
    verdict asked) those the verdicts kept from an earlier one read (`before`)."""
    found = facts.cache.get("injected_double_calls")
    return cast("dict[FunctionKey, DoubleCall]", found) if found is not None else before


def changed_double_calls(
    index: ProjectIndex, facts: TensorFacts, before: dict[FunctionKey, DoubleCall] | None
) -> set[FunctionKey]:
    """The methods whose double call differs between `before` and this solution."""
    if before is None:
        return set()
    now = injected_double_calls(index, facts)
    return {key for key in before.keys() | now.keys() if before.get(key) != now.get(key)}


def double_call_evidence(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey
) -> list[Evidence]:
    """The first call, in the function or a project function traced with it, of an
    attribute into which a test puts a recording double."""
    found = injected_double_calls(index, facts)
    if not found:
        return []
    for reader, via, entry in traced_with(index, facts, key):
        call = found.get(reader)
        if call is None:
            continue
        injection = call.injection
        test = describe_test(index, injection.test)
        return [
            Evidence(
                f"{via}calls `{call.written}`, into which {test} puts a recording "
                f"double ({injection.test.file}, line "
                f"{cited_line(injection.test.file, injection.span.start_line)}): traced, the double runs only while tracing, "
                "records symbolic tensors that are out of scope when the test reads them, and "
                "is not called by the calls the graph serves",
                call.span if reader == key else entry,
            )
        ]
    return []


def _double_call(
    index: ProjectIndex, owner: ClassKey, fn: FunctionSummary, doubled: dict[str, Injection]
) -> DoubleCall | None:
    """The method's first call of `self.a(...)` or `self.a.m(...)` that runs a double."""
    if not fn.binds_receiver or not fn.params:
        return None
    receiver = fn.params[0].name
    selves = {local_sym(receiver), param_sym(receiver)}
    for site in fn.calls:
        callee = site.callee
        if kind_of(callee) != "attr":
            continue
        base, member = callee[1], callee[2]
        if base in selves:
            injection = _doubled(index, owner, doubled, member)
            if injection is not None and injection.members & CALLED_BY_CALLING:
                return DoubleCall(injection, site.span, f"{receiver}.{member}")
        elif kind_of(base) == "attr" and base[1] in selves:
            injection = _doubled(index, owner, doubled, base[2])
            if injection is not None and member in injection.members:
                return DoubleCall(injection, site.span, f"{receiver}.{base[2]}.{member}")
    return None


def _doubled(
    index: ProjectIndex, owner: ClassKey, doubled: dict[str, Injection], name: str
) -> Injection | None:
    """The injection at attribute `name` of the receiver, or at the attribute a property
    `name` returns (`return self._original_model`)."""
    found = doubled.get(name)
    if found is not None:
        return found
    method = index.find_method(owner, name)
    if method is None:
        return None
    fn = index.function(method)
    if not fn.params or not any(d.name.endswith("property") for d in fn.decorators):
        return None
    receiver = fn.params[0].name
    for value in fn.returns:
        if is_attr(value) and attr_base(value) in (local_sym(receiver), param_sym(receiver)):
            found = doubled.get(attr_name(value))
            if found is not None:
                return found
    return None


def _injections(
    index: ProjectIndex, key: FunctionKey, calls: list[ResolvedCall]
) -> tuple[Injection, ...]:
    """The recording doubles one function puts into objects of project classes."""
    fn = index.function(key)
    if not any(_may_make_double(site.callee) for site in fn.calls) and not _defines(fn):
        return ()  # most functions make no mock and define nothing: they leave here
    factories = {
        position: site
        for position, site in enumerate(fn.calls)
        if external_name(index, key, fn, site.callee) in MOCK_FACTORIES
    }
    # Only a factory's double is asked whether it records (`recording`).
    reads = _record_reads(fn) if factories else set()
    doubles: dict[Sym, int] = {}  # a double's value as the function writes it -> its factory
    for name, values in fn.locals.items():
        for value in values:
            if kind_of(value) == "call" and value[1] in factories:
                doubles[local_sym(name)] = value[1]
    for position in factories:
        doubles[call_sym(position)] = position

    def recording(value: Sym, *paths: Sym) -> bool:
        factory = factories[doubles[value]]
        per_call = any(name == PER_CALL for name, _ in factory.kwargs)
        return per_call or any(path in reads for path in (value, *paths))

    by_site = {resolved.index: resolved for resolved in calls}
    carriers: dict[Sym, set[str]] = {}  # a value -> its members that are recording doubles
    found: list[Injection] = []
    for store in fn.stores:
        if store.kind != "attr" or store.value not in doubles:
            continue
        if not recording(store.value, attr_sym(store.target, store.name)):
            continue
        carriers.setdefault(store.target, set()).add(store.name)
        for owner in _constructed(fn, by_site, store.target):
            found.append(Injection(key, store.span, owner, store.name, frozenset({ITSELF})))
    for position in by_site:
        members = _test_class_doubles(index, key, by_site[position], doubles, recording)
        if members:
            carriers.setdefault(call_sym(position), set()).update(members)
    for values in fn.locals.values():
        for value in values:
            if kind_of(value) == "def" and _is_recorder(index, key, value[1]):
                carriers.setdefault(value, set()).add(ITSELF)
    for name, values in fn.locals.items():
        for value in values:
            if value in carriers:
                carriers.setdefault(local_sym(name), set()).update(carriers[value])
    for resolved in calls:
        for kind, target in resolved.targets:
            if kind != "class":
                continue
            init = index.find_method(target, "__init__")
            if init is None:
                continue
            for param, value in _bound_arguments(index.function(init), resolved):
                if (value in doubles and recording(value)) or (
                    kind_of(value) == "def" and _is_recorder(index, key, value[1])
                ):
                    members = {ITSELF}  # a mock, or a lambda that keeps its arguments
                elif value in carriers:
                    members = carriers[value]
                else:
                    continue
                for attribute in _stored_from(index.function(init), param):
                    found.append(
                        Injection(key, resolved.site.span, target, attribute, frozenset(members))
                    )
    return tuple(found)


def _defines(fn: FunctionSummary) -> bool:
    """Whether a function defines a function, a lambda or a class (a recorder, maybe)."""
    return any(
        kind_of(value) in ("def", "class") for values in fn.locals.values() for value in values
    ) or any(kind_of(arg) == "def" for site in fn.calls for arg in site.args)


def _may_make_double(callee: Sym) -> bool:
    """Whether a callee may be a mock factory, by its last name."""
    kind = kind_of(callee)
    if kind == "attr":
        return callee[2] in FACTORY_LAST_NAMES
    return kind == "name" and callee[1] in FACTORY_LAST_NAMES


def _record_reads(fn: FunctionSummary) -> set[Sym]:
    """The values whose records the function reads: `d` of `d.call_args`, `d.call_count`,
    `d.assert_called_once_with(...)`, anywhere in its calls and `assert` statements."""
    reads: set[Sym] = set()

    def visit(value: object, depth: int) -> None:
        if not isinstance(value, tuple) or not value or depth > SYM_DEPTH:
            return  # an empty tuple is a display's elements (`[]`)
        if is_attr(value):
            name = attr_name(value)
            if name in RECORD_READS or name.startswith("assert_"):
                reads.add(attr_base(value))
        for part in value:
            visit(part, depth + 1)

    for site in fn.calls:
        visit(site.callee, 0)
        for arg in site.args:
            visit(arg, 0)
        for _, arg in site.kwargs:
            visit(arg, 0)
    for test in fn.asserted:
        visit(test, 0)
    return reads


def _constructed(
    fn: FunctionSummary, by_site: dict[int, ResolvedCall], target: Sym
) -> list[ClassKey]:
    """The project classes a local of the function is an instance of, by the constructor
    call it is bound to (`model = MinDiffModel(...)`)."""
    if kind_of(target) != "local":
        return []
    found: list[ClassKey] = []
    for value in fn.locals.get(target[1], []):
        if kind_of(value) != "call" or value[1] not in by_site:
            continue
        found.extend(key for kind, key in by_site[value[1]].targets if kind == "class")
    return found


def _test_class_doubles(
    index: ProjectIndex,
    key: FunctionKey,
    resolved: ResolvedCall,
    doubles: dict[Sym, int],
    recording: Callable[..., bool],
) -> set[str]:
    """The methods that call a recording double of the function (a closure), of a class
    defined in the function that the call constructs (`CustomModel()`)."""
    members: set[str] = set()
    for kind, klass in resolved.targets:
        if kind != "class" or klass.file != key.file:
            continue
        if not klass.qualname.startswith(f"{key.qualname}."):
            continue  # defined elsewhere: not the test's own class
        for method in index.klass(klass).methods:
            body = index.function(FunctionKey(klass.file, f"{klass.qualname}.{method}"))
            if _stores_arguments(body):
                members.add(method)
            for site in body.calls:
                callee = site.callee
                if kind_of(callee) != "name" or callee[1] in body.locals:
                    continue
                closure = local_sym(callee[1])
                if closure in doubles and recording(closure):
                    members.add(method)
    return members


def _is_recorder(index: ProjectIndex, key: FunctionKey, qualname: str) -> bool:
    """Whether a function (or lambda) the test defines stores the arguments it is called
    with where the test can read them."""
    if not qualname.startswith(f"{key.qualname}."):
        return False
    return _stores_arguments(index.function(FunctionKey(key.file, qualname)))


def _stores_arguments(fn: FunctionSummary) -> bool:
    """Whether a function keeps an argument beyond its call: appends it to (or adds it to)
    a container it does not make (a closure's or the receiver's: `seen.append(x)`,
    `self.calls.append((x,))`), or stores it in an attribute, an item or a nonlocal."""
    params = {param.name for param in fn.params[1 if fn.binds_receiver else 0 :]}
    if not params:
        return False
    held = {local_sym(name) for name in params} | {param_sym(name) for name in params}

    def holds(value: object, depth: int = 0) -> bool:
        if value in held:
            return True
        if not isinstance(value, tuple) or not value or depth > SYM_DEPTH:
            return False
        if is_call(value):
            return False
        return any(holds(part, depth + 1) for part in value)

    for site in fn.calls:
        callee = site.callee
        if kind_of(callee) != "attr" or callee[2] not in CONTAINER_WRITES:
            continue
        container = callee[1]
        if kind_of(container) == "local" and container[1] not in params:
            continue  # a list the function makes itself
        if any(holds(arg) for arg in site.args):
            return True
    return any(store.kind in KEPT_STORES and holds(store.value) for store in fn.stores)


def _bound_arguments(init: FunctionSummary, resolved: ResolvedCall) -> list[tuple[str, Sym]]:
    """The constructor's parameters, each with the value the call passes it (`self` left
    out; what `*args` and `**kwargs` unpack is not followed)."""
    params = [param.name for param in init.params[1:]]
    bound: list[tuple[str, Sym]] = []
    site = resolved.site
    if not site.has_star_args:  # `*x` may come first: the positions are not followed
        bound.extend(zip(params, site.args, strict=False))
    for name, value in site.kwargs:
        if name in params:
            bound.append((name, value))
    return bound


def _stored_from(init: FunctionSummary, param: str) -> list[str]:
    """The receiver's attributes the constructor stores a parameter in, as it is."""
    if not init.params:
        return []
    receiver = init.params[0].name
    selves = (local_sym(receiver), param_sym(receiver))
    held = (local_sym(param), param_sym(param))
    return [
        store.name
        for store in init.stores
        if store.kind == "attr" and store.target in selves and store.value in held
    ]
