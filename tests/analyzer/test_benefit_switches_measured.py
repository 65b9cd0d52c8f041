"""The measured claim behind `BenefitModel._returns_before_its_work`, again (TensorFlow 2.21,
CPU): a step whose check returns its argument first under a switch that is off runs two ops
eagerly, and compiling it costs more than it saves; with the switch on, the same step runs the
check's dozen ops and compiling saves more (tensorflow-graphics' `spherical_to_cartesian_
coordinates`, measured by hand: 0.52x compiled against eager with its debug flag off, 1.09x
with it on). Least of 15 interleaved samples; ratios side by side."""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Callable
from typing import Any

import pytest

pytestmark = pytest.mark.slow


def _least_microseconds(runs: dict[str, Callable[[], object]]) -> dict[str, float]:
    samples: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(15):
        for name, run in runs.items():
            start = time.process_time()
            for _ in range(30):
                run()
            samples[name].append((time.process_time() - start) / 30 * 1e6)
    return {name: min(values) for name, values in samples.items()}


def _step(debug: Callable[[], bool]) -> Callable[[Any], Any]:
    """A step whose check returns its argument first unless `debug()` (read at every call)."""
    import tensorflow as tf

    def check(x: Any) -> Any:
        if not debug():
            return x
        x = tf.debugging.assert_all_finite(x, "not finite")
        for _ in range(3):
            x = tf.identity(tf.sin(x) * tf.cos(x) + tf.exp(x) * 2.0)
        return x

    def step(x: Any) -> Any:
        return tf.sin(check(x)) + 1.0

    return step


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_compiling_a_step_whose_check_returns_first_does_not_pay() -> None:
    import tensorflow as tf

    x = tf.ones([4, 3])
    off, on = _step(lambda: False), _step(lambda: True)
    off_compiled, on_compiled = tf.function(off), tf.function(on)
    off_compiled(x)
    on_compiled(x)
    times = _least_microseconds(
        {
            "off eager": lambda: off(x),
            "off compiled": lambda: off_compiled(x),
            "on eager": lambda: on(x),
            "on compiled": lambda: on_compiled(x),
        }
    )
    off_ratio = times["off eager"] / times["off compiled"]
    on_ratio = times["on eager"] / times["on compiled"]
    assert off_ratio < 1.0, times  # two eager ops against a compiled call's overhead
    assert on_ratio > 1.5 * off_ratio, times  # the check's ops are what compiling saves


@pytest.mark.tensorflow
@pytest.mark.skipif(
    importlib.util.find_spec("tensorflow") is None or importlib.util.find_spec("absl") is None,
    reason="TensorFlow or absl absent",
)
def test_a_step_whose_check_an_absl_flag_switches_off_by_default_does_not_pay() -> None:
    """The class behind `flag_defaults` (tensorflow-graphics' `linear_rgb.from_srgb`: its
    `asserts.assert_all_in_range` returns first unless `tfg_add_asserts_to_graph`, defined
    False, is set): an absl flag holds its `DEFINE_boolean` default until something sets it,
    and a body reading it at every call runs the check's ops only once it is set. At the
    default, compiling the step costs more than it saves; set, it saves more."""
    import tensorflow as tf
    from absl import flags

    values = flags.FlagValues()
    flags.DEFINE_boolean("add_checks", False, "Checks every tensor.", flag_values=values)
    assert values["add_checks"].value is False  # the default, before any parsing

    step = _step(lambda: values["add_checks"].value)
    x = tf.ones([4, 3])
    default_compiled = tf.function(step)
    default_compiled(x)  # traced with the flag at its default
    values["add_checks"].value = True
    set_compiled = tf.function(step)
    set_compiled(x)  # traced with the flag set
    values["add_checks"].value = False
    default_times = _least_microseconds(
        {"eager": lambda: step(x), "compiled": lambda: default_compiled(x)}
    )
    values["add_checks"].value = True
    set_times = _least_microseconds({"eager": lambda: step(x), "compiled": lambda: set_compiled(x)})
    default_ratio = default_times["eager"] / default_times["compiled"]
    set_ratio = set_times["eager"] / set_times["compiled"]
    assert default_ratio < 1.0, (default_times, set_times)
    assert set_ratio > 1.5 * default_ratio, (default_times, set_times)
