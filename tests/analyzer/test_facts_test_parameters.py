"""A parameterized test's cases are calls of it (absl `parameterized`, pytest `parametrize`).

tf-models' `edgetpu_test.test_sharded_size` receives `algorithm` from
`@parameterized.parameters(([16], 8, _sharded_nms, True), ...)` and calls it with
`tf_keras.Input` tensors: under `@tf.function` the library's `_greater` then received Keras
symbolic tensors and failed (measured on the oracle). The cases must reach the test's
parameters for that call to be seen.
"""

from __future__ import annotations

from facts_helpers import project_result, verdict

LIBRARY = """
import tensorflow as tf


def _greater(x):
    x_clip = tf.minimum(tf.nn.relu(x), tf.constant(1, dtype=x.dtype))
    return -tf.math.floor(-x_clip)


def sharded(boxes, scores, top):
    return _greater(scores) * top


def plain(boxes, scores, top):
    return scores * top


def scale(x, factor):
    return x * factor
"""

ABSL_TEST = """
import tensorflow as tf
import tf_keras
from absl.testing import parameterized

from lib import sharded, plain


class ShardTest(parameterized.TestCase, tf.test.TestCase):
    @parameterized.parameters(([16], 8, sharded), ([4], 2, sharded))
    def test_size(self, shape, top, algorithm):
        scores = tf_keras.Input(shape=shape, batch_size=1)
        boxes = tf_keras.Input(shape=shape + [4], batch_size=1)
        algorithm(boxes, scores, top)

    @parameterized.named_parameters(("small", [4], 2, plain))
    def test_plain(self, shape, top, algorithm):
        algorithm(tf.ones(shape + [4]), tf.ones(shape), top)
"""

PYTEST_TEST = """
import pytest
import tensorflow as tf

from lib import scale


@pytest.mark.parametrize("factor", [tf.constant(2.0), tf.constant(3.0)])
def test_scale(factor):
    scale(tf.ones([3]), factor)
"""


def test_absl_cases_carry_a_function_that_receives_keras_symbolic_tensors() -> None:
    files = {"lib.py": LIBRARY, "lib_test.py": ABSL_TEST}
    assert verdict(files, "lib.py::sharded").fact("has_keras_symbolic_arguments") is True
    # and through the helper it calls
    assert verdict(files, "lib.py::_greater").fact("has_keras_symbolic_arguments") is True


def test_named_cases_drop_the_test_name() -> None:
    files = {"lib.py": LIBRARY, "lib_test.py": ABSL_TEST}
    v = verdict(files, "lib.py::plain")
    assert v.fact("has_keras_symbolic_arguments") is False
    assert {p.name: p.is_tensor for p in v.facts.params}["scores"] is True


def test_pytest_cases_are_arguments() -> None:
    files = {"lib.py": LIBRARY, "test_lib.py": PYTEST_TEST}
    v = verdict(files, "lib.py::scale")
    assert {p.name: p.is_tensor for p in v.facts.params}["factor"] is True


CLASS_ATTRIBUTE_CASES = """
import tensorflow as tf
import tf_keras
from absl.testing import parameterized

import lib


class ShardTest(parameterized.TestCase, tf.test.TestCase):
    _sharded = lib.sharded

    @parameterized.parameters(([16], 8, _sharded))
    def test_size(self, shape, top, algorithm):
        scores = tf_keras.Input(shape=shape, batch_size=1)
        boxes = tf_keras.Input(shape=shape + [4], batch_size=1)
        algorithm(boxes, scores, top)
"""


def test_cases_may_name_attributes_of_the_test_class_body() -> None:
    """tf-models' edgetpu test names `_sharded_nms = edgetpu.non_max_suppression_padded`,
    an attribute of its class body, in its cases (the oracle measured the failure)."""
    files = {"lib.py": LIBRARY, "lib_test.py": CLASS_ATTRIBUTE_CASES}
    assert verdict(files, "lib.py::sharded").fact("has_keras_symbolic_arguments") is True


def test_cases_with_calls_in_a_class_with_body_attributes_cost_no_verdict() -> None:
    """The cases are summarised in the enclosing scope (its call indices): evaluating them in
    the class body's scope raised IndexError on tf-models' `dict(...)` cases."""

    source = """
    import tensorflow as tf
    from absl.testing import parameterized


    class ScheduleTest(parameterized.TestCase):
        _rate = 0.1

        @parameterized.parameters(dict(step=1, expected=tf.ones([2])), dict(step=2, expected=_rate))
        def test_schedule(self, step, expected):
            return tf.add(expected, step)
    """
    result = project_result({"schedule_test.py": source})
    verdicts, errors = result.functions, result.errors
    assert errors == ()
    assert any(v.qualname == "ScheduleTest.test_schedule" for v in verdicts)


MIXED_KINDS = """
import tensorflow as tf
import tf_keras


def _sum_vectors(a, b):
    return tf.reshape(a, [-1]) + b


def _same(x):
    return tf.constant(1, dtype=x.dtype) + tf.math.floor(-tf.abs(x))


def nms(scores):
    return _same(_sum_vectors(scores, -scores))


def build():
    nms(tf.ones([4]))
    nms(tf_keras.Input(shape=[4], batch_size=1))
"""


def test_arithmetic_on_a_value_that_may_be_symbolic_may_be_symbolic() -> None:
    """`-scores` of a value that is a tensor in one call and a Keras symbolic tensor in
    another may be either: the result kept only "tensor", and tf-models' `edgetpu._same`
    passed (its test builds a functional model through it)."""
    assert verdict(MIXED_KINDS, "_same").fact("has_keras_symbolic_arguments") is True
