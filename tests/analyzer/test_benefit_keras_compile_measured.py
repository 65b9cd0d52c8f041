"""Keras runs the losses and metrics handed to `Model.compile` inside the graphs of its
train and test steps: measured, the claim behind `facts/graph_run_callables.py` (a function
only `compile(loss=/metrics=)` runs is rated `none`: "run inside Keras' graph").

Measured under TF 2.21 (Keras 3 and tf-keras 2.21, CPU), 3 epochs of 8 batches and one
evaluation of 8: a plain Python loss and metric ran their bodies 3 times (traces), not once
per batch (32); with `run_eagerly=True` 32 times each (the counter sees eager calls); a
`@tf.function` loss traced once and was called inside Keras' graphs from then on (its body
ran once): a decorator of its own adds a nested function to a graph that already holds it.
tf-keras ran a loss callable given to `add_loss` twice in 24 batches; Keras 3 refuses a
callable there (a tensor only).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

import pytest

_PROBE = """
import json, sys
import numpy as np
import tensorflow as tf
if sys.argv[1] == "tf_keras":
    import tf_keras as keras
else:
    import keras

counts = {"loss": 0, "metric": 0, "decorated_loss": 0}

def loss(y, p):
    counts["loss"] += 1
    return tf.reduce_mean(tf.square(y - p))

def metric(y, p):
    counts["metric"] += 1
    return tf.reduce_mean(tf.abs(y - p))

@tf.function
def decorated_loss(y, p):
    counts["decorated_loss"] += 1
    return tf.reduce_mean(tf.square(y - p))

x = np.ones((32, 3), "float32")
y = np.ones((32, 2), "float32")
out = {}
for name, given, eager in (
    ("plain", loss, False), ("decorated", decorated_loss, False), ("run_eagerly", loss, True)
):
    for k in counts:
        counts[k] = 0
    model = keras.Sequential([keras.layers.Dense(2)])
    model.compile(optimizer="sgd", loss=given, metrics=[metric], run_eagerly=eager)
    model.fit(x, y, batch_size=4, epochs=3, verbose=0)
    model.evaluate(x, y, batch_size=4, verbose=0)
    out[name] = dict(counts)

penalties = {"runs": 0}
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])

def penalty():
    penalties["runs"] += 1
    return tf.reduce_mean(tf.square(model.layers[0].kernel))

try:
    model.add_loss(penalty)
except ValueError:
    out["add_loss"] = None  # Keras 3: a tensor only
else:
    model.compile(optimizer="sgd", loss="mse")
    model.fit(x, y, batch_size=4, epochs=3, verbose=0)
    out["add_loss"] = penalties["runs"]
print(json.dumps(out))
"""

STEPS = 3 * 8 + 8
"""Batches the loss and the metric see: 3 epochs of 8 batches, then one evaluation of 8."""


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
@pytest.mark.parametrize("keras", ["keras", "tf_keras"])
def test_compile_runs_its_loss_and_metrics_inside_keras_graphs(keras: str) -> None:
    """The bodies of a loss and a metric given to `compile` run once per trace of Keras's
    train and test steps (at most 4: the train step, the test step, a retrace), not once per
    batch; asked to run eagerly, Keras calls them per batch (the counter can see it). A
    `@tf.function` loss is traced once and then runs inside Keras's graphs."""
    if importlib.util.find_spec(keras) is None:
        pytest.skip(f"{keras} absent")
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, keras],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"},
    )
    runs = json.loads(done.stdout.strip().splitlines()[-1])
    assert runs["run_eagerly"]["loss"] == STEPS, runs
    assert runs["run_eagerly"]["metric"] == STEPS, runs
    assert 1 <= runs["plain"]["loss"] <= 4, runs
    assert 1 <= runs["plain"]["metric"] <= 4, runs
    assert runs["decorated"]["decorated_loss"] <= 2, runs
    if keras == "tf_keras":
        # a loss callable given to `add_loss` runs per trace of the train step, not per batch
        assert runs["add_loss"] is not None and 1 <= runs["add_loss"] <= 4, runs
    else:
        assert runs["add_loss"] is None, runs  # Keras 3 takes a tensor, not a callable
