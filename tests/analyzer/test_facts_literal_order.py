"""A Python number before a tensor in a shared-dtype op breaks only in a graph (HY405).

Eagerly `tf.where(c, 1., x)` converts `1.` to `x`'s dtype; while tracing, the op builder
converts `1.` first, as float32, and a float64 `x` then fails with a TypeError. Seen on the
oracle (TensorFlow Recommenders' ClippyAdagrad under float64 variables). The ops are measured
by `tools/api_tables/generate_literal_order.py`; the slow test here measures two again.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap

import pytest
from facts_helpers import verdict

from hybridize.analyzer.frameworks import literal_order_inputs

PROGRAM = """
import numpy as np
import tensorflow as tf


def relu_like(x):
    return {body}


def main():
    relu_like({argument})
"""


def _codes(body: str, argument: str) -> bool:
    v = verdict(PROGRAM.format(body=body, argument=argument), "relu_like")
    return v.fact("has_conflicting_eager_dtype_coercions") is True


def test_the_table_knows_the_measured_ops_under_every_spelling() -> None:
    assert literal_order_inputs("tensorflow.maximum") == ((0, 1), frozenset({"int", "float"}))
    assert literal_order_inputs("tensorflow.math.maximum") is not None
    assert literal_order_inputs("tensorflow.where") is not None
    assert literal_order_inputs("tensorflow.where")[0] == (1, 2)  # type: ignore[index]
    # clip_by_value converts its bounds to the tensor's dtype in both modes (measured)
    assert literal_order_inputs("tensorflow.clip_by_value") is None


@pytest.mark.parametrize(
    ("body", "argument", "expected"),
    [
        # a float64 NumPy array crosses the boundary as a float64 tensor
        ("tf.where(x > 0, 1., x)", "np.ones(3)", True),
        ("tf.maximum(0., x)", "np.ones(3)", True),
        # an int literal against a float32 tensor
        ("tf.maximum(0, x)", "tf.ones(3)", True),
        # the literal's own default dtype: no clash
        ("tf.maximum(0., x)", "tf.ones(3)", False),
        ("tf.maximum(0, x)", "tf.range(3)", False),
        # the tensor first: the literal takes its dtype in both modes
        ("tf.maximum(x, 0.)", "np.ones(3)", False),
        # operators convert the number to the tensor's dtype in both modes
        ("1. - x", "np.ones(3)", False),
        # unknown dtype: no evidence of a clash
        ("tf.maximum(0., x)", "tf.constant(np.ones(3)) if np else None", False),
        # through an op that keeps the dtype
        ("tf.maximum(0., tf.abs(x))", "np.ones(3)", True),
        # a conversion with a requested dtype returns that dtype, not its input's
        # (tf-models' `_get_instance_class_ids`; tests/analyzer/test_requested_dtypes_measured)
        ("tf.where(x > 0, -1, tf.convert_to_tensor(x, tf.int32))", "tf.ones(3)", False),
        ("tf.where(x > 0, -1, tf.constant(x, tf.int32))", "tf.ones(3)", False),
        ("tf.where(x > 0, -1, tf.cast(x, tf.int32))", "tf.ones(3)", False),
        ("tf.where(x > 0, -1, tf.zeros_like(x, tf.int32))", "tf.ones(3)", False),
        ("tf.where(x > 0, -1., tf.convert_to_tensor(x, tf.float64))", "tf.ones(3)", True),
        ("tf.where(x > 0, -1., tf.convert_to_tensor(x, dtype=tf.float64))", "tf.ones(3)", True),
        ("tf.where(x > 0, -1, tf.convert_to_tensor(x, dtype_hint=tf.int32))", "tf.ones(3)", True),
    ],
)
def test_leading_literal_against_the_tensor_dtype(body: str, argument: str, expected: bool) -> None:
    assert _codes(body, argument) is expected


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_the_measurement_still_holds_for_the_installed_tensorflow() -> None:
    script = textwrap.dedent(
        """
        import os
        os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
        import tensorflow as tf
        from tools.api_tables.generate_literal_order import probe
        print(probe(tf, tf.maximum, 0, 0, "float32"), probe(tf, tf.where, 1, 1.0, "float64"),
              probe(tf, tf.maximum, 0, 1.0, "float32"))
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=True
    )
    assert out.stdout.split() == ["graph_only", "graph_only", "ok"]
