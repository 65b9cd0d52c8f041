"""What a Keras metric's `update_state` gives, eagerly and returned from a tf.function,
measured on the installed TensorFlow: the ground of `tensorflow_rules.NON_TENSOR_RESULTS`
(HY407). Measured with TF 2.21: Keras 3.15 gives None both ways; tf_keras 2.21 gives None
(`Precision`, `AUC`) or an unread variable (`Mean`, a subclass's own update) eagerly, and in
a graph a `tf.Operation` for every one (its `update_state` wrapper groups the update), which
a tf.function refuses to return (TypeError while tracing). tf_keras runs in a subprocess:
TF_USE_LEGACY_KERAS must be set before TensorFlow is imported.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest

pytestmark = [
    pytest.mark.tensorflow,
    pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent"),
]

PROBE = """
import tensorflow as tf

keras = tf.keras


class Total(keras.metrics.Metric):
    def __init__(self):
        super().__init__()
        self.total = self.add_weight(name="total", initializer="zeros")

    def update_state(self, y, sample_weight=None):
        return self.total.assign_add(tf.reduce_sum(y))

    def result(self):
        return self.total


y, p = tf.constant([1.0, 0.0]), tf.constant([0.7, 0.2])
for make, args in [(keras.metrics.Precision, (y, p)), (keras.metrics.Mean, (y,)), (Total, (y,))]:
    eager = make().update_state(*args)
    compiled_metric = make()
    try:
        outcome = type(tf.function(lambda *a: compiled_metric.update_state(*a))(*args)).__name__
    except TypeError as error:
        outcome = "TypeError: " + str(error).split("found return value of type")[-1].split(",")[0]
    print(make.__name__, eager is None, outcome)
"""


def _measure(legacy: bool) -> dict[str, tuple[str, str]]:
    """Per metric class: whether the eager result is None, and the compiled outcome."""
    env = {**os.environ, "TF_USE_LEGACY_KERAS": "1" if legacy else "0", "TF_CPP_MIN_LOG_LEVEL": "3"}
    done = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = [line.split(" ", 2) for line in done.stdout.splitlines()]
    return {name: (eager_none, outcome) for name, eager_none, outcome in lines}


def test_keras_3_metric_updates_give_none_compiled_or_not() -> None:
    """Keras 3: a built-in metric's update gives None, which a tf.function returns."""
    if importlib.util.find_spec("keras") is None:
        pytest.skip("Keras absent")
    measured = _measure(legacy=False)
    assert measured["Precision"] == ("True", "NoneType")
    assert measured["Mean"] == ("True", "NoneType")


@pytest.mark.skipif(importlib.util.find_spec("tf_keras") is None, reason="tf_keras absent")
def test_keras_2_metric_updates_are_operations_a_tf_function_cannot_return() -> None:
    """tf_keras: every update, built-in or a subclass's own, is a tf.Operation in a graph."""
    measured = _measure(legacy=True)
    for name in ("Precision", "Mean", "Total"):
        assert measured[name][1] == "TypeError:  Operation", (name, measured[name])
