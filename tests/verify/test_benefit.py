"""The benefit oracle: the verdicts from recorded calls (framework-free), and the pytest plugin
on a tiny TensorFlow project whose tests call a function that pays, one that retraces for a new
Python object per call, a method, a call made inside a graph and a nested definition."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from hybridize.verify.benefit import (
    Change,
    install_benefit_plugin,
    judge,
    module_of,
    read_records,
    summarize,
)


def _call(key: str, signature: str = "[]", traces: int = 0, **timing: float) -> dict[str, object]:
    record: dict[str, object] = {"kind": "call", "key": key, "in_graph": False, "owner": 0}
    return record | {"signature": signature, "traces": traces} | timing


def test_judge_counts_calls_signatures_traces_and_takes_the_median_ratio() -> None:
    records = [
        _call(
            "a",
            '[["array", "EagerTensor", "float32", [2], false]]',
            1,
            eager_seconds=0.03,
            compiled_seconds=0.01,
        ),
        _call(
            "a",
            '[["array", "EagerTensor", "float32", [2], false]]',
            0,
            eager_seconds=0.02,
            compiled_seconds=0.01,
        ),
        _call(
            "a",
            '[["array", "EagerTensor", "float32", [3], false]]',
            1,
            eager_seconds=0.05,
            compiled_seconds=0.01,
        ),
        {"kind": "call", "key": "a", "in_graph": True},
    ]
    (a,) = judge([Change("a", default=True)], records)
    assert (a.calls, a.in_graph_calls, a.signatures, a.traces) == (3, 1, 2, 2)
    assert a.speedup == 3.0 and a.faster and not a.excess_traces and not a.failure
    assert a.varying == ["shapes"] and a.cause is None


def test_judge_names_why_a_change_does_not_pay() -> None:
    records = [
        # a new object per call: three traces, one signature (objects are described by type)
        *(
            _call(
                "objects", '[["object", "m.Config"]]', 1, eager_seconds=0.01, compiled_seconds=0.001
            )
            for _ in range(3)
        ),
        _call("tiny", traces=1, eager_seconds=1e-5, compiled_seconds=4e-5),
        _call("slow", traces=1, eager_seconds=0.5, compiled_seconds=0.6),
        {"kind": "call", "key": "graph", "in_graph": True},
        {
            "kind": "unreachable",
            "key": "nested",
            "reason": "nested definition (not reachable from its module)",
        },
        _call("broken", traces=1, timing_error="StopIteration: "),  # type: ignore[arg-type],
    ]
    keys = ["objects", "tiny", "slow", "graph", "nested", "broken", "never"]
    found = {f.key: f for f in judge([Change(k, default=False) for k in keys], records)}
    assert found["objects"].excess_traces and found["objects"].failure
    assert "new Python objects" in (found["objects"].cause or "")
    assert found["tiny"].cause == "too little work" and found["tiny"].failure
    assert found["slow"].cause == "slower compiled"
    assert found["graph"].cause == "already in a graph" and not found["graph"].measured
    assert found["nested"].cause.startswith("nested definition")  # type: ignore[union-attr]
    assert found["broken"].cause == "not timed: StopIteration: "
    assert found["never"].cause == "not called by the tests"


def test_summarize_gives_the_default_rate_and_the_share_of_paying_changes_in_the_default() -> None:
    fast = {"eager_seconds": 0.02, "compiled_seconds": 0.01}
    slow = {"eager_seconds": 0.02, "compiled_seconds": 0.04}
    records = [
        _call("d-fast", traces=1, **fast),
        _call("d-slow", traces=1, **slow),
        _call("low-fast", traces=1, **fast),
        _call("low-fast-2", traces=1, **fast),
    ]
    changes = [
        Change("d-fast", True),
        Change("d-slow", True),
        Change("d-unmeasured", True),
        Change("low-fast", False),
        Change("low-fast-2", False),
    ]
    summary = summarize(judge(changes, records))
    assert (summary.default_changes, summary.default_measured, summary.default_paying) == (3, 2, 1)
    assert summary.default_rate == 0.5
    assert (summary.paying, summary.paying_in_default) == (3, 1)
    assert summary.recall == pytest.approx(1 / 3)


def test_module_of_a_file_and_a_package() -> None:
    assert module_of("sonnet/src/linear.py") == "sonnet.src.linear"
    assert module_of("pkg/__init__.py") == "pkg"


LIBRARY = """
import tensorflow as tf


@tf.function
def heavy(x):
    for _ in range(20):
        x = tf.matmul(x, x) * 0.001
    return x


@tf.function
def scaled(x, config):
    return x * config.scale


class Layer:
    def __init__(self):
        self.w = tf.Variable(tf.ones([4, 4]))

    @tf.function
    def __call__(self, x):
        return tf.matmul(x, self.w)


def outer(x):
    @tf.function
    def inner(y):
        return y + 1

    return inner(x)
"""

TESTS = """
import tensorflow as tf
from tinylib import ops
from tinylib.ops import heavy


class Config:
    scale = 2.0


def test_calls():
    x = tf.ones([8, 8])
    for _ in range(3):
        heavy(x)
    for _ in range(3):
        ops.scaled(x, Config())
    layer = ops.Layer()
    layer(tf.ones([2, 4]))
    layer(tf.ones([2, 4]))
    assert float(tf.function(lambda t: heavy(t))(x)[0, 0]) >= 0
    assert float(ops.outer(tf.ones([1]))[0]) == 2.0
"""


@pytest.mark.tensorflow
def test_plugin_probes_a_tiny_tensorflow_project(tmp_path: Path) -> None:
    pytest.importorskip("tensorflow")
    project = tmp_path / "project"
    (project / "tinylib").mkdir(parents=True)
    (project / "tinylib" / "__init__.py").write_text("")
    (project / "tinylib" / "ops.py").write_text(textwrap.dedent(LIBRARY))
    (project / "test_ops.py").write_text(textwrap.dedent(TESTS))
    plugins = install_benefit_plugin(tmp_path / "plugins")
    keys = [
        "tinylib/ops.py::heavy",
        "tinylib/ops.py::scaled",
        "tinylib/ops.py::Layer.__call__",
        "tinylib/ops.py::outer.inner",
    ]
    targets = [{"key": k, "module": "tinylib.ops", "qualname": k.split("::")[1]} for k in keys]
    (tmp_path / "targets.json").write_text(json.dumps(targets))
    records = tmp_path / "records"
    records.mkdir()
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(project), str(plugins)]),
        "HYBRIDIZE_BENEFIT_TARGETS": str(tmp_path / "targets.json"),
        "HYBRIDIZE_BENEFIT_OUT": str(records),
        "TF_CPP_MIN_LOG_LEVEL": "2",
    }
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "_hybridize_benefit_plugin",
            "test_ops.py",
        ],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    found = {
        f.key: f
        for f in judge(
            [Change(k, default=k.endswith("heavy")) for k in keys],
            read_records(records.glob("*.jsonl")),
        )
    }
    heavy = found["tinylib/ops.py::heavy"]
    # the `from tinylib.ops import heavy` binding, made after the probe was put in place
    assert (heavy.calls, heavy.in_graph_calls, heavy.signatures, heavy.traces) == (3, 1, 1, 1)
    assert heavy.measured and heavy.timing_traces == 0 and not heavy.excess_traces
    scaled = found["tinylib/ops.py::scaled"]
    assert (scaled.calls, scaled.signatures, scaled.traces) == (3, 1, 3)
    assert scaled.failure and "new Python objects" in (scaled.cause or "")
    layer = found["tinylib/ops.py::Layer.__call__"]
    assert (layer.calls, layer.signatures, layer.traces) == (2, 1, 1) and layer.measured
    nested = found["tinylib/ops.py::outer.inner"]
    assert (nested.cause or "").startswith("nested definition")
