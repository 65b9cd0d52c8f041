"""`is_hybrid`, `decorator_args` and the decision tables of docs/verdicts.md section 2."""

from __future__ import annotations

import pytest
from facts_helpers import case, decorator_args, field_value, verdict

IS_HYBRID = [
    case(
        "tf-function-decorator",
        """
        import tensorflow as tf

        @tf.function
        def forward(x):
            return tf.nn.relu(x)
        """,
        "forward",
        True,
    ),
    case(
        "tf-function-with-arguments",
        """
        import tensorflow as tf

        @tf.function(jit_compile=True)
        def forward(x):
            return tf.nn.relu(x)
        """,
        "forward",
        True,
    ),
    case(
        "from-tensorflow-import-function",
        """
        from tensorflow import function, nn

        @function
        def forward(x):
            return nn.relu(x)
        """,
        "forward",
        True,
    ),
    case(
        "import-tensorflow-unaliased",
        """
        import tensorflow

        @tensorflow.function
        def forward(x):
            return tensorflow.nn.relu(x)
        """,
        "forward",
        True,
    ),
    case(
        "other-alias",
        """
        import tensorflow as tfx

        @tfx.function(reduce_retracing=True)
        def forward(x):
            return tfx.nn.relu(x)
        """,
        "forward",
        True,
    ),
    case(
        "wildcard-import",
        """
        from tensorflow import *

        @function
        def forward(x):
            return nn.relu(x)
        """,
        "forward",
        True,
    ),
    case(
        "tf-function-wrapper-assignment",
        """
        import tensorflow as tf

        def forward(x):
            return tf.nn.relu(x)

        fast_forward = tf.function(forward)
        fast_forward(tf.ones([2]))
        """,
        "forward",
        True,
    ),
    case(
        "tf-function-called-immediately",
        """
        import tensorflow as tf

        def forward(x):
            return tf.nn.relu(x)

        y = tf.function(forward)(tf.ones([2]))
        """,
        "forward",
        True,
    ),
    case(
        "from-import-function-as-alias",
        """
        import tensorflow as tf
        from tensorflow import function as compiled

        @compiled
        def forward(x):
            return tf.nn.relu(x)
        """,
        "forward",
        True,
    ),
    case(
        "compat-v2-module",
        """
        import tensorflow.compat.v2 as tf

        @tf.function
        def forward(x):
            return tf.nn.relu(x)
        """,
        "forward",
        True,
    ),
    case(
        "decorated-method",
        """
        import tensorflow as tf

        class Runner:
            @tf.function
            def step(self, x):
                return tf.nn.relu(x)
        """,
        "Runner.step",
        True,
    ),
    case(
        "undecorated",
        """
        import tensorflow as tf

        def forward(x):
            return tf.nn.relu(x)
        """,
        "forward",
        False,
    ),
    case(
        "user-decorator-named-function",
        """
        import tensorflow as tf

        def function(fn):
            return fn

        @function
        def forward(x):
            return tf.nn.relu(x)
        """,
        "forward",
        False,
    ),
    case(
        "other-decorator",
        """
        import functools

        import tensorflow as tf

        @functools.lru_cache(maxsize=None)
        def forward(x):
            return tf.nn.relu(x)
        """,
        "forward",
        False,
    ),
    # `torch.compile(model)` compiles the module's forward (the idiom at a construction site);
    # `tf.function(layer)` traces the layer's __call__, which runs its call.
    case(
        "torch-compile-of-a-module-instance",
        """
        import torch
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 2)

            def forward(self, x):
                return torch.relu(self.fc(x))

        model = Net()
        model = torch.compile(model)
        model(torch.ones(3, 4))
        """,
        "Net.forward",
        True,
    ),
    case(
        "torch-compile-of-a-subclass-instance-reaches-the-inherited-forward",
        """
        import torch
        from torch import nn

        class Base(nn.Module):
            def forward(self, x):
                return torch.relu(x)

        class Net(Base):
            pass

        fast = torch.compile(Net())
        fast(torch.ones(3, 4))
        """,
        "Base.forward",
        True,
    ),
    case(
        "tf-function-of-a-keras-layer-instance",
        """
        import tensorflow as tf

        class Scale(tf.keras.layers.Layer):
            def call(self, x):
                return x * 2.0

        layer = Scale()
        fast = tf.function(layer)
        fast(tf.ones([2]))
        """,
        "Scale.call",
        True,
    ),
    case(
        "module-instance-passed-to-another-call-is-not-compiled",
        """
        import torch
        from torch import nn

        class Net(nn.Module):
            def forward(self, x):
                return torch.relu(x)

        model = Net()
        params = list(model.parameters())
        model(torch.ones(3, 4))
        """,
        "Net.forward",
        False,
    ),
    case(
        "plain-class-instance-is-not-a-module",
        """
        import torch

        class Scaler:
            def forward(self, x):
                return x * 2

            def __call__(self, x):
                return self.forward(x)

        fast = torch.compile(Scaler())
        fast(torch.ones(3))
        """,
        "Scaler.forward",
        False,
    ),
    case(
        "torch-compile-of-a-callable-object-compiles-its-call",
        """
        import torch

        class Scaler:
            def __call__(self, x):
                return x * 2

        fast = torch.compile(Scaler())
        fast(torch.ones(3))
        """,
        "Scaler.__call__",
        True,
    ),
]

DECISIONS = [
    # --- eager functions ------------------------------------------------------------------
    case(
        "eager-p1-precondition",
        """
        import tensorflow as tf

        def mse(y, y_hat):
            return tf.reduce_mean(tf.square(y - y_hat))

        mse(tf.ones([3]), tf.zeros([3]))
        """,
        "mse",
        "P1",
        field="passing_precondition",
    ),
    case(
        "eager-p1-transformation",
        """
        import tensorflow as tf

        def mse(y, y_hat):
            return tf.reduce_mean(tf.square(y - y_hat))

        mse(tf.ones([3]), tf.zeros([3]))
        """,
        "mse",
        "convert_to_hybrid",
        field="transformation",
    ),
    case(
        "eager-refactoring-kind",
        """
        import tensorflow as tf

        def mse(y, y_hat):
            return tf.reduce_mean(tf.square(y - y_hat))

        mse(tf.ones([3]), tf.zeros([3]))
        """,
        "mse",
        "convert_eager_to_hybrid",
        field="refactoring",
    ),
    case(
        "speculative-train-step-passes-p1",
        """
        import tensorflow as tf

        def train_step(images, labels):
            return tf.reduce_mean(tf.square(images - labels))
        """,
        "train_step",
        "P1",
        field="passing_precondition",
    ),
    case(
        "uncalled-function-undeterminable",
        """
        import tensorflow as tf

        def clip(x):
            return tf.clip_by_norm(x, 1.0)
        """,
        "clip",
        ("undeterminable_tensor_parameter",),
        field="failures",
    ),
    case(
        "failures-in-decision-table-order",
        """
        import tensorflow as tf

        calls = 0

        def countdown(x, n):
            global calls
            calls += 1
            print("step", n)
            if n == 0:
                return tf.square(x).numpy()
            return countdown(x, n - 1)

        countdown(tf.ones([2]), 3)
        """,
        "countdown",
        (
            "has_primitive_parameters",
            "has_python_side_effects",
            "is_recursive",
            "has_eager_only_calls",
        ),
        field="failures",
    ),
    case(
        "failures-no-tensor-side-effect-no-computation",
        """
        import tensorflow as tf

        def banner():
            print("=" * 40)

        banner()
        """,
        "banner",
        ("has_no_tensor_parameters", "has_python_side_effects", "no_tensor_computation"),
        field="failures",
    ),
    case(
        "side-effect-reported-once-for-many-effects",
        """
        import logging
        import random

        import tensorflow as tf

        def noisy(x):
            print("a")
            print("b")
            logging.info("c")
            return x * random.random() + tf.ones_like(x)

        noisy(tf.ones([2]))
        """,
        "noisy",
        ("has_python_side_effects",),
        field="failures",
    ),
    case(
        "failing-eager-does-not-pass",
        """
        import tensorflow as tf

        def relu(x):
            print(x)
            return tf.nn.relu(x)

        relu(tf.ones([2]))
        """,
        "relu",
        False,
        field="passes",
    ),
    # --- hybrid functions -----------------------------------------------------------------
    case(
        "hybrid-p2-no-tensor-parameter",
        """
        import tensorflow as tf

        @tf.function
        def make_grid(n):
            return tf.reshape(tf.range(n * n), [n, n])

        make_grid(4)
        """,
        "make_grid",
        "P2",
        field="passing_precondition",
    ),
    case(
        "hybrid-p2-transformation",
        """
        import tensorflow as tf

        @tf.function
        def make_grid(n):
            return tf.reshape(tf.range(n * n), [n, n])

        make_grid(4)
        """,
        "make_grid",
        "convert_to_eager",
        field="transformation",
    ),
    case(
        "hybrid-refactoring-kind",
        """
        import tensorflow as tf

        @tf.function
        def make_grid(n):
            return tf.reshape(tf.range(n * n), [n, n])

        make_grid(4)
        """,
        "make_grid",
        "optimize_hybrid",
        field="refactoring",
    ),
    case(
        "hybrid-p2-method-without-parameters",
        """
        import tensorflow as tf

        class Grid:
            @tf.function
            def identity_matrix(self):
                return tf.eye(3)

        Grid().identity_matrix()
        """,
        "Grid.identity_matrix",
        "P2",
        field="passing_precondition",
    ),
    case(
        "hybrid-p3-tensor-and-literal",
        """
        import tensorflow as tf

        @tf.function
        def leaky(x, alpha):
            return tf.nn.leaky_relu(x, alpha=alpha)

        leaky(tf.ones([4]), 0.1)
        leaky(tf.ones([4]), 0.2)
        """,
        "leaky",
        "P3",
        field="passing_precondition",
    ),
    case(
        "hybrid-p3-through-wrapper",
        """
        import tensorflow as tf

        def leaky(x, alpha):
            return tf.nn.leaky_relu(x, alpha=alpha)

        fast_leaky = tf.function(leaky)
        fast_leaky(tf.ones([4]), 0.3)
        fast_leaky(tf.ones([4]), 0.1)
        """,
        "leaky",
        "P3",
        field="passing_precondition",
    ),
    case(
        "hybrid-p6-no-tensor-computation",
        """
        import tensorflow as tf

        @tf.function
        def as_features(image, label):
            return {"image": image, "label": label}

        as_features(tf.zeros([8, 8]), tf.zeros([1]))
        """,
        "as_features",
        "P6",
        field="passing_precondition",
    ),
    case(
        "hybrid-already-right-keep",
        """
        import tensorflow as tf

        @tf.function
        def mse(y, y_hat):
            return tf.reduce_mean(tf.square(y - y_hat))

        mse(tf.ones([3]), tf.zeros([3]))
        """,
        "mse",
        ("has_no_primitive_parameters",),
        field="failures",
    ),
    case(
        "hybrid-already-right-does-not-pass",
        """
        import tensorflow as tf

        @tf.function
        def mse(y, y_hat):
            return tf.reduce_mean(tf.square(y - y_hat))

        mse(tf.ones([3]), tf.zeros([3]))
        """,
        "mse",
        False,
        field="passes",
    ),
    case(
        "hybrid-side-effects-block",
        """
        import tensorflow as tf

        @tf.function
        def relu(x):
            print("tracing relu")
            return tf.nn.relu(x)

        relu(tf.ones([2]))
        """,
        "relu",
        ("has_python_side_effects",),
        field="failures",
    ),
    case(
        "hybrid-side-effects-block-p2",
        """
        import tensorflow as tf

        steps = []

        @tf.function
        def make_grid(n):
            steps.append(n)
            return tf.reshape(tf.range(n * n), [n, n])

        make_grid(4)
        """,
        "make_grid",
        None,
        field="transformation",
    ),
    case(
        "hybrid-side-effects-block-p3",
        """
        import tensorflow as tf

        @tf.function
        def leaky(x, alpha):
            print("tracing for", alpha)
            return tf.nn.leaky_relu(x, alpha=alpha)

        leaky(tf.ones([4]), 0.1)
        """,
        "leaky",
        False,
        field="passes",
    ),
    case(
        "wrapper-call-keyword-argument",
        """
        import tensorflow as tf

        def forward(x):
            return tf.nn.relu(x)

        fast_forward = tf.function(forward, jit_compile=True)
        fast_forward(tf.ones([2]))
        """,
        "forward",
        True,
        field="decorator_arg:jit_compile",
    ),
]

DECORATOR_ARGS = [
    case(
        "bare-decorator",
        """
        import tensorflow as tf

        @tf.function
        def forward(x):
            return tf.nn.relu(x)
        """,
        "forward",
        decorator_args(),
    ),
    case(
        "keyword-jit-compile",
        """
        import tensorflow as tf

        @tf.function(jit_compile=True)
        def forward(x):
            return tf.nn.relu(x)
        """,
        "forward",
        decorator_args(jit_compile=True),
    ),
    case(
        "keyword-signature-and-retracing",
        """
        import tensorflow as tf

        @tf.function(
            input_signature=[tf.TensorSpec([None, 3], tf.float32)],
            reduce_retracing=True,
        )
        def forward(x):
            return tf.nn.relu(x)
        """,
        "forward",
        decorator_args(input_signature=True, reduce_retracing=True),
    ),
    case(
        "positional-arguments",
        """
        import tensorflow as tf

        @tf.function(None, [tf.TensorSpec([None], tf.float32)], False)
        def forward(x):
            return tf.nn.relu(x)
        """,
        "forward",
        decorator_args(func=True, input_signature=True, autograph=True),
    ),
    case(
        "deprecated-experimental-relax-shapes",
        """
        import tensorflow as tf

        @tf.function(experimental_relax_shapes=True)
        def forward(x):
            return tf.nn.relu(x)
        """,
        "forward",
        decorator_args(reduce_retracing=True),
    ),
    case(
        "deprecated-experimental-compile",
        """
        import tensorflow as tf

        @tf.function(experimental_compile=True)
        def forward(x):
            return tf.nn.relu(x)
        """,
        "forward",
        decorator_args(jit_compile=True),
    ),
]


@pytest.mark.parametrize(("files", "qualname", "expected"), IS_HYBRID)
def test_is_hybrid(files, qualname, expected):
    assert verdict(files, qualname).facts.is_hybrid is expected


@pytest.mark.parametrize(("files", "qualname", "field", "expected"), DECISIONS)
def test_decision(files, qualname, field, expected):
    assert field_value(verdict(files, qualname), field) == expected


@pytest.mark.parametrize(("files", "qualname", "expected"), DECORATOR_ARGS)
def test_decorator_args(files, qualname, expected):
    assert verdict(files, qualname).facts.decorator_args == expected
