"""Spans from CPython's parser, paired with the walk, equal libcst's exact positions."""

from __future__ import annotations

import textwrap
from pathlib import Path

import libcst as cst
import pytest

from hybridize.analyzer.ir import ModuleSummary
from hybridize.analyzer.positions import MetadataPositions, OrdinalPositions, PositionMismatch
from hybridize.analyzer.summarize import _ModuleBuilder, summarize_module
from hybridize.model import Span

REPO = Path(__file__).resolve().parents[2]

TRICKY = {
    "chained": "y = f(a)(b).g(c)[h(d)](e)\n",
    "nested_multiline": "x = outer(\n    inner(1),\n    other(inner(2), k=third()),\n)\n",
    "decorators": "@deco(arg())\n@plain\nclass C(Base, metaclass=meta()):\n    attr = make()\n    @staticmethod\n    def m(x=default()):\n        return x\n",
    "comprehensions": "v = [f(i) for i in g() if h(i)]\nw = {k(a): v(a) for a in src()}\n",
    "targets": "a[f()] = g()\nobj.attr, (p, *q) = pair()\nx += step()\n",
    "walrus_lambda": "if (n := size()) > 0:\n    cb = lambda z=dflt(): z * n\n",
    "ifexp": "r = yes() if cond() else no()\n",
    "unicode": "s = 'héllo'; t = ünïcode(s, naïve())\n",
    "with_for": "with open_it() as fh, other() as (a, b):\n    for row in rows(fh):\n        use(row)\n",
    "try": "try:\n    risky()\nexcept make_exc() as err:\n    handle(err)\nfinally:\n    done()\n",
    "async": "async def f():\n    async for x in gen():\n        await g(x)\n",
}


def spans(summary: ModuleSummary) -> list[tuple[str, Span]]:
    out: list[tuple[str, Span]] = []
    for fn in [summary.module_code, *summary.functions.values()]:
        out.append((fn.qualname, fn.span))
        out += [("call", c.span) for c in fn.calls]
        out += [("store", s.span) for s in fn.stores]
        out += [("loop", loop.span) for loop in fn.loops]
    return out


def encloses(outer: Span, inner: Span) -> bool:
    return (outer.start_line, outer.start_col) <= (inner.start_line, inner.start_col) and (
        outer.end_line,
        outer.end_col,
    ) >= (inner.end_line, inner.end_col)


def both(text: str) -> tuple[list[tuple[str, Span]], list[tuple[str, Span]]]:
    tree = cst.parse_module(text)
    ordinal = OrdinalPositions(text)
    fast = _ModuleBuilder("m.py", tree, ordinal).build(1)
    ordinal.finish()
    exact = _ModuleBuilder("m.py", tree, MetadataPositions(tree)).build(1)
    return spans(fast), spans(exact)


@pytest.mark.parametrize("name", sorted(TRICKY))
def test_tricky_constructs(name: str) -> None:
    fast, exact = both(textwrap.dedent(TRICKY[name]))
    assert fast == exact


def test_calls_inside_fstrings_take_the_enclosing_span() -> None:
    text = "def f(x):\n    print(f'{x.numpy():.3f} {len(x)}')\n"
    fast, exact = both(text)
    assert len(fast) == len(exact)
    for (kind, a), (_, b) in zip(fast, exact, strict=True):
        assert a == b or (kind == "call" and encloses(a, b))


def test_match_statement_falls_back_to_exact_positions() -> None:
    text = "def f(p):\n    match p:\n        case Point(x=0):\n            return g(p)\n"
    tree = cst.parse_module(text)
    with pytest.raises(PositionMismatch):
        _ModuleBuilder("m.py", tree, OrdinalPositions(text)).build(1)
    summary = summarize_module("m.py", tree, text)
    call = summary.functions["f"].calls[0]
    assert (call.span.start_line, call.span.start_col) == (4, 19)


SOURCES = sorted(
    p for folder in ("analyzer", "hybridize", "corpus") for p in (REPO / folder).rglob("*.py")
)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(REPO)))
def test_real_files_agree_except_inside_fstrings(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    try:
        fast, exact = both(text)
    except PositionMismatch:
        pytest.skip("falls back to exact positions (match statement)")
    assert len(fast) == len(exact)
    for (kind, a), (_, b) in zip(fast, exact, strict=True):
        # Only a call inside an f-string may differ: it takes its statement's span.
        assert a == b or (kind == "call" and encloses(a, b) and ("f'" in text or 'f"' in text))
