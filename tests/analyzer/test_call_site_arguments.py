"""`CallSite.argument_at` and `named_argument`: a call's argument by position or keyword."""

from __future__ import annotations

from hybridize.analyzer.summaries.ir import NO_SPAN, CallSite
from hybridize.analyzer.summaries.syms import UNKNOWN, lit_sym

A, B, K = lit_sym("int", 1), lit_sym("int", 2), lit_sym("int", 3)


def test_argument_at_takes_the_first_present_in_the_order_given() -> None:
    site = CallSite(UNKNOWN, (A, B), (("dtype", K),), NO_SPAN)
    assert site.argument_at((1, "dtype")) == B
    assert site.argument_at(("dtype", 1)) == K
    assert site.argument_at((5, "shape")) is None
    assert site.argument_at((5, "dtype")) == K
    assert CallSite(UNKNOWN, (A,), (), NO_SPAN).argument_at((1, "dtype")) is None


def test_named_argument_reads_the_keyword_first_then_the_parameter_position() -> None:
    parameters = ("x", "name")
    assert CallSite(UNKNOWN, (A, B), (), NO_SPAN).named_argument("name", parameters) == B
    assert CallSite(UNKNOWN, (A,), (("name", K),), NO_SPAN).named_argument("name", parameters) == K
    assert CallSite(UNKNOWN, (A,), (), NO_SPAN).named_argument("name", parameters) is None
    # a name the callee has no position for is found by keyword only
    assert CallSite(UNKNOWN, (A, B), (), NO_SPAN).named_argument("name", ("x",)) is None
    assert CallSite(UNKNOWN, (A, B), (("name", K),), NO_SPAN).named_argument("name", ()) == K
