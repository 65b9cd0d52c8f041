"""`has_tensor_computation` and `caller_covered`.

docs/verdicts.md section 1: the body runs at least one TensorFlow op (transitively through user
code); every known caller is already hybrid or itself covered (a Dataset.map callback is
traced by tf.data).
"""

from __future__ import annotations

import pytest
from facts_helpers import case, verdict

HYBRID_CALLER = """
        import tensorflow as tf

        def squash(x):
            return tf.tanh(x)

        @tf.function
        def forward(x):
            return squash(x) * 2.0

        forward(tf.ones([3]))
"""

COMPUTATION = [
    case(
        "tensor-comparison-in-an-if-test",
        """
        import tensorflow as tf

        def pick(loss, best):
            if loss < best:
                return loss
            return best

        pick(tf.constant(1.0), tf.constant(2.0))
        """,
        "pick",
        True,
    ),
    case(
        "python-comparison-in-a-while-test",
        """
        import tensorflow as tf

        def countdown(x, n):
            while n > 0:
                n -= 1
            return x

        countdown(tf.constant(1.0), 3)
        """,
        "countdown",
        False,
    ),
    case(
        "python-string-work",
        """
        import tensorflow as tf

        def describe(shape):
            return "x".join(str(d) for d in shape)

        describe((2, 3))
        """,
        "describe",
        False,
    ),
    case(
        "numpy-only",
        """
        import numpy as np
        import tensorflow as tf

        def standardize(a):
            return (a - np.mean(a)) / np.std(a)

        standardize(np.ones((4, 4)))
        """,
        "standardize",
        False,
    ),
    case(
        "packs-tensors-into-a-dict",
        """
        import tensorflow as tf

        def as_features(image, label):
            return {"image": image, "label": label}

        as_features(tf.zeros([8, 8]), tf.constant(1))
        """,
        "as_features",
        False,
    ),
    case(
        "selects-an-argument",
        """
        import tensorflow as tf

        def first(pair):
            return pair[0]

        first((tf.ones([2]), tf.zeros([2])))
        """,
        "first",
        False,
    ),
    case(
        "static-shape-read",
        """
        import tensorflow as tf

        def batch_size(x):
            return x.shape[0]

        batch_size(tf.ones([8, 3]))
        """,
        "batch_size",
        False,
    ),
    case(
        "type-checks-only",
        """
        import tensorflow as tf

        def is_float_tensor(x):
            return tf.is_tensor(x) and x.dtype == tf.float32

        is_float_tensor(tf.ones([2]))
        """,
        "is_float_tensor",
        False,
    ),
    case(
        "direct-tf-op",
        """
        import tensorflow as tf

        def softmax(x):
            return tf.nn.softmax(x)

        softmax(tf.ones([4]))
        """,
        "softmax",
        True,
    ),
    case(
        "tf-op-through-helper",
        """
        import tensorflow as tf

        def _square(x):
            return tf.square(x)

        def energy(x):
            return _square(x)

        energy(tf.ones([4]))
        """,
        "energy",
        True,
    ),
    case(
        "tf-op-through-helper-in-other-module",
        {
            "ops.py": "import tensorflow as tf\n\n\ndef square(x):\n    return tf.square(x)\n",
            "main.py": "import tensorflow as tf\n\nfrom ops import square\n\n\n"
            "def energy(x):\n    return square(x)\n\n\nenergy(tf.ones([4]))\n",
        },
        "main.py::energy",
        True,
    ),
    case(
        "operator-on-tensor-parameter",
        """
        import tensorflow as tf

        def affine(x, w, b):
            return x @ w + b

        affine(tf.ones([1, 2]), tf.ones([2, 2]), tf.zeros([2]))
        """,
        "affine",
        True,
    ),
    case(
        "keras-layer-call",
        """
        import tensorflow as tf

        head = tf.keras.layers.Dense(3)

        def logits(features):
            return head(features)

        logits(tf.ones([2, 5]))
        """,
        "logits",
        True,
    ),
]

COVERED = [
    case("only-called-from-tf-function", HYBRID_CALLER, "squash", True),
    # tf.map_fn runs its callback in the caller's mode: eagerly from eager code.
    case(
        "map-fn-callback-from-eager-code-is-not-covered",
        """
        import tensorflow as tf

        def row_norm(row):
            return tf.norm(row)

        norms = tf.map_fn(row_norm, tf.ones([1000, 8]))
        """,
        "row_norm",
        False,
    ),
    case(
        "map-fn-callback-inside-a-tf-function-is-covered",
        """
        import tensorflow as tf

        def row_norm(row):
            return tf.norm(row)

        @tf.function
        def norms(x):
            return tf.map_fn(row_norm, x)

        norms(tf.ones([10, 8]))
        """,
        "row_norm",
        True,
    ),
    case(
        "dataset-map-callback-is-covered-even-from-eager-code",
        """
        import tensorflow as tf

        def scale(x):
            return x * 2.0

        ds = tf.data.Dataset.from_tensor_slices(tf.ones([4, 2])).map(scale)
        """,
        "scale",
        True,
    ),
    case(
        "transitively-covered",
        """
        import tensorflow as tf

        def inner(x):
            return tf.nn.relu(x)

        def middle(x):
            return inner(x) + 1.0

        @tf.function
        def forward(x):
            return middle(x)

        forward(tf.ones([3]))
        """,
        "inner",
        True,
    ),
    case(
        "called-from-hybrid-and-eager",
        """
        import tensorflow as tf

        def squash(x):
            return tf.tanh(x)

        @tf.function
        def forward(x):
            return squash(x) * 2.0

        forward(tf.ones([3]))
        squash(tf.ones([3]))
        """,
        "squash",
        False,
    ),
    case(
        "called-from-module-level-only",
        """
        import tensorflow as tf

        def squash(x):
            return tf.tanh(x)

        squash(tf.ones([3]))
        """,
        "squash",
        False,
    ),
    case(
        "called-from-a-test",
        """
        import tensorflow as tf

        def squash(x):
            return tf.tanh(x)

        @tf.function
        def forward(x):
            return squash(x)

        def test_squash_range():
            assert tf.reduce_max(squash(tf.ones([3]))) < 1.0
        """,
        "squash",
        False,
    ),
    case(
        "dataset-map-callback",
        """
        import tensorflow as tf

        def to_unit_range(image):
            return tf.cast(image, tf.float32) / 255.0

        ds = tf.data.Dataset.from_tensor_slices(tf.zeros([10, 8, 8], tf.uint8)).map(to_unit_range)
        """,
        "to_unit_range",
        True,
    ),
    case(
        "covered-through-map-callback",
        """
        import tensorflow as tf

        def scale(image):
            return tf.cast(image, tf.float32) / 255.0

        def preprocess(image):
            return scale(image) - 0.5

        ds = tf.data.Dataset.from_tensor_slices(tf.zeros([4, 8, 8], tf.uint8)).map(preprocess)
        """,
        "scale",
        True,
    ),
    case(
        "called-from-hybrid-keras-call",
        """
        import tensorflow as tf

        def squash(x):
            return tf.tanh(x)

        class Head(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.dense = tf.keras.layers.Dense(2)

            @tf.function
            def call(self, inputs):
                return squash(self.dense(inputs))
        """,
        "squash",
        True,
    ),
    case(
        "covered-via-tf-function-wrapper",
        """
        import tensorflow as tf

        def squash(x):
            return tf.tanh(x)

        def forward(x):
            return squash(x) * 2.0

        fast_forward = tf.function(forward)
        fast_forward(tf.ones([3]))
        """,
        "squash",
        True,
    ),
]

FAILURES = [
    case(
        "covered-helper-fails-only-covered-callers",
        HYBRID_CALLER,
        "squash",
        ("has_covered_callers",),
    ),
    case(
        "python-only-fails-no-tensor-computation",
        """
        import tensorflow as tf

        def as_features(image, label):
            return {"image": image, "label": label}

        as_features(tf.zeros([8, 8]), tf.zeros([1]))
        """,
        "as_features",
        ("no_tensor_computation",),
    ),
]


@pytest.mark.parametrize(("files", "qualname", "expected"), COMPUTATION)
def test_has_tensor_computation(files, qualname, expected):
    assert verdict(files, qualname).facts.has_tensor_computation is expected


@pytest.mark.parametrize(("files", "qualname", "expected"), COVERED)
def test_caller_covered(files, qualname, expected):
    assert verdict(files, qualname).facts.caller_covered is expected


@pytest.mark.parametrize(("files", "qualname", "expected"), FAILURES)
def test_failures(files, qualname, expected):
    assert verdict(files, qualname).failures == expected
