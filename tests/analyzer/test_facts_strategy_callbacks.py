"""Callbacks of `tf.distribute` (`strategy.run`, its TF 2.0 name `experimental_run_v2`).

`strategy.run(fn, args=(x, y))` calls `fn(x, y)` on every replica, in the caller's mode: traced
into the caller's graph when the caller is compiled, run eagerly when it is eager. So the
arguments are evidence for `fn`'s parameters, `fn`'s TensorFlow work and effects are the
caller's, and a callback reached only from compiled code is already covered.
"""

from __future__ import annotations

import pytest
from facts_helpers import case, field_value, verdict

PRELUDE = """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
"""

CASES = [
    case(
        "arguments-flow-to-the-callback",
        PRELUDE
        + """
        def replica_step(x, y):
            return tf.reduce_mean((model(x) - y) ** 2)

        def distributed_step(x, y):
            return strategy.run(replica_step, args=(x, y))

        distributed_step(tf.ones([4, 2]), tf.ones([4, 1]))
        """,
        "replica_step",
        {"x": True, "y": True},
        field="param_kinds",
    ),
    case(
        "literal-argument-flows-as-a-literal",
        PRELUDE
        + """
        def replica_step(x, scale):
            return tf.reduce_sum(model(x)) * scale

        def distributed_step(x):
            return strategy.run(replica_step, args=(x, 2.0))

        distributed_step(tf.ones([4, 2]))
        """,
        "replica_step",
        {"x": True, "scale": False},
        field="param_kinds",
    ),
    case(
        "callback-effects-are-the-caller-s",
        PRELUDE
        + """
        def replica_step(x):
            print("tracing")
            return tf.reduce_sum(model(x))

        def distributed_step(x):
            return strategy.run(replica_step, args=(x,))

        distributed_step(tf.ones([4, 2]))
        """,
        "distributed_step",
        True,
        field="has_python_side_effects",
    ),
    case(
        "experimental-run-v2-is-the-same-api",
        PRELUDE
        + """
        def replica_step(x):
            return tf.reduce_sum(model(x))

        def distributed_step(x):
            return strategy.experimental_run_v2(replica_step, args=(x,))

        distributed_step(tf.ones([4, 2]))
        """,
        "replica_step",
        {"x": True},
        field="param_kinds",
    ),
    case(
        "computation-in-the-callback-counts-for-the-caller",
        PRELUDE
        + """
        def replica_step(x):
            return tf.reduce_sum(model(x))

        @tf.function
        def distributed_step(x):
            return strategy.experimental_run_v2(replica_step, args=(x,))

        distributed_step(tf.ones([4, 2]))
        """,
        "distributed_step",
        None,
        field="transformation",
    ),
    case(
        "callback-of-compiled-code-is-covered",
        PRELUDE
        + """
        def replica_step(x):
            return tf.reduce_sum(model(x))

        @tf.function
        def distributed_step(x):
            return strategy.run(replica_step, args=(x,))

        distributed_step(tf.ones([4, 2]))
        """,
        "replica_step",
        True,
        field="caller_covered",
    ),
    case(
        "callback-of-eager-code-is-not-covered",
        PRELUDE
        + """
        def replica_step(x):
            return tf.reduce_sum(model(x))

        def distributed_step(x):
            return strategy.run(replica_step, args=(x,))

        distributed_step(tf.ones([4, 2]))
        """,
        "replica_step",
        False,
        field="caller_covered",
    ),
    case(
        "map-fn-callback-effects-are-the-caller-s",
        """
        import tensorflow as tf

        def square(v):
            print("element")
            return v * v

        def squares(x):
            return tf.map_fn(square, x)

        squares(tf.ones([3]))
        """,
        "squares",
        True,
        field="has_python_side_effects",
    ),
    case(
        "dataset-map-callback-effects-stay-with-tf-data",
        """
        import tensorflow as tf

        def parse(v):
            print("tracing the pipeline")
            return v * 2.0

        def pipeline(x):
            return tf.data.Dataset.from_tensor_slices(x).map(parse)

        pipeline(tf.ones([3]))
        """,
        "pipeline",
        False,
        field="has_python_side_effects",
    ),
]


@pytest.mark.parametrize(("files", "qualname", "field", "expected"), CASES)
def test_strategy_callbacks(files, qualname, field, expected):
    assert field_value(verdict(files, qualname), field) == expected


def test_both_spellings_name_where_the_callback_arguments_are() -> None:
    from hybridize.analyzer.frameworks.framework import TENSORFLOW

    for name in ("run", "experimental_run_v2"):
        info = TENSORFLOW.method_of("strategy", name)
        assert info is not None, name
        assert info.callback_args == (0, "fn") and info.callback_args_tuple == (1, "args"), name
        assert not info.traces_callbacks, name  # run in the caller's mode
