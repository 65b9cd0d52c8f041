"""HY437: a function defined inside another is rewritten under TensorFlow only where one
definition serves a loop's calls and freezes nothing the enclosing body changes.

`@tf.function` on a nested `def` makes a new `Function` each time the enclosing body runs:
each traces at its first call (tests/analyzer/test_benefit_rules_measured.py measures it,
traces == calls of the enclosing function, for one call per definition). Measured here on
TF 2.21 (`PROBE`), in one definition called in a loop of its enclosing body:

- the enclosing function called 3 times, each running a loop of 10 calls: 3 traces, one per
  definition (the loop's calls reuse it);
- a closed-over float, and a closed-over eager tensor, rebound by the loop after each call:
  every call returns the first value, one trace (frozen);
- a closed-over list the loop appends to, read by the function (`sum(scales)`): frozen too;
  one the function appends to itself: appended once, while tracing;
- a closed-over `tf.Variable` the loop changes with `assign_add`: read live;
- a nested function handed to `Dataset.map`: tf.data traces it once (its Python body ran once
  for 5 elements): it already runs in a graph (HY004's covered callers), no decorator needed;
- an attribute of a closed-over object that a method of its class sets between calls
  (`schedule.decay()`): frozen, as HY408 finds for `self` attributes and globals' (the
  closed-over object's attributes are state of its class's instances, facts/frozen_state.py).

In edward2's run, `LSTMCellRank1._sample_weights`'s `sample` (called once per definition)
compiled failed in the trace lookup of its calls ("The truth value of an array with more than
one element is ambiguous"; not reduced further here). Under torch.compile a nested function
compiles once across definitions (same file), and the check does not apply.
"""

from __future__ import annotations

import importlib.util
import textwrap

import pytest
from facts_helpers import analyse, run_probe

from hybridize.project import Project, ProjectOptions
from hybridize.refactor.selection import Selection

PROBE = """
import tensorflow as tf

made = []


def train(x, steps):
    @tf.function
    def step(y):
        return tf.reduce_sum(tf.sin(y) * 2.0)

    made.append(step)
    for _ in range(steps):
        step(x)


for _ in range(3):
    train(tf.ones([8, 8]), 10)
print("loop", len(made), sum(f.experimental_get_tracing_count() for f in made))


def changed(first, change):
    value = first

    @tf.function
    def step(y):
        return y * (sum(value) if isinstance(value, list) else value)

    seen = []
    for _ in range(3):
        seen.append(float(step(tf.constant(1.0))))
        if isinstance(value, list):
            value.append(1.0)
        elif isinstance(value, tf.Variable):
            value.assign_add(1.0)
        else:
            value = value + change
    return ":".join(str(v) for v in seen) + f":{step.experimental_get_tracing_count()}"


print("rebound_float", changed(1.0, 1.0))
print("rebound_tensor", changed(tf.constant(1.0), 1.0))
print("appended_list", changed([1.0], None))
print("assigned_variable", changed(tf.Variable(1.0), None))


def appends_itself():
    seen = []

    @tf.function
    def step(y):
        seen.append(1)
        return y * 2.0

    for _ in range(3):
        step(tf.constant(1.0))
    return f"{len(seen)}:{step.experimental_get_tracing_count()}"


print("appended_by_step", appends_itself())


class Schedule:
    def __init__(self):
        self.lr = 1.0

    def decay(self):
        self.lr = self.lr + 1.0


def attribute_set_by_a_method():
    schedule = Schedule()

    @tf.function
    def step(y):
        return y * schedule.lr

    seen = []
    for _ in range(3):
        seen.append(float(step(tf.constant(1.0))))
        schedule.decay()
    return ":".join(str(v) for v in seen) + f":{step.experimental_get_tracing_count()}"


print("attribute_set_by_a_method", attribute_set_by_a_method())


def mapped():
    runs = []

    def double(y):
        runs.append(1)
        return y * 2.0

    values = tf.data.Dataset.range(5).map(lambda i: tf.cast(i, tf.float32)).map(double)
    return f"{len(runs)}:{sum(float(v) for v in values)}"


print("mapped", mapped())
"""


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_a_nested_tf_function_in_a_loop_traces_once_per_definition_and_freezes_its_closure() -> (
    None
):
    measured = run_probe(PROBE)
    assert measured["loop"] == "3 3", "one trace per call of the enclosing function"
    for rebound in (
        "rebound_float",
        "rebound_tensor",
        "appended_list",
        "attribute_set_by_a_method",
    ):
        assert measured[rebound] == "1.0:1.0:1.0:1", (rebound, measured[rebound])
    assert measured["assigned_variable"] == "1.0:2.0:3.0:1"
    assert measured["appended_by_step"] == "1:1", "the function's own append runs at its trace"
    assert measured["mapped"] == "1:20.0", "tf.data traces a map function: its body runs once"


SOURCE = """
import tensorflow as tf


class Cell(tf.Module):
    def __init__(self):
        self.alpha = tf.ones([3, 1])

    def sample_weights(self, batch_size):
        def sample(weight):
            return tf.tile(weight, [1, batch_size]) * 2.0

        self.alpha_sample = sample(self.alpha)
        return self.alpha_sample


def train(x, steps):
    class Scaler(tf.Module):
        def apply(self, y):
            return tf.reduce_sum(tf.sin(y) * 3.0)

    def step(y):
        return tf.reduce_sum(tf.sin(y) * 2.0)

    for _ in range(steps):
        step(x)
        Scaler().apply(x)


def top(x):
    return tf.reduce_sum(tf.sin(x) * 2.0)


cell = Cell()
for _ in range(100):
    cell.sample_weights(4)
train(tf.ones([8, 8]), 1000)
top(tf.ones([8, 8]))
"""

NESTED = ("Cell.sample_weights.sample", "train.Scaler.apply")


def test_nested_definitions_called_once_or_methods_are_blocked_a_looped_step_is_not() -> None:
    verdicts = analyse(SOURCE)
    for qualname in NESTED:
        found = [f for f in verdicts[qualname].findings if f.code == "HY437"]
        assert found and not verdicts[qualname].passes, (qualname, verdicts[qualname].findings)
        assert "defined inside `" in found[0].message
        assert "in no loop" in found[0].message
    for qualname in ("top", "train.step"):
        v = verdicts[qualname]
        assert v.passes and not any(f.code == "HY437" for f in v.findings), v.findings
    result = Project.from_texts({"m.py": SOURCE}, ProjectOptions(False, use_cache=False)).results()
    every = Selection(include_low_benefit=True)
    proposed = {v.qualname for v in result.functions if every.proposes(v)}
    assert {"top", "train.step"} <= proposed
    assert not proposed & set(NESTED), proposed


def _step(loop: str, before: str = "", reads: str = "lr") -> str:
    """A module whose `train` defines `step` (reading `reads` of `train`), runs `before`
    first, then `loop`; `train` is called once with a tensor pair."""
    return (
        textwrap.dedent(
            """
        import tensorflow as tf


        def train(x, y, epochs, history):
            w = tf.Variable(tf.zeros([3, 1]))
            lr = 0.1
            scales = [1.0]
        BEFORE
            def step(a, b):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean((tf.matmul(a, w) - b) ** 2)
                w.assign_sub(READS * tape.gradient(loss, w))
                return loss

        LOOP


        train(tf.ones([8, 3]), tf.ones([8, 1]), 100, [])
        """
        )
        .replace("READS", reads)
        .replace("BEFORE", textwrap.indent(before, "    "))
        .replace("LOOP", textwrap.indent(textwrap.dedent(loop), "    "))
    )


SERVED = [
    pytest.param("for _ in range(epochs):\n    step(x, y)", id="for-loop"),
    pytest.param("i = 0\nwhile i < epochs:\n    step(x, y)\n    i += 1", id="while-body"),
    pytest.param("while step(x, y) > 0.1:\n    pass", id="while-test"),
    pytest.param("return [step(x, y) for _ in range(epochs)]", id="comprehension"),
    pytest.param(
        "for epoch in range(epochs):\n    loss = step(x, y)\n    history.append(loss)",
        id="loop-appends-to-a-list-step-does-not-read",
    ),
    pytest.param(
        "step(x, y)\nfor _ in range(epochs):\n    step(x, y)", id="a-warm-up-call-then-a-loop"
    ),
]


@pytest.mark.parametrize("loop", SERVED)
def test_a_step_called_in_a_loop_of_its_enclosing_body_is_not_blocked(loop: str) -> None:
    v = analyse(_step(loop))["train.step"]
    assert not any(f.code == "HY437" for f in v.findings), v.findings
    assert v.passes, v.failures


CHANGED = [
    pytest.param(
        "for _ in range(epochs):\n    step(x, y)\n    lr = lr * 0.5", "lr", "lr", id="rebound"
    ),
    pytest.param(
        "for _ in range(epochs):\n    step(x, y)\n    lr *= 0.5", "lr", "lr", id="augmented"
    ),
    pytest.param("for lr in [0.1, 0.01]:\n    step(x, y)", "lr", "lr", id="the-loop-target-itself"),
    pytest.param(
        "for _ in range(epochs):\n    step(x, y)\n    scales.append(0.5)",
        "sum(scales)",
        "scales",
        id="a-list-appended-to",
    ),
    pytest.param(
        "for _ in range(epochs):\n    step(x, y)\n    scales[0] = 0.5",
        "scales[0]",
        "scales",
        id="an-item-stored",
    ),
]


@pytest.mark.parametrize(("loop", "reads", "named"), CHANGED)
def test_a_looped_step_closed_over_what_the_loop_changes_is_blocked(
    loop: str, reads: str, named: str
) -> None:
    v = analyse(_step(loop, reads=reads))["train.step"]
    found = [f for f in v.findings if f.code == "HY437"]
    assert found and not v.passes, v.findings
    assert f"(`{named}`)" in found[0].message and "closes over" in found[0].message


def test_a_rebinding_before_the_definition_freezes_nothing() -> None:
    """`lr` is set twice before `step` is defined: the definition reads its last value."""
    v = analyse(_step("for _ in range(epochs):\n    step(x, y)", before="lr = lr * 2.0\n"))
    assert not any(f.code == "HY437" for f in v["train.step"].findings)


NOT_SERVED = [
    pytest.param("return step(x, y)", id="called-once"),
    pytest.param("return step", id="returned"),
    pytest.param("for _ in range(epochs):\n    pass\nstep(x, y)", id="called-after-the-loop"),
    pytest.param(
        "def epoch():\n    for _ in range(epochs):\n        step(x, y)\n\nepoch()",
        id="looped-by-a-sibling-nested-function",
    ),
]


@pytest.mark.parametrize("loop", NOT_SERVED)
def test_a_step_no_loop_of_its_enclosing_body_calls_is_blocked(loop: str) -> None:
    v = analyse(_step(loop))["train.step"]
    found = [f for f in v.findings if f.code == "HY437"]
    assert found and not v.passes, v.findings
    assert "calls it in no loop" in found[0].message


def test_a_step_defined_in_the_loop_that_calls_it_is_blocked() -> None:
    source = """
        import tensorflow as tf


        def train(batches):
            for x in batches:
                def step(y):
                    return tf.reduce_sum(tf.sin(y) * 2.0)

                step(x)
                for _ in range(3):
                    step(x)


        train([tf.ones([8, 8])] * 100)
        """
    # the inner loop's calls are served by one definition per iteration of the outer one
    assert not any(f.code == "HY437" for f in analyse(source)["train.step"].findings)
    once = source.replace("                for _ in range(3):\n                    step(x)\n", "")
    found = [f for f in analyse(once)["train.step"].findings if f.code == "HY437"]
    assert found and "calls it in no loop" in found[0].message


def test_a_method_s_step_reading_an_attribute_the_loop_sets_is_blocked() -> None:
    """Paths on a closed-over name: `self.lr` read and set blocks; `self.history` set while
    the step reads only `self.w` does not."""
    source = """
        import tensorflow as tf


        class Trainer:
            def __init__(self):
                self.w = tf.Variable(tf.zeros([3, 1]))
                self.lr = 0.1
                self.history = []

            def fit(self, x, y, epochs):
                def step(a, b):
                    with tf.GradientTape() as tape:
                        loss = tf.reduce_mean((tf.matmul(a, self.w) - b) ** 2)
                    self.w.assign_sub(READ * tape.gradient(loss, self.w))
                    return loss

                for _ in range(epochs):
                    self.history.append(step(x, y))
                    self.lr = self.lr * 0.5


        Trainer().fit(tf.ones([8, 3]), tf.ones([8, 1]), 100)
        """
    v = analyse(source.replace("READ", "0.1"))["Trainer.fit.step"]
    assert not any(f.code == "HY437" for f in v.findings), v.findings
    v = analyse(source.replace("READ", "self.lr"))["Trainer.fit.step"]
    found = [f for f in v.findings if f.code == "HY437"]
    assert found and "(`self.lr`)" in found[0].message, v.findings


def test_a_step_rebinding_a_closed_over_name_itself_is_blocked() -> None:
    source = textwrap.dedent(
        """
        import tensorflow as tf


        def train(x, epochs):
            count = 0

            def step(y):
                nonlocal count
                count = count + 1
                return tf.reduce_sum(tf.sin(y) * 2.0)

            for _ in range(epochs):
                step(x)


        train(tf.ones([8, 8]), 100)
        """
    )
    found = [f for f in analyse(source)["train.step"].findings if f.code == "HY437"]
    assert found and "(`count`)" in found[0].message


def test_a_nested_torch_function_is_not_this_checks() -> None:
    source = textwrap.dedent(
        """
        import torch


        def train(x, steps):
            def step(y):
                return (torch.sin(y) * 2.0).sum()

            return step(x)


        for _ in range(1000):
            train(torch.ones(8, 8), 1000)
        """
    )
    found = analyse(source)["train.step"].findings
    assert not any(f.code == "HY437" for f in found), found


def test_a_looped_step_reading_an_attribute_a_method_sets_between_calls_is_hy408s() -> None:
    """Not the enclosing body's change (HY437 lets the step through) but a method's: the
    attribute of a closed-over object of a project class is state of that class's instances
    (HY408), as `self.lr` is for a method."""
    source = textwrap.dedent(
        """
        import tensorflow as tf


        class Schedule:
            def __init__(self):
                self.lr = 0.1

            def decay(self):
                self.lr = self.lr * 0.5


        def train(x, epochs):
            schedule = Schedule()

            def step(y):
                return tf.reduce_sum(tf.sin(y) * schedule.lr)

            for _ in range(epochs):
                step(x)
                schedule.decay()


        train(tf.ones([8, 8]), 100)
        """
    )
    v = analyse(source)["train.step"]
    assert not any(f.code == "HY437" for f in v.findings), v.findings
    found = [f for f in v.findings if f.code == "HY408"]
    assert found and "`schedule.lr`" in found[0].message and "`Schedule.decay`" in found[0].message
    # a method that reads the attribute and sets nothing: no state changes between calls
    v = analyse(source.replace("self.lr = self.lr * 0.5", "return self.lr * 0.5"))["train.step"]
    assert v.passes, v.failures


def test_a_nested_function_handed_to_dataset_map_is_already_in_a_graph() -> None:
    """tf.data traces what `map` is given (measured above): covered, never proposed."""
    source = textwrap.dedent(
        """
        import tensorflow as tf


        def pipeline(features):
            scale = 2.0

            def normalise(y):
                return tf.sin(y) * scale

            return tf.data.Dataset.from_tensor_slices(features).map(normalise)


        for _ in range(100):
            pipeline(tf.ones([8, 8]))
        """
    )
    v = analyse(source)["pipeline.normalise"]
    assert not v.passes and "has_covered_callers" in v.failures, v.failures
