"""Branches no call takes are no work (`facts/switched_branches.py`, issue 34).

A body branching on a parameter runs one branch per call; where every call site of the
program passes that parameter one constant (a literal, a module constant, a caller's
parameter that is itself one constant everywhere, or the default where a site omits it), the
other branch never runs, and the work estimate leaves it out (tf-pwa's `struct_momentum`,
`center_mass=True` by default, every caller passing False). A value that differs between call
sites, or is computed, leaves both branches in.
"""

from __future__ import annotations

import re

import pytest
from facts_helpers import analyse

SOURCE = """
import functools

import tensorflow as tf

CENTER = False


def heavy(p):
    for _ in range(3):
        p = tf.sin(p) * tf.cos(p) + tf.exp(p) * tf.tanh(p) - tf.square(p)
        p = tf.matmul(p, p) + tf.reduce_sum(tf.concat([p, p], 0))
    return p


def struct_momentum(p, center_mass=True):
    if center_mass:
        p = heavy(p)
        p = tf.sin(p) * tf.cos(p) + tf.exp(p) * tf.tanh(p) - tf.square(p)
    else:
        p = p + 1.0
    return p


def main(data):
    while True:
        for p in data:
            CALLS
"""


# A caller passing its own parameter on, defined where a case calls it: a function no code
# calls is an entry point, whose callers may pass anything.
SINGLE = """

def single(p, center_mass=False):
    return struct_momentum(p, center_mass=center_mass)
"""


def _benefit(calls: str) -> tuple[str, str]:
    source = SOURCE.replace("CALLS", calls)
    return _benefit_of(source + SINGLE if "single(" in calls else source)


@pytest.mark.parametrize(
    "calls",
    [
        "struct_momentum(p, center_mass=False)",
        "struct_momentum(p, False)",
        "struct_momentum(p, center_mass=CENTER)",
        "struct_momentum(p, center_mass=None)",
        "single(p)",  # passed on from a parameter whose callers all leave it False
        "single(p, center_mass=0)",
    ],
)
def test_a_branch_every_caller_switches_off_is_no_work(calls: str) -> None:
    benefit, reasons = _benefit(calls)
    assert benefit == "low", reasons
    assert "too little work per call" in reasons


@pytest.mark.parametrize(
    "calls",
    [
        "struct_momentum(p)",  # the default: the heavy branch runs
        "struct_momentum(p, center_mass=True)",
        # the callers differ: either branch may run
        "struct_momentum(p, center_mass=False)\n            struct_momentum(p, True)",
        "struct_momentum(p, center_mass=len(data) > 2)",  # computed
        "single(p, center_mass=len(data) > 2)",
    ],
)
def test_a_branch_some_call_may_take_is_work(calls: str) -> None:
    benefit, reasons = _benefit(calls)
    assert benefit == "high", reasons


@pytest.mark.parametrize(
    "calls",
    [
        # a partial object binds the switch where the call site does not show it
        "functools.partial(struct_momentum, center_mass=True)(p)\n"
        "            struct_momentum(p, center_mass=False)",
        "struct_momentum(*[p, True])\n            struct_momentum(p, center_mass=False)",
        # handed to a call that calls it: the arguments it gets are not in the code
        "tf.map_fn(struct_momentum, p)\n            struct_momentum(p, center_mass=False)",
        "list(map(struct_momentum, data))\n            struct_momentum(p, center_mass=False)",
    ],
)
def test_arguments_a_site_does_not_show_leave_both_branches(calls: str) -> None:
    benefit, reasons = _benefit(calls)
    assert benefit == "high", reasons


def test_a_function_the_package_exports_keeps_both_branches() -> None:
    """Users outside the project call an exported function with values the project's own
    calls do not show: both branches stay work."""
    files = {
        "pkg/__init__.py": "from pkg.physics import struct_momentum\n",
        "pkg/physics.py": SOURCE.replace("CALLS", "struct_momentum(p, center_mass=False)"),
    }
    v = analyse(files)["pkg/physics.py::struct_momentum"]
    assert "too little work per call" not in " ".join(v.benefit_reasons), v.benefit_reasons
    private = {**files, "pkg/__init__.py": ""}
    v = analyse(private)["pkg/physics.py::struct_momentum"]
    assert "too little work per call" in " ".join(v.benefit_reasons), v.benefit_reasons


LAYER = (
    SOURCE[: SOURCE.index("def struct_momentum")]
    + """
class Noisy(tf.keras.layers.Layer):
    def _noise(self, x, training):
        if training:
            return heavy(x)
        return x

    def call(self, x, training=False):
        return self._noise(x, training)


def main(data):
    layer = Noisy()
    while True:
        for x in data:
            layer._noise(x, PASSED)
"""
)


def test_a_flag_the_layer_library_passes_keeps_both_branches() -> None:
    """Keras calls a layer's `call` with `training` from its call context (True inside
    `fit`), not only the default the project's calls leave: `_noise`'s `training` passed on
    from `call` may be either, whatever the project's own calls pass; where `call` passes a
    constant, it is one."""
    kept = analyse(LAYER.replace("PASSED", "False"))["Noisy._noise"]
    assert "too little work per call" not in " ".join(kept.benefit_reasons)
    constant = LAYER.replace("PASSED", "False").replace(
        "self._noise(x, training)", "self._noise(x, False)"
    )
    off = analyse(constant)["Noisy._noise"]
    assert "too little work per call" in " ".join(off.benefit_reasons), off.benefit_reasons


def test_a_local_computed_from_a_caller_s_parameter_keeps_both_branches() -> None:
    single = SINGLE.replace(
        "def single(p, center_mass=False):\n    return",
        "def single(p, center_mass=False):\n    flag = not center_mass\n    return",
    ).replace("center_mass=center_mass)", "center_mass=flag)")
    assert "flag = not center_mass" in single
    benefit, reasons = _benefit_of(SOURCE.replace("CALLS", "single(p)") + single)
    assert benefit == "high", reasons


def _benefit_of(source: str) -> tuple[str, str]:
    v = analyse(source)["struct_momentum"]
    return v.benefit, " ".join(v.benefit_reasons)


def test_a_decorated_function_keeps_both_branches() -> None:
    """A decorator may wrap the function and call it with values of its own, or register it
    where other code (a user's script) calls it: both branches stay work."""
    register = "REGISTRY = {}\n\n\ndef register(f):\n    REGISTRY[f.__name__] = f\n    return f\n"
    registered = SOURCE.replace(
        "def struct_momentum(", register + "\n\n@register\ndef struct_momentum("
    )
    benefit, reasons = _benefit_of(registered.replace("CALLS", "struct_momentum(p, False)"))
    assert benefit == "high", reasons


def test_a_flag_an_exported_function_passes_on_keeps_both_branches() -> None:
    """An exported function's users pass its parameter what they like, and so what it passes
    on to a private helper (keras' `_cudnn_gru`, given `time_major` by `keras.backend.gru`)."""
    files = {
        "pkg/__init__.py": "from pkg.physics import single\n",
        "pkg/physics.py": SOURCE.replace("CALLS", "single(p)") + SINGLE,
    }
    v = analyse(files)["pkg/physics.py::struct_momentum"]
    assert "too little work per call" not in " ".join(v.benefit_reasons), v.benefit_reasons
    private = {**files, "pkg/__init__.py": ""}
    v = analyse(private)["pkg/physics.py::struct_momentum"]
    assert "too little work per call" in " ".join(v.benefit_reasons), v.benefit_reasons


STORED = """
import tensorflow as tf


def heavy(p):
    for _ in range(3):
        p = tf.sin(p) * tf.cos(p) + tf.exp(p) * tf.tanh(p) - tf.square(p)
        p = tf.matmul(p, p) + tf.reduce_sum(tf.concat([p, p], 0))
    return p


class Step:
    def __init__(self, size, center=False):
        self.size = size
        self.center = center

    def run(self, p):
        if self.center:
            p = heavy(p)
            p = tf.sin(p) * tf.cos(p) + tf.exp(p) * tf.tanh(p) - tf.square(p)
        return p + 1.0
OTHER

def main(data):
    step = Step(CONSTRUCT)
    while True:
        for p in data:
            step.run(p)
"""


def _stored(construct: str, other: str = "") -> tuple[str, str]:
    source = STORED.replace("CONSTRUCT", construct).replace("OTHER", other)
    v = analyse(source)["Step.run"]
    return v.benefit, " ".join(v.benefit_reasons)


@pytest.mark.parametrize("construct", ["8", "8, center=False", "8, False", "8, center=None"])
def test_a_branch_on_an_attribute_every_construction_switches_off_is_no_work(
    construct: str,
) -> None:
    """`self.center` is the `__init__` parameter stored there once: what every construction
    passes (or the default it leaves) decides the branch at every call of `run`."""
    benefit, reasons = _stored(construct)
    assert benefit == "low", reasons
    assert "too little work per call" in reasons


def test_a_default_no_construction_of_the_project_overrides_is_assumed() -> None:
    """`Step` is built by `build`, which the package exports: its users may pass
    `center=True`. No call of the project passes another value than the default, which, for
    the estimate only, stands for the value; the reason says so. Known from the project's own
    constructions, it needs no such words."""
    build = "\n\ndef build(center=False):\n    return Step(8, center=center)\n"
    files = {
        "pkg/__init__.py": "from pkg.steps import build\n",
        "pkg/steps.py": STORED.replace("OTHER", build).replace("Step(CONSTRUCT)", "build()"),
    }
    v = analyse(files)["pkg/steps.py::Step.run"]
    reasons = " ".join(v.benefit_reasons)
    assert v.benefit == "low", reasons
    assert "leaving out the branches on `self.center`" in reasons, reasons
    assert "assumed" in reasons, reasons
    benefit, known = _stored("8")
    assert benefit == "low", known
    assert "self.center" not in known, known
    files["pkg/steps.py"] = files["pkg/steps.py"].replace("build()", "build(center=True)")
    v = analyse(files)["pkg/steps.py::Step.run"]
    assert v.benefit == "high", v.benefit_reasons


@pytest.mark.parametrize(
    ("construct", "other"),
    [
        ("8, center=True", ""),  # the construction takes the heavy side
        ("8", "\n    def recenter(self):\n        self.center = True\n"),  # assigned again
    ],
)
def test_an_attribute_some_call_may_set_is_work(construct: str, other: str) -> None:
    benefit, reasons = _stored(construct, other)
    assert benefit == "high", reasons


SIDES = """
import tensorflow as tf


def side(p):
    return tf.sin(p) * tf.cos(p) + tf.exp(p) * tf.tanh(p) - tf.square(p)


def other_side(p):
    return tf.sin(p) * tf.cos(p) + tf.exp(p) * tf.tanh(p) - tf.square(p)


def step(p, mode=None):
    BODY
    return p


def main(data):
    while True:
        for p in data:
            step(p)
            step(p, mode=len(data))
"""


def _work_figure(body: str) -> tuple[int, str]:
    v = analyse(SIDES.replace("BODY", body))["step"]
    reasons = " ".join(v.benefit_reasons)
    found = re.search(r"about (\d+) µs of eager", reasons)
    assert found is not None, reasons
    return int(found.group(1)), reasons


def test_the_sides_of_a_branch_not_known_are_weighted_not_summed() -> None:
    """`mode` is None at one call site, a number at the other: either side may run, but only
    one runs per call (a graph holds the side its trace took): the estimate is one side's work, not both
    summed, and the reason says how it was counted."""
    one_side, _ = _work_figure("p = side(p)")
    both, reasons = _work_figure(
        "if mode is not None:\n        p = side(p)\n    else:\n        p = other_side(p)"
    )
    assert abs(both - one_side) <= 1, (both, one_side)
    assert "by share, not summed" in reasons, reasons
    guarded, _ = _work_figure("if mode is not None:\n        p = side(p)")
    assert abs(2 * guarded - one_side) <= 2, (guarded, one_side)
