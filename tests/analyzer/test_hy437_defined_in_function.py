"""HY437: a function defined inside another is not rewritten under TensorFlow.

`@tf.function` on a nested `def` makes a new `Function` each time the enclosing body runs:
each traces at its first call (tests/analyzer/test_benefit_rules_measured.py measures it,
traces == calls of the enclosing function). Measured here on TF 2.21, what else a decorator
there changes, in one definition called twice: a closed-over local the enclosing body rebinds
between the calls is frozen at its first value (the function traced once). In edward2's run,
`LSTMCellRank1._sample_weights`'s `sample` compiled failed in the trace lookup of its calls
("The truth value of an array with more than one element is ambiguous"; not reduced further
here). Under torch.compile a nested function compiles once across
definitions (same file), and the check does not apply. `--include-low-benefit` proposes no
nested definition either: the finding fails the verdict.
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


def enclosing():
    scale = 1.0

    @tf.function
    def nested(x):
        return x * scale

    first = float(nested(tf.constant(1.0)))
    scale = 2.0
    second = float(nested(tf.constant(1.0)))
    return f"{first}:{second}:{nested.experimental_get_tracing_count()}"


print("closure", enclosing())
"""


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_a_nested_tf_function_freezes_a_closed_over_local_the_enclosing_body_rebinds() -> None:
    measured = run_probe(PROBE)
    assert measured["closure"] == "1.0:1.0:1", "the rebound closure cell is not read again"


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

NESTED = ("Cell.sample_weights.sample", "train.step", "train.Scaler.apply")


def test_nested_definitions_are_blocked_and_never_proposed() -> None:
    verdicts = analyse(SOURCE)
    for qualname in NESTED:
        found = [f for f in verdicts[qualname].findings if f.code == "HY437"]
        assert found and not verdicts[qualname].passes, (qualname, verdicts[qualname].findings)
        assert "defined inside `" in found[0].message
    assert verdicts["top"].passes and not any(f.code == "HY437" for f in verdicts["top"].findings)
    result = Project.from_texts({"m.py": SOURCE}, ProjectOptions(False, use_cache=False)).results()
    every = Selection(include_low_benefit=True)
    proposed = {v.qualname for v in result.functions if every.proposes(v)}
    assert "top" in proposed
    assert not proposed & set(NESTED), proposed


def test_a_nested_torch_function_is_not_this_checks() -> None:
    source = textwrap.dedent(
        """
        import torch


        def train(x, steps):
            def step(y):
                return (torch.sin(y) * 2.0).sum()

            for _ in range(steps):
                step(x)


        train(torch.ones(8, 8), 1000)
        """
    )
    found = analyse(source)["train.step"].findings
    assert not any(f.code == "HY437" for f in found), found
