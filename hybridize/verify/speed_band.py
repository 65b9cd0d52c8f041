"""Whether a change is measurably faster or slower, from repeated interleaved measurements.

On a shared machine one timing says little: a sample that the scheduler interrupts, or the
first call after the other mode's, can be many times longer than the call. The benefit plugin
therefore times each sampled call in rounds: one eager and one compiled sample side by side
(which goes first alternates; each sample follows an untimed call of its own mode), and a
round's *ratio* is eager time over compiled time, both in the process's CPU time (every thread
of the process, the framework's pools included: what the call costs, not how long the other
processes of the machine held the cores).

A function's ratios are those of every round of every timed call. The estimate is their
median; its interval is the distribution-free confidence interval of a median, from order
statistics: the k-th smallest and the k-th largest ratio, k the largest rank for which the
chance that k or more of n ratios fall on one side of the true median, split evenly, stays
within `1 - CONFIDENCE` (`median_interval`). Rounds of one call share its moment's load, so
the stated coverage is nominal.

The verdict (`speed_verdict`): *faster* when the whole interval lies above 1 and the median
above `1 + BAND`; *slower* when the whole interval lies below 1 and the median below
`1 / (1 + BAND)`; otherwise *no measurable difference* (the interval straddles 1, or the
difference is within the band), reported apart. `BAND` is the spread that comparing one mode
with itself (eager against eager, the same method, docs/oracle.md) shows on this machine.

How many rounds (`settled`): a call the tests make only once or twice gives few ratios and a
wide interval, which says "no measurable difference" of a change that is several times faster.
The plugin therefore replays such a call (the same inputs) for more rounds, both modes the
same number, looking at the interval of the function's ratios so far only every `LOOK_ROUNDS`
rounds, until it is *settled*: decided faster or slower, or lying wholly within the band
(genuinely equal, also "no measurable difference"), or `MAX_RATIOS` ratios or the plugin's
time cap per change are reached. Stopping when a verdict is reached, checked at fixed looks, is
a sequential test: its error rate is somewhat above one fixed look's, which the band (a median
beyond 10% as well as an interval clear of 1) keeps small.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

BAND = 0.10
"""A median ratio within 1/(1 + BAND) .. 1 + BAND is no measurable difference."""
CONFIDENCE = 0.95
"""The nominal coverage sought for the median's interval."""
MIN_RATIOS = 5
"""The fewest ratios that decide: their range covers the median with 94% (four: 88%)."""
LOOK_ROUNDS = 7
"""Rounds between two looks at whether a function's interval is settled (`settled`)."""
MAX_RATIOS = 63
"""The most ratios a function's replayed calls are extended to (in one process): nine looks;
63 ratios put the 95% interval at the 25th and 39th."""

SpeedVerdict = Literal["faster", "slower", "no measurable difference"]


@dataclass(frozen=True, slots=True)
class RatioInterval:
    """The median of a function's round ratios and the interval around it."""

    median: float
    low: float
    high: float
    samples: int
    coverage: float
    """The interval's nominal coverage (below `CONFIDENCE` when there are too few ratios for
    it: five give at most 94%, the range)."""


def median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def _below(n: int, k: int) -> float:
    """P(Binomial(n, 1/2) < k): the chance that fewer than k of n values fall below the true
    median."""
    return sum(math.comb(n, i) for i in range(k)) / 2**n


def median_interval(
    ratios: Sequence[float], confidence: float = CONFIDENCE
) -> RatioInterval | None:
    """The median of `ratios` with its order-statistic interval (None: no ratio). With n
    ratios sorted, [x_k, x_(n+1-k)] holds the true median with probability
    1 - 2 P(Binomial(n, 1/2) < k); k is the largest rank keeping that at least `confidence`,
    and at least 1 (the range) when even that falls short."""
    ordered = sorted(r for r in ratios if math.isfinite(r) and r > 0)
    n = len(ordered)
    if n == 0:
        return None
    k = 1
    while k + 1 <= (n + 1) // 2 and 1 - 2 * _below(n, k + 1) >= confidence:
        k += 1
    return RatioInterval(
        median=median(ordered),
        low=ordered[k - 1],
        high=ordered[n - k],
        samples=n,
        coverage=1 - 2 * _below(n, k),
    )


def settled(interval: RatioInterval | None, band: float = BAND) -> bool:
    """Whether more rounds are not needed: the interval decides (`speed_verdict` faster or
    slower), or it lies wholly within the band (the two modes are equal to within the noise),
    or it holds `MAX_RATIOS` ratios. False below `MIN_RATIOS` (or no ratio)."""
    if interval is None or interval.samples < MIN_RATIOS:
        return False
    if (
        interval.samples >= MAX_RATIOS
        or speed_verdict(interval, band) != "no measurable difference"
    ):
        return True
    return 1.0 / (1.0 + band) <= interval.low and interval.high <= 1.0 + band


def speed_verdict(interval: RatioInterval, band: float = BAND) -> SpeedVerdict:
    """Faster, slower, or no measurable difference (module docstring); also the latter with
    fewer than `MIN_RATIOS` ratios, whose interval covers too little to decide."""
    if interval.samples < MIN_RATIOS:
        return "no measurable difference"
    if interval.low > 1.0 and interval.median > 1.0 + band:
        return "faster"
    if interval.high < 1.0 and interval.median < 1.0 / (1.0 + band):
        return "slower"
    return "no measurable difference"
