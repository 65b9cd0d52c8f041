"""What a trace costs against the eager call of the same body (`CallCosts.trace`), measured.

The benefit model (`decisions/benefit.py`, `BenefitModel._traces_unpaid`) weighs the traces a
compiled function makes against what the calls sharing them save: a trace costs a fixed part
(`CallCosts.trace_fixed`) and about `CallCosts.trace_ratio` eager calls of the body. These
tests measure the ratios again, in a subprocess (a fresh framework, one thread), side by side
and as the least of interleaved samples: no absolute time is asserted, and the margins are
generous (CI's machine differs; the figures are the least of the development machine's).

- `tf.function` (TF 2.21): a chain of 128 elementwise ops traced in 12 to 23 eager calls'
  time; `reduce_retracing=True` traces a second time for a new length, as long as the first
  (`CallCosts.generalised_traces`); a body of 4 ops traces in about 30 compiled calls' time
  (the fixed part).
- `torch.compile` (torch 2.13): a chain of 4 ops compiles in 44 ms, of 100 ops in 84 ms, with
  Inductor's on-disk caches warm (a program's second run; 3.4 and 5.6 s cold), against
  microseconds eager: the fixed part and about 400 eager calls per op (0.2 and 0.4 s at load
  10: one compile per sample takes the machine's load in full).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hybridize.analyzer.frameworks.framework import TENSORFLOW, TORCH

pytestmark = pytest.mark.slow


_SECONDS = """
import time

def seconds(call, calls=1):
    start = time.perf_counter()
    for _ in range(calls):
        call()
    return (time.perf_counter() - start) / calls
"""
"""The scripts' timer: the mean seconds of `calls` calls."""


def _measure(script: str, **env: str) -> dict[str, float]:
    """The JSON the script prints last, run in a fresh interpreter after `_SECONDS`."""
    done = subprocess.run(
        [sys.executable, "-c", _SECONDS + script],
        capture_output=True,
        text=True,
        timeout=900,
        check=True,
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", **env},
    )
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


_TF_TRACES = """
import json, time
import tensorflow as tf

tf.config.threading.set_intra_op_parallelism_threads(1)
tf.config.threading.set_inter_op_parallelism_threads(1)
w = tf.ones([8, 8])
x8, x9 = tf.ones([8, 8]), tf.ones([9, 8])

def chain(ops):
    def f(x, w):
        for _ in range(ops):
            x = x * w[0]
        return x
    return f

samples = {k: [] for k in ("eager", "first", "second", "steady", "small trace", "small steady")}
for _ in range(3):
    eager = chain(128)
    eager(x8, w)
    samples["eager"].append(min(seconds(lambda: eager(x8, w), 3) for _ in range(3)))
    g = tf.function(chain(128), reduce_retracing=True)
    first = seconds(lambda: g(x8, w))
    second = seconds(lambda: g(x9, w))
    steady = min(seconds(lambda: g(x8, w), 3) for _ in range(3))
    assert g.experimental_get_tracing_count() == 2
    samples["first"].append(first - steady)
    samples["second"].append(second - steady)
    samples["steady"].append(steady)
    small = tf.function(chain(4))
    trace = seconds(lambda: small(x8, w))
    small_steady = min(seconds(lambda: small(x8, w), 10) for _ in range(3))
    samples["small trace"].append(trace - small_steady)
    samples["small steady"].append(small_steady)
print(json.dumps({k: min(v) for k, v in samples.items()}))
"""


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_a_tf_function_trace_costs_what_the_model_says_in_eager_calls() -> None:
    """A trace of a chain of 128 elementwise ops (each `x * w[0]`: a slice and a product)
    against one eager call of the chain: within a factor of 2 below and 5 above what
    `CallCosts.trace` predicts for that body; the retrace `reduce_retracing=True` makes for
    a new length at least half the first (`generalised_traces` counts both in full); and a
    body of 4 ops traces in at least half the fixed part's share of compiled calls."""
    costs = TENSORFLOW.call_costs
    times = _measure(_TF_TRACES)
    work = 128 * (costs.elementwise + costs.op)
    predicted = costs.trace(work) / work
    measured = times["first"] / times["eager"]
    assert predicted / 2 <= measured <= 5 * predicted, (measured, predicted, times)
    assert costs.generalised_traces == 2
    assert times["second"] >= 0.5 * times["first"], times
    fixed = costs.trace_fixed / costs.compiled_call
    assert times["small trace"] / times["small steady"] >= fixed / 2, (fixed, times)


_TORCH_COMPILES = """
import json, time
import torch

torch.set_num_threads(1)
x, w = torch.ones(8, 8), torch.ones(8, 8)

def chain(ops):
    def f(x, w):
        for _ in range(ops):
            x = x * w
        return x
    return f

torch.compile(chain(2))(x, w)  # the compiler's own first use
out = {}
for ops in (4, 100):
    eager = chain(ops)
    eager(x, w)
    out[f"eager {ops}"] = min(seconds(lambda: eager(x, w), 20) for _ in range(5))
    torch._dynamo.reset()
    g = torch.compile(chain(ops))
    first = seconds(lambda: g(x, w))
    out[f"compile {ops}"] = first - min(seconds(lambda: g(x, w), 20) for _ in range(5))
print(json.dumps(out))
"""


@pytest.mark.torch
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch absent")
def test_a_torch_compile_costs_what_the_model_says_in_eager_calls(tmp_path: Path) -> None:
    """Compiling a chain of 4 and of 100 elementwise ops against one eager call of each, in a
    second process sharing the first's fresh Inductor cache (the figures are the warm ones):
    the 4-op compile at least a quarter of what `CallCosts.trace` predicts in eager calls of
    that body (mostly the fixed part), and what the 96 more ops add at least a quarter of
    `trace_ratio` eager calls of them (and not 20 times more: a cold cache's)."""
    costs = TORCH.call_costs
    cache = {"TORCHINDUCTOR_CACHE_DIR": str(tmp_path / "inductor")}
    _measure(_TORCH_COMPILES, **cache)
    times = _measure(_TORCH_COMPILES, **cache)
    small = 4 * costs.elementwise
    predicted = costs.trace(small) / small
    measured = times["compile 4"] / times["eager 4"]
    assert measured >= predicted / 4, (measured, predicted, times)
    per_op = (times["compile 100"] - times["compile 4"]) / (times["eager 100"] - times["eager 4"])
    assert costs.trace_ratio / 4 <= per_op <= 20 * costs.trace_ratio, (per_op, times)
