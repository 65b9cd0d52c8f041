"""Safety facts carried through calls to project helpers (docs/verdicts.md section 1).

A project function that a traced function calls is traced with it, on the caller's symbolic
tensors: `.numpy()` or NumPy there fails although the helper is fine when called eagerly.
Each expected value is what TensorFlow does when the function under test runs as a graph.
"""

from __future__ import annotations

import pytest
from facts_helpers import case, field_value, verdict

EAGER = "has_eager_only_calls"
NUMPY = "has_numpy_calls_on_parameters"

TO_NP = """
        import numpy as np
        import tensorflow as tf

        def to_np(t):
            return t.numpy()
"""

RAMP = """
        import numpy as np
        import tensorflow as tf

        def ramp(n):
            return np.arange(n, dtype=np.float32) / n
"""

CASES = [
    # --- one level ------------------------------------------------------------------------
    case(
        # In a's graph tf.square(x) is symbolic: to_np's `.numpy()` raises AttributeError.
        "numpy-method-in-direct-helper",
        TO_NP
        + """
        def a(x):
            return to_np(tf.square(x))

        a(tf.ones([4]))
        """,
        "a",
        True,
        field=EAGER,
    ),
    case(
        # logits come from the model: symbolic in eval_step's graph, and np.argmax raises
        # "Cannot convert a symbolic tf.Tensor to a numpy array".
        "numpy-in-direct-helper-on-a-tensor-argument",
        """
        import numpy as np
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Dense(3)])

        def accuracy(labels, logits):
            return np.mean(np.argmax(logits, axis=-1) == labels)

        def eval_step(x, y):
            logits = model(x, training=False)
            return tf.reduce_mean(logits), accuracy(y, logits)

        ds = tf.data.Dataset.from_tensor_slices((tf.ones([8, 4]), tf.zeros([8]))).batch(4)
        for x, y in ds:
            eval_step(x, y)
        """,
        "eval_step",
        True,
        field=NUMPY,
    ),
    case(
        # The helper's own TF op is symbolic in the caller's graph, whatever it is given.
        "numpy-method-on-a-tf-op-inside-the-helper",
        """
        import tensorflow as tf

        def count(n):
            return tf.range(n).numpy().sum()

        def weighted(x):
            return x * count(3)

        weighted(tf.ones([3]))
        """,
        "weighted",
        True,
        field=EAGER,
    ),
    case(
        # A NumPy array made in the caller's body is a constant while tracing: NumPy works.
        "numpy-in-helper-on-an-array-made-by-the-caller",
        """
        import numpy as np
        import tensorflow as tf

        def normalise(a):
            return a / np.linalg.norm(a)

        def project(x):
            w = normalise(np.ones(3, dtype=np.float32))
            return x * w

        project(tf.ones([3]))
        """,
        "project",
        False,
        field=NUMPY,
    ),
    case(
        # The helper is fine eagerly and never sees the caller's tensor: nothing fails.
        "numpy-in-helper-on-a-python-int",
        RAMP
        + """
        def scale(x):
            return x * ramp(4)

        scale(tf.ones([4]))
        """,
        "scale",
        False,
        field=NUMPY,
    ),
    case(
        "python-int-helper-keeps-the-caller-refactorable",
        RAMP
        + """
        def scale(x):
            return x * ramp(4)

        scale(tf.ones([4]))
        """,
        "scale",
        "P1",
        field="passing_precondition",
    ),
    case(
        # The static shape is a Python int while tracing.
        "numpy-in-helper-on-a-static-shape",
        RAMP
        + """
        def scale(x):
            return x * ramp(x.shape[-1])

        scale(tf.ones([2, 4]))
        """,
        "scale",
        False,
        field=NUMPY,
    ),
    case(
        # tf.py_function runs the helper eagerly, on eager tensors, even inside a graph.
        "helper-run-by-py-function",
        TO_NP
        + """
        def host(x):
            return tf.py_function(to_np, [x], tf.float32)

        host(tf.ones([3]))
        """,
        "host",
        False,
        field=EAGER,
    ),
    case(
        # Only the shape and dtype are read: both are known while tracing.
        "helper-reads-static-metadata-only",
        """
        import numpy as np
        import tensorflow as tf

        def describe(t):
            return np.prod(t.shape), t.dtype.name

        def flat(x):
            size, _ = describe(x)
            return tf.reshape(x, [size])

        flat(tf.ones([2, 3]))
        """,
        "flat",
        False,
        field=NUMPY,
    ),
    case(
        # TF-Keras refuses `fit` inside a tf.function; the helper fails whatever it is given.
        "keras-fit-in-helper",
        """
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        model.compile(optimizer="adam", loss="mse")

        def fit_once(x, y):
            model.fit(x, y, epochs=1, verbose=0)

        def step(x, y):
            fit_once(x, y)
            return tf.reduce_mean(x)

        step(tf.ones([4, 3]), tf.ones([4, 1]))
        """,
        "step",
        True,
        field=EAGER,
    ),
    case(
        # tf.data traces the map function on its own: building the pipeline runs no helper.
        "dataset-map-callback-is-not-a-call",
        """
        import numpy as np
        import tensorflow as tf

        def parse(x):
            return np.float32(x.numpy())

        def pipeline(x):
            return tf.data.Dataset.from_tensor_slices(tf.square(x)).map(parse)

        pipeline(tf.ones([3]))
        """,
        "pipeline",
        False,
        field=EAGER,
    ),
    # --- values from outside the parameters -----------------------------------------------
    case(
        # A module-level tensor is still an eager tensor while tracing: `.numpy()` works.
        "numpy-method-on-a-module-level-tensor",
        """
        import tensorflow as tf

        SCALE = tf.constant(2.0)

        def scale_value():
            return SCALE.numpy()

        def scaled(x):
            return x * scale_value()

        scaled(tf.ones([3]))
        """,
        "scaled",
        False,
        field=EAGER,
    ),
    case(
        # ... but an op on it runs in the graph and gives a symbolic tensor.
        "numpy-method-on-an-op-of-a-module-level-tensor",
        """
        import tensorflow as tf

        SCALE = tf.constant(2.0)

        def doubled_scale():
            return (SCALE * 2.0).numpy()

        def scaled(x):
            return x * doubled_scale()

        scaled(tf.ones([3]))
        """,
        "scaled",
        True,
        field=EAGER,
    ),
    case(
        # Variable.numpy() raises "numpy() is only available when eager execution is enabled".
        "numpy-method-on-a-variable-in-helper",
        """
        import tensorflow as tf

        w = tf.Variable(tf.ones([3]))

        def weights_now():
            return w.numpy()

        def weighted(x):
            return x * weights_now()

        weighted(tf.ones([3]))
        """,
        "weighted",
        True,
        field=EAGER,
    ),
    case(
        # The nested function reads the enclosing function's tensor: symbolic in its graph.
        "numpy-method-on-a-closure-tensor",
        """
        import tensorflow as tf

        def squared(x):
            y = tf.square(x)

            def peek():
                return y.numpy()

            return peek()

        squared(tf.ones([3]))
        """,
        "squared",
        True,
        field=EAGER,
    ),
    # --- deeper ---------------------------------------------------------------------------
    case(
        "numpy-method-two-levels-deep",
        TO_NP
        + """
        def doubled(t):
            return to_np(t) * 2

        def outer(x):
            return doubled(tf.square(x))

        outer(tf.ones([3]))
        """,
        "outer",
        True,
        field=EAGER,
    ),
    case(
        "numpy-two-levels-deep",
        """
        import numpy as np
        import tensorflow as tf

        def spread(v):
            return np.std(v)

        def summary(v):
            return spread(v) + 1.0

        def outer(x):
            return x / summary(x)

        outer(tf.ones([3]))
        """,
        "outer",
        True,
        field=NUMPY,
    ),
    case(
        # The middle helper passes on only a Python int: the inner NumPy stays concrete.
        "two-levels-deep-python-value-only",
        """
        import numpy as np
        import tensorflow as tf

        def ramp(n):
            return np.arange(n, dtype=np.float32)

        def ramp_like(t):
            return ramp(t.shape[0])

        def outer(x):
            return x * ramp_like(x)

        outer(tf.ones([3]))
        """,
        "outer",
        False,
        field=NUMPY,
    ),
    # --- methods --------------------------------------------------------------------------
    case(
        "numpy-method-in-helper-method",
        """
        import tensorflow as tf

        class Reporter:
            def to_host(self, t):
                return t.numpy()

            def report(self, x):
                return self.to_host(tf.reduce_mean(x))

        reporter = Reporter()

        def step(x):
            return reporter.report(x)

        step(tf.ones([3]))
        """,
        "step",
        True,
        field=EAGER,
    ),
    case(
        "numpy-in-helper-method-via-self",
        """
        import numpy as np
        import tensorflow as tf

        class Scaler(tf.keras.layers.Layer):
            def _norm(self, v):
                return np.linalg.norm(v)

            def call(self, inputs):
                return inputs / self._norm(inputs)

        layer = Scaler()
        layer(tf.ones([2, 3]))
        """,
        "Scaler.call",
        True,
        field=NUMPY,
    ),
    # --- recursion ------------------------------------------------------------------------
    case(
        "recursive-helper-terminates",
        """
        import tensorflow as tf

        def unwind(t, depth):
            if depth == 0:
                return t.numpy()
            return unwind(t, depth - 1)

        def run(x):
            return unwind(tf.square(x), 3)

        run(tf.ones([2]))
        """,
        "run",
        True,
        field=EAGER,
    ),
    case(
        "mutually-recursive-helpers-terminate",
        """
        import numpy as np
        import tensorflow as tf

        def ping(t, n):
            return pong(t, n - 1) if n else np.sum(t)

        def pong(t, n):
            return ping(t * 2.0, n)

        def run(x):
            return pong(tf.abs(x), 4)

        run(tf.ones([2]))
        """,
        "run",
        True,
        field=NUMPY,
    ),
    case(
        "mutually-recursive-helpers-without-hazards",
        """
        import tensorflow as tf

        def ping(t, n):
            return pong(t, n - 1) if n else t

        def pong(t, n):
            return ping(t * 2.0, n)

        def run(x):
            return pong(tf.abs(x), 4)

        run(tf.ones([2]))
        """,
        "run",
        False,
        field=EAGER,
    ),
    # --- tf.constant ----------------------------------------------------------------------
    case(
        # tf.function converts the NumPy argument to a tensor: tf.constant of a symbolic
        # tensor raises "Expected any non-tensor type, but got a tensor instead".
        "tf-constant-of-a-numpy-argument",
        """
        import numpy as np
        import tensorflow as tf

        def preprocess(images):
            images = tf.constant(images, dtype=tf.float32)
            return images / 255.0

        preprocess(np.zeros((8, 28, 28), dtype=np.uint8))
        """,
        "preprocess",
        True,
        field=EAGER,
    ),
    case(
        "tf-constant-of-a-tensor-argument",
        """
        import tensorflow as tf

        def preprocess(images):
            return tf.constant(images) / 255.0

        preprocess(tf.zeros((8, 28, 28)))
        """,
        "preprocess",
        True,
        field=EAGER,
    ),
    case(
        "tf-constant-of-literals-and-local-arrays",
        """
        import numpy as np
        import tensorflow as tf

        def shift(x):
            table = np.linspace(0.0, 1.0, 3).astype(np.float32)
            return x + tf.constant([1.0, 2.0, 3.0]) * tf.constant(table)

        shift(tf.ones([3]))
        """,
        "shift",
        False,
        field=EAGER,
    ),
    case(
        # A NumPy array built from a Python int is concrete while tracing.
        "tf-constant-of-an-array-built-from-a-python-int",
        """
        import numpy as np
        import tensorflow as tf

        def tile(x, n):
            return x * tf.constant(np.ones(n, dtype=np.float32))

        tile(tf.ones([3]), 3)
        """,
        "tile",
        False,
        field=EAGER,
    ),
    case(
        "tf-constant-in-helper-given-a-tensor",
        """
        import tensorflow as tf

        def as_tensor(v):
            return tf.constant(v)

        def bump(x):
            return as_tensor(x) + 1.0

        bump(tf.ones([3]))
        """,
        "bump",
        True,
        field=EAGER,
    ),
    case(
        "tf-constant-in-helper-given-a-list",
        """
        import tensorflow as tf

        def as_tensor(v):
            return tf.constant(v)

        def bump(x):
            return x + as_tensor([1.0, 2.0, 3.0])

        bump(tf.ones([3]))
        """,
        "bump",
        False,
        field=EAGER,
    ),
]


@pytest.mark.parametrize(("files", "qualname", "field", "expected"), CASES)
def test_helper_safety_fact(files, qualname, field, expected):
    assert field_value(verdict(files, qualname), field) == expected


def test_finding_names_the_helper_and_its_line():
    v = verdict(
        TO_NP
        + """
        def a(x):
            return to_np(tf.square(x))

        a(tf.ones([4]))
        """,
        "a",
    )
    messages = [f.message for f in v.findings if f.code == "HY301"]
    assert messages and "`to_np` (line 6)" in messages[0], messages
    assert "`.numpy()`" in messages[0]


def test_two_levels_name_the_chain():
    v = verdict(
        TO_NP
        + """
        def doubled(t):
            return to_np(t) * 2

        def outer(x):
            return doubled(tf.square(x))

        outer(tf.ones([3]))
        """,
        "outer",
    )
    (finding,) = [f for f in v.findings if f.code == "HY301"]
    assert "`doubled` (line 9), which calls `to_np` (line 6)" in finding.message
    assert finding.span.start_line == 12
