"""HY445 called_on_temporary_receivers: a method called on an instance nothing else holds."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hybridize.analyzer.checks import TENSORFLOW_ONLY, Check
from hybridize.analyzer.facts.cited_lines import cited_line
from hybridize.analyzer.facts.evidence import Evidence
from hybridize.analyzer.facts.nested_compiled import breaking_method
from hybridize.analyzer.summaries.hooks import SummaryContext, SummaryHook
from hybridize.analyzer.summaries.syms import is_call
from hybridize.model import Finding, Span, fast_pickling

if TYPE_CHECKING:
    from hybridize.analyzer.checks.context import CheckContext
    from hybridize.analyzer.facts.evaluator import TensorFacts
    from hybridize.analyzer.facts.resolve import ProjectIndex
    from hybridize.analyzer.summaries.keys import FunctionKey


@fast_pickling
@dataclass(frozen=True, slots=True)
class TemporaryReceiver:
    """An attribute read on the result of a call (`Cls(...).name`): the attribute, the
    function's call site that made the object (its index in `FunctionSummary.calls`), and
    where the read is."""

    name: str
    call: int
    span: Span


def _temporary_receivers(node: ast.AST, context: SummaryContext) -> Iterator[TemporaryReceiver]:
    """An attribute read whose object is the result of a call written in place
    (`Cls(...).method`): the object is held by nothing but the expression."""
    assert isinstance(node, ast.Attribute)
    if not isinstance(node.ctx, ast.Load) or not isinstance(node.value, ast.Call):
        return
    made = context.value(node.value)
    if is_call(made):
        end = node.end_col_offset or 0
        span = Span(node.lineno, node.col_offset, node.end_lineno or node.lineno, end)
        yield TemporaryReceiver(node.attr, made[1], span)


class CalledOnTemporaryReceivers(Check):
    """Called as a method of an instance made in place, which nothing else holds.

    What it detects
    ---------------
    A method bound to an instance (not a staticmethod or classmethod) that a caller reads on
    an object it constructs in the same expression and keeps nowhere: `Scaler(2.0).apply(x)`
    as a statement, an argument or a returned value, `functools.partial(Scaler().apply)`,
    `f = Scaler().apply; f(x)`: the class constructed is a project class whose lookup of the
    name finds the method (the method may be inherited). Not a Keras layer's or model's
    method (measured: the instance survives the call), and not a method whose body (its
    nested functions, lambdas and comprehensions included) never reads its receiver
    parameter: a zero-argument `super()` reads it (measured: such a method works compiled on
    a temporary; `FunctionSummary.loads_receiver`).

    Why it matters in graph mode
    ----------------------------
    A `tf.function` on a method binds the instance through a weak reference (TF 2.21:
    `Function.__get__` keeps one bound copy per instance in a weak-keyed cache, its
    `TfMethodTarget` holds `weakref.ref(instance)`), not as Python's bound methods do. Once
    the attribute is read, nothing holds the temporary: it is freed before the call runs, and
    the traced body sees `self` None: "AttributeError: 'NoneType' object has no attribute
    ..." (a body that never reads `self` runs fine). Measured (tests/analyzer/test_hy445_temporary_receivers_measured.py measures it
    again): `C().m(x)` as a statement, an argument, a returned value, through
    `functools.partial(C().m)` and through a local holding `C().m` fail on every call, a
    `tf.Module` subclass too; the same instance held by a local (`c = C(); c.m(x)`) and a
    Keras layer's methods (`L()(x)`, `L().call(x)`, `L().m(x)`: a layer's own tracking
    keeps references to it) are fine; eagerly every form works. A class that stores its
    instance somewhere in `__init__` (a registry) keeps it alive: not followed.

    Example
    -------
        class Scaler:
            def __init__(self, k):
                self.k = k

            def apply(self, x):
                return x * self.k

        def scaled(x):
            return Scaler(2.0).apply(x)

    Instead
    -------
    Hold the instance in a local while the method runs (`s = Scaler(2.0); s.apply(x)`), or
    compile a free function the method delegates to.

    Under torch.compile
    -------------------
    Not reported: `torch.compile` of a method gives a plain function, which Python binds to
    the instance strongly (measured on torch 2.13: each form above works compiled).
    """

    code = "HY445"
    frameworks = TENSORFLOW_ONLY
    name = "called_on_temporary_receivers"
    severity = "error"
    summary = (
        "A method called on an instance made in place (`Cls().method(x)`): tf.function binds "
        "the instance weakly, it is freed before the call and the body sees `self` None."
    )
    unblock = "hold the instance in a local while the method runs (`c = Cls(); c.method(x)`)"
    fact = "called_on_temporary_receivers"
    fact_meaning = (
        "(TensorFlow) a method some caller reads on an instance it constructs in place "
        "(`Cls().method(x)`, `partial(Cls().method)`): tf.function holds the instance by a weak "
        "reference, and the temporary is freed before the compiled call runs (`self` None)"
    )
    decision_order = 159
    EXAMPLE_FUNCTION = "Scaler.apply"
    summary_hook = SummaryHook((ast.Attribute,), _temporary_receivers)

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """The first caller reading the method on a temporary, for a method not compiled yet."""
        if not context.changes_on_compiling:
            return []
        return cls.findings(temporary_receivers(context.index, context.facts, context.key))


def temporary_receivers(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey
) -> list[Evidence]:
    """The first read of the method on an instance its reader constructs in place (a direct
    caller's, or one that passes it on as a callback), as evidence on the method."""
    if key.is_module_code:
        return []
    fn = index.function(key)
    if fn.class_qualname is None or fn.parent_qualname is not None or not breaking_method(fn):
        return []
    if not fn.loads_receiver:
        return []  # the traced body never reads `self`: an instance freed before is not missed
    readers = facts.callers.get(key, set()) | facts.callback_callers.get(key, set())
    for reader in sorted(readers, key=str):
        reads = [
            r
            for r in CalledOnTemporaryReceivers.summary_facts(index.function(reader))
            if isinstance(r, TemporaryReceiver) and r.name == fn.name
        ]
        if not reads:
            continue
        calls = {r.index: r for r in facts.calls.get(reader, [])}
        for read in reads:
            made = calls.get(read.call)
            if made is None or not made.constructs:
                continue
            for kind, class_key in made.targets:
                if kind != "class" or index.layer_role(class_key) is not None:
                    continue
                if index.find_method(class_key, fn.name) != key:
                    continue
                where = "module code" if reader.is_module_code else f"`{reader.qualname}`"
                line = cited_line(reader.file, read.span.start_line)
                return [
                    Evidence(
                        f"{where} (line {line}) calls it on an instance of `{class_key.qualname}` it "
                        "constructs in place and holds nowhere: tf.function binds the instance "
                        "by a weak reference, the temporary is freed before the compiled call "
                        "runs, and the body sees `self` None",
                        fn.span,
                    )
                ]
    return []
