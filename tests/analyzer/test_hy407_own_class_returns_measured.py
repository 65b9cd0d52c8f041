"""A method returning a new object of its instance's class, measured.

`type(self)(...)` and `self.__class__(...)` build an object of whatever class `self` has
(zfit 0.28's `BinnedHolder.with_variances` returns `type(self)(space=..., values=...,
variances=...)`): compiled, tf.function converts every returned leaf with `tf.nest`, and an
object of a plain class is no tensor, composite tensor or structure, so tracing raises
`TypeError: To be compatible with tf.function, Python functions must return zero or more
Tensors or ExtensionTypes or None values` (TF 2.21; the oracle's widened zfit sample failed
`test_binneddata_with_variance_method` so). HY407 owns "an instance of a plain project
class"; the evaluator gives no class for `type(x)`, so HY407 reads the call itself. Measured
here against the eager call, and the analysis claims exactly the forms measured to fail.
"""

from __future__ import annotations

import importlib.util

import pytest
from facts_helpers import analyse, run_probe

CLASSES = """
class Holder:  # zfit.core.binneddatav1.BinnedHolder, reduced
    def __init__(self, values):
        self.values = values

    def with_type(self, scale):
        return type(self)(tf.multiply(self.values, scale))

    def with_dunder(self, scale):
        return self.__class__(tf.multiply(self.values, scale))

    def in_tuple(self, scale):
        out = type(self)(tf.multiply(self.values, scale))
        return out, scale

    def values_of_new(self, scale):  # the new object stays inside: a tensor comes back
        return type(self)(tf.multiply(self.values, scale)).values

    def type_name(self, scale):  # `type(self)` read, not called: a tensor comes back
        return tf.multiply(self.values, scale) if type(self).__name__ else scale
"""

PROBE = (
    """
import tensorflow as tf
"""
    + CLASSES
    + """

x = tf.ones((3,))
s = tf.constant(2.0)
for name in ("with_type", "with_dunder", "in_tuple", "values_of_new", "type_name"):
    eager = getattr(Holder(x), name)
    compiled = tf.function(getattr(Holder(x), name))
    eager(s)
    try:
        compiled(s)
        print(name, "returns")
    except TypeError as error:
        print(name, "TypeError" if "To be compatible with tf.function" in str(error) else "other")
"""
)

FAILING = ("with_type", "with_dunder", "in_tuple")
RETURNING = ("values_of_new", "type_name")


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_tf_function_cannot_return_an_object_built_by_its_instances_class() -> None:
    measured = run_probe(PROBE)
    for name in FAILING:
        assert measured[name] == "TypeError", (name, measured)
    for name in RETURNING:
        assert measured[name] == "returns", (name, measured)


ANALYSED = (
    """
import tensorflow as tf
"""
    + CLASSES
    + """

for _ in range(100):
    x = tf.ones((3,))
    s = tf.constant(2.0)
    h = Holder(x)
    h.with_type(s), h.with_dunder(s), h.in_tuple(s), h.values_of_new(s), h.type_name(s)
"""
)


def test_the_analysis_claims_the_returns_measured_to_fail() -> None:
    verdicts = analyse(ANALYSED)

    def hy407(name: str) -> list[str]:
        return [f.message for f in verdicts[f"Holder.{name}"].findings if f.code == "HY407"]

    for name in FAILING:
        messages = hy407(name)
        assert messages and "an instance of `Holder`" in messages[0], (name, messages)
        assert not verdicts[f"Holder.{name}"].passes
    for name in RETURNING:
        assert not hy407(name), (name, verdicts[f"Holder.{name}"].findings)
