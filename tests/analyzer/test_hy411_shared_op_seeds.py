"""HY411 for two unrelated functions drawing with the same op and the same op seed.

Eagerly, the calls of one stateful random op with one (global, op) seed pair and one dtype
share a kernel, so two functions that each write `tf.random.uniform([], seed=7)` continue one
stream between them: the second draws the next numbers. Compiled, each function's graph has its
own kernel and restarts the stream: the two draw the SAME numbers, and compiling only one of
them moves the other's eager draws too. Measured (TF 2.21) below, with and without a global
seed; another seed, another op or another dtype shares nothing, and then nothing changes.
"""

from __future__ import annotations

import importlib.util

import pytest
from facts_helpers import run_probe, verdict

FACT = "draws_seeded_global_random"

TWO_FUNCTIONS = """
import tensorflow as tf


def jitter(x):
    return x + tf.random.uniform(tf.shape(x), seed=7)


def flip(x):
    return tf.where(tf.random.uniform([]) > 0.5, x, -x) * tf.random.uniform([], seed=7)


def scale(x):
    return x * tf.random.uniform([], seed=8)


def shift(x):
    return x + tf.random.normal([], seed=8)


def wide(x):
    return x * tf.cast(tf.random.uniform([], seed=9, dtype=tf.float64), tf.float32)


def narrow(x):
    return x * tf.random.uniform([], seed=9)


data = tf.ones((2, 3))
jitter(data)
flip(data)
scale(data)
shift(data)
wide(data)
narrow(data)
"""


@pytest.mark.parametrize(
    ("qualname", "expected"),
    [
        pytest.param("jitter", True, id="same-op-and-seed-as-another-function"),
        pytest.param("flip", True, id="same-op-and-seed-the-other-way"),
        pytest.param("scale", False, id="another-op-with-the-seed"),
        pytest.param("shift", False, id="another-op-with-the-seed-2"),
        pytest.param("wide", False, id="another-dtype-with-the-seed"),
        pytest.param("narrow", False, id="another-dtype-with-the-seed-2"),
    ],
)
def test_functions_sharing_an_op_seed(qualname: str, expected: bool) -> None:
    v = verdict(TWO_FUNCTIONS, qualname)
    assert v.fact(FACT) is expected
    found = [f.message for f in v.findings if f.code == "HY411"]
    assert bool(found) is expected
    if expected:
        other = "flip" if qualname == "jitter" else "jitter"
        assert f"`{other}` draws it with the same seed (7)" in found[0]


MEASURE = r"""
import json
import os

import tensorflow as tf

tf.get_logger().setLevel("ERROR")
mode = os.environ["MEASURE_MODE"]

CASES = {
    "same": ("tf.random.uniform([], seed=S)", "tf.random.uniform([], seed=S)"),
    "shape": ("tf.random.uniform([], seed=S)", "tf.random.uniform([2], seed=S)[0]"),
    "other_seed": ("tf.random.uniform([], seed=S)", "tf.random.uniform([], seed=S + 1)"),
    "other_op": ("tf.random.uniform([], seed=S)", "tf.random.normal([], seed=S)"),
    "other_dtype": (
        "tf.random.uniform([], seed=S)",
        "tf.cast(tf.random.uniform([], seed=S, dtype=tf.float64), tf.float32)",
    ),
}
result = {}
for global_seed in (None, 0):
    for number, (name, (a, b)) in enumerate(CASES.items()):
        if global_seed is not None:
            tf.random.set_seed(global_seed)
        seed = 100 * number + (0 if global_seed is None else 1000)
        space = {"tf": tf, "S": seed}
        exec(f"def f():\n    return {a}\n\n\ndef g():\n    return {b}\n", space)
        f, g = space["f"], space["g"]
        if mode in ("both", "first"):
            f = tf.function(f)
        if mode == "both":
            g = tf.function(g)
        result[f"{name}|{global_seed}"] = [round(float(h()), 5) for h in (f, g, f, g)]
print("result", json.dumps(result))
"""


@pytest.mark.tensorflow
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_two_functions_with_one_op_seed_share_a_stream_only_eagerly() -> None:
    """Measured under TF 2.21, each mode in a process of its own (no kernel shared between
    them): eagerly `g` continues `f`'s stream; compiled (both, or `f` alone) `g` repeats `f`'s
    numbers. With another seed, another op or another dtype the draws are the same in every
    mode."""
    import json

    runs = {
        mode: json.loads(run_probe(MEASURE, MEASURE_MODE=mode)["result"])
        for mode in ("eager", "first", "both")
    }
    for global_seed in (None, 0):
        for name in ("same", "shape"):
            eager, first, both = (runs[m][f"{name}|{global_seed}"] for m in runs)
            assert eager[0] != eager[1], name  # one stream: g draws f's next number
            assert first[0] == first[1] == eager[0], name  # g restarts: it repeats f's draw
            assert both[0] == both[1] == eager[0], name
        for name in ("other_seed", "other_op", "other_dtype"):
            eager, first, both = (runs[m][f"{name}|{global_seed}"] for m in runs)
            assert eager == first == both, name


def test_an_edit_that_shares_a_seed_changes_the_other_functions_verdict(tmp_path) -> None:
    """`scale` and `narrow` draw with seeds no other function writes; an edit of `scale` to
    seed 9 (as `narrow`, no dtype either) gives `narrow` the finding, and the verdicts of the
    project kept open equal a fresh analysis (the pairs are HY411's project fact)."""
    from hybridize.project import Project, ProjectOptions

    root = tmp_path / "open"
    root.mkdir()
    (root / "m.py").write_text(TWO_FUNCTIONS, encoding="utf-8")
    project = Project.open(root, ProjectOptions(use_cache=False))
    before = {v.facts.qualname: v for v in project.results().functions}
    assert before["narrow"].fact(FACT) is False
    edited = TWO_FUNCTIONS.replace("uniform([], seed=8)", "uniform([], seed=9)")
    project.update("m.py", edited)
    fresh_root = tmp_path / "fresh"
    fresh_root.mkdir()
    (fresh_root / "m.py").write_text(edited, encoding="utf-8")
    fresh = Project.open(fresh_root, ProjectOptions(use_cache=False)).results().functions
    assert project.results().functions == fresh
    after = {v.facts.qualname: v for v in fresh}
    assert after["narrow"].fact(FACT) is True
