"""NumPy and Python arithmetic on a tensor's static shape.

While tracing, `x.shape` is a TensorShape whose known axes are Python ints: a plain
`tf.function` traces each new shape with every axis known, so NumPy on the shape computes at
trace time (not HY302). An `input_signature` can leave an axis `None`: a read of that axis,
by index (`x.shape[0]`) or inside a slice (`x.shape[1:]`, `x.shape[-2:]`), is HY404; a slice
whose axes the signature fixes is fine.
"""

from __future__ import annotations

import pytest
from facts_helpers import case, field_value, verdict

CASES = [
    case(
        "numpy-on-a-static-slice",
        """
        import numpy as np
        import tensorflow as tf

        def flatten(x):
            return tf.reshape(x, [-1, int(np.prod(x.shape[1:]))])

        flatten(tf.ones([2, 3, 4]))
        """,
        "flatten",
        False,
        field="has_numpy_calls_on_parameters",
    ),
    case(
        "numpy-on-the-last-axis",
        """
        import numpy as np
        import tensorflow as tf

        def attention(q, k):
            return tf.matmul(q, k, transpose_b=True) / np.sqrt(k.shape[-1])

        attention(tf.ones([2, 4]), tf.ones([2, 4]))
        """,
        "attention",
        "convert_to_hybrid",
        field="transformation",
    ),
    case(
        "numpy-on-the-dynamic-shape-is-blocked",
        """
        import numpy as np
        import tensorflow as tf

        def attention(q, k):
            return tf.matmul(q, k, transpose_b=True) / np.sqrt(tf.shape(k)[-1])

        attention(tf.ones([2, 4]), tf.ones([2, 4]))
        """,
        "attention",
        True,
        field="has_numpy_calls_on_parameters",
    ),
    case(
        "signature-fixes-the-sliced-axes",
        """
        import numpy as np
        import tensorflow as tf

        @tf.function(input_signature=[tf.TensorSpec([None, 3, 4], tf.float32)])
        def flatten(x):
            return tf.reshape(x, [-1, int(np.prod(x.shape[1:]))])

        flatten(tf.ones([2, 3, 4]))
        """,
        "flatten",
        False,
        field="has_unresolved_statically_read_axes",
    ),
    case(
        "signature-leaves-a-sliced-axis-none",
        """
        import numpy as np
        import tensorflow as tf

        @tf.function(input_signature=[tf.TensorSpec([None, None, 4], tf.float32)])
        def flatten(x):
            return tf.reshape(x, [-1, int(np.prod(x.shape[1:]))])

        flatten(tf.ones([2, 3, 4]))
        """,
        "flatten",
        True,
        field="has_unresolved_statically_read_axes",
    ),
    case(
        "slice-including-the-batch-axis",
        """
        import numpy as np
        import tensorflow as tf

        @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
        def size(x):
            return x / float(np.prod(x.shape[:]))

        size(tf.ones([2, 3]))
        """,
        "size",
        True,
        field="has_unresolved_statically_read_axes",
    ),
    case(
        "upper-bound-only-reads-the-leading-axes",
        """
        import numpy as np
        import tensorflow as tf

        @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
        def lead(x):
            return x / float(np.prod(x.shape[:1]))

        lead(tf.ones([2, 3]))
        """,
        "lead",
        True,
        field="has_unresolved_statically_read_axes",
    ),
    case(
        "negative-start-reads-the-trailing-axes",
        """
        import numpy as np
        import tensorflow as tf

        @tf.function(input_signature=[tf.TensorSpec([None, 3, 4], tf.float32)])
        def trailing(x):
            return x / float(np.prod(x.shape[-2:]))

        trailing(tf.ones([2, 3, 4]))
        """,
        "trailing",
        False,
        field="has_unresolved_statically_read_axes",
    ),
]


@pytest.mark.parametrize(("files", "qualname", "field", "expected"), CASES)
def test_static_shapes(files, qualname, field, expected):
    assert field_value(verdict(files, qualname), field) == expected
