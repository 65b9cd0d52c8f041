"""Inclusion-exclusion of boxes, recognised on a function's syntax: `A + B - I` where `I` is
the size of the intersection of two axis-aligned boxes and `A`, `B` are their sizes, every
extent and overlap clipped at 0.

HY431 (`checks/hy431_folded_epsilon_guards.py`) asks it of `A + B - I + eps`: traced, Grappler
moves the constant next to `I` (`(A + B) + (eps - I)`) and the arithmetic optimizer may sum
the three terms in any order (`AddN`), so the guard survives only if every term is 0 wherever
the sum is. Over each axis, `I`'s factor is the overlap `max(min(hi1, hi2) - max(lo1, lo2), 0)`
and `A`'s and `B`'s are the extents `max(hi1 - lo1, 0)` and `max(hi2 - lo2, 0)`. Either some
overlap is 0, and then `I` is exactly 0, or every overlap is positive, and then every extent
is at least its overlap (`min` and `max` are exact, rounded subtraction and multiplication
monotone), so `A >= I` and `B >= I`. With `A`, `B` and `I` at least 0, `A + B - I >= max(A, B)`:
where the sum is 0, all three are, and `eps` meets only zeros; elsewhere no term exceeds the
sum, and nothing rounds away beyond its last bits. An extent not clipped may be negative (an
upside-down box): `A = -B` makes the sum 0 where neither is, and the constant rounds away
next to one of them (measured: traced `a + b - i + eps` is 0 at a = 0.5, b = -0.5, i = 0).

The recognition is syntactic: each call is only presumed to be the op its role names
(`maximum`, `minimum`, `relu`, `transpose`); the caller confirms them once calls are resolved.
Names are followed to their value only when the function binds them once, in straight-line
code (its body or a `with` block), so that two reads of a name are one value.
"""

from __future__ import annotations

import ast
import itertools
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import cast

MAXIMUM = "maximum"
MINIMUM = "minimum"
RELU = "relu"
TRANSPOSE = "transpose"
"""The roles a call may play in the recognised expression; the check maps each to the
framework's ops (`Framework.box_overlap_ops`)."""

_MOST_AXES = 4
"""Boxes of up to four axes (intervals, rectangles, cuboids): the matching tries every pairing
of overlaps with extents."""

Leaf = str
"""A value the recognition does not look into, by its text: a name bound once (or a parameter), a
subscript of one with constant indexes, or a leaf transposed by a constant permutation."""
Obligation = tuple[ast.Call, str]


@dataclass(frozen=True, slots=True)
class Bindings:
    """The names a function binds once, in straight-line code: the expression assigned, or
    None for a parameter or a name bound by unpacking (a leaf)."""

    values: dict[str, ast.expr | None]

    @classmethod
    def of(cls, node: ast.FunctionDef | ast.AsyncFunctionDef) -> Bindings:
        counts: Counter[str] = Counter()
        declared: set[str] = set()
        for child in ast.walk(node):
            for name in _bound_names(child):
                counts[name] += 1
            if isinstance(child, ast.Global | ast.Nonlocal):
                declared.update(child.names)
        straight: dict[str, ast.expr | None] = {}
        for stmt in _straight_line(node.body):
            if type(stmt) is not ast.Assign or len(stmt.targets) != 1:
                continue
            target = stmt.targets[0]
            if type(target) is ast.Name:
                straight[target.id] = stmt.value
            elif isinstance(target, ast.Tuple | ast.List):
                for element in target.elts:
                    if type(element) is ast.Name:
                        straight[element.id] = None
        params = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
        for param in params:
            straight.setdefault(param.arg, None)
        return cls(
            {
                name: value
                for name, value in straight.items()
                if counts[name] == 1 and name not in declared
            }
        )


def intersection_calls(
    total: ast.expr, pushed: ast.expr, bindings: Bindings
) -> tuple[Obligation, ...] | None:
    """The calls presumed, when `total` is `A + B` and `pushed` is the size of the
    intersection of the boxes whose sizes are `A` and `B`, over the same axes; else None."""
    total = _value(total, bindings)
    if type(total) is not ast.BinOp or type(total.op) is not ast.Add:
        return None
    return union_calls(total.left, total.right, pushed, bindings)


def union_calls(
    area: ast.expr, other: ast.expr, pushed: ast.expr, bindings: Bindings
) -> tuple[Obligation, ...] | None:
    """The calls presumed, when `area + other - pushed` (in any order) is the size of the
    union of two boxes: `pushed` the size of their intersection, `area` and `other` theirs,
    over the same axes; else None."""
    calls: list[Obligation] = []
    first = _extents(area, bindings, calls, ())
    second = _extents(other, bindings, calls, ())
    overlaps = _overlaps(pushed, bindings, calls)
    if first is None or second is None or overlaps is None:
        return None
    if not len(first) == len(second) == len(overlaps) <= _MOST_AXES:
        return None
    for order_first in itertools.permutations(first):
        for order_second in itertools.permutations(second):
            if all(
                _covers(overlap, a, b)
                for overlap, a, b in zip(overlaps, order_first, order_second, strict=True)
            ):
                return tuple(calls)
    return None


def _covers(
    overlap: tuple[tuple[Leaf, Leaf], tuple[Leaf, Leaf]],
    a: tuple[Leaf, Leaf],
    b: tuple[Leaf, Leaf],
) -> bool:
    """`max(min(hi1, hi2) - max(lo1, lo2), 0)` against the extents `hi1 - lo1`, `hi2 - lo2`."""
    highs, lows = overlap
    return Counter(highs) == Counter((a[0], b[0])) and Counter(lows) == Counter((a[1], b[1]))


def _extents(
    expr: ast.expr,
    bindings: Bindings,
    calls: list[Obligation],
    perms: tuple[tuple[int, ...] | None, ...],
) -> list[tuple[Leaf, Leaf]] | None:
    """A box's size: a product of extents `max(hi - lo, 0)`, each as its two leaves; a
    transpose of the whole applies to every leaf (elementwise ops commute with it; the
    overlaps' explicit transposes of the same leaves show their rank is the permutation's)."""
    found: list[tuple[Leaf, Leaf]] = []
    for factor in _factors(expr, bindings):
        if type(factor) is ast.Call and (transposed := _transposed(factor, calls)) is not None:
            inner = _extents(factor.args[0], bindings, calls, (*perms, transposed[0]))
            if inner is None:
                return None
            found += inner
            continue
        difference = _clipped_difference(factor, bindings, calls)
        if difference is None:
            return None
        high = _leaf(difference.left, bindings, calls)
        low = _leaf(difference.right, bindings, calls)
        if high is None or low is None:
            return None
        for perm in reversed(perms):
            high, low = _transposed_leaf(perm, high), _transposed_leaf(perm, low)
        found.append((high, low))
    return found


def _overlaps(
    expr: ast.expr, bindings: Bindings, calls: list[Obligation]
) -> list[tuple[tuple[Leaf, Leaf], tuple[Leaf, Leaf]]] | None:
    """The intersection's size: a product of `max(min(hi1, hi2) - max(lo1, lo2), 0)`, each as
    its two upper and two lower leaves."""
    found = []
    for factor in _factors(expr, bindings):
        difference = _clipped_difference(factor, bindings, calls)
        if difference is None:
            return None
        highs = _pair(difference.left, MINIMUM, bindings, calls)
        lows = _pair(difference.right, MAXIMUM, bindings, calls)
        if highs is None or lows is None:
            return None
        found.append((highs, lows))
    return found


def _factors(expr: ast.expr, bindings: Bindings) -> list[ast.expr]:
    """The factors of a product written with `*` (through names bound once)."""
    expr = _value(expr, bindings)
    if type(expr) is ast.BinOp and type(expr.op) is ast.Mult:
        return _factors(expr.left, bindings) + _factors(expr.right, bindings)
    return [expr]


def _clipped_difference(
    expr: ast.expr, bindings: Bindings, calls: list[Obligation]
) -> ast.BinOp | None:
    """`a - b` of `maximum(a - b, 0)` (or `relu(a - b)`)."""
    clipped = _clipped(expr, bindings, calls)
    difference = None if clipped is None else _value(clipped, bindings)
    if type(difference) is not ast.BinOp or type(difference.op) is not ast.Sub:
        return None
    return difference


def _pair(
    expr: ast.expr, role: str, bindings: Bindings, calls: list[Obligation]
) -> tuple[Leaf, Leaf] | None:
    """`minimum(a, b)` (or `maximum`) of two leaves."""
    expr = _value(expr, bindings)
    operands = _binary_call(expr) if type(expr) is ast.Call else None
    if operands is None:
        return None
    first, second = (_leaf(o, bindings, calls) for o in operands)
    if first is None or second is None:
        return None
    calls.append((cast("ast.Call", expr), role))
    return first, second


def _clipped(expr: ast.expr, bindings: Bindings, calls: list[Obligation]) -> ast.expr | None:
    """`e` of `maximum(e, 0)`, `maximum(0, e)` or `relu(e)`."""
    if type(expr) is not ast.Call or any(k.arg != "name" for k in expr.keywords):
        return None
    if len(expr.args) == 1 and _called(expr) == "relu":
        calls.append((expr, RELU))
        return expr.args[0]
    operands = _binary_call(expr)
    if operands is None:
        return None
    for inner, bound in (operands, operands[::-1]):
        if _is_zero(_value(bound, bindings)):
            calls.append((expr, MAXIMUM))
            return inner
    return None


def _binary_call(expr: ast.expr) -> tuple[ast.expr, ast.expr] | None:
    """The two operands of a call of two positional arguments (and maybe `name=`)."""
    if type(expr) is not ast.Call or any(k.arg != "name" for k in expr.keywords):
        return None
    if len(expr.args) != 2 or any(type(a) is ast.Starred for a in expr.args):
        return None
    return expr.args[0], expr.args[1]


def _transposed(expr: ast.Call, calls: list[Obligation]) -> tuple[tuple[int, ...] | None] | None:
    """The constant permutation of `transpose(x, perm)` (None for `transpose(x)`)."""
    if _called(expr) != "transpose" or not expr.args or len(expr.args) > 2:
        return None
    keywords = {k.arg: k.value for k in expr.keywords}
    if set(keywords) - {"perm", "name"} or any(type(a) is ast.Starred for a in expr.args):
        return None
    written = expr.args[1] if len(expr.args) == 2 else keywords.get("perm")
    perm = None if written is None else _int_tuple(written)
    if written is not None and perm is None:
        return None
    calls.append((expr, TRANSPOSE))
    return (perm,)


def _leaf(expr: ast.expr, bindings: Bindings, calls: list[Obligation]) -> Leaf | None:
    """A name bound once or a parameter (followed to its value while that is one), a
    subscript of one by constants, or a transpose of a leaf."""
    if type(expr) is ast.Name:
        if expr.id not in bindings.values:
            return None
        value = bindings.values[expr.id]
        followed = None if value is None else _leaf(value, bindings, calls)
        return expr.id if followed is None else followed
    if type(expr) is ast.Subscript and _constant_index(expr.slice):
        base = _leaf(expr.value, bindings, calls)
        return None if base is None else f"{base}[{ast.dump(expr.slice)}]"
    if type(expr) is ast.Call and (perm := _transposed(expr, calls)) is not None:
        inner = _leaf(expr.args[0], bindings, calls)
        return None if inner is None else _transposed_leaf(perm[0], inner)
    return None


def _transposed_leaf(perm: tuple[int, ...] | None, leaf: Leaf) -> Leaf:
    return f"transpose({leaf}, {perm})"


def _value(expr: ast.expr, bindings: Bindings) -> ast.expr:
    """The expression a name bound once holds (again while it is such a name)."""
    for _ in range(64):
        value = bindings.values.get(expr.id) if type(expr) is ast.Name else None
        if value is None:
            break
        expr = value
    return expr


def _called(call: ast.Call) -> str | None:
    """The last part of the called name (`tf.math.maximum` -> `maximum`)."""
    func = call.func
    if type(func) is ast.Attribute:
        return func.attr
    if type(func) is ast.Name:
        return func.id
    return None


def _is_zero(expr: ast.expr) -> bool:
    return type(expr) is ast.Constant and type(expr.value) in (int, float) and expr.value == 0


def _int_tuple(expr: ast.expr) -> tuple[int, ...] | None:
    if not isinstance(expr, ast.List | ast.Tuple):
        return None
    values = [e.value for e in expr.elts if type(e) is ast.Constant]
    if len(values) != len(expr.elts) or not all(type(v) is int for v in values):
        return None
    return tuple(cast("list[int]", values))


def _constant_index(index: ast.expr) -> bool:
    """An index of constants, slices of constants and `...` only."""
    return all(
        type(node) in _INDEX_NODES or isinstance(node, ast.expr_context | ast.unaryop)
        for node in ast.walk(index)
    )


_INDEX_NODES = frozenset({ast.Constant, ast.Slice, ast.Tuple, ast.UnaryOp})


def _straight_line(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements run once, in order, each time the function runs: its body's, and those
    of `with` blocks in it."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, ast.With | ast.AsyncWith):
            yield from _straight_line(stmt.body)


def _bound_names(node: ast.AST) -> Iterator[str]:
    """The names a node binds (or deletes) in any scope of the function: counted against
    each name, so that a name bound twice anywhere is not followed."""
    if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
        yield node.id
    elif isinstance(node, ast.arg):
        yield node.arg
    elif isinstance(node, ast.alias):
        yield node.asname or node.name.split(".")[0]
    elif isinstance(node, _NAMED_BINDERS) and node.name:
        yield node.name
    elif isinstance(node, ast.MatchMapping) and node.rest:
        yield node.rest


_NAMED_BINDERS = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.ExceptHandler,
    ast.MatchAs,
    ast.MatchStar,
)
"""Nodes that bind the name they hold in `name`."""
