"""NumPy's dtype promotion feeds the conflicting-coercion hazard (HY405).

TensorFlow Recommenders' loss test multiplies a float32 array by `rng.choice([0., 1.])`, a
float64 array: NumPy promotes the product to float64. Eagerly, `logits - tf.math.log(p)`
converts the NumPy `logits` to the dtype of the tensor it meets; a traced function receives
`logits` as a float32 tensor and the float64 `p` as a float64 one, and the subtraction fails
(measured on the oracle: 5 of its tests). The dtype also flows through ops that keep it.
"""

from __future__ import annotations

import pytest
from facts_helpers import verdict

from hybridize.analyzer.frameworks.shapes import numpy_result_dtype


@pytest.mark.parametrize(
    ("dtypes", "expected"),
    [
        ({"float32"}, "float32"),
        ({"float32", "float64"}, "float64"),
        ({"float16", "float32"}, "float32"),
        ({"float32", "int32"}, "float64"),  # NumPy: an int32 needs float64 to be exact
        ({"float32", "int16"}, "float32"),
        ({"float16", "int8"}, "float16"),
        ({"int32", "int64"}, "int64"),
        ({"bool", "float32"}, "float32"),
        ({"float32", None}, None),  # an operand of unknown dtype: unknown
        ({"float64", None}, "float64"),  # nothing promotes float64 to less
        ({"complex64", "float32"}, None),  # outside the table: unknown, not a guess
    ],
)
def test_numpy_promotion_table(dtypes: set[str | None], expected: str | None) -> None:
    assert numpy_result_dtype(dtypes) == expected


CORRECTION = """
import numpy as np
import tensorflow as tf


class Correction(tf.keras.layers.Layer):
    def __call__(self, logits, probability):
        return logits - tf.math.log(tf.clip_by_value(probability, 1e-6, 1.))


def test_it():
    rng = np.random.RandomState(42)
    logits = rng.uniform(size=(2, 3)).astype(np.float32)
    probs = rng.uniform(size=3).astype(np.float32)
    Correction()(logits, probs)
    {second}
"""


def test_float32_array_times_a_float64_draw_is_float64_and_clashes() -> None:
    source = CORRECTION.format(
        second="Correction()(logits, probs * rng.choice([0., 1.], size=probs.shape))"
    )
    v = verdict(source, "Correction.__call__")
    assert v.fact("has_conflicting_eager_dtype_coercions") is True
    assert not v.passes


def test_float32_array_times_a_python_float_stays_float32() -> None:
    # NEP 50: a Python scalar does not promote an array
    source = CORRECTION.format(second="Correction()(logits, probs * 0.5)")
    v = verdict(source, "Correction.__call__")
    assert v.fact("has_conflicting_eager_dtype_coercions") is False


def test_a_cast_ends_the_dtype_chain() -> None:
    source = CORRECTION.replace(
        "tf.math.log(tf.clip_by_value(probability, 1e-6, 1.))",
        "tf.math.log(tf.cast(probability, tf.float32))",
    ).format(second="Correction()(logits, probs * rng.choice([0., 1.], size=probs.shape))")
    v = verdict(source, "Correction.__call__")
    assert v.fact("has_conflicting_eager_dtype_coercions") is False


def test_a_layer_with_its_own_dunder_call_receives_the_call_arguments() -> None:
    """Calling an instance runs the project's `__call__`, not Keras' (which would run
    `call`): its parameters get the caller's arguments."""
    source = CORRECTION.format(second="pass")
    v = verdict(source, "Correction.__call__")
    kinds = {p.name: p.is_tensor for p in v.facts.params}
    assert kinds.get("logits") is True
