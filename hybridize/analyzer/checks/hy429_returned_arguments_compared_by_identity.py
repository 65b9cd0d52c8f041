"""HY429 returns_arguments_compared_by_identity: a caller asks whether what the function gives
back is the very object it passed."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from hybridize.analyzer.facts.callgraph import call_sites
from hybridize.analyzer.facts.cited_lines import cited_line
from hybridize.analyzer.facts.evaluator import ResolvedCall, TensorFacts
from hybridize.analyzer.facts.predicates import made_of, walk_syms
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.returns import passed_through
from hybridize.analyzer.facts.scan_memo import per_function
from hybridize.analyzer.summaries.hooks import FunctionEnd, SummaryContext, SummaryHook
from hybridize.analyzer.summaries.ir import FunctionSummary, Sym
from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.analyzer.summaries.syms import SymKind, attr_name, call_sym, is_attr, is_lit
from hybridize.model import Finding, Span, fast_pickling

from . import TENSORFLOW_ONLY, Check

if TYPE_CHECKING:
    from hybridize.analyzer.checks.context import CheckContext

IDENTITY_ASSERTIONS = frozenset({"assertIs", "assertIsNot"})
"""`unittest.TestCase`'s identity assertions (and absltest's and tf.test's, which inherit them)."""
IDENTITY_FUNCTIONS = frozenset({"builtins.id", "operator.is_", "operator.is_not"})
"""Calls whose answer is the identity of their argument."""
HOLDING_KINDS: frozenset[SymKind] = frozenset({"item", "iter", "cond"})
"""Values that are the result or one of its elements (not computed from it: a sum is a new
object whichever way the function runs)."""


_OBJECT_IDENTITY_TESTS = frozenset({ast.Is, ast.IsNot})
"""Comparisons of object identity, which a compiled function's new result objects change."""


@fast_pickling
@dataclass(frozen=True, slots=True)
class IdentityComparison:
    """A value the body compares by identity with another value (`a is b`, `a is not b`; a
    comparison with a literal such as `None` is left out), with the statement where it is
    first compared: a compiled function gives back new objects, never its arguments."""

    operand: Sym
    span: Span


def _identity_comparisons(
    node: ast.Compare, context: SummaryContext
) -> Iterator[IdentityComparison]:
    """The operands of a comparison by identity with no literal among them."""
    if not any(type(op) in _OBJECT_IDENTITY_TESTS for op in node.ops):
        return
    operands = [context.value(node.left), *(context.value(c) for c in node.comparators)]
    if any(is_lit(operand) for operand in operands):
        return
    for operand in operands:
        yield IdentityComparison(operand, context.statement)


def _first_of_each(
    found: Sequence[IdentityComparison], end: FunctionEnd
) -> Iterator[IdentityComparison]:
    """Each value compared, once, where it is first compared."""
    seen: set[Sym] = set()
    for comparison in found:
        if comparison.operand not in seen:
            seen.add(comparison.operand)
            yield comparison


class ReturnsArgumentsComparedByIdentity(Check):
    """Returns an argument as given, and a caller compares the result by identity.

    What it detects
    ---------------
    A function that may return a parameter's value as given (`return x`, or inside a tuple,
    list or dict: `return (inputs, corrupt(inputs)), labels`, through locals and branches),
    one of whose callers (tests included) asks for the identity of the result or of an element
    of it: `result is x`, `result is not x`, `self.assertIs(result[0], x)`,
    `assertIsNot`, `id(result)`, `operator.is_`. A comparison with a literal (`is None`) is
    not one: `None` comes back as `None`.

    Why it matters in graph mode
    ----------------------------
    `tf.function` builds its results from the graph's outputs: every tensor, variable,
    `RaggedTensor`, `SparseTensor` or composite tensor (a tensorflow-gnn `GraphTensor`) it
    returns is a new Python object, even when the function returns its argument unchanged,
    and Python attributes set on the argument (Keras' `_keras_mask`) are not on it. Measured
    under TF 2.21: `f(t) is t` is True eagerly and False compiled, for a tensor, a ragged and
    a sparse tensor, inside a returned tuple too, and a variable comes back as a tensor. A
    caller that compares by identity takes another branch, and a test that asserts it fails:
    tensorflow-gnn's `ContrastiveLossTask.preprocess(inputs)` returns `(inputs,
    corrupted)`, and `assertIs(gts[0], gt)` failed in 4 tests once it was compiled.

    Example
    -------
        def pair(x):
            return x, tf.reverse(x, [0])

        same, _ = pair(t)
        assert same is t

    Instead
    -------
    Compare values (`tf.reduce_all(a == b)`, `assertAllEqual`), not objects, or leave the
    function that hands its argument back eager and compile the tensor work it calls.

    Not for torch.compile
    ---------------------
    Dynamo gives back the very tensor objects a function returns unchanged, inside tuples
    too, with their Python attributes (measured under torch 2.13).
    """

    code = "HY429"
    frameworks = TENSORFLOW_ONLY
    name = "returns_arguments_compared_by_identity"
    severity = "error"
    summary = (
        "returns an argument as given, and a caller compares the result by identity (`is`, "
        "`assertIs`, `id()`): a compiled function returns new objects."
    )
    unblock = "compare values, not objects, or leave the function eager"
    fact = "returns_arguments_compared_by_identity"
    fact_meaning = (
        "returns an argument as given, and a caller compares the result by identity: "
        "tf.function returns new objects"
    )
    decision_order = 148
    summary_hook = SummaryHook((ast.Compare,), _identity_comparisons, _first_of_each)
    EXAMPLE_FUNCTION = "f"

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """One finding naming the first caller that compares the result by identity, for a
        function not compiled yet that may return a parameter as given."""
        if not context.changes_on_compiling:
            return []
        index, facts, key = context.index, context.facts, context.key
        given = passed_through(index, facts, key)
        if not given:
            return []
        names = ", ".join(f"`{name}`" for name in sorted(given)[:3])
        fn = context.function
        unresolved = identity_compared_methods(index, facts).get(fn.name)
        if fn.class_qualname is not None and unresolved is not None:
            return [
                cls.finding(
                    f"may return {names} as given, and `{unresolved.qualname}` compares by "
                    f"identity what a call of a `.{fn.name}()` method it cannot tell apart "
                    "(its receiver's class is not known) returns: tf.function returns new "
                    "tensor objects, never its arguments",
                    fn.span,
                )
            ]
        for caller, caller_fn, resolved, _ in call_sites(index, facts, key):
            if caller == key:
                continue
            use = _identity_use(caller_fn, facts.calls.get(caller, []), call_sym(resolved.index))
            if use is None:
                continue
            where = "module code" if caller.is_module_code else f"`{caller_fn.qualname}`"
            return [
                cls.finding(
                    f"may return {names} as given, and {where} (line "
                    f"{cited_line(caller.file, resolved.site.span.start_line)}) {use}: tf.function returns new "
                    "tensor objects, never its arguments",
                    context.function.span,
                )
            ]
        return []

    @classmethod
    def project_fact(cls, index: ProjectIndex, facts: TensorFacts) -> object:
        """The methods whose results an unresolved call compares by identity: a test edited
        there changes the verdicts of every method of that name."""
        return identity_compared_methods(index, facts)


def identity_compared_methods(index: ProjectIndex, facts: TensorFacts) -> dict[str, FunctionKey]:
    """The names of methods whose result some function compares by identity where the call
    reaches no function the analysis knows (`task.preprocess(gt)` on a parameter annotated
    with an abstract base class, which tensorflow-gnn's parameterised tests pass), each with
    the first such function (in path order). Any method of that name may be the one called.
    Memoised per solution; the part of each function is kept across updates
    (`per_function`), and an incremental phase that sees this table change decides every
    function again (`engine.ProjectWide`, `project_fact`)."""
    cached = facts.cache.get("identity_compared_methods")
    if cached is not None:
        return cast("dict[str, FunctionKey]", cached)
    found: dict[str, FunctionKey] = {}
    scanned = per_function(
        facts, "identity_compared_methods", lambda key, calls: _unresolved_uses(index, key, calls)
    )
    for key in sorted(scanned, key=str):
        for name in scanned[key]:
            found.setdefault(name, key)
    facts.cache["identity_compared_methods"] = found
    return found


def _unresolved_uses(
    index: ProjectIndex, key: FunctionKey, calls: list[ResolvedCall]
) -> frozenset[str]:
    """The method names of the calls in `key` that reach nothing known and whose result the
    function compares by identity."""
    fn = index.function(key)
    if not _compared(fn) and not any(_asks_identity(resolved) for resolved in calls):
        return frozenset()
    return frozenset(
        attr_name(resolved.site.callee)
        for resolved in calls
        if is_attr(resolved.site.callee)
        and not resolved.targets
        and not resolved.api
        and _identity_use(fn, calls, call_sym(resolved.index)) is not None
    )


def _asks_identity(resolved: ResolvedCall) -> bool:
    """Whether the call asks for an identity (`assertIs`, `id()`), whatever its arguments."""
    return _identity_call_name(resolved) is not None


def _identity_call_name(resolved: ResolvedCall) -> str | None:
    """The name of the identity assertion or function the call is, as code writes it."""
    callee = resolved.site.callee
    if is_attr(callee) and attr_name(callee) in IDENTITY_ASSERTIONS:
        return attr_name(callee)
    # A loop rather than a generator: asked of every call of every function (`per_function`),
    # most of which reach no API or none of these.
    for info in resolved.api:
        if info.name in IDENTITY_FUNCTIONS:
            return info.name.removeprefix("builtins.")
    return None


def _identity_use(fn: FunctionSummary, calls: Iterable[ResolvedCall], result: Sym) -> str | None:
    """How `fn` asks for the identity of `result` (a call's result) or of an element of it,
    in words, if it does."""

    def holds(sym: Sym) -> bool:
        return any(current == result for current in walk_syms((sym,), follow))

    def follow(current: Sym) -> Iterable[Sym]:
        kind: SymKind = current[0]
        if kind in ("local", "name"):
            return fn.locals.get(current[1], ())
        return made_of(current) if kind in HOLDING_KINDS else ()

    if any(holds(comparison.operand) for comparison in _compared(fn)):
        return "compares it with `is`"
    for resolved in calls:
        # the call's own name first: most calls ask for no identity, and their arguments'
        # walks are then not needed
        if not _asks_identity(resolved):
            continue
        site = resolved.site
        arguments = [*site.args, *(value for _, value in site.kwargs)]
        if any(holds(argument) for argument in arguments):
            return f"asks for its identity with `{_identity_call_name(resolved)}`"
    return None


def _compared(fn: FunctionSummary) -> tuple[IdentityComparison, ...]:
    """The values `fn` compares by identity (`IdentityComparison`)."""
    found: tuple[IdentityComparison, ...] = ReturnsArgumentsComparedByIdentity.summary_facts(fn)
    return found
