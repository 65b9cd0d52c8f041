"""HY425's claims about Keras's training flag, measured again on the installed TensorFlow.

HY425 (`checks/hy425_frozen_training_flag.py`) and the layers `tensorflow_rules` lists as
reading the flag (`TRAINING_FLAG_LAYERS`, `training_flag_position`) rest on how Keras hands
`training` to layers called inside a compiled `call`; measured with TF 2.21 and Keras 3.15
(the claims also held under tf_keras 2.21, but for `**kwargs`, where tf_keras passes the
flag). Each test pins one claim, so that a Keras upgrade changing it fails here.

A layer's output on 1000 ones tells the mode it ran in: a `Dropout(0.5)` keeps the sum at
1000 in inference and changes it in training (not exactly 1000 for the seed set).
"""

from __future__ import annotations

import importlib.util
from typing import Any

import pytest

from hybridize.analyzer.frameworks import tensorflow_rules

pytestmark = [
    pytest.mark.tensorflow,
    pytest.mark.slow,
    pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent"),
]

INFERENCE = 1000


@pytest.fixture(autouse=True)
def _seeded() -> None:
    """Python's, NumPy's, TensorFlow's and Keras's seeds set before each test: a Keras 3
    layer's seed generator draws its seed from them when the layer is made, so the sums are
    the same whatever ran before."""
    import keras

    keras.utils.set_random_seed(0)


def _sums(layer: Any, flags: tuple[bool, ...] = (False, True)) -> list[int]:
    """The rounded sums of the layer's outputs on 1000 ones, called with each flag in turn."""
    import keras
    import tensorflow as tf

    x = tf.ones((1, 1000))
    sums = []
    for flag in flags:
        keras.utils.set_random_seed(0)
        sums.append(round(float(tf.reduce_sum(layer(x, training=flag)))))
    return sums


def _layers() -> dict[str, Any]:
    """Layer classes of the forms HY425 judges, compiled as the refactoring would."""
    import keras
    import tensorflow as tf

    class NoTraining(keras.layers.Layer):
        def __init__(self, inner: Any = None) -> None:
            super().__init__()
            self.inner = inner if inner is not None else keras.layers.Dropout(0.5)

        @tf.function
        def call(self, x):  # type: ignore[no-untyped-def]
            return self.inner(x)

    class Eager(NoTraining):
        def call(self, x):  # type: ignore[no-untyped-def]
            return self.inner(x)

    class PassesTraining(NoTraining):
        @tf.function
        def call(self, x, training=None):  # type: ignore[no-untyped-def]
            return self.inner(x, training=training)

    class TakesTrainingOnly(NoTraining):
        @tf.function
        def call(self, x, training=None):  # type: ignore[no-untyped-def]
            return self.inner(x)

    class ForwardsKwargs(NoTraining):
        @tf.function
        def call(self, x, **kwargs):  # type: ignore[no-untyped-def]
            return self.inner(x, **kwargs)

    class ProjectInner(keras.layers.Layer):
        def __init__(self) -> None:
            super().__init__()
            self.dropout = keras.layers.Dropout(0.5)

        def call(self, x, training=None):  # type: ignore[no-untyped-def]
            return self.dropout(x, training=training)

    class CompiledHelper(NoTraining):
        @tf.function
        def apply(self, x):  # type: ignore[no-untyped-def]
            return self.inner(x)

        def call(self, x):  # type: ignore[no-untyped-def]
            return self.apply(x)

    return {
        "NoTraining": NoTraining,
        "Eager": Eager,
        "PassesTraining": PassesTraining,
        "TakesTrainingOnly": TakesTrainingOnly,
        "ForwardsKwargs": ForwardsKwargs,
        "ProjectInner": ProjectInner,
        "CompiledHelper": CompiledHelper,
    }


def test_a_compiled_call_without_training_keeps_its_first_trace_s_flag() -> None:
    layers = _layers()
    eager = _sums(layers["Eager"]())
    assert eager[0] == INFERENCE and eager[1] != INFERENCE, "eagerly, training drops out"
    assert _sums(layers["NoTraining"]()) == [INFERENCE, INFERENCE], "inference trace kept"
    first_training = _sums(layers["NoTraining"](), (True, False))
    assert INFERENCE not in first_training, "a first training call drops out ever after"


def test_the_layers_listed_as_reading_the_flag_change_with_it_and_freeze_compiled() -> None:
    import keras

    made = {
        "BatchNormalization": keras.layers.BatchNormalization,
        "GaussianNoise": lambda: keras.layers.GaussianNoise(1.0),
        "GaussianDropout": lambda: keras.layers.GaussianDropout(0.5),
        "AlphaDropout": lambda: keras.layers.AlphaDropout(0.5),
    }
    for name, make in made.items():
        assert tensorflow_rules.training_flag_position(f"keras.layers.{name}", ()) == 1
        layers = _layers()
        eager = _sums(layers["Eager"](make()))
        compiled = _sums(layers["NoTraining"](make()))
        assert eager[0] != eager[1], name
        assert compiled[0] == compiled[1] == eager[0], name


def test_a_dense_sublayer_ignores_the_flag() -> None:
    import keras

    assert tensorflow_rules.training_flag_position("keras.layers.Dense", ()) is None
    dense = keras.layers.Dense(4, kernel_initializer="ones")
    layers = _layers()
    assert _sums(layers["NoTraining"](dense)) == _sums(layers["Eager"](dense))


def test_a_compiled_call_taking_training_retraces_per_flag_passed_on_or_not() -> None:
    layers = _layers()
    for name in ("PassesTraining", "TakesTrainingOnly"):
        inference, training = _sums(layers[name]())
        assert inference == INFERENCE and training != INFERENCE, name


def test_keras_3_passes_no_training_into_kwargs() -> None:
    assert _sums(_layers()["ForwardsKwargs"]()) == [INFERENCE, INFERENCE]


def test_a_project_layer_taking_training_reads_the_outer_call_s_context() -> None:
    layers = _layers()
    inner = layers["ProjectInner"]
    eager = _sums(layers["Eager"](inner()))
    assert eager[0] == INFERENCE and eager[1] != INFERENCE
    assert _sums(layers["NoTraining"](inner())) == [INFERENCE, INFERENCE]


def test_a_compiled_method_of_the_call_keeps_its_first_trace_s_flag() -> None:
    assert _sums(_layers()["CompiledHelper"]()) == [INFERENCE, INFERENCE]


def test_outside_a_layer_call_a_compiled_function_has_no_context_to_freeze() -> None:
    import keras
    import tensorflow as tf

    model = keras.Sequential([keras.layers.Dropout(0.5)])
    x = tf.ones((1, 1000))

    @tf.function
    def predict(x):  # type: ignore[no-untyped-def]
        return model(x)

    assert round(float(tf.reduce_sum(predict(x)))) == INFERENCE
    assert round(float(tf.reduce_sum(model(x)))) == INFERENCE


def test_a_tensor_flag_passed_through_fails_loudly_under_keras_3() -> None:
    import keras
    import tensorflow as tf

    model = keras.Sequential([keras.layers.Dropout(0.5)])

    @tf.function
    def step(x, training):  # type: ignore[no-untyped-def]
        return model(x, training=training)

    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
        step(tf.ones((1, 1000)), tf.constant(True))


def test_tf_keras_s_learning_phase_is_frozen_compiled() -> None:
    """tf_keras only (Keras 3 has no `learning_phase`): the global phase a layer reads."""
    tf_keras = pytest.importorskip("tf_keras")
    import tensorflow as tf

    class Eager(tf_keras.layers.Layer):
        def call(self, x):  # type: ignore[no-untyped-def]
            return x * tf.cast(tf_keras.backend.learning_phase(), tf.float32)

    class Compiled(Eager):
        @tf.function
        def call(self, x):  # type: ignore[no-untyped-def]
            return x * tf.cast(tf_keras.backend.learning_phase(), tf.float32)

    x = tf.ones((1, 4))
    phases = {}
    for cls in (Eager, Compiled):
        layer = cls()
        before = float(tf.reduce_sum(layer(x)))
        tf_keras.backend.set_learning_phase(1)
        try:
            phases[cls.__name__] = (before, float(tf.reduce_sum(layer(x))))
        finally:
            tf_keras.backend.set_learning_phase(0)
    assert phases == {"Eager": (0.0, 4.0), "Compiled": (0.0, 0.0)}
