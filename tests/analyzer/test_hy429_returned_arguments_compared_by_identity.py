"""HY429: a function that returns an argument as given, whose result a caller compares by identity.

The check's examples (hybridize/check_examples/HY429) run through test_check_examples; these
tests pin the callers that make the hazard (a call resolved to the function, and a method call
the analysis cannot resolve, as tensorflow-gnn's parameterised tests make), those that do not,
and measure the claim: tf.function returns new objects (TF 2.21), Dynamo the same ones (torch
2.13).
"""

from __future__ import annotations

import importlib.util

import pytest
from facts_helpers import analyse, verdict

TASKS = """
import abc
import unittest

import tensorflow as tf


class Task(abc.ABC):
    @abc.abstractmethod
    def preprocess(self, inputs):
        ...


class Contrastive(Task):
    def preprocess(self, inputs):
        return (inputs, tf.reverse(inputs, [0])), tf.zeros([2])


class Scaled(Task):
    def preprocess(self, inputs):
        return inputs * 2.0


class TaskTest(unittest.TestCase):
    def check(self, task: Task):
        x = tf.constant([1.0, 2.0])
        gts, _ = task.preprocess(x)
        self.assertIs(gts[0], x)


for _ in range(100):
    Contrastive().preprocess(tf.ones([3]))
    Scaled().preprocess(tf.ones([3]))
"""


def _hy429(source: str, qualname: str) -> list[str]:
    return [f.message for f in verdict(source, qualname).findings if f.code == "HY429"]


def test_a_method_call_the_analysis_cannot_resolve_stands_for_every_method_of_its_name() -> None:
    (message,) = _hy429(TASKS, "Contrastive.preprocess")
    assert "`TaskTest.check`" in message and "`.preprocess()`" in message
    decided = verdict(TASKS, "Contrastive.preprocess")
    assert not decided.passes and "returns_arguments_compared_by_identity" in decided.failures
    # `Scaled.preprocess` computes a new tensor: an identity test is False either way.
    assert _hy429(TASKS, "Scaled.preprocess") == []


def test_an_identity_test_on_a_resolved_call_names_the_caller_and_the_use() -> None:
    source = """
    import tensorflow as tf


    def passthrough(x, scale):
        return x if scale is None else x * scale


    def caller(t):
        y = passthrough(t, None)
        if y is t:
            print("unchanged")
        return id(passthrough(t, 2.0))


    for _ in range(100):
        caller(tf.ones([3]))
    """
    (message,) = _hy429(source, "passthrough")
    assert "`caller`" in message and "compares it with `is`" in message


@pytest.mark.parametrize(
    "use",
    [
        "assert passthrough(t) is not None",  # a literal: None comes back as None
        "assert (passthrough(t) + 1.0) is not t",  # a new value, whichever way it runs
        "assert tf.reduce_all(passthrough(t) == t)",  # values, not objects
    ],
)
def test_comparisons_that_do_not_ask_for_the_argument_object_are_no_hazard(use: str) -> None:
    source = f"""
import tensorflow as tf


def passthrough(x):
    return x


for _ in range(100):
    t = tf.ones([3])
    {use}
"""
    assert _hy429(source, "passthrough") == []
    assert not verdict(source, "passthrough").fact("returns_arguments_compared_by_identity")


def test_an_unresolved_call_of_a_function_name_does_not_reach_methods() -> None:
    source = TASKS.replace("task.preprocess(x)", "preprocess(x)").replace(
        "def check(self, task: Task):", "def check(self, preprocess):"
    )
    assert "Contrastive.preprocess" in analyse(source)
    assert _hy429(source, "Contrastive.preprocess") == []


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_tf_function_returns_new_objects_for_arguments_returned_unchanged() -> None:
    """Measured under TF 2.21: a tensor, ragged or sparse tensor returned unchanged, alone or
    in a tuple, comes back as a new object without the argument's Python attributes; eagerly
    it is the argument itself."""
    import tensorflow as tf

    def identity(x: object) -> object:
        return x

    def pair(x: object) -> object:
        return x, x

    compiled_identity, compiled_pair = tf.function(identity), tf.function(pair)
    tensor = tf.constant([1.0, 2.0])
    ragged = tf.ragged.constant([[1.0], [2.0, 3.0]])
    sparse = tf.sparse.from_dense(tf.constant([[1.0, 0.0]]))
    for value in (tensor, ragged, sparse):
        assert identity(value) is value
        assert compiled_identity(value) is not value
        assert compiled_pair(value)[0] is not value
    masked = tf.constant([1.0])
    masked._keras_mask = tf.constant([True])  # type: ignore[attr-defined]
    assert not hasattr(compiled_identity(masked), "_keras_mask")


@pytest.mark.torch
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_torch_compile_returns_the_argument_objects_themselves() -> None:
    """Measured under torch 2.13: Dynamo gives back the tensor a function returns unchanged,
    alone or in a tuple, with its Python attributes (why HY429 is TensorFlow's only)."""
    import torch

    from hybridize.analyzer.checks.hy429_returned_arguments_compared_by_identity import (
        ReturnsArgumentsComparedByIdentity,
    )

    assert ReturnsArgumentsComparedByIdentity.frameworks == frozenset({"tensorflow"})

    def pair(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return x, x * 2

    compiled = torch.compile(pair, backend="eager")
    tensor = torch.ones(3)
    tensor.tag = "kept"  # type: ignore[attr-defined]
    first, _ = compiled(tensor)
    assert first is tensor
    assert first.tag == "kept"
