"""HY412 has_rank_losing_slices: a slice with a tensor step has an unknown static rank.

Measured under TF 2.21 with Keras 2 and 3: `x[:, ::s, :]` with a tensor `s` is `<unknown>`
when traced (`x[:, :k, :]` is `(2, None, 4)`); an unbuilt Dense, LayerNormalization or
MultiHeadAttention fails on it, and Keras 3 fails built or not. Found by the differential
oracle: tf-models' `StridedTransformerEncoderBlock.call(inputs, stride)` gets `stride` as a
tensor from its tests and slices `input_tensor[:, ::stride, :]` before its attention layer.
"""

from __future__ import annotations

import pytest
from facts_helpers import case, verdict

FACT = "has_rank_losing_slices"


def program(body: str, call: str) -> str:
    return f"""
import tensorflow as tf

dense = tf.keras.layers.Dense(8)


def f(x, stride):
{body}


{call}
"""


TENSOR_STEP = "f(tf.ones((2, 16, 4)), tf.constant(2))"
CASES = [
    case(
        "tensor-step-into-a-layer",
        program("    return dense(x[:, ::stride, :])", TENSOR_STEP),
        "f",
        True,
    ),
    case(
        "through-locals-and-arithmetic",
        program("    y = x[:, ::stride, :]\n    z = y * 2.0\n    return dense(z)", TENSOR_STEP),
        "f",
        True,
    ),
    case(
        "python-int-step",
        program("    return dense(x[:, ::stride, :])", "f(tf.ones((2, 16, 4)), 2)"),
        "f",
        False,
    ),
    case(
        "tensor-bound-keeps-the-rank",
        program("    return dense(x[:, :stride, :])", TENSOR_STEP),
        "f",
        False,
    ),
    case(
        "tensor-step-but-no-layer",
        program("    return tf.reduce_sum(x[:, ::stride, :])", TENSOR_STEP),
        "f",
        False,
    ),
    case(
        "layer-on-another-value",
        program("    y = x[:, ::stride, :]\n    return dense(x) + tf.reduce_sum(y)", TENSOR_STEP),
        "f",
        False,
    ),
]


@pytest.mark.parametrize(("files", "qualname", "expected"), CASES)
def test_rank_losing_slices(files: str, qualname: str, expected: bool) -> None:
    assert verdict(files, qualname).fact(FACT) is expected
