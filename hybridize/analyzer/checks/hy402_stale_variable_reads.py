"""HY402 has_stale_variable_reads: trainable_variables read before the model is built."""

from __future__ import annotations

from hybridize.analyzer.checks.context import CheckContext
from hybridize.analyzer.facts.safety import stale_variable_reads
from hybridize.model import Finding

from . import TENSORFLOW_ONLY, Check


class HasStaleVariableReads(Check):
    """Reads a model's variables before the model's first call in the function.

    What it detects
    ---------------
    A function that reads `model.trainable_variables` (or `trainable_weights`, `variables`)
    before it first calls the model, and feeds that list to `tape.gradient`,
    `optimizer.apply_gradients` or `optimizer.minimize`. Keras creates a model's weights on
    its first call, so the list read before it may be empty or incomplete.

    Why it matters in graph mode
    ----------------------------
    Eagerly, only the first step sees the empty list; every later step reads the built
    weights afresh. In a graph the list is read while tracing and frozen into the graph, and
    TensorFlow traces a function that creates variables more than once on its first call.
    Which list each trace captures, and so which variables the compiled step differentiates
    and updates, then depends on tracing internals instead of on the program. In practice
    the compiled step updates the weights on the first call where the eager step did not,
    and the two runs diverge from there.

    Example
    -------
        def train_step(x, y):
            variables = model.trainable_variables     # empty before the first call
            with tf.GradientTape() as tape:
                loss = loss_fn(y, model(x))
            grads = tape.gradient(loss, variables)
            optimizer.apply_gradients(zip(grads, variables))

    Instead
    -------
    Read the variables after the forward pass, and build the model eagerly (call it once or
    `model.build(input_shape)`) before the first traced call:

        model.build((None, 3))

        @tf.function
        def train_step(x, y):
            with tf.GradientTape() as tape:
                loss = loss_fn(y, model(x))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))

    Not for torch.compile
    ---------------------
    About Keras' lazily built `trainable_variables`; nn.Module parameters exist from
    construction.
    """

    code = "HY402"
    unblock = "build the model eagerly (call it once, or model.build) before the first traced call"
    frameworks = TENSORFLOW_ONLY
    name = "has_stale_variable_reads"
    severity = "error"
    summary = "Reads model.trainable_variables before the model's first call and trains on them."
    EXAMPLE_FUNCTION = "f"
    fact = "has_stale_variable_reads"
    fact_meaning = (
        "`model.trainable_variables` read before the model's first call and fed to "
        "`gradient`/`apply_gradients`/`minimize`"
    )
    report_order = 40
    decision_order = 40

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        return cls.findings(stale_variable_reads(context.scan))
