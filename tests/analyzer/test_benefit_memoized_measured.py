"""The measured claims behind `facts/memoized.py`, again (TensorFlow 2.21, torch 2.13, CPU).

A memoised helper (`functools.lru_cache`) runs its body once per distinct arguments: a step
whose work is mostly such a helper's (an index table built from Python numbers with tensor
ops, as tf-pwa's `Dfun_delta_v2` builds its gather indices) runs a lookup and a few ops at each
eager call, so compiling it saves less than its call's overhead; the same step calling the
helper unmemoised runs the helper's ops at every eager call, and compiling saves them. An
eager TensorFlow tensor refuses to hash (a memoised function never receives one); a PyTorch
tensor hashes by identity (a new tensor per call runs the body each time). Least of 15
interleaved samples; ratios side by side."""

from __future__ import annotations

import functools
import importlib.util
from collections.abc import Callable
from typing import Any

import pytest
from test_benefit_switches_measured import _least_microseconds

pytestmark = pytest.mark.slow


def _step(memoise: bool) -> Callable[..., Any]:
    import tensorflow as tf

    def indices(j: int, width: int) -> Any:
        base = tf.range(width) * j
        for _ in range(6):
            base = tf.math.floormod(base * 3 + 1, width)
        return base

    table = functools.lru_cache()(indices) if memoise else indices

    def step(d: Any, j: int) -> Any:
        return tf.gather(d, table(j, 4), axis=-1)

    return step


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_a_memoised_helper_s_work_is_not_saved_by_compiling_its_caller() -> None:
    import tensorflow as tf

    d = tf.ones([8, 4])
    # each its own cache: a trace's graph tensors stay in its own
    cached, plain = _step(True), _step(False)
    cached_compiled, plain_compiled = tf.function(_step(True)), tf.function(_step(False))
    cached_compiled(d, 2)
    plain_compiled(d, 2)
    times = _least_microseconds(
        {
            "memoised eager": lambda: cached(d, 2),
            "memoised compiled": lambda: cached_compiled(d, 2),
            "plain eager": lambda: plain(d, 2),
            "plain compiled": lambda: plain_compiled(d, 2),
        }
    )
    cached_ratio = times["memoised eager"] / times["memoised compiled"]
    plain_ratio = times["plain eager"] / times["plain compiled"]
    assert cached_ratio < 1.0, times  # a lookup and one op against a compiled call
    assert plain_ratio > 1.5 * cached_ratio, times  # the helper's ops are what compiling saves


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_a_memoised_function_cannot_receive_an_eager_tensorflow_tensor() -> None:
    import tensorflow as tf

    @functools.lru_cache
    def f(x: Any) -> Any:
        return x

    with pytest.raises(TypeError, match="unhashable"):
        f(tf.ones([2]))


@pytest.mark.torch
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_a_memoised_function_runs_again_for_each_new_torch_tensor() -> None:
    import torch

    runs = []

    @functools.lru_cache
    def f(x: Any) -> Any:
        runs.append(1)
        return x * 2

    x = torch.ones(2)
    f(x)
    f(x)
    f(torch.ones(2))
    assert len(runs) == 2  # hashed by identity: the same tensor hits, an equal new one runs
