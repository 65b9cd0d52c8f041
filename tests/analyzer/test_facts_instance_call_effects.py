"""Calling an object runs its `__call__` on that object: what `__call__` does to `self`, the
caller does to the object it was handed (Sonnet's modules build their variables on their first
call; under `@tf.function` a fresh module passed in never got its `w`)."""

from __future__ import annotations

from facts_helpers import verdict

SOURCE = """
import tensorflow as tf


class Linear:
    def __init__(self, n):
        self.n = n
        self.w = None

    def __call__(self, x):
        if self.w is None:
            self.w = tf.Variable(tf.ones([x.shape[-1], self.n]))
        return tf.matmul(x, self.w)


class Scale:
    def __init__(self, factor):
        self.factor = factor

    def __call__(self, x):
        return x * self.factor


def apply_both(first, second, x):
    return first(x) + second(x)


def apply_scale(scale, x):
    return scale(x)


def test_calls():
    x = tf.ones([2, 3])
    apply_both(Linear(3), Linear(3), x)
    apply_scale(Scale(2.0), x)
"""


def test_calling_an_object_that_mutates_itself_mutates_the_argument() -> None:
    v = verdict(SOURCE, "apply_both")
    assert v.facts.has_python_side_effects is True
    assert any(f.code == "HY107" and "`first`" in f.message for f in v.findings)
    assert not v.passes


def test_calling_an_object_that_only_reads_itself_is_no_effect() -> None:
    v = verdict(SOURCE, "apply_scale")
    assert v.facts.has_python_side_effects is False
