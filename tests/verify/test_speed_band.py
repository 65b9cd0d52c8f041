"""The noise band of the benefit oracle (`hybridize.verify.speed_band`): the median's
order-statistic interval and the verdict faster / slower / no measurable difference."""

from __future__ import annotations

import pytest

from hybridize.verify.speed_band import (
    BAND,
    MAX_RATIOS,
    MIN_RATIOS,
    RatioInterval,
    median_interval,
    settled,
    speed_verdict,
)


def test_the_interval_of_five_ratios_is_their_range_with_its_coverage() -> None:
    interval = median_interval([1.4, 1.2, 3.0, 1.3, 1.25])
    assert interval == RatioInterval(1.3, 1.2, 3.0, 5, pytest.approx(1 - 2 / 32))


def test_more_ratios_narrow_the_interval_to_inner_order_statistics() -> None:
    ratios = [float(i) for i in range(1, 22)]  # 21 ratios, median 11
    interval = median_interval(ratios)
    assert interval is not None and interval.median == 11.0
    # ranks 6 and 16: 1 - 2 P(Binomial(21, 1/2) < 6) = 0.973; ranks 7 and 15 would give 0.947
    assert (interval.low, interval.high) == (6.0, 16.0)
    assert interval.coverage == pytest.approx(0.9734, abs=1e-4)


def test_no_ratio_gives_no_interval_and_nonsense_ratios_are_dropped() -> None:
    assert median_interval([]) is None
    assert median_interval([float("inf"), 0.0, -1.0]) is None
    interval = median_interval([2.0, float("nan"), 2.0, 2.0, 2.0, 2.0])
    assert interval is not None and interval.samples == 5


def _interval(median: float, low: float, high: float, samples: int = 7) -> RatioInterval:
    return RatioInterval(median, low, high, samples, 0.98)


def test_faster_needs_the_interval_above_one_and_the_median_beyond_the_band() -> None:
    assert speed_verdict(_interval(1.5, 1.2, 2.0)) == "faster"
    assert speed_verdict(_interval(1.5, 0.8, 2.0)) == "no measurable difference"  # straddles 1
    # clear of 1, but by less than the band
    assert speed_verdict(_interval(1.0 + BAND / 2, 1.01, 1.08)) == "no measurable difference"


def test_slower_mirrors_faster() -> None:
    assert speed_verdict(_interval(0.5, 0.3, 0.7)) == "slower"
    assert speed_verdict(_interval(0.5, 0.3, 1.2)) == "no measurable difference"
    assert speed_verdict(_interval(0.95, 0.92, 0.97)) == "no measurable difference"


def test_too_few_ratios_decide_nothing() -> None:
    assert speed_verdict(_interval(3.0, 2.0, 4.0, samples=MIN_RATIOS - 1)) == (
        "no measurable difference"
    )
    assert speed_verdict(_interval(3.0, 2.0, 4.0, samples=MIN_RATIOS)) == "faster"


def test_an_outlier_among_seven_rounds_leaves_the_verdict_open_and_nine_rounds_decide() -> None:
    """A call 2x faster compiled with one sample hit each way: among seven ratios the 95%
    interval of the median is their range, which the outliers stretch across 1 (no
    measurable difference); with nine (two calls' rounds pooled) it drops one at each end."""
    seven = [2.0, 2.1, 1.9, 0.2, 2.05, 20.0, 1.95]
    interval = median_interval(seven)
    assert interval is not None and (interval.low, interval.high) == (0.2, 20.0)
    assert speed_verdict(interval) == "no measurable difference"
    nine = median_interval([*seven, 2.02, 1.98])
    assert nine is not None and (nine.low, nine.high) == (1.9, 2.1)
    assert speed_verdict(nine) == "faster"


def test_an_interval_is_settled_when_it_decides_or_lies_within_the_band() -> None:
    assert not settled(None)
    assert not settled(_interval(3.0, 2.0, 4.0, samples=MIN_RATIOS - 1))  # too few to decide
    assert settled(_interval(3.0, 2.0, 4.0))  # faster
    assert settled(_interval(0.5, 0.3, 0.7))  # slower
    # equal to within the noise: no measurable difference, and more rounds would not change it
    assert settled(_interval(1.01, 0.95, 1.06))
    # wide: it straddles 1 and reaches past the band, so more rounds may decide it
    assert not settled(_interval(1.22, 0.67, 1.61, samples=14))
    # clear of 1 but not of the band's edge: more rounds may put the median past 1.10 or not
    assert not settled(_interval(1.08, 1.02, 1.2, samples=14))
    assert settled(_interval(1.22, 0.67, 1.61, samples=MAX_RATIOS))
