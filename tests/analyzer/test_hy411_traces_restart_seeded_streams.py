"""HY411 for stateful TensorFlow random ops whose stream restarts in every trace.

A stateful random op (`tf.random.uniform`, `normal`, `shuffle`, `tf.nn.dropout`...) keeps its
stream in its kernel. Eagerly, ops with the same (global, op) seed pair share one kernel, so
successive draws continue one stream. Each traced concrete function has kernels of its own:
every instance of a compiled method (each instance traces its own graph), every retrace (a new
input shape) and every other compiled function tracing the same helper restarts the stream
from its first number. An op given a `seed` is reproducible without any global seed, so the
difference shows in every program: two layers seeded alike draw the SAME noise compiled, and
different noise eagerly. Measured (TF 2.21) below: one trace called alone draws the same
numbers as eager code; several instances, two functions and a retrace do not. An op without
a seed, or with a seed that may be None (`seed=self.seed`, a constructor's `seed=None`),
draws from the global stream (HY411's first form, under a project that seeds it).
Stateless ops, `tf.random.Generator`, `keras.random` with a seed or a `SeedGenerator` and
Keras' seeded layers draw the same numbers in every form (measured).
"""

from __future__ import annotations

import importlib.util

import pytest
from facts_helpers import verdict

FACT = "draws_seeded_global_random"

METHOD = """
import tensorflow as tf


class Noise(tf.Module):
    def __init__(self, stddev, seed=42):
        self.stddev = stddev
        self.seed = seed

    def call(self, x):
        return x * tf.random.normal(tf.shape(x), mean=1.0, stddev=self.stddev, seed=7)

    def call_attribute_seed(self, x):
        return x * tf.random.normal(tf.shape(x), seed=self.seed)

    def call_stateless(self, x):
        return x * tf.random.stateless_normal(tf.shape(x), seed=[1, 2])


def draw_once(x):
    return x * tf.random.uniform([], seed=7)


layer = Noise(0.5)
layer.call(tf.ones((2, 3)))
layer.call_attribute_seed(tf.ones((2, 3)))
layer.call_stateless(tf.ones((2, 3)))
draw_once(tf.ones((2, 3)))
"""

NONE_SEED_ATTRIBUTE = """
import tensorflow as tf

tf.random.set_seed(0)


class GaussianDropout(tf.Module):
    def __init__(self, rate, seed=None):
        self.rate = rate
        self.seed = seed

    def call(self, x):
        stddev = (self.rate / (1.0 - self.rate)) ** 0.5
        return x * tf.random.normal(tf.shape(x), mean=1.0, stddev=stddev, seed=self.seed)


GaussianDropout(0.5).call(tf.ones((2, 3)))
"""

RETRACED = """
import tensorflow as tf


def jitter(x):
    return x + tf.random.uniform(tf.shape(x), seed=3)


jitter(tf.ones((2, 3)))
jitter(tf.ones((5, 3)))
"""

SHARED_HELPER = """
import tensorflow as tf


def _noise(x):
    return tf.random.normal(tf.shape(x), seed=5)


def encode(x):
    return x + _noise(x)


def decode(x):
    return x - _noise(x)


data = tf.ones((2, 3))
encode(data)
decode(data)
"""


@pytest.mark.parametrize(
    ("files", "qualname", "expected"),
    [
        pytest.param(METHOD, "Noise.call", True, id="seeded-op-in-a-method"),
        pytest.param(METHOD, "Noise.call_attribute_seed", True, id="attribute-seed-in-a-method"),
        pytest.param(METHOD, "Noise.call_stateless", False, id="stateless-op-in-a-method"),
        pytest.param(METHOD, "draw_once", False, id="seeded-op-traced-once"),
        pytest.param(NONE_SEED_ATTRIBUTE, "GaussianDropout.call", True, id="seed-attr-may-be-none"),
        pytest.param(RETRACED, "jitter", True, id="seeded-op-retraced-for-a-new-shape"),
        pytest.param(SHARED_HELPER, "encode", True, id="seeded-helper-of-two-functions"),
        pytest.param(SHARED_HELPER, "decode", True, id="seeded-helper-of-two-functions-2"),
    ],
)
def test_seeded_ops_whose_stream_restarts(files: str, qualname: str, expected: bool) -> None:
    v = verdict(files, qualname)
    assert v.fact(FACT) is expected
    assert any(f.code == "HY411" for f in v.findings) is expected


MEASURE = r"""
import json
import os
import sys

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import keras
import numpy as np
import tensorflow as tf

tf.get_logger().setLevel("ERROR")
compiled = sys.argv[1] == "compiled"
x, x2 = tf.ones([16]), tf.ones([17])


def wrap(f):
    return tf.function(f) if compiled else f


def forms(make, fresh, base):
    # one op seed per case and form: eagerly, ops of one seed (and dtype) share a kernel
    out = {}
    state = fresh()
    f = wrap(make(base + 100, state))
    out["alone"] = [f(x), f(x)]
    state = fresh()
    op = make(base + 200, state)

    class Layer(tf.Module):
        def call(self, x):
            return op(x)

        if compiled:
            call = tf.function(call)

    a, b = Layer(), Layer()
    out["instances"] = [a.call(x), b.call(x), a.call(x)]
    state = fresh()
    op = make(base + 300, state)
    f1, f2 = wrap(lambda x: op(x)), wrap(lambda x: op(x))
    out["functions"] = [f1(x), f2(x)]
    state = fresh()
    f = wrap(make(base + 400, state))
    out["retrace"] = [f(x), f(x2), f(x)]
    return {k: [np.round(np.asarray(t), 4).tolist() for t in v] for k, v in out.items()}


def none():
    return None


CASES = {
    "uniform": (lambda s, st: lambda x: tf.random.uniform(tf.shape(x), seed=s), none),
    "normal": (lambda s, st: lambda x: tf.random.normal(tf.shape(x), seed=s), none),
    "nn.dropout": (lambda s, st: lambda x: tf.nn.dropout(x, 0.5, seed=s), none),
    "shuffle": (lambda s, st: lambda x: tf.random.shuffle(tf.range(16), seed=s), none),
    "stateless": (
        lambda s, st: lambda x: tf.random.stateless_uniform(tf.shape(x), seed=[1, s]),
        none,
    ),
    "generator": (
        lambda s, st: lambda x: st.uniform(tf.shape(x)),
        lambda: tf.random.Generator.from_seed(5),
    ),
    "keras.random": (lambda s, st: lambda x: keras.random.uniform(tf.shape(x), seed=s), none),
    "seed_generator": (
        lambda s, st: lambda x: keras.random.uniform(tf.shape(x), seed=st),
        lambda: keras.random.SeedGenerator(3),
    ),
    "keras.Dropout": (
        lambda s, st: lambda x: st(x, training=True),
        lambda: keras.layers.Dropout(0.5, seed=11),
    ),
}
result = {}
for global_seed in (None, 0):
    if global_seed is not None:
        tf.random.set_seed(global_seed)
    for number, (name, (make, fresh)) in enumerate(CASES.items()):
        if global_seed is not None:
            tf.random.set_seed(global_seed)
        base = 1000 * number + (0 if global_seed is None else 10000)
        result[f"{name}|{global_seed}"] = forms(make, fresh, base)
print(json.dumps(result))
"""

RESTARTING = ("uniform", "normal", "nn.dropout", "shuffle")
"""The stateful ops given a seed: every form but `alone` differs compiled."""
STEADY = ("stateless", "generator", "keras.random", "seed_generator", "keras.Dropout")
"""The draws whose state is a seed argument or a variable: every form is the same."""


@pytest.mark.tensorflow
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_traces_restart_the_stream_of_a_seeded_op(tmp_path) -> None:
    """Measured under TF 2.21: an op given a seed draws as eagerly in one trace called alone,
    and restarts its stream in every instance, every other function and every retrace;
    stateless ops, generators and Keras' seeded draws are the same in every form. The eager
    and the compiled runs are separate processes, so no kernel is shared between them."""
    import json
    import subprocess
    import sys

    script = tmp_path / "measure.py"
    script.write_text(MEASURE)
    runs = {
        mode: json.loads(
            subprocess.run(
                [sys.executable, str(script), mode], capture_output=True, text=True, check=True
            )
            .stdout.strip()
            .splitlines()[-1]
        )
        for mode in ("eager", "compiled")
    }
    for global_seed in (None, 0):
        for name in RESTARTING:
            eager, compiled = (runs[m][f"{name}|{global_seed}"] for m in ("eager", "compiled"))
            assert eager["alone"] == compiled["alone"], name
            for form in ("instances", "functions", "retrace"):
                assert eager[form] != compiled[form], (name, form)
            # compiled, the second instance and the second function repeat the first's draws
            assert compiled["instances"][0] == compiled["instances"][1], name
            assert compiled["functions"][0] == compiled["functions"][1], name
            assert eager["instances"][0] != eager["instances"][1], name
        for name in STEADY:
            eager, compiled = (runs[m][f"{name}|{global_seed}"] for m in ("eager", "compiled"))
            assert eager == compiled, name
