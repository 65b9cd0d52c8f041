"""HY413: a GradientTape the caller recorded, read inside the function.

The check's examples (hybridize/check_examples/HY413) run through test_check_examples; these
tests measure the claim behind it on the installed TensorFlow, and pin what the verdict does
with the finding: the function is not refactorable (a rewrite would silently change results).
"""

from __future__ import annotations

import importlib.util
import textwrap

import pytest
from facts_helpers import verdict

from hybridize.analyzer.checks import check_of

TRAINING = """
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(4)])
optimizer = tf.keras.optimizers.SGD(0.1)


def apply_grads(tape, loss):
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


def train(data):
    for x, y in data:
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x) - y))
        apply_grads(tape, loss)


train([(tf.ones([8, 3]), tf.ones([8, 4]))] * 100)
"""


def test_a_received_tape_blocks_the_function_with_hy413() -> None:
    v = verdict(textwrap.dedent(TRAINING), "apply_grads")
    assert not v.passes
    [finding] = [f for f in v.findings if f.code == "HY413"]
    assert finding.severity == check_of("HY413").severity == "error"
    assert finding.span.start_line == 9  # the `tape.gradient(...)` call
    assert "`tape`" in finding.message


def test_the_caller_that_records_and_reads_its_own_tape_is_not_concerned() -> None:
    v = verdict(textwrap.dedent(TRAINING), "train")
    assert not any(f.code == "HY413" for f in v.findings)


@pytest.mark.tensorflow
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_a_traced_function_reading_a_received_tape_gets_no_gradient() -> None:
    """Measured under TF 2.21: eagerly the caller's tape gives the gradient; traced, the loss is
    a placeholder the tape never saw: None, or zeros with UnconnectedGradients.ZERO."""
    import tensorflow as tf

    v = tf.Variable([1.0, 2.0])

    def grads(tape: tf.GradientTape, loss: tf.Tensor, zero: bool) -> list[object]:
        unconnected = tf.UnconnectedGradients.ZERO if zero else tf.UnconnectedGradients.NONE
        return tape.gradient(loss, [v], unconnected_gradients=unconnected)

    with tf.GradientTape(persistent=True) as tape:
        loss = tf.reduce_sum(v * v)
    eager = grads(tape, loss, True)[0]
    traced_zero = tf.function(grads)(tape, loss, True)[0]
    traced_none = tf.function(grads)(tape, loss, False)[0]
    assert eager.numpy().tolist() == [2.0, 4.0]
    assert traced_zero.numpy().tolist() == [0.0, 0.0]
    assert traced_none is None
