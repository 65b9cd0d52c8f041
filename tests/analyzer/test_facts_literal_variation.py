"""`has_primitive_parameters` only for Python literals that can differ between calls.

`tf.function` keys its cache on Python argument values: one constant at every call traces
once and then hits the cache. A retrace per call needs values that change: two sites with
different constants, a loop variable, a value recomputed from a changing source, a parameter
of the caller that itself receives different values, a global some function reassigns, an
attribute written outside `__init__`, `int()` of a tensor. HY201/HY202 point at the call that
shows it (hybridize/analyzer/facts/retracing.py).
"""

from __future__ import annotations

import pytest
from facts_helpers import case, field_value, verdict

CASES = [
    # --- fixed: traced once --------------------------------------------------------------
    case(
        "one-constant-at-the-only-site",
        """
        import tensorflow as tf

        def top_k(x, k):
            return tf.math.top_k(x, k=k).values

        top_k(tf.ones([10]), 3)
        """,
        "top_k",
        False,
    ),
    case(
        "same-constant-at-every-site",
        """
        import tensorflow as tf

        def top_k(x, k):
            return tf.math.top_k(x, k=k).values

        top_k(tf.ones([10]), 3)
        top_k(tf.zeros([10]), 3)
        """,
        "top_k",
        False,
    ),
    case(
        "constant-inside-a-loop",
        """
        import tensorflow as tf

        def scale(x, factor):
            return x * factor

        for _ in range(10):
            scale(tf.ones([3]), 0.5)
        """,
        "scale",
        False,
    ),
    case(
        "computed-from-a-fixed-parameter",
        """
        import tensorflow as tf

        def beam(x, width):
            return tf.reshape(x, [width, -1])

        def search(x, beam_width):
            return beam(x, beam_width + 1)

        search(tf.ones([8]), 3)
        """,
        "beam",
        False,
    ),
    case(
        "len-of-a-list-attribute",
        """
        import tensorflow as tf

        class Stack:
            def __init__(self):
                self.layers = [tf.keras.layers.Dense(2), tf.keras.layers.Dense(2)]

            def depth_scaled(self, x):
                return scale(x, len(self.layers))

        def scale(x, n):
            return x / n

        Stack().depth_scaled(tf.ones([2]))
        """,
        "scale",
        False,
    ),
    case(
        "module-setting-reassigned-at-module-level",
        """
        import sys

        import tensorflow as tf

        STEPS = 5
        if len(sys.argv) > 1:
            STEPS = 10

        def ramp(x, steps):
            return x / steps

        def main():
            for _ in range(3):
                ramp(tf.ones([2]), STEPS)
        """,
        "ramp",
        False,
    ),
    # --- varying: retraces ------------------------------------------------------------------
    case(
        "two-different-constants",
        """
        import tensorflow as tf

        def top_k(x, k):
            return tf.math.top_k(x, k=k).values

        top_k(tf.ones([10]), 3)
        top_k(tf.ones([10]), 5)
        """,
        "top_k",
        True,
    ),
    case(
        "loop-variable",
        """
        import tensorflow as tf

        def power(x, n):
            return x ** n

        for i in range(3):
            power(tf.ones([2]), i)
        """,
        "power",
        True,
    ),
    case(
        "computed-from-a-loop-variable",
        """
        import tensorflow as tf

        def power(x, n):
            return x ** n

        def powers(x):
            return [power(x, i + 1) for i in range(3)]

        powers(tf.ones([2]))
        """,
        "power",
        True,
    ),
    case(
        "varying-parameter-of-the-caller",
        """
        import tensorflow as tf

        def dropout(x, rate):
            return tf.nn.dropout(x, rate=rate)

        def block(x, rate):
            return dropout(tf.nn.relu(x), rate)

        block(tf.ones([8]), 0.5)
        block(tf.ones([8]), 0.1)
        """,
        "dropout",
        True,
    ),
    case(
        "passed-default-and-explicit",
        """
        import tensorflow as tf

        def norm_along(x, axis=-1):
            return tf.norm(x, axis=axis)

        norm_along(tf.ones([2, 3]), axis=0)
        norm_along(tf.ones([2, 3]))
        """,
        "norm_along",
        True,
    ),
    case(
        "counter-global-reassigned-by-a-function",
        """
        import tensorflow as tf

        STEP = 0

        def advance():
            global STEP
            STEP += 1

        def warmup(x, step):
            return x * min(1.0, step / 100)

        def train(x):
            advance()
            return warmup(x, STEP)

        train(tf.ones([2]))
        """,
        "warmup",
        True,
    ),
    case(
        "attribute-updated-outside-init",
        """
        import tensorflow as tf

        class Schedule:
            def __init__(self):
                self.epoch = 0

            def start(self, epoch):
                self.epoch = epoch

            def scaled(self, x):
                return decay(x, self.epoch)

        def decay(x, epoch):
            return x * 0.9 ** epoch

        schedule = Schedule()
        schedule.start(3)
        schedule.scaled(tf.ones([2]))
        """,
        "decay",
        True,
    ),
    case(
        "int-of-a-tensor-is-data",
        """
        import tensorflow as tf

        def head(x, n):
            return x[:n]

        def run(x, lengths):
            return head(x, int(tf.reduce_max(lengths)))

        run(tf.ones([8]), tf.constant([3, 5]))
        """,
        "head",
        True,
    ),
    case(
        "choice-between-constants",
        """
        import tensorflow as tf

        def scale(x, factor):
            return x * factor

        def run(x, fast):
            return scale(x, 2.0 if fast else 0.5)

        run(tf.ones([2]), True)
        """,
        "scale",
        True,
    ),
    # --- unknown kinds (HY202): fixed through the run, or varying ----------------------------
    case(
        "unknown-kind-varying-is-undeterminable",
        """
        import json

        import tensorflow as tf

        def scale(x, factor):
            return x * factor

        for factor in json.load(open("factors.json")):
            scale(tf.ones([2]), factor)
        """,
        "scale",
        None,
    ),
    # --- strings formatted from values: a new value, a new string -------------------------
    case(
        "f-string-from-a-loop-variable",
        """
        import tensorflow as tf

        def save(x, path):
            tf.io.write_file(path, tf.strings.as_string(tf.reduce_sum(x)))
            return x * 2.0

        for step in range(100):
            save(tf.ones([3]), f"/tmp/out_{step}.txt")
        """,
        "save",
        True,
    ),
    case(
        "percent-formatting-from-a-loop-variable",
        """
        import tensorflow as tf

        def save(x, path):
            tf.io.write_file(path, tf.strings.as_string(tf.reduce_sum(x)))
            return x * 2.0

        for step in range(100):
            save(tf.ones([3]), "/tmp/out_%d.txt" % step)
        """,
        "save",
        True,
    ),
    case(
        "f-string-from-a-fixed-value",
        # the same string at every call: one trace
        """
        import tensorflow as tf

        def save(x, path):
            tf.io.write_file(path, tf.strings.as_string(tf.reduce_sum(x)))
            return x * 2.0

        def run(x, folder):
            for _ in range(100):
                save(x, f"{folder}/out.txt")

        run(tf.ones([3]), "/tmp")
        """,
        "save",
        False,
    ),
]


@pytest.mark.parametrize(("files", "qualname", "expected"), CASES)
def test_literal_variation(files, qualname, expected):
    assert verdict(files, qualname).facts.has_primitive_parameters is expected


SITES = """
import tensorflow as tf


def leaky(x, alpha):
    return tf.nn.leaky_relu(x, alpha=alpha)


leaky(tf.ones([4]), 0.2)
leaky(tf.ones([4]), 0.3)
"""


def test_hy201_points_at_the_call_that_retraces() -> None:
    v = verdict(SITES, "leaky")
    [finding] = [f for f in v.findings if f.code == "HY201"]
    assert (finding.span.start_line, finding.span.start_col) == (10, 0)
    assert [s.start_line for s in finding.related] == [9]
    assert "0.2" in finding.message and "0.3" in finding.message


def test_hy201_names_a_loop_variable() -> None:
    v = verdict(
        """
import tensorflow as tf


def power(x, n):
    return x ** n


for i in range(3):
    power(tf.ones([2]), i)
""",
        "power",
    )
    [finding] = [f for f in v.findings if f.code == "HY201"]
    assert finding.span.start_line == 10
    assert "loop variable `i`" in finding.message


def test_hy201_from_another_file_stays_on_the_def_and_names_the_call() -> None:
    files = {
        "ops.py": "import tensorflow as tf\n\n\ndef leaky(x, alpha):\n"
        "    return tf.nn.leaky_relu(x, alpha=alpha)\n",
        "main.py": "import tensorflow as tf\n\nfrom ops import leaky\n\n"
        "leaky(tf.ones([4]), 0.2)\nleaky(tf.ones([4]), 0.3)\n",
    }
    v = verdict(files, "ops.py::leaky")
    [finding] = [f for f in v.findings if f.code == "HY201"]
    assert finding.span.start_line == 4  # the def
    assert "main.py:6" in finding.message
    assert finding.related == ()


def test_hy202_points_at_the_call() -> None:
    v = verdict(
        """
import json

import tensorflow as tf


def scale(x, factor):
    return x * factor


for factor in json.load(open("factors.json")):
    scale(tf.ones([2]), factor)
""",
        "scale",
    )
    assert field_value(v, "failures") == ("undeterminable_primitive_parameter",)
    [finding] = [f for f in v.findings if f.code == "HY202"]
    assert finding.span.start_line == 12
