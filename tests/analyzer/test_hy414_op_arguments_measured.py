"""HY414's op arguments measured under TF 2.21 (frameworks/tensorflow_rules.py:
`NUMPY_REFUSING_ARGUMENTS`, facts/numpy_boundary.py): each entry takes a NumPy value eagerly
and refuses the tensor a traced function turns it into, and its counterparts left out of the
table take it in both modes.

An input of the one dtype int32 (`tf.dynamic_partition`'s partitions): eagerly the op converts
NumPy's default int64 to int32; traced the argument is an int64 tensor and the op raises. An
attribute (`num_partitions`): eagerly a NumPy scalar passes for the Python int the op needs;
traced it is a tensor and the op raises. Python values work in both modes.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable

import pytest

from hybridize.analyzer.frameworks.tensorflow_rules import NUMPY_REFUSING_ARGUMENTS

pytestmark = [
    pytest.mark.tensorflow,
    pytest.mark.slow,
    pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent"),
]


def _both(fn: Callable[[object], object], argument: object) -> tuple[bool, bool]:
    """Whether `fn(argument)` runs eagerly, and compiled."""
    import tensorflow as tf

    ran = []
    for call in (fn, tf.function(fn)):
        try:
            call(argument)
            ran.append(True)
        except (TypeError, ValueError, tf.errors.OperatorNotAllowedInGraphError):
            ran.append(False)
    return ran[0], ran[1]


def _calls() -> dict[tuple[str, str], Callable[[object], object]]:
    """A call of each table entry's op with the value at the entry's argument (by keyword)."""
    import tensorflow as tf

    return {
        ("tensorflow.dynamic_partition", "partitions"): lambda v: tf.dynamic_partition(
            tf.constant([1.0, 2.0]), partitions=v, num_partitions=2
        ),
        ("tensorflow.dynamic_partition", "num_partitions"): lambda v: tf.dynamic_partition(
            tf.constant([1.0, 2.0]), tf.constant([0, 1]), num_partitions=v
        ),
        ("tensorflow.unstack", "num"): lambda v: tf.unstack(tf.ones([2, 3]), num=v),
        ("tensorflow.unstack", "axis"): lambda v: tf.unstack(tf.ones([2, 2]), axis=v),
        ("tensorflow.stack", "axis"): lambda v: tf.stack([tf.ones([2]), tf.ones([2])], axis=v),
        ("tensorflow.squeeze", "axis"): lambda v: tf.squeeze(tf.ones([1, 2]), axis=v),
        ("tensorflow.one_hot", "depth"): lambda v: tf.one_hot(tf.constant([0, 1]), depth=v),
        ("tensorflow.random.categorical", "num_samples"): lambda v: tf.random.categorical(
            tf.zeros([1, 3]), num_samples=v
        ),
        ("tensorflow.histogram_fixed_width", "nbins"): lambda v: tf.histogram_fixed_width(
            tf.ones([4]), [0.0, 2.0], nbins=v
        ),
        ("tensorflow.math.bincount", "minlength"): lambda v: tf.math.bincount(
            tf.constant([0, 1]), minlength=v
        ),
    }


ENTRIES = [
    (op, argument.keyword, argument.dtype)
    for op, arguments in NUMPY_REFUSING_ARGUMENTS.items()
    for argument in arguments
]


@pytest.mark.parametrize(("op", "keyword", "dtype"), ENTRIES)
def test_every_entry_takes_a_numpy_int64_eagerly_and_refuses_it_compiled(
    op: str, keyword: str, dtype: str | None
) -> None:
    import numpy as np

    call = _calls()[(op, keyword)]
    # an input of one dtype: a NumPy array of ints (int64) for the partitions, else a scalar
    int64 = np.array([0, 1]) if keyword == "partitions" else np.int64(0 if "axis" in keyword else 2)
    assert int64.dtype == np.int64
    assert _both(call, int64) == (True, False)
    python = [0, 1] if keyword == "partitions" else (0 if "axis" in keyword else 2)
    assert _both(call, python) == (True, True)
    if dtype is not None:
        # the input's own dtype is no hazard
        assert _both(call, np.asarray(int64, dtype=dtype)) == (True, True)
    else:
        # an attribute refuses a NumPy scalar of any dtype, a count's 0-d array alike (a 0-d
        # array for tf.squeeze's axis exhausts memory eagerly under TF 2.21: not measured)
        assert _both(call, np.int32(python)) == (True, False)
        if "axis" not in keyword:
            assert _both(call, np.array(python)) == (True, False)


def test_the_counterparts_left_out_take_numpy_int64_in_both_modes() -> None:
    """Inputs that take int64 and arguments that take tensors: no entry (a false block)."""
    import numpy as np
    import tensorflow as tf

    ids = np.array([0, 1])
    for fn in (
        lambda v: tf.gather(tf.constant([1.0, 2.0]), v),
        lambda v: tf.one_hot(v, 3),
        lambda v: tf.random.stateless_uniform([2], v),
        lambda v: tf.bitcast(v, tf.float64),
        lambda v: tf.math.unsorted_segment_sum(tf.constant([1.0, 2.0]), v, 2),
        lambda v: tf.sequence_mask(v, 3),
        lambda v: tf.transpose(tf.ones([2, 3]), v[::-1]),
    ):
        assert _both(fn, ids) == (True, True)
    for fn in (
        lambda n: tf.concat([tf.ones([2]), tf.ones([2])], n * 0),
        lambda n: tf.reduce_sum(tf.ones([2, 2]), n * 0),
        lambda n: tf.math.top_k(tf.ones([4]), n),
        lambda n: tf.range(n),
        lambda n: tf.fill([n], 1.0),
    ):
        assert _both(fn, np.int64(2)) == (True, True)
    assert not {("tensorflow.gather", "indices"), ("tensorflow.one_hot", "indices")} & {
        (op, keyword) for op, keyword, _ in ENTRIES
    }


def test_split_is_left_out_a_numpy_scalar_fails_but_an_array_of_sizes_works() -> None:
    """The analysis does not know an array's rank: an entry would block the sizes array."""
    import numpy as np
    import tensorflow as tf

    def split(n: object) -> object:
        return tf.split(tf.ones([4]), n)

    assert _both(split, np.int64(2)) == (True, False)
    assert _both(split, np.array([2, 2])) == (True, True)
    assert "tensorflow.split" not in NUMPY_REFUSING_ARGUMENTS
