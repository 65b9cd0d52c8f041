"""Summary hooks: a check's own syntactic facts, recorded by the summariser's one walk.

A rule that needs a fact of the code as written that the summaries do not record (which
values a function compares with `is`, which sums it offsets by a constant) declares a
`SummaryHook` on its check (`Check.summary_hook`): the node types it wants and a pure
function from one such node and what the summariser knows there (`SummaryContext`) to
typed values, frozen dataclasses. The summariser calls it on every node of those types it
walks, collects each function's values in order, lets the hook's `finish` settle them once
the function is complete (`FunctionEnd`), and keeps the result in the function's
`FunctionSummary.summary_facts`, under the check's code; the check reads them back with
`Check.summary_facts` (or `CheckContext.summary_facts`).

Which hooks run is an argument of the summariser (`summarize_text(relpath, text, hooks)`,
a `HookTable`), never a state of this module: the summaries cannot import the checks (which
import them), and a table looked up here would be empty for a summary made before the
checks were imported, whose facts would then be silently missing. `Project` passes the
registry's (`checks.summary_hooks`) to every summary it makes, its workers' included.

What this costs the walk: node types no hook wants cost nothing (the summariser's table of
expression handlers has a wrapper only for the hooked types, built once per set of hooks);
the values of the expressions walked are kept for `SummaryContext.value`, one dict store
per expression. What it costs the cache: nothing to declare. A field of a value typed as
the project's position (`Span`) is moved by an edit that moves lines (`line_shift`) without
being listed; a hook of a check of this package is part of the code the cache's key
fingerprints (`cache.code_fingerprint`: any change of its module makes new keys), and a hook
of a check registered from outside (`checks.registered`: a plugin's, a test's) adds the
hash of its code and `version` to the key (`hook_tags.added_hooks_tag`), so a summary cached
before a hook was added or changed is never read after.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar, cast

if TYPE_CHECKING:
    import ast

    from hybridize.analyzer.summaries.ir import FunctionSummary
    from hybridize.analyzer.summaries.syms import Sym
    from hybridize.model import Span

FactT = TypeVar("FactT")


class SummaryContext(Protocol):
    """What the summariser knows at a node a hook is called on (it has just walked it)."""

    @property
    def statement(self) -> Span:
        """The statement the node is in (for a compound statement's header, the enclosing
        function's span): where a finding about it points."""
        ...

    def value(self, expr: ast.expr) -> Sym:
        """The symbolic value the walk gave an expression it has walked: the node itself or
        one of its parts (`UNKNOWN` for one it did not walk as an expression)."""
        ...

    def earlier(self) -> Sequence[object]:
        """The values this hook gave in the function so far, in order."""
        ...


class FunctionEnd(Protocol):
    """What the summariser knows of a function once its body is walked (`SummaryHook.finish`)."""

    @property
    def definition(self) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        """The `def` statement; None for module code, a class body or a lambda."""
        ...

    def bindings(self, name: str) -> Sequence[Sym]:
        """The values the function binds to a local name (a parameter's first), in order."""
        ...

    def call_index(self, call: ast.Call) -> int | None:
        """The index of a call the walk met in `FunctionSummary.calls` (None: not a call
        of this function)."""
        ...


@dataclass(frozen=True, slots=True, eq=False)
class SummaryHook(Generic[FactT]):
    """A check's recording of syntactic facts (`Check.summary_hook`).

    `visit(node, context)` gives the values of one node of the types in `nodes` (expression
    types are visited once the walk has given the expression its value, statements of the
    simple kinds and `try` statements once the statement is walked). `finish(values, end)`, when given, turns the
    values the function's nodes gave into those kept (drop, merge, complete them); without
    it they are kept as given. A function none of whose nodes gave a value keeps none.
    Values are frozen dataclasses: hashable, compared by value, cheap to pickle; a field
    typed `Span` is a position. `version` is for a hook whose behaviour changes with what
    its code does not show (data it reads)."""

    nodes: tuple[type[ast.AST], ...]
    visit: Callable[[Any, SummaryContext], Iterable[FactT]]
    finish: Callable[[Sequence[Any], FunctionEnd], Iterable[FactT]] | None = None
    version: int = 0

    def facts(self, fn: FunctionSummary, code: str) -> tuple[FactT, ...]:
        """The values the hook of the check `code` recorded in `fn`."""
        return cast("tuple[FactT, ...]", fn.summary_facts.get(code, ()))


@dataclass(frozen=True, slots=True, eq=False)
class HookTable:
    """The hooks of a registry by the node types they want: what the summariser dispatches
    on (one lookup per node type; the table is made once per registry)."""

    hooks: Mapping[str, SummaryHook[Any]]
    """By check code, in code order."""
    by_type: Mapping[type, tuple[tuple[str, SummaryHook[Any]], ...]] = field(default_factory=dict)

    @classmethod
    def of(cls, hooks: Mapping[str, SummaryHook[Any]]) -> HookTable:
        by_type: dict[type, list[tuple[str, SummaryHook[Any]]]] = {}
        for code, hook in hooks.items():
            for node_type in hook.nodes:
                by_type.setdefault(node_type, []).append((code, hook))
        return cls(dict(hooks), {t: tuple(entries) for t, entries in by_type.items()})


NO_HOOKS = HookTable({})
"""No hooks: a summary without any check's syntactic facts (what a test of the summariser
alone may ask for; the product passes the registry's, `checks.summary_hooks`)."""


def hook_tag(hook: SummaryHook[Any]) -> str:
    """A hash of what a hook does: the code of its functions (constants and names included,
    nested functions too), the node types it wants, and its `version`."""
    from hashlib import blake2b

    digest = blake2b(digest_size=8)
    digest.update(f"{hook.version}/{','.join(t.__name__ for t in hook.nodes)}".encode())
    for function in (hook.visit, hook.finish):
        code = getattr(function, "__code__", None)
        digest.update(b"\0" + (_code_bytes(code) if code is not None else repr(function).encode()))
    return digest.hexdigest()


def _code_bytes(code: Any) -> bytes:
    parts = [code.co_code, repr(code.co_names).encode()]
    for constant in code.co_consts:
        if hasattr(constant, "co_code"):
            parts.append(_code_bytes(constant))
        else:
            parts.append(repr(constant).encode())
    return b"\1".join(parts)
