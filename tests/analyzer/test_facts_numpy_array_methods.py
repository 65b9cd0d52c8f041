"""NumPy array methods on, and NumPy stores of, a parameter's values (HY302).

tf.function converts a NumPy argument to a tensor (measured, TF 2.21), and a tf.Tensor has
NumPy's `.astype`, `.reshape`, `.ravel`, `.T` ... only once
`tf.experimental.numpy.experimental_enable_numpy_behavior()` ran, and `.copy()`/`.item()`
never: the method that worked eagerly raises AttributeError while tracing. Found by the
differential oracle: tf-models' `PanopticQuality._naively_combine_labels(category_mask,
instance_mask)` calls `.astype(np.uint32)` on the masks its callers pass as arrays, and
`paste_instance_masks.expand_boxes` stores `x_c - w_half`, computed from its argument, into a
NumPy array (`boxes_exp[:, 0] = ...`): traced, that value is a symbolic tensor and NumPy's
conversion raises NotImplementedError.
"""

from __future__ import annotations

import pytest
from facts_helpers import case, verdict

FACT = "has_numpy_calls_on_parameters"


def program(body: str, call: str, enable: bool = False) -> str:
    switch = "tf.experimental.numpy.experimental_enable_numpy_behavior()\n" if enable else ""
    return f"""
import numpy as np
import tensorflow as tf

{switch}

def f(x, y):
{body}


{call}
"""


NUMPY_CALL = "f(np.zeros((2, 2), np.uint16), tf.ones((2, 2)))"
CASES = [
    case(
        "astype-on-a-numpy-argument",
        program("    return x.astype(np.float32) * y", NUMPY_CALL),
        "f",
        True,
    ),
    case(
        "reshape-on-a-value-computed-from-it",
        program("    return (x + 1).reshape(4) * tf.reduce_sum(y)", NUMPY_CALL),
        "f",
        True,
    ),
    case(
        "copy-a-tensor-never-has",
        program("    return tf.constant(x.copy()) + y", NUMPY_CALL, enable=True),
        "f",
        True,
    ),
    case(
        "numpy-behaviour-enabled-by-the-project",
        program("    return x.astype(np.float32) * y", NUMPY_CALL, enable=True),
        "f",
        False,
    ),
    case(
        "store-of-a-value-computed-from-the-argument-into-a-numpy-array",
        program(
            "    out = np.zeros(x.shape)\n    out[:, 0] = x[:, 1] * 0.5\n    return out + y",
            NUMPY_CALL,
        ),
        "f",
        True,
    ),
    case(
        "store-of-a-constant-into-a-local-numpy-array",
        program(
            "    out = np.zeros((3,))\n    out[0] = 1.0\n    return tf.constant(out) * y",
            "f(tf.zeros((2, 2)), tf.ones((3,)))",
        ),
        "f",
        False,
    ),
    case(
        "tensor-arguments-only",
        program(
            "    return tf.cast(x, tf.float32) * y",
            "f(tf.zeros((2, 2)), tf.ones((2, 2)))",
        ),
        "f",
        False,
    ),
    case(
        "a-tensor-method-on-the-numpy-argument",
        program("    return tf.constant(x).numpy() * 0 + y", NUMPY_CALL),
        "f",
        False,
    ),
]


@pytest.mark.parametrize(("files", "qualname", "expected"), CASES)
def test_numpy_array_methods(files: str, qualname: str, expected: bool) -> None:
    assert verdict(files, qualname).fact(FACT) is expected
