"""Positions and text edits at the LSP edge, without a server."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lsprotocol import types

from hybridize.lsp.positions import Lines, apply_text_edits, text_edits
from hybridize.model import Span

ENCODINGS = ["utf-8", "utf-16", "utf-32"]


@pytest.mark.parametrize(("encoding", "expected"), [("utf-8", 11), ("utf-16", 8), ("utf-32", 7)])
def test_columns_count_the_negotiated_units(encoding: str, expected: int) -> None:
    lines = Lines('x = "é😀"\n', encoding)
    # Column 7 (code points) is after the emoji: 4 UTF-8 bytes, 2 UTF-16 units, 1 code point.
    assert lines.position(0, 7).character == expected
    assert lines.column(lines.position(0, 7)) == 7
    assert lines.span_range(Span(1, 0, 1, 7)).end.character == expected


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("a\nb\n", "a\nx\nb\n"),
        ("a\r\nb", "a\r\nb\r\nc"),  # no final newline: the last line changes
        ("def f():\n    pass", "@tf.function\ndef f():\n    pass"),
        ("é😀\rz\n", "é😀\rz\ny\n"),
        ("", "import tensorflow as tf\n"),
        ("a\nb\nc\n", "c\n"),
        ("a\na\na\n", "a\na\n"),  # common head and tail overlap
        ("x\ny\nx\n", "x\nx\ny\nx\n"),
    ],
)
def test_text_edits_reproduce_the_new_text(encoding: str, old: str, new: str) -> None:
    edits = text_edits(old, new, encoding)
    assert apply_text_edits(old, edits, encoding) == new
    assert (edits == []) == (old == new)


line = st.sampled_from(["a", "é😀", "", "  @tf.function", "def f(x):"])
ending = st.sampled_from(["\n", "\r\n", "\r"])
texts = st.lists(st.tuples(line, ending), max_size=6).map(
    lambda pairs: "".join(a + b for a, b in pairs)
)


@settings(deadline=None, max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(texts, texts, st.sampled_from(ENCODINGS), st.booleans())
def test_text_edits_round_trip(old: str, new: str, encoding: str, cut: bool) -> None:
    if cut and old:
        old = old.rstrip("\r\n")  # a last line without a newline
    edits = text_edits(old, new, encoding)
    assert apply_text_edits(old, edits, encoding) == new
    assert all(e.range.start.line <= e.range.end.line for e in edits)
    assert all(isinstance(e, types.TextEdit) for e in edits)


def test_text_edits_of_far_apart_changes_in_a_long_repetitive_file() -> None:
    """An import at the top and decorators all over a 3,000-line file of repeated lines (the
    source action): difflib's popularity heuristic applies there, and the edits must still
    give the new text exactly."""
    block = ["def f{n}(x):\n", "    y = x * 2\n", "\n", "    return y\n", "\n", "\n"]
    old_lines = [line.format(n=i) for i in range(500) for line in block]
    new_lines = ["import tensorflow as tf\n"]
    for i, line in enumerate(old_lines):
        if line.startswith("def ") and i % 36 == 0:
            new_lines.append("@tf.function\n")
        new_lines.append(line)
    old, new = "".join(old_lines), "".join(new_lines)
    edits = text_edits(old, new)
    assert apply_text_edits(old, edits, types.PositionEncodingKind.Utf16) == new
    assert len(edits) <= 2 * (len(new_lines) - len(old_lines))
    assert text_edits(old, new) == edits  # asked again: the same edits
