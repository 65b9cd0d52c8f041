"""`self.method()` in a base class runs whichever override the instance's class defines.

TensorFlow Recommenders' `TopK.index_from_dataset` returns `self.index(...)`: the abstract
`TopK.index` raises, but `BruteForce.index` stores attributes and returns `self`, a Keras layer.
Under `@tf.function` that return cannot become a tensor, and the stores are effects of the
call. The analysis must see the overrides of project subclasses, not only the base's method.
"""

from __future__ import annotations

from facts_helpers import verdict

SOURCE = """
import tensorflow as tf


class TopK(tf.keras.layers.Layer):
    def index(self, candidates):
        raise NotImplementedError()

    def index_from_dataset(self, candidates):
        stacked = tf.concat([candidates, candidates], axis=0)
        return self.index(stacked)


class BruteForce(TopK):
    def index(self, candidates):
        self._candidates = candidates
        return self


class Scaler:
    def scale(self, x):
        return x * 2.0

    def apply(self, x):
        return self.scale(x) + 1.0


class NoisyScaler(Scaler):
    def scale(self, x):
        print("scaling")
        return x * 3.0


class Plain:
    def scale(self, x):
        return x * 2.0

    def apply(self, x):
        return self.scale(x) + 1.0


class Quiet(Plain):
    pass


def test_them():
    layer = BruteForce()
    layer.index_from_dataset(tf.ones([2, 3]))
    NoisyScaler().apply(tf.ones([2]))
    Quiet().apply(tf.ones([2]))
"""


def test_a_base_method_returning_an_override_result_sees_the_override_return() -> None:
    v = verdict(SOURCE, "TopK.index_from_dataset")
    assert not v.passes
    assert any(f.code == "HY407" for f in v.findings), [f.code for f in v.findings]


def test_an_override_with_a_side_effect_reaches_the_base_caller() -> None:
    v = verdict(SOURCE, "Scaler.apply")
    assert v.facts.has_python_side_effects is True
    assert not v.passes


def test_without_overrides_the_base_method_alone_decides() -> None:
    v = verdict(SOURCE, "Plain.apply")
    assert v.facts.has_python_side_effects is False
