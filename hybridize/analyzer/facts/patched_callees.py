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

from hybridize.analyzer.facts.cited_lines import cited_line
from hybridize.analyzer.facts.evaluator import ResolvedCall, TensorFacts, callees, get_evaluator
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
from hybridize.analyzer.facts.scan_memo import per_function, per_module
from hybridize.analyzer.facts.values import (
    Atom,
    canonical,
    is_class_atom,
    is_module_atom,
    project_key,
)
from hybridize.analyzer.summaries.ir import CallSite, FunctionSummary, ModuleSummary, Sym
from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.analyzer.summaries.syms import is_attr, kind_of
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


@dataclass(frozen=True, slots=True)
class PatchSite:
    """A patching call or decorator of one function, as far as the project's interface
    says: the function it patches when named by a dotted string, else the object whose
    `attribute` it patches, evaluated in `scope` against each solution's facts.

    The sites of a function depend on its resolved calls (or, for decorators, its module's
    summary) and on the interface only, so they are kept across incremental updates
    (`scan_memo`); only the few object patches are evaluated again per solution."""

    test: FunctionKey
    span: Span
    target: FunctionKey | None = None
    patched_object: Sym | None = None
    attribute: str = ""
    scope: FunctionKey | None = None
    """Where `patched_object` is evaluated: the test itself for a call, the function whose
    body runs the test's `def` for a decorator."""


def patched_functions(index: ProjectIndex, facts: TensorFacts) -> dict[FunctionKey, Patch]:
    """Every project function or method a test of the project patches, with the first patch
    of each (in path order). Memoised per solution; the patching sites of each function and
    module are kept across updates (`per_function`, `per_module`), so an edit looks again
    only at what it replaced."""
    cached = facts.cache.get("patched_functions")
    if cached is not None:
        return cast("dict[FunctionKey, Patch]", cached)
    by_test: dict[FunctionKey, list[PatchSite]] = {}
    called = per_function(
        facts, "patching_calls", lambda key, calls: _call_sites(index, key, calls)
    )
    for key, sites in called.items():
        by_test[key] = list(sites)
    decorated = per_module(
        facts, index, "patching_decorators", lambda r, m: _decorator_sites(index, r, m)
    )
    for sites in decorated.values():
        for site in sites:
            by_test.setdefault(site.test, []).append(site)
    found: dict[FunctionKey, Patch] = {}
    for key in sorted(by_test, key=str):
        for site in by_test[key]:
            target = site.target if site.target is not None else _object_target(index, facts, site)
            if target is not None:
                found.setdefault(target, Patch(key, site.span))
    facts.cache["patched_functions"] = found
    return found


def read_patches(
    facts: TensorFacts, before: dict[FunctionKey, Patch] | None
) -> dict[FunctionKey, Patch] | None:
    """The patched functions the verdicts of this solution read: those it computed, else
    (no verdict asked) those the verdicts kept from an earlier one read (`before`)."""
    found = facts.cache.get("patched_functions")
    return cast("dict[FunctionKey, Patch]", found) if found is not None else before


def changed_patches(
    index: ProjectIndex, facts: TensorFacts, before: dict[FunctionKey, Patch] | None
) -> set[FunctionKey]:
    """The functions whose patch differs between `before` (what the verdicts kept read)
    and this solution: patched now or then but not both, or by another test or line. None
    read before: no verdict depends on them, nothing changed."""
    if before is None:
        return set()
    now = patched_functions(index, facts)
    return {key for key in before.keys() | now.keys() if before.get(key) != now.get(key)}


def _call_sites(
    index: ProjectIndex, key: FunctionKey, calls: list[ResolvedCall]
) -> tuple[PatchSite, ...]:
    """The patching calls of one function, in call order."""
    found: list[PatchSite] = []
    for site, patcher in patching_calls(index, key, calls):
        patch_site = _patch_site(index, key, key, patcher, site.args, site.span)
        if patch_site is not None:
            found.append(patch_site)
    return tuple(found)


def patching_calls(
    index: ProjectIndex, key: FunctionKey, calls: list[ResolvedCall]
) -> Iterator[tuple[CallSite, str]]:
    """The call sites of one function that call a patcher, in call order, each with the
    patcher's dotted name (`patcher_name`): what HY424's patches and HY426's mocks read."""
    fn: FunctionSummary | None = None
    for resolved in calls:
        site = resolved.site
        callee = site.callee
        # Every call site of the project passes here: the attribute's name read inline
        # (`attr_name`'s call costs on that many), its kind by `is_attr` as before.
        if is_attr(callee) and callee[2] not in PATCHER_LAST_NAMES:
            continue  # every patcher's name ends so: most call sites leave here, unresolved
        if fn is None:
            fn = index.function(key)
        patcher = patcher_name(index, key, fn, callee)
        if patcher is not None:
            yield site, patcher


def _decorator_sites(
    index: ProjectIndex, relpath: str, module: ModuleSummary
) -> tuple[PatchSite, ...]:
    """The patching decorators of one module's functions (a called decorator the project
    does not define, with its arguments)."""
    found: list[PatchSite] = []
    for qualname, fn in module.functions.items():
        for decorator in fn.decorators:
            if not decorator.called:
                continue
            ref = index.resolve_dotted(relpath, decorator.name)
            if not is_ext_ref(ref):
                continue
            key = FunctionKey(relpath, qualname)
            owner = index.owner_key(key)
            patch_site = _patch_site(index, key, owner, ref[1], decorator.args, decorator.span)
            if patch_site is not None:
                found.append(patch_site)
    return tuple(found)


def patcher_name(
    index: ProjectIndex, key: FunctionKey, fn: FunctionSummary, callee: Sym
) -> str | None:
    """The dotted name of a called patcher (`unittest.mock.patch.object`,
    `pytest_mock.MockerFixture.patch`), or None when the callee is no patcher."""
    if kind_of(callee) == "attr" and callee[2] not in PATCHER_LAST_NAMES:
        return None  # every patcher's name ends so: most call sites leave here, unresolved
    head, parts = _attribute_chain(callee)
    if kind_of(head) in ("local", "param") and head[1] in FIXTURES:
        if head[1] not in {param.name for param in fn.params}:
            return None
        name: str | None = ".".join([FIXTURES[head[1]], *parts])
    else:
        name = _external_head(index, key, fn, head, parts)
    if name in DOTTED_PATCHERS or name in OBJECT_PATCHERS or name == MONKEYPATCH_SETATTR:
        return name
    return None


def external_name(
    index: ProjectIndex, key: FunctionKey, fn: FunctionSummary, value: Sym
) -> str | None:
    """The dotted name of a module-level name or attribute chain that resolves outside the
    project (`torch.linalg`, `mock.MagicMock`), or None."""
    return _external_head(index, key, fn, *_attribute_chain(value))


def _attribute_chain(value: Sym) -> tuple[Sym, list[str]]:
    """`a.b.c` -> (`a`, ["b", "c"]), at most four attributes deep."""
    # Every call site of the project passes here at each edit: the kind is read once per
    # step (`kind_of`), not asked of each predicate in turn.
    parts: list[str] = []
    while kind_of(value) == "attr" and len(parts) < 4:
        parts.append(value[2])
        value = value[1]
    parts.reverse()
    return value, parts


def _external_head(
    index: ProjectIndex, key: FunctionKey, fn: FunctionSummary, head: Sym, parts: list[str]
) -> str | None:
    """The dotted name of `head.parts...` when `head` is a module-level name bound outside
    the project (not shadowed by a local), or None."""
    if kind_of(head) != "name" or not isinstance(head[1], str) or head[1] in fn.locals:
        return None
    ref = index.alias_target(index.resolve_global(key.file, head[1]))
    if not is_ext_ref(ref):
        return None
    return ".".join([ref[1], *parts])


def is_str_literal(value: Sym) -> bool:
    """A string literal (a dotted name, or an attribute name, as patchers take them)."""
    return kind_of(value) == "lit" and value[1] == "str"


def _patch_site(
    index: ProjectIndex,
    test: FunctionKey,
    scope: FunctionKey,
    patcher: str,
    args: tuple[Sym, ...] | list[Sym],
    span: Span,
) -> PatchSite | None:
    """What a patcher's arguments name: the project function a dotted string names, or the
    object and attribute name to evaluate; None when they name neither."""
    if not args:
        return None
    first = args[0]
    if is_str_literal(first) and patcher not in OBJECT_PATCHERS:
        target = _dotted_target(index, scope.file, str(first[2]))
        return None if target is None else PatchSite(test, span, target=target)
    if patcher == MONKEYPATCH_SETATTR or patcher in OBJECT_PATCHERS:
        if len(args) < 2 or not is_str_literal(args[1]):
            return None
        return PatchSite(test, span, patched_object=first, attribute=str(args[1][2]), scope=scope)
    return None


def _object_target(index: ProjectIndex, facts: TensorFacts, site: PatchSite) -> FunctionKey | None:
    """The project function an object patch replaces: the attribute of the first value of
    the patched object, in this solution, that names one."""
    if site.patched_object is None or site.scope is None:
        return None
    patched = get_evaluator(index, facts, site.scope).eval(site.patched_object)
    for atom in sorted(patched, key=canonical):  # "first" in the same order in every run
        found = _member_target(index, atom, site.attribute)
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
    if is_class_atom(atom) and project_key(atom) is not None:
        return index.find_method(atom[1], attribute)
    if is_module_atom(atom):
        ref = index.alias_target(index.member(module_ref(atom[1]), attribute))
        return ref[1] if is_func_ref(ref) else None
    return None


def describe_test(index: ProjectIndex, test: FunctionKey) -> str:
    """How a finding names the test that puts a double in place: "the test `T.test_x`", or
    "module code"."""
    return "module code" if test.is_module_code else f"the test `{index.function(test).qualname}`"


CALLS_PATCHED = "calls_patched"
"""The `facts.cache` entry of whether a function calls a patched project function: each
function's region (`traced_with`) asks it of the same helpers."""


def patched_callee_calls(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey
) -> list[Evidence]:
    """The first call, in the function or a project function traced with it, of a project
    function that a test replaces with a double; none for the patched function itself
    (replacing a compiled function replaces its graph too)."""
    patched = patched_functions(index, facts)
    if not patched:
        return []
    calling = cast("dict[FunctionKey, bool]", facts.cache.setdefault(CALLS_PATCHED, {}))
    for reader, via, entry in traced_with(index, facts, key):
        calls = calling.get(reader)
        if calls is None:
            calls = calling[reader] = any(
                target in patched
                for resolved in facts.calls.get(reader, [])
                for _, target in callees(index, resolved)
            )
        if not calls:
            continue
        for resolved in facts.calls.get(reader, []):
            for _, target in callees(index, resolved):
                patch = patched.get(target)
                if patch is None or target == key:
                    continue
                name = index.function(target).qualname
                test = describe_test(index, patch.test)
                span = resolved.site.span if reader == key else entry
                return [
                    Evidence(
                        f"{via}calls `{name}`, which {test} replaces with a double "
                        f"({patch.test.file}, line {cited_line(patch.test.file, patch.span.start_line)}): a graph keeps the "
                        "callee it traced, so a later patch is not seen, and a double returning "
                        "non-tensors (mock sentinels) fails the trace",
                        span,
                    )
                ]
    return []
