"""What callers write for a function's parameters: the symbols at their call sites, followed
through locals assigned once (`d = defaultdict(float); f(d)`), for the rules that judge an
argument by how it was made rather than by its value's kind (a generator expression, which
the evaluator takes for a Python object; a `defaultdict`, which it takes for a dict)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from hybridize.analyzer.facts.evaluator import TensorFacts, bind_written, callees
from hybridize.analyzer.facts.predicates import assigned_once
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.values import Atoms
from hybridize.analyzer.summaries.ir import Sym
from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.analyzer.summaries.syms import call_index, is_call

MAX_LOCAL_STEPS = 4
"""How many locals assigned once a written argument is followed through."""


@dataclass(frozen=True, slots=True)
class PassedArgument:
    """A value a caller writes for a parameter: the symbol it comes to (through locals
    assigned once), and the dotted APIs of the call that made it, if a call did."""

    caller: FunctionKey
    value: Sym
    made_by: frozenset[str] = frozenset()
    made_from: Atoms = frozenset()
    """The atoms of the first argument of the call that made it (`iter(x)`: what `x` is)."""


PASSED_ARGUMENTS = "passed_arguments"
"""The `facts.cache` entry of `passed_arguments`, by function."""


def passed_arguments(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey
) -> dict[str, list[PassedArgument]]:
    """For each parameter of `key`, what its callers write for it, in caller order
    (memoised per solve)."""
    memo = cast(
        "dict[FunctionKey, dict[str, list[PassedArgument]]]",
        facts.cache.setdefault(PASSED_ARGUMENTS, {}),
    )
    found = memo.get(key)
    if found is None:
        found = memo[key] = _passed(index, facts, key)
    return found


def _passed(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey
) -> dict[str, list[PassedArgument]]:
    fn = index.function(key)
    found: dict[str, list[PassedArgument]] = {}
    for caller in sorted(facts.callers.get(key, ()), key=str):
        calls = facts.calls.get(caller, ())
        made = {resolved.index: resolved for resolved in calls}
        caller_fn = index.function(caller)
        for resolved in calls:
            for kind, target in callees(index, resolved):
                if target != key:
                    continue
                for parameter, values in bind_written(fn, resolved, kind, target).items():
                    for value in sorted(values, key=repr):
                        value = assigned_once(caller_fn, value, MAX_LOCAL_STEPS)
                        maker = made.get(call_index(value)) if is_call(value) else None
                        found.setdefault(parameter, []).append(
                            PassedArgument(caller, value)
                            if maker is None
                            else PassedArgument(
                                caller,
                                value,
                                frozenset(info.name for info in maker.api),
                                maker.args[0] if maker.args else frozenset(),
                            )
                        )
    return found
