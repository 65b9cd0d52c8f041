"""The context of a decorator: when an existing one must stay, and where none is needed.

Keep (no HY011): an `input_signature` is a deliberate contract; a `tf.function` written in a
test exercises graph mode on purpose; a function without tensor parameters that computes on
variables, models or layers (calling a model or layer IS TensorFlow computation) gains from
the graph; a call of an unknown callable on tensors may be all the computation there is.

Covered (no HY010): code already traced by its caller: `tf.map_fn`/`tf.cond`/`tf.while_loop`
and `strategy.run` callbacks reached from compiled code, `Dataset.map` functions (tf.data
always traces them), Keras `train_step`/`test_step`/`predict_step` overrides (Keras compiles
them in `fit`/`evaluate`/`predict` unless the model runs eagerly), and the per-variable hooks
of a Keras optimizer (`update_step`, `_resource_apply_dense`...: `apply_gradients` runs them
inside Keras' compiled train function or the caller's own step).
"""

from __future__ import annotations

import pytest
from facts_helpers import case, field_value, verdict

CASES = [
    # --- keep an existing decorator -------------------------------------------------------
    case(
        "reads-a-module-variable",
        """
        import tensorflow as tf

        w = tf.Variable(tf.ones([3]))

        @tf.function
        def norm():
            return tf.sqrt(tf.reduce_sum(w * w))

        norm()
        """,
        "norm",
        None,
        field="transformation",
    ),
    case(
        "calls-a-model-held-by-a-closure",
        """
        import tensorflow as tf

        def make_predictor():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])

            @tf.function
            def predict(n):
                return model(tf.ones([n, 3]))

            return predict

        make_predictor()(4)
        """,
        "make_predictor.predict",
        None,
        field="transformation",
    ),
    case(
        "reads-self-variable",
        """
        import tensorflow as tf

        class Counter(tf.Module):
            def __init__(self):
                self.count = tf.Variable(0)

            @tf.function
            def bump(self):
                return self.count.assign_add(1)

        Counter().bump()
        """,
        "Counter.bump",
        None,
        field="transformation",
    ),
    case(
        "weights-of-a-model-argument",
        """
        import tensorflow as tf

        @tf.function
        def weight_norm(model):
            return tf.add_n([tf.reduce_sum(v * v) for v in model.trainable_variables])

        weight_norm(tf.keras.Sequential([tf.keras.layers.Dense(2)]))
        """,
        "weight_norm",
        ("has_no_primitive_parameters",),
        field="failures",
    ),
    case(
        "input-signature-is-deliberate",
        """
        import tensorflow as tf

        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        def copy(x):
            return x

        copy(tf.ones([3]))
        """,
        "copy",
        None,
        field="transformation",
    ),
    case(
        "defined-in-a-test-function",
        """
        import tensorflow as tf

        def test_graph_mode_matches():
            @tf.function
            def identity(x):
                return x

            assert identity(tf.ones([2])).shape == (2,)
        """,
        "test_graph_mode_matches.identity",
        None,
        field="transformation",
    ),
    case(
        "defined-in-a-test-case-class",
        """
        import tensorflow as tf

        class GraphTest(tf.test.TestCase):
            @tf.function
            def scale(self, x, k):
                return x * k

            def test_scale(self):
                self.assertAllEqual(self.scale(tf.ones([2]), 2.0), [2.0, 2.0])
                self.assertAllEqual(self.scale(tf.ones([2]), 3.0), [3.0, 3.0])
        """,
        "GraphTest.scale",
        None,
        field="transformation",
    ),
    case(
        "unknown-callable-on-tensors",
        """
        import sys

        import tensorflow as tf

        model = tf.saved_model.load(sys.argv[1])

        @tf.function
        def serve(x):
            return model.signatures["serving_default"](x)

        serve(tf.ones([1, 3]))
        """,
        "serve",
        None,
        field="transformation",
    ),
    case(
        "keep-reason-is-stated",
        """
        import tensorflow as tf

        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        def copy(x):
            return x

        copy(tf.ones([3]))
        """,
        "copy",
        {"HY005"},
        field="finding_codes",
    ),
    # --- removals that stay -----------------------------------------------------------------
    case(
        "constants-only-still-removed",
        """
        import tensorflow as tf

        @tf.function
        def grid(n):
            return tf.reshape(tf.range(n * n), [n, n])

        grid(4)
        """,
        "grid",
        "convert_to_eager",
        field="transformation",
    ),
    case(
        "test-helper-outside-a-test-still-removed",
        """
        import tensorflow as tf

        @tf.function
        def identity(x):
            return x

        def test_identity():
            assert identity(tf.ones([2])).shape == (2,)
        """,
        "identity",
        "convert_to_eager",
        field="transformation",
    ),
    # --- covered: already inside a graph ------------------------------------------------------
    case(
        "keras-train-step-is-compiled-by-fit",
        """
        import tensorflow as tf

        class Net(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.dense = tf.keras.layers.Dense(1)

            def call(self, x):
                return self.dense(x)

            def train_step(self, data):
                x, y = data
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean((self(x) - y) ** 2)
                grads = tape.gradient(loss, self.trainable_variables)
                self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
                return {"loss": loss}

        net = Net()
        net.compile(optimizer="sgd")
        net.fit(tf.ones([8, 3]), tf.ones([8, 1]), epochs=1)
        """,
        "Net.train_step",
        True,
        field="caller_covered",
    ),
    case(
        "keras-test-step-helper-is-covered",
        """
        import tensorflow as tf

        def mse(y, p):
            return tf.reduce_mean((y - p) ** 2)

        class Net(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.dense = tf.keras.layers.Dense(1)

            def call(self, x):
                return self.dense(x)

            def test_step(self, data):
                x, y = data
                return {"loss": mse(y, self(x))}
        """,
        "mse",
        True,
        field="caller_covered",
    ),
    case(
        "run-eagerly-keeps-train-step-eager",
        """
        import tensorflow as tf

        class Net(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.dense = tf.keras.layers.Dense(1)

            def call(self, x):
                return self.dense(x)

            def train_step(self, data):
                x, y = data
                return {"loss": tf.reduce_mean((self(x) - y) ** 2)}

        net = Net()
        net.compile(optimizer="sgd", run_eagerly=True)
        """,
        "Net.train_step",
        False,
        field="caller_covered",
    ),
    case(
        "run-eagerly-concerns-only-the-model-compiled-so",
        """
        import tensorflow as tf

        class Net(tf.keras.Model):
            def call(self, x):
                return x

            def train_step(self, data):
                x, y = data
                return {"loss": tf.reduce_mean((self(x) - y) ** 2)}

        class Debug(tf.keras.Model):
            def call(self, x):
                return x

        Net().compile(optimizer="sgd")
        Debug().compile(optimizer="sgd", run_eagerly=True)
        """,
        "Net.train_step",
        True,
        field="caller_covered",
    ),
    case(
        "run-eagerly-on-a-subclass-keeps-the-inherited-step-eager",
        """
        import tensorflow as tf

        class Net(tf.keras.Model):
            def call(self, x):
                return x

            def train_step(self, data):
                x, y = data
                return {"loss": tf.reduce_mean((self(x) - y) ** 2)}

        class Debug(Net):
            pass

        Debug().compile(optimizer="sgd", run_eagerly=True)
        """,
        "Net.train_step",
        False,
        field="caller_covered",
    ),
    case(
        "run-eagerly-set-on-self-keeps-the-step-eager",
        """
        import tensorflow as tf

        class Net(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.run_eagerly = True

            def call(self, x):
                return x

            def train_step(self, data):
                x, y = data
                return {"loss": tf.reduce_mean((self(x) - y) ** 2)}
        """,
        "Net.train_step",
        False,
        field="caller_covered",
    ),
    case(
        "run-eagerly-on-a-model-of-unknown-class-concerns-every-model",
        """
        import tensorflow as tf

        class Net(tf.keras.Model):
            def call(self, x):
                return x

            def train_step(self, data):
                x, y = data
                return {"loss": tf.reduce_mean((self(x) - y) ** 2)}

        def debug(model):
            model.compile(optimizer="sgd", run_eagerly=True)
        """,
        "Net.train_step",
        False,
        field="caller_covered",
    ),
    case(
        "a-run-eagerly-flag-definition-compiles-nothing-eagerly",
        """
        import tensorflow as tf
        from absl import flags

        def define_base(run_eagerly=False, train_epochs=False):
            if run_eagerly:
                flags.DEFINE_boolean("run_eagerly", False, "Run the model op by op.")

        class Net(tf.keras.Model):
            def call(self, x):
                return x

            def train_step(self, data):
                x, y = data
                return {"loss": tf.reduce_mean((self(x) - y) ** 2)}

        define_base(run_eagerly=True, train_epochs=True)
        """,
        "Net.train_step",
        True,
        field="caller_covered",
    ),
    case(
        "train-step-of-a-layer-is-not-keras-s",
        """
        import tensorflow as tf

        class Block(tf.keras.layers.Layer):
            def train_step(self, x):
                return tf.reduce_sum(x)
        """,
        "Block.train_step",
        False,
        field="caller_covered",
    ),
    case(
        "update-step-of-a-keras-optimizer-is-keras-s",
        """
        import tensorflow as tf

        class Clipped(tf.keras.optimizers.Optimizer):
            def update_step(self, grad: tf.Tensor, variable: tf.Variable, learning_rate):
                scale = tf.where(grad == 0.0, 1.0, tf.abs(grad))
                variable.assign_sub(tf.cast(learning_rate, variable.dtype) * grad * scale)
        """,
        "Clipped.update_step",
        True,
        field="caller_covered",
    ),
    case(
        "legacy-optimizer-apply-hook-is-keras-s",
        """
        import tensorflow as tf

        class Base(tf.keras.optimizers.legacy.Optimizer):
            pass

        class Sgd(Base):
            def _resource_apply_dense(self, grad: tf.Tensor, var: tf.Variable, apply_state=None):
                return var.assign_sub(0.1 * grad)
        """,
        "Sgd._resource_apply_dense",
        True,
        field="caller_covered",
    ),
    case(
        "update-step-of-a-plain-class-is-not-keras-s",
        """
        import tensorflow as tf

        class Updater:
            def update_step(self, grad: tf.Tensor, variable: tf.Variable):
                variable.assign_sub(0.1 * grad)
        """,
        "Updater.update_step",
        False,
        field="caller_covered",
    ),
    case(
        "map-fn-callback-of-compiled-code",
        """
        import tensorflow as tf

        def square(v):
            return v * v

        @tf.function
        def squares(x):
            return tf.map_fn(square, x)

        squares(tf.ones([3]))
        """,
        "square",
        True,
        field="caller_covered",
    ),
    case(
        "while-loop-body-of-compiled-code",
        """
        import tensorflow as tf

        def body(i, acc):
            return i + 1, acc * 2.0

        @tf.function
        def power(x):
            return tf.while_loop(lambda i, acc: i < 3, body, (tf.constant(0), x))

        power(tf.ones([2]))
        """,
        "body",
        True,
        field="caller_covered",
    ),
    case(
        "map-fn-callback-of-eager-code",
        """
        import tensorflow as tf

        def square(v):
            return v * v

        def squares(x):
            return tf.map_fn(square, x)

        squares(tf.ones([3]))
        """,
        "square",
        False,
        field="caller_covered",
    ),
    case(
        "dataset-map-function",
        """
        import tensorflow as tf

        def normalize(x):
            return x / tf.reduce_max(x)

        ds = tf.data.Dataset.from_tensor_slices(tf.ones([4, 3])).map(normalize)
        """,
        "normalize",
        ("has_covered_callers",),
        field="failures",
    ),
]


@pytest.mark.parametrize(("files", "qualname", "field", "expected"), CASES)
def test_decorator_context(files, qualname, field, expected):
    assert field_value(verdict(files, qualname), field) == expected
