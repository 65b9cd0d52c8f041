"""More safety facts (docs/verdicts.md sections 1-2), beyond `test_facts_safety.py`.

Code that runs eagerly but breaks (or silently changes) under tracing: eager-only calls,
NumPy/SciPy on symbolic values, non-string `name=` arguments, stale variable snapshots,
Python iteration over tensors, dtype coercions that only eager execution performs, Keras
symbolic arguments; plus `has_tensor_computation` and `caller_covered` corner cases.
"""

from __future__ import annotations

import pytest
from facts_helpers import case, field_value, verdict

KERAS_MODEL = """
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        model.compile(optimizer="adam", loss="mse")
"""

TRAINING = """
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        optimizer = tf.keras.optimizers.Adam()
"""

CASES = [
    # --- eager-only calls -----------------------------------------------------------------
    case(
        "keras-model-test-on-batch",
        KERAS_MODEL
        + """
        def batch_loss(x, y):
            return tf.constant(model.test_on_batch(x, y))

        batch_loss(tf.ones([4, 3]), tf.ones([4, 1]))
        """,
        "batch_loss",
        True,
        field="has_eager_only_calls",
    ),
    case(
        "keras-model-predict-on-batch",
        KERAS_MODEL
        + """
        def batch_scores(x):
            return tf.nn.sigmoid(model.predict_on_batch(x))

        batch_scores(tf.ones([4, 3]))
        """,
        "batch_scores",
        True,
        field="has_eager_only_calls",
    ),
    case(
        "keras-model-fit-generator",
        KERAS_MODEL
        + """
        def train_from(batches, x):
            model.fit_generator(batches, steps_per_epoch=10, epochs=1)
            return tf.reduce_mean(model(x))

        train_from(iter([]), tf.ones([4, 3]))
        """,
        "train_from",
        True,
        field="has_eager_only_calls",
    ),
    case(
        "keras-model-evaluate-generator",
        KERAS_MODEL
        + """
        def validation_loss(batches, x):
            loss = model.evaluate_generator(batches, steps=5)
            return tf.reduce_mean(x) + loss

        validation_loss(iter([]), tf.ones([4, 3]))
        """,
        "validation_loss",
        True,
        field="has_eager_only_calls",
    ),
    case(
        "predict-on-subclassed-keras-model",
        """
        import tensorflow as tf

        class Classifier(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.dense = tf.keras.layers.Dense(3)

            def call(self, x):
                return self.dense(x)

        classifier = Classifier()

        def top_class(x):
            return tf.argmax(classifier.predict(x, verbose=0), axis=-1)

        top_class(tf.ones([4, 5]))
        """,
        "top_class",
        True,
        field="has_eager_only_calls",
    ),
    case(
        "predict-on-loaded-keras-model",
        """
        import tensorflow as tf

        model = tf.keras.models.load_model("classifier.keras")

        def top_class(x):
            return tf.argmax(model.predict(x, verbose=0), axis=-1)

        top_class(tf.ones([4, 5]))
        """,
        "top_class",
        True,
        field="has_eager_only_calls",
    ),
    case(
        "numpy-method-on-module-variable",
        """
        import tensorflow as tf

        threshold = tf.Variable(0.5)

        def above(x):
            return tf.cast(x > threshold.numpy(), tf.float32)

        above(tf.ones([3]))
        """,
        "above",
        True,
        field="has_eager_only_calls",
    ),
    case(
        "numpy-method-on-local-constant",
        """
        import tensorflow as tf

        def scale(x):
            factor = tf.constant(2.0).numpy()
            return x * factor

        scale(tf.ones([3]))
        """,
        "scale",
        True,
        field="has_eager_only_calls",
    ),
    case(
        "user-class-with-keras-method-names",
        """
        import tensorflow as tf

        class Trainer:
            def fit(self, x):
                return tf.reduce_mean(x)

            def train_on_batch(self, x, y):
                return tf.reduce_mean(tf.square(x - y))

        trainer = Trainer()

        def step(x, y):
            return trainer.train_on_batch(x, y) + trainer.fit(x)

        step(tf.ones([4, 3]), tf.ones([4, 3]))
        """,
        "step",
        False,
        field="has_eager_only_calls",
    ),
    case(
        "eager-only-failure-code",
        KERAS_MODEL
        + """
        def batch_scores(x):
            return tf.nn.sigmoid(model.predict_on_batch(x))

        batch_scores(tf.ones([4, 3]))
        """,
        "batch_scores",
        True,
        field="failure:has_eager_only_calls",
    ),
    # --- NumPy and SciPy on parameter-derived values --------------------------------------
    case(
        "np-asarray-of-parameter",
        """
        import numpy as np
        import tensorflow as tf

        def to_host(x):
            return tf.constant(np.asarray(x) * 2.0)

        to_host(tf.ones([3]))
        """,
        "to_host",
        True,
        field="has_numpy_calls_on_parameters",
    ),
    case(
        "scipy-special-on-parameter",
        """
        import tensorflow as tf
        from scipy import special

        def squash(x):
            return tf.convert_to_tensor(special.expit(x))

        squash(tf.ones([3]))
        """,
        "squash",
        True,
        field="has_numpy_calls_on_parameters",
    ),
    case(
        "np-on-tf-result-of-parameter",
        """
        import numpy as np
        import tensorflow as tf

        def partition(x):
            return np.exp(tf.reduce_sum(x))

        partition(tf.ones([3]))
        """,
        "partition",
        True,
        field="has_numpy_calls_on_parameters",
    ),
    case(
        "np-on-second-parameter",
        """
        import numpy as np
        import tensorflow as tf

        def blend(x, w):
            return x * np.tanh(w)

        blend(tf.ones([3]), tf.ones([3]))
        """,
        "blend",
        True,
        field="has_numpy_calls_on_parameters",
    ),
    case(
        "np-finfo-of-parameter-dtype",
        """
        import numpy as np
        import tensorflow as tf

        def safe_log(x):
            eps = np.finfo(x.dtype.as_numpy_dtype).eps
            return tf.math.log(x + eps)

        safe_log(tf.ones([3]))
        """,
        "safe_log",
        False,
        field="has_numpy_calls_on_parameters",
    ),
    case(
        "np-sqrt-of-static-axis",
        """
        import numpy as np
        import tensorflow as tf

        def scaled_scores(q, k):
            return tf.matmul(q, k, transpose_b=True) / np.sqrt(q.shape[-1])

        scaled_scores(tf.ones([2, 5, 8]), tf.ones([2, 5, 8]))
        """,
        "scaled_scores",
        False,
        field="has_numpy_calls_on_parameters",
    ),
    # --- name= arguments ------------------------------------------------------------------
    case(
        "int-in-positional-name-slot-of-reduce-sum",
        """
        import tensorflow as tf

        def column_totals(x):
            return tf.reduce_sum(x, 0, False, 3)

        column_totals(tf.ones([4, 3]))
        """,
        "column_totals",
        True,
        field="has_invalid_name_arguments",
    ),
    case(
        "alpha-passed-as-relu-name",
        """
        import tensorflow as tf

        def leaky(x):
            return tf.nn.relu(x, 0.2)

        leaky(tf.ones([3]))
        """,
        "leaky",
        True,
        field="has_invalid_name_arguments",
    ),
    case(
        "epsilon-passed-as-maximum-name",
        """
        import tensorflow as tf

        def clamp_positive(x):
            return tf.math.maximum(x, 0.0, 1e-6)

        clamp_positive(tf.ones([3]))
        """,
        "clamp_positive",
        True,
        field="has_invalid_name_arguments",
    ),
    case(
        "name-none",
        """
        import tensorflow as tf

        def root(x):
            return tf.sqrt(x, name=None)

        root(tf.ones([3]))
        """,
        "root",
        False,
        field="has_invalid_name_arguments",
    ),
    case(
        "name-f-string",
        """
        import tensorflow as tf

        def stacked(x):
            for i in range(3):
                x = tf.nn.relu(x, name=f"relu_{i}")
            return x

        stacked(tf.ones([3]))
        """,
        "stacked",
        False,
        field="has_invalid_name_arguments",
    ),
    case(
        "name-module-string-constant",
        """
        import tensorflow as tf

        OUTPUT_NAME = "logits"

        def logits(x):
            return tf.identity(x, name=OUTPUT_NAME)

        logits(tf.ones([3]))
        """,
        "logits",
        False,
        field="has_invalid_name_arguments",
    ),
    case(
        "matmul-positional-transpose-flags",
        """
        import tensorflow as tf

        def gram(a, b):
            return tf.matmul(a, b, False, True)

        gram(tf.ones([4, 3]), tf.ones([5, 3]))
        """,
        "gram",
        False,
        field="has_invalid_name_arguments",
    ),
    # --- stale variable reads -------------------------------------------------------------
    case(
        "stale-read-fed-to-gradient-only",
        TRAINING
        + """
        def gradient_norm(x, y):
            variables = model.trainable_variables
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x) - y))
            grads = tape.gradient(loss, variables)
            return tf.linalg.global_norm(grads)

        gradient_norm(tf.ones([4, 3]), tf.ones([4, 1]))
        """,
        "gradient_norm",
        True,
        field="has_stale_variable_reads",
    ),
    case(
        "inline-reads-after-the-call",
        TRAINING
        + """
        def fit_batch(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x) - y))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss

        fit_batch(tf.ones([4, 3]), tf.ones([4, 1]))
        """,
        "fit_batch",
        False,
        field="has_stale_variable_reads",
    ),
    case(
        "stale-snapshot-fed-to-apply-gradients",
        TRAINING
        + """
        def fit_batch(x, y):
            variables = model.trainable_variables
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x) - y))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, variables))
            return loss

        fit_batch(tf.ones([4, 3]), tf.ones([4, 1]))
        """,
        "fit_batch",
        True,
        field="has_stale_variable_reads",
    ),
    # --- Python iteration over tensor parameters ------------------------------------------
    case(
        "comprehension-over-tensor-parameter",
        """
        import tensorflow as tf

        def row_sums(x):
            return tf.stack([tf.reduce_sum(row) for row in x])

        row_sums(tf.ones([3, 2]))
        """,
        "row_sums",
        True,
        field="has_tensor_parameter_iteration",
    ),
    case(
        "enumerate-over-tensor-parameter",
        """
        import tensorflow as tf

        def weighted_total(x):
            total = tf.zeros([2])
            for i, row in enumerate(x):
                total += row * float(i)
            return total

        weighted_total(tf.ones([3, 2]))
        """,
        "weighted_total",
        True,
        field="has_tensor_parameter_iteration",
    ),
    case(
        "zip-over-two-tensor-parameters",
        """
        import tensorflow as tf

        def pairwise_dots(a, b):
            dots = []
            for u, v in zip(a, b):
                dots.append(tf.tensordot(u, v, axes=1))
            return tf.stack(dots)

        pairwise_dots(tf.ones([3, 4]), tf.ones([3, 4]))
        """,
        "pairwise_dots",
        True,
        field="has_tensor_parameter_iteration",
    ),
    case(
        "items-of-dict-of-tensors",
        """
        import tensorflow as tf

        def total_loss(losses):
            total = tf.zeros([])
            for _, value in losses.items():
                total += value
            return total

        total_loss({"ce": tf.constant(0.3), "l2": tf.constant(0.01)})
        """,
        "total_loss",
        False,
        field="has_tensor_parameter_iteration",
    ),
    case(
        "tuple-of-tensors",
        """
        import tensorflow as tf

        def concat_all(parts):
            out = []
            for p in parts:
                out.append(tf.reshape(p, [-1]))
            return tf.concat(out, axis=0)

        concat_all((tf.ones([2, 2]), tf.zeros([3])))
        """,
        "concat_all",
        False,
        field="has_tensor_parameter_iteration",
    ),
    case(
        "dataset-parameter",
        """
        import tensorflow as tf

        def dataset_total(ds):
            total = tf.zeros([])
            for batch in ds:
                total += tf.reduce_sum(batch)
            return total

        dataset_total(tf.data.Dataset.from_tensor_slices(tf.ones([8, 2])).batch(4))
        """,
        "dataset_total",
        False,
        field="has_tensor_parameter_iteration",
    ),
    # --- dtype coercions that only eager execution performs -------------------------------
    case(
        "numpy-random-float64-meets-float32-parameter",
        """
        import numpy as np
        import tensorflow as tf

        def weighted(x, w):
            return tf.reduce_sum(x * w)

        weighted(np.random.rand(4, 3), tf.ones([4, 3]))
        """,
        "weighted",
        True,
        field="has_conflicting_eager_dtype_coercions",
    ),
    case(
        "numpy-float64-array-meets-body-float32",
        """
        import numpy as np
        import tensorflow as tf

        def shift(x):
            return x + tf.ones([3])

        shift(np.array([1.0, 2.0, 3.0]))
        """,
        "shift",
        True,
        field="has_conflicting_eager_dtype_coercions",
    ),
    case(
        "float32-and-float64-sites-meet-module-variable",
        """
        import numpy as np
        import tensorflow as tf

        w = tf.Variable(tf.ones([3]))

        def apply(x):
            return x * w

        apply(tf.ones([3]))
        apply(np.ones(3))
        """,
        "apply",
        True,
        field="has_conflicting_eager_dtype_coercions",
    ),
    case(
        "numpy-float32-arrays",
        """
        import numpy as np
        import tensorflow as tf

        def weighted(x, w):
            return tf.reduce_sum(x * w)

        weighted(np.zeros((4, 3), dtype=np.float32), tf.ones([4, 3]))
        """,
        "weighted",
        False,
        field="has_conflicting_eager_dtype_coercions",
    ),
    case(
        "numpy-astype-float32",
        """
        import numpy as np
        import tensorflow as tf

        def shift(x):
            return x + tf.ones([3])

        shift(np.ones(3).astype(np.float32))
        """,
        "shift",
        False,
        field="has_conflicting_eager_dtype_coercions",
    ),
    case(
        "module-numpy-constant-in-body",
        """
        import numpy as np
        import tensorflow as tf

        BIAS = np.ones(3)

        def add_bias(x):
            return x + BIAS

        add_bias(tf.ones([3]))
        """,
        "add_bias",
        False,
        field="has_conflicting_eager_dtype_coercions",
    ),
    case(
        "float64-parameter-without-partner",
        """
        import numpy as np
        import tensorflow as tf

        def total(x):
            return tf.reduce_sum(x)

        total(np.ones(3))
        """,
        "total",
        False,
        field="has_conflicting_eager_dtype_coercions",
    ),
    # --- Keras symbolic arguments ---------------------------------------------------------
    case(
        "keras-layers-input",
        """
        import tensorflow as tf

        def head(x):
            return tf.keras.layers.Dense(10)(x)

        inputs = tf.keras.layers.Input(shape=(32,))
        model = tf.keras.Model(inputs, head(inputs))
        """,
        "head",
        True,
        field="has_keras_symbolic_arguments",
    ),
    case(
        "standalone-keras-input",
        """
        import keras

        def head(x):
            return keras.layers.Dense(10)(x)

        inputs = keras.Input(shape=(16,))
        model = keras.Model(inputs, head(inputs))
        """,
        "head",
        True,
        field="has_keras_symbolic_arguments",
    ),
    case(
        "input-inside-builder-function",
        """
        import tensorflow as tf

        def block(x):
            return tf.keras.layers.Dense(8, activation="relu")(x)

        def build_model():
            inputs = tf.keras.Input(shape=(4,))
            return tf.keras.Model(inputs, block(inputs))

        model = build_model()
        """,
        "block",
        True,
        field="has_keras_symbolic_arguments",
    ),
    case(
        "concatenated-inputs",
        """
        import tensorflow as tf

        def head(h):
            return tf.keras.layers.Dense(1)(h)

        left = tf.keras.Input(shape=(4,))
        right = tf.keras.Input(shape=(6,))
        merged = tf.keras.layers.Concatenate()([left, right])
        model = tf.keras.Model([left, right], head(merged))
        """,
        "head",
        True,
        field="has_keras_symbolic_arguments",
    ),
    case(
        "functional-model-applied-to-real-data",
        """
        import tensorflow as tf

        inputs = tf.keras.Input(shape=(4,))
        model = tf.keras.Model(inputs, tf.keras.layers.Dense(2)(inputs))

        def postprocess(logits):
            return tf.nn.softmax(logits)

        postprocess(model(tf.ones([3, 4])))
        """,
        "postprocess",
        False,
        field="has_keras_symbolic_arguments",
    ),
    # --- tensor computation ---------------------------------------------------------------
    case(
        "numpy-on-constants-returns-parameter",
        """
        import numpy as np
        import tensorflow as tf

        def with_grid(x):
            grid = np.linspace(0.0, 1.0, 5)
            return x, grid

        with_grid(tf.ones([5]))
        """,
        "with_grid",
        False,
        field="has_tensor_computation",
    ),
    case(
        "dtype-property-only",
        """
        import tensorflow as tf

        def needs_cast(x):
            return not x.dtype.is_floating

        needs_cast(tf.ones([3]))
        """,
        "needs_cast",
        False,
        field="has_tensor_computation",
    ),
    case(
        "tf-cast-only",
        """
        import tensorflow as tf

        def to_float(x):
            return tf.cast(x, tf.float32)

        to_float(tf.constant([1, 2]))
        """,
        "to_float",
        True,
        field="has_tensor_computation",
    ),
    case(
        "keras-activation-function",
        """
        import tensorflow as tf

        def activate(x):
            return tf.keras.activations.relu(x)

        activate(tf.ones([3]))
        """,
        "activate",
        True,
        field="has_tensor_computation",
    ),
    case(
        "tf-submodule-imported-by-name",
        """
        import tensorflow as tf
        from tensorflow import math as tfm

        def energy(x):
            return tfm.reduce_sum(tfm.square(x))

        energy(tf.ones([3]))
        """,
        "energy",
        True,
        field="has_tensor_computation",
    ),
    # --- covered callers ------------------------------------------------------------------
    case(
        "helper-of-hybrid-method",
        """
        import tensorflow as tf

        class Encoder(tf.Module):
            @tf.function
            def __call__(self, x):
                return self._project(x)

            def _project(self, x):
                return tf.nn.relu(x)

        encoder = Encoder()
        encoder(tf.ones([2, 3]))
        """,
        "Encoder._project",
        True,
        field="caller_covered",
    ),
    case(
        "helper-of-hybrid-in-other-module",
        {
            "layers.py": "import tensorflow as tf\n\n\ndef squash(x):\n    return tf.tanh(x)\n",
            "main.py": "import tensorflow as tf\n\nfrom layers import squash\n\n\n"
            "@tf.function\ndef forward(x):\n    return squash(x) * 2.0\n\n\n"
            "forward(tf.ones([3]))\n",
        },
        "layers.py::squash",
        True,
        field="caller_covered",
    ),
    case(
        "hybrid-caller-and-test-caller",
        """
        import tensorflow as tf

        def squash(x):
            return tf.tanh(x)

        @tf.function
        def forward(x):
            return squash(x) * 2.0

        forward(tf.ones([3]))

        def test_squash_is_bounded():
            assert tf.reduce_max(squash(tf.ones([3]))) < 1.0
        """,
        "squash",
        False,
        field="caller_covered",
    ),
    case(
        "covered-failure-code",
        """
        import tensorflow as tf

        class Encoder(tf.Module):
            @tf.function
            def __call__(self, x):
                return self._project(x)

            def _project(self, x):
                return tf.nn.relu(x)

        encoder = Encoder()
        encoder(tf.ones([2, 3]))
        """,
        "Encoder._project",
        True,
        field="failure:has_covered_callers",
    ),
]


@pytest.mark.parametrize(("files", "qualname", "field", "expected"), CASES)
def test_safety_fact(files, qualname, field, expected):
    assert field_value(verdict(files, qualname), field) is expected
