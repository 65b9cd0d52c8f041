"""HY401 has_invalid_name_arguments: a non-string name= to a TensorFlow operation."""

from __future__ import annotations

from hybridize.analyzer.checks.context import CheckContext
from hybridize.analyzer.facts.safety import invalid_name_arguments
from hybridize.model import Finding

from . import TENSORFLOW_ONLY, Check


class HasInvalidNameArguments(Check):
    """Passes a value that is not a string as `name` to a TensorFlow operation.

    What it detects
    ---------------
    A TensorFlow operation whose `name` parameter receives a constant that is not a string
    or `None`, by keyword (`name=0`, `name=tf.float32`) or by position. The positional case
    is the usual mistake: `tf.sqrt(x, tf.float32)` looks like it passes a dtype, but the
    second parameter of `tf.sqrt` is `name`.

    Why it matters in graph mode
    ----------------------------
    Eagerly, most operations ignore `name`, so the mistake goes unnoticed. When building a
    graph, TensorFlow uses the name for the node and validates it: a non-string raises
    `TypeError` (or `ValueError` for an invalid scope name) while tracing. Adding
    `@tf.function` breaks the code.

    Example
    -------
        def rms(x):
            return tf.sqrt(tf.reduce_mean(tf.square(x)), tf.float32)

    Instead
    -------
    Pass the intended argument by its keyword (cast explicitly if a dtype was meant), and
    give names as strings:

        @tf.function
        def rms(x):
            return tf.sqrt(tf.cast(tf.reduce_mean(tf.square(x)), tf.float32), name="rms")

    Not for torch.compile
    ---------------------
    About the `name=` argument of TensorFlow ops; PyTorch ops have none.
    """

    code = "HY401"
    unblock = "pass the argument by its keyword and give name= a string"
    frameworks = TENSORFLOW_ONLY
    name = "has_invalid_name_arguments"
    severity = "error"
    summary = "Binds a non-string value to a TensorFlow op's name= parameter; graph building fails."
    EXAMPLE_FUNCTION = "f"
    fact = "has_invalid_name_arguments"
    fact_meaning = "a non-string constant bound to an op's `name=`"
    report_order = 30
    decision_order = 30

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        return cls.findings(invalid_name_arguments(context.scan))
