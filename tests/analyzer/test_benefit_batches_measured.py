"""Batches of a caller's data, measured on TensorFlow (issue 34, retracing class 2).

`facts/varying_shapes.batches_of_data` takes a batch a project generator cuts from the
caller's data (or a slice of it bounded by a loop's target), passed to a function per pass of
the loop, as shapes that change from call to call. The claim behind it: a plain `tf.function`
given NumPy arrays (or a dict of them, as tf-pwa's `cal_angle_from_particle` is) whose length
follows the data traces once per length -- every call of the batching function with data of
another size brings a new last batch -- and `reduce_retracing=True` traces twice (the second
length generalises to a None axis, which serves every later length). tf-pwa 0.2.2's default
rewrite of that function was 15.6x slower for it (docs/oracle.md, twelfth session).
"""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from hybridize.analyzer.frameworks.framework import TENSORFLOW

# NumPy comes with the framework extras only: the module is skipped where they are not
# installed (the other Python versions' runs), not failed at collection.
np = pytest.importorskip("numpy")

pytestmark = pytest.mark.slow

DATA_SIZES = (100, 120, 140, 160, 180, 200)
"""Events per call of the batching function, as a generator's accept-reject loop gives them."""
BATCH = 64


def _batches(data: dict[str, Any], batch: int) -> Iterator[dict[str, Any]]:
    """The project's own generator cutting a dict of arrays into batches (tf-pwa's
    `data_split`): every batch `batch` long but the last."""
    size = len(next(iter(data.values())))
    for start in range(0, size, batch):
        yield {k: v[start : start + batch] for k, v in data.items()}


def _angles(data: dict[str, Any]) -> Any:
    import tensorflow as tf

    p = data["p"]
    q = data["q"]
    for _ in range(4):
        p = tf.tanh(p) * 1.5 + q
    return tf.reduce_sum(p, axis=-1)


def _run(function: Callable[[dict[str, Any]], Any]) -> float:
    rng = np.random.default_rng(0)
    start = time.perf_counter()
    for size in DATA_SIZES:
        data = {"p": rng.normal(size=(size, 4)), "q": rng.normal(size=(size, 4))}
        for batch in _batches(data, BATCH):
            function(batch)
    return time.perf_counter() - start


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_batches_of_data_of_changing_size_trace_per_length_and_twice_with_reduce_retracing() -> (
    None
):
    import tensorflow as tf

    argument = TENSORFLOW.shape_generalising_argument
    assert argument == "reduce_retracing"
    lengths = {size % BATCH or BATCH for size in DATA_SIZES} | {BATCH}
    plain = tf.function(_angles)
    generalised = tf.function(_angles, **{argument: True})
    plain_time, generalised_time = _run(plain), _run(generalised)
    print(
        f"{len(lengths)} batch lengths over {len(DATA_SIZES)} data sizes: plain "
        f"{plain.experimental_get_tracing_count()} traces, reduce_retracing "
        f"{generalised.experimental_get_tracing_count()}; plain/reduce_retracing time "
        f"{plain_time / generalised_time:.2f}x"
    )
    assert plain.experimental_get_tracing_count() == len(lengths), "a trace per batch length"
    assert generalised.experimental_get_tracing_count() == 2, "the second length generalises"
    assert generalised_time < plain_time, "two traces cost less than one per length"


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_fixed_size_batches_trace_once_plain() -> None:
    """Batches of one size from constants (the VALID side: no argument written): a plain
    tf.function traces once, as with the argument."""
    import tensorflow as tf

    plain = tf.function(_angles)
    data = {"p": np.ones((BATCH * 4, 4)), "q": np.zeros((BATCH * 4, 4))}
    for _ in range(3):
        for batch in _batches(data, BATCH):
            plain(batch)
    assert plain.experimental_get_tracing_count() == 1
