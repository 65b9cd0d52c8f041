"""Project functions that the project's tests replace with test doubles.

A test replaces what a function calls with `unittest.mock.patch("pkg.mod.Class.method",
...)`, `mock.patch.object(Class, "method", ...)` (as a call, a context manager or a decorator),
pytest-mock's `mocker.patch(...)` / `mocker.patch.object(...)`, or pytest's
`monkeypatch.setattr("pkg.mod.name", value)` / `monkeypatch.setattr(module, "name", value)`.
Eagerly every call looks the name up again and meets the double while the patch is active.
`tf.function` looks it up once, while tracing, and its graph keeps what the callee did then
(measured under TF 2.21, tests/analyzer/test_hy424_patched_callees.py): a patch applied after
the first trace is not seen (the graph keeps computing with the real callee: 2.0 where the
eager call gives the double's 100.0), one active during a trace is kept for later calls, and a
double that returns a sentinel or another non-tensor object makes the trace fail ("must return
zero or more Tensors", TypeError). tf-explain's `GradCAM.generate_ponderated_output`, whose
test patches `GradCAM.ponderate_output` to return `mocker.sentinel`s, failed so.

pytest passes its fixtures by parameter name: a test's `mocker` parameter is pytest-mock's
fixture and `monkeypatch` pytest's, whatever their annotations say; both are read so.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import cast

from hybridize.analyzer.facts.evaluator import TensorFacts, callees, get_evaluator
from hybridize.analyzer.facts.evidence import Evidence
from hybridize.analyzer.facts.frozen_state import traced_with
from hybridize.analyzer.facts.refs import (
    UNKNOWN_REF,
    Ref,
    is_class_ref,
    is_ext_ref,
    is_func_ref,
    module_ref,
)
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.values import Atom, is_class_atom, is_module_atom
from hybridize.analyzer.summaries.ir import FunctionSummary, Sym
from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.analyzer.summaries.syms import kind_of
from hybridize.model import Span

DOTTED_PATCHERS = frozenset(
    {"unittest.mock.patch", "mock.patch", "pytest_mock.MockerFixture.patch"}
)
"""Calls (and decorators) whose first argument names the patched object as a dotted string."""
OBJECT_PATCHERS = frozenset(
    {"unittest.mock.patch.object", "mock.patch.object", "pytest_mock.MockerFixture.patch.object"}
)
"""Calls (and decorators) that patch the attribute named by their second argument of the
object given first."""
MONKEYPATCH_SETATTR = "_pytest.monkeypatch.MonkeyPatch.setattr"
"""Either form: a dotted string first, or an object and an attribute name."""
PATCHER_LAST_NAMES = frozenset(
    name.rsplit(".", 1)[1] for name in (*DOTTED_PATCHERS, *OBJECT_PATCHERS, MONKEYPATCH_SETATTR)
)
"""The last names of the patchers (`patch`, `object`, `setattr`): a call of an attribute
named otherwise patches nothing, whatever its receiver resolves to."""
FIXTURES = {
    "mocker": "pytest_mock.MockerFixture",
    "monkeypatch": "_pytest.monkeypatch.MonkeyPatch",
}
"""pytest's fixtures by the parameter name that requests them, as the class they are."""


@dataclass(frozen=True, slots=True)
class Patch:
    """Where a test replaces a project function: the test, and the patching call or decorator."""

    test: FunctionKey
    span: Span


def patched_functions(index: ProjectIndex, facts: TensorFacts) -> dict[FunctionKey, Patch]:
    """Every project function or method a test of the project patches, with the first patch
    of each (in path order). Memoised per solution."""
    cached = facts.cache.get("patched_functions")
    if cached is not None:
        return cast("dict[FunctionKey, Patch]", cached)
    found: dict[FunctionKey, Patch] = {}
    for key in sorted(index.function_keys(), key=str):
        fn = index.function(key)
        for target, span in _patches_of(index, facts, key, fn):
            found.setdefault(target, Patch(key, span))
    facts.cache["patched_functions"] = found
    return found


def _patches_of(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, fn: FunctionSummary
) -> Iterator[tuple[FunctionKey, Span]]:
    """What one function patches: by its calls, and by its own decorators."""
    for resolved in facts.calls.get(key, []):
        site = resolved.site
        patcher = _callee_name(index, key, fn, site.callee)
        if patcher is None:
            continue
        target = _patch_target(index, facts, key, patcher, site.args)
        if target is not None:
            yield target, site.span
    for decorator in fn.decorators:
        if not decorator.called:
            continue
        ref = index.resolve_dotted(key.file, decorator.name)
        if not is_ext_ref(ref):
            continue
        owner = index.owner_key(key)
        target = _patch_target(index, facts, owner, ref[1], decorator.args)
        if target is not None:
            yield target, decorator.span


def _callee_name(
    index: ProjectIndex, key: FunctionKey, fn: FunctionSummary, callee: Sym
) -> str | None:
    """The dotted name of a called patcher (`unittest.mock.patch.object`,
    `pytest_mock.MockerFixture.patch`), or None when the callee is no patcher."""
    # Every call site of the project passes here at each edit: the kind is read once per
    # step (`kind_of`), not asked of each predicate in turn.
    kind = kind_of(callee)
    if kind == "attr" and callee[2] not in PATCHER_LAST_NAMES:
        return None  # every patcher's name ends so: most call sites leave here, unresolved
    parts: list[str] = []
    while kind == "attr" and len(parts) < 4:
        parts.append(callee[2])
        callee = callee[1]
        kind = kind_of(callee)
    if kind in ("local", "param") and callee[1] in FIXTURES:
        if callee[1] not in {param.name for param in fn.params}:
            return None
        head = FIXTURES[callee[1]]
    elif kind == "name" and isinstance(callee[1], str):
        if callee[1] in fn.locals:
            return None
        ref = index.alias_target(index.resolve_global(key.file, callee[1]))
        if not is_ext_ref(ref):
            return None
        head = ref[1]
    else:
        return None
    name = ".".join([head, *reversed(parts)])
    if name in DOTTED_PATCHERS or name in OBJECT_PATCHERS or name == MONKEYPATCH_SETATTR:
        return name
    return None


def _patch_target(
    index: ProjectIndex,
    facts: TensorFacts,
    key: FunctionKey,
    patcher: str,
    args: tuple[Sym, ...] | list[Sym],
) -> FunctionKey | None:
    """The project function a patcher's arguments name, if they name one."""
    if not args:
        return None
    first = args[0]
    if first[:2] == ("lit", "str") and patcher not in OBJECT_PATCHERS:
        return _dotted_target(index, key.file, str(first[2]))
    if patcher == MONKEYPATCH_SETATTR or patcher in OBJECT_PATCHERS:
        if len(args) < 2 or args[1][:2] != ("lit", "str"):
            return None
        attribute = str(args[1][2])
        for atom in get_evaluator(index, facts, key).eval(first):
            found = _member_target(index, atom, attribute)
            if found is not None:
                return found
    return None


def _dotted_target(index: ProjectIndex, importer: str, dotted: str) -> FunctionKey | None:
    """The project function `pkg.mod.Class.method` or `pkg.mod.function` names: the longest
    prefix that is a project module, then its members."""
    parts = dotted.split(".")
    for end in range(len(parts) - 1, 0, -1):
        module = index.find_module(".".join(parts[:end]), importer)
        if module is None:
            continue
        ref: Ref = module_ref(module)
        rest = parts[end:]
        for position, part in enumerate(rest):
            if is_class_ref(ref):
                if position != len(rest) - 1:
                    return None
                return index.find_method(ref[1], part)
            ref = index.alias_target(index.member(ref, part))
            if ref == UNKNOWN_REF:
                return None
        return ref[1] if is_func_ref(ref) else None
    return None


def _member_target(index: ProjectIndex, atom: Atom, attribute: str) -> FunctionKey | None:
    """The project function or method `attribute` of a class or module atom names."""
    if is_class_atom(atom) and atom[1] is not None:
        return index.find_method(atom[1], attribute)
    if is_module_atom(atom):
        ref = index.alias_target(index.member(module_ref(atom[1]), attribute))
        return ref[1] if is_func_ref(ref) else None
    return None


def patched_callee_calls(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey
) -> list[Evidence]:
    """The first call, in the function or a project function traced with it, of a project
    function that a test replaces with a double; none for the patched function itself
    (replacing a compiled function replaces its graph too)."""
    patched = patched_functions(index, facts)
    if not patched:
        return []
    for reader, via, entry in traced_with(index, facts, key):
        for resolved in facts.calls.get(reader, []):
            for _, target in callees(index, resolved):
                patch = patched.get(target)
                if patch is None or target == key:
                    continue
                name = index.function(target).qualname
                test = (
                    "module code"
                    if patch.test.is_module_code
                    else f"the test `{index.function(patch.test).qualname}`"
                )
                span = resolved.site.span if reader == key else entry
                return [
                    Evidence(
                        f"{via}calls `{name}`, which {test} replaces with a double "
                        f"({patch.test.file}, line {patch.span.start_line}): a graph keeps the "
                        "callee it traced, so a later patch is not seen, and a double returning "
                        "non-tensors (mock sentinels) fails the trace",
                        span,
                    )
                ]
    return []
