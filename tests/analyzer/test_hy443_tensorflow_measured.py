"""HY443 under tf.function: a kernel's error caught by a `try` in traced code, measured again.

Eagerly a TensorFlow op's kernel runs at the call, inside the `try`, and the handler catches
its `InvalidArgumentError`. Traced, the statement only adds the op to the graph: the kernel
runs when the graph runs, after the `try` was traced, and its error leaves the compiled call.
Where the shapes are known at trace time, shape inference raises a `ValueError` while tracing,
which a handler of it catches (the same result as eagerly); a `ValueError` the function's own
code raises is caught in both. Measured on TF 2.21 in a fresh process.
"""

from __future__ import annotations

import importlib.util

import pytest
from facts_helpers import run_probe

PROBE = """
import tensorflow as tf
tf.get_logger().setLevel("ERROR")

def gather(x, i):
    try:
        return tf.gather(x, i)
    except tf.errors.InvalidArgumentError:
        return tf.zeros([])

def matmul(a, b):
    try:
        return tf.reduce_sum(a @ b)
    except (tf.errors.InvalidArgumentError, ValueError):
        return tf.zeros([])

def asserted(x):
    try:
        tf.debugging.assert_positive(x)
        return tf.reduce_sum(x)
    except tf.errors.InvalidArgumentError:
        return -tf.reduce_sum(x)

def indexed(x, i):
    try:
        return x[i]
    except Exception:
        return tf.zeros([])

def op_error(x):
    try:
        return tf.reshape(x, [3, -1])[0, 0]
    except tf.errors.OpError:
        return tf.zeros([])

def own_raise(x):
    try:
        if x.shape.rank < 2:
            raise ValueError("rank")
        return tf.reduce_sum(x)
    except ValueError:
        return tf.zeros([])

unknown = lambda *s: [tf.TensorSpec([None] * r, d) for r, d in s]
cases = [
    ("gather", gather, (tf.range(4.0), tf.constant(9)), None),
    ("matmul_unknown", matmul, (tf.ones([2, 3]), tf.ones([2, 3])), unknown((2, tf.float32), (2, tf.float32))),
    ("matmul_known", matmul, (tf.ones([2, 3]), tf.ones([2, 3])), None),
    ("assert", asserted, (tf.constant([-1.0, 2.0]),), None),
    ("indexed", indexed, (tf.range(4.0), tf.constant(9)), None),
    ("op_error", op_error, (tf.ones([4]),), unknown((1, tf.float32))),
    ("own_raise", own_raise, (tf.ones([4]),), None),
]
for name, f, args, sig in cases:
    try:
        eager = str(float(f(*args)))
    except Exception as e:
        eager = type(e).__name__
    g = tf.function(f, input_signature=sig) if sig else tf.function(f)
    try:
        compiled = str(float(g(*args)))
    except Exception as e:
        compiled = type(e).__name__
    print(name, eager, compiled)
"""


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_a_kernel_error_leaves_the_try_compiled() -> None:
    measured = {name: value.split() for name, value in run_probe(PROBE).items()}
    for name in ("gather", "matmul_unknown", "assert", "indexed", "op_error"):
        eager, compiled = measured[name]
        assert eager != "InvalidArgumentError", (name, measured[name])  # the handler ran
        assert compiled == "InvalidArgumentError", (name, measured[name])
    for name in ("matmul_known", "own_raise"):
        eager, compiled = measured[name]
        assert eager == compiled, (name, measured[name])
