"""A nested `tf.function` called once per element of a structure its enclosing body built
traces anew at every run of that body: measured, the claim behind `BenefitModel.
_per_element_of_a_structure` (such a definition is rated `low`, never proposed by default).

astroNN 1.1.0's `median` defines `median_internal` and calls it for each unstacked column;
compiled, each `median` call made a new `tf.function` and traced it. Ratios only, the least of
several interleaved samples (the machine is shared)."""

from __future__ import annotations

import importlib.util
import time

import pytest


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_a_definition_per_run_serving_a_few_elements_is_slower_compiled() -> None:
    import numpy as np
    import tensorflow as tf

    traces: list[int] = []

    def make(compiled: bool):
        def median(x: tf.Tensor) -> tf.Tensor:
            def median_internal(column: tf.Tensor) -> tf.Tensor:
                traces.append(1)
                n = tf.shape(column)[0]
                return tf.nn.top_k(column, n // 2 + 1).values[-1]

            run = tf.function(median_internal) if compiled else median_internal
            return tf.stack([run(column) for column in tf.unstack(tf.transpose(x))])

        return median

    x = tf.constant(np.random.default_rng(0).random((200, 8)).astype("float32"))
    eager, compiled = make(False), make(True)
    assert np.allclose(eager(x), compiled(x), rtol=1e-5, atol=1e-6)

    traces.clear()
    compiled(x)
    compiled(x)
    assert len(traces) == 2  # one trace per run of `median`, its 8 calls sharing it

    def cost(fn) -> float:
        start = time.process_time()
        for _ in range(5):
            fn(x)
        return time.process_time() - start

    samples = [(cost(eager), cost(compiled)) for _ in range(5)]
    ratio = min(c for _, c in samples) / min(e for e, _ in samples)
    assert ratio > 1.5, f"compiled/eager {ratio:.2f}: a trace per run should cost more"
