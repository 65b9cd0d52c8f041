"""Statically read axes (`has_unresolved_statically_read_axes`, docs/verdicts.md sections 1 and 3).

A body that needs `x.shape[i]` as a Python int (a Python shape argument, `range`, arithmetic,
a slice bound, a variable's shape, a NumPy shape) breaks under a signature that leaves
axis `i` as `None`: there the static size is `None`. When the call sites disagree on that axis
the inferred signature would relax it, so the fact is true and the signature is withheld with
a reason; when they agree the axis keeps its size, the fact is false and the signature stands.
`tf.shape(x)[i]` is a run-time tensor and never needs the static size.
"""

from __future__ import annotations

import pytest
from facts_helpers import Files, analyse_with_signatures, case, verdict

from hybridize.model import FunctionVerdict, TensorSpec


def signature_verdict(files: Files, qualname: str) -> FunctionVerdict:
    verdicts = analyse_with_signatures(files)
    assert qualname in verdicts, f"{qualname} not analysed; got {sorted(verdicts)}"
    return verdicts[qualname]


def f32(*shape: int | None) -> TensorSpec:
    return TensorSpec("TensorSpec", "float32", shape)


RESCALE_MODULE = """
        import tensorflow as tf

        class Rescale(tf.Module):
            def __init__(self):
                super().__init__()
                self.scale = None

            def __call__(self, x):
                if self.scale is None:
                    self.scale = tf.Variable(tf.ones([x.shape[-1]]))
                return x * self.scale
"""

# Each case: (has_unresolved_statically_read_axes, input_signature).
CASES = [
    # --- call sites disagree on the axis that is read: unresolved, signature withheld -----
    case(
        "reshape-target-from-disagreeing-axis",
        """
        import tensorflow as tf

        def flatten_rows(x):
            return tf.reshape(x, [x.shape[0], -1])

        flatten_rows(tf.ones([2, 3, 4]))
        flatten_rows(tf.ones([5, 3, 4]))
        """,
        "flatten_rows",
        (True, None),
    ),
    case(
        "range-over-disagreeing-axis",
        """
        import tensorflow as tf

        def row_norms(x):
            norms = []
            for i in range(x.shape[0]):
                norms.append(tf.norm(x[i]))
            return tf.stack(norms)

        row_norms(tf.ones([3, 2]))
        row_norms(tf.ones([6, 2]))
        """,
        "row_norms",
        (True, None),
    ),
    case(
        "arithmetic-on-disagreeing-axis",
        """
        import tensorflow as tf

        def split_halves(x):
            half = x.shape[1] // 2
            return tf.nn.relu(x[:, :half]), tf.nn.tanh(x[:, half:])

        split_halves(tf.ones([4, 6]))
        split_halves(tf.ones([4, 10]))
        """,
        "split_halves",
        (True, None),
    ),
    case(
        "slice-bound-from-disagreeing-axis",
        """
        import tensorflow as tf

        def trim_edges(x):
            return tf.nn.relu(x[1 : x.shape[0] - 1])

        trim_edges(tf.ones([5, 3]))
        trim_edges(tf.ones([8, 3]))
        """,
        "trim_edges",
        (True, None),
    ),
    case(
        "lazy-variable-shape-from-disagreeing-axis",
        RESCALE_MODULE
        + """
        narrow = Rescale()
        narrow(tf.ones([2, 3]))
        wide = Rescale()
        wide(tf.ones([2, 5]))
        """,
        "Rescale.__call__",
        (True, None),
    ),
    case(
        "numpy-shape-from-disagreeing-axis",
        """
        import numpy as np
        import tensorflow as tf

        def project(x):
            kernel = np.zeros((x.shape[1], 4), dtype=np.float32)
            return tf.matmul(x, kernel)

        project(tf.ones([2, 3]))
        project(tf.ones([2, 5]))
        """,
        "project",
        (True, None),
    ),
    case(
        "python-shape-argument-from-disagreeing-axis",
        """
        import tensorflow as tf

        def pad_rows(x):
            return tf.concat([x, tf.zeros((x.shape[0], 1))], axis=1)

        pad_rows(tf.ones([2, 3]))
        pad_rows(tf.ones([5, 3]))
        """,
        "pad_rows",
        (True, None),
    ),
    case(
        "len-of-parameter-with-disagreeing-rows",
        """
        import tensorflow as tf

        def mean_row(x):
            return tf.reduce_sum(x, axis=0) / len(x)

        mean_row(tf.ones([4, 3]))
        mean_row(tf.ones([8, 3]))
        """,
        "mean_row",
        (True, None),
    ),
    case(
        "get-shape-in-range",
        """
        import tensorflow as tf

        def cumulative(x):
            total = tf.zeros([x.get_shape()[1]])
            for i in range(x.get_shape()[0]):
                total = total + x[i]
            return total

        cumulative(tf.ones([3, 2]))
        cumulative(tf.ones([7, 2]))
        """,
        "cumulative",
        (True, None),
    ),
    # --- the read axis is agreed (or read dynamically): resolved, signature present -------
    case(
        "reshape-target-from-agreed-axis",
        """
        import tensorflow as tf

        def flatten_rows(x):
            return tf.reshape(x, [x.shape[0], -1])

        flatten_rows(tf.ones([2, 3, 4]))
        flatten_rows(tf.zeros([2, 3, 4]))
        """,
        "flatten_rows",
        (False, (f32(2, 3, 4),)),
    ),
    case(
        "range-over-agreed-axis-other-axis-varies",
        """
        import tensorflow as tf

        def row_norms(x):
            norms = []
            for i in range(x.shape[0]):
                norms.append(tf.norm(x[i]))
            return tf.stack(norms)

        row_norms(tf.ones([3, 2]))
        row_norms(tf.ones([3, 9]))
        """,
        "row_norms",
        (False, (f32(3, None),)),
    ),
    case(
        "negative-index-on-agreed-last-axis",
        """
        import tensorflow as tf

        def flatten(x):
            features = x.shape[-1]
            return tf.reshape(x, (-1, features))

        flatten(tf.ones([2, 4, 3]))
        flatten(tf.ones([7, 4, 3]))
        """,
        "flatten",
        (False, (f32(None, 4, 3),)),
    ),
    case(
        "numpy-shape-from-agreed-axis",
        """
        import numpy as np
        import tensorflow as tf

        def project(x):
            kernel = np.zeros((x.shape[1], 4), dtype=np.float32)
            return tf.matmul(x, kernel)

        project(tf.ones([2, 3]))
        project(tf.ones([6, 3]))
        """,
        "project",
        (False, (f32(None, 3),)),
    ),
    case(
        "lazy-variable-shape-from-agreed-axis",
        RESCALE_MODULE
        + """
        rescale = Rescale()
        rescale(tf.ones([2, 3]))
        rescale(tf.ones([9, 3]))
        """,
        "Rescale.__call__",
        (False, (f32(None, 3),)),
    ),
    case(
        "dynamic-tf-shape-with-disagreeing-axis",
        """
        import tensorflow as tf

        def pad_rows(x):
            return tf.concat([x, tf.zeros((tf.shape(x)[0], 1))], axis=1)

        pad_rows(tf.ones([2, 3]))
        pad_rows(tf.ones([5, 3]))
        """,
        "pad_rows",
        (False, (f32(None, 3),)),
    ),
]


@pytest.mark.parametrize(("files", "qualname", "expected"), CASES)
def test_statically_read_axes(files, qualname, expected):
    unresolved, signature = expected
    v = signature_verdict(files, qualname)
    assert v.fact("has_unresolved_statically_read_axes") is unresolved
    assert v.facts.input_signature == signature
    if signature is None:
        assert isinstance(v.facts.input_signature_absence_reason, str)
        assert v.facts.input_signature_absence_reason.strip()
    else:
        assert v.facts.input_signature_absence_reason is None


def test_supplied_signature_with_none_axis_read_statically():
    """The decorator's own signature leaves the batch axis `None`; `x.shape[0]` is then None."""
    v = signature_verdict(
        """
        import tensorflow as tf

        @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
        def pad_rows(x):
            return tf.concat([x, tf.zeros((x.shape[0], 1))], axis=1)

        pad_rows(tf.ones([2, 3]))
        """,
        "pad_rows",
    )
    assert v.fact("has_unresolved_statically_read_axes") is True


def test_default_mode_does_not_relax_axes():
    """Without inference no signature relaxes the axis: every new size retraces, reads work."""
    v = verdict(
        """
        import tensorflow as tf

        def pad_rows(x):
            return tf.concat([x, tf.zeros((x.shape[0], 1))], axis=1)

        pad_rows(tf.ones([2, 3]))
        pad_rows(tf.ones([5, 3]))
        """,
        "pad_rows",
    )
    assert v.fact("has_unresolved_statically_read_axes") is False
