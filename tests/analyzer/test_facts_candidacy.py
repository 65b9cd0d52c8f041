"""Code that is no `@tf.function` candidate by its nature (hybridize/analyzer/facts/candidacy.py).

Not TensorFlow code (a module that never imports TensorFlow gets no verdict; Keras 3
backend-agnostic code gets HY006), TF1 graph code (HY007), tf.data pipeline builders (HY008);
and what is not tensor computation: building a dataset, NumPy, strings.
"""

from __future__ import annotations

import pytest
from facts_helpers import analyse, case, field_value

# ---------------------------------------------------------------- which functions get a verdict

REPORTED = [
    case(
        "plain-python-project",
        {"main.py": "def scale(x, w):\n    return x * w\n\n\nscale(2.0, 3.0)\n"},
        "main.py::scale",
        False,
    ),
    case(
        "numpy-only-project",
        {
            "main.py": "import numpy as np\n\n\ndef affine(x, w):\n    return x @ w + 1.0\n\n\n"
            "affine(np.ones((2, 2)), np.ones((2, 2)))\n"
        },
        "main.py::affine",
        False,
    ),
    case(
        "numpy-module-in-a-tensorflow-project",
        {
            "stats.py": "import numpy as np\n\n\ndef zscore(a):\n    return (a - a.mean()) / a.std()\n",
            "train.py": "import numpy as np\nimport tensorflow as tf\n\nfrom stats import zscore\n\n\n"
            "def loss(x):\n    return tf.reduce_sum(x)\n\n\nzscore(np.ones(3))\n",
        },
        "stats.py::zscore",
        False,
    ),
    case(
        "module-importing-tensorflow",
        {"ops.py": "import tensorflow as tf\n\n\ndef square(x):\n    return tf.square(x)\n"},
        "ops.py::square",
        True,
    ),
    case(
        "tensorflow-through-a-project-module",
        {
            "ops.py": "import tensorflow as tf\n\n\ndef square(x):\n    return tf.square(x)\n",
            "model.py": "from ops import square\n\n\ndef energy(x):\n    return square(x)\n",
        },
        "model.py::energy",
        True,
    ),
    case(
        "tensorflow-through-two-project-modules",
        {
            "pkg/__init__.py": "",
            "pkg/ops.py": "import tensorflow as tf\n\n\ndef square(x):\n    return tf.square(x)\n",
            "pkg/layers.py": "from pkg.ops import square\n",
            "pkg/model.py": "from pkg import layers\n\n\ndef energy(x):\n    return layers.square(x)\n",
        },
        "pkg/model.py::energy",
        True,
    ),
    case(
        "imported-by-a-tensorflow-module-is-not-enough",
        {
            "helpers.py": "def double(x):\n    return x * 2\n",
            "train.py": "import tensorflow as tf\n\nfrom helpers import double\n\n\n"
            "double(tf.ones(3))\n",
        },
        "helpers.py::double",
        False,
    ),
    case(
        "tensorflow-imported-inside-a-function",
        {"main.py": "def square(x):\n    import tensorflow as tf\n\n    return tf.square(x)\n"},
        "main.py::square",
        True,
    ),
    case(
        "tensorflow-ecosystem-package",
        {
            "main.py": "import tensorflow_probability as tfp\n\n\n"
            "def log_prob(x):\n    return tfp.distributions.Normal(0.0, 1.0).log_prob(x)\n"
        },
        "main.py::log_prob",
        True,
    ),
    case(
        "keras-only-module",
        {"main.py": "import keras\n\n\ndef head(model, x):\n    return model(x)\n"},
        "main.py::head",
        True,
    ),
    case(
        "torch-project",
        {
            "main.py": "import torch\n\n\ndef step(x):\n    return torch.relu(x) * 2\n\n\n"
            "step(torch.ones(3))\n"
        },
        "main.py::step",
        True,
    ),
]


@pytest.mark.parametrize(("files", "qualname", "expected"), REPORTED)
def test_reported_only_in_analysed_framework_code(files, qualname, expected):
    reported = {f"{v.file}::{v.qualname}" for v in analyse(files).values()}
    assert (qualname in reported) is expected


# ---------------------------------------------------------------- facts and failures

DATASET_BUILDER = """
    import numpy as np
    import tensorflow as tf

    def scale(image, label):
        return tf.cast(image, tf.float32) / 255.0, label

    def make_pipeline(images, labels, batch_size):
        ds = tf.data.Dataset.from_tensor_slices((images, labels))
        ds = ds.map(scale).filter(lambda image, label: tf.reduce_max(image) > 0.1)
        return ds.shuffle(512).batch(batch_size).prefetch(tf.data.AUTOTUNE)

    make_pipeline(np.zeros((8, 4, 4), np.uint8), np.zeros((8,), np.int32), 32)
    make_pipeline(np.zeros((8, 4, 4), np.uint8), np.zeros((8,), np.int32), 16)
"""

FACTS = [
    # --- tf.data pipelines
    case(
        "builder-is-no-candidate", DATASET_BUILDER, "make_pipeline", True, "failure:dataset_builder"
    ),
    case(
        "building-a-dataset-is-not-tensor-computation",
        DATASET_BUILDER,
        "make_pipeline",
        False,
        "has_tensor_computation",
    ),
    case("builder-finding", DATASET_BUILDER, "make_pipeline", True, "finding:HY008"),
    case("map-callback-is-no-builder", DATASET_BUILDER, "scale", False, "failure:dataset_builder"),
    case("map-callback-computes", DATASET_BUILDER, "scale", True, "has_tensor_computation"),
    case(
        "tensor-op-before-the-pipeline-still-a-builder",
        """
        import tensorflow as tf

        def make(x):
            x = tf.cast(x, tf.float32)
            return tf.data.Dataset.from_tensor_slices(x).batch(8)

        make(tf.ones((64, 3)))
        """,
        "make",
        (False, True),
        "passes+failure:dataset_builder",
    ),
    case(
        "dataset-argument-is-not-a-tensor-parameter",
        """
        import tensorflow as tf

        def add_batching(ds):
            return ds.batch(4).prefetch(1)

        add_batching(tf.data.Dataset.range(10))
        """,
        "add_batching",
        False,
        "has_tensor_parameter",
    ),
    case(
        "returns-train-and-validation-datasets",
        """
        import numpy as np
        import tensorflow as tf

        def split(x):
            ds = tf.data.Dataset.from_tensor_slices(x)
            return ds.take(80).batch(8), ds.skip(80).batch(8)

        split(np.ones((100, 3), np.float32))
        """,
        "split",
        True,
        "failure:dataset_builder",
    ),
    case(
        "returns-an-iterator-over-a-pipeline",
        """
        import tensorflow as tf

        def batches(x):
            return iter(tf.data.Dataset.from_tensor_slices(x).repeat().batch(4))

        batches(tf.ones((16, 3)))
        """,
        "batches",
        True,
        "failure:dataset_builder",
    ),
    case(
        "dataset-apply-hands-over-the-dataset",
        """
        import tensorflow as tf

        def batched(ds):
            return ds.batch(4)

        tf.data.Dataset.range(10).apply(batched)
        """,
        "batched",
        (False, True),
        "has_tensor_parameter+failure:dataset_builder",
    ),
    case(
        "tf-data-factory-callbacks-are-traced-by-tf-data",
        """
        import tensorflow as tf

        def key(x):
            return x % 2

        def reduce(k, window):
            return window.batch(2)

        ds = tf.data.Dataset.range(10).apply(
            tf.data.experimental.group_by_window(key, reduce, window_size=2)
        )
        """,
        "key",
        True,
        "caller_covered",
    ),
    case(
        "consumer-of-a-dataset-is-no-builder",
        """
        import tensorflow as tf

        def total(ds):
            result = tf.zeros([3])
            for x in ds:
                result += tf.reduce_sum(x, axis=0)
            return result

        total(tf.data.Dataset.from_tensor_slices(tf.ones((8, 2, 3))))
        """,
        "total",
        False,
        "failure:dataset_builder",
    ),
    case(
        "a-callback-run-in-the-callers-mode-is-the-callers-computation",
        """
        import tensorflow as tf

        def square(x):
            return tf.square(x)

        def squares(pair):
            return tf.nest.map_structure(square, pair)

        squares((tf.ones(3), tf.ones(2)))
        """,
        "squares",
        True,
        "has_tensor_computation",
    ),
    # --- NumPy and strings
    case(
        "ndarray-methods-only",
        """
        import numpy as np
        import tensorflow as tf

        def normalize(a):
            return (a - a.mean(axis=0)) / (a.std(axis=0) + 1e-8)

        normalize(np.ones((4, 3)))
        """,
        "normalize",
        (True, False),
        "has_tensor_parameter+has_tensor_computation",
    ),
    case(
        "third-party-function-on-arrays-returns-no-tf-tensor",
        """
        import numpy as np
        import sklearn.preprocessing
        import tensorflow as tf

        def rescale(a):
            return sklearn.preprocessing.scale(a) * 2.0

        rescale(np.ones((4, 3)))
        """,
        "rescale",
        False,
        "has_tensor_computation",
    ),
    case(
        "numpy-argument-with-tf-work-is-a-candidate",
        """
        import numpy as np
        import tensorflow as tf

        def total(a):
            return tf.reduce_sum(tf.convert_to_tensor(a) * 2.0)

        total(np.ones((4, 3), np.float32))
        """,
        "total",
        True,
        "passes",
    ),
    case(
        "percent-formatting-of-a-tensor",
        """
        import tensorflow as tf

        def describe(x):
            return "value: %s" % x

        describe(tf.ones([2]))
        """,
        "describe",
        False,
        "has_tensor_computation",
    ),
    case(
        "regex-and-str-methods",
        """
        import re

        import tensorflow as tf

        def tokens(text):
            return re.findall(r"\\w+", text.strip().lower())

        tokens("Hello  world")
        """,
        "tokens",
        False,
        "has_tensor_computation",
    ),
    case(
        "string-concatenation-with-a-tensor-is-a-tf-op",
        """
        import tensorflow as tf

        def prefix(x):
            return "id_" + x

        prefix(tf.constant(["a", "b"]))
        """,
        "prefix",
        True,
        "has_tensor_computation",
    ),
    # --- Keras 3 backend-agnostic code
    case(
        "keras-ops-only",
        """
        import tensorflow as tf
        from keras import ops

        def gelu(x):
            return 0.5 * x * (1.0 + ops.tanh(0.79788456 * (x + 0.044715 * ops.power(x, 3))))

        gelu(tf.ones([3]))
        """,
        "gelu",
        (True, True),
        "failure:not_tensorflow_code+has_tensor_computation",
    ),
    case(
        "keras-ops-next-to-a-tf-op",
        """
        import tensorflow as tf
        from keras import ops

        def act(x):
            return tf.nn.relu(ops.abs(x))

        act(tf.ones([3]))
        """,
        "act",
        True,
        "passes",
    ),
    case(
        "keras-ops-through-a-helper",
        """
        import keras
        import tensorflow as tf

        def _sq(x):
            return keras.ops.square(x)

        def energy(x):
            return _sq(x) + 1.0

        energy(tf.ones([3]))
        """,
        "energy",
        True,
        "failure:not_tensorflow_code",
    ),
    case(
        "keras-ops-helper-under-a-tf-function",
        """
        import keras
        import tensorflow as tf

        def _sq(x):
            return keras.ops.square(x)

        def energy(x):
            return tf.reduce_sum(_sq(x))

        energy(tf.ones([3]))
        """,
        "energy",
        False,
        "failure:not_tensorflow_code",
    ),
    case(
        "helper-called-only-from-keras-ops-code",
        """
        import tensorflow as tf
        from keras import ops

        def _scale(x):
            return x * 0.5

        def gelu(x):
            return _scale(x) * (1.0 + ops.tanh(0.79788456 * x))

        gelu(tf.ones([3]))
        """,
        "_scale",
        True,
        "failure:not_tensorflow_code",
    ),
    case(
        "branch-on-another-backend",
        """
        import keras
        import tensorflow as tf

        def act(x):
            if keras.backend.backend() == "jax":
                import jax

                return jax.nn.relu(x)
            return tf.nn.relu(x)

        act(tf.ones([3]))
        """,
        "act",
        True,
        "failure:not_tensorflow_code",
    ),
    case(
        "backend-read-into-a-local",
        """
        import keras
        import tensorflow as tf

        def act(x):
            backend = keras.config.backend()
            if backend == "torch":
                return x.clamp(min=0)
            return tf.nn.relu(x)

        act(tf.ones([3]))
        """,
        "act",
        True,
        "failure:not_tensorflow_code",
    ),
    case(
        "backend-read-into-a-module-global",
        """
        import keras
        import tensorflow as tf

        BACKEND = keras.backend.backend()

        def act(x):
            if BACKEND == "jax":
                return x * (x > 0)
            return tf.nn.relu(x)

        act(tf.ones([3]))
        """,
        "act",
        True,
        "failure:not_tensorflow_code",
    ),
    case(
        "module-branching-on-another-backend",
        """
        import keras
        import tensorflow as tf

        if keras.config.backend() == "jax":
            import jax.numpy as xnp
        else:
            import tensorflow.experimental.numpy as xnp

        def act(x):
            return xnp.maximum(x, 0.0) + tf.zeros_like(x)

        act(tf.ones([3]))
        """,
        "act",
        True,
        "failure:not_tensorflow_code",
    ),
    case(
        "requiring-the-tensorflow-backend-is-tensorflow-code",
        """
        import keras
        import tensorflow as tf

        def act(x):
            if keras.backend.backend() != "tensorflow":
                raise ValueError("needs TensorFlow")
            return tf.nn.relu(x)

        act(tf.ones([3]))
        """,
        "act",
        True,
        "passes",
    ),
    case(
        "keras-without-tensorflow",
        """
        import keras

        def head(model, x):
            return model(x) * 2.0

        head(keras.Sequential([keras.layers.Dense(2)]), keras.random.normal((2, 3)))
        """,
        "head",
        True,
        "failure:not_tensorflow_code",
    ),
    case(
        "keras-module-in-a-tensorflow-project-is-tensorflow-code",
        {
            "model.py": "import keras\n\n\ndef head(model, x):\n    return model(x) * 2.0\n",
            "train.py": "import tensorflow as tf\n\nfrom model import head\n\n"
            "net = tf.keras.Sequential([tf.keras.layers.Dense(2)])\n"
            "head(net, tf.ones((2, 3)))\n",
        },
        "model.py::head",
        False,
        "failure:not_tensorflow_code",
    ),
    case(
        "tf-keras-model-call-is-tensorflow-code",
        """
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Dense(2)])

        def head(x):
            return model(x) * 2.0

        head(tf.ones((2, 3)))
        """,
        "head",
        False,
        "failure:not_tensorflow_code",
    ),
    # --- TF1 graph code
    case(
        "placeholder-and-session",
        """
        import tensorflow as tf

        def run(features):
            x = tf.compat.v1.placeholder(tf.float32, [None, 4])
            with tf.compat.v1.Session() as sess:
                return sess.run(tf.reduce_sum(x), feed_dict={x: features})

        run(tf.ones((2, 4)))
        """,
        "run",
        True,
        "failure:legacy_graph_code",
    ),
    case(
        "compat-v1-alias-variable-scope",
        """
        import tensorflow.compat.v1 as tf

        def dense(x):
            with tf.variable_scope("dense"):
                w = tf.get_variable("w", [4, 4])
            return tf.matmul(x, w)

        dense(tf.ones((2, 4)))
        """,
        "dense",
        True,
        "failure:legacy_graph_code",
    ),
    case(
        "tf1-top-level-spelling",
        """
        import tensorflow as tf

        def evaluate(x):
            sess = tf.Session()
            return sess.run(tf.reduce_sum(x))

        evaluate(tf.ones(3))
        """,
        "evaluate",
        True,
        "failure:legacy_graph_code",
    ),
    case(
        "session-passed-to-a-helper",
        """
        import tensorflow as tf

        def fetch(sess, op):
            return sess.run(op)

        def total(sess, x):
            return fetch(sess, tf.reduce_sum(x))

        total(tf.compat.v1.Session(), tf.ones(3))
        """,
        "total",
        True,
        "failure:legacy_graph_code",
    ),
    case(
        "new-graph-as-default",
        """
        import tensorflow as tf

        def build(x):
            with tf.Graph().as_default():
                return tf.square(x)

        build(tf.ones(3))
        """,
        "build",
        True,
        "failure:legacy_graph_code",
    ),
    case(
        "module-that-disables-eager-execution",
        """
        import tensorflow as tf

        tf.compat.v1.disable_eager_execution()

        def loss(pred, y):
            return tf.reduce_mean(tf.square(pred - y))

        loss(tf.ones(2), tf.ones(2))
        """,
        "loss",
        True,
        "failure:legacy_graph_code",
    ),
    case(
        "reading-the-default-graph-is-not-legacy",
        """
        import tensorflow as tf

        cache = {}

        def schedule(step):
            graph = tf.compat.v1.get_default_graph()
            return cache.get(graph, tf.cast(step, tf.float32) * 0.1)

        schedule(tf.constant(3))
        """,
        "schedule",
        False,
        "failure:legacy_graph_code",
    ),
    case(
        "helper-called-only-from-tf1-graph-code",
        """
        import tensorflow as tf

        def dense(x, w):
            return tf.matmul(x, w)

        def build():
            x = tf.compat.v1.placeholder(tf.float32, [None, 4])
            return dense(x, tf.ones((4, 2)))

        build()
        """,
        "dense",
        True,
        "failure:legacy_graph_code",
    ),
    case(
        "helper-also-called-from-tf2-code",
        """
        import tensorflow as tf

        def dense(x, w):
            return tf.matmul(x, w)

        def build():
            x = tf.compat.v1.placeholder(tf.float32, [None, 4])
            return dense(x, tf.ones((4, 2)))

        dense(tf.ones((2, 4)), tf.ones((4, 2)))
        """,
        "dense",
        False,
        "failure:legacy_graph_code",
    ),
    case(
        "a-sibling-of-tf1-code-is-not-tf1-code",
        """
        import tensorflow as tf

        def legacy_dense(x):
            with tf.compat.v1.variable_scope("dense"):
                w = tf.compat.v1.get_variable("w", [4, 4])
            return tf.matmul(x, w)

        def loss(x, y):
            return tf.reduce_mean(tf.square(x - y))

        batch = tf.ones((2, 4))
        loss(legacy_dense(batch), batch)
        """,
        "loss",
        True,
        "passes",
    ),
    case(
        "compat-v1-ops-are-tf2-ops",
        """
        import tensorflow as tf

        def act(x):
            return tf.compat.v1.nn.relu(x) + tf.compat.v1.reduce_sum(x)

        act(tf.ones((2, 4)))
        """,
        "act",
        True,
        "passes",
    ),
]


@pytest.mark.parametrize(("files", "qualname", "field", "expected"), FACTS)
def test_fact(files, qualname, field, expected):
    verdicts = analyse(files)
    assert qualname in verdicts, f"{qualname} not analysed; got {sorted(verdicts)}"
    fields = field.split("+")
    found = tuple(_value(verdicts[qualname], f) for f in fields)
    assert found == (expected if isinstance(expected, tuple) else (expected,))


def _value(verdict, field):
    """A field of `field_value`, or `finding:CODE`: whether a finding has that code."""
    if field.startswith("finding:"):
        return field.split(":", 1)[1] in field_value(verdict, "finding_codes")
    return field_value(verdict, field)
