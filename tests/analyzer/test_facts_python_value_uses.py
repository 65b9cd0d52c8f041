"""Values that are tensors in a graph used as Python values (HY303, `has_eager_only_calls`).

Under `tf.function` AutoGraph turns `int(t)`/`float(t)` into casts and `len(t)` into the
static first axis or, when that is not static, a tensor: what is a Python number eagerly is a
symbolic tensor in the graph. `bool(t)` raises, and so does any use that needs a Python
value: a list index, a Keras layer's configuration. Each expected value was checked against
TensorFlow 2.21 running the function (from a file, so that AutoGraph converts it) under
`tf.function`.
"""

from __future__ import annotations

import pytest
from facts_helpers import case, field_value, program, verdict

EAGER = "has_eager_only_calls"
CASES = [
    # --- hazards --------------------------------------------------------------------------
    case(
        "bool-of-a-tensor-comparison",
        program(
            """
        def f(x):
            positive = bool(tf.reduce_sum(x) > 0)
            return x if positive else -x
            """
        ),
        "f",
        True,
        field=EAGER,
    ),
    case(
        "list-indexed-with-int-of-a-tensor",
        program(
            """
        def f(x):
            n = int(tf.reduce_sum(x))
            return tf.constant([1.0, 2.0, 3.0][n % 3]) * x
            """
        ),
        "f",
        True,
        field=EAGER,
    ),
    case(
        "module-list-indexed-with-len-of-a-mask",
        """
        import tensorflow as tf

        NAMES = ["a", "b", "c", "d", "e"]

        def f(x):
            kept = tf.boolean_mask(x, x[:, 0] > 0)
            return tf.constant(NAMES[len(kept)])

        f(tf.ones((4, 3)))
        """,
        "f",
        True,
        field=EAGER,
    ),
    case(
        "tuple-indexed-with-float-converted-back",
        program(
            """
        def f(x):
            scales = (0.5, 1.0, 2.0)
            return x * scales[int(float(tf.reduce_max(x)))]
            """
        ),
        "f",
        True,
        field=EAGER,
    ),
    case(
        "dense-configured-with-int-of-a-tensor",
        program(
            """
        def f(x):
            units = int(tf.reduce_sum(x))
            return tf.keras.layers.Dense(units)(x)
            """
        ),
        "f",
        True,
        field=EAGER,
    ),
    case(
        "helper-indexes-with-its-parameter",
        program(
            """
        def weight(t):
            return [10.0, 20.0][int(t)]

        def f(x):
            return weight(tf.reduce_sum(x) - 12.0) * x
            """
        ),
        "f",
        True,
        field=EAGER,
    ),
    case(
        "numpy-sized-by-int-of-a-tensor",
        program(
            """
        def f(x):
            return tf.constant(np.zeros(int(tf.reduce_sum(x)))) + 1.0
            """
        ),
        "f",
        True,
        field="has_numpy_calls_on_parameters",
    ),
    case(
        "list-grown-in-a-loop-over-range-of-a-dynamic-length",
        program(
            """
        def f(x):
            outputs = []
            for i in range(tf.shape(x)[0]):
                outputs.append(x[i] * 2.0)
            return tf.stack(outputs)
            """
        ),
        "f",
        True,
        field=EAGER,
    ),
    case(
        "comprehension-over-range-of-a-dynamic-length",
        program(
            """
        def f(x):
            return tf.stack([x[i] * 2.0 for i in range(tf.shape(x)[0])])
            """
        ),
        "f",
        True,
        field=EAGER,
    ),
    case(
        "max-of-a-tensor-and-a-number",
        program(
            """
        def f(x):
            return x / max(tf.reduce_sum(x), 1.0)
            """
        ),
        "f",
        True,
        field=EAGER,
    ),
    case(
        "any-over-tensor-comparisons",
        program(
            """
        def f(x):
            if any([tf.reduce_sum(x) > 0, tf.reduce_min(x) < 0]):
                return x
            return -x
            """
        ),
        "f",
        True,
        field=EAGER,
    ),
    # --- no hazard ------------------------------------------------------------------------
    case(
        "max-of-static-dimensions-and-abs-of-a-tensor",
        program(
            """
        def f(x):
            return abs(tf.reduce_sum(x)) * max(x.shape[0], 1)
            """
        ),
        "f",
        False,
        field=EAGER,
    ),
    case(
        "sorted-with-a-python-key",
        program(
            """
        def f(x):
            rows = tf.unstack(x)
            return tf.stack(sorted(rows, key=lambda r: r.shape[0]))
            """
        ),
        "f",
        False,
        field=EAGER,
    ),
    case(
        "list-grown-in-a-loop-over-range-of-a-static-length",
        program(
            """
        def f(x):
            outputs = []
            for i in range(x.shape[0]):
                outputs.append(x[i] * 2.0)
            return tf.stack(outputs)
            """
        ),
        "f",
        False,
        field=EAGER,
    ),
    case(
        "tensor-accumulated-in-a-loop-over-range-of-a-dynamic-length",
        program(
            """
        def f(x):
            total = tf.zeros(x.shape[1:])
            for i in range(tf.shape(x)[0]):
                total += x[i]
            return total
            """
        ),
        "f",
        False,
        field=EAGER,
    ),
    case(
        "int-of-a-tensor-in-a-shape",
        program(
            """
        def f(x):
            return tf.zeros([int(tf.reduce_sum(x)), 2])
            """
        ),
        "f",
        False,
        field=EAGER,
    ),
    case(
        "len-and-static-shape-of-a-parameter",
        program(
            """
        def f(x):
            scales = [1.0, 2.0, 3.0, 4.0, 5.0]
            return tf.constant(scales[len(x)] + scales[x.shape[1]]) * x
            """
        ),
        "f",
        False,
        field=EAGER,
    ),
    case(
        "if-test-on-int-of-a-tensor-is-converted",
        program(
            """
        def f(x):
            if int(tf.reduce_sum(x)) > 3:
                return x
            return -x
            """
        ),
        "f",
        False,
        field=EAGER,
    ),
    case(
        "float-of-a-tensor-in-arithmetic",
        program(
            """
        def f(x):
            return x * float(tf.reduce_mean(x))
            """
        ),
        "f",
        False,
        field=EAGER,
    ),
    case(
        "list-indexed-with-a-python-parameter",
        """
        import tensorflow as tf

        def f(x, k):
            return x * [0.5, 1.0, 2.0][k]

        f(tf.ones((4, 3)), 1)
        f(tf.ones((4, 3)), 2)
        """,
        "f",
        False,
        field=EAGER,
    ),
    case(
        "list-indexed-with-an-int-hinted-parameter",
        """
        import tensorflow as tf

        WEIGHTS = [0.5, 1.0]

        def f(x: tf.Tensor, i: int):
            return x * WEIGHTS[i]
        """,
        "f",
        False,
        field=EAGER,
    ),
    case(
        "list-indexed-with-a-parameter-of-unknown-kind",
        """
        import tensorflow as tf

        WEIGHTS = [0.5, 1.0]

        def f(x: tf.Tensor, i):
            return x * WEIGHTS[i]
        """,
        "f",
        True,
        field=EAGER,
    ),
    case(
        "bool-of-a-python-flag",
        """
        import tensorflow as tf

        def f(x, flag):
            return x if bool(flag) else -x

        f(tf.ones((4, 3)), True)
        """,
        "f",
        False,
        field=EAGER,
    ),
]


@pytest.mark.parametrize(("files", "qualname", "field", "expected"), CASES)
def test_python_value_uses(files, qualname, field, expected):
    assert field_value(verdict(files, qualname), field) == expected


def test_the_finding_has_its_own_code():
    found = verdict(
        program(
            """
        def f(x):
            n = int(tf.reduce_sum(x))
            return tf.constant([1.0, 2.0, 3.0][n % 3]) * x
            """
        ),
        "f",
    )
    assert [f.code for f in found.findings if f.name == EAGER] == ["HY303"]
