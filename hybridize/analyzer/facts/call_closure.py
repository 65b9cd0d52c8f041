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
from typing import TypeVar, cast

from hybridize.analyzer.facts.cited_lines import cited_line
from hybridize.analyzer.facts.evaluator import ResolvedCall, TensorFacts, callees
from hybridize.analyzer.facts.evidence import Evidence
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


NO_HAZARD = 1 << 30
"""The distance of a function from which no hazard is reached."""

OwnHazards = Callable[[FunctionKey], list[Evidence]]
"""A function's own hazards (memoised by the caller: asked again for every function reached)."""


def traced_hazards(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, own: OwnHazards, memo: str
) -> list[Evidence]:
    """The function's own hazards, or those of the project functions it calls: a callee is
    traced into its caller's graph, where its hazard holds the same way. Memoised per project
    in `facts.cache[memo]` (and the distances in `memo + "_distance"`).

    Each call of a function that reaches a hazard is a finding; its message follows the
    fewest calls down to the hazard (`_calls_to_hazard`), so a cycle never explains itself."""
    found_memo = cast(dict[FunctionKey, list[Evidence]], facts.cache.setdefault(memo, {}))
    found = found_memo.get(key)
    if found is not None:
        return found
    distance = _calls_to_hazard(index, facts, key, own, memo + "_distance")
    found = list(own(key))
    if distance[key] == NO_HAZARD:
        found_memo[key] = found
        return found
    for resolved in facts.calls.get(key, []):
        if any(f.span == resolved.site.span for f in found):
            continue
        for kind, target in callees(index, resolved):
            if kind == "layer_call" or distance.get(target, NO_HAZARD) == NO_HAZARD:
                continue
            found.append(_call_finding(index, facts, resolved, target, distance, own))
            break
    found_memo[key] = found
    return found


def _calls_to_hazard(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, own: OwnHazards, memo: str
) -> dict[FunctionKey, int]:
    """Per function `key` reaches, the fewest calls down to a function with a hazard of its
    own (0: itself; NO_HAZARD: none), memoised per project (distances only shrink)."""
    solved = cast(dict[FunctionKey, int], facts.cache.setdefault(memo, {}))
    if key in solved:
        return solved
    reached, callers = reach(index, facts, key, solved)

    def step(current: FunctionKey, distance: Callable[[FunctionKey], int]) -> int:
        if own(current):
            return 0
        nearest = min(
            (distance(target) for _, target in project_calls(index, facts, current)),
            default=NO_HAZARD,
        )
        return NO_HAZARD if nearest == NO_HAZARD else nearest + 1

    return solve(reached, callers, NO_HAZARD, step, solved)


def _call_finding(
    index: ProjectIndex,
    facts: TensorFacts,
    resolved: ResolvedCall,
    target: FunctionKey,
    distance: dict[FunctionKey, int],
    own: OwnHazards,
) -> Evidence:
    """The finding at a call of `target`, a function that reaches a hazard: its message
    names the call and, along the fewest calls, the hazard at the end."""
    steps = [f"calls `{index.function(target).qualname}`"]
    current = target
    while distance[current] > 0:
        nearer = next(
            (r, t)
            for r, t in project_calls(index, facts, current)
            if distance.get(t, NO_HAZARD) == distance[current] - 1
        )
        steps.append(
            f"(line {cited_line(current.file, nearer[0].site.span.start_line)}), traced in this function's graph, where "
            f"calls `{index.function(nearer[1]).qualname}`"
        )
        current = nearer[1]
    first = own(current)[0]
    return Evidence(
        " ".join(steps)
        + f" (line {cited_line(current.file, first.span.start_line)}), traced in this function's graph, "
        f"where {first.message}",
        resolved.site.span,
    )
