"""HY436: a caller passes what a variable's `assign`/`assign_add`/`assign_sub` gives.

The check's examples (hybridize/check_examples/HY436) run through test_check_examples; these
tests pin the verdicts the rule gives and measure the claim behind it on the installed
TensorFlow: a tf.function first traced with an unread variable fails to read it, unless the
caller is itself traced.
"""

from __future__ import annotations

import importlib.util
import textwrap

import pytest
from facts_helpers import analyse

from hybridize.analyzer.checks import check_of

PROJECT = """
import tensorflow as tf

counter = tf.Variable(0, dtype=tf.int64)
section = tf.CriticalSection()


def in_section(episode_id):
    return tf.math.mod(episode_id, 10)


def in_branch(episode_id):
    return tf.math.mod(episode_id, 10)


def read_first(episode_id):
    return tf.math.mod(episode_id, 10)


def by_identity(episode_id):
    return tf.math.mod(episode_id, 10)


def from_graph(episode_id):
    return tf.math.mod(episode_id, 10)


def next_location():
    def body():
        new_id = counter.assign_add(1)
        return in_section(new_id)

    return section.execute(body)


def by_cond(flag):
    return tf.cond(
        flag, lambda: in_branch(counter.assign_sub(1)), lambda: tf.constant(0, tf.int64)
    )


@tf.function
def step():
    return from_graph(counter.assign(3))


for _ in range(10):
    next_location()
    by_cond(tf.constant(True))
    read_first(counter.assign_add(1).read_value())
    by_identity(tf.identity(counter.assign_add(1)))
    step()
"""


def _hy436(qualname: str) -> list[str]:
    v = analyse(textwrap.dedent(PROJECT))[qualname]
    return [f.message for f in v.findings if f.code == "HY436"]


@pytest.mark.parametrize(
    ("qualname", "caller"), [("in_section", "next_location.body"), ("in_branch", "by_cond")]
)
def test_an_update_passed_from_code_not_traced_blocks_the_callee(
    qualname: str, caller: str
) -> None:
    v = analyse(textwrap.dedent(PROJECT))[qualname]
    assert not v.passes
    [message] = [f.message for f in v.findings if f.code == "HY436"]
    assert check_of("HY436").severity == "error"
    assert f"`{caller}" in message
    assert "unread variable" in message


@pytest.mark.parametrize("qualname", ["read_first", "by_identity", "from_graph"])
def test_a_tensor_of_the_update_or_a_traced_caller_is_no_hazard(qualname: str) -> None:
    """`.read_value()` and `tf.identity` give tensors; a tf.function caller traces the callee
    inside its own graph, where the update's op is there to depend on."""
    assert _hy436(qualname) == []


@pytest.mark.tensorflow
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_a_function_traced_with_an_unread_variable_fails_to_read_it() -> None:
    """Measured under TF 2.21: each context gets a fresh tf.function, first traced there."""
    import tensorflow as tf

    v = tf.Variable(0, dtype=tf.int64)
    section = tf.CriticalSection()

    def outcome(run: object) -> str:
        @tf.function
        def location(x: tf.Tensor) -> tf.Tensor:
            return tf.math.mod(x, 5)

        try:
            run(location)  # type: ignore[operator]
        except TypeError as exc:
            assert "Can not convert a NoneType into a Tensor or Operation" in str(exc)
            return "fails"
        return "runs"

    def zero() -> tf.Tensor:
        return tf.constant(0, tf.int64)

    assert outcome(lambda f: f(v.assign_add(1))) == "fails"
    assert outcome(lambda f: tf.cond(tf.constant(True), lambda: f(v.assign_add(1)), zero)) == (
        "fails"
    )
    assert outcome(lambda f: section.execute(lambda: f(v.assign_sub(1)))) == "fails"
    assert outcome(lambda f: f(v.assign(2))) == "fails"
    # a tensor of the update, or a caller that traces the function inside its own graph
    assert outcome(lambda f: f(v.assign_add(1).read_value())) == "runs"
    assert outcome(lambda f: f(tf.identity(v.assign_add(1)))) == "runs"
    assert outcome(lambda f: tf.function(lambda: f(v.assign_add(1)))()) == "runs"
    assert outcome(lambda f: f(v)) == "runs"
