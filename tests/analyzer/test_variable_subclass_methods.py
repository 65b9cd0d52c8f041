"""A subclass of `tf.Variable` never hashes: compiled, its methods cannot even be looked up.

Found by the differential oracle on larq 0.14.0: `QuantizedVariable._quantize` and the
`scatter_*` methods decorated, most of quantized_variable_test failed with "Variable is
unhashable. Instead, use variable.ref() as the key." (tf.function keeps the bound methods of
an instance in a WeakKeyDictionary keyed on `self`). The fact is HY409's
(`has_unhashable_arguments`, hybridize/analyzer/facts/hashability.py); these tests measure it
on the installed TensorFlow and pin the verdicts, near misses included.
"""

from __future__ import annotations

import importlib.util

import pytest
from facts_helpers import verdict

PROGRAM = """
import tensorflow as tf


class QuantizedVariable(tf.Variable):
    def __init__(self, latent, quantizer):
        self.latent = latent
        self.quantizer = quantizer

    def _quantize(self, value):
        return self.quantizer(value)

    def value(self):
        return self._quantize(self.latent.value())

    def scatter_sub(self, sparse_delta):
        return self._apply_update(self.latent.scatter_sub, sparse_delta)

    def __tf_tracing_type__(self, context):
        return None


class SignedVariable(QuantizedVariable):
    def sign(self, value):
        return tf.sign(value)


class Wrapper:
    def __init__(self, latent):
        self.latent = latent

    def _quantize(self, value):
        return tf.sign(value) + self.latent


class Dense(tf.keras.layers.Layer):
    def call(self, inputs):
        return tf.nn.relu(inputs)


def read(variable, x):
    return tf.convert_to_tensor(variable) + x


q = SignedVariable(tf.Variable([1.0, -2.0]), tf.sign)
q._quantize(tf.ones((2,)))
q.sign(tf.ones((2,)))
q.scatter_sub(tf.IndexedSlices(tf.ones((1,)), tf.constant([0])))
Wrapper(tf.Variable([1.0]))._quantize(tf.ones((2,)))
Dense()(tf.ones((2, 2)))
read(q, tf.ones((2,)))
"""


@pytest.mark.parametrize(
    ("qualname", "expected"),
    [
        ("QuantizedVariable._quantize", True),
        ("QuantizedVariable.scatter_sub", True),
        ("SignedVariable.sign", True),  # through a project base
        ("Wrapper._quantize", False),  # holds a variable: a plain object
        ("Dense.call", False),  # a Keras layer tracks variables, is no variable
        ("read", False),  # an argument with `__tf_tracing_type__` is typed, not hashed
    ],
)
def test_methods_of_a_variable_subclass_are_blocked(qualname: str, expected: bool) -> None:
    v = verdict(PROGRAM, qualname)
    assert v.fact("has_unhashable_arguments") is expected, v.findings
    assert ("has_unhashable_arguments" in v.failures) is expected
    if expected:
        [finding] = [f for f in v.findings if f.code == "HY409"]
        assert "TensorFlow variable" in finding.message


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_a_compiled_method_of_a_variable_subclass_fails_and_a_wrapper_works() -> None:
    """Measured under TF 2.21: eagerly the subclass reads its latent variable through the
    method; with the method compiled, looking it up on the instance hashes the variable and
    fails. A class holding the variable as an attribute is hashed by identity and works."""
    import tensorflow as tf

    class Signed(tf.Variable):  # type: ignore[misc]
        def __init__(self, latent: tf.Variable) -> None:
            self.latent = latent

        def __repr__(self) -> str:
            return "Signed"

        def quantize(self, value: tf.Tensor) -> tf.Tensor:
            return tf.sign(value)

        def read(self) -> tf.Tensor:
            return self.quantize(self.latent.value())

    class Wrapper:
        def __init__(self, latent: tf.Variable) -> None:
            self.latent = latent

        @tf.function
        def read(self) -> tf.Tensor:
            return tf.sign(self.latent.value())

    latent = tf.Variable([1.0, -2.0])
    signed = Signed(latent)
    assert signed.read().numpy().tolist() == [1.0, -1.0]
    Signed.quantize = tf.function(Signed.quantize)  # type: ignore[method-assign]
    with pytest.raises(TypeError, match="Variable is unhashable"):
        signed.read()
    assert Wrapper(latent).read().numpy().tolist() == [1.0, -1.0]
