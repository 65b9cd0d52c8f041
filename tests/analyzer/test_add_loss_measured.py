"""`Layer.add_loss` in a compiled function: a Python side effect that stores a traced tensor.

`add_loss` appends the loss tensor to a list on the layer. When Keras runs `call` in its own
graph (`fit`, a functional model) that is what it expects; when the rewrite decorates `call`
(or a caller, such as `train_step`) with `tf.function` and the layer is called eagerly, the
loss is made in the function's graph and outlives it: `layer.losses` holds a symbolic tensor
and `float(layer.losses[0])` raises TypeError (edward2's DenseHyperBatchEnsemble.call, the
ninth session's held-out run). Measured on TF 2.21 with Keras 3 and with tf_keras: both fail,
with the layer's `call` compiled and with a compiled caller alike. The analyzer models the
call as a mutation of the layer (frameworks/methods.py), which HY107 blocks, through callers.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest
from facts_helpers import analyse

PROBE = """
import tensorflow as tf

keras = tf.keras


class Eager(keras.layers.Layer):
    def call(self, x):
        self.add_loss(tf.reduce_sum(x))
        return x * 2.0


class Compiled(keras.layers.Layer):
    @tf.function
    def call(self, x):
        self.add_loss(tf.reduce_sum(x))
        return x * 2.0


def outcome(layer, run):
    try:
        run()
        return type(layer.losses[0]).__name__ + ":" + str(float(layer.losses[0]))
    except TypeError:
        return "TypeError"


x = tf.ones([2, 3])
eager, compiled, called = Eager(), Compiled(), Eager()
print("eager", outcome(eager, lambda: eager(x)))
print("compiled_call", outcome(compiled, lambda: compiled(x)))
print("compiled_caller", outcome(called, lambda: tf.function(lambda t: called(t))(x)))
"""


def _measure(legacy: bool) -> dict[str, str]:
    env = {**os.environ, "TF_USE_LEGACY_KERAS": "1" if legacy else "0", "TF_CPP_MIN_LOG_LEVEL": "3"}
    done = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return dict(line.split(" ", 1) for line in done.stdout.splitlines())


_TF = pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")


@pytest.mark.tensorflow
@_TF
@pytest.mark.parametrize(
    "legacy",
    [
        False,
        pytest.param(
            True,
            marks=pytest.mark.skipif(
                importlib.util.find_spec("tf_keras") is None, reason="tf_keras absent"
            ),
        ),
    ],
)
def test_a_loss_added_in_a_compiled_function_is_symbolic_once_the_call_returns(
    legacy: bool,
) -> None:
    if not legacy and importlib.util.find_spec("keras") is None:
        pytest.skip("Keras absent")
    measured = _measure(legacy)
    assert measured["eager"] == "EagerTensor:6.0"
    assert measured["compiled_call"] == "TypeError"
    assert measured["compiled_caller"] == "TypeError"


PROJECT = """
import tensorflow as tf


class Regularized(tf.keras.layers.Layer):
    def call(self, x):
        self.add_loss(tf.reduce_sum(x))
        return x * 2.0


class Plain(tf.keras.layers.Layer):
    def call(self, x):
        return x * 2.0


class Net(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.inner = Regularized()

    def step(self, x):
        out = self.inner(x)
        return out + tf.add_n(self.inner.losses)


net = Net()
for _ in range(10):
    Regularized()(tf.ones([2, 3]))
    Plain()(tf.ones([2, 3]))
    net.step(tf.ones([2, 3]))
"""


def _hy107(qualname: str) -> list[str]:
    return [f.message for f in analyse(PROJECT)[qualname].findings if f.code == "HY107"]


def test_add_loss_in_a_call_is_a_mutation_of_the_layer() -> None:
    assert any("add_loss" in m for m in _hy107("Regularized.call"))


def test_a_caller_of_a_layer_that_adds_a_loss_mutates_it_too() -> None:
    """`net.step` called eagerly, compiled: the inner layer keeps a loss of its graph."""
    assert any("Regularized.call" in m for m in _hy107("Net.step"))


def test_a_layer_without_add_loss_is_not_blocked() -> None:
    assert _hy107("Plain.call") == []
