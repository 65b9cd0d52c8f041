"""HY407: ops whose result is a `tf.Operation` in a graph, returned inside a list, a tuple or a
dict, built with `append`/`extend`/`+`, or returned by a project function the function calls.

tensorflow-lattice's `assert_constraints` methods return the list of `tf.debugging.Assert`
ops their helper builds (`asserts = lib.assert_constraints(...); asserts.append(...)`). Eagerly
each op gives None; traced, each is a `tf.Operation`, and `tf.function` refuses to return one
wherever it sits in the returned structure (TypeError while tracing). The measuring test below
re-measures that on the installed TensorFlow (TF 2.21 when written).
"""

from __future__ import annotations

import pytest
from facts_helpers import finding_messages

PROJECT = """
import tensorflow as tf


def one(x):
    return tf.Assert(tf.reduce_all(x > 0), [x])


def listed(x):
    return [tf.debugging.assert_positive(x), tf.debugging.assert_less(x, 5.0)]


def appended(x, bounds):
    asserts = []
    for bound in bounds:
        asserts.append(tf.debugging.assert_less_equal(x, bound))
    return asserts


def extended(x):
    asserts = [tf.debugging.assert_positive(x)]
    asserts.extend([tf.Assert(tf.reduce_all(x < 5.0), [x])])
    return asserts


def concatenated(x):
    asserts = [tf.debugging.assert_positive(x)]
    return asserts + [tf.debugging.assert_less(x, 5.0)]


def from_a_helper(x):
    asserts = listed(x * 2.0)
    asserts.append(one(x))
    return asserts


def paired(x):
    return x * 2.0, tf.debugging.assert_positive(x)


def checked(x):
    with tf.control_dependencies([tf.debugging.assert_positive(x)]):
        return tf.identity(x * 2.0)


def tensors(x):
    parts = []
    for i in range(3):
        parts.append(x * float(i))
    return parts


def run():
    for i in range(10):
        x = tf.ones([3]) * float(i + 1)
        one(x)
        listed(x)
        appended(x, [5.0, 6.0])
        extended(x)
        concatenated(x)
        from_a_helper(x)
        paired(x)
        checked(x)
        tensors(x)
"""


def _hy407(qualname: str) -> list[str]:
    return finding_messages(PROJECT, qualname, "HY407")


@pytest.mark.parametrize(
    ("qualname", "op"),
    [
        ("one", "tf.debugging.Assert"),
        ("listed", "tf.debugging.assert_"),
        ("appended", "tf.debugging.assert_less_equal"),
        ("extended", "tf.debugging."),
        ("concatenated", "tf.debugging.assert_"),
        ("from_a_helper", "tf.debugging."),
        ("paired", "tf.debugging.assert_positive"),
    ],
)
def test_a_returned_operation_anywhere_in_the_result_blocks_the_function(
    qualname: str, op: str
) -> None:
    [message] = _hy407(qualname)
    assert f"`{op}" in message
    assert "a tf.Operation in a graph" in message


@pytest.mark.parametrize("qualname", ["checked", "tensors"])
def test_operations_run_but_not_returned_and_lists_of_tensors_pass(qualname: str) -> None:
    assert _hy407(qualname) == []


@pytest.mark.tensorflow
@pytest.mark.slow
def test_a_compiled_function_cannot_return_operations_in_any_structure() -> None:
    """Measured under TF 2.21: eagerly the ops give None (so a list of Nones, a tuple with
    None); compiled, any returned structure holding one raises TypeError while tracing, and
    ops run under `control_dependencies` with a tensor returned are fine."""
    import tensorflow as tf

    x = tf.constant([1.0, 2.0])

    def asserts_list(x: tf.Tensor) -> list[object]:
        asserts = [tf.debugging.assert_positive(x)]
        asserts.append(tf.Assert(tf.reduce_all(x < 5.0), [x]))
        return asserts

    def paired(x: tf.Tensor) -> tuple[object, object]:
        return x * 2.0, tf.debugging.assert_less(x, 5.0)

    def in_a_dict(x: tf.Tensor) -> dict[str, object]:
        return {"check": tf.debugging.assert_positive(x)}

    def checked(x: tf.Tensor) -> tf.Tensor:
        with tf.control_dependencies([tf.debugging.assert_positive(x)]):
            return tf.identity(x * 2.0)

    assert asserts_list(x) == [None, None]
    assert paired(x)[1] is None
    assert in_a_dict(x) == {"check": None}
    for returns_ops in (asserts_list, paired, in_a_dict):
        with pytest.raises(TypeError, match="must return zero or more Tensors"):
            tf.function(returns_ops)(x)
    assert tf.function(checked)(x).numpy().tolist() == [2.0, 4.0]
