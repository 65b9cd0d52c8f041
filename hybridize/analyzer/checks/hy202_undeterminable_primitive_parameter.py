"""HY202 undeterminable_primitive_parameter: whether a parameter gets Python values is unknown."""

from __future__ import annotations

from hybridize.analyzer.checks.context import CheckContext
from hybridize.analyzer.facts.retracing import retrace_evidence
from hybridize.model import Finding

from . import TENSORFLOW_AND_TORCH, Check


class UndeterminablePrimitiveParameter(Check):
    """Whether a parameter receives Python values cannot be decided.

    What it detects
    ---------------
    A function without `@tf.function` where a caller passes, for some parameter, a value the
    analysis cannot classify as a tensor or a Python value: a field of a parsed command
    line, an entry of a configuration loaded at run time, the result of an unknown
    third-party call; and those values can differ between calls (an element of a list read
    from a file, two different fields at two call sites, a loop over them). One such value
    that stays the same through the run (a single command-line option passed at every call)
    traces at most once even if it is a Python number, and is not reported. The finding
    points at the call that passes it.

    Why it matters in graph mode
    ----------------------------
    If the value turns out to be a Python number or string, every new value traces a new
    graph (see HY201): a learning rate or a temperature read from the command line makes the
    compiled function retrace on each change, which can be far slower than eager code.
    Without knowing, hybridize does not add the decorator.

    Example
    -------
        config = json.load(open("config.json"))

        def scaled_softmax(logits, temperature):
            return tf.nn.softmax(logits / temperature)

        for temperature in config["temperatures"]:
            scaled_softmax(logits, temperature)

    Instead
    -------
    Convert the value to a tensor where it enters the program, so the analysis and
    `tf.function` both see a tensor:

        for temperature in config["temperatures"]:
            scaled_softmax(logits, tf.constant(temperature, dtype=tf.float32))

    Under torch.compile
    -------------------
    Unknown parameter kinds may be Python numbers that recompile, as for TensorFlow.
    """

    code = "HY202"
    unblock = "convert the value to a tensor where it enters the program"
    frameworks = TENSORFLOW_AND_TORCH
    name = "undeterminable_primitive_parameter"
    severity = "warning"
    summary = "A caller passes a value that may be a Python literal; retracing is undeterminable."
    EXAMPLE_FUNCTION = "f"

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """Values of unknown kind that differ between calls (when no literal does)."""
        params = context.retraces.unknown
        if not params:
            return []
        verb = context.index.function_framework(context.key).retrace_verb
        text = (
            "a caller passes values of unknown kind that differ between calls for "
            f"{{parts}}: a Python number there would {verb} on every new value"
        )
        return cls.findings([retrace_evidence(context.key, params, text, context.function.span)])
