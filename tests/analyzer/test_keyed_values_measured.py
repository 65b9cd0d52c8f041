"""Python numbers read back from containers by a constant key retrace per value, measured.

TF 2.21 keys a `tf.function`'s trace cache on the value of every Python scalar argument
(`int`, `float`, `bool`, `str`): a caller whose value changes per call traces again for each
new value, wherever the caller read it from. Retracing class 3 of issue #34: zfit 0.28.0's
`LevenbergMarquardt._damped_hess0(hess, L)` receives `L` read back from the dict its step
returns (`{"step": (h, chi2, L), "hessian": ...}`, then `step = new_point["step"]; L =
step[2]`), multiplied by 11 or divided by 9 per iteration: a trace per value. A dict display
with string keys keeps each key's value (`keyed_dict_atom`), so such a read is a Python
float, not also the dict's tensors; a dict the function hands to a call is read as all its
values (the callee may store anything at the key). Whether such a value changes per call is
decided per key (`LiteralVariation._keyed`): a store at another key leaves it alone. Lists
and tuples read by a constant index
(short displays keep positions) and attributes written outside `__init__` were followed
before. Measured here on the programs the analysis reads.
"""

from __future__ import annotations

import importlib.util

import pytest
from facts_helpers import analyse, run_probe

PROGRAM = """
import tensorflow as tf


def damped(hess, L):  # zfit's _damped_hess0, reduced
    return hess * (1 + L)


def step_of(hess, L):
    best = (tf.zeros_like(hess), 0.0, L)
    for _ in range(3):
        h = damped(hess, L)
        if float(tf.reduce_sum(h)) > 8.0:
            L *= 11
        else:
            best = (h, 1.0, L)
            L /= 9
    return {"step": best, "hessian": h}


def minimize(hess):
    L = 1.0
    step = None  # subscripting None raises: `step[2]` reads only what comes later
    for _ in range(3):
        point = step_of(hess, L)
        step = point["step"]
        L = step[2]
        # the next call's argument read back from `step` too: evaluating it reaches `step`
        # inside its own cycle, while `step` holds only its `None` so far
        hess = hess + step[0]
    return point["hessian"]


def scale(x, rate):
    return x * rate


def scale_fixed(x, rate):
    return x * rate


def scale_filled(x, rate):
    return x * rate


def scale_other(x, rate):
    return x * rate


def fill(d):
    d["rate"] = tf.constant(0.5)


def updated(x):
    params = {"rate": 1.0, "w": tf.ones([2])}
    for _ in range(6):
        y = scale(x, params["rate"])
        params["rate"] = params["rate"] * 0.5
    return y


def fixed(x):
    config = {"rate": 0.1, "w": tf.ones([2])}
    for _ in range(6):
        y = scale_fixed(x, config["rate"])
    return y


def other_key(x):
    config = {"rate": 0.1, "step": 0}
    for _ in range(6):
        y = scale_other(x, config["rate"])
        config["step"] = config["step"] + 1  # another key: the rate read stays one
    return y


def filled(x):
    d = {"rate": 1.0, "w": tf.ones([2])}
    fill(d)
    for _ in range(6):
        y = scale_filled(x, d["rate"])
    return y


def run(x):
    return minimize(x), updated(x), fixed(x), other_key(x), filled(x)


run(tf.ones([2]))
"""

PROBE = (
    PROGRAM
    + """
for name in ("damped", "scale", "scale_fixed", "scale_other", "scale_filled"):
    globals()[name] = tf.function(globals()[name])
x = tf.ones([2])
run(x)
for name in ("damped", "scale", "scale_fixed", "scale_other", "scale_filled"):
    print(name, globals()[name].experimental_get_tracing_count())
# the caller's edit: the same values passed as tensors trace once
as_tensor = tf.function(lambda x, rate: x * rate)
params = {"rate": 1.0}
for _ in range(6):
    as_tensor(x, tf.constant(params["rate"]))
    params["rate"] = params["rate"] * 0.5
print("as_tensor", as_tensor.experimental_get_tracing_count())
"""
)


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_a_number_read_back_from_a_container_traces_per_value() -> None:
    traces = {name: int(count) for name, count in run_probe(PROBE).items()}
    # 9 calls of `damped`, the first 3 with L in 1, 11, 121 (sum of 2 * (1 + L) above 8)
    assert traces["damped"] >= 3, traces
    assert traces["scale"] == 6, traces  # a new rate per iteration, a trace each
    assert traces["scale_fixed"] == 1, traces  # the same constant: traced once
    assert traces["scale_other"] == 1, traces  # another key updated
    assert traces["scale_filled"] == 1, traces  # a tensor stored at the key by `fill`
    assert traces["as_tensor"] == 1, traces


def test_the_analysis_follows_numbers_read_back_by_key() -> None:
    verdicts = analyse(PROGRAM)

    def hy201(qualname: str) -> list[str]:
        return [f.message for f in verdicts[qualname].findings if f.code == "HY201"]

    assert hy201("damped") and "`L`" in hy201("damped")[0], verdicts["damped"].findings
    assert hy201("step_of"), verdicts["step_of"].findings  # `L = step[2]`, per iteration
    assert hy201("scale") and "`rate`" in hy201("scale")[0], verdicts["scale"].findings
    assert not hy201("scale_fixed"), verdicts["scale_fixed"].findings
    assert not hy201("scale_other"), verdicts["scale_other"].findings
    assert not hy201("scale_filled"), verdicts["scale_filled"].findings
