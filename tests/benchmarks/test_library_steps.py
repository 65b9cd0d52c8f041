"""The benefit oracle's static evidence that a library calls a function only from steps its
training loop compiles (`benchmarks/library_steps.py`), and the TensorFlow behaviour it rests
on, measured: a `tf.function` object's call inside a compiled step is traced into the step's
graph once, and an object built at every eager step traces at every step."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from library_steps import KERAS_COMPILED_STEPS, compiled_step_callers, library_compiled_steps

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


RUNNER = """
import tensorflow as tf


class StandardTrainer:
    def create_train_loop_fn(self):
        train_step_fn = self.train_step
        if self.options.use_tf_function:
            train_step_fn = tf.function(train_step_fn)
        return loop_fns.create_loop_fn(train_step_fn)

    def train_step(self, iterator):
        raise NotImplementedError


class StandardEvaluator:
    def create_eval_loop_fn(self):
        loop_fn = loop_fns.create_tf_while_loop_fn(self.eval_step)
        return tf.function(loop_fn)
"""
"""orbit's runners: the loop's step handed to `tf.function` through locals and a helper."""

TRAINER = """
from pkg import runner


class Trainer(runner.StandardTrainer, runner.StandardEvaluator):
    def train_step(self, iterator):
        def step_fn(inputs):
            logs = self.task.train_step(inputs, model=self.model)
            self.loss.update_state(logs["loss"])

        self.strategy.run(step_fn, args=(self.next_inputs(iterator),))

    def eval_step(self, iterator):
        def step_fn(inputs):
            return self.task.validation_step(inputs, model=self.model)

        return self.strategy.run(step_fn, args=(next(iterator),))

    def next_inputs(self, iterator):
        return next(iterator)

    def report(self):
        return self.loss.update_state(0.0)
"""
"""tf-models' `base_trainer.Trainer`: the task's steps called only inside the runners' steps;
`update_state` also called eagerly (`report`)."""


def test_the_steps_a_library_compiles_are_found_in_its_code() -> None:
    files = [("pkg/runner.py", RUNNER), ("pkg/trainer.py", TRAINER), *_files({})]
    steps = library_compiled_steps(files)
    assert {"train_step", "eval_step", "validation_step", "next_inputs"} <= steps
    # referenced outside compiled code too (`report`): not a step; nor a call method
    assert "update_state" not in steps and "report" not in steps
    assert not steps & {"__call__", "call"}
    # the task's methods its compiled steps call on `self` run in the graph too
    assert {"build_losses", "_box_losses"} <= steps
    # the derived steps give the evidence the hand list gave
    found = compiled_step_callers(
        files, "BoxLoss.__call__", KERAS_COMPILED_STEPS | steps, "pkg/losses/box_losses.py"
    )
    assert found == ["DetectionTask.train_step", "DetectionTask.validation_step"]


def test_a_step_the_library_also_calls_eagerly_is_no_step() -> None:
    eager = ("pkg/cli.py", "def evaluate(task, x):\n    return task.validation_step(x, None)\n")
    files = [("pkg/runner.py", RUNNER), ("pkg/trainer.py", TRAINER), *_files({}), eager]
    steps = library_compiled_steps(files)
    assert "validation_step" not in steps and "train_step" in steps
    # without a runner that compiles, nothing is a step
    assert library_compiled_steps([("pkg/trainer.py", TRAINER), *_files({})]) == frozenset()


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
