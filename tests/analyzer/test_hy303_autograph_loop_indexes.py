"""HY303 on loop variables AutoGraph makes tensors: `for i in tf.range(n): names[i]`.

Under `tf.function` a `for` loop over `tf.range`, or over `range()` of a tensor (AutoGraph
turns it into `tf.range`), runs as a `tf.while_loop` whose variable is a symbolic tensor: a
Python list, tuple, dict or string indexed with it raises, although the same loop runs
eagerly (where `range` takes the eager tensor's `__index__`). These tests pin the class of
code (the containers the value analysis knows, the ways the loop is written) and the safe
near-misses, and measure the claim on the installed TensorFlow.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable

import pytest
from facts_helpers import analyse

HEADER = """
import tensorflow as tf

NAMES = ["query", "key", "value"]
SCALES = {0: 0.5, 1: 1.0, 2: 2.0}
WEIGHTS = (1.0, 2.0, 3.0)
"""
CALLS = """
for _ in range(100):
    f(tf.ones([3, 3]))
"""


def hy303(body: str) -> list[str]:
    """The HY303 messages of `f` (defined by `body`) called with a [3, 3] tensor."""
    v = analyse(HEADER + body + CALLS)["f"]
    messages = [f.message for f in v.findings if f.code == "HY303"]
    assert bool(messages) <= ("has_eager_only_calls" in v.failures)
    return messages


@pytest.mark.parametrize(
    ("body", "container"),
    [
        (
            """
def f(x):
    total = tf.zeros_like(x[0])
    for i in tf.range(3):
        total += WEIGHTS[i] * x[i]
    return total
""",
            "list or tuple",
        ),
        (
            """
def f(x):
    total = tf.zeros_like(x[0])
    for i in range(tf.shape(x)[0]):
        total += SCALES[i] * x[i]
    return total
""",
            "dict or string",
        ),
        (
            """
def f(x):
    out = tf.strings.as_string(x[0, 0])
    for i in tf.range(len(NAMES)):
        out = tf.strings.join([out, NAMES[i], "abc"[i]])
    return out
""",
            "list or tuple",
        ),
        (
            """
def f(x):
    out = tf.strings.as_string(x[0, 0])
    for i in range(tf.size(x) // 3):
        out = tf.strings.join([out, "abc"[i]])
    return out
""",
            "dict or string",
        ),
        (
            """
def f(x):
    i = 0
    total = tf.zeros_like(x[0])
    while i < tf.shape(x)[0]:
        total += WEIGHTS[i] * x[i]
        i += 1
    return total
""",
            "list or tuple",
        ),
        (
            """
def f(x):
    k = 0
    total = tf.zeros_like(x[0])
    for j in tf.range(tf.shape(x)[0]):
        total += x[j] * WEIGHTS[k]
        k += 1
    return total
""",
            "list or tuple",
        ),
    ],
    ids=[
        "tuple over tf.range",
        "dict over range(tf.shape)",
        "list over tf.range(len)",
        "str",
        "int counter of a while testing a tensor",
        "int counter carried by a tf.range loop",
    ],
)
def test_a_python_container_indexed_by_an_autograph_loop_variable_is_hy303(
    body: str, container: str
) -> None:
    [message] = hy303(body)
    assert f"indexes a Python {container} with a variable of a loop" in message


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(
            """
def f(x):
    total = tf.zeros_like(x[0])
    for i in range(len(NAMES)):
        total += SCALES[i] * x[i] + WEIGHTS[i]
    return total
""",
            id="range of a Python length: unrolled, the variable is an int",
        ),
        pytest.param(
            """
def f(x):
    total = tf.zeros_like(x[0])
    for i in range(x.shape[0]):
        total += WEIGHTS[i] * x[i]
    return total
""",
            id="range of a static axis",
        ),
        pytest.param(
            """
def f(x):
    total = tf.zeros_like(x[0])
    weights = tf.constant(WEIGHTS)
    for i in tf.range(tf.shape(x)[0]):
        total += tf.gather(weights, i) * x[i]
    return total
""",
            id="tf.range indexing tensors",
        ),
        pytest.param(
            """
def f(x, key="key"):
    return x * SCALES[NAMES.index(key)] + len(key)
""",
            id="dict indexed by a Python value",
        ),
        pytest.param(
            """
def f(x):
    i = 0
    total = tf.zeros_like(x[0])
    while i < 3:
        total += WEIGHTS[i] * x[i]
        i += 1
    return total
""",
            id="a while testing a Python int: unrolled",
        ),
        pytest.param(
            """
def split(x):
    return {"query": x, "key": 2.0 * x}

def f(x):
    parts = split(x)
    hashed = {}
    for name in parts.keys():
        hashed[name] = {}
        hashed[name]["a"] = parts[name] * 2.0
    return [hashed[name]["a"] for name in sorted(hashed.keys())]
""",
            id="keys of a dict of tensors are strings",
        ),
        pytest.param(
            """
def f(x):
    out = {"a": x}
    for name in ["a"]:
        out[name] = out[name] * 2.0
    for name in tf.unstack(x[0]):
        x = x + name
    return out["a"] + x
""",
            id="a name bound to strings (and elsewhere to tensors) keys a dict",
        ),
        pytest.param(
            """
def f(x):
    clipped, _ = tf.clip_by_global_norm([x, 2.0 * x], 1.0)
    n = 0
    for i in range(len(clipped)):
        n = max(n, i)
    return clipped[0] * WEIGHTS[n]
""",
            id="range(len()) of a list of tensors: a Python loop",
        ),
    ],
)
def test_safe_loops_and_indexes_are_not_concerned(body: str) -> None:
    assert hy303(body) == []


def test_a_loop_over_a_tensor_parameter_is_left_to_hy403() -> None:
    v = analyse(
        HEADER
        + """
def f(x):
    n = 0
    total = tf.zeros_like(x[0])
    for row in x:
        total += row
        n += 1
    return total * WEIGHTS[n - 1]
"""
        + CALLS
    )["f"]
    codes = {f.code for f in v.findings}
    assert "HY403" in codes and "HY303" not in codes


@pytest.mark.tensorflow
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_autograph_loop_variables_are_tensors_that_python_containers_reject() -> None:
    """Measured under TF 2.21: each loop runs eagerly and raises TypeError traced (a Python
    int counter of a `while` testing a tensor is carried as a tensor); a Python range over a
    Python length stays unrolled with int variables."""
    import tensorflow as tf

    weights = [1.0, 2.0, 3.0]
    scales = {0: 0.5, 1: 1.0, 2: 2.0}

    def over_tf_range(x: tf.Tensor) -> tf.Tensor:
        total = tf.zeros_like(x[0])
        for i in tf.range(3):
            total += weights[i] * x[i]
        return total

    def over_range_of_shape(x: tf.Tensor) -> tf.Tensor:
        total = tf.zeros_like(x[0])
        for i in range(tf.shape(x)[0]):
            total += scales[i] * x[i]
        return total

    def over_string(x: tf.Tensor) -> tf.Tensor:
        out = tf.strings.as_string(x[0])
        for i in range(tf.size(x)):
            out = tf.strings.join([out, "abc"[i]])
        return out

    def counted_while(x: tf.Tensor) -> tf.Tensor:
        i = 0
        total = tf.zeros_like(x[0])
        while i < tf.shape(x)[0]:
            total += weights[i] * x[i]
            i += 1
        return total

    def over_python_range(x: tf.Tensor) -> tf.Tensor:
        total = tf.zeros_like(x[0])
        for i in range(len(weights)):
            total += weights[i] * x[i]
        return total

    x = tf.constant([1.0, 2.0, 3.0])
    broken: list[Callable[[tf.Tensor], tf.Tensor]] = [
        over_tf_range,
        over_range_of_shape,
        over_string,
        counted_while,
    ]
    for fn in broken:
        fn(x)  # eagerly fine
        with pytest.raises(TypeError):
            tf.function(fn)(x)
    assert float(tf.function(over_python_range)(x)) == float(over_python_range(x)) == 14.0
