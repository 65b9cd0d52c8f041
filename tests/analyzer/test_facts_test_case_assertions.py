"""A test case's assertions read tensor values in Python: they are eager-only.

tf-models' `KerasTestCase.assertNestedEqual` (a helper module, not a test file) calls
`self.assertAllEqual(a, b)` on layer outputs; decorated with `@tf.function`, the traced
assertion received symbolic tensors and the test failed (the oracle measured it). The methods
of a project class deriving from `unittest.TestCase` or `tf.test.TestCase` that it does not
define itself are the framework's, and its assertions need concrete values.
"""

from __future__ import annotations

from facts_helpers import verdict

SOURCE = """
import tensorflow as tf


class KerasTestCase(tf.test.TestCase):
    def assertNestedEqual(self, data1, data2):
        tf.nest.assert_same_structure(data1, data2)
        for a, b in zip(tf.nest.flatten(data1), tf.nest.flatten(data2)):
            self.assertAllEqual(a, b)

    def assertLayerStable(self, inputs, layer):
        output1 = layer(inputs)
        output2 = layer(inputs)
        self.assertNestedEqual(output1, output2)

    def double(self, x):
        return tf.add(x, x)


class LayerTest(KerasTestCase):
    def test_stable(self):
        self.assertLayerStable(tf.ones([3, 1]), tf.keras.layers.Dense(2))
        self.double(tf.ones([2]))
"""


def test_a_test_case_assertion_is_eager_only() -> None:
    v = verdict(SOURCE, "KerasTestCase.assertNestedEqual")
    assert v.fact("has_eager_only_calls") is True
    assert not v.passes


def test_a_helper_calling_the_assertion_is_blocked_too() -> None:
    v = verdict(SOURCE, "KerasTestCase.assertLayerStable")
    assert not v.passes


def test_a_test_case_method_without_assertions_is_judged_on_its_own() -> None:
    v = verdict(SOURCE, "KerasTestCase.double")
    assert v.fact("has_eager_only_calls") is False
