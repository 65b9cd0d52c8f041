"""HY110 undeterminable_side_effects: calls a callable parameter whose effects are unknown."""

from __future__ import annotations

from hybridize.analyzer.checks.context import CheckContext
from hybridize.model import Finding

from . import TENSORFLOW_AND_TORCH, Check


class UndeterminableSideEffects(Check):
    """Calls a callable parameter whose side effects cannot be determined.

    What it detects
    ---------------
    A call through a parameter (a callback, an activation, a loss function passed in) when
    the analysis cannot tell which function it is at some call site, for example because
    the caller looks it up dynamically with `getattr` or receives it from outside the
    analysed code, or a method of an object looked up in a mapping passed in
    (`handlers[key].get(op).create_variables(...)`: onnx-tf's handler classes, one of which
    makes `tf.Variable`s); also when the function calls a user function that does this. When
    every caller passes a known function, that function's own effects are checked instead. Also an
    augmented assignment (`v += w`) to a value the function did not create and whose kind is
    unknown: on a list, dict or NumPy array it changes the caller's object in place, on a
    tensor or a number it only rebinds the local name. Also a call of `exec` or `eval`: the
    code it runs is built at run time (tf-pwa's `opt_lambdify` builds a function from a
    SymPy expression's text and returns it).

    Why it matters in graph mode
    ----------------------------
    Whatever the callable does runs while tracing: if it prints, logs, appends to a list or
    draws Python random numbers, those effects happen once per trace instead of once per
    call, exactly as if they were written in the function itself (see HY101-HY109). Since
    the callable is unknown, hybridize cannot promise the graph behaves like the eager
    code, and it leaves the function alone.

    Example
    -------
        def dense(x, w, activation):
            return activation(tf.matmul(x, w))

        dense(x, w, getattr(tf.nn, config["activation"]))

    Instead
    -------
    Make the callable visible to the analysis, for example by choosing it from an explicit
    mapping of known functions, or resolve the callable in eager code and compile a
    function that receives only tensors:

        ACTIVATIONS = {"relu": tf.nn.relu, "gelu": tf.nn.gelu}

        dense(x, w, ACTIVATIONS[config["activation"]])

    Under torch.compile
    -------------------
    An unknown callable may do any of the above under torch.compile too.
    """

    code = "HY110"
    unblock = "choose the callable from an explicit mapping of known functions, or resolve it in eager code"
    frameworks = TENSORFLOW_AND_TORCH
    name = "undeterminable_side_effects"
    severity = "warning"
    summary = "Calls a callable parameter whose side effects are unknown."
    EXAMPLE_FUNCTION = "f"

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """The first effect the analysis cannot determine, when no effect is certain."""
        effects = context.effects
        if effects is None or effects.has_effects:
            return []
        return [
            cls.finding(effect.message, effect.span)
            for effect in effects.undeterminable[:1]
            if effect.code == cls.code
        ]
