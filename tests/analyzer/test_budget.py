"""A function whose verdict runs away costs that function its verdict, not the project."""

from __future__ import annotations

import threading
import time

import pytest
from facts_helpers import project_result

from hybridize.analyzer import budget, engine
from hybridize.analyzer.budget import BudgetExceeded, cpu_budget
from hybridize.analyzer.summaries.keys import FunctionKey

SOURCE = """\
import tensorflow as tf


def runaway(x):
    return tf.reduce_sum(x * 2.0)


def ordinary(x):
    return tf.reduce_sum(x * 3.0)


runaway(tf.ones(3))
ordinary(tf.ones(3))
"""


def spin(seconds: float) -> None:
    """Burn CPU time (the budget counts CPU, not wall time)."""
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def test_a_runaway_verdict_is_left_undecided_and_the_rest_is_decided(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = engine._verdict

    def verdict(phase: engine.VerdictPhase, function: engine.FunctionInputs) -> object:
        if function.key.qualname == "runaway":
            spin(30)  # a walk of every path: far past the budget
        return real(phase, function)

    monkeypatch.setattr(engine, "_verdict", verdict)
    monkeypatch.setattr(budget, "VERDICT_SECONDS", 0.3)
    started = time.process_time()
    result = project_result(SOURCE)
    verdicts, errors = result.functions, result.errors
    assert time.process_time() - started < 20, "the budget did not stop the walk"
    by_name = {v.qualname: v for v in verdicts}
    runaway, ordinary = by_name["runaway"], by_name["ordinary"]
    assert not runaway.passes and runaway.transformation is None
    budget_findings = [f for f in runaway.findings if f.code == "HY902"]
    assert len(budget_findings) == 1
    assert "budget of 0.3 s of CPU time" in budget_findings[0].message
    assert any("runaway" in e.message and "budget" in e.message for e in errors), errors
    assert ordinary.passes, ordinary


def test_the_budget_raises_only_past_its_time_and_leaves_no_timer_behind() -> None:
    with cpu_budget(5.0):
        spin(0.05)
    with pytest.raises(BudgetExceeded), cpu_budget(0.1):
        spin(5)
    spin(0.3)  # no timer left running: nothing is raised here


def test_outside_the_main_thread_the_block_runs_without_a_budget() -> None:
    outcome: list[str] = []

    def work() -> None:
        try:
            with cpu_budget(0.05):
                spin(0.2)
            outcome.append("finished")
        except BudgetExceeded:
            outcome.append("stopped")

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert outcome == ["finished"]


CALLER_SOURCE = """\
import tensorflow as tf


def runaway(x):
    return tf.reduce_sum(x * 2.0)


def ordinary(x):
    return tf.reduce_sum(x * 3.0)


def caller(x):
    return runaway(x) + 1.0


runaway(tf.ones(3))
ordinary(tf.ones(3))
caller(tf.ones(3))
"""


def test_a_runaway_evaluation_in_the_fixed_point_is_left_undecided(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The solve evaluates each function ~10 times; one evaluation that runs away (a walk
    of every path) costs that function its facts: it is undecided (HY902) and returns what
    is not known to its callers, and the rest is decided."""
    from hybridize.analyzer.facts import solver

    real = solver._evaluate

    def evaluate(index: object, facts: object, key: FunctionKey) -> object:
        if key.qualname == "runaway":
            spin(30)
        return real(index, facts, key)  # type: ignore[arg-type]

    monkeypatch.setattr(solver, "_evaluate", evaluate)
    monkeypatch.setattr(budget, "EVALUATION_SECONDS", 0.2)
    monkeypatch.setattr(budget, "WATCH_INTERVAL", 0.05)
    started = time.process_time()
    result = project_result(CALLER_SOURCE)
    verdicts, errors = result.functions, result.errors
    assert time.process_time() - started < 20, "the watch did not stop the evaluation"
    by_name = {v.qualname: v for v in verdicts}
    runaway = by_name["runaway"]
    assert not runaway.passes and runaway.transformation is None
    budget_findings = [f for f in runaway.findings if f.code == "HY902"]
    assert len(budget_findings) == 1
    assert "budget of 0.2 s of CPU time" in budget_findings[0].message
    assert any("runaway" in e.message and "budget" in e.message for e in errors), errors
    assert by_name["ordinary"].passes
    # What `runaway` does is not known, so neither is what its caller does.
    caller = by_name["caller"]
    assert not caller.passes and caller.transformation is None
    assert any(
        f.code == "HY902" and "it calls `runaway`, which could not be analysed" in f.message
        for f in caller.findings
    ), caller.findings


def test_the_step_watch_raises_only_inside_a_step_past_its_time() -> None:
    with budget.step_watch(0.2) as watch:
        watch.step()
        spin(0.05)
        watch.idle()
        spin(0.6)  # no step runs: nothing is raised
        watch.step()
        with pytest.raises(BudgetExceeded):
            spin(5)
        watch.idle()
    spin(0.6)  # no timer left running


LATE_EVIDENCE_SOURCE = """\
import tensorflow as tf


def runaway(x):
    return tf.reduce_sum(x * 2.0)


def helper(x):
    return x * 3.0


def caller(x):
    return runaway(helper(x))


caller(tf.ones(3))
"""


def test_an_evaluation_cut_by_the_budget_is_not_tried_again_in_the_solve(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`runaway`'s evidence arrives late (what `helper` returns is found after `caller` was
    first evaluated), so its parameters change after its first evaluation: evaluated again,
    it would run past the budget again at every such round (torch-harmonics' U-Net blocks,
    before their values were bounded: 217 s of CPU, 68 s cut once each). Cut once, its facts
    stay unknown and it is not evaluated again."""
    from hybridize.analyzer.facts import solver

    real = solver._evaluate
    runaway_evaluations = [0]

    def evaluate(index: object, facts: object, key: FunctionKey) -> object:
        if key.qualname == "runaway":
            runaway_evaluations[0] += 1
            spin(30)
        return real(index, facts, key)  # type: ignore[arg-type]

    monkeypatch.setattr(solver, "_evaluate", evaluate)
    monkeypatch.setattr(budget, "EVALUATION_SECONDS", 0.2)
    monkeypatch.setattr(budget, "WATCH_INTERVAL", 0.05)
    result = project_result(LATE_EVIDENCE_SOURCE)
    assert runaway_evaluations == [1]
    by_name = {v.qualname: v for v in result.functions}
    assert any(f.code == "HY902" for f in by_name["runaway"].findings)
    assert not by_name["caller"].passes
