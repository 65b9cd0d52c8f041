"""HY425: a compiled layer call that would keep its first trace's training flag.

Found on tensorflow-gnn 1.0.3 (held out, 2026-12-05): `ItemDropout.call(self, inputs)` calls
a `Dropout` built in `build`; compiled by the default refactoring, `layer(x, training=True)`
after a `training=False` call applied no dropout (5 tests, no error raised). A first version
flagged every sublayer call and so `call`s whose sublayers ignore the flag (the corpus's
`PolicyNetwork`, `SiameseNet`, `CharGRU`, `MLPClassifier`: `Dense` only). These pin the forms
the rule reads and those it leaves; test_hy425_training_flag_measured.py measures each claim
on the installed TensorFlow, the check's examples run through test_check_examples.
"""

from __future__ import annotations

from facts_helpers import analyse

LAYERS = """
import tensorflow as tf
from tensorflow import keras


class NoTraining(tf.keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.dropout = tf.keras.layers.Dropout(0.5)

    def call(self, x):
        return self.dropout(x) * 2.0


class BuiltInBuild(tf.keras.layers.Layer):
    def build(self, shape):
        self._dropout = tf.keras.layers.Dropout(0.5, noise_shape=[None, 1])

    def call(self, inputs):
        return self._dropout(inputs)


class Normalises(tf.keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.norm = keras.layers.BatchNormalization()

    def call(self, x):
        return self.norm(x)


class LocalNoise(tf.keras.layers.Layer):
    def call(self, x):
        noise = tf.keras.layers.GaussianNoise(0.1)
        return noise(x)


class StackOfLayers(tf.keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.stack = [tf.keras.layers.Dense(8), tf.keras.layers.Dropout(0.5)]

    def call(self, x):
        for layer in self.stack:
            x = layer(x)
        return x


class SequentialDropout(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.body = tf.keras.Sequential([tf.keras.layers.Dense(8), tf.keras.layers.Dropout(0.5)])

    def call(self, x):
        return self.body(x)


class RecurrentDropout(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.rnn = tf.keras.layers.GRU(8, dropout=0.2)

    def call(self, x):
        return self.rnn(x)


class TakesKwargs(NoTraining):
    def call(self, x, **kwargs):
        return self.dropout(x, **kwargs) * 2.0


class PassesTraining(NoTraining):
    def call(self, x, training=None):
        return self.dropout(x, training=training) * 2.0


class TakesTrainingOnly(NoTraining):
    def call(self, x, training=None):
        return self.dropout(x) * 2.0


class FixedFlag(NoTraining):
    def call(self, x):
        return self.dropout(x, training=False) + self.dropout(x, False)


class Outer(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.inner = PassesTraining()

    def call(self, x):
        return self.inner(x)


class OuterOfDense(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.inner = DenseOnly()

    def call(self, x):
        return self.inner(x)


class DenseOnly(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.hidden = tf.keras.layers.Dense(8, activation="relu")
        self.out = tf.keras.layers.Dense(2)

    def call(self, x):
        return self.out(self.hidden(x))


class RecurrentWithoutDropout(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.rnn = tf.keras.layers.GRU(8, dropout=0.0)

    def call(self, x):
        return self.rnn(x)


class WithHelper(NoTraining):
    def apply(self, x):
        return self.dropout(x) * 2.0

    def call(self, x, training=None):
        return self.apply(x)


class Convolution(NoTraining):
    def convolve(self, x, **kwargs):
        return self.dropout(x, **kwargs)

    def call(self, x, training=None):
        return self.convolve(x, training=training)


class NotALayer:
    def __init__(self):
        self.dropout = tf.keras.layers.Dropout(0.5)

    def call(self, x):
        return self.dropout(x)


def predict(model, x):
    return model(x)


LAYER_CLASSES = (
    NoTraining, BuiltInBuild, Normalises, LocalNoise, StackOfLayers, SequentialDropout,
    RecurrentDropout, TakesKwargs, PassesTraining, TakesTrainingOnly, FixedFlag, Outer,
    OuterOfDense, DenseOnly, RecurrentWithoutDropout, WithHelper, Convolution,
)


def run():
    x = tf.ones((4, 8))
    for cls in LAYER_CLASSES:
        layer = cls()
        for _ in range(100):
            layer(x, training=True)
            predict(layer, x)
    for _ in range(100):
        NotALayer().call(x)


run()
"""

FLAGGED = {
    "NoTraining.call": "a `Dropout`",
    "BuiltInBuild.call": "a `Dropout`",
    "Normalises.call": "a `BatchNormalization`",
    "LocalNoise.call": "a `GaussianNoise`",
    "StackOfLayers.call": "a `Dropout`",
    "SequentialDropout.call": "a `Dropout`",
    "RecurrentDropout.call": "a `GRU`",
    "TakesKwargs.call": "a `Dropout`",
    "Outer.call": "`PassesTraining.call`",
    "WithHelper.apply": "a `Dropout`",
}

NOT_FLAGGED = (
    "PassesTraining.call",
    "TakesTrainingOnly.call",
    "FixedFlag.call",
    "OuterOfDense.call",
    "DenseOnly.call",
    "RecurrentWithoutDropout.call",
    "WithHelper.call",
    "Convolution.convolve",
    "NotALayer.call",
    "predict",
)


def test_a_call_without_training_calling_a_layer_reading_it_is_flagged() -> None:
    verdicts = analyse(LAYERS)
    for name, reader in FLAGGED.items():
        verdict = verdicts[name]
        findings = [f for f in verdict.findings if f.code == "HY425"]
        assert findings, name
        assert not verdict.passes, name
        assert f"calls {reader}" in findings[0].message, (name, findings[0].message)


def test_layers_ignoring_the_flag_or_given_it_are_not_flagged() -> None:
    verdicts = analyse(LAYERS)
    for name in NOT_FLAGGED:
        assert "HY425" not in {f.code for f in verdicts[name].findings}, name


def test_a_learning_phase_read_in_a_call_is_flagged() -> None:
    source = """
import tensorflow as tf


class Phase(tf.keras.layers.Layer):
    def call(self, x):
        return x * tf.cast(tf.keras.backend.learning_phase(), tf.float32)


layer = Phase()
for _ in range(100):
    layer(tf.ones((4, 8)), training=True)
"""
    (finding,) = [f for f in analyse(source)["Phase.call"].findings if f.code == "HY425"]
    assert "learning_phase" in finding.message
