"""NumPy on a parameter's value in every scope a traced function runs (docs/verdicts.md section 1).

A comprehension, a lambda, a nested function, or a callback that `tf.map_fn` runs in the
caller's mode all execute inside the caller's graph: NumPy there meets a symbolic tensor and
raises `NotImplementedError: Cannot convert a symbolic tf.Tensor to a numpy array`. Each
expected value was checked against TensorFlow 2.21 running the function under `tf.function`.
"""

from __future__ import annotations

import pytest
from facts_helpers import case, field_value, program, verdict

NUMPY = "has_numpy_calls_on_parameters"
CASES = [
    # --- hazards --------------------------------------------------------------------------
    case(
        "list-comprehension-over-unstacked-rows",
        program(
            """
        def f(x):
            return tf.constant([np.mean(v) for v in tf.unstack(x)])
            """
        ),
        "f",
        True,
        field=NUMPY,
    ),
    case(
        "dict-comprehension-over-zipped-rows",
        program(
            """
        def f(x):
            parts = {k: np.asarray(v) for k, v in zip(["a", "b"], tf.unstack(x))}
            return tf.constant(parts["a"])
            """
        ),
        "f",
        True,
        field=NUMPY,
    ),
    case(
        "generator-expression-in-a-builtin",
        program(
            """
        def f(x):
            return tf.constant(sum(np.max(v) for v in tf.unstack(x)))
            """
        ),
        "f",
        True,
        field=NUMPY,
    ),
    case(
        "lambda-closing-over-the-parameter",
        program(
            """
        def f(x):
            g = lambda: np.mean(x)
            return tf.constant(g())
            """
        ),
        "f",
        True,
        field=NUMPY,
    ),
    case(
        "nested-function-closing-over-a-local-tensor",
        program(
            """
        def f(x):
            y = tf.square(x)

            def spread():
                return np.std(y)

            return tf.constant(spread()) + x
            """
        ),
        "f",
        True,
        field=NUMPY,
    ),
    case(
        "closure-two-levels-down",
        program(
            """
        def f(x):
            def outer():
                def inner():
                    return np.mean(x)

                return inner()

            return tf.constant(outer())
            """
        ),
        "f",
        True,
        field=NUMPY,
    ),
    case(
        "map-fn-callback-runs-in-the-callers-graph",
        program(
            """
        def f(x):
            return tf.map_fn(lambda r: tf.constant(np.mean(r)), x)
            """
        ),
        "f",
        True,
        field=NUMPY,
    ),
    case(
        "map-fn-callback-closing-over-the-parameter",
        program(
            """
        def f(x):
            def row(r):
                return r * np.max(x)

            return tf.map_fn(row, x)
            """
        ),
        "f",
        True,
        field=NUMPY,
    ),
    # --- no hazard ------------------------------------------------------------------------
    case(
        "lambda-closing-over-a-python-default",
        program(
            """
        def f(x, n=3):
            g = lambda: np.arange(n, dtype=np.float32)
            return x + tf.constant(g())
            """
        ),
        "f",
        False,
        field=NUMPY,
    ),
    case(
        "lambda-closing-over-static-shape",
        program(
            """
        def f(x):
            g = lambda: int(np.prod(x.shape[1:]))
            return tf.reshape(x, (-1, g()))
            """
        ),
        "f",
        False,
        field=NUMPY,
    ),
    case(
        "map-fn-callback-with-tensorflow-ops",
        program(
            """
        def f(x):
            return tf.map_fn(lambda r: tf.reduce_mean(r), x)
            """
        ),
        "f",
        False,
        field=NUMPY,
    ),
    case(
        "comprehension-over-a-python-range",
        program(
            """
        def f(x):
            return x * tf.constant([np.sqrt(i) for i in range(3)], dtype=tf.float32)
            """
        ),
        "f",
        False,
        field=NUMPY,
    ),
    case(
        "comprehension-over-static-dimensions",
        program(
            """
        def f(x):
            return tf.reshape(x, [int(np.prod([d for d in x.shape]))])
            """
        ),
        "f",
        False,
        field=NUMPY,
    ),
    case(
        # The nested function traced on its own: `x` is an eager tensor it captured.
        "nested-function-on-its-own-sees-a-captured-value",
        """
        import numpy as np
        import tensorflow as tf

        def f(x):
            def spread(scale):
                return np.std(x) * scale

            return spread(tf.constant(2.0))

        f(tf.ones((4, 3)))
        """,
        "f.spread",
        False,
        field=NUMPY,
    ),
]


@pytest.mark.parametrize(("files", "qualname", "field", "expected"), CASES)
def test_numpy_in_every_scope(files, qualname, field, expected):
    assert field_value(verdict(files, qualname), field) == expected


def test_the_finding_names_the_enclosing_variable():
    found = verdict(
        program(
            """
        def f(x):
            g = lambda: np.mean(x)
            return tf.constant(g())
            """
        ),
        "f",
    )
    messages = [f.message for f in found.findings if f.code == "HY302"]
    assert any("`x` of an enclosing function" in m for m in messages), messages
