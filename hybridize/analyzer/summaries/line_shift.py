"""A summary's positions moved by a line delta: what the summary of a file whose lines after
an edited top-level statement moved up or down gives, without walking them again.

Every later top-level statement keeps its text, only its lines move, so what it adds to the
module's summary is the same but for the lines of its positions (columns count code points
of a line whose text did not change). `shifted_function` and `shifted_class` make that
summary from the previous one; a position ending before the edit stays, one starting after
it moves, one enclosing it (the module code's span, a compound statement's header in module
code that takes it) has its end moved.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass, replace
from typing import Protocol, TypeVar

from hybridize.analyzer.summaries.ir import (
    ClassSummary,
    FunctionSummary,
    StatementLoop,
)
from hybridize.model import Span


@dataclass(frozen=True, slots=True)
class LineShift:
    """The lines after `after` (the edited statement's last, before the edit) moved by
    `delta`; a span ending after it and `old_module` (the module code's span before) becomes
    `new_module`."""

    after: int
    delta: int
    old_module: Span
    new_module: Span

    def span(self, span: Span) -> Span:
        if span.end_line <= self.after:
            return span
        if span == self.old_module:
            return self.new_module
        if span.start_line > self.after:
            return Span(
                span.start_line + self.delta,
                span.start_col,
                span.end_line + self.delta,
                span.end_col,
            )
        return Span(span.start_line, span.start_col, span.end_line + self.delta, span.end_col)

    def line(self, line: int) -> int:
        return line + self.delta if line > self.after else line


POSITIONED_FIELDS = frozenset(
    {
        "line",
        "span",
        "decorators",
        "calls",
        "stores",
        "loops",
        "statement_loops",
        "variable_reads",
        "index_reads",
        "hashed_values",
        "stepped_slices",
        "singular_operands",
        "name_bindings",
        "summary_facts",
        "switched_branches",
    }
)
"""The fields of `FunctionSummary` that hold positions (`shifted_function` moves each; a test
checks that every other field holds none). The summary hooks' values (`summary_facts`) are
moved by their fields typed `Span`, whatever the hook."""


def shifted_function(fn: FunctionSummary, shift: LineShift) -> FunctionSummary:
    """`fn` with its positions moved (a new object: the previous summary stays as it was)."""
    span = shift.span
    return replace(
        fn,
        line=shift.line(fn.line),
        span=span(fn.span),
        decorators=tuple(_shifted_span(d, shift) for d in fn.decorators),
        calls=[_shifted_span(site, shift) for site in fn.calls],
        stores=[_shifted_span(store, shift) for store in fn.stores],
        loops=[_shifted_span(loop, shift) for loop in fn.loops],
        statement_loops=[_shifted_statement_loop(loop, shift) for loop in fn.statement_loops],
        variable_reads=[(r, attr, span(s), n) for r, attr, s, n in fn.variable_reads],
        index_reads={sym: span(s) for sym, s in fn.index_reads.items()},
        hashed_values={sym: span(s) for sym, s in fn.hashed_values.items()},
        stepped_slices={sym: (step, span(s)) for sym, (step, s) in fn.stepped_slices.items()},
        singular_operands={sym: span(s) for sym, s in fn.singular_operands.items()},
        name_bindings=[(name, span(s)) for name, s in fn.name_bindings],
        switched_branches=tuple(
            (
                name,
                negated,
                none_test,
                _shifted_optional(body, shift),
                _shifted_optional(orelse, shift),
            )
            for name, negated, none_test, body, orelse in fn.switched_branches
        ),
        summary_facts={
            code: tuple(_shifted_fact(value, shift) for value in values)
            for code, values in fn.summary_facts.items()
        },
    )


def shifted_class(cls: ClassSummary, shift: LineShift) -> ClassSummary:
    return replace(
        cls,
        line=shift.line(cls.line),
        decorators=tuple(_shifted_span(d, shift) for d in cls.decorators),
    )


def _shifted_optional(span: Span | None, shift: LineShift) -> Span | None:
    """A branch's span moved with its statement (`None`: the `if` has no such branch)."""
    return None if span is None else shift.span(span)


class _Spanned(Protocol):
    @property
    def span(self) -> Span: ...


SpannedT = TypeVar("SpannedT", bound=_Spanned)
FactT = TypeVar("FactT")


def _shifted_span(value: SpannedT, shift: LineShift) -> SpannedT:
    """A decorator, call site, store, loop or offset sum moved with its statement: the same
    object when its span does not move (most, above the edit)."""
    span = shift.span(value.span)
    return value if span is value.span else replace(value, span=span)  # type: ignore[type-var]


def _shifted_fact(value: FactT, shift: LineShift) -> FactT:
    """A summary hook's value with every field typed `Span` moved (the same object when none
    moves): a hook's positions are moved without being listed."""
    kind: type = type(value)
    names = _span_fields(kind)
    if not names:
        return value
    moved = {}
    for name in names:
        before = getattr(value, name)
        after = shift.span(before)
        if after is not before:
            moved[name] = after
    return replace(value, **moved) if moved else value  # type: ignore[type-var]


@functools.cache
def _span_fields(kind: type) -> tuple[str, ...]:
    """The fields of a dataclass declared with the type `Span` (none for another class)."""
    if not dataclasses.is_dataclass(kind):
        return ()
    return tuple(f.name for f in dataclasses.fields(kind) if f.type in ("Span", Span))


def _shifted_statement_loop(loop: StatementLoop, shift: LineShift) -> StatementLoop:
    return replace(
        loop,
        span=shift.span(loop.span),
        rebinds=tuple((name, i, shift.span(s)) for name, i, s in loop.rebinds),
    )
