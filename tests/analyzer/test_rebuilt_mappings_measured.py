"""Which mapping classes `tf.function` rebuilds as they were, returned and as arguments, measured.

TF 2.21 rebuilds a mapping by calling its class: an argument as `type(x)(pairs)`
(`default_types.Dict.placeholder_value`), a returned one as `type(x)()` filled item by item
(`nest.sequence_like`) and as `type(x)(pairs)` (`Dict.from_tensors`). The analysis'
`mapping_rebuilt_wrong` (HY442 for arguments, HY407 for returns) claims a project class
is rebuilt faithfully only when its `__init__` hands the pairs to the base unchanged and
sets nothing from its parameters. Measured here against the eager call (tf-pwa 0.2.2's
`SU2M` and `EulerAngle` reduced).
"""

from __future__ import annotations

import importlib.util

import pytest
from facts_helpers import analyse, run_probe

CLASSES = """
import collections


class Matrix(dict):  # tf_pwa.angle.SU2M: __init__(self, x) sets an item from x
    def __init__(self, x):
        self["x"] = x


class Angles(dict):  # tf_pwa.angle.EulerAngle: its first parameter is no iterable of pairs
    def __init__(self, alpha=0.0, beta=0.0, gamma=0.0):
        super().__init__()
        self["alpha"] = alpha
        self["beta"] = beta
        self["gamma"] = gamma


class Scaled(dict):  # hands the pairs on, but keeps a parameter as an attribute
    def __init__(self, pairs=(), scale=1.0):
        super().__init__(pairs)
        self.scale = scale


class Forwards(dict):  # hands everything to dict unchanged
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
"""

PROBE = (
    """
import tensorflow as tf
"""
    + CLASSES
    + """

def show(value, values=True):
    if isinstance(value, dict):
        items = ", ".join(f"{k}:{show(v, values)}" for k, v in sorted(value.items()))
        extra = sorted(vars(value).items()) if hasattr(value, "__dict__") else []
        return f"{type(value).__name__}({items}){extra}"
    if isinstance(value, (tuple, list)):
        return "(" + ", ".join(show(v, values) for v in value) + ")"
    if isinstance(value, tf.Tensor):
        return str(round(float(tf.reduce_sum(value)), 3)) if values else "T"
    return type(value).__name__


def run(fn, *args):
    try:
        return show(fn(*args))
    except Exception as error:
        return type(error).__name__


MAKERS = {
    "matrix": lambda a: Matrix(a),
    "angles": lambda a: Angles(a, 2 * a, 3 * a),
    "scaled": lambda a: Scaled({"a": a}, scale=2.0),
    "forwards": lambda a: Forwards(a=a, b=2 * a),
    "plain": lambda a: {"a": a, "b": 2 * a},
    "ordered": lambda a: collections.OrderedDict(a=a, b=2 * a),
}
x = tf.constant(0.5)
for label, make in MAKERS.items():
    def returned(a, make=make):
        return make(a)

    def nested(a, make=make):
        return {"in": make(a)}, a

    seen = []

    def argument(d):
        seen.append(show(d, values=False))  # what the traced body receives
        return tf.constant(0.0)

    for kind, fn in (("return", returned), ("nested", nested)):
        same = run(tf.function(fn), x) == run(fn, x)
        print(f"{label}_{kind}", "same" if same else "differs")
    given = make(x)
    run(tf.function(argument), given)
    same = seen == [show(given, values=False)]
    print(label + "_argument", "same" if same else "differs")
"""
)


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_tf_function_rebuilds_only_forwarding_mappings_as_they_were() -> None:
    measured = run_probe(PROBE)
    for label in ("matrix", "angles", "scaled"):
        # fails (TypeError) or comes back as another object, returned whole or nested
        assert measured[label + "_return"] == "differs", (label, measured)
        assert measured[label + "_nested"] == "differs", (label, measured)
    for label in ("matrix", "angles", "scaled"):
        assert measured[label + "_argument"] == "differs", (label, measured)
    for label in ("forwards", "plain", "ordered"):
        assert measured[label + "_return"] == "same", (label, measured)
        assert measured[label + "_nested"] == "same", (label, measured)
        assert measured[label + "_argument"] == "same", (label, measured)


ANALYSED = (
    """
import tensorflow as tf
"""
    + CLASSES
    + """

def matrix(a):
    return Matrix(tf.exp(a))


def angles(a):
    return Angles(tf.sin(a), 2 * a, 3 * a)


def scaled(a):
    return Scaled({"a": tf.sin(a)}, scale=2.0)


def forwards(a):
    return Forwards(a=tf.sin(a))


def nested(a):
    return {"in": angles(a)}, tf.cos(a)


def through(a):
    return angles(a)


def strip(data):  # tf-pwa's data_strip: every dict comes back plain, others as given
    if isinstance(data, dict):
        return {k: strip(v) for k, v in data.items()}
    return data


def stripped(a):
    return strip({"in": angles(a)})


def read(d, x):
    return tf.reduce_sum(x * d["alpha"])


for _ in range(100):
    x = tf.ones((4,))
    matrix(x), angles(x), scaled(x), forwards(x), nested(x), through(x), stripped(x)
    read(Angles(x, x, x), x)
    read(Forwards(alpha=x), x)
"""
)


def test_the_analysis_claims_the_mappings_measured_to_change() -> None:
    verdicts = analyse(ANALYSED)

    def codes(qualname: str) -> set[str]:
        return {f.code for f in verdicts[qualname].findings}

    for qualname in ("matrix", "angles", "scaled", "nested", "through"):
        assert "HY407" in codes(qualname), (qualname, verdicts[qualname].findings)
    assert "HY407" not in codes("forwards"), verdicts["forwards"].findings
    # returned as a caller gave it (after its type is tested): not claimed
    assert "HY407" not in codes("stripped"), verdicts["stripped"].findings
    hy442 = [f for f in verdicts["read"].findings if f.code == "HY442"]
    assert hy442 and "Angles" in hy442[0].message, verdicts["read"].findings
    assert "Forwards" not in hy442[0].message
