"""Steady-state timing: calibrated samples, modes interleaved, medians with their spread.

A *sample* runs one mode's pass over every argument set `loops` times and yields the time of
one call (total / (loops * sets)). `loops` is calibrated per mode so that a sample lasts at
least `min_sample_seconds`, which keeps the clock's resolution and the per-sample set-up out of
the figure. Samples of the modes alternate in a fresh random order every round, so that a
burst of load from other processes hits every mode alike; rounds continue until each mode has
`min_rounds` samples and either `max_rounds` is reached or the time budget is spent. The
garbage collector is paused during a sample (as `timeit` does). Trace and compile time never
enter these samples: the caller warms every mode up (first calls) before timing.

Reported per mode: median, 25th and 75th percentiles, minimum and maximum of the per-call time,
the number of samples and the loops per sample. A speed-up is the ratio of medians.
"""

from __future__ import annotations

import gc
import math
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class TimingStats:
    """Per-call seconds of one mode in steady state."""

    median: float
    p25: float
    p75: float
    minimum: float
    maximum: float
    samples: int
    loops: int

    @property
    def relative_spread(self) -> float:
        """Interquartile range over the median: how stable the measurement was."""
        return (self.p75 - self.p25) / self.median if self.median > 0 else math.inf

    def as_dict(self) -> dict[str, float | int]:
        return {
            "median_seconds": self.median,
            "p25_seconds": self.p25,
            "p75_seconds": self.p75,
            "min_seconds": self.minimum,
            "max_seconds": self.maximum,
            "samples": self.samples,
            "loops": self.loops,
        }


def quantile(values: Sequence[float], q: float) -> float:
    """Linear-interpolation quantile (numpy's default) of a non-empty sequence."""
    ordered = sorted(values)
    if not ordered:
        raise ValueError("quantile of no values")
    position = (len(ordered) - 1) * q
    low = math.floor(position)
    high = math.ceil(position)
    fraction = position - low
    return ordered[low] + (ordered[high] - ordered[low]) * fraction


def summarize(per_call: Sequence[float], loops: int) -> TimingStats:
    return TimingStats(
        median=quantile(per_call, 0.5),
        p25=quantile(per_call, 0.25),
        p75=quantile(per_call, 0.75),
        minimum=min(per_call),
        maximum=max(per_call),
        samples=len(per_call),
        loops=loops,
    )


def _timed(run_pass: Callable[[], None], loops: int) -> float:
    enabled = gc.isenabled()
    gc.disable()
    try:
        start = time.perf_counter()
        for _ in range(loops):
            run_pass()
        return time.perf_counter() - start
    finally:
        if enabled:
            gc.enable()


def measure(
    passes: Mapping[str, Callable[[], None]],
    calls_per_pass: int,
    *,
    before_sample: Callable[[], None] | None = None,
    min_rounds: int = 7,
    max_rounds: int = 41,
    budget_seconds: float = 2.0,
    min_sample_seconds: float = 0.02,
    seed: int = 0,
) -> dict[str, TimingStats]:
    """Time every mode's `pass` (one call per argument set) interleaved; stats per call.

    `before_sample` runs untimed before each sample (the caller restores variables there).
    An exception from a pass propagates: the caller has already run every mode once.
    """
    if not passes:
        return {}
    rng = random.Random(seed)
    loops: dict[str, int] = {}
    for mode, run_pass in passes.items():
        elapsed = math.inf
        for _ in range(3):  # the fastest of three passes: one slow pass must not set the loops
            if before_sample is not None:
                before_sample()
            elapsed = min(elapsed, max(_timed(run_pass, 1), 1e-7))
        loops[mode] = max(1, min(10_000, math.ceil(min_sample_seconds / elapsed)))
    samples: dict[str, list[float]] = {mode: [] for mode in passes}
    started = time.perf_counter()
    modes = list(passes)
    rounds = 0
    while rounds < max_rounds:
        if rounds >= min_rounds and time.perf_counter() - started > budget_seconds:
            break
        rng.shuffle(modes)
        for mode in modes:
            if before_sample is not None:
                before_sample()
            total = _timed(passes[mode], loops[mode])
            samples[mode].append(total / (loops[mode] * max(1, calls_per_pass)))
        rounds += 1
    return {mode: summarize(samples[mode], loops[mode]) for mode in passes}


def speedup(baseline: TimingStats, candidate: TimingStats) -> float:
    """How many times faster `candidate` is than `baseline` (ratio of medians)."""
    return baseline.median / candidate.median if candidate.median > 0 else math.inf


def clearly_faster(baseline: TimingStats, candidate: TimingStats, min_speedup: float) -> bool:
    """Faster by at least `min_speedup` at the median, and the interquartile ranges do not overlap."""
    return speedup(baseline, candidate) >= min_speedup and candidate.p75 < baseline.p25


def geometric_mean(values: Sequence[float]) -> float | None:
    positive = [v for v in values if v > 0 and math.isfinite(v)]
    if not positive:
        return None
    return math.exp(sum(math.log(v) for v in positive) / len(positive))
