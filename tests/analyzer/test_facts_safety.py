"""Safety facts (docs/verdicts.md section 1): code that works eagerly but breaks under tracing."""

from __future__ import annotations

import pytest
from facts_helpers import case, field_value, verdict

KERAS_MODEL = """
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        model.compile(optimizer="adam", loss="mse")
"""

CASES = [
    # --- eager-only calls -----------------------------------------------------------------
    case(
        "numpy-method-in-body",
        """
        import tensorflow as tf

        def mean_as_float(x):
            return float(tf.reduce_mean(x).numpy())

        mean_as_float(tf.ones([3]))
        """,
        "mean_as_float",
        True,
        field="has_eager_only_calls",
    ),
    case(
        "keras-model-fit",
        KERAS_MODEL
        + """
        def fit_on(x, y):
            model.fit(x, y, epochs=1, verbose=0)
            return tf.reduce_mean(x)

        fit_on(tf.ones([4, 3]), tf.ones([4, 1]))
        """,
        "fit_on",
        True,
        field="has_eager_only_calls",
    ),
    case(
        "keras-model-predict",
        KERAS_MODEL
        + """
        def scores(x):
            return tf.nn.sigmoid(model.predict(x, verbose=0))

        scores(tf.ones([4, 3]))
        """,
        "scores",
        True,
        field="has_eager_only_calls",
    ),
    case(
        "keras-model-train-on-batch",
        KERAS_MODEL
        + """
        def one_update(x, y):
            return tf.constant(model.train_on_batch(x, y))

        one_update(tf.ones([4, 3]), tf.ones([4, 1]))
        """,
        "one_update",
        True,
        field="has_eager_only_calls",
    ),
    case(
        "numpy-method-on-parameter",
        """
        import tensorflow as tf

        def to_list(x):
            return x.numpy().tolist()

        to_list(tf.ones([3]))
        """,
        "to_list",
        True,
        field="has_eager_only_calls",
    ),
    case(
        "keras-model-evaluate",
        KERAS_MODEL
        + """
        def quality(x, y):
            return tf.constant(model.evaluate(x, y, verbose=0))

        quality(tf.ones([4, 3]), tf.ones([4, 1]))
        """,
        "quality",
        True,
        field="has_eager_only_calls",
    ),
    case(
        "user-class-with-predict-method",
        """
        import tensorflow as tf

        class Forecaster:
            def predict(self, x):
                return tf.reduce_mean(x, axis=0)

        forecaster = Forecaster()

        def forecast(x):
            return forecaster.predict(x) * 2.0

        forecast(tf.ones([4, 3]))
        """,
        "forecast",
        False,
        field="has_eager_only_calls",
    ),
    case(
        "keras-model-called-directly",
        KERAS_MODEL
        + """
        def scores(x):
            return tf.nn.sigmoid(model(x, training=False))

        scores(tf.ones([4, 3]))
        """,
        "scores",
        False,
        field="has_eager_only_calls",
    ),
    # --- NumPy on parameters --------------------------------------------------------------
    case(
        "np-mean-on-tensor-parameter",
        """
        import numpy as np
        import tensorflow as tf

        def center(x):
            return x - np.mean(x)

        center(tf.ones([3]))
        """,
        "center",
        True,
        field="has_numpy_calls_on_parameters",
    ),
    case(
        "np-call-on-value-derived-from-parameter",
        """
        import numpy as np
        import tensorflow as tf

        def peak(x):
            y = tf.abs(x)
            return np.max(y)

        peak(tf.ones([3]))
        """,
        "peak",
        True,
        field="has_numpy_calls_on_parameters",
    ),
    case(
        "np-array-of-parameter",
        """
        import numpy as np
        import tensorflow as tf

        def as_numpy_sum(x):
            return tf.constant(np.array(x).sum())

        as_numpy_sum(tf.ones([3]))
        """,
        "as_numpy_sum",
        True,
        field="has_numpy_calls_on_parameters",
    ),
    case(
        "dtype-and-shape-reads",
        """
        import tensorflow as tf

        def flatten(x):
            return tf.reshape(tf.cast(x, x.dtype), [-1, x.shape[-1]])

        flatten(tf.ones([2, 3, 4]))
        """,
        "flatten",
        False,
        field="has_numpy_calls_on_parameters",
    ),
    case(
        "np-on-constants-only",
        """
        import numpy as np
        import tensorflow as tf

        def scale(x):
            return x * np.float32(np.pi)

        scale(tf.ones([3]))
        """,
        "scale",
        False,
        field="has_numpy_calls_on_parameters",
    ),
    # --- name= arguments ------------------------------------------------------------------
    case(
        "name-int-constant",
        """
        import tensorflow as tf

        def tagged(x):
            return tf.identity(x, name=3)

        tagged(tf.ones([3]))
        """,
        "tagged",
        True,
        field="has_invalid_name_arguments",
    ),
    case(
        "name-dtype-keyword",
        """
        import tensorflow as tf

        def root(x):
            return tf.sqrt(x, name=tf.float32)

        root(tf.ones([3]))
        """,
        "root",
        True,
        field="has_invalid_name_arguments",
    ),
    case(
        "name-dtype-positional",
        """
        import tensorflow as tf

        def root(x):
            return tf.sqrt(x, tf.float32)

        root(tf.ones([3]))
        """,
        "root",
        True,
        field="has_invalid_name_arguments",
    ),
    case(
        "name-string",
        """
        import tensorflow as tf

        def root(x):
            return tf.sqrt(x, name="ok")

        root(tf.ones([3]))
        """,
        "root",
        False,
        field="has_invalid_name_arguments",
    ),
    case(
        "dtype-in-dtype-position",
        """
        import tensorflow as tf

        def to_half(x):
            return tf.cast(x, tf.float16)

        to_half(tf.ones([3]))
        """,
        "to_half",
        False,
        field="has_invalid_name_arguments",
    ),
    case(
        "generator-function",
        """
        import tensorflow as tf

        def rows(x):
            for row in tf.unstack(x):
                yield tf.square(row)

        for r in rows(tf.ones([3, 2])):
            pass
        """,
        "rows",
        True,
        field="has_eager_only_calls",
    ),
    # Variables made anew on every call: a tf.function may create them on its first trace only.
    case(
        "layer-made-and-called-per-call",
        """
        import tensorflow as tf

        def project(x):
            dense = tf.keras.layers.Dense(4)
            return dense(x)

        project(tf.ones([2, 3]))
        """,
        "project",
        True,
        field="has_eager_only_calls",
    ),
    case(
        "metric-made-per-call",
        """
        import tensorflow as tf

        def mean_metric(values):
            m = tf.keras.metrics.Mean()
            m.update_state(values)
            return m.result()

        mean_metric(tf.ones([3]))
        """,
        "mean_metric",
        True,
        field="has_eager_only_calls",
    ),
    case(
        "variable-made-from-a-parameter",
        """
        import tensorflow as tf

        def running_sum(x):
            acc = tf.Variable(tf.zeros_like(x))
            acc.assign_add(x)
            return acc.read_value()

        running_sum(tf.ones([3]))
        """,
        "running_sum",
        True,
        field="has_eager_only_calls",
    ),
    case(
        "layer-kept-on-self-is-the-singleton-pattern",
        """
        import tensorflow as tf

        class Head:
            def __init__(self):
                self.dense = None

            def apply(self, x):
                if self.dense is None:
                    self.dense = tf.keras.layers.Dense(4)
                return self.dense(x)

        Head().apply(tf.ones([2, 3]))
        """,
        "Head.apply",
        False,
        field="has_eager_only_calls",
    ),
    case(
        "model-factory-from-python-values",
        """
        import tensorflow as tf

        def build(units):
            return tf.keras.Sequential([tf.keras.layers.Dense(units)])

        build(4)
        """,
        "build",
        False,
        field="has_eager_only_calls",
    ),
    # Names computed from objects are strings the analysis cannot type: no finding.
    case(
        "name-from-a-metric-attribute",
        """
        import tensorflow as tf

        loss_metric = tf.keras.metrics.Mean(name="loss")

        def log_metric(metric, step):
            tf.summary.scalar(metric.name, metric.result(), step=step)

        log_metric(loss_metric, tf.constant(1, tf.int64))
        """,
        "log_metric",
        False,
        field="has_invalid_name_arguments",
    ),
    case(
        "name-from-variable-names",
        """
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Dense(2)])

        def log_weights(step):
            for var in model.trainable_variables:
                tf.summary.histogram(var.name, var, step=step)

        log_weights(tf.constant(0, tf.int64))
        """,
        "log_weights",
        False,
        field="has_invalid_name_arguments",
    ),
    case(
        "name-from-a-string-method",
        """
        import tensorflow as tf

        def named_sum(x, label):
            return tf.reduce_sum(x, name=label.upper())

        named_sum(tf.ones([3]), "total")
        """,
        "named_sum",
        False,
        field="has_invalid_name_arguments",
    ),
    case(
        "float-name-is-invalid",
        """
        import tensorflow as tf

        def f(x):
            return tf.identity(x, name=1.5)

        f(tf.ones([3]))
        """,
        "f",
        True,
        field="has_invalid_name_arguments",
    ),
    # --- iteration over tensor parameters -------------------------------------------------
    case(
        "for-over-tensor-parameter",
        """
        import tensorflow as tf

        def row_sums(x):
            total = tf.zeros([])
            for row in x:
                total += tf.reduce_sum(row)
            return total

        row_sums(tf.ones([3, 2]))
        """,
        "row_sums",
        True,
        field="has_tensor_parameter_iteration",
    ),
    case(
        "for-over-list-of-tensors",
        """
        import tensorflow as tf

        def total(parts):
            out = tf.zeros([2])
            for p in parts:
                out += p
            return out

        total([tf.ones([2]), tf.ones([2])])
        """,
        "total",
        False,
        field="has_tensor_parameter_iteration",
    ),
    case(
        "for-over-tf-range",
        """
        import tensorflow as tf

        def row_sums(x):
            total = tf.zeros([])
            for i in tf.range(tf.shape(x)[0]):
                total += tf.reduce_sum(x[i])
            return total

        row_sums(tf.ones([3, 2]))
        """,
        "row_sums",
        False,
        field="has_tensor_parameter_iteration",
    ),
    case(
        "for-over-unstacked-parameter",
        """
        import tensorflow as tf

        def row_sums(x):
            return tf.stack([tf.reduce_sum(row) for row in tf.unstack(x)])

        row_sums(tf.ones([3, 2]))
        """,
        "row_sums",
        False,
        field="has_tensor_parameter_iteration",
    ),
    case(
        "for-over-python-range",
        """
        import tensorflow as tf

        def powers(x):
            out = []
            for k in range(3):
                out.append(tf.pow(x, k))
            return tf.stack(out)

        powers(tf.ones([2]))
        """,
        "powers",
        False,
        field="has_tensor_parameter_iteration",
    ),
    # --- stale variable snapshots ---------------------------------------------------------
    case(
        "trainable-variables-read-before-first-call",
        """
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        optimizer = tf.keras.optimizers.Adam()

        def fit_batch(x, y):
            variables = model.trainable_variables
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x) - y))
            grads = tape.gradient(loss, variables)
            optimizer.apply_gradients(zip(grads, variables))
            return loss

        fit_batch(tf.ones([4, 3]), tf.ones([4, 1]))
        """,
        "fit_batch",
        True,
        field="has_stale_variable_reads",
    ),
    case(
        "trainable-variables-read-after-call",
        """
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        optimizer = tf.keras.optimizers.Adam()

        def fit_batch(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x) - y))
            variables = model.trainable_variables
            grads = tape.gradient(loss, variables)
            optimizer.apply_gradients(zip(grads, variables))
            return loss

        fit_batch(tf.ones([4, 3]), tf.ones([4, 1]))
        """,
        "fit_batch",
        False,
        field="has_stale_variable_reads",
    ),
    case(
        "stale-read-fed-to-minimize",
        """
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        optimizer = tf.keras.optimizers.SGD(0.1)

        def fit_batch(x, y):
            variables = model.trainable_variables
            loss = lambda: tf.reduce_mean(tf.square(model(x) - y))
            optimizer.minimize(loss, variables)
            return loss()

        fit_batch(tf.ones([4, 3]), tf.ones([4, 1]))
        """,
        "fit_batch",
        True,
        field="has_stale_variable_reads",
    ),
    # --- dtype coercions ------------------------------------------------------------------
    case(
        "float32-and-float64-partners",
        """
        import numpy as np
        import tensorflow as tf

        def scale(x, w):
            return x * w

        scale(np.ones(3), tf.ones(3))
        scale(tf.ones(3), tf.ones(3))
        """,
        "scale",
        True,
        field="has_conflicting_eager_dtype_coercions",
    ),
    case(
        "float32-everywhere",
        """
        import tensorflow as tf

        def scale(x, w):
            return x * w

        scale(tf.ones(3), tf.ones(3))
        scale(tf.zeros(3), tf.ones(3))
        """,
        "scale",
        False,
        field="has_conflicting_eager_dtype_coercions",
    ),
    # --- Keras symbolic arguments ---------------------------------------------------------
    case(
        "layer-output-of-keras-input",
        """
        import tensorflow as tf

        def head(h):
            return tf.keras.layers.Dense(10)(h)

        inputs = tf.keras.Input(shape=(32,))
        hidden = tf.keras.layers.Dense(64, activation="relu")(inputs)
        model = tf.keras.Model(inputs, head(hidden))
        """,
        "head",
        True,
        field="has_keras_symbolic_arguments",
    ),
    case(
        "keras-input-directly",
        """
        import tensorflow as tf

        def mlp_block(x):
            x = tf.keras.layers.Dense(64, activation="relu")(x)
            return tf.keras.layers.Dense(10)(x)

        inputs = tf.keras.Input(shape=(32,))
        model = tf.keras.Model(inputs, mlp_block(inputs))
        """,
        "mlp_block",
        True,
        field="has_keras_symbolic_arguments",
    ),
    case(
        "keras-input-from-other-module",
        {
            "blocks.py": "import tensorflow as tf\n\n\ndef head(h):\n"
            "    return tf.keras.layers.Dense(10)(h)\n",
            "model.py": "import tensorflow as tf\n\nfrom blocks import head\n\n"
            "inputs = tf.keras.Input(shape=(32,))\n"
            "model = tf.keras.Model(inputs, head(inputs))\n",
        },
        "blocks.py::head",
        True,
        field="has_keras_symbolic_arguments",
    ),
    case(
        "real-tensors-only",
        """
        import tensorflow as tf

        hidden = tf.keras.layers.Dense(64, activation="relu")

        def mlp_block(x):
            return hidden(x)

        mlp_block(tf.ones([8, 32]))
        """,
        "mlp_block",
        False,
        field="has_keras_symbolic_arguments",
    ),
]


@pytest.mark.parametrize(("files", "qualname", "field", "expected"), CASES)
def test_safety_fact(files, qualname, field, expected):
    assert field_value(verdict(files, qualname), field) is expected
