"""HY105 has_python_side_effects: reading the clock or sleeping."""

from __future__ import annotations

from hybridize.analyzer.checks.side_effect_check import SideEffectCheck

from . import TENSORFLOW_AND_TORCH


class ClockSideEffect(SideEffectCheck):
    """Reads the clock or sleeps in Python.

    What it detects
    ---------------
    A call to `time.time`, `time.perf_counter`, `time.monotonic`, `time.sleep`,
    `datetime.datetime.now` and the like, in the function or in any user function it calls.

    Why it matters in graph mode
    ----------------------------
    Clock reads happen while tracing: the graph contains the time of the trace as a
    constant, so timings measure tracing instead of execution, and time-based logic
    (timeouts, schedules, timestamps) sees the same moment forever. A `time.sleep` delays
    the trace once instead of every call.

    Example
    -------
        def train_step(x, y):
            start = time.perf_counter()
            loss = compute_loss(x, y)
            elapsed = time.perf_counter() - start
            return loss, elapsed

    Instead
    -------
    Time the call from the eager caller, or use `tf.timestamp()`, a graph operation that
    reads the clock on every execution:

        @tf.function
        def train_step(x, y):
            start = tf.timestamp()
            loss = compute_loss(x, y)
            return loss, tf.timestamp() - start

    Under torch.compile
    -------------------
    Reading the clock is a graph break under torch.compile (`time.time` is marked as
    skipped, measured), and a float read from it recompiles.
    """

    code = "HY105"
    unblock = "time the call from the eager caller"
    frameworks = TENSORFLOW_AND_TORCH
    name = "has_python_side_effects"
    severity = "error"
    summary = "Reads the clock or sleeps in Python, which happens only while tracing."
    EXAMPLE_FUNCTION = "f"
