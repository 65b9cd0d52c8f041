"""HY431: a small constant added to a difference of tensors, guarding an op singular at 0.

The check's examples (hybridize/check_examples/HY431) run through test_check_examples; these
tests pin which forms are reported (and which are not, the forms measured finite among them),
and measure the claim on the installed TensorFlow: traced, Grappler's constant folding moves
the constant into the difference (`(x - y) + c` becomes `x + (c - y)`), where it rounds away,
so the guarded value is 0 where the operands are equal.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import subprocess
import sys

import pytest
from facts_helpers import verdict

from hybridize.project import Project, ProjectOptions

PROGRAM = """
import tensorflow as tf

_EPSILON = 1e-8


class Kernel(tf.keras.layers.Layer):
    def __init__(self, length=0.1):
        super().__init__()
        self.length = length

    def call(self, x, y):
        return tf.exp(-tf.norm(x - y + _EPSILON, axis=2) / self.length)


class Loss:
    def __init__(self):
        self.kernel = Kernel()

    def __call__(self, x):
        return tf.reduce_mean(self.kernel.call(x[:, None, :], x[None, :, :]))


def offset(x, y):
    return x - y + 1e-8


def distance(x, y):
    return tf.sqrt(offset(x, y))


def scaled(x, y):
    return distance(x, y) * 2


def first(x, y):
    return tf.math.log(1e-6 + (x - y))


def squares(x, y):
    return tf.sqrt(tf.reduce_sum(tf.square(x - y), axis=2) + _EPSILON)


def leaf(x, y):
    return tf.norm(x + _EPSILON - y, axis=2)


def shift(x, y):
    return tf.norm(x - y + 0.5, axis=2)


def reused(x, y):
    d = x - y
    return tf.norm(d + _EPSILON, axis=2) + tf.reduce_sum(d)


def captured(x, y, eps):
    return tf.norm(x - y + eps, axis=2)


def summed(x, y):
    return tf.norm(x + y + 1e-8, axis=2)


def summed_less(x, y):
    return tf.norm(x + y - 1e-8, axis=2)


def unguarded(x, y):
    return tf.exp(x - y + 1e-8)


CAPTURED = tf.constant(1e-8)


def made_inside(x, y):
    return tf.norm(x - y + tf.constant(1e-8), axis=2)


def cast_inside(x, y):
    return tf.sqrt(tf.cast(_EPSILON, x.dtype) + (x - y))


def made_outside(x, y):
    return tf.norm(x - y + CAPTURED, axis=2)


def made_inside_float64(x, y):
    return tf.norm(x - y + tf.constant(1e-8, tf.float64), axis=2)


def tiny_float64(x, y):
    return tf.norm(x - y + tf.constant(1e-12, dtype=tf.float64), axis=2)


def inverse(x, y):
    return 1.0 / (x - y + _EPSILON)


def root(x, y):
    return (x - y + _EPSILON) ** 0.5


def squared(x, y):
    return (x - y + _EPSILON) ** 2


def halved(x, y):
    return (x - y + _EPSILON) / 2.0


def through_a_name(x, y):
    d = x - y
    return tf.norm(d + _EPSILON, axis=2)


def through_two_names(x, y):
    d = x - y
    guarded = d + _EPSILON
    return 1.0 / guarded


def rebound(x, y):
    d = x - y
    d = d * 2.0
    return tf.norm(d + _EPSILON, axis=2)


k = Kernel()
loss = Loss()
for _ in range(10):
    k(tf.ones((3, 1, 1)), tf.ones((1, 3, 1)))
    loss(tf.ones((3, 1)))
    scaled(tf.ones((3, 1)), tf.ones((3, 1)))
    first(tf.ones((3, 1)), tf.ones((3, 1)))
    for fn in (squares, leaf, shift, reused, summed, summed_less, unguarded, made_inside,
               cast_inside, made_outside, made_inside_float64, tiny_float64, inverse, root,
               squared, halved, through_a_name, through_two_names, rebound):
        fn(tf.ones((3, 1, 1)), tf.ones((1, 3, 1)))
    captured(tf.ones((3, 1, 1)), tf.ones((1, 3, 1)), tf.constant(1e-8))
"""


def _hy431(qualname: str) -> list[str]:
    return [f.message for f in verdict(PROGRAM, qualname).findings if f.code == "HY431"]


def test_a_guard_reaching_a_norm_blocks_the_function_and_its_callers() -> None:
    [message] = _hy431("Kernel.call")
    assert "offset by 1e-08" in message and "constant folding" in message
    assert not verdict(PROGRAM, "Kernel.call").passes
    [message] = _hy431("Loss.__call__")
    assert "`Kernel.call`" in message


def test_a_returned_guard_is_reported_where_it_is_written_and_where_it_meets_the_op() -> None:
    """`offset` computes the rounded value; `distance` takes its square root; `scaled` traces
    both."""
    for qualname in ("offset", "distance", "scaled"):
        [message] = _hy431(qualname)
        assert "in `distance`" in message, qualname


def test_the_constant_may_come_first_and_a_sum_may_subtract_it() -> None:
    [message] = _hy431("first")
    assert "offset by 1e-06" in message
    [message] = _hy431("summed_less")
    assert "offset by 1e-08" in message


def test_the_forms_left_as_written_and_other_values_are_not_reported() -> None:
    """A sum of squares, a constant added to a leaf, a difference used twice, two additions
    (left as written, or summed in order: measured finite), a shift of 0.5 (no guard), a
    tensor constant (a captured input, not a graph constant), and no op singular at 0."""
    for qualname in ("squares", "leaf", "shift", "reused", "summed", "captured", "unguarded"):
        assert _hy431(qualname) == [], qualname
        assert verdict(PROGRAM, qualname).passes, qualname


def test_a_small_number_made_a_tensor_inside_the_function_is_a_graph_constant() -> None:
    """`tf.constant(1e-8)` or `tf.cast(eps, ...)` inside the traced function is folded as
    the number is; a float64 one only when it is below 1e-11 (1e-12 measured to differ,
    1e-8 not); one made outside is a captured input (measured finite)."""
    for qualname, constant in (
        ("made_inside", "1e-08"),
        ("cast_inside", "1e-08"),
        ("tiny_float64", "1e-12"),
    ):
        [message] = _hy431(qualname)
        assert f"offset by {constant}" in message, qualname
    for qualname in ("made_outside", "made_inside_float64"):
        assert _hy431(qualname) == [], qualname


def test_division_and_powers_below_one_written_as_operators_are_singular_at_zero() -> None:
    """`1 / (x - y + eps)` and `(x - y + eps) ** 0.5` lose the guard as `tf.math.divide`
    and `tf.pow` do; a square, and dividing the guarded value by a number, are finite at 0."""
    for qualname in ("inverse", "root"):
        [message] = _hy431(qualname)
        assert "reaches an op not finite at 0" in message, qualname
    for qualname in ("squared", "halved"):
        assert _hy431(qualname) == [], qualname


def test_a_difference_bound_to_a_name_read_once_is_the_same_graph() -> None:
    """`d = x - y` read only in `d + eps` traces to the expression written in one line; read
    twice (`reused`) its node has two uses and keeps the constant out (measured); a name
    bound twice is not followed."""
    [message] = _hy431("through_a_name")
    assert "offset by 1e-08" in message
    [message] = _hy431("through_two_names")
    assert "offset by 1e-08" in message
    assert _hy431("rebound") == []


GETTERS = """
import keras
import numpy as np
import tensorflow as tf
from tensorflow.keras import backend as K

EPS = K.epsilon()


def jaccard(y_true, y_pred, axis=None):
    eps = tf.keras.backend.epsilon()
    intersection = tf.reduce_sum(y_true * y_pred, axis=axis)
    union = tf.reduce_sum(y_true, axis=axis) + tf.reduce_sum(y_pred, axis=axis)
    return (intersection + eps) / (union - intersection + eps)


def aliased(x, y):
    return 1.0 / (x - y + K.epsilon())


def keras_config(x, y):
    return tf.sqrt(x - y + keras.config.epsilon())


def module_constant(x, y):
    return 1.0 / (x - y + EPS)


def finfo(x, y):
    return 1.0 / (x - y + np.finfo(np.float32).eps)


def finfo_float64(x, y):
    return tf.math.log(x - y + np.finfo(np.float64).tiny)


def tnp_finfo(x, y):
    eps = tf.experimental.numpy.finfo(tf.float32).eps
    return 1.0 / (x - y + eps)


def finfo_largest(x, y):
    return 1.0 / (x - y + np.finfo(np.float32).max)


def guarded_op(x, y):
    return tf.sqrt(tf.reduce_sum(tf.square(x - y)) + K.epsilon())


class Guarded:
    def __init__(self, eps=K.epsilon()):
        self.eps = eps

    def __call__(self, x, y):
        return 1.0 / (x - y + self.eps)


class SetInInit:
    def __init__(self):
        self.eps = tf.keras.backend.epsilon()

    def __call__(self, x, y):
        return 1.0 / (x - y + self.eps)


for _ in range(10):
    jaccard(tf.ones((4,)), tf.ones((4,)))
    for fn in (aliased, keras_config, module_constant, finfo, finfo_float64, tnp_finfo,
               finfo_largest, guarded_op, Guarded(), SetInInit()):
        fn(tf.ones((3,)), tf.ones((3,)))
"""


def test_a_guard_read_from_a_framework_constant_is_a_small_constant() -> None:
    """Keras' fuzz factor (`tf.keras.backend.epsilon()`, `K.epsilon()`,
    `keras.config.epsilon()`: 1e-7 unless set) and a float type's `eps` or `tiny`
    (`np.finfo`, `tf.experimental.numpy.finfo`) guard as the literal does, read in the
    expression or through a local, a module constant, an attribute set in `__init__` (from
    a parameter's default, too); nobrainer's `jaccard` is one. `finfo(...).max` is no guard,
    and the getter guarding the op rather than the difference is fine."""
    for qualname, constant in (
        ("jaccard", "1e-07"),
        ("aliased", "1e-07"),
        ("keras_config", "1e-07"),
        ("module_constant", "1e-07"),
        ("finfo", "1.19209e-07"),
        ("finfo_float64", "2.22507e-308"),
        ("tnp_finfo", "1.19209e-07"),
        ("Guarded.__call__", "1e-07"),
        ("SetInInit.__call__", "1e-07"),
    ):
        messages = [f.message for f in verdict(GETTERS, qualname).findings if f.code == "HY431"]
        assert len(messages) == 1 and f"offset by {constant} " in messages[0], qualname
    for qualname in ("finfo_largest", "guarded_op"):
        assert verdict(GETTERS, qualname).passes, qualname
        assert not any(f.code == "HY431" for f in verdict(GETTERS, qualname).findings)


IOU = """
def {name}(boxes, others):
    y0, x0, y1, x1 = tf.split(boxes, 4, axis=2)
    p0, q0, p1, q1 = tf.split(others, 4, axis=2)
    top = tf.math.maximum(y0, tf.transpose(p0, [0, 2, 1]))
    bottom = tf.math.minimum(y1, tf.transpose(p1, [0, 2, 1]))
    left = tf.math.maximum(x0, tf.transpose(q0, [0, 2, 1]))
    right = tf.math.minimum(x1, tf.transpose(q1, [0, 2, 1]))
    inter = tf.math.maximum(bottom - top, 0) * tf.math.maximum(right - left, 0)
    area = {area}
    other = {other}
    return inter / (area + tf.transpose(other, [0, 2, 1]) - inter + 1e-8)
"""

BOXES = """
import tensorflow as tf


def maximum(a, b):
    return a + b


{iou}


{areas_unclipped}


def intervals(starts, ends, other_starts, other_ends):
    inter = tf.nn.relu(tf.minimum(ends, other_ends) - tf.maximum(starts, other_starts))
    union = tf.nn.relu(ends - starts) + tf.maximum(other_ends - other_starts, 0.0) - inter
    return inter / (union + 1e-8)


def unclipped(starts, ends, other_starts, other_ends):
    inter = tf.minimum(ends, other_ends) - tf.maximum(starts, other_starts)
    return inter / (tf.nn.relu(ends - starts) + tf.nn.relu(other_ends - other_starts) - inter + 1e-8)


def other_boxes(starts, ends, other_starts, other_ends):
    inter = tf.nn.relu(tf.minimum(ends, other_ends) - tf.maximum(starts, other_starts))
    return inter / (tf.nn.relu(ends - starts) + tf.nn.relu(other_ends - starts) - inter + 1e-8)


def box_last(starts, ends, other_starts, other_ends):
    inter = tf.nn.relu(tf.minimum(ends, other_ends) - tf.maximum(starts, other_starts))
    return inter / (tf.nn.relu(other_ends - other_starts) + inter - tf.nn.relu(ends - starts) + 1e-8)


def rebound(starts, ends, other_starts, other_ends):
    inter = tf.nn.relu(tf.minimum(ends, other_ends) - tf.maximum(starts, other_starts))
    ends = ends * 2.0
    return inter / (tf.nn.relu(ends - starts) + tf.nn.relu(other_ends - other_starts) - inter + 1e-8)


def not_tensorflow(starts, ends, other_starts, other_ends):
    inter = tf.nn.relu(tf.minimum(ends, other_ends) - maximum(starts, other_starts))
    return inter / (tf.nn.relu(ends - starts) + tf.nn.relu(other_ends - other_starts) - inter + 1e-8)


def reordered(starts, ends, other_starts, other_ends):
    inter = tf.nn.relu(tf.minimum(ends, other_ends) - tf.maximum(starts, other_starts))
    return inter / (tf.nn.relu(ends - starts) - inter + tf.nn.relu(other_ends - other_starts) + 1e-8)


def three_terms(a, b, i):
    return 1.0 / (a + b - i + 1e-8)


def longer(a, i, b):
    return 1.0 / (a - i + b + 1e-8)


def nested(a, i, b):
    return tf.sqrt(a + (b - i) + 1e-8)


def added(a, b, c):
    return 1.0 / (a + b + c + 1e-8)


iou(tf.ones((1, 3, 4)), tf.ones((1, 3, 4)))
areas_unclipped(tf.ones((1, 3, 4)), tf.ones((1, 3, 4)))
for fn in (intervals, reordered, unclipped, other_boxes, box_last, rebound, not_tensorflow):
    fn(tf.ones((3,)), tf.ones((3,)), tf.ones((3,)), tf.ones((3,)))
for fn in (three_terms, longer, nested, added):
    fn(tf.ones((3,)), tf.ones((3,)), tf.ones((3,)))
""".format(
    iou=IOU.format(
        name="iou",
        area="tf.math.maximum(y1 - y0, 0) * tf.math.maximum(x1 - x0, 0)",
        other="tf.math.maximum(p1 - p0, 0) * tf.math.maximum(q1 - q0, 0)",
    ),
    areas_unclipped=IOU.format(
        name="areas_unclipped", area="(y1 - y0) * (x1 - x0)", other="(p1 - p0) * (q1 - q0)"
    ),
)
"""`areas_unclipped` is tf-models' `bbox_overlap`."""


def test_a_guarded_union_of_boxes_is_not_reported() -> None:
    """`A + B - I + eps`, `I` the intersection of the boxes whose sizes are `A` and `B`
    over the same axes, every overlap and extent clipped at 0 (by `tf.maximum` or
    `tf.nn.relu`; one box transposed): wherever the union is 0 all three terms are, so the
    constant meets only zeros, however the traced graph groups the sum (measured below),
    however it is written (`A - I + B + eps`); and a sum of added terms only (`added`:
    summed as written, measured finite)."""
    for qualname in ("iou", "intervals", "reordered", "added"):
        assert [f for f in verdict(BOXES, qualname).findings if f.code == "HY431"] == []
        assert verdict(BOXES, qualname).passes, qualname


def test_a_union_not_shown_to_hold_its_intersection_is_still_reported() -> None:
    """Areas not clipped (tf-models' `bbox_overlap`: an upside-down box's area is negative,
    and `A = -B` with `I = 0` is measured to lose the guard), an overlap not clipped (nested
    intervals make it an area), an extent of another box than the overlap's, a box
    subtracted instead of the intersection, a bound rebound, a `maximum` that is not
    TensorFlow's, and three plain tensors (`a + b - i` is 0 at a = b = 0.5, i = 1), also
    with the difference inside the sum (`a - i + b + eps`, `a + (b - i) + eps`: regrouped
    by Grappler, measured to lose the guard at a = 0, i = b = 1)."""
    for qualname in (
        "areas_unclipped",
        "unclipped",
        "other_boxes",
        "box_last",
        "rebound",
        "not_tensorflow",
        "three_terms",
        "longer",
        "nested",
    ):
        findings = [f for f in verdict(BOXES, qualname).findings if f.code == "HY431"]
        assert len(findings) == 1, qualname
        assert "offset by 1e-08" in findings[0].message, qualname


PROBE = """
import json
import numpy as np
import tensorflow as tf

a = tf.constant([[1.0], [2.0], [3.0], [0.7]])
b = tf.constant([[1.0], [2.0], [1.5], [0.7]])
OPS = {
    "norm": lambda g: tf.norm(g, axis=1),
    "euclidean_norm": lambda g: tf.math.reduce_euclidean_norm(g, axis=1),
    "sqrt": tf.sqrt,
    "pow": lambda g: tf.pow(g, 0.5),
    "log": tf.math.log,
    "divide": lambda g: tf.math.divide(1.0, g),
    "truediv": lambda g: tf.math.truediv(1.0, g),
    "reciprocal": tf.math.reciprocal,
    "rsqrt": tf.math.rsqrt,
}
FORMS = {
    "x - y + eps": lambda op: lambda x, y: op(x - y + 1e-8),
    "eps + (x - y)": lambda op: lambda x, y: op(1e-8 + (x - y)),
    "x + eps - y": lambda op: lambda x, y: op(x + 1e-8 - y),
    "d = x - y used twice": lambda op: lambda x, y: used_twice(op, x - y),
    "d = x - y used once": lambda op: lambda x, y: used_once(op, x, y),
    "x - y + tf.constant(eps)": lambda op: lambda x, y: op(x - y + tf.constant(1e-8)),
    "x - y + captured": lambda op: lambda x, y: op(x - y + CAPTURED),
}
CAPTURED = tf.constant(1e-8)
OPERATORS = {
    "1 / (x - y + eps)": lambda x, y: 1.0 / (x - y + 1e-8),
    "(x - y + eps) ** 0.5": lambda x, y: (x - y + 1e-8) ** 0.5,
    "(x - y + eps) ** 2": lambda x, y: (x - y + 1e-8) ** 2,
}


def used_once(op, x, y):
    d = x - y
    return op(d + 1e-8)


def used_twice(op, d):
    return op(d + 1e-8) + 0.0 * tf.reduce_sum(d)


def finite(fn):
    with tf.GradientTape() as tape:
        tape.watch(a)
        value = fn(a, b)
        total = tf.reduce_sum(value)
    gradient = tape.gradient(total, a)
    return bool(tf.reduce_all(tf.math.is_finite(value)) and tf.reduce_all(tf.math.is_finite(gradient)))


def measure(forms, ops):
    found = {}
    for form in forms:
        for name in ops:
            make = FORMS[form]
            found[f"{form} | {name}"] = [finite(make(OPS[name])), finite(tf.function(make(OPS[name])))]
    return found


result = {"default": measure(FORMS, OPS)}
for form, fn in OPERATORS.items():
    result["default"][form] = [finite(fn), finite(tf.function(fn))]
a64, b64 = tf.cast(a, tf.float64), tf.cast(b, tf.float64)
for eps in (1e-8, 1e-12):
    fn = lambda x, y: tf.sqrt(x - y + tf.constant(eps, tf.float64))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(a64)
        eager = fn(a64, b64)
        traced = tf.function(fn)(a64, b64)
    found = [tape.gradient(eager, a64), tape.gradient(traced, a64), eager, traced]
    close = all(
        bool(tf.reduce_all(tf.math.is_finite(g))) for g in found
    ) and bool(
        np.allclose(found[0], found[1], rtol=1e-5, atol=1e-6)
        and np.allclose(found[2], found[3], rtol=1e-5, atol=1e-6)
    )
    result["default"][f"float64 tf.constant({eps:g})"] = close
squares = lambda x, y: tf.sqrt(tf.reduce_sum(tf.square(x - y), axis=1) + 1e-8)
result["default"]["sqrt(sum(square(x - y)) + eps)"] = [finite(squares), finite(tf.function(squares))]
jit = FORMS["x - y + eps"](OPS["norm"])
result["default"]["jit_compile | norm"] = [finite(jit), finite(tf.function(jit, jit_compile=True))]
negated = -b
for form, fn in {
    "x + y + eps": lambda x, y: tf.norm(x + y + 1e-8, axis=1),
    "x + y - eps": lambda x, y: tf.norm(x + y - (-1e-8), axis=1),
}.items():
    found = [finite(lambda x, _: fn(x, negated)), finite(tf.function(lambda x, _: fn(x, negated)))]
    result["default"][form] = found
tf.config.optimizer.set_experimental_options({"arithmetic_optimization": False})
result["arithmetic_optimization off"] = measure(["x - y + eps"], ["norm", "sqrt"])
tf.config.optimizer.set_experimental_options({"arithmetic_optimization": True, "constant_folding": False})
result["constant_folding off"] = measure(["x - y + eps"], ["norm", "sqrt"])
print(json.dumps(result))
"""


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_constant_folding_erases_a_guard_added_to_a_difference() -> None:
    """Measured under TF 2.21 (float32, operands near 1, eps 1e-8): eagerly every form is
    finite; traced, a constant added to a single-use difference is lost before every op
    singular at 0, and only constant folding does it (the arithmetic optimizer switched off
    changes nothing); a constant added to a leaf, a sum of squares, a difference used twice
    and an XLA-compiled function keep the guard."""
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    done = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.splitlines()[-1])
    default = result["default"]
    ops = ("norm", "euclidean_norm", "sqrt", "pow", "log", "divide", "truediv", "reciprocal")
    ops += ("rsqrt",)
    for op in ops:
        for form in ("x - y + eps", "eps + (x - y)"):
            assert default[f"{form} | {op}"] == [True, False], (form, op)
        assert default[f"d = x - y used twice | {op}"] == [True, True], op
        for form in ("d = x - y used once", "x - y + tf.constant(eps)"):
            assert default[f"{form} | {op}"] == [True, False], (form, op)
        assert default[f"x - y + captured | {op}"] == [True, True], op
    assert default["1 / (x - y + eps)"] == [True, False]
    assert default["(x - y + eps) ** 0.5"] == [True, False]
    assert default["(x - y + eps) ** 2"] == [True, True]
    assert default["float64 tf.constant(1e-08)"] is True
    assert default["float64 tf.constant(1e-12)"] is False
    assert default["x + eps - y | norm"][0] == default["x + eps - y | norm"][1]
    assert default["sqrt(sum(square(x - y)) + eps)"] == [True, True]
    assert default["jit_compile | norm"] == [True, True]
    assert default["x + y + eps"] == [True, True]
    assert default["x + y - eps"] == [True, False]
    for op in ("norm", "sqrt"):
        assert result["arithmetic_optimization off"][f"x - y + eps | {op}"] == [True, False]
        assert result["constant_folding off"][f"x - y + eps | {op}"] == [True, True]


PROBE_BOXES = """
import json
import numpy as np
import tensorflow as tf


def iou(boxes, gt_boxes):
    bb_y_min, bb_x_min, bb_y_max, bb_x_max = tf.split(value=boxes, num_or_size_splits=4, axis=2)
    gt_y_min, gt_x_min, gt_y_max, gt_x_max = tf.split(value=gt_boxes, num_or_size_splits=4, axis=2)
    i_xmin = tf.math.maximum(bb_x_min, tf.transpose(gt_x_min, [0, 2, 1]))
    i_xmax = tf.math.minimum(bb_x_max, tf.transpose(gt_x_max, [0, 2, 1]))
    i_ymin = tf.math.maximum(bb_y_min, tf.transpose(gt_y_min, [0, 2, 1]))
    i_ymax = tf.math.minimum(bb_y_max, tf.transpose(gt_y_max, [0, 2, 1]))
    i_area = tf.math.maximum((i_xmax - i_xmin), 0) * tf.math.maximum((i_ymax - i_ymin), 0)
    bb_area = tf.math.maximum(bb_y_max - bb_y_min, 0) * tf.math.maximum(bb_x_max - bb_x_min, 0)
    gt_area = tf.math.maximum(gt_y_max - gt_y_min, 0) * tf.math.maximum(gt_x_max - gt_x_min, 0)
    u_area = bb_area + tf.transpose(gt_area, [0, 2, 1]) - i_area + 1e-8
    return i_area / u_area


def three(a, b, i):
    return 1.0 / (a + b - i + 1e-8)


def two(x, y):
    return 1.0 / (x - y + 1e-8)


def longer(a, i, b):
    return 1.0 / (a - i + b + 1e-8)


def nested(a, i, b):
    return 1.0 / (a + (b - i) + 1e-8)


def added(a, b, c):
    return 1.0 / (a + b + c + 1e-8)


def both(fn, *args):
    # value and gradient of the sum, eager and traced: finite, and whether they agree
    args = [tf.constant(a, tf.float32) for a in args]

    def run(*xs):
        with tf.GradientTape() as tape:
            tape.watch(xs)
            value = fn(*xs)
            total = tf.reduce_sum(value)
        return value, tape.gradient(total, xs)

    found = []
    for f in (run, tf.function(run)):
        value, grads = f(*args)
        found.append([value.numpy(), *(g.numpy() for g in grads)])
    finite = [all(bool(np.all(np.isfinite(x))) for x in side) for side in found]
    close = all(np.allclose(e, t, rtol=1e-5, atol=0) for e, t in zip(*found))
    return finite + [close]


def value_only(fn, *args):
    args = [tf.constant(a, tf.float32) for a in args]
    return [bool(np.all(np.isfinite(fn(*args).numpy()))), bool(np.all(np.isfinite(tf.function(fn)(*args).numpy())))]


rng = np.random.default_rng(0)
corner = rng.uniform(0, 1, (1, 64, 2))
size = rng.uniform(0, 0.5, (1, 64, 2))
random_boxes = np.concatenate([corner, corner + size], axis=2)
random_boxes[0, :8, 2:] = random_boxes[0, :8, :2]  # points
random_boxes[0, 8:16, 2] = random_boxes[0, 8:16, 0]  # lines of height 0
random_boxes[0, 16:24] = random_boxes[0, 16:24][:, [2, 1, 0, 3]]  # upside down: negative area
random_boxes[0, 24:28] = 0.0  # padding
random_boxes[0, 28:32] = -1.0  # padding

result = {
    "iou | zero boxes": both(iou, [[[0.0] * 4]], [[[0.0] * 4]]),
    "iou | equal points": both(iou, [[[0.5] * 4]], [[[0.5] * 4]]),
    "iou | equal lines": both(iou, [[[0.2, 0.3, 0.2, 0.9]]], [[[0.2, 0.3, 0.2, 0.9]]]),
    "iou | upside down, line": both(iou, [[[0.75, 0.25, 0.25, 0.75]]], [[[0.5, 0.5, 0.5, 0.9]]]),
    "iou | random": both(iou, random_boxes, random_boxes[:, ::-1]),
    "iou | random, itself": both(iou, random_boxes, random_boxes),
    "three | all 0": both(three, [0.0], [0.0], [0.0]),
    "three | sum 0, i 1": both(three, [0.5], [0.5], [1.0]),
    "three | a 1, b 0, i 1": both(three, [1.0], [0.0], [1.0]),
    "three | a 0.5, b -0.5, i 0": both(three, [0.5], [-0.5], [0.0]),
    "two | x = y = 0": both(two, [0.0], [0.0]),
    "two | x = y = 0.7": both(two, [0.7], [0.7]),
    "value | iou equal points": value_only(iou, [[[0.5] * 4]], [[[0.5] * 4]]),
    "value | three, sum 0, i 1": value_only(three, [0.5], [0.5], [1.0]),
    "value | longer, a 0, i 1, b 1": value_only(longer, [0.0], [1.0], [1.0]),
    "value | longer, a 1, i 1, b 0": value_only(longer, [1.0], [1.0], [0.0]),
    "value | longer, all 0": value_only(longer, [0.0], [0.0], [0.0]),
    "value | nested, a 0, i 1, b 1": value_only(nested, [0.0], [1.0], [1.0]),
    "value | added, 0, 1, -1": value_only(added, [0.0], [1.0], [-1.0]),
    "value | added, 1, -1, 0": value_only(added, [1.0], [-1.0], [0.0]),
    "value | added, 0.5, 0.5, -1": value_only(added, [0.5], [0.5], [-1.0]),
}
print(json.dumps(result))
"""


PROBE_GETTERS = """
import json
import keras
import numpy as np
import tensorflow as tf
from tensorflow.keras import backend as K

EPS = K.epsilon()


class Guarded:
    def __init__(self, eps=K.epsilon()):
        self.eps = eps

    def __call__(self, x, y):
        return 1.0 / (x - y + self.eps)


GUARDS = {
    "1e-7": lambda: 1e-7,
    "tf.keras.backend.epsilon()": lambda: tf.keras.backend.epsilon(),
    "K.epsilon()": lambda: K.epsilon(),
    "keras.config.epsilon()": lambda: keras.config.epsilon(),
    "float32 eps": lambda: float(np.finfo(np.float32).eps),
    "np.finfo(np.float32).eps": lambda: np.finfo(np.float32).eps,
    "tnp.finfo(tf.float32).eps": lambda: tf.experimental.numpy.finfo(tf.float32).eps,
}


def quotient(guard):
    def fn(x, y):
        return 1.0 / (x - y + guard())
    return fn


def module_constant(x, y):
    return 1.0 / (x - y + EPS)


def jaccard(y_true, y_pred, guard):
    eps = guard()
    intersection = tf.reduce_sum(y_true * y_pred)
    union = tf.reduce_sum(y_true) + tf.reduce_sum(y_pred)
    return 1.0 - (intersection + eps) / (union - intersection + eps)


def values(fn, *args):
    return [fn(*args).numpy().tolist(), tf.function(fn)(*args).numpy().tolist()]


x = tf.constant([0.7, 3.0], tf.float32)
ones = tf.ones([4], tf.float64)
result = {"epsilon": K.epsilon()}
for name, guard in GUARDS.items():
    result[f"quotient | {name}"] = values(quotient(guard), x, x)
result["quotient | module constant"] = values(module_constant, x, x)
result["quotient | self.eps"] = values(Guarded(), x, x)
for name in ("1e-7", "tf.keras.backend.epsilon()", "keras.config.epsilon()"):
    result[f"jaccard | {name}"] = values(lambda a, b, g=GUARDS[name]: jaccard(a, b, g), ones, ones)
tf.config.optimizer.set_experimental_options({"constant_folding": False})
result["folding off | quotient"] = values(quotient(GUARDS["K.epsilon()"]), x, x)
result["folding off | jaccard"] = values(lambda a, b: jaccard(a, b, GUARDS["K.epsilon()"]), ones, ones)
print(json.dumps(result))
"""


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_constant_folding_erases_a_guard_read_from_a_framework_constant() -> None:
    """Measured under TF 2.21: Keras' epsilon (1e-7 by default), read from its getter in the
    function, from a module constant or from an attribute, and a float type's `eps` from
    `np.finfo` or `tf.experimental.numpy.finfo`, are constants of the traced graph, folded
    exactly as the literal of their value: `1 / (x - y + eps)` at x = y is eagerly `1 / eps`
    and traced what the literal gives (float32: 2**23 instead of 1e7 at 0.7, infinite at 3);
    nobrainer's Jaccard distance of two equal float64 vectors is eagerly 0 and traced
    -2.2e-16 alike. With constant folding off, the eager values."""
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    done = subprocess.run(
        [sys.executable, "-c", PROBE_GETTERS], env=env, capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["epsilon"] == 1e-7
    literal = result["quotient | 1e-7"]
    assert literal[0] == [1e7, 1e7] and literal[1] != literal[0]
    assert literal[1][1] == float("inf")
    for name in ("tf.keras.backend.epsilon()", "K.epsilon()", "keras.config.epsilon()"):
        assert result[f"quotient | {name}"] == literal, name
    assert result["quotient | module constant"] == literal
    assert result["quotient | self.eps"] == literal
    float32_eps = result["quotient | float32 eps"]
    assert float32_eps[0] == [2.0**23, 2.0**23] and float32_eps[1][1] == float("inf")
    for name in ("np.finfo(np.float32).eps", "tnp.finfo(tf.float32).eps"):
        assert result[f"quotient | {name}"] == float32_eps, name
    jaccard = result["jaccard | 1e-7"]
    assert jaccard[0] == 0.0 and jaccard[1] != 0.0
    for name in ("tf.keras.backend.epsilon()", "keras.config.epsilon()"):
        assert result[f"jaccard | {name}"] == jaccard, name
    assert result["folding off | quotient"] == [literal[0], literal[0]]
    assert result["folding off | jaccard"] == [0.0, 0.0]


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_constant_folding_keeps_a_guard_of_a_union_of_boxes() -> None:
    """Measured under TF 2.21 (float32, eps 1e-8; value and gradient, eager and traced):
    `a + b - i + eps` loses the guard where the sum is 0 and i is not, and also where i is 0
    and a = -b is not (the traced sum meets the constant with a or b: `AddN`); with every
    term 0 it keeps it, as `x - y + eps` does at x = y = 0 (lost at x = y = 0.7). An IoU
    whose overlaps and extents are clipped at 0 (tf-models' `bbox_overlap` with its areas
    clipped) is finite and as eager (rtol 1e-5) where the union is 0 (boxes of zero size at 0
    or elsewhere, an upside-down box against a line) and on random boxes with points, lines,
    upside-down and padded ones among them."""
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    done = subprocess.run(
        [sys.executable, "-c", PROBE_BOXES], env=env, capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.splitlines()[-1])
    for case in ("zero boxes", "equal points", "equal lines", "upside down, line", "random"):
        assert result[f"iou | {case}"] == [True, True, True], case
    assert result["iou | random, itself"] == [True, True, True]
    assert result["value | iou equal points"] == [True, True]
    assert result["three | all 0"] == [True, True, True]
    assert result["three | a 0.5, b -0.5, i 0"] == [True, False, False]
    assert result["three | sum 0, i 1"] == [True, False, False]
    assert result["three | a 1, b 0, i 1"] == [True, False, False]
    assert result["value | three, sum 0, i 1"] == [True, False]
    assert result["two | x = y = 0"] == [True, True, True]
    assert result["two | x = y = 0.7"] == [True, False, False]
    # The difference inside a longer sum: regrouped, the constant meets a non-zero term.
    for case in ("longer, a 0, i 1, b 1", "longer, a 1, i 1, b 0", "nested, a 0, i 1, b 1"):
        assert result[f"value | {case}"] == [True, False], case
    assert result["value | longer, all 0"] == [True, True]
    # Added terms only: summed as written, the constant meets the whole sum.
    for case in ("0, 1, -1", "1, -1, 0", "0.5, 0.5, -1"):
        assert result[f"value | added, {case}"] == [True, True], case


KERNEL = """\
import tensorflow as tf

EPSILON = 1e-8


def offset(x, y):
    return x - y + EPSILON


def kernel(x, y):
    return tf.exp(-tf.norm({guarded}, axis=-1))


kernel(tf.ones((3, 2)), tf.ones((3, 2)))
offset(tf.ones((3, 2)), tf.ones((3, 2)))
"""
LOSS = """\
import tensorflow as tf

from kernel import kernel, offset


def loss(x):
    return tf.reduce_mean(kernel(x, x))


def spread(x):
    return {spread}


loss(tf.ones((3, 2)))
spread(tf.ones((3, 2)))
"""


def _flagged(project: Project) -> set[str]:
    return {
        f"{v.file}::{v.qualname}"
        for v in project.results().functions
        if any(f.code == "HY431" for f in v.findings)
    }


def test_edits_that_add_or_remove_a_guard_equal_an_analysis_from_scratch() -> None:
    """The guard's writers are kept per module and the callers found again on each solve:
    an edit of the kernel reaches the loss, an edit of the loss reaches the kernel's
    `offset`, as an analysis from scratch finds them."""
    project = Project.from_texts(
        {
            "kernel.py": KERNEL.format(guarded="x - y"),
            "loss.py": LOSS.format(spread="tf.reduce_sum(offset(x, x))"),
        },
        ProjectOptions(use_cache=False),
    )
    assert _flagged(project) == set()
    steps = [
        (
            "kernel.py",
            KERNEL.format(guarded="x - y + EPSILON"),
            {"kernel.py::kernel", "loss.py::loss"},
        ),
        (
            "loss.py",
            LOSS.format(spread="tf.sqrt(offset(x, x))"),
            {"kernel.py::kernel", "loss.py::loss", "kernel.py::offset", "loss.py::spread"},
        ),
        ("kernel.py", KERNEL.format(guarded="x - y"), {"kernel.py::offset", "loss.py::spread"}),
        ("loss.py", LOSS.format(spread="tf.reduce_sum(offset(x, x))"), set()),
    ]
    for file, text, flagged in steps:
        project.update(file, text)
        assert _flagged(project) == flagged, (file, text)
        options = dataclasses.replace(project.options, use_cache=False)
        fresh = Project.from_texts(
            project.snapshot(), options, package=project.package, long_running=False
        ).results()
        assert project.results().functions == fresh.functions, (file, text)
