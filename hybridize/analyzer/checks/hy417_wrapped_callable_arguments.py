"""HY417 receives_wrapped_callables: a callable argument with `__wrapped__` loses its wrapper."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hybridize.analyzer.checks import TENSORFLOW_ONLY, Check
from hybridize.analyzer.facts.wrapped_callables import wrapped_callable_arguments
from hybridize.analyzer.summaries.syms import kind_of
from hybridize.model import Finding, Span

if TYPE_CHECKING:
    from hybridize.analyzer.checks.context import CheckContext


class ReceivesWrappedCallables(Check):
    """Receives a callable made with `functools.wraps`: traced, it gets the wrapped function.

    What it detects
    ---------------
    A parameter that a caller (or its default) fills with a project callable carrying
    `__wrapped__`: a function decorated by a project decorator whose wrapper uses
    `functools.wraps` (or `functools.update_wrapper`, or sets `__wrapped__` itself), such a
    wrapper made by a call (`apply(x, scaled(f))`), an object of a class whose `__init__`
    makes it a wrapper, a bound method of such a function, or a list, tuple or dict of them.

    Why it matters in graph mode
    ----------------------------
    `tf.function` keys its traces on the trace type of each argument, and the trace type of
    a value with `__wrapped__` is the wrapped object's: the traced body receives the *wrapped*
    function (TF 2.21, `trace_type_builder.from_value`). Whatever the wrapper adds is silently
    gone: measured, a wrapper multiplying the result by 10 gives `[20., 30.]` eagerly and
    `[2., 3.]` traced, with and without AutoGraph; a wrapped method loses its bound `self`.
    The same wrapper read from a global or a closure keeps its behaviour (AutoGraph converts
    the wrapper's own code), and so do TensorFlow's own dispatching ops, whose wrapped
    function computes the same (tests/analyzer/test_hy417_wrapped_callable_arguments.py).

    Example
    -------
        def scaled(fn):
            @functools.wraps(fn)
            def wrapper(x):
                return fn(x) * 10.0
            return wrapper

        @scaled
        def activation(x):
            return x + 1.0

        def apply(x, fn):
            return fn(tf.matmul(x, x))

        apply(x, activation)

    Instead
    -------
    Read the callable from the enclosing scope instead of passing it in (a global, an
    attribute of `self`, a closure), or pass a plain function that calls the wrapper:

        @tf.function
        def apply(x):
            return activation(tf.matmul(x, x))

    Not for torch.compile
    ---------------------
    Dynamo calls the argument it is given; it does not replace a wrapper by `__wrapped__`.
    """

    code = "HY417"
    frameworks = TENSORFLOW_ONLY
    name = "receives_wrapped_callables"
    severity = "error"
    summary = (
        "receives a callable carrying `__wrapped__` (functools.wraps): traced, tf.function "
        "passes the wrapped function instead, and the wrapper's behaviour is silently lost."
    )
    unblock = "read the wrapped callable from a global, closure or attribute instead of passing it"
    fact = "receives_wrapped_callables"
    fact_meaning = (
        "a parameter filled with a project callable carrying `__wrapped__` (`functools.wraps`, "
        "`update_wrapper`): traced, `tf.function` passes the wrapped function and the "
        "wrapper's behaviour is lost"
    )
    decision_order = 140
    EXAMPLE_FUNCTION = "f"

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """Each parameter receiving such a callable, for a function not compiled yet (a
        compiled one already gets the wrapped function)."""
        if not context.changes_on_compiling:
            return []
        scan = context.scan
        uses: dict[str, Span] = {}
        for site in scan.fn.calls:
            callee = site.callee
            parameter = (
                scan.parameter_behind(callee) if kind_of(callee) in ("local", "param") else None
            )
            if parameter is not None:
                uses.setdefault(parameter, site.span)
        return cls.findings(
            wrapped_callable_arguments(context.index, context.facts, context.key, uses)
        )
