"""Per function: keep it as it is, compile it (`tf.function`), or compile it with XLA.

The *baseline* is how the program runs the function today: eager for a plain function, graph
(or XLA, with `jit_compile=True` already there) for an existing `tf.function`. A change away
from the baseline is applied only when it is a *measured win*:

1. the mode ran without error on every argument set, and its outputs and the variables after
   the calls are equivalent to the reference (`equivalence.py`: eager for a plain function,
   the existing compiled form for a hybrid one);
2. it does not retrace in steady state (the same arguments traced again);
3. it is faster than the baseline by at least `min_speedup` (1.10) at the median, and the
   interquartile ranges do not overlap (`timing.clearly_faster`);
4. with call counts from an entry run (and `amortize` on): the calls observed save more time
   than `trace_cost_factor` (2) times the measured tracing and compiling time. A function
   called once per run rarely pays for its trace, and the worker measures the trace warm (the
   program has already built its models and optimizers): in a fresh program the first trace
   also pays for AutoGraph and Keras' graph-mode code paths running for the first time, and
   for a second trace when the first call creates variables (an optimizer's slots);
5. XLA is chosen over plain graph mode only when it also beats graph mode by rules 3 and 1.
6. for a function that changes variables, a call from variable values never seen before is not
   much slower than the timed median (`NEW_STATE_FACTOR`): XLA compiles some inputs as
   constants, and a training step reading the optimizer's step count that way recompiles on
   every step of a real run, while the timed samples, all started from the same restored
   state, hit the compilation cache.

Calls made inside a function that is itself compiled gain nothing from compiling the callee
too: they already run in the caller's graph. `decide_all` therefore decides callers first
(the entry run records, per function, which other candidates were running at each call) and
counts, for rule 4, only the calls not made inside a caller it compiles. A function called
inside a caller that gets XLA stays as it is: the caller was measured with it undecorated, and
a `tf.function` nested in an XLA-compiled one can be far slower (seen: a Keras `call` made a
function that ran in 2 ms take 1.5 s per call).

Removing an existing decorator is never applied here (the analysis' `convert_to_eager` verdicts
are reported with the measured eager time, for information). Slow-downs (a mode slower than the
baseline) and retracing are flagged whatever the decision.
"""

from __future__ import annotations

import graphlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.compiler.report_file import read_report
from hybridize.compiler.timing import TimingStats, clearly_faster

MODE_CHANGES: dict[str, dict[tuple[str, str], str]] = {
    "tensorflow": {
        ("eager", "graph"): "add_tf_function",
        ("eager", "xla"): "add_tf_function_jit",
        ("graph", "xla"): "add_jit_compile",
    },
    "torch": {("eager", "graph"): "add_torch_compile"},
}
"""The change a decision makes, per framework (`backends.FRAMEWORKS`: the worker writes it in
every measured result, `framework`) and (baseline, chosen mode). torch.compile is a torch function's `graph` mode:
the same rules decide it, and the change is `@torch.compile`."""


NEW_STATE_FACTOR = 3.0
"""Rule 6: a call from a new variable state may take at most this many times the median..."""
NEW_STATE_SLACK_SECONDS = 0.002
"""...plus this (noise on sub-millisecond calls)."""


@dataclass(frozen=True, slots=True)
class DecisionSettings:
    min_speedup: float = 1.10
    amortize: bool = True
    trace_cost_factor: float = 2.0


@dataclass(slots=True)
class Decision:
    baseline: str
    mode: str
    applied: bool
    change: str | None
    speedup: float | None
    reasons: list[str] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "baseline": self.baseline,
            "mode": self.mode,
            "applied": self.applied,
            "change": self.change,
            "speedup": self.speedup,
            "reasons": self.reasons,
            "flags": self.flags,
        }

    def kept_as_is(self, reason: str, flag: str) -> Decision:
        """This decision overruled: the function stays as the program has it, saying why."""
        return Decision(
            self.baseline,
            self.baseline,
            False,
            None,
            1.0,
            [reason, *self.reasons],
            [*self.flags, flag],
        )


def _stats(mode_info: dict[str, Any]) -> TimingStats | None:
    timing = mode_info.get("timing")
    if not timing or not timing.get("median_seconds"):
        return None
    return TimingStats(
        median=timing["median_seconds"],
        p25=timing["p25_seconds"],
        p75=timing["p75_seconds"],
        minimum=timing["min_seconds"],
        maximum=timing["max_seconds"],
        samples=timing["samples"],
        loops=timing["loops"],
    )


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3g} ms" if seconds < 1 else f"{seconds:.3g} s"


def decide(
    result: dict[str, Any],
    is_hybrid: bool,
    settings: DecisionSettings,
    compiled_callers: frozenset[str] = frozenset(),
) -> Decision:
    """The decision for one function's worker result.

    `compiled_callers`: keys of the functions already decided to be compiled; the calls made
    inside them do not count towards paying for this function's tracing.
    """
    modes: dict[str, dict[str, Any]] = result.get("modes") or {}
    baseline = "eager"
    if is_hybrid:
        baseline = "xla" if result.get("reference") == "xla" else "graph"
    if result.get("status") != "measured":
        reason = result.get("error") or result.get("status") or "not measured"
        return Decision(baseline, baseline, False, None, None, [f"not measured: {reason}"])
    base_stats = _stats(modes.get(baseline, {}))
    if base_stats is None:
        return Decision(
            baseline, baseline, False, None, None, [f"the {baseline} mode could not be timed"]
        )
    decision = Decision(baseline, baseline, False, None, 1.0)
    calls = (
        result.get("calls_observed")
        if result.get("input_source") in ("entry", "pytest", "entry+pytest")
        else None
    )
    if calls is not None and compiled_callers:
        inside = calls_inside(result, compiled_callers)
        if inside:
            callers = sorted(_callers(result) & compiled_callers)
            decision.reasons.append(
                f"{inside} of its {calls} calls in the entry run happen inside "
                f"{', '.join(callers)}, compiled: they run in that graph already"
            )
            calls -= inside
    if result.get("deterministic") is False:
        decision.flags.append("nondeterministic")
        decision.reasons.append(
            "the reference mode gives different results when run twice from the same state"
        )
    eligible: dict[str, TimingStats] = {}
    for mode, info in modes.items():
        if mode == baseline:
            continue
        shown = info.get("label") or mode  # torch's graph mode: `torch.compile (inductor)`
        stats = _stats(info)
        if info.get("error"):
            decision.flags.append(f"error:{mode}")
            decision.reasons.append(f"{shown}: fails ({info['error'].splitlines()[0]})")
            continue
        if stats is None:
            continue
        ratio = base_stats.median / stats.median
        if ratio * settings.min_speedup < 1.0:
            decision.flags.append(f"slowdown:{mode}")
        equivalence = (info.get("equivalence") or {}).get("status")
        tensor_signatures = int(result.get("tensor_signatures") or 1)
        if mode != "eager" and (info.get("traces_warmup") or 0) > tensor_signatures:
            decision.flags.append(f"retracing:{mode}")
            decision.reasons.append(
                f"{shown}: traced {info['traces_warmup']} times for {tensor_signatures} tensor "
                "signature(s): Python values in the arguments force retracing"
            )
            continue
        if mode != "eager" and (info.get("steady_retraces") or 0) > 0:
            decision.flags.append(f"retracing:{mode}")
            decision.reasons.append(
                f"{shown}: retraced {info['steady_retraces']} times in steady state"
            )
            continue
        new_states = info.get("new_state_seconds")
        if mode != "eager" and new_states and stats is not None:
            per_call = min(new_states) / max(1, int(result.get("argument_sets") or 1))
            if per_call > stats.median * NEW_STATE_FACTOR + NEW_STATE_SLACK_SECONDS:
                decision.flags.append(f"recompiles:{mode}")
                decision.reasons.append(
                    f"{shown}: a call from new variable values takes {_ms(per_call)}, not "
                    f"{_ms(stats.median)}: it is compiled again as the variables change"
                )
                continue
        if equivalence not in ("equal", "reference"):
            decision.flags.append(f"not-equivalent:{mode}")
            first = ((info.get("equivalence") or {}).get("mismatches") or ["?"])[0]
            decision.reasons.append(f"{shown}: results differ ({equivalence}: {first})")
            continue
        if mode == "eager":
            continue  # removing a decorator is reported, never applied
        if not clearly_faster(base_stats, stats, settings.min_speedup):
            word = "slower" if ratio < 1 else "not clearly faster"
            decision.reasons.append(
                f"{shown}: {word} ({ratio:.2f}x vs {baseline}; needs >= {settings.min_speedup:.2f}x"
                " with separated quartiles)"
            )
            continue
        trace = float(info.get("trace_seconds") or 0.0)
        if settings.amortize and calls is not None:
            saved = calls * (base_stats.median - stats.median)
            if saved < trace * settings.trace_cost_factor:
                decision.reasons.append(
                    f"{shown}: {calls} calls in the entry run save {_ms(saved)}, less than "
                    f"{settings.trace_cost_factor:g} x its {_ms(trace)} of tracing/compilation"
                )
                decision.flags.append(f"not-amortized:{mode}")
                continue
        eligible[mode] = stats
    choice = None
    if "graph" in eligible and baseline == "eager":
        choice = "graph"
    if "xla" in eligible:
        xla = eligible["xla"]
        if choice == "graph":
            graph = eligible["graph"]
            if clearly_faster(graph, xla, settings.min_speedup):
                choice = "xla"
            else:
                decision.reasons.append(
                    f"xla: not clearly faster than graph ({graph.median / xla.median:.2f}x)"
                )
        else:
            choice = "xla"
    if choice is not None:
        decision.mode = choice
        decision.applied = True
        decision.change = MODE_CHANGES[result["framework"]].get((baseline, choice))
        decision.speedup = base_stats.median / eligible[choice].median
        shown = modes[choice].get("label") or choice
        decision.reasons.insert(
            0, f"{shown}: {decision.speedup:.2f}x faster than {baseline}, equivalent"
        )
    elif not decision.reasons:
        decision.reasons.append(f"keep {baseline}")
    return decision


def calls_inside(result: dict[str, Any], callers: frozenset[str]) -> int:
    """How many of the recorded calls were made while one of `callers` was running."""
    return sum(
        int(item["calls"])
        for item in result.get("calls_within") or []
        if callers.intersection(item["callers"])
    )


def decide_all(
    candidates: Sequence[tuple[str, dict[str, Any], bool]], settings: DecisionSettings
) -> dict[str, Decision]:
    """Decisions for (key, worker result, is_hybrid) triples, callers before their callees.

    A caller is decided before every function it was seen calling, so a callee's calls inside
    a caller that gets compiled are known when the callee is decided. Candidates that call each
    other both ways (mutual recursion) are decided in the order given.
    """
    graph: dict[str, set[str]] = {key: set() for key, _, _ in candidates}
    for key, result, _ in candidates:
        for item in result.get("calls_within") or []:
            graph[key].update(c for c in item["callers"] if c in graph and c != key)
    try:
        order = list(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError:
        order = [key for key, _, _ in candidates]
    by_key = {key: (result, is_hybrid) for key, result, is_hybrid in candidates}
    compiled: set[str] = set()
    with_xla: set[str] = set()
    out: dict[str, Decision] = {}
    for key in order:
        result, is_hybrid = by_key[key]
        decision = decide(result, is_hybrid, settings, frozenset(compiled))
        xla_callers = sorted(_callers(result) & with_xla)
        if decision.applied and xla_callers:
            decision = decision.kept_as_is(
                f"called inside {', '.join(xla_callers)}, compiled with XLA as measured "
                "with this function as it is: a tf.function nested in it was not measured",
                "inside-xla",
            )
        if decision.applied or (is_hybrid and decision.mode in ("graph", "xla")):
            compiled.add(key)
        if decision.mode == "xla":
            with_xla.add(key)
        out[key] = decision
    return out


def _callers(result: dict[str, Any]) -> set[str]:
    """The candidates that were running when this function was called, at any call."""
    return {caller for item in result.get("calls_within") or [] for caller in item["callers"]}


def _common_root(roots: list[Path]) -> Path:
    if len(roots) == 1:
        return roots[0]
    parts = [r.parts for r in roots]
    common = []
    for items in zip(*parts, strict=False):
        if len(set(items)) != 1:
            break
        common.append(items[0])
    return Path(*common) if common else Path("/")


def is_measured_win(function: Mapping[str, Any]) -> bool:
    """Whether a report.json function is a change `refactor --from-bench` applies: its
    decision applied, to a compiled mode (the report's lead lists exactly these)."""
    decision = function.get("decision") or {}
    return bool(decision.get("applied")) and decision.get("mode") in ("graph", "xla")


def load_applied_changes(report_path: Path | str, root: Path | str | None = None) -> dict[str, str]:
    """`file::qualname` -> "graph" or "xla" for every measured win in a `report.json`.

    "graph" means add `@tf.function`; "xla" means `@tf.function(jit_compile=True)` (or add
    `jit_compile=True` to an existing decorator). `file` is relative to `root` when given
    (only projects inside it are kept); otherwise relative to the project when the report
    covers one project, or to the projects' common parent folder when it covers several (the
    paths `hybridize refactor` on that folder reports).
    """
    data = read_report(report_path)
    projects = [Path(p["root"]).resolve() for p in data.get("projects", [])]
    base = (
        Path(root).resolve() if root is not None else (_common_root(projects) if projects else None)
    )
    out: dict[str, str] = {}
    for function in data.get("functions", []):
        if not is_measured_win(function):
            continue
        decision = function["decision"]
        project = Path(function["project"]).resolve()
        path = project / function["file"]
        if base is not None:
            try:
                relative = path.relative_to(base).as_posix()
            except ValueError:
                continue
        else:
            relative = function["file"]
        out[str(FunctionKey(relative, function["qualname"]))] = decision["mode"]
    return out
