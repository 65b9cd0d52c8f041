"""A generator expression is summarised as the generator it makes: a sequence whose element is
what the equivalent list comprehension's is, computed from the iterated values (not an unknown
object), so that `tuple(x.requires_grad_() for x in xs)` is seen to hold leaves and
`any(s < 0 for s in tensors)` to read tensors' values. (The values' facts, `facts/evaluator.py`,
still take the generator for an unknown Python object.)"""

from __future__ import annotations

import ast

from facts_helpers import analyse

from hybridize.analyzer.checks import summary_hooks
from hybridize.analyzer.summaries.summarize import summarize_module
from hybridize.analyzer.summaries.syms import seq_kind

SOURCE = """
def f(xs):
    listed = [x.requires_grad_(True) for x in xs]
    generated = (x.requires_grad_(True) for x in xs)
    return listed, generated
"""


def test_a_generator_expression_holds_what_the_list_comprehension_holds() -> None:
    fn = summarize_module("m.py", SOURCE, ast.parse(SOURCE), summary_hooks()).functions["f"]
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


def test_any_over_a_generator_expression_of_tensors_is_judged_as_over_the_list() -> None:
    """`any(s < 0 for s in tensors)` calls `bool` on each symbolic comparison: measured on
    TF 2.21, a `tf.function` raises OperatorNotAllowedInGraphError (AutoGraph converts `any`
    over a dataset only), as it does over the list comprehension."""
    source = """
import tensorflow as tf


def check(sigma):
    sigma = tf.convert_to_tensor(sigma)
    if any(s < 0 for s in tf.unstack(sigma)):
        raise ValueError("negative")
    return sigma * 2


for _ in range(100):
    check(tf.constant([1.0, 2.0]))
"""
    listed = source.replace(
        "any(s < 0 for s in tf.unstack(sigma))", "any([s < 0 for s in tf.unstack(sigma)])"
    )
    for program in (source, listed):
        verdict = analyse(program)["check"]
        assert not verdict.passes
        assert [f.code for f in verdict.findings] == ["HY303"]
