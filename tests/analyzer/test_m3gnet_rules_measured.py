"""The class m3gnet 0.2.4 (the seventeenth held-out TensorFlow library) found, measured.

m3gnet's `combine_sbf_shf` passes `_block_repeat` its block sizes as a NumPy array
(`2 * np.arange(max_l) + 1`) when it uses the polar angle, and as a list of ints when it does
not; `_block_repeat` loops over them in Python (`for i, b in enumerate(block_size)`).
Compiled, `tf.function` converts a NumPy array argument to a tensor (arrays are not keyed as
Python values, as lists of ints are): the loop iterates a symbolic tensor and raises
"OperatorNotAllowedInGraphError: Iterating over a symbolic `tf.Tensor` is not allowed"; a
plain `for b in sizes` that carries a Python total fails too. HY403 (a tensor parameter iterated in Python) claimed a
parameter only when every value it may hold is a tensor; now also one a caller passes a NumPy
array, whatever the other callers pass.
"""

from __future__ import annotations

import importlib.util

import pytest
from facts_helpers import analyse, run_probe

ITERATION_PROBE = """
import numpy as np
import tensorflow as tf


def block_repeat(array, block_size):
    indices, start = [], 0
    for i, b in enumerate(block_size):
        indices.append(tf.tile(tf.range(start, start + b), [2]))
        start += b
    return tf.gather(array, tf.concat(indices, 0), axis=1)


def offsets(sizes):
    total = 0
    out = []
    for b in sizes:
        out.append(total)
        total += b
    return tf.constant(out)


def run(fn, *args):
    try:
        return str(tuple(fn(*args).shape))
    except Exception as error:
        return type(error).__name__


a = tf.ones((2, 9))
for name, sizes in (("array", np.array([1, 3, 5])), ("list", [1, 3, 5])):
    print(name, run(block_repeat, a, sizes), run(tf.function(block_repeat), a, sizes),
          run(offsets, sizes), run(tf.function(offsets), sizes))
"""


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_a_numpy_array_argument_is_iterated_as_a_tensor_when_compiled() -> None:
    measured = run_probe(ITERATION_PROBE)
    # eager: NumPy iterates the array; compiled: the array is a symbolic tensor (the plain
    # loop's error depends on how AutoGraph meets the Python total: a TypeError or the same)
    array = measured["array"]
    assert array.startswith("(2, 18) OperatorNotAllowedInGraphError (3,) "), measured
    assert array.split()[-1] in ("TypeError", "OperatorNotAllowedInGraphError"), measured
    # a list of Python ints stays Python in the trace: the loop unrolls as eagerly
    assert measured["list"] == "(2, 18) (2, 18) (3,) (3,)", measured


BLOCKS = """
import numpy as np
import tensorflow as tf


def block_repeat(array, block_size, repeats):
    col_index = tf.range(tf.shape(array)[1])
    indices = []
    start = 0
    for i, b in enumerate(block_size):
        indices.append(tf.tile(col_index[start : start + b], [repeats[i]]))
        start += b
    return tf.gather(array, tf.concat(indices, axis=0), axis=1)


def listed_blocks(array, block_size):
    indices, start = [], 0
    for b in block_size:
        indices.append(tf.range(start, start + b))
        start += b
    return tf.gather(array, tf.concat(indices, 0), axis=1)


def combine(shf, max_n, max_l, use_phi):
    if not use_phi:
        block_size = [1] * max_l
    else:
        block_size = 2 * np.arange(max_l) + 1
    return block_repeat(shf, block_size=block_size, repeats=[max_n] * max_l)


def run():
    combine(tf.ones((2, 9)), 3, 3, True)
    combine(tf.ones((2, 3)), 3, 3, False)
    listed_blocks(tf.ones((2, 3)), [1, 1, 1])


run()
"""


def _codes(verdicts: dict, qualname: str) -> set[str]:
    return {f.code for f in verdicts[qualname].findings}


def test_hy403_claims_a_loop_over_a_parameter_a_caller_passes_a_numpy_array() -> None:
    verdicts = analyse(BLOCKS)
    # INVALID: one caller passes a NumPy array (the other a list): that call fails compiled
    assert "HY403" in _codes(verdicts, "block_repeat"), verdicts["block_repeat"].findings
    assert not verdicts["block_repeat"].passes
    message = next(f.message for f in verdicts["block_repeat"].findings if f.code == "HY403")
    assert "NumPy array" in message, message
    # VALID: every caller passes a list of Python ints, which the trace keeps as Python
    assert "HY403" not in _codes(verdicts, "listed_blocks"), verdicts["listed_blocks"].findings
    assert verdicts["listed_blocks"].passes, verdicts["listed_blocks"].findings
