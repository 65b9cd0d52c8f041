"""HY201 has_primitive_parameters: callers pass Python literals, so each value retraces."""

from __future__ import annotations

from . import Check


class HasPrimitiveParameters(Check):
    """A caller passes Python literals for a parameter.

    What it detects
    ---------------
    A parameter that receives only Python literals (an `int`, `float` or `str`, or a list
    or tuple of them) at some call site. Booleans and `None` do not count (they have two
    values at most), nor does a parameter with a default that no caller passes.

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
    """

    code = "HY201"
    name = "has_primitive_parameters"
    severity = "warning"
    summary = "A caller passes Python int/float/str literals: each new value forces a retrace."
    EXAMPLE_FUNCTION = "f"
