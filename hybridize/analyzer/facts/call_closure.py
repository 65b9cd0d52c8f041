"""Facts that travel up the project's call edges, solved once per function.

Several hazards hold for a function when they hold for a project function it calls (a callee
is traced into its caller's graph): a loop that changes a tensor's shape, a layer handed on
and called there. Walked recursively, with a call cycle cut wherever the walk meets it, such a
fact cannot be memoised where the cut made it incomplete, and every diamond of a cyclic call
graph doubles the walk: on the installed `keras/src` the analysis did not end in half an hour.

Here the functions a query reaches are collected once (`reach`), and the fact is the least
fixed point of a per-function step over them (`solve`): each function starts at the bottom
and is evaluated again only when a callee's value changes. The caller states the lattice: a
step must be monotone (a value only moves one way), so the worklist ends.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Container, Hashable, Iterator
from typing import TypeVar

from hybridize.analyzer.facts.evaluator import ResolvedCall, TensorFacts, callees
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.summaries.keys import FunctionKey

V = TypeVar("V", bound=Hashable)


def project_calls(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey
) -> Iterator[tuple[ResolvedCall, FunctionKey]]:
    """The function's calls of project functions, each with a function it runs, in call order.
    Calls of layers (`layer_call`) are left out: the layer's own `call` is analysed as a method
    of its class."""
    for resolved in facts.calls.get(key, []):
        for kind, target in callees(index, resolved):
            if kind != "layer_call":
                yield resolved, target


def reach(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, known: Container[FunctionKey]
) -> tuple[list[FunctionKey], dict[FunctionKey, set[FunctionKey]]]:
    """The project functions `key` reaches through its calls (itself first, breadth first),
    not entering those in `known` (already solved); and, for each function reached, the
    reached functions that call it (`project_calls`)."""
    reached = [key]
    seen = {key}
    callers: dict[FunctionKey, set[FunctionKey]] = {}
    for current in reached:  # grows while iterated
        for _, target in project_calls(index, facts, current):
            if target in known:
                continue
            callers.setdefault(target, set()).add(current)
            if target not in seen:
                seen.add(target)
                reached.append(target)
    return reached, callers


def solve(
    reached: list[FunctionKey],
    callers: dict[FunctionKey, set[FunctionKey]],
    bottom: V,
    step: Callable[[FunctionKey, Callable[[FunctionKey], V]], V],
    solved: dict[FunctionKey, V],
) -> dict[FunctionKey, V]:
    """The least fixed point of `step` over `reached`, stored into `solved` (which also
    holds the values of functions solved before) and returned.

    `step(key, value_of)` computes a function's value from its callees' current values
    (`value_of(target)`: the solved value, else the current estimate, else `bottom`)."""
    current = dict.fromkeys(reached, bottom)

    def value_of(target: FunctionKey) -> V:
        found = solved.get(target)
        if found is not None:
            return found
        return current.get(target, bottom)

    pending = deque(reversed(reached))  # callees first, mostly
    queued = set(reached)
    while pending:
        key = pending.popleft()
        queued.discard(key)
        value = step(key, value_of)
        if value != current[key]:
            current[key] = value
            for caller in sorted(callers.get(key, ())):
                if caller not in queued:
                    queued.add(caller)
                    pending.append(caller)
    solved.update(current)
    return solved
