"""PyTorch functions the project's tests replace with a `unittest.mock` double.

A test spies on a framework call with `mock.patch("torch.linalg.cholesky_ex",
wraps=torch.linalg.cholesky_ex)`, `mock.patch.object(torch.linalg, "cholesky_ex")`,
pytest-mock's `mocker.patch(...)`, or `monkeypatch.setattr("torch.linalg.cholesky_ex",
MagicMock(...))`. Dynamo, when it first traces a call of a torch function in the process,
builds `torch.overrides`' table of overridable functions from `get_testing_overrides()`, which
looks each listed function up again and uses its `__name__` as a string: while one of them is
a mock (a `MagicMock` has no `__name__`; one with a spec, or an autospec, has a `MagicMock`
there), the compile raises `InternalTorchDynamoError` (`AttributeError: __name__`, or
`TypeError: attribute name must be string`), at every compile until the table has been built
once (`Framework.mocked_api_namespaces`: `torch_rules.OVERRIDE_TABLE_NAMESPACES`; measured on torch 2.13
in tests/analyzer/test_hy426_mocked_torch_apis.py). gpytorch 1.15.2's variational
test case wraps `torch.linalg.cholesky_ex` in a `MagicMock` around its training step, and
`NNVariationalStrategy._stochastic_kl_helper`, which the step runs, failed so once compiled.

A plain Python function standing in is fine (measured), and left alone. The functions
concerned are those the test runs while the double is in place (whatever the first compile
under the patch is, it fails): the project functions the test calls, transitively. Each
function's patches are kept with its resolved calls across edits (`first_witness_of_runs`).
"""

from __future__ import annotations

from dataclasses import dataclass

from hybridize.analyzer.facts.callgraph import first_witness_of_runs
from hybridize.analyzer.facts.cited_lines import cited_line
from hybridize.analyzer.facts.evaluator import ResolvedCall, TensorFacts, callees
from hybridize.analyzer.facts.evidence import Evidence
from hybridize.analyzer.facts.patched_callees import (
    MONKEYPATCH_SETATTR,
    OBJECT_PATCHERS,
    describe_test,
    external_name,
    is_str_literal,
    patching_calls,
)
from hybridize.analyzer.facts.refs import is_ext_ref
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.frameworks.framework import FRAMEWORKS
from hybridize.analyzer.summaries.ir import FunctionSummary, Sym
from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.analyzer.summaries.syms import is_call, is_local
from hybridize.model import Span

MOCK_FACTORIES = frozenset(
    f"{package}.{name}"
    for package in ("unittest.mock", "mock")
    for name in (
        "MagicMock",
        "Mock",
        "NonCallableMagicMock",
        "NonCallableMock",
        "AsyncMock",
        "create_autospec",
    )
)
"""The `unittest.mock` callables that make a double: none has a string `__name__`."""
OTHER_FACTORY = "new_callable"
"""The `mock.patch` option that puts what another callable makes (not followed)."""


@dataclass(frozen=True, slots=True)
class MockedApi:
    """Where a test replaces a torch function with a `unittest.mock` double."""

    api: str
    test: FunctionKey
    span: Span


def mocked_api_runs(index: ProjectIndex, facts: TensorFacts) -> dict[FunctionKey, MockedApi]:
    """Every project function a test runs (calls, directly or through the project functions
    it calls) while it has a torch function replaced with a `unittest.mock` double, with the
    first such patch (in key order) that runs it."""
    return first_witness_of_runs(
        index, facts, "torch_api_mocks", lambda key, calls: _mocks_of(index, key, calls)
    )


def mocked_api_calls(index: ProjectIndex, facts: TensorFacts, key: FunctionKey) -> list[Evidence]:
    """The patch under which a test runs the function, if any: the whole test is taken to
    run under it (a `with` block's end is not followed)."""
    mock = mocked_api_runs(index, facts).get(key)
    if mock is None:
        return []
    test = describe_test(index, mock.test)
    return [
        Evidence(
            f"runs under {test}, which replaces `{mock.api}` with a `unittest.mock` double "
            f"({mock.test.file}, line {cited_line(mock.test.file, mock.span.start_line)}): while it is in place, Dynamo's "
            "first trace of a torch call in the process fails reading the double's `__name__` "
            "(InternalTorchDynamoError)",
            index.function(key).span,
        )
    ]


def _mocks_of(
    index: ProjectIndex, key: FunctionKey, calls: list[ResolvedCall]
) -> list[tuple[MockedApi, list[FunctionKey]]]:
    """The first patch of a torch function with a mock in this function (a call, or one of
    its decorators), with the project functions the function calls: they run under it."""
    mocks = _call_mocks(index, key, calls) or _decorator_mocks(index, key)
    if not mocks:
        return []
    starts = [target for resolved in calls for _, target in callees(index, resolved)]
    return [(mocks[0], starts)]


def _call_mocks(
    index: ProjectIndex, key: FunctionKey, calls: list[ResolvedCall]
) -> tuple[MockedApi, ...]:
    """The patching calls of one function that put a `unittest.mock` double on a torch
    function."""
    found: list[MockedApi] = []
    for site, patcher in patching_calls(index, key, calls):
        fn = index.function(key)
        api = _patched_api(index, key, fn, patcher, site.args)
        if api is None:
            continue
        replacement = _replacement(patcher, site.args, dict(site.kwargs))
        if _is_mock(index, key, fn, replacement, dict(site.kwargs)):
            found.append(MockedApi(api, key, site.span))
    return tuple(found)


def _decorator_mocks(index: ProjectIndex, key: FunctionKey) -> tuple[MockedApi, ...]:
    """The patching decorators of one function that put `mock.patch`'s default double
    (a `MagicMock`, or an autospec) on a torch function."""
    found: list[MockedApi] = []
    fn = index.function(key)
    for decorator in fn.decorators:
        if not decorator.called:
            continue
        ref = index.resolve_dotted(key.file, decorator.name)
        if not is_ext_ref(ref) or ref[1] == MONKEYPATCH_SETATTR:
            continue
        owner = index.owner_key(key)
        api = _patched_api(index, owner, index.function(owner), ref[1], decorator.args)
        kwargs = dict(decorator.kwargs)
        if api is None or _replacement(ref[1], decorator.args, kwargs) is not None:
            continue
        if OTHER_FACTORY not in kwargs:
            found.append(MockedApi(api, key, decorator.span))
    return tuple(found)


def _patched_api(
    index: ProjectIndex,
    key: FunctionKey,
    fn: FunctionSummary,
    patcher: str,
    args: tuple[Sym, ...] | list[Sym],
) -> str | None:
    """The torch function (of a namespace the override table lists) a patcher's arguments
    name: a dotted string, or a torch namespace object and an attribute name."""
    if not args:
        return None
    first = args[0]
    if is_str_literal(first) and patcher not in OBJECT_PATCHERS:
        dotted = str(first[2])
    elif patcher in OBJECT_PATCHERS or patcher == MONKEYPATCH_SETATTR:
        if len(args) < 2 or not is_str_literal(args[1]):
            return None
        owner = external_name(index, key, fn, first)
        if owner is None:
            return None
        dotted = f"{owner}.{args[1][2]}"
    else:
        return None
    namespace, _, name = dotted.rpartition(".")
    mocked = any(namespace in framework.mocked_api_namespaces for framework in FRAMEWORKS)
    if not mocked or name.startswith("_"):
        return None
    return dotted


def _replacement(
    patcher: str, args: tuple[Sym, ...] | list[Sym], kwargs: dict[str, Sym]
) -> Sym | None:
    """The object a patcher puts in place, when its arguments give one (`new`, or
    monkeypatch's `value`); None for `mock.patch`'s default `MagicMock`."""
    dotted = bool(args) and is_str_literal(args[0]) and patcher not in OBJECT_PATCHERS
    position = 1 if dotted else 2
    if len(args) > position:
        return args[position]
    return kwargs.get("value" if patcher == MONKEYPATCH_SETATTR else "new")


def _is_mock(
    index: ProjectIndex,
    key: FunctionKey,
    fn: FunctionSummary,
    replacement: Sym | None,
    kwargs: dict[str, Sym],
) -> bool:
    """Whether what is put in place is a `unittest.mock` double: `mock.patch`'s default
    (`MagicMock`, or an autospec), or one the function makes (`MagicMock(...)`,
    `create_autospec(...)`), in the call or in a local variable it passes."""
    if replacement is None:
        return OTHER_FACTORY not in kwargs
    made = fn.locals.get(replacement[1], []) if is_local(replacement) else [replacement]
    for value in made:  # a double made in the call, or in a local variable the call passes
        if is_call(value) and 0 <= value[1] < len(fn.calls):
            factory = fn.calls[value[1]].callee
            if external_name(index, key, fn, factory) in MOCK_FACTORIES:
                return True
    return False
