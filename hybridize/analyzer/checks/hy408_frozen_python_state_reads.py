"""HY408 has_frozen_python_state_reads: reads state that other code reassigns between calls."""

from __future__ import annotations

from hybridize.analyzer.checks.context import CheckContext
from hybridize.analyzer.facts.frozen_state import frozen_state_reads
from hybridize.model import Finding

from . import TENSORFLOW_ONLY, Check


class HasFrozenPythonStateReads(Check):
    """Reads an attribute of `self`, of an argument object or a module global that other code reassigns.

    What it detects
    ---------------
    A function that reads `self.threshold`, a module global, or an attribute of a
    module-level object or of a project object a nested function closes over
    (`schedule.lr` in a `step` defined in `train`), when the project binds a new value to that attribute or global
    somewhere else after initialisation, whatever the value's kind (a Python value, a
    tensor, an object TensorFlow converts to a tensor, a layer): in a method other than
    `__init__` (or a Keras `build`), in a function declaring it `global`, or in module code
    inside a loop or after a call of the function. A write the trace runs itself (in the
    function or a project function it calls) is not between calls; a method binding a
    variable it makes (`self.w = tf.Variable(...)`, Sonnet's `@once` `_initialize`) creates
    the state. Also an attribute of an argument object of a project class (`settings.scale`
    in `scaled(x, settings)`, a field of an `eq=False` dataclass), and the attributes of
    `self` that the argument's class reads in `__tf_tensor__` (an object TensorFlow converts
    inside the trace), under the same evidence: the project assigns the attribute outside
    initialisation (a setter, another method, a caller). Reads in the project functions it calls count too: they are traced with it. A module-level object of no
    project class counts by the global that holds it (a `threading.local()` flag that a
    context manager sets, as larq's `quantized_scope`), and `getattr(obj, "name", default)`
    with a literal name is a read of `obj.name`.

    Why it matters in graph mode
    ----------------------------
    `tf.function` runs the Python body once, while tracing, and keeps what it read: a
    Python number becomes a constant of the graph, an eager tensor a captured constant.
    The cache key holds the function's arguments, not the state it reads, so a later
    `model.threshold = 0.9` or `global THRESHOLD` assignment does not retrace: the graph
    keeps computing with the old value, silently. An object converted to a tensor (edward2's
    random variables, which `LSTMCellReparameterization.call_weights` samples anew before
    each sequence) is embedded as the tensor it gave; a `tf.Variable` is captured by
    reference: changed with `assign` it stays live, but a new object bound in its place is
    not read (measured on TF 2.21, tests/analyzer/test_frozen_state_measured.py). An
    argument object that is no list, tuple, dict, named tuple or attrs instance is keyed by
    identity (a `Weakref` trace type) and the body is traced with the object itself: a later
    call with the same object, an attribute reassigned, runs the graph with what the trace
    read (1.0 and 1.0 where eager gives 1.0 and 7.0; a tensor field 2.0 and 2.0 for 2.0 and
    9.0; an object converted by `__tf_tensor__` 2.0 and 2.0 for 2.0 and 6.0: measured,
    tests/analyzer/test_python_object_arguments_measured.py).

    Example
    -------
        THRESHOLD = 0.5

        def masked(x):
            return tf.cast(x > THRESHOLD, tf.float32) * x

        for THRESHOLD in (0.1, 0.5, 0.9):
            masked(features)

    Instead
    -------
    Keep state that changes in a `tf.Variable` and `assign` it, or pass the value as an
    argument (a tensor, so that it does not retrace per value):

        threshold = tf.Variable(0.5)

        @tf.function
        def masked(x):
            return tf.cast(x > threshold, tf.float32) * x

    Not for torch.compile
    ---------------------
    tf.function freezes Python state read at trace time; Dynamo guards on it and recompiles
    when it changes, so the values stay right.
    """

    code = "HY408"
    unblock = "keep the changing state in a tf.Variable, or pass it as a tensor argument"
    frameworks = TENSORFLOW_ONLY
    name = "has_frozen_python_state_reads"
    severity = "error"
    summary = (
        "Reads a `self` attribute, an argument object's attribute or a global that other code "
        "reassigns: a graph keeps the value it saw while tracing."
    )
    EXAMPLE_FUNCTION = "f"
    fact = "has_frozen_python_state_reads"
    fact_meaning = (
        "a read of Python state the project reassigns between calls: the graph keeps the "
        "traced value"
    )
    report_order = 90
    decision_order = 90

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """What compiling would change: only for a function that may be compiled and is not yet."""
        if not context.changes_on_compiling:
            return []
        return cls.findings(frozen_state_reads(context.index, context.facts, context.key))
