"""`has_primitive_parameters`: Python literals at a call site force a retrace per value.

docs/verdicts.md section 1: some parameter receives only Python literals (int, float, str, or a
container of them) at some call site; booleans and `None` do not count, nor does a defaulted
parameter that no caller passes. Refined (hybridize/analyzer/facts/retracing.py): the literals must be able to
differ between calls, since one constant at every call traces once and then hits the cache;
so most cases here pass two different values.
"""

from __future__ import annotations

import pytest
from facts_helpers import case, verdict

CASES = [
    case(
        "int-literal",
        """
        import tensorflow as tf

        def top_k(x, k):
            return tf.math.top_k(x, k=k).values

        top_k(tf.random.normal([10]), 3)
        top_k(tf.random.normal([10]), 5)
        """,
        "top_k",
        True,
    ),
    case(
        "float-literal",
        """
        import tensorflow as tf

        def leaky(x, alpha):
            return tf.nn.leaky_relu(x, alpha=alpha)

        leaky(tf.ones([4]), 0.2)
        leaky(tf.ones([4]), 0.1)
        """,
        "leaky",
        True,
    ),
    case(
        "negative-int-literal",
        """
        import tensorflow as tf

        def roll(x, shift):
            return tf.roll(x, shift, axis=0)

        roll(tf.range(5), -1)
        roll(tf.range(5), 2)
        """,
        "roll",
        True,
    ),
    case(
        "str-literal",
        """
        import tensorflow as tf

        def activate(x, kind):
            return tf.nn.relu(x) if kind == "relu" else tf.nn.tanh(x)

        activate(tf.ones([3]), "tanh")
        activate(tf.ones([3]), "relu")
        """,
        "activate",
        True,
    ),
    case(
        "list-of-literals",
        """
        import tensorflow as tf

        def reshape_to(x, shape):
            return tf.reshape(x, shape)

        reshape_to(tf.range(6), [2, 3])
        reshape_to(tf.range(6), [3, 2])
        """,
        "reshape_to",
        True,
    ),
    case(
        "tuple-of-literals-by-keyword",
        """
        import tensorflow as tf

        def resize(images, size=(32, 32)):
            return tf.image.resize(images, size)

        resize(tf.zeros([1, 64, 64, 3]), size=(28, 28))
        resize(tf.zeros([1, 64, 64, 3]), size=(16, 16))
        """,
        "resize",
        True,
    ),
    case(
        "range-loop-variable",
        """
        import tensorflow as tf

        def power(x, n):
            return tf.pow(x, n)

        for n in range(1, 4):
            power(tf.constant(2.0), n)
        """,
        "power",
        True,
    ),
    case(
        "module-constant-holding-literal",
        """
        import tensorflow as tf

        LEARNING_RATE = 0.01
        FINE_TUNING_RATE = 0.001

        def sgd_update(w, g, lr):
            return w - lr * g

        sgd_update(tf.ones([3]), tf.ones([3]), LEARNING_RATE)
        sgd_update(tf.ones([3]), tf.ones([3]), FINE_TUNING_RATE)
        """,
        "sgd_update",
        True,
    ),
    case(
        "literal-passed-on-by-caller",
        """
        import tensorflow as tf

        def dropout(x, rate):
            return tf.nn.dropout(x, rate=rate)

        def block(x, rate):
            return dropout(tf.nn.relu(x), rate)

        block(tf.ones([8]), 0.5)
        block(tf.ones([8]), 0.2)
        """,
        "dropout",
        True,
    ),
    case(
        "literal-at-one-site-tensor-at-another",
        """
        import tensorflow as tf

        def scale(x, factor):
            return x * factor

        scale(tf.ones([3]), tf.constant(2.0))
        scale(tf.ones([3]), 3.0)
        scale(tf.ones([3]), 4.0)
        """,
        "scale",
        True,
    ),
    case(
        "python-only-function-with-literals",
        """
        import tensorflow as tf

        def layer_name(prefix, index):
            return f"{prefix}/{index}"

        layer_name("dense", 1)
        layer_name("dense", 2)
        """,
        "layer_name",
        True,
    ),
    case(
        "loop-over-list-of-literals",
        """
        import tensorflow as tf

        def clip(x, limit):
            return tf.clip_by_value(x, -limit, limit)

        for limit in [0.5, 1.0, 2.0]:
            clip(tf.random.normal([4]), limit)
        """,
        "clip",
        True,
    ),
    case(
        "int-keyword-axis",
        """
        import tensorflow as tf

        def norm_along(x, axis=-1):
            return tf.norm(x, axis=axis)

        norm_along(tf.ones([2, 3]), axis=0)
        norm_along(tf.ones([2, 3]))
        """,
        "norm_along",
        True,
    ),
    # --- negatives ------------------------------------------------------------------------
    case(
        "boolean-does-not-count",
        """
        import tensorflow as tf

        def dense_block(x, training):
            return tf.nn.dropout(x, 0.1) if training else x

        dense_block(tf.ones([4]), True)
        dense_block(tf.ones([4]), False)
        """,
        "dense_block",
        False,
    ),
    case(
        "boolean-keyword-does-not-count",
        """
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Dense(2)])

        def forward(x, training=False):
            return model(x, training=training)

        forward(tf.ones([1, 4]), training=True)
        """,
        "forward",
        False,
    ),
    case(
        "none-does-not-count",
        """
        import tensorflow as tf

        def masked_sum(x, mask):
            if mask is None:
                return tf.reduce_sum(x)
            return tf.reduce_sum(tf.boolean_mask(x, mask))

        masked_sum(tf.ones([4]), None)
        """,
        "masked_sum",
        False,
    ),
    case(
        "default-nobody-passes",
        """
        import tensorflow as tf

        def smooth(x, factor=0.9):
            return x * factor

        smooth(tf.ones([3]))
        smooth(tf.zeros([3]))
        """,
        "smooth",
        False,
    ),
    case(
        "only-tensors",
        """
        import tensorflow as tf

        def mse(y_true, y_pred):
            return tf.reduce_mean(tf.square(y_true - y_pred))

        mse(tf.ones([4]), tf.zeros([4]))
        """,
        "mse",
        False,
    ),
    case(
        "tensor-made-from-literal-is-not-a-literal",
        """
        import tensorflow as tf

        def leaky(x, alpha):
            return tf.nn.leaky_relu(x, alpha=alpha)

        leaky(tf.ones([4]), tf.constant(0.2))
        """,
        "leaky",
        False,
    ),
    case(
        "dict-of-literals",
        """
        import tensorflow as tf

        def scale(x, config):
            return x * config["scale"]

        scale(tf.ones([2]), {"scale": 2.0})
        scale(tf.ones([2]), {"scale": 3.0})
        """,
        "scale",
        True,
    ),
    case(
        "dict-of-tensors-is-not-primitive",
        """
        import tensorflow as tf

        def total(batch):
            return batch["x"] + batch["y"]

        total({"x": tf.ones([2]), "y": tf.zeros([2])})
        """,
        "total",
        False,
    ),
    # Dict keys are hashable Python values (never tensors): each one retraces.
    case(
        "dict-key-from-iterating-a-dict",
        """
        import tensorflow as tf

        def g(k, x):
            return tf.reduce_sum(x)

        d = {"a": tf.ones([3]), "b": tf.ones([3])}
        for k in d:
            g(k, d[k])
        """,
        "g",
        True,
    ),
    case(
        "dict-items-key-and-tensor-value",
        """
        import tensorflow as tf

        def summarize(tag, t):
            return tf.reduce_mean(t), tag

        d = {"a": tf.ones([3]), "b": tf.zeros([3])}
        for name, t in d.items():
            summarize(name, t)
        """,
        "summarize",
        True,
    ),
    # enumerate/zip keep their tuple positions apart: the counter is a Python int.
    case(
        "enumerate-counter-over-a-dataset",
        """
        import tensorflow as tf

        def step_fn(x, step):
            return x * tf.cast(step, tf.float32)

        ds = tf.data.Dataset.from_tensor_slices(tf.ones([8, 2])).batch(2)
        for step, x in enumerate(ds):
            step_fn(x, step)
        """,
        "step_fn",
        True,
    ),
    case(
        "zip-of-range-and-tensors",
        """
        import tensorflow as tf

        def scale(x, i):
            return x * i

        xs = [tf.ones([2]), tf.ones([2])]
        for i, x in zip(range(2), xs):
            scale(x, i)
        """,
        "scale",
        True,
    ),
    case(
        "enumerate-pair-indexed",
        """
        import tensorflow as tf

        def scale(x, i):
            return x * i

        for pair in enumerate([tf.ones([2]), tf.ones([2])]):
            scale(pair[1], pair[0])
        """,
        "scale",
        True,
    ),
    case(
        "zip-of-two-tensor-lists-has-no-literal",
        """
        import tensorflow as tf

        def add(a, b):
            return a + b

        for a, b in zip([tf.ones([2])], [tf.zeros([2])]):
            add(a, b)
        """,
        "add",
        False,
    ),
    # Command-line values: Python values of a type the parser decides (a custom `type=` may
    # return anything), so whether the parameter gets Python literals is undeterminable; but
    # one option keeps its value through the run, so even a Python number there traces once:
    # no retrace per call (see test_facts_literal_variation.py for values that change).
    case(
        "argparse-field-fixed-through-the-run",
        """
        import argparse
        import tensorflow as tf

        def scale(x, factor):
            return tf.reduce_sum(x) * factor

        parser = argparse.ArgumentParser()
        parser.add_argument("--factor", type=float, default=2.0)
        args = parser.parse_args()
        scale(tf.ones([4]), args.factor)
        """,
        "scale",
        False,
    ),
    case(
        "absl-flag-fixed-through-the-run",
        """
        import tensorflow as tf
        from absl import flags

        FLAGS = flags.FLAGS
        flags.DEFINE_integer("width", 8, "layer width")

        def widen(x, width):
            return tf.tile(x, [1, width])

        def main(argv):
            return widen(tf.ones([2, 2]), FLAGS.width)
        """,
        "widen",
        False,
    ),
    case(
        "tf-compat-v1-flag-fixed-through-the-run",
        """
        import tensorflow as tf

        def temper(logits, temperature):
            return tf.nn.softmax(logits / temperature)

        def run(logits):
            return temper(logits, tf.compat.v1.flags.FLAGS.temperature)

        run(tf.ones([2, 3]))
        """,
        "temper",
        False,
    ),
]


@pytest.mark.parametrize(("files", "qualname", "expected"), CASES)
def test_has_primitive_parameters(files, qualname, expected):
    assert verdict(files, qualname).facts.has_primitive_parameters is expected


def test_min_of_several_numbers_is_one_of_them():
    """`min(1.0, (e + 1) / n)` is a Python float that changes per epoch: each value retraces."""
    src = """
import tensorflow as tf


def scaled(x, weight):
    return x * weight


for epoch in range(4):
    scaled(tf.ones([3]), min(1.0, (epoch + 1) / 4))
"""
    v = verdict(src, "scaled")
    assert v.facts.has_tensor_parameter is True
    assert v.facts.has_primitive_parameters is True
