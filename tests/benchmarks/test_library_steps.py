"""The benefit oracle's static evidence that a library calls a function only from steps its
training loop compiles (`benchmarks/library_steps.py`), and the TensorFlow behaviour it rests
on, measured: a `tf.function` object's call inside a compiled step is traced into the step's
graph once, and an object built at every eager step traces at every step."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from library_steps import KERAS_COMPILED_STEPS, compiled_step_callers

LOSSES = """
import tensorflow as tf


class BoxLoss:
    def __call__(self, outputs, targets):
        return self._loss(outputs, targets)

    def _loss(self, outputs, targets):
        return tf.reduce_mean(tf.abs(outputs - targets))
"""

TASK = """
from pkg.losses import box_losses


class DetectionTask:
    def _box_losses(self, outputs, labels):
        return box_losses.BoxLoss()(outputs["boxes"], labels["boxes"])

    def build_losses(self, outputs, labels):
        return self._box_losses(outputs, labels)

    def train_step(self, inputs, model):
        return self.build_losses(model(inputs[0]), inputs[1])

    def validation_step(self, inputs, model):
        return self.build_losses(model(inputs[0]), inputs[1])
"""

STEPS = KERAS_COMPILED_STEPS | {"train_step", "validation_step"}


def _files(extra: dict[str, str]) -> list[tuple[str, str]]:
    return [("pkg/losses/box_losses.py", LOSSES), ("pkg/tasks/detection.py", TASK), *extra.items()]


def test_a_loss_object_built_only_inside_compiled_steps_runs_in_the_library_s_graph() -> None:
    found = compiled_step_callers(
        _files({}), "BoxLoss.__call__", STEPS, defined_in="pkg/losses/box_losses.py"
    )
    assert found == ["DetectionTask.train_step", "DetectionTask.validation_step"]
    # a helper of the object's call that only the call reaches counts as the call
    helper = compiled_step_callers(
        _files({}), "BoxLoss._loss", STEPS, defined_in="pkg/losses/box_losses.py"
    )
    assert helper == found


def test_no_evidence_when_another_entry_or_a_module_function_builds_it() -> None:
    defined = "pkg/losses/box_losses.py"
    # with Keras's steps alone, `validation_step` is an entry no training loop compiles
    only_keras = compiled_step_callers(
        _files({}), "BoxLoss.__call__", KERAS_COMPILED_STEPS, defined
    )
    assert only_keras is None
    exported = {
        "pkg/api.py": "from pkg.losses import box_losses\n"
        "def box_loss(o, t):\n    return box_losses.BoxLoss()(o, t)\n"
    }
    assert compiled_step_callers(_files(exported), "BoxLoss.__call__", STEPS, defined) is None
    entry = {
        "pkg/tasks/other.py": "from pkg.losses.box_losses import BoxLoss\n"
        "class Other:\n    def evaluate(self, o, t):\n        return BoxLoss()(o, t)\n"
    }
    assert compiled_step_callers(_files(entry), "BoxLoss.__call__", STEPS, defined) is None
    # a class of the same name in another module is another class
    same_name = {
        "pkg/other_losses.py": "class BoxLoss:\n    pass\n",
        "pkg/tasks/third.py": "from pkg import other_losses\n"
        "class Third:\n    def run(self):\n        return other_losses.BoxLoss()\n",
    }
    assert compiled_step_callers(_files(same_name), "BoxLoss.__call__", STEPS, defined) == [
        "DetectionTask.train_step",
        "DetectionTask.validation_step",
    ]
    # nobody in the library builds it: nothing to say
    assert (
        compiled_step_callers(
            [("pkg/losses/box_losses.py", LOSSES)], "BoxLoss.__call__", STEPS, defined
        )
        is None
    )


@pytest.mark.tensorflow
def test_a_decorated_loss_object_in_a_compiled_step_is_traced_once_and_per_eager_step_anew() -> (
    None
):
    tf = pytest.importorskip("tensorflow")
    traces: list[int] = []

    class Loss:
        @tf.function
        def __call__(self, outputs, targets):
            traces.append(1)  # runs only while tracing
            return tf.reduce_mean(tf.abs(outputs - targets))

    def step(outputs, targets):
        return Loss()(outputs, targets)  # the library builds the loss inside its step

    x, y = tf.ones([4, 4]), tf.zeros([4, 4])
    compiled = tf.function(step)
    for _ in range(5):
        assert float(compiled(x, y)) == 1.0
    # the step traced once, and with it the loss once: its graph is part of the step's, so
    # its own decorator adds no graph the step did not already run
    assert compiled.experimental_get_tracing_count() == 1 and len(traces) == 1
    traces.clear()
    for _ in range(5):
        assert float(step(x, y)) == 1.0
    # run eagerly (a trainer with `use_tf_function=False`), a new loss object per step is a
    # new `tf.function` per step: a trace at every step
    assert len(traces) == 5
