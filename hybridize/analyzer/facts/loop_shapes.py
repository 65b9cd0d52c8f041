"""Loop-carried shape changes: a tensor whose static shape a `tf.while_loop` cannot keep.

Under `tf.function`, AutoGraph turns a `for` over a tensor (`tf.range(n)`, a tensor value) and
a `while` whose test is a tensor into a `tf.while_loop`. Every local the body rebinds that is
bound before the loop becomes a loop variable, and TensorFlow requires its static shape after
one iteration to be compatible with its shape before the loop. Eagerly nothing checks this.

A rebinding is a hazard on positive evidence only: its value comes from an op whose output
size depends on the data (`tf.boolean_mask`, `tf.gather` on such indices, ...), is set by a
tensor (`tf.slice` with a tensor size, slicing with a tensor bound), or grows the variable
itself (`tf.concat([x, y], 0)`), as the table `frameworks.output_shapes` says; values are
followed through locals, arithmetic and the ops that table says keep their input's shape.
The value before the loop must be able to have a static shape (a parameter: `tf.function`
traces with the caller's static shapes; a local not itself of data-dependent size) and be a
tensor (a Python `None` is not carried that way). Project functions the loop calls are not
followed for values; a function that calls one with the hazard has it too: the callee is
traced inside its caller's graph.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import cast

from hybridize.analyzer.facts.call_closure import traced_hazards
from hybridize.analyzer.facts.evaluator import (
    TF_TENSOR_KINDS,
    Evaluator,
    ResolvedCall,
    TensorFacts,
    get_evaluator,
)
from hybridize.analyzer.facts.evidence import Evidence
from hybridize.analyzer.facts.predicates import is_tensor_like, leaf_atoms
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.values import is_unknown_kind
from hybridize.analyzer.frameworks import lookup_parameters, output_shape_rule, written_name
from hybridize.analyzer.frameworks.output_shapes import OutputShape
from hybridize.analyzer.summaries.ir import FunctionSummary, StatementLoop, Sym
from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.analyzer.summaries.syms import SymKind, is_call, is_op, is_seq, is_slice, kind_of

MEMO = "loop_shapes"
OWN = "loop_shapes_own"
MAX_DEPTH = 12
"""How far a value is followed through locals and ops before giving up (no evidence)."""
LOOP_ITERABLE_KINDS = frozenset({"tensor", "variable"})
"""What a `for` iterates when AutoGraph makes it a `tf.while_loop` (a dataset loop becomes
a dataset reduction, which relaxes shapes: measured, not a hazard)."""


def _display(name: str) -> str:
    """An API's name as code writes it: `tf.random.uniform`."""
    return written_name(name)


class _Shapes:
    """The shape evidence of one function's values."""

    def __init__(self, index: ProjectIndex, facts: TensorFacts, key: FunctionKey) -> None:
        self.fn: FunctionSummary = index.function(key)
        self.evaluator: Evaluator = get_evaluator(index, facts, key)
        self.calls: dict[int, ResolvedCall] = {r.index: r for r in facts.calls.get(key, [])}

    def is_tensor(self, sym: Sym) -> bool:
        """Evaluates to a TensorFlow tensor (inside containers too): not a Python value."""
        return any(a[0] in TF_TENSOR_KINDS for a in leaf_atoms(self.evaluator.eval(sym)))

    def converted(self, loop: StatementLoop) -> bool:
        """AutoGraph makes the loop a `tf.while_loop`: a `for` over a tensor for sure, or a
        `while` whose test is a tensor."""
        atoms = [a for a in self.evaluator.eval(loop.header) if not is_unknown_kind(a)]
        if loop.kind == "for":
            return bool(atoms) and all(a[0] in LOOP_ITERABLE_KINDS for a in atoms)
        return any(a[0] in TF_TENSOR_KINDS for a in atoms)

    def _local_values(self, sym: Sym) -> list[Sym] | None:
        kind: SymKind = sym[0]
        if kind == "local" or (
            kind == "name" and sym[1] in self.fn.locals and sym[1] not in self.fn.globals_declared
        ):
            return self.fn.locals.get(sym[1], [])
        return None

    def _rule(self, sym: Sym) -> tuple[ResolvedCall, OutputShape, str] | None:
        if not is_call(sym):
            return None
        resolved = self.calls.get(sym[1])
        if resolved is None:
            return None
        for info in resolved.api:
            rule = output_shape_rule(info.name)
            if rule is not None:
                return resolved, rule, info.name
        return None

    def _argument(self, resolved: ResolvedCall, api: str, param: str) -> Sym | None:
        site = resolved.site
        for keyword, value in site.kwargs:
            if keyword == param:
                return value
        params = lookup_parameters(api) or ()
        if param in params:
            position = params.index(param)
            if position < len(site.args):
                return site.args[position]
        return None

    def _arguments(
        self, resolved: ResolvedCall, api: str, params: tuple[str, ...]
    ) -> Iterator[Sym]:
        """The named arguments, a list or tuple display opened into its elements."""
        for param in params:
            value = self._argument(resolved, api, param)
            if value is None:
                continue
            if is_seq(value):
                yield from value[2]
            else:
                yield value

    def dynamic(self, sym: Sym, depth: int = 0, seen: set[Sym] | None = None) -> str | None:
        """Why the value's static shape may hold a data-dependent dimension, or None."""
        seen = seen if seen is not None else set()
        if depth > MAX_DEPTH or sym in seen:
            return None
        seen.add(sym)
        values = self._local_values(sym)
        if values is not None:
            return next((why for v in values if (why := self.dynamic(v, depth + 1, seen))), None)
        kind: SymKind = sym[0]
        if kind in ("op", "cond"):
            return next((why for s in sym[1] if (why := self.dynamic(s, depth + 1, seen))), None)
        if kind == "item":
            index = sym[2]
            if is_slice(index) and any(self.is_tensor(b) for b in index[1]):
                return "slicing with a tensor bound gives it a size known only at run time"
            return self.dynamic(sym[1], depth + 1, seen)
        found = self._rule(sym)
        if found is None:
            return None
        resolved, rule, api = found
        if rule.kind == "data_dependent":
            if any(self._argument(resolved, api, p) is not None for p in rule.unless):
                return None
            return f"`{_display(api)}` gives it a size that depends on the data"
        if rule.kind == "sized_by":
            if any(self.is_tensor(a) for a in self._arguments(resolved, api, rule.args)):
                return f"`{_display(api)}` sizes it by a tensor, known only at run time"
            return None
        # "follows" and "grows": as data-dependent as what they are computed from.
        why = next(
            (
                why
                for a in self._arguments(resolved, api, rule.args)
                if (why := self.dynamic(a, depth + 1, seen))
            ),
            None,
        )
        if why is None:
            return None
        return (
            f"{why}, `{_display(api)}`"
            if ", through " in why
            else f"{why}, through `{_display(api)}`"
        )

    def keeps(self, sym: Sym, name: str, depth: int = 0) -> bool:
        """The value is the variable `name`, or has its shape (arithmetic on it, an op that
        keeps its input's shape)."""
        if depth > MAX_DEPTH:
            return False
        if kind_of(sym) in ("local", "name") and sym[1] == name:
            return True
        if is_op(sym):
            return any(self.keeps(s, name, depth + 1) for s in sym[1])
        found = self._rule(sym)
        if found is None or found[1].kind != "follows":
            return False
        resolved, rule, api = found
        return any(
            self.keeps(a, name, depth + 1) for a in self._arguments(resolved, api, rule.args)
        )

    def grows(self, sym: Sym, name: str, depth: int = 0) -> str | None:
        """Why the value is larger than the variable `name` it is built from, or None."""
        if depth > MAX_DEPTH:
            return None
        if is_op(sym):
            return next((why for s in sym[1] if (why := self.grows(s, name, depth + 1))), None)
        found = self._rule(sym)
        if found is None:
            return None
        resolved, rule, api = found
        arguments = list(self._arguments(resolved, api, rule.args))
        if rule.kind == "grows" and any(self.keeps(a, name) for a in arguments):
            return f"`{_display(api)}` grows it on every iteration"
        if rule.kind == "follows":
            return next((why for a in arguments if (why := self.grows(a, name, depth + 1))), None)
        return None

    def before(self, loop: StatementLoop, name: str) -> list[Sym]:
        """The values `name` may hold when the loop is entered (`StatementLoop.entry`)."""
        for entered, start, end in loop.entry:
            if entered == name:
                return self.fn.locals[name][start:end]
        return []

    def may_be_tensor(self, values: list[Sym]) -> bool:
        atoms = [a for v in values for a in self.evaluator.eval(v)]
        return not atoms or any(is_tensor_like(a) or is_unknown_kind(a) for a in atoms)


def _own_findings(index: ProjectIndex, facts: TensorFacts, key: FunctionKey) -> list[Evidence]:
    fn = index.function(key)
    if not fn.statement_loops:
        return []
    shapes = _Shapes(index, facts, key)
    found = []
    for loop in fn.statement_loops:
        if not loop.rebinds or not shapes.converted(loop):
            continue
        reported: set[str] = set()
        for name, position, span in loop.rebinds:
            if name in loop.targets or name in reported:
                continue
            before = shapes.before(loop, name)
            if not before or not shapes.may_be_tensor(before):
                continue
            value = fn.locals[name][position]
            why = shapes.grows(value, name) or shapes.dynamic(value)
            # Already of data-dependent size before the loop: its static shape has the
            # unknown dimensions the body gives it (measured).
            if why is None or all(shapes.dynamic(v) for v in before):
                continue
            reported.add(name)
            header = (
                "a `for` over a tensor" if loop.kind == "for" else "a `while` with a tensor test"
            )
            found.append(
                Evidence(
                    f"`{name}` is carried by {header}, which AutoGraph makes a tf.while_loop, "
                    f"and {why}: its static shape after one iteration differs from the one "
                    "before the loop, and tracing raises ValueError",
                    span,
                )
            )
    return found


def growth_in_loops(index: ProjectIndex, facts: TensorFacts, key: FunctionKey) -> dict[str, str]:
    """The locals a loop of the function (any loop: a Python one run eagerly too) rebinds
    with a value of a new size at every pass: grown from themselves (`tf.concat([x, y], 1)`)
    or of a size that depends on the data; by name, with why. A call inside the loop that
    passes one gives its callee a new shape per call (`varying_shapes`)."""
    fn = index.function(key)
    if not fn.statement_loops:
        return {}
    shapes = _Shapes(index, facts, key)
    found: dict[str, str] = {}
    for loop in fn.statement_loops:
        for name, position, _span in loop.rebinds:
            if name in loop.targets or name in found:
                continue
            value = fn.locals[name][position]
            why = shapes.grows(value, name) or shapes.dynamic(value)
            if why is not None:
                found[name] = why.replace(
                    " grows it on every iteration", " grows at every pass of its loop"
                )
    return found


def loop_carried_shape_changes(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey
) -> list[Evidence]:
    """The function's own hazards, or those of the project functions it calls: a callee is
    traced into its caller's graph, where its loop fails the same way. Memoised per project
    (`call_closure.traced_hazards`)."""
    return traced_hazards(index, facts, key, lambda current: _own(index, facts, current), MEMO)


def _own(index: ProjectIndex, facts: TensorFacts, key: FunctionKey) -> list[Evidence]:
    """The function's own hazards, memoised per project."""
    memo = cast(dict[FunctionKey, list[Evidence]], facts.cache.setdefault(OWN, {}))
    found = memo.get(key)
    if found is None:
        found = memo[key] = _own_findings(index, facts, key)
    return found
