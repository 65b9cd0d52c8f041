"""HY407 for a function returning what a Keras metric's `update_state` gives.

Under Keras 2 (tf_keras: `tf.keras` before TF 2.16, or with TF_USE_LEGACY_KERAS=1) a metric's
`update_state` gives the grouped update, a `tf.Operation` in a graph, which a tf.function
cannot return (TypeError while tracing); Keras 3 gives None (measured in
`test_hy407_metric_updates_measured.py`). tensorflow-gnn's `_FromLogitsMixIn.update_state`
returns `super().update_state(...)` of a `tf.keras.metrics.Precision` subclass: compiled,
5 of its tests failed under tf_keras. The fact is data of the framework
(`Framework.non_tensor_results`), reached on a metric object or as `super().update_state`
through a project class's framework base.
"""

from __future__ import annotations

import textwrap

from facts_helpers import analyse

from hybridize.analyzer.frameworks.framework import framework_of_api

MODULE = """
import tensorflow as tf


class _FromLogitsMixIn(tf.keras.metrics.Metric):
    def __init__(self, from_logits=False, **kwargs):
        super().__init__(**kwargs)
        self._from_logits = from_logits

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        return super().update_state(
            y_true, tf.nn.sigmoid(y_pred) if self._from_logits else y_pred, sample_weight
        )


class FromLogitsPrecision(_FromLogitsMixIn, tf.keras.metrics.Precision):
    pass


class Holder:
    def __init__(self):
        self.metric = tf.keras.metrics.Mean()

    def update(self, x):
        return self.metric.update_state(x)

    def update_only(self, x):
        self.metric.update_state(x)
        return x


class Scaled(tf.keras.layers.Layer):
    def call(self, x):
        return super().call(x * 2.0)


precision = tf.keras.metrics.Precision()


def step(y, p):
    update = precision.update_state(y, p)
    return update


def step_then_result(y, p):
    precision.update_state(y, p)
    return precision.result()


m = FromLogitsPrecision(from_logits=True)
m.update_state(tf.constant([1.0, 0.0]), tf.constant([0.5, -0.5]))
h = Holder()
h.update(tf.ones(3))
h.update_only(tf.ones(3))
step(tf.constant([1.0]), tf.constant([0.3]))
step_then_result(tf.constant([1.0]), tf.constant([0.3]))
Scaled()(tf.ones(3))
"""


def _hy407() -> dict[str, list[str]]:
    verdicts = analyse(textwrap.dedent(MODULE))
    return {
        name: [f.message for f in v.findings if f.code == "HY407"] for name, v in verdicts.items()
    }


def test_returned_metric_updates_are_hy407_however_reached() -> None:
    """`super().update_state` through the project class's framework base, a metric held in
    an attribute, and a module-level metric through a local: each is reported, in words."""
    found = _hy407()
    for name in ("_FromLogitsMixIn.update_state", "Holder.update", "step"):
        [message] = found[name]
        assert "Keras metric's `update_state`" in message, (name, message)
        assert "tf.Operation" in message and "Keras 2" in message
        assert "TypeError while tracing" in message


def test_an_update_not_returned_is_fine() -> None:
    """Calling `update_state` for its effect and returning a tensor is what a step does."""
    found = _hy407()
    assert found["Holder.update_only"] == []
    assert found["step_then_result"] == []


def test_super_of_another_framework_method_is_not_concerned() -> None:
    """A layer's `super().call(...)` is no metric update: the rule names APIs, not `super`."""
    assert _hy407()["Scaled.call"] == []


def test_the_fact_is_the_framework_s_data_on_a_method_its_tables_know() -> None:
    """Each name of `non_tensor_results` is a method the role tables answer with that name,
    so a call resolved through them (or through `super()`) finds it."""
    keras = framework_of_api("keras")
    assert keras is not None and keras.non_tensor_results
    for name in keras.non_tensor_results:
        info = keras.method_of("metric", name.rsplit(".", 1)[1])
        assert info is not None and info.name == name, name
