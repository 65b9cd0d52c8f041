"""A memoised callee's work is no work of its callers' calls (`facts/memoized.py`).

`functools.lru_cache` / `functools.cache` run a body once per distinct arguments; later
calls return the stored result. tf-pwa's `Dfun_delta_v2` was rated `high` for the arithmetic
of its cached index table (`_tuple_delta_D_index`, 192 of its 514 µs), which runs once per
spin value, and measured 0.94x compiled. TensorFlow's eager tensors do not hash, so such a
function never receives one; PyTorch's hash by identity, so there the rule needs parameters
that hold no tensor. test_benefit_memoized_measured.py measures the claims.
"""

from __future__ import annotations

import pytest
from facts_helpers import analyse

TF = """
import functools
import tensorflow as tf


DECORATOR
def index_table(j, width):
    base = tf.range(width) * j
    for _ in range(6):
        base = tf.math.floormod(base * 3 + 1, width)
        base = tf.math.floormod(base * 5 + 2, width)
    return base


def step(d, j):
    return tf.gather(d, index_table(j, 4), axis=-1)


def main(d):
    while True:
        step(d, 2)
"""

TORCH = """
import functools
import torch


DECORATOR
def index_table(x):
    x = torch.sin(x) * torch.cos(x) + torch.exp(x) * torch.tanh(x)
    x = torch.sin(x) * torch.cos(x) + torch.exp(x) * torch.tanh(x)
    x = torch.sin(x) * torch.cos(x) + torch.exp(x) * torch.tanh(x)
    x = torch.sin(x) * torch.cos(x) + torch.exp(x) * torch.tanh(x)
    return torch.sin(x) * torch.cos(x) + torch.exp(x) * torch.tanh(x)


def step(d):
    return index_table(d) + 1.0


def main():
    d = torch.ones(8, 4)
    while True:
        step(d)
"""


@pytest.mark.parametrize("decorator", ["@functools.lru_cache()", "@functools.cache"])
def test_a_memoised_callee_s_work_does_not_make_its_caller_pay(decorator: str) -> None:
    plain = analyse(TF.replace("DECORATOR", ""))["step"]
    cached = analyse(TF.replace("DECORATOR", decorator))["step"]
    assert plain.benefit == "high", plain.benefit_reasons
    assert cached.benefit == "low", cached.benefit_reasons
    assert "too little work" in cached.benefit_reasons[0]
    assert "besides `index_table`'s, memoised" in cached.benefit_reasons[0]
    assert "memoised" not in plain.benefit_reasons[0]


def test_a_torch_memoised_callee_of_a_tensor_runs_at_every_new_tensor() -> None:
    plain = analyse(TORCH.replace("DECORATOR", ""))["step"]
    cached = analyse(TORCH.replace("DECORATOR", "@functools.lru_cache()"))["step"]
    assert plain.benefit == "high", plain.benefit_reasons
    assert cached.benefit == plain.benefit, cached.benefit_reasons
