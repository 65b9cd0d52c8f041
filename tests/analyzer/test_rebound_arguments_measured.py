"""What a call passes when its argument is a local rebound before it, measured under TF 2.21
(facts/evaluator.py and summaries/summarize.py, `CallSite.reaching`; HY414, facts/
numpy_boundary.py).

`x = znp.array(x)[0, 0]; simpson(x)` passes what the last assignment made, not what `x` held
before: zfit's `simpson_integrate` hands `simpson` tensors built by `zfit.z.numpy` (an alias of
`tf.experimental.numpy`), whose constructors return `tf.Tensor`s, so `simpson`'s
`tf.convert_to_tensor(lower, dtype=tf.float64)` converts alike eagerly and traced. Converted
before the rebinding (a NumPy array of another dtype reaching the conversion), the traced
call raises as HY414 says. A module with a NumPy-like name is judged by what its functions
return: `tf.experimental.numpy` builds tensors, and its conversions with a dtype cast (they
follow NumPy: `asarray(x, int32)` of a float64 tensor is an int32 tensor, in both modes).
"""

from __future__ import annotations

import importlib.util

import pytest

pytestmark = [
    pytest.mark.tensorflow,
    pytest.mark.slow,
    pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent"),
]


def _outcome(fn: object, *args: object) -> str:
    """The dtype of what `fn` returns, or the error it raises."""
    try:
        return str(fn(*args).dtype.name)  # type: ignore[operator]
    except ValueError as error:
        assert "Tensor conversion requested dtype" in str(error)
        return "ValueError"


@pytest.mark.parametrize("constructor", ["array", "asarray", "ones_like", "zeros_like"])
def test_tf_experimental_numpy_builds_tensors(constructor: str) -> None:
    import numpy as np
    import tensorflow as tf
    import tensorflow.experimental.numpy as tnp

    built = getattr(tnp, constructor)(np.ones((2, 2), np.float32))
    assert isinstance(built, tf.Tensor)
    assert not isinstance(built, np.ndarray)
    assert built.dtype == tf.float32


@pytest.mark.parametrize("mode", ["eager", "traced"])
def test_tf_experimental_numpy_conversions_with_a_dtype_cast_tensors(mode: str) -> None:
    import numpy as np
    import tensorflow as tf
    import tensorflow.experimental.numpy as tnp

    def convert(x: object) -> tf.Tensor:
        return tnp.asarray(x, tnp.int32)

    fn = tf.function(convert) if mode == "traced" else convert
    assert _outcome(fn, np.array([1.5, 2.5])) == "int32"  # a float64 array, traced a tensor
    assert _outcome(fn, tf.constant([1.5, 2.5], tf.float64)) == "int32"


@pytest.mark.parametrize("own", ["float32", "float64"])
def test_a_local_rebound_before_the_call_passes_the_last_assignment(own: str) -> None:
    """zfit's `simpson_integrate`: `lower` rebound to a `tnp` tensor of float64 before the
    call; the parameter's own array (float32) never reaches `simpson`'s conversion."""
    import numpy as np
    import tensorflow as tf
    import tensorflow.experimental.numpy as tnp

    def simpson(lower: object) -> tf.Tensor:
        return tf.convert_to_tensor(lower, dtype=tf.float64) * 2.0

    def rebound(limits: object) -> tf.Tensor:
        lower = limits
        lower = tnp.asarray(lower, tnp.float64)[0, 0]
        return simpson(lower)

    def converted_first(limits: object) -> tf.Tensor:
        lower = limits
        result = simpson(lower)
        lower = tnp.asarray(lower, tnp.float64)
        return result

    limits = np.ones((1, 2), own)
    assert _outcome(rebound, limits) == "float64"
    assert _outcome(tf.function(rebound), limits) == "float64"
    assert _outcome(converted_first, limits) == "float64"
    traced = _outcome(tf.function(converted_first), limits)
    if own == "float64":
        assert traced == "float64"
    else:
        assert traced == "ValueError"
