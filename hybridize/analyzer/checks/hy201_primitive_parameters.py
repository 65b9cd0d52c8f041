"""HY201 has_primitive_parameters: callers pass Python literals, so each value retraces."""

from __future__ import annotations

from hybridize.analyzer.checks.context import CheckContext
from hybridize.analyzer.facts.retracing import retrace_evidence
from hybridize.model import Finding

from . import TENSORFLOW_AND_TORCH, Check


class HasPrimitiveParameters(Check):
    """Callers pass Python literals for a parameter that differ between calls.

    What it detects
    ---------------
    A parameter that receives only Python literals (an `int`, `float` or `str`, or a list,
    tuple or dict of them) at some call site, when those values can differ from one call to
    the next: two call sites pass different constants (a default taken at one site counts
    as a value), a site passes a loop variable or an element of an iteration, a value
    recomputed from a changing source, a parameter of the caller that itself receives
    differing values, a global that a function reassigns, an attribute written outside
    `__init__`, or `int()`/`float()` of a tensor. A value read back from a container counts
    as what was put there: a tuple's or short list's element by a constant index, a dict's
    value by a constant string key (`params["rate"]`, `step = new_point["step"]` of a dict a
    function returns), decided per key where the caller stores into the dict by key (unless
    it hands the dict to a call, which may store anything). The same constant at every call
    (a module setting, `len(self.layers)`, `beam_width + 1` of a fixed `beam_width`) traces
    once and is not reported. Booleans and `None` do not count (they have two values at most), nor does
    a parameter with a default that no caller passes. The finding points at the call that
    shows the varying value (a call in another file is named in the message).

    Why it matters in graph mode
    ----------------------------
    `tf.function` caches graphs by the types and shapes of tensor arguments but by the
    *value* of every other argument. Each distinct literal traces a new graph: a learning
    rate, a step number or a temperature that changes between calls makes the function
    retrace every time, which is much slower than running eagerly, and TensorFlow warns
    about excessive retracing. Removing an existing decorator for this reason is HY011.

    Example
    -------
        def scaled_softmax(logits, temperature):
            return tf.nn.softmax(logits / temperature)

        for t in (2.0, 1.0, 0.5):
            scaled_softmax(logits, t)

    Instead
    -------
    Pass the value as a tensor, so one graph serves every value; keep Python values only
    for things that really select a different graph (and then expect one trace per value):

        @tf.function
        def scaled_softmax(logits, temperature):
            return tf.nn.softmax(logits / temperature)

        for t in (2.0, 1.0, 0.5):
            scaled_softmax(logits, tf.constant(t))

    Under torch.compile
    -------------------
    Dynamo guards on Python numbers: a new value recompiles once, after which the value is
    made dynamic (measured: 5 distinct values, 2 frames). A number computed from the shape of
    a tensor the caller receives (`x.size(0)`, `math.floor(x.shape[-1] / 2)`) counts as
    varying: once shapes change, Dynamo passes it as a symbolic int, a regime with gaps of
    its own (measured on gpytorch: "NYI SymInt equality" in the backward of `pow` with such
    an exponent). Under tf.function it is a constant of each shape's trace.
    """

    code = "HY201"
    unblock = "pass the varying value as a tensor, so that one graph serves every value"
    frameworks = TENSORFLOW_AND_TORCH
    name = "has_primitive_parameters"
    severity = "warning"
    summary = (
        "Callers pass Python int/float/str literals that differ between calls: each new value "
        "forces a retrace."
    )
    EXAMPLE_FUNCTION = "f"

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """Python literals that differ between calls, at the call site that shows it."""
        params = context.retraces.literal
        if not params:
            return []
        verb = context.index.function_framework(context.key).retrace_verb
        text = (
            "a caller passes Python literals that differ between calls for {parts}: "
            f"each new value {verb}s"
        )
        return cls.findings([retrace_evidence(context.key, params, text, context.function.span)])
