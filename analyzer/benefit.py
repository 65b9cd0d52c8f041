"""Benefit before measurement: whether compiling a function is predicted to pay, and why.

Safety says a decorator may be added; it does not say it helps. A `tf.function` call costs
about 0.2 ms of fixed overhead, and its first call traces the body (tens to hundreds of ms).
Compiling pays when the function runs often (in a training or data loop) and each call does
enough TensorFlow work that running it as one graph saves more than that overhead: a training
step (gradient tape and optimizer update), a model or layer call (Keras layers cost a lot of
Python per call in eager mode), a chain of ops. It does not pay when the function already runs
inside a compiled caller, runs once or a few times (tracing costs more than it saves), or holds
a couple of ops (the overhead is as large as the work).

The estimate reads only solved facts: the call graph, which call sites sit in loops
(`CallSite.in_loop`), the framework calls of each body. It never runs code; the bench
(`hybridize bench`) measures what it predicts, and `benchmarks/benefit_calibration.py`
compares the two on the corpus.

Levels: `high` (predicted to pay: `refactor` applies it by default), `low` (may pay, or the
analysis cannot tell how often it runs: `refactor --include-low-benefit`), `none` (cannot
pay: already compiled by a caller, or runs too few times).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

import networkx as nx

from hybridize.analyzer.callgraph import TRACED, components_bottom_up, external_keras_call
from hybridize.analyzer.resolve import ProjectIndex
from hybridize.analyzer.tensors import TensorFacts, callees
from hybridize.model import Benefit as BenefitLevel
from hybridize.model import FunctionVerdict

HIGH_WORK = 8
"""Work units (see `_local_work`) from which one call is predicted to cost clearly more in
eager mode than a graph call's fixed overhead: about eight TensorFlow ops, or one model or
layer call. Calibrated on the corpus against the bench (benchmarks/benefit_calibration.py)."""

LAYER_CALL_WORK = 8
"""A Keras layer or model call: several ops, and Keras's eager per-call Python (input checks,
autocasting, name scopes) that a graph runs once, at tracing."""

LOOP_WORK_FACTOR = 3
"""Work inside a Python loop of the body runs several times per call (AutoGraph turns a loop
over tensors into a graph loop; a loop over a Python range is unrolled): counted this many
times."""

WORK_CAP = 10_000
"""Work is summed over callees: capped, as only the comparison with HIGH_WORK matters."""

Frequency = Literal["repeated", "once", "tests", "uncalled"]


@dataclass(frozen=True, slots=True)
class Benefit:
    """The predicted benefit of compiling a function, with its reasons in words."""

    level: BenefitLevel
    reasons: tuple[str, ...]


class BenefitModel:
    """Estimates, for every function of a solved project, what compiling it would gain."""

    def __init__(
        self,
        index: ProjectIndex,
        facts: TensorFacts,
        graph: nx.DiGraph,
        covered: dict[str, bool],
        is_test_code: Callable[[str], bool],
        *,
        scope: nx.DiGraph | None = None,
        previous: BenefitModel | None = None,
    ) -> None:
        """`graph` is the project's call graph. With `scope` (part of it, closed under
        callees) only the functions of `scope` are estimated; `previous` is the model of the
        last phase, whose frequencies outside `scope` still hold."""
        self.index = index
        self.facts = facts
        self.graph = graph
        self.covered = covered
        self.is_test_code = is_test_code
        self.scope = graph if scope is None else scope
        self._work, self._training = self._total_work()
        self._loop_edges: set[tuple[str, str]] = set()
        """(caller, callee) pairs with a call in a loop of the caller."""
        if scope is None or previous is None:
            self._repeated = self._repeated_functions()
        else:
            self._repeated = self._repeated_within(previous)

    def estimate(self, key: str) -> Benefit:
        """The level and its reasons, most decisive reason first."""
        work = self._work.get(key, 0)
        training = self._training.get(key, False)
        frequency = self.frequency(key)
        what = _work_in_words(work, training)
        if self.covered.get(key, False):
            return Benefit(
                "none",
                ("already runs inside a compiled caller: a decorator of its own changes nothing",),
            )
        if frequency == "tests":
            return Benefit("none", ("only tests call it",))
        if frequency == "once":
            count = self.facts.call_count.get(key, 0)
            return Benefit(
                "none",
                (
                    f"called from {count} place{'s' if count != 1 else ''} and never in a loop: "
                    "tracing it (tens of milliseconds) costs more than a few calls save",
                    what,
                ),
            )
        if frequency == "uncalled":
            return Benefit(
                "low",
                (
                    "no call site in the project: how often it runs is unknown",
                    what,
                ),
            )
        if training:
            return Benefit(
                "high",
                (
                    "runs in a loop, and each call is a training step (gradients and weight "
                    "updates): one graph instead of many eager ops",
                    what,
                ),
            )
        if work >= HIGH_WORK:
            return Benefit(
                "high",
                (
                    f"runs in a loop, and each call holds {what.removeprefix('only ')}",
                    *self._retracing_risk(key),
                ),
            )
        return Benefit(
            "low",
            (
                f"runs in a loop, but each call holds {what}: a graph call's fixed overhead "
                "(about 0.2 ms) is as large as the work it saves",
            ),
        )

    def inside_proposed_graphs(
        self, verdicts: dict[str, FunctionVerdict], keys: Iterable[str] | None = None
    ) -> dict[str, str]:
        """Additions predicted to pay whose every caller will run as a graph once the proposed
        changes are made (a kept `@tf.function`, or a caller's own addition predicted to pay):
        their calls run inside those graphs, so a decorator of their own gains nothing (and a
        `tf.function` nested in an XLA-compiled one can be much slower). Decided callers
        first; returns key -> the reason, naming one such caller."""
        in_graph = {
            key
            for key, v in verdicts.items()
            if (v.is_hybrid and v.transformation != "convert_to_eager")
            or (v.passes and v.transformation == "convert_to_hybrid" and v.benefit == "high")
        }
        covered: dict[str, str] = {}
        groups = reversed(components_bottom_up(self.graph)) if keys is None else [sorted(keys)]
        for nodes in groups:
            for key in sorted(nodes):
                v = verdicts.get(key)
                if v is None or v.transformation != "convert_to_hybrid" or v.benefit != "high":
                    continue
                # The callers that call it often: a call in a loop, or a caller that runs often
                # itself. Its other calls are a few (its tracing would not pay for them).
                callers = sorted(
                    c
                    for c in self._callers(key)
                    if (c, key) in self._loop_edges or c in self._repeated
                ) or sorted(self._callers(key))
                if callers and all(c in in_graph for c in callers):
                    caller = callers[0].split("::", 1)[1]
                    covered[key] = (
                        f"every caller runs as a graph once the proposed changes are made "
                        f"(`{caller}`): it runs inside their graphs, a decorator of its own "
                        "gains nothing"
                    )
        return covered

    # -- how often -----------------------------------------------------------------------

    def frequency(self, key: str) -> Frequency:
        if key in self._repeated:
            return "repeated"
        callers = self._callers(key)
        if not callers:
            return "uncalled"
        if all(self.is_test_code(c) for c in callers):
            return "tests"
        return "once"

    def _callers(self, key: str) -> set[str]:
        return {c for c in self.graph.predecessors(key) if c != key}

    def _repeated_functions(self) -> set[str]:
        """Functions that may run many times per run: called in a loop, or by a function that
        is (a model's `call` run by a training step in a loop, a helper of a per-batch step)."""
        repeated: set[str] = set()
        pending: list[str] = []
        for caller, calls in self.facts.calls.items():
            for resolved in calls:
                if not resolved.site.in_loop or self.is_test_code(caller):
                    continue
                for _kind, target in callees(self.index, resolved):
                    self._loop_edges.add((caller, target))
                    if target not in repeated:
                        repeated.add(target)
                        pending.append(target)
        while pending:
            key = pending.pop()
            if key not in self.graph:
                continue
            for callee, attrs in self.graph[key].items():
                if attrs.get("kind") != TRACED and callee not in repeated:
                    repeated.add(callee)
                    pending.append(callee)
        return repeated

    def _repeated_within(self, previous: BenefitModel) -> set[str]:
        """`_repeated_functions` for the functions of `scope`, the rest as `previous` found:
        loops outside `scope` call into it as before, and a repeated function outside it
        repeats what it calls."""
        scope = self.scope
        self._loop_edges = {(c, t) for c, t in previous._loop_edges if c not in scope}
        repeated = {k for k in previous._repeated if k not in scope}
        found: set[str] = set()
        pending: list[str] = []

        def add(key: str) -> None:
            if key in scope and key not in found:
                found.add(key)
                pending.append(key)

        for _caller, target in self._loop_edges:
            add(target)
        for caller in scope:
            if self.is_test_code(caller):
                continue
            for resolved in self.facts.calls.get(caller, []):
                if not resolved.site.in_loop:
                    continue
                for _kind, target in callees(self.index, resolved):
                    self._loop_edges.add((caller, target))
                    add(target)
        for key in scope:
            for caller, attrs in self.graph.pred[key].items():
                if caller not in scope and caller in repeated and attrs.get("kind") != TRACED:
                    add(key)
        while pending:
            for callee, attrs in self.graph[pending.pop()].items():
                if attrs.get("kind") != TRACED:
                    add(callee)
        return repeated | found

    # -- how much work per call ----------------------------------------------------------

    def _total_work(self) -> tuple[dict[str, int], dict[str, bool]]:
        """Work units of each function with what it runs as part of its own execution
        (callees; not callbacks that tf.data traces separately), and whether that includes
        a training update. Cycles share one total."""
        work: dict[str, int] = {}
        training: dict[str, bool] = {}
        for nodes in components_bottom_up(self.scope):
            local = [self._local_work(n) for n in nodes]
            total = sum(w for w, _ in local)
            trains = any(t for _, t in local)
            members = set(nodes)
            for n in nodes:
                for callee, attrs in self.scope[n].items():
                    if callee in members or attrs.get("kind") == TRACED:
                        continue
                    total += work.get(callee, 0)
                    trains = trains or training.get(callee, False)
            for n in nodes:
                work[n] = min(total, WORK_CAP)
                training[n] = trains
        return work, training

    def _local_work(self, key: str) -> tuple[int, bool]:
        """Work units of the body itself: one per TensorFlow op (API call or operator on
        tensors), LAYER_CALL_WORK per Keras layer or model call, loops counted
        LOOP_WORK_FACTOR times; and whether it applies a training update."""
        units = 0
        training = False
        for resolved in self.facts.calls.get(key, []):
            factor = LOOP_WORK_FACTOR if resolved.site.in_loop else 1
            if any(info.training_update for info in resolved.api):
                training = True
            if external_keras_call(resolved) or any(
                kind == "layer_call" for kind, _ in resolved.targets
            ):
                units += LAYER_CALL_WORK * factor
            elif any(info.tensor_op for info in resolved.api):
                units += factor
        evaluator = self.facts.evaluators.get(key)
        if evaluator is not None:
            for sym, atoms in evaluator.memo.items():
                if sym[0] == "op" and any(a[0] in ("tensor", "variable") for a in atoms):
                    units += 1
        return units, training

    def _retracing_risk(self, key: str) -> tuple[str, ...]:
        """Parameters that call sites fill with tensors of different shapes: each new shape
        traces again unless the decorator says `reduce_retracing=True`."""
        varying = []
        for name, atoms in sorted(self.facts.param_atoms.get(key, {}).items()):
            shapes = {a[2] for a in atoms if a[0] == "tensor" and len(a) > 2 and a[2] is not None}
            if len(shapes) > 1:
                varying.append(name)
        if not varying:
            return ()
        names = ", ".join(f"`{n}`" for n in varying)
        return (
            f"call sites pass {names} with different shapes: each new shape traces again "
            "(consider `reduce_retracing=True` or an input_signature with None axes)",
        )


def _work_in_words(work: int, training: bool) -> str:
    if training:
        return "a training step" if work < WORK_CAP else "a training step and much more"
    if work == 0:
        return "no TensorFlow op of its own"
    if work >= WORK_CAP:
        return "a large amount of TensorFlow work"
    return f"only about {work} unit{'s' if work != 1 else ''} of TensorFlow work"
