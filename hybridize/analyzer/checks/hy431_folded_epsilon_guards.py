"""HY431 folded_epsilon_guards: a small constant guarding a difference that Grappler's
constant folding moves into the difference, where it rounds away."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, cast

from hybridize.analyzer.facts.callgraph import call_sites
from hybridize.analyzer.facts.cited_lines import cited_line
from hybridize.analyzer.facts.evaluator import (
    Evaluator,
    ResolvedCall,
    TensorFacts,
    argument_at,
    get_evaluator,
)
from hybridize.analyzer.facts.evidence import Evidence
from hybridize.analyzer.facts.predicates import is_tensor_like
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.safety import mentions
from hybridize.analyzer.facts.scan_memo import per_module
from hybridize.analyzer.facts.values import is_lit_atom
from hybridize.analyzer.frameworks.framework import Framework
from hybridize.analyzer.summaries.box_overlaps import Bindings, intersection_calls, union_calls
from hybridize.analyzer.summaries.hooks import FunctionEnd, SummaryContext, SummaryHook
from hybridize.analyzer.summaries.ir import FunctionSummary, ModuleSummary, Sym
from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.analyzer.summaries.syms import call_sym, is_call, is_op, op_operands
from hybridize.model import Finding, Span, fast_pickling

from . import TENSORFLOW_ONLY, Check

if TYPE_CHECKING:
    from hybridize.analyzer.checks.context import CheckContext

SMALL_OFFSET = 1e-3
"""The largest constant taken for a guard: the measured range, 1e-12 to 1e-3, in all of which
compiled results differed (non-finite up to 1e-8 next to operands near 1); any constant
vanishes next to operands large enough (float32 keeps 24 bits: `y - c == y` once
`|y| > 2**24 * c`)."""
SMALL_FLOAT64_OFFSET = 1e-11
"""The largest guard reported where the analysis knows the constant is float64
(`tf.constant(eps, tf.float64)`): measured, a float64 guard of 1e-12 gives values and
gradients beyond rtol 1e-5 (finite: 53 bits keep a 1e-12 next to 1 only to about 1e-4 of
itself), and one of 1e-10 or more the eager result."""


@fast_pickling
@dataclass(frozen=True, slots=True)
class OffsetSum:
    """`(a - b) + c` written as one expression: a sum or difference of two operands (either
    itself a sum or difference of more: `a - i + b + c`) with one more operand added or
    subtracted (is it a small constant that TensorFlow's constant folding pushes into the
    inner operation, where it rounds away?). Recorded by the check's summary hook, for the
    first expression of each value: written whole (`x - y + eps`, `eps + (x - y)`) or
    through a name bound and read once (`d = x - y` ... `d + eps`; in a `def` only)."""

    value: Sym
    """The value of the whole expression."""
    terms: tuple[Sym, Sym]
    """The inner operation's operands, `a` and `b`."""
    offset: Sym
    """The operand added to, or subtracted from, their sum or difference: `c`."""
    subtracted: tuple[Sym, ...]
    """What the sum subtracts, flattened over every `+` and `-` of the inner operation (`i`
    of `a - i + b + c`, `a + (b - i) + c`; `b` of `a - (b - i) + c`), the offset among them
    when it is subtracted (`x + y - c`). Empty for a sum of added terms (`x + y + c`), which
    the arithmetic optimizer sums as written (`AddN`): measured finite."""
    span: Span
    """The statement that holds the expression."""
    intersection: tuple[tuple[int, str], ...] = ()
    """When `a - b` is `A + B - I`, `I` the size of the intersection of the boxes whose sizes
    are `A` and `B`, every extent clipped at 0 (`summaries/box_overlaps.py`): the calls that
    recognition presumes, as (index into `FunctionSummary.calls`, the op it must be:
    "maximum", "minimum", "relu", "transpose"). Empty otherwise."""


@dataclass(frozen=True, slots=True, eq=False)
class _Difference:
    """`d = x - y` (or `x + y`): remembered for `d + eps` within the walk of a function."""

    name: str
    value: Sym
    written: ast.BinOp


@dataclass(frozen=True, slots=True, eq=False)
class _Met:
    """An `OffsetSum` as the walk meets it, with what settling it needs once the function is
    complete: the inner sum as written and its value, and the name read for it (`d + eps`;
    "" for a sum written in the expression)."""

    offset_sum: OffsetSum
    written: ast.BinOp
    inner: Sym
    through: str = ""


_ADDITIVE = frozenset({ast.Add, ast.Sub})
"""The operators of sums and differences (`OffsetSum`)."""
_OFFSET_EXPRESSIONS = frozenset({ast.Constant, ast.Name, ast.Attribute, ast.UnaryOp, ast.Call})
"""What may stand for a constant offsetting a sum (`eps`, `1e-8`, `-1e-8`, `self.eps`,
`tf.constant(1e-8)`): whether it is one, the solved values tell."""


def _offset_sums_met(
    node: ast.Assign | ast.BinOp, context: SummaryContext
) -> Iterator[_Difference | _Met]:
    """The summary hook's visit: a name bound to a sum or difference, or `(a - b) + c`
    (either side, `+` or `-`), written in the expression or through such a name."""
    if type(node) is ast.Assign:
        [target] = node.targets if len(node.targets) == 1 else [None]
        inner = node.value
        if type(target) is ast.Name and type(inner) is ast.BinOp and type(inner.op) in _ADDITIVE:
            value = context.value(inner)
            if is_op(value) and len(op_operands(value)) == 2:
                yield _Difference(target.id, value, inner)
        return
    assert type(node) is ast.BinOp
    if type(node.op) not in _ADDITIVE:
        return
    pair = (context.value(node.left), context.value(node.right))
    whole = context.value(node)
    for inner, offset, inner_sym, offset_sym in (
        (node.left, node.right, pair[0], pair[1]),
        (node.right, node.left, pair[1], pair[0]),
    ):
        if (
            type(inner) is ast.BinOp
            and type(inner.op) in _ADDITIVE
            and type(offset) in _OFFSET_EXPRESSIONS
            and is_op(inner_sym)
            and len(op_operands(inner_sym)) == 2
        ):
            offset_sum = _offset_sum_of(
                whole, inner, inner_sym, node, offset_sym, inner is node.left, context.statement
            )
            yield _Met(offset_sum, inner, inner_sym)
            return
        if type(inner) is ast.Name and type(offset) in _OFFSET_EXPRESSIONS:
            difference = _bound_difference(context.earlier(), inner.id)
            if difference is not None:
                offset_sum = _offset_sum_of(
                    whole,
                    difference.written,
                    difference.value,
                    node,
                    offset_sym,
                    inner is node.left,
                    context.statement,
                )
                yield _Met(offset_sum, difference.written, difference.value, inner.id)
                return


def _bound_difference(earlier: Sequence[object], name: str) -> _Difference | None:
    """The last sum or difference bound to `name` so far."""
    for value in reversed(earlier):
        if isinstance(value, _Difference) and value.name == name:
            return value
    return None


def _offset_sums_kept(found: Sequence[_Difference | _Met], end: FunctionEnd) -> list[OffsetSum]:
    """The summary hook's finish: the first `OffsetSum` of each value written whole; in a
    `def`, then those through a name bound once and read once in the function (any nested
    read counts: the graph's difference then has one use, as in `x - y + eps`; a difference
    used twice keeps its node, and the constant stays outside: measured); each that
    subtracts marked when it is `A + B - I` of boxes (`OffsetSum.intersection`)."""
    kept: dict[Sym, _Met] = {}
    through: list[_Met] = []
    for met in found:
        if isinstance(met, _Met):
            if met.through:
                through.append(met)
            elif met.offset_sum.value not in kept:
                kept[met.offset_sum.value] = met
    node = end.definition
    if node is None:
        return [met.offset_sum for met in kept.values()]
    if through:
        reads = dict.fromkeys({met.through for met in through}, 0)
        for child in ast.walk(node):
            if type(child) is ast.Name and child.id in reads and type(child.ctx) is ast.Load:
                reads[child.id] += 1
        for met in through:
            if reads[met.through] == 1 and len(end.bindings(met.through)) == 1:
                kept.setdefault(met.offset_sum.value, met)
    bindings: Bindings | None = None
    settled = []
    for met in kept.values():
        offset_sum = met.offset_sum
        if offset_sum.subtracted:
            bindings = bindings or Bindings.of(node)
            presumed = _presumed_intersection(met, bindings, end)
            if presumed:
                offset_sum = replace(offset_sum, intersection=presumed)
        settled.append(offset_sum)
    return settled


def _presumed_intersection(
    met: _Met, bindings: Bindings, end: FunctionEnd
) -> tuple[tuple[int, str], ...]:
    """For `A + B - I` (its terms in any order: `A - I + B`) whose `I` is the size of the
    intersection of the boxes whose sizes `A` and `B` are (`box_overlaps`): the calls
    presumed, by their index in the function's calls; else nothing."""
    difference = met.written
    terms = _additive_terms(difference, met.inner)
    added = [term for term, _, negated in terms if not negated]
    subtracted = [term for term, _, negated in terms if negated]
    if len(added) == 2 and len(subtracted) == 1:
        found = union_calls(added[0], added[1], subtracted[0], bindings)
    elif type(difference.op) is ast.Sub:
        found = intersection_calls(difference.left, difference.right, bindings)
    else:
        return ()
    if found is None:
        return ()
    presumed = set()
    for call, role in found:
        index = end.call_index(call)
        if index is None:
            return ()
        presumed.add((index, role))
    return tuple(sorted(presumed))


def _offset_sum_of(
    value: Sym,
    written: ast.BinOp,
    written_sym: Sym,
    outer: ast.BinOp,
    offset: Sym,
    inner_first: bool,
    span: Span,
) -> OffsetSum:
    """The offset sum `outer` (its value `value`) makes of the two-operand sum or difference
    `written` (as written in the expression, or bound once to a name the expression reads)
    and `offset`."""
    operands = op_operands(written_sym)
    return OffsetSum(
        value,
        (operands[0], operands[1]),
        offset,
        _subtracted_terms(written, written_sym, outer, offset, inner_first=inner_first),
        span,
    )


def _subtracted_terms(
    inner: ast.BinOp, inner_sym: Sym, outer: ast.BinOp, offset: Sym, *, inner_first: bool
) -> tuple[Sym, ...]:
    """What the sum `outer` subtracts once `inner`, its operand (first or not), is flattened
    over every `+` and `-` (`OffsetSum.subtracted`): Grappler's constant folding and the
    arithmetic optimizer regroup the whole sum, so the constant may meet any of its terms."""
    subtracts = type(outer.op) is ast.Sub
    found = [offset] if subtracts and inner_first else []
    found += [
        sym
        for _, sym, negated in _additive_terms(inner, inner_sym, subtracts and not inner_first)
        if negated
    ]
    return tuple(found)


def _additive_terms(
    expr: ast.expr, sym: Sym, negated: bool = False
) -> list[tuple[ast.expr, Sym, bool]]:
    """The terms of `expr` (its value `sym`), flattened over every `+` and `-` written in it,
    each with its value and whether it is subtracted (`a - i + b`: a, i subtracted, b)."""
    found: list[tuple[ast.expr, Sym, bool]] = []
    work: list[tuple[ast.expr, Sym, bool]] = [(expr, sym, negated)]
    while work:
        node, value, negated = work.pop()
        if (
            type(node) is ast.BinOp
            and type(node.op) in _ADDITIVE
            and is_op(value)
            and len(operands := op_operands(value)) == 2
        ):
            work.append((node.right, operands[1], negated != (type(node.op) is ast.Sub)))
            work.append((node.left, operands[0], negated))
        else:
            found.append((node, value, negated))
    return found


class FoldedEpsilonGuards(Check):
    """Guards a difference with a small constant that a traced graph moves into it.

    What it detects
    ---------------
    A small constant (a Python number of magnitude at most 1e-3: a literal, a module constant,
    an attribute or a parameter default the analysis knows the value of, a number the
    framework defines, read from its getter or kept in any of those: Keras' fuzz factor
    `tf.keras.backend.epsilon()` or `keras.config.epsilon()`, 1e-7 unless set, a float
    type's `eps` or `tiny` from `np.finfo(...)` or `tf.experimental.numpy.finfo(...)`; or
    such a number made a tensor inside the function: `tf.constant(1e-8)`,
    `tf.cast(eps, x.dtype)`, `tf.convert_to_tensor(eps)`; one whose dtype is written
    float64 only below 1e-11) added
    to, or subtracted from, a sum of tensors that subtracts one in one expression, the sum
    flattened over every `+` and `-` written in it (`x - y + eps`, `eps + (x - y)`,
    `a - i + b + eps`, `a + (b - i) + eps`), or subtracted from a sum of tensors
    (`x + y - eps`; not `x + y + eps`, nor `a + b + c + eps`), also through a name bound once
    and read once (`d = x - y` then `d + eps`), whose value reaches an op that is not finite at 0 or
    whose gradient is not: `tf.norm`, `tf.math.reduce_euclidean_norm`, `tf.sqrt`,
    `tf.math.rsqrt`, `tf.math.log`, `tf.pow`, `tf.math.divide`, `tf.math.truediv`,
    `tf.math.reciprocal`, or the operators `/` (its divisor) and `**` with a power below 1
    (`tf.exp(-tf.norm(x - y + eps, axis=2))`, `1.0 / (x - y + eps)`). The value may meet the
    op in the function, in a caller it returns the value to, or in a function the caller
    hands it to; every project function that calls one of them (transitively) traces the
    same expression and is reported too. Not reported: the union of two axis-aligned boxes,
    `A + B - I + eps`, where `I` is the product over the axes of the overlaps
    `tf.maximum(tf.minimum(hi1, hi2) - tf.maximum(lo1, lo2), 0)` (or `tf.nn.relu`) and `A`,
    `B` the products of the boxes' extents `tf.maximum(hi - lo, 0)` over the same axes
    (in any order: `A - I + B + eps`; either box may be transposed by a constant
    permutation; the coordinates are names the function binds once, or constant subscripts
    of them).

    Why it matters in graph mode
    ----------------------------
    Grappler's constant folding pass (`ConstantPushDown` in constant_folding.cc) rewrites an
    Add or Sub with one constant input and a single-use Add or Sub child so that the constant
    meets a leaf: `(x - y) + c` becomes `x + (c - y)`. Next to a leaf much larger than it the
    constant rounds away, so where `x == y` the guarded value is exactly 0 instead of `c`: the
    gradient of the norm or square root is NaN there, log and quotients are infinite. Eagerly
    the difference is taken first and the guard holds. Measured under TF 2.21 (operands 0.7
    to 3; tests/analyzer/test_hy431_folded_epsilon_guards.py measures it again): in float32,
    `tf.function` is non-finite for every op above where eager code is finite for c from 1e-12
    to 1e-8, and for c from 1e-7 to 1e-3 the square root, power, log and quotient differ
    beyond rtol 1e-5; `tf.add(tf.subtract(x, y), c)`, `tf.constant(c)` made inside the
    function, `1.0 / (x - y + c)`, `(x - y + c) ** 0.5` and `d = x - y` read once in
    `d + c` are the same graph and lose the guard alike. In float64 only a guard of 1e-12
    differed (finite, beyond rtol 1e-5; 1e-10 and above as eager): a Python number's dtype
    follows the operands, which the analysis does not know, so it is reported whatever they
    are; a tensor constant written float64 is reported below 1e-11 only. Switching `constant_folding` off restores the eager result, switching the
    arithmetic optimizer off does not. Left as written, and as finite as eager code: `x + c -
    y` (the constant meets a leaf either way), `x + y + c` (the arithmetic optimizer sums it in
    order), `sqrt(reduce_sum(square(x - y)) + c)`, `(x - y + c) ** 2`, a difference used
    twice (`d = x - y` read in `d + c` and elsewhere: its node has two uses), a constant
    made outside the function (a captured input) or a variable, and `jit_compile=True` (XLA
    keeps the order). tensorflow-model-remediation's `LaplacianKernel.call`
    (`tf.norm(x - y + 1e-8, axis=2)`) gave NaN gradients so. A framework's constant read in
    the function (`K.epsilon()`, `np.finfo(np.float32).eps`), from a module constant or an
    attribute is a Python number there, folded exactly as the literal of its value: measured,
    `1 / (x - y + K.epsilon())` at x = y gives eagerly 1e7 and traced 2**23 at 0.7, infinity
    at 3, as `1e-7` does (`np.finfo(np.float32).eps`: 2**23 eagerly, infinite traced at 3);
    nobrainer's Jaccard distance `1 - (i + eps) / (u - i + eps)` (`eps =
    tf.keras.backend.epsilon()`) of two equal float64 vectors is eagerly 0 and traced
    -2.2e-16, as with `1e-7`.

    The guard is lost only where the term it lands next to is not 0 while the guarded sum
    is: `x - y + c` keeps it at x = y = 0 and loses it at x = y = 0.7. In `a + b - i + c`
    Grappler moves c next to i (`(a + b) + (c - i)`), and the arithmetic optimizer may then
    sum the three terms in another order (`AddN`): measured, it loses the guard at a = b =
    0.5, i = 1 and also at a = 0.5, b = -0.5, i = 0 (the traced value is 0). The sum is
    regrouped whatever its association: `a - i + b + c` and `a + (b - i) + c` lose it at
    a = 0, i = b = 1 (the traced quotient is infinite, the eager one 1e8), so the shape is
    the flattened sum, with any subtracted tensor among its terms. A sum of added terms
    only, `a + b + c + eps`, is summed as written: measured finite at a = -b, c = 0 and at
    a + b = -c. A union of
    boxes with every extent clipped at 0 has all three terms 0 wherever it is 0 (some
    overlap is 0, and so is `I`, or each box holds the intersection: `A >= I`, `B >= I`,
    `A + B - I >= max(A, B)`), and no term exceeds the union elsewhere: measured finite
    and as eager (rtol 1e-5) where the union is 0 and on random boxes.
    Unclipped areas (tf-models' `bbox_overlap`) are negative for an upside-down box, whose
    area may cancel the other's where the intersection is 0: they stay reported.

    Example
    -------
        _EPSILON = 1e-8

        def laplacian(x, y):
            return tf.exp(-tf.norm(x - y + _EPSILON, axis=2) / 0.1)

    Instead
    -------
    Guard the op rather than the difference: `tf.sqrt(tf.reduce_sum(tf.square(x - y),
    axis=2) + eps)`, or `tf.maximum(...)`, or hand the constant in as a tensor made outside
    the function (a captured tensor is not a constant of the graph); or keep the function
    eager.

    Not for torch.compile
    ---------------------
    Inductor does not reassociate floating-point additions; the rule is TensorFlow's.
    """

    code = "HY431"
    frameworks = TENSORFLOW_ONLY
    name = "folded_epsilon_guards"
    severity = "error"
    summary = (
        "guards a difference with a small constant (`tf.norm(x - y + eps)`): traced, "
        "constant folding moves it into the difference, where it rounds away."
    )
    unblock = "guard the op instead (`tf.sqrt(tf.reduce_sum(tf.square(x - y)) + eps)`)"
    fact = "folded_epsilon_guards"
    fact_meaning = (
        "a small constant added to a sum of tensors that subtracts one reaches an op "
        "singular at 0: "
        "Grappler's constant folding moves it into the difference, where it rounds away"
    )
    decision_order = 151
    summary_hook = SummaryHook((ast.Assign, ast.BinOp), _offset_sums_met, _offset_sums_kept)
    EXAMPLE_FUNCTION = "f"

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """The guard the function traces (its own, or a callee's), for a function that may
        be compiled and is not yet."""
        if not context.changes_on_compiling:
            return []
        evidence = folded_guards(context.index, context.facts).get(context.key)
        return cls.findings([evidence]) if evidence is not None else []


@dataclass(frozen=True, slots=True)
class _Guard:
    """An `OffsetSum` whose offset is a small constant, whose terms are tensors and which
    subtracts a tensor or the constant."""

    value: Sym
    text: str
    span: Span


def folded_guards(index: ProjectIndex, facts: TensorFacts) -> dict[FunctionKey, Evidence]:
    """Every function whose graph holds a guard constant folding erases: those whose guard
    reaches an op singular at 0 (here, in a caller, in a function the caller calls on it),
    and their callers, transitively. Memoised per solution; which functions write such an
    expression at all is kept per module (`per_module`), so a project without one costs a
    look at each changed module."""
    cached = facts.cache.get("folded_epsilon_guards")
    if cached is not None:
        return cast("dict[FunctionKey, Evidence]", cached)
    writers = per_module(facts, index, "offset_sum_writers", _offset_sum_writers)
    found: dict[FunctionKey, Evidence] = {}
    for relpath in sorted(writers):
        for key in writers[relpath]:
            for owner, evidence in _erased(index, facts, key):
                found.setdefault(owner, evidence)
    work = sorted(found, key=str)
    while work:
        key = work.pop()
        for caller, _, resolved, _ in call_sites(index, facts, key):
            if caller not in found and not caller.is_module_code:
                found[caller] = Evidence(
                    f"{found[key].message} (in `{index.function(key).qualname}`, called at "
                    f"line {cited_line(caller.file, resolved.site.span.start_line)})",
                    resolved.site.span,
                )
                work.append(caller)
    facts.cache["folded_epsilon_guards"] = found
    return found


def _offset_sum_writers(relpath: str, module: ModuleSummary) -> list[FunctionKey]:
    return [
        FunctionKey(relpath, qualname)
        for qualname, fn in module.functions.items()
        if _offset_sums(fn)
    ]


def _guards(index: ProjectIndex, facts: TensorFacts, key: FunctionKey) -> list[_Guard]:
    """The function's sums offset by a small constant, both of whose terms may be tensors,
    that subtract the constant or a term that may be a tensor (`OffsetSum.subtracted`)."""
    fn = index.function(key)
    framework = index.function_framework(key)
    evaluator = get_evaluator(index, facts, key)
    calls = {resolved.index: resolved for resolved in facts.calls.get(key, [])}
    found = []
    for offset_sum in _offset_sums(fn):
        value = offset_sum.value
        if not offset_sum.subtracted:
            continue
        constant = None
        if is_call(offset_sum.offset):
            constant = _graph_constant(framework, calls.get(offset_sum.offset[1]))
        if constant is None:  # also a number a framework's call returns: `K.epsilon()`
            constant = _small_constant(evaluator.eval(offset_sum.offset))
        if constant is None or _intersection_of_boxes(framework, offset_sum, calls):
            continue
        if _tensors(evaluator, offset_sum.terms) and (
            offset_sum.offset in offset_sum.subtracted
            or any(_tensors(evaluator, (t,)) for t in offset_sum.subtracted)
        ):
            found.append(_Guard(value, _written(key.file, offset_sum, constant), offset_sum.span))
    return found


def _tensors(evaluator: Evaluator, values: tuple[Sym, ...]) -> bool:
    """Whether every one of `values` may be a tensor."""
    return all(any(is_tensor_like(a) for a in evaluator.eval(v)) for v in values)


def _intersection_of_boxes(
    framework: Framework, offset_sum: OffsetSum, calls: dict[int, ResolvedCall]
) -> bool:
    """`A + B - I + eps` where `I` is the size of the intersection of the boxes whose sizes
    `A` and `B` are, every extent clipped at 0 (`OffsetSum.intersection`), each call the
    recognition presumes being the TensorFlow op it must be: wherever the sum is 0 all three
    terms are, so whichever the traced graph adds `eps` to, it is kept (and elsewhere none
    exceeds the sum), as eagerly."""
    if not offset_sum.intersection:
        return False
    for index, role in offset_sum.intersection:
        resolved = calls.get(index)
        if resolved is None or resolved.targets or not resolved.api:
            return False
        ops = framework.box_overlap_ops.get(role, frozenset())
        if not all(info.name in ops for info in resolved.api):
            return False
    return True


def _small_constant(atoms: object, largest: float = SMALL_OFFSET) -> float | None:
    """The value of a Python number of magnitude at most `largest` (not 0), when every
    value the offset may have is one."""
    values = []
    for atom in cast("tuple[tuple, ...]", atoms):
        if not is_lit_atom(atom) or not isinstance(atom[2], int | float):
            return None
        values.append(float(atom[2]))
    if not values or not all(0 < abs(v) <= largest for v in values):
        return None
    return values[0]


def _graph_constant(framework: Framework, resolved: ResolvedCall | None) -> float | None:
    """The value of a small Python number made a tensor inside the function
    (`tf.constant(1e-8)`, `tf.cast(1e-8, x.dtype)`): a constant of the traced graph, which
    Grappler folds as it does the number (measured; a tensor made outside the function is a
    captured input, and stays). A float64 one (its dtype written) only below
    `SMALL_FLOAT64_OFFSET`."""
    if resolved is None or not resolved.args:
        return None
    if not any(info.name in framework.graph_constant_makers for info in resolved.api):
        return None
    dtype = argument_at(resolved.args, resolved.kwargs, (1, "dtype"))
    float64 = dtype is not None and any(_names_float64(atom) for atom in dtype)
    return _small_constant(resolved.args[0], SMALL_FLOAT64_OFFSET if float64 else SMALL_OFFSET)


def _written(file: str, offset_sum: OffsetSum, constant: float) -> str:
    line = cited_line(file, offset_sum.span.start_line)
    return f"a difference of tensors offset by {constant:g} (line {line})"


def _erased(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey
) -> Iterator[tuple[FunctionKey, Evidence]]:
    """The functions where a guard of `key` meets an op singular at 0: `key` itself, a
    caller it returns the guarded value to, or the caller when it hands it to a project
    function that applies the op (`key` is reported with them: its own graph computes the
    rounded value)."""
    fn = index.function(key)
    for guard in _guards(index, facts, key):
        site = _singular_use(index, key, fn, facts.calls.get(key, []), guard.value)
        if site is not None:
            yield key, _evidence(guard, key.file, site)
            continue
        if not any(mentions(fn, returned, {guard.value}) for returned in fn.returns):
            continue
        for caller, caller_fn, resolved, _ in call_sites(index, facts, key):
            site = _singular_use(
                index, caller, caller_fn, facts.calls.get(caller, []), call_sym(resolved.index)
            )
            if site is not None:
                evidence = _evidence(guard, caller.file, site, f"in `{caller_fn.qualname}`, ")
                yield key, evidence
                yield caller, evidence


def _singular_use(
    index: ProjectIndex,
    key: FunctionKey,
    fn: FunctionSummary,
    calls: list[ResolvedCall],
    value: Sym,
) -> Span | None:
    """Where the function hands `value` (or a value built from it) to an op singular at 0
    (its framework's `singular_at_zero`), or divides by it or raises it to a power below 1
    (`/`, `**`)."""
    for operand, span in fn.singular_operands.items():
        if mentions(fn, operand, {value}):
            return span
    singular = index.function_framework(key).singular_at_zero
    for resolved in calls:
        if not any(info.name in singular for info in resolved.api):
            continue
        site = resolved.site
        arguments = [*site.args, *(v for _, v in site.kwargs)]
        if any(mentions(fn, argument, {value}) for argument in arguments):
            return site.span
    return None


def _evidence(guard: _Guard, file: str, site: Span, where: str = "") -> Evidence:
    """`where`: who applies the op, when another function does (`site` is in `file`)."""
    return Evidence(
        f"{guard.text} reaches an op not finite at 0 ({where}line {cited_line(file, site.start_line)}): "
        "traced, Grappler's constant folding moves the constant into the difference, where "
        "it rounds away next to a larger operand; where the operands are equal the guard is "
        "lost (NaN gradients, infinite values), though eagerly it holds",
        guard.span,
        (site,),
    )


def _names_float64(atom: tuple) -> bool:
    """`tf.float64` (`tf.double`) or `"float64"` as a dtype argument."""
    return atom in _FLOAT64_DTYPES


_FLOAT64_DTYPES = frozenset(
    {
        ("ext", "tensorflow.float64"),
        ("ext", "tensorflow.double"),
        ("lit", "str", "float64"),
        ("lit", "str", "double"),
    }
)


def _offset_sums(fn: FunctionSummary) -> tuple[OffsetSum, ...]:
    """The sums offset by one more operand that `fn` writes (`OffsetSum`)."""
    found: tuple[OffsetSum, ...] = FoldedEpsilonGuards.summary_facts(fn)
    return found
