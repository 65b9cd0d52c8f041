"""A generator expression is summarised as the generator it makes: a sequence whose element is
what the equivalent list comprehension's is, computed from the iterated values (not an unknown
object), so that `tuple(x.requires_grad_() for x in xs)` is seen to hold leaves."""

from __future__ import annotations

import ast

from facts_helpers import analyse

from hybridize.analyzer.summaries.summarize import summarize_module
from hybridize.analyzer.summaries.syms import seq_kind

SOURCE = """
def f(xs):
    listed = [x.requires_grad_(True) for x in xs]
    generated = (x.requires_grad_(True) for x in xs)
    return listed, generated
"""


def test_a_generator_expression_holds_what_the_list_comprehension_holds() -> None:
    fn = summarize_module("m.py", SOURCE, ast.parse(SOURCE)).functions["f"]
    [listed] = fn.locals["listed"]
    [generated] = fn.locals["generated"]
    assert seq_kind(listed) == "list" and seq_kind(generated) == "generator"
    [listed_element] = listed[2]
    [generated_element] = generated[2]
    # Each element is the result of its own `requires_grad_` call on the iterated value.
    listed_call = fn.calls[listed_element[1]]
    generated_call = fn.calls[generated_element[1]]
    assert listed_call.callee[2] == generated_call.callee[2] == "requires_grad_"
    assert listed_call.callee[1] == generated_call.callee[1] == ("name", "x")


def test_a_returned_generator_expression_is_a_generator() -> None:
    """What a generator function's call gives: tf.function cannot return it."""
    source = """
import tensorflow as tf


def squares(xs):
    return (tf.square(x) for x in xs)


for _ in range(100):
    squares([tf.constant(1.0)])
"""
    verdict = analyse(source)["squares"]
    reasons = " ".join([*verdict.failures, *(f.message for f in verdict.findings)])
    assert "returns a generator, which tf.function cannot return" in reasons
