"""What each function's decision comes to, in one word a person reads, counted once for every
format.

The report's table shows one outcome per function (applied, kept and why, not measured) and
its summary counts them: both come from `function_outcome`, so `report.md`, `report.html`, the
terminal table and `report.json`'s `summary.outcomes` cannot disagree (a count of (function,
mode) pairs, the older `equivalence_differences_measured`, could say 0 while a row said the
results differ: a mode whose results were not comparable is not "different" but is not
equivalent either).

A function that several rules kept as it is gets the first of: withdrawn, inside an XLA
caller, results differ, retraces, does not pay for its tracing, slower, not clearly faster,
compiling fails; its reasons, all of them, are in `reasons_text`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from hybridize.compiler.decisions import is_measured_win


@dataclass(frozen=True, slots=True)
class Outcome:
    """One kind of row of the report's table."""

    key: str
    """Its name in `summary.outcomes` of report.json."""
    label: str
    """What the table's decision column says (an applied row adds the mode and speed-up)."""
    meaning: str
    """What it means, in the summary's table of counts."""


APPLY = Outcome(
    "apply", "apply", "measured faster and equivalent: refactor --from-bench applies it"
)
WITHDRAWN = Outcome(
    "withdrawn",
    "withdrawn",
    "a win, withdrawn: the whole program was slower or printed other results",
)
INSIDE_XLA = Outcome(
    "inside-xla", "kept: inside an XLA caller", "called inside a function compiled with XLA"
)
DIFFERS = Outcome(
    "differs", "kept: results differ", "compiled, its results or variables are not equivalent"
)
RETRACES = Outcome(
    "retraces", "kept: retraces", "compiled again on every call, or on new variable values"
)
NOT_AMORTIZED = Outcome(
    "not-amortized",
    "kept: does not pay",
    "faster, but its calls in the run save less than its tracing costs",
)
SLOWER = Outcome("slower", "kept: slower", "slower compiled")
NOT_FASTER = Outcome(
    "not-faster", "kept: not clearly faster", "less than the minimum speed-up, or quartiles overlap"
)
FAILS = Outcome("fails", "kept: compiling fails", "every compiled mode raised an error")
KEPT = Outcome("kept", "kept: see why", "kept as it is for another reason (see why)")
NO_INPUTS = Outcome("no-inputs", "not measured: no inputs", "no argument set was recorded for it")
FAILED = Outcome("failed", "not measured: failed", "its measurement raised, crashed or timed out")

OUTCOMES = (
    APPLY,
    WITHDRAWN,
    INSIDE_XLA,
    DIFFERS,
    RETRACES,
    NOT_AMORTIZED,
    SLOWER,
    NOT_FASTER,
    FAILS,
    KEPT,
    NO_INPUTS,
    FAILED,
)

_BY_FLAG = (
    ("whole-program-withdrawn", WITHDRAWN),
    ("inside-xla", INSIDE_XLA),
    ("not-equivalent", DIFFERS),
    ("retracing", RETRACES),
    ("recompiles", RETRACES),
    ("not-amortized", NOT_AMORTIZED),
)


def function_outcome(function: Mapping[str, Any]) -> Outcome:
    """The outcome the table shows for one function of report.json."""
    status = function["status"]
    if status == "no-inputs":
        return NO_INPUTS
    if status != "measured":
        return FAILED
    decision = function["decision"]
    if is_measured_win(function):
        return APPLY
    # Flags on the eager mode of an existing tf.function say what removing it would do:
    # never applied, so they are no reason for keeping it.
    kinds = {
        flag.split(":", 1)[0] for flag in decision.get("flags") or [] if not flag.endswith(":eager")
    }
    for kind, outcome in _BY_FLAG:
        if kind in kinds:
            return outcome
    compiled = {
        mode: info
        for mode, info in (function.get("modes") or {}).items()
        if mode != decision.get("baseline") and mode != "eager" and info
    }
    speedups = [info["speedup"] for info in compiled.values() if info.get("speedup") is not None]
    if "slowdown" in kinds and not any(s >= 1.0 for s in speedups):
        return SLOWER
    if speedups:
        return NOT_FASTER
    if compiled and all(info.get("error") for info in compiled.values()):
        return FAILS
    return KEPT


def outcome_counts(functions: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """Functions per outcome key, every outcome present (in `OUTCOMES` order)."""
    counts = {outcome.key: 0 for outcome in OUTCOMES}
    for function in functions:
        counts[function_outcome(function).key] += 1
    return counts


def outcome_by_key(key: str) -> Outcome:
    return next(outcome for outcome in OUTCOMES if outcome.key == key)


def reasons_text(function: Mapping[str, Any]) -> str:
    """Why the function got its outcome: the decision's reasons, torch.compile's graph breaks
    and recompiles, or the error that kept it from being measured."""
    if function["status"] != "measured":
        return str(function.get("error") or function["status"])
    reasons = list(function["decision"].get("reasons") or [])
    graph = (function.get("modes") or {}).get("graph") or {}
    if graph.get("break_reasons"):
        reasons.append("graph breaks: " + "; ".join(graph["break_reasons"]))
    if graph.get("recompiles"):
        reasons.append(f"recompiled {graph['recompiles']} times over the argument sets")
    return "; ".join(reasons)
