"""HY441: a method reads what another method's eager `assign` gave, kept on the object.

The check's examples (hybridize/check_examples/HY441) run through test_check_examples; these
tests measure the claim behind the rule on the installed TensorFlow (edward2's ActNorm:
`self.bias = bias.assign(...)` in `build`, read by a compiled `call`) and pin the verdicts.
"""

from __future__ import annotations

import importlib.util

import pytest
from facts_helpers import analyse


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_an_update_result_kept_from_eager_code_fails_to_read_in_a_graph() -> None:
    import tensorflow as tf

    class Holder:
        def __init__(self, keep: str) -> None:
            variable = tf.Variable(tf.zeros([3]))
            update = variable.assign(tf.ones([3]))
            self.bias = {
                "update": update,
                "read_value": update.read_value() if keep == "read_value" else None,
                "variable": variable,
            }[keep]

    def read(holder: Holder) -> object:
        return tf.ones([3]) + holder.bias

    kept = Holder("update")
    assert read(kept).numpy().tolist() == [2.0, 2.0, 2.0]  # eagerly fine
    with pytest.raises(TypeError, match="NoneType"):
        tf.function(lambda: read(kept))()
    for keep in ("read_value", "variable"):
        holder = Holder(keep)
        assert tf.function(lambda h=holder: read(h))().numpy().tolist() == [2.0, 2.0, 2.0]


PROJECT = """
import tensorflow as tf


class Base(tf.keras.layers.Layer):
    def call(self, x):
        return x + self.bias


class Shifted(Base):
    def build(self, input_shape):
        bias = self.add_weight("bias", shape=input_shape[-1:], initializer="zeros")
        self.bias = bias.assign(tf.ones(input_shape[-1:]))


class Kept(tf.keras.layers.Layer):
    def build(self, input_shape):
        self.bias = self.add_weight("bias", shape=input_shape[-1:], initializer="zeros")
        self.bias.assign(tf.ones(input_shape[-1:]))

    def call(self, x):
        return x + self.bias


class InGraph(tf.Module):
    def __init__(self):
        self.v = tf.Variable(tf.zeros([3]))

    def update(self):
        self.last = self.v.assign_add(tf.ones([3]))

    def step(self, x):
        self.update()
        return x + self.last


for _ in range(10):
    Shifted()(tf.ones([2, 3]))
    Kept()(tf.ones([2, 3]))
    InGraph().step(tf.ones([3]))
"""


def _hy441(qualname: str) -> list[str]:
    return [f.message for f in analyse(PROJECT)[qualname].findings if f.code == "HY441"]


def test_a_base_call_reads_what_a_subclass_build_kept() -> None:
    (message,) = _hy441("Base.call")
    assert "Shifted.build" in message and "assign()" in message


def test_keeping_the_variable_is_not_reported() -> None:
    assert _hy441("Kept.call") == []


def test_an_update_made_in_the_same_trace_is_not_reported() -> None:
    """`step` calls `update`: compiled, the assign runs in step's own graph."""
    assert _hy441("InGraph.step") == []
