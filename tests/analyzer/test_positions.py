"""Spans in summaries come from CPython's tree: each names the text of what it records.

The text at a call's span parses back to that call, a definition's span starts at its
`def`/`class`, a loop's at its `for`, in code-point columns whatever the characters before it.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from hybridize.analyzer.checks import summary_hooks
from hybridize.analyzer.summaries.sources import split_lines
from hybridize.analyzer.summaries.summarize import summarize_module
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
    "keywords_then_star": "f(a, key=b(), *rest(), **more())\n",
}


def text_at(lines: list[str], span: Span) -> str:
    """The source a span covers, its columns in code points."""
    if span.start_line == span.end_line:
        return lines[span.start_line - 1][span.start_col : span.end_col]
    head = lines[span.start_line - 1][span.start_col :]
    tail = lines[span.end_line - 1][: span.end_col]
    return head + "".join(lines[span.start_line : span.end_line - 1]) + tail


def check_spans(text: str) -> int:
    """Assert that every span of the summary covers what it records; returns how many
    spans were checked."""
    summary = summarize_module("m.py", text, ast.parse(text), summary_hooks())
    lines = split_lines(text)
    checked = 0
    for fn in summary.functions.values():
        if fn.is_lambda:
            continue
        assert text_at(lines, fn.span).lstrip().startswith(("def ", "async def ")), fn.qualname
        checked += 1
    for cls in summary.classes.values():
        assert lines[cls.line - 1].lstrip().startswith("class ")
    for fn in [summary.module_code, *summary.functions.values()]:
        for call in fn.calls:
            covered = text_at(lines, call.span)
            if "f'" in covered or 'f"' in covered:
                continue  # a call inside an f-string takes its statement's span
            try:
                node = ast.parse(f"({covered})", mode="eval").body
            except SyntaxError:
                node = None
            assert isinstance(node, ast.Call), covered
            checked += 1
            if call.callee[0] == "name":
                assert isinstance(node.func, ast.Name) and node.func.id == call.callee[1]
            elif call.callee[0] == "attr":
                assert isinstance(node.func, ast.Attribute) and node.func.attr == call.callee[2]
        for loop in fn.loops:
            if not loop.comprehension:
                assert text_at(lines, loop.span).startswith(("for ", "async for "))
    return checked


@pytest.mark.parametrize("name", sorted(TRICKY))
def test_tricky_constructs(name: str) -> None:
    assert check_spans(textwrap.dedent(TRICKY[name])) > 0


def test_code_point_columns_after_non_ascii_text() -> None:
    text = TRICKY["unicode"]
    calls = summarize_module("m.py", text, ast.parse(text), summary_hooks()).module_code.calls
    # A call is recorded once its arguments are: the inner one first.
    assert [text_at(split_lines(text), c.span) for c in calls] == [
        "naïve()",
        "ünïcode(s, naïve())",
    ]


def test_arguments_keep_source_order_around_a_star() -> None:
    text = "f(a, key=b(), *rest(), **more())\n"
    call = summarize_module("m.py", text, ast.parse(text), summary_hooks()).module_code.calls[-1]
    assert call.callee == ("name", "f")
    assert [
        c.callee
        for c in summarize_module("m.py", text, ast.parse(text), summary_hooks()).module_code.calls[
            :3
        ]
    ] == [
        ("name", "b"),
        ("name", "rest"),
        ("name", "more"),
    ]
    assert call.kwargs == (("key", ("call", 0)),)
    assert call.star_values == (("call", 1), ("call", 2))


def test_calls_inside_fstrings_take_the_enclosing_span() -> None:
    text = "def f(x):\n    print(f'{x.numpy():.3f} {len(x)}')\n"
    calls = summarize_module("m.py", text, ast.parse(text), summary_hooks()).functions["f"].calls
    assert [c.callee[-1] for c in calls] == ["numpy", "len", "print"]
    statement = Span(2, 4, 2, 38)
    assert calls[0].span == calls[1].span == calls[2].span == statement


def test_calls_in_an_fstring_joined_to_a_plain_string_are_seen() -> None:
    text = 'def f(x):\n    print("loss " f"{x.numpy():.3f}")\n'
    calls = summarize_module("m.py", text, ast.parse(text), summary_hooks()).functions["f"].calls
    assert ("attr", ("local", "x"), "numpy") in [c.callee for c in calls]


def test_match_statement_calls_and_guards() -> None:
    text = "def f(p):\n    match p:\n        case Point(x=0) if ok(p):\n            return g(p)\n"
    calls = summarize_module("m.py", text, ast.parse(text), summary_hooks()).functions["f"].calls
    assert [c.callee for c in calls] == [("name", "ok"), ("name", "g")]
    assert (calls[1].span.start_line, calls[1].span.start_col) == (4, 19)


def test_elif_and_else_holding_an_if_read_alike() -> None:
    elif_text = (
        "def f(x):\n    if a(x):\n        y = 1\n    elif b(x):\n        y = 2\n    return y\n"
    )
    else_text = (
        "def f(x):\n    if a(x):\n        y = 1\n    else:\n        if b(x):\n            y = 2\n"
        "    return y\n"
    )
    first = summarize_module("m.py", elif_text, ast.parse(elif_text), summary_hooks()).functions[
        "f"
    ]
    second = summarize_module("m.py", else_text, ast.parse(else_text), summary_hooks()).functions[
        "f"
    ]
    assert first.locals == second.locals
    assert [c.callee for c in first.calls] == [c.callee for c in second.calls]


SOURCES = sorted(
    p for folder in ("analyzer", "hybridize", "corpus") for p in (REPO / folder).rglob("*.py")
)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(REPO)))
def test_real_files_spans_cover_what_they_record(path: Path) -> None:
    check_spans(path.read_text(encoding="utf-8"))
