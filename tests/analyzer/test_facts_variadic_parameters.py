"""`*args` and `**kwargs` without evidence are unknown, not tensor-free.

A caller may pass tensors through them (`f(*batch)`, `layer(x, **options)`), and a framework
calling the function may too; no call site that shows nothing proves they stay empty. So a
function whose only parameters are variadic gets `has_tensor_parameter: null` (and then the
speculation rules of docs/verdicts.md may apply), not the wrong reason "no tensor parameter".
"""

from __future__ import annotations

import pytest
from facts_helpers import case, field_value, verdict

CASES = [
    case(
        "star-args-without-evidence",
        """
        import tensorflow as tf

        def total(*tensors):
            return tf.add_n(list(tensors))
        """,
        "total",
        None,
        field="has_tensor_parameter",
    ),
    case(
        "star-args-spread-at-the-call",
        """
        import tensorflow as tf

        def total(*tensors):
            return tf.add_n(list(tensors))

        batch = [tf.ones([2]), tf.ones([2])]
        total(*batch)
        """,
        "total",
        None,
        field="has_tensor_parameter",
    ),
    case(
        "star-kwargs-without-evidence",
        """
        import tensorflow as tf

        def scaled(**options):
            return tf.reduce_sum(options["x"])
        """,
        "scaled",
        None,
        field="has_tensor_parameter",
    ),
    case(
        "star-kwargs-reported-unknown",
        """
        import tensorflow as tf

        def scaled(**options):
            return tf.reduce_sum(options["x"])
        """,
        "scaled",
        {"options": None},
        field="param_kinds",
    ),
    case(
        "star-args-with-tensor-evidence",
        """
        import tensorflow as tf

        def total(*tensors):
            return tf.add_n(list(tensors))

        total(tf.ones([2]), tf.ones([2]))
        """,
        "total",
        True,
        field="has_tensor_parameter",
    ),
    case(
        "tensor-parameter-beside-variadics-decides",
        """
        import tensorflow as tf

        def step(x, *args, **kwargs):
            return tf.reduce_sum(x)

        step(tf.ones([2]))
        """,
        "step",
        True,
        field="has_tensor_parameter",
    ),
    case(
        "variadics-leave-the-fact-open-not-false",
        """
        import tensorflow as tf

        def apply(units, **kwargs):
            return tf.keras.layers.Dense(units, **kwargs)

        apply(4)
        """,
        "apply",
        None,
        field="has_tensor_parameter",
    ),
    case(
        "speculation-applies-to-a-variadic-step",
        """
        import tensorflow as tf

        def train_step(*batch):
            return tf.reduce_sum(batch[0])
        """,
        "train_step",
        True,
        field="speculative",
    ),
]


@pytest.mark.parametrize(("files", "qualname", "field", "expected"), CASES)
def test_variadic_parameters(files, qualname, field, expected):
    assert field_value(verdict(files, qualname), field) == expected
