"""The benefit oracle: the verdicts from recorded calls (framework-free), and the pytest plugin
on a tiny TensorFlow project whose tests call a function that pays, one that retraces for a new
Python object per call, a method, a method that creates its variables at its first call (traced
twice by TensorFlow, once), a call made inside a graph, a function called while a test file runs
`tf.function`s eagerly and again in the next file (the plugin undoes the setting a file left)
and a nested definition."""

from __future__ import annotations

import gc
import importlib
import inspect
import json
import os
import subprocess
import sys
import textwrap
import types
from pathlib import Path
from typing import Any

import pytest

from hybridize.verify.benefit import (
    Change,
    install_benefit_plugin,
    is_test_code,
    judge,
    module_of,
    read_records,
    summarize,
)


def _call(key: str, signature: str = "[]", traces: int = 0, **timing: Any) -> dict[str, object]:
    record: dict[str, object] = {"kind": "call", "key": key, "in_graph": False, "owner": 0}
    return record | {"signature": signature, "traces": traces} | timing


def _rounds(eager: float, compiled: float, rounds: int = 7) -> dict[str, Any]:
    """A timed call as the plugin records it: every round the same pair, in both clocks."""
    return {
        "eager_seconds": eager,
        "compiled_seconds": compiled,
        "eager_samples": [eager] * rounds,
        "compiled_samples": [compiled] * rounds,
        "eager_cpu_samples": [eager] * rounds,
        "compiled_cpu_samples": [compiled] * rounds,
    }


def test_judge_counts_calls_signatures_traces_and_takes_the_median_ratio() -> None:
    records = [
        _call(
            "a",
            '[["array", "EagerTensor", "float32", [2], false]]',
            1,
            **_rounds(0.03, 0.01),
        ),
        _call(
            "a",
            '[["array", "EagerTensor", "float32", [2], false]]',
            0,
            **_rounds(0.02, 0.01),
        ),
        _call(
            "a",
            '[["array", "EagerTensor", "float32", [3], false]]',
            1,
            **_rounds(0.05, 0.01),
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
            _call("objects", '[["object", "m.Config"]]', 1, **_rounds(0.01, 0.001))
            for _ in range(3)
        ),
        _call("tiny", traces=1, **_rounds(1e-5, 4e-5)),
        _call("slow", traces=1, **_rounds(0.5, 0.6)),
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


def test_judge_allows_the_second_trace_of_a_first_call_that_created_variables() -> None:
    sig = '[["array", "EagerTensor", "float32", [1, 8], false]]'
    timing = _rounds(0.02, 0.01)
    records = [
        # two instances (owners), each traced twice at its first call, which created variables
        *(
            {**_call("layer", sig, 2, **timing), "owner": owner, "created_variables": True}
            for owner in (1, 2)
        ),
        {**_call("layer", sig, 0, **timing), "owner": 1},
        # a first call traced twice without creating variables: a graph break, a retrace
        _call("broken", sig, 2, **timing),
    ]
    found = {f.key: f for f in judge([Change("layer", True), Change("broken", True)], records)}
    layer = found["layer"]
    assert (layer.calls, layer.signatures, layer.traces, layer.variable_traces) == (3, 2, 4, 2)
    assert not layer.excess_traces and not layer.failure and layer.cause is None
    assert found["broken"].excess_traces and found["broken"].failure


def test_each_process_traces_anew(tmp_path: Path) -> None:
    """Two test processes calling the same function (or instance token 1 of a method) with one
    signature trace once each: two signatures, no retrace."""
    sig = '[["array", "EagerTensor", "float32", [2], false]]'
    for process in ("benefit-101", "benefit-102"):
        record = _call("f", sig, 1, **_rounds(0.02, 0.01))
        (tmp_path / f"{process}.jsonl").write_text(json.dumps(record) + "\n")
    (f,) = judge([Change("f", True)], read_records(sorted(tmp_path.glob("*.jsonl"))))
    assert (f.calls, f.signatures, f.traces) == (2, 2, 2) and not f.excess_traces


def test_judge_leaves_out_the_calls_made_while_functions_run_eagerly() -> None:
    records = [
        {**_call("f", traces=0, **_rounds(0.02, 0.025)), "run_eagerly": True},
        {**_call("g", traces=0, **_rounds(0.02, 0.025)), "run_eagerly": True},
        _call("g", traces=1, **_rounds(0.02, 0.01)),
    ]
    found = {f.key: f for f in judge([Change("f", True), Change("g", True)], records)}
    f, g = found["f"], found["g"]
    assert (f.calls, f.run_eagerly_calls) == (0, 1) and not f.measured and not f.failure
    assert f.cause == "run eagerly: the tests set tf.config.run_functions_eagerly(True)"
    assert (g.calls, g.run_eagerly_calls, g.speedup) == (1, 1, 2.0)


def test_summarize_gives_the_default_rate_and_the_share_of_paying_changes_in_the_default() -> None:
    fast = _rounds(0.02, 0.01)
    slow = _rounds(0.02, 0.04)
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


def _graph_call(key: str, graph: str, *files: str, **extra: Any) -> dict[str, object]:
    record = {"kind": "call", "key": key, "in_graph": True, "graph": graph}
    return record | {"graph_files": list(files)} | extra


def test_a_test_module_is_told_from_the_library_and_the_frameworks_helpers() -> None:
    assert is_test_code("/w/rewritten/sonnet/src/linear_test.py")
    assert is_test_code("/w/rewritten/tests/unit/test_kernel.py")
    assert is_test_code("/w/rewritten/tests/conftest.py")
    assert not is_test_code("/w/rewritten/sonnet/src/linear.py")
    assert is_test_code("/w/rewritten/gpytorch/test/base_kernel_test_case.py")  # its folder
    assert not is_test_code("/w/rewritten/official/core/testing_lib.py")
    # test helpers shipped in the package (TEST_HELPER_GLOBS)
    assert is_test_code("/w/rewritten/sonnet/src/optimizers/optimizer_tests.py")
    assert is_test_code("/w/rewritten/sonnet/src/distribute/replicator_test_utils.py")
    assert is_test_code("/w/rewritten/official/utils/testing/mock_task.py")
    assert not is_test_code("/v/lib/python3.11/site-packages/tensorflow/framework/test_util.py")


def test_only_a_graph_the_library_built_takes_a_paying_change_out_of_the_recall() -> None:
    fast = _rounds(0.02, 0.01)
    lib, keras = "/w/rewritten/lib/model.py", "/v/site-packages/keras/src/trainer.py"
    records = [
        # faster on its direct calls; Keras's predict traced it into its own graph
        _call("predicted", traces=1, **fast),
        _graph_call("predicted", "predict_function", keras, lib),
        # faster; in a graph only the test built (a `tf.function(lambda ...)` of a test file)
        _call("wrapped-by-test", traces=1, **fast),
        _graph_call("wrapped-by-test", "<lambda>", "/w/rewritten/lib/model_test.py", lib),
        # faster; called again inside its own trace (recursion), and once in a graph of no
        # trace (a symbolic Keras tensor, records of an older plugin): no evidence either
        _call("recursive", traces=1, **fast),
        _graph_call("recursive", "recursive", lib, own=True),
        {"kind": "call", "key": "recursive", "in_graph": True},
        # slower: run in a graph by the library, but not paying in the first place
        _call("slow", traces=1, **_rounds(0.02, 0.04)),
        _graph_call("slow", "dynamo:forward", lib),
        _call("plain", traces=1, **fast),
    ]
    keys = ["predicted", "wrapped-by-test", "recursive", "slow", "plain"]
    found = {f.key: f for f in judge([Change(k, k == "predicted") for k in keys], records)}
    predicted = found["predicted"]
    assert predicted.paying and predicted.paying_in_graph
    assert (predicted.library_graph_calls, predicted.library_graphs) == (1, ["predict_function"])
    assert (predicted.cause or "").startswith("faster on direct calls, but run inside a graph")
    for key in ("wrapped-by-test", "recursive", "plain"):
        assert found[key].paying and not found[key].run_in_graph and found[key].cause is None
    assert found["recursive"].in_graph_calls == 2
    assert found["slow"].run_in_graph and not found["slow"].paying_in_graph
    summary = summarize(list(found.values()))
    # the recall's denominator: the three paying changes not run in a library's graph
    assert (summary.paying, summary.paying_in_default, summary.recall) == (3, 0, 0.0)
    assert (summary.paying_in_graph, summary.paying_in_graph_default) == (1, 1)
    # the default set's rate stays the tests' measure: `predicted` is faster on their calls
    assert (summary.default_measured, summary.default_paying) == (1, 1)


def test_judge_pools_every_round_in_cpu_time_and_counts_no_difference_apart() -> None:
    """The rounds' CPU ratios decide; the wall ratios (here hit by the load) are reported; a
    change whose rounds straddle 1 is of no measurable difference: not paying, no failure."""
    loaded = {
        "eager_seconds": 0.012,
        "compiled_seconds": 0.004,
        "eager_samples": [0.012, 0.001, 0.015, 0.011, 0.013, 0.0009, 0.014],
        "compiled_samples": [0.004, 0.009, 0.004, 0.005, 0.004, 0.006, 0.004],
        "eager_cpu_samples": [0.004] * 7,
        "compiled_cpu_samples": [0.001, 0.0012, 0.001, 0.0011, 0.001, 0.001, 0.0009],
    }
    even = {
        "eager_seconds": 0.01,
        "compiled_seconds": 0.01,
        "eager_cpu_samples": [0.010, 0.012, 0.009, 0.011, 0.010, 0.008, 0.012],
        "compiled_cpu_samples": [0.011, 0.010, 0.010, 0.010, 0.011, 0.010, 0.010],
        "eager_samples": [0.01] * 7,
        "compiled_samples": [0.01] * 7,
    }
    records = [_call("d-loaded", traces=1, **loaded), _call("d-even", traces=1, **even)]
    found = {f.key: f for f in judge([Change("d-loaded", True), Change("d-even", True)], records)}
    fast, same = found["d-loaded"], found["d-even"]
    assert fast.speedup == 4.0 and fast.speed == "faster" and fast.paying
    assert fast.wall_speedup == pytest.approx(3.0) and fast.interval is not None
    assert fast.interval.samples == 7 and fast.interval.low > 1
    assert same.speed == "no measurable difference" and same.no_difference
    assert not same.paying and not same.failure and same.cause == "no measurable difference"
    summary = summarize([fast, same])
    assert (summary.default_measured, summary.default_paying, summary.default_no_difference) == (
        2,
        1,
        1,
    )
    assert summary.default_rate == 0.5 and summary.default_rate_decided == 1.0


def test_a_record_with_medians_only_gives_one_ratio_per_call() -> None:
    """Records of the plugin before the rounds were kept: each call one ratio of its medians,
    so that five or more calls are needed to decide."""
    medians = {"eager_seconds": 0.02, "compiled_seconds": 0.01}
    few = [_call("f", traces=1, **medians) for _ in range(4)]
    (f,) = judge([Change("f", True)], few)
    assert f.speedup == 2.0 and f.speed == "no measurable difference"
    (g,) = judge([Change("f", True)], [*few, _call("f", traces=0, **medians)])
    assert g.interval is not None and g.interval.samples == 5 and g.speed == "faster"


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


class LazyLayer:
    # creates its weights at its first call, as the sublayers of a Keras layer do

    def __init__(self):
        self.w = None

    @tf.function
    def __call__(self, x):
        if self.w is None:
            self.w = tf.Variable(tf.ones([4, 4]))
        return tf.matmul(x, self.w)


@tf.function
def light(x):
    return tf.reduce_sum(x * x)


def outer(x):
    @tf.function
    def inner(y):
        return y + 1

    return inner(x)


@tf.function
def caller(x):
    # a compiled caller of the library: `heavy` runs inside its graph
    return heavy(x) + 1


def squares(n):
    # tf.data traces the map function into the dataset's graph (shape [2]: a trace of its own)
    return tf.data.Dataset.range(n).map(lambda i: light(tf.ones([2]) * tf.cast(i, tf.float32)))
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
    assert float(ops.caller(x)[0, 0]) >= 1
    assert [float(v) for v in ops.squares(2)] == [0.0, 2.0]
    for _ in range(2):
        lazy = ops.LazyLayer()
        lazy(tf.ones([2, 4]))
        lazy(tf.ones([2, 4]))
"""

EAGER_TESTS = """
import tensorflow as tf
from tinylib import ops


def test_run_eagerly():
    tf.config.run_functions_eagerly(True)  # and never reset, as some libraries' tests do
    assert float(ops.light(tf.ones([3]))) == 3.0


def test_still_eagerly():
    assert float(ops.light(tf.ones([3]))) == 3.0  # the file that set it keeps it
    for n in range(1, 8):  # more signatures than the plugin times: none spends its samples
        assert float(ops.light(tf.ones([n]))) == n
"""

LATER_TESTS = """
import tensorflow as tf
from tinylib import ops


def test_after_a_file_that_left_functions_run_eagerly():
    assert float(ops.light(tf.ones([3]))) == 3.0  # compiled: the plugin undid the setting
"""


@pytest.mark.tensorflow
def test_plugin_probes_a_tiny_tensorflow_project(tmp_path: Path) -> None:
    pytest.importorskip("tensorflow")
    project = tmp_path / "project"
    (project / "tinylib").mkdir(parents=True)
    (project / "tinylib" / "__init__.py").write_text("")
    (project / "tinylib" / "ops.py").write_text(textwrap.dedent(LIBRARY))
    (project / "test_ops.py").write_text(textwrap.dedent(TESTS))
    (project / "test_eager.py").write_text(textwrap.dedent(EAGER_TESTS))
    (project / "test_later.py").write_text(textwrap.dedent(LATER_TESTS))
    plugins = install_benefit_plugin(tmp_path / "plugins")
    keys = [
        "tinylib/ops.py::heavy",
        "tinylib/ops.py::scaled",
        "tinylib/ops.py::Layer.__call__",
        "tinylib/ops.py::LazyLayer.__call__",
        "tinylib/ops.py::light",
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
            "test_eager.py",
            "test_later.py",
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
    assert (heavy.calls, heavy.in_graph_calls, heavy.signatures, heavy.traces) == (3, 2, 1, 1)
    # of its two in-graph calls, the test's own `tf.function(lambda ...)` is no evidence; the
    # trace of the library's compiled `caller` is
    assert (heavy.library_graph_calls, heavy.library_graphs) == (1, ["caller"])
    assert heavy.run_in_graph
    assert heavy.measured and heavy.timing_traces == 0 and not heavy.excess_traces
    scaled = found["tinylib/ops.py::scaled"]
    assert (scaled.calls, scaled.signatures, scaled.traces) == (3, 1, 3)
    assert scaled.failure and "new Python objects" in (scaled.cause or "")
    layer = found["tinylib/ops.py::Layer.__call__"]
    assert (layer.calls, layer.signatures, layer.traces) == (2, 1, 1) and layer.measured
    # TensorFlow 2.21 traces a first call that creates variables twice, once per instance
    lazy = found["tinylib/ops.py::LazyLayer.__call__"]
    assert (lazy.calls, lazy.signatures, lazy.traces, lazy.variable_traces) == (4, 2, 4, 2)
    assert not lazy.excess_traces
    light = found["tinylib/ops.py::light"]
    # timed on its one compiled call: the 9 made while functions ran eagerly are not timed
    assert (light.calls, light.run_eagerly_calls, light.traces) == (1, 9, 1) and light.measured
    # tf.data traces the library's map function, which calls it, into the dataset's graph
    assert light.library_graph_calls == 1 and light.library_graphs[0].startswith("Dataset_map")
    nested = found["tinylib/ops.py::outer.inner"]
    assert (nested.cause or "").startswith("nested definition")


TORCH_LIBRARY = """
import torch


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(8, 8)

    @torch.compile
    def forward(self, x):
        for _ in range(4):
            x = torch.tanh(self.linear(x))
        return x


@torch.compile
def outer(block, x):
    return block(x) + 1
"""

TORCH_TESTS = """
import torch
from tinytorch import nets


def test_calls():
    block = nets.Block()
    x = torch.ones(4, 8)
    for _ in range(3):
        block(x)
    assert nets.outer(block, x).shape == (4, 8)
"""


def _tiny_project(tmp_path: Path, files: dict[str, str]) -> Path:
    """A project of `files` (path -> text, dedented), each folder a package."""
    project = tmp_path / "project"
    for relpath, text in files.items():
        path = project / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.parent != project:
            (path.parent / "__init__.py").touch()
        path.write_text(textwrap.dedent(text))
    return project


def _run_with_plugin(
    tmp_path: Path, project: Path, keys: list[str], module: str, test_file: str
) -> list[dict[str, Any]]:
    """Run `test_file` of `project` with the benefit plugin probing `keys` (functions of
    `module`); the plugin's records."""
    plugins = install_benefit_plugin(tmp_path / "plugins")
    targets = [{"key": k, "module": module, "qualname": k.split("::")[1]} for k in keys]
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
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    done = subprocess.run(
        [*command, "-p", "_hybridize_benefit_plugin", test_file],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return read_records(records.glob("*.jsonl"))


@pytest.mark.torch
def test_plugin_probes_a_tiny_pytorch_project(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    files = {"tinytorch/nets.py": TORCH_LIBRARY, "test_nets.py": TORCH_TESTS}
    project = _tiny_project(tmp_path, files)
    keys = ["tinytorch/nets.py::Block.forward", "tinytorch/nets.py::outer"]
    records_read = _run_with_plugin(tmp_path, project, keys, "tinytorch.nets", "test_nets.py")
    found = {f.key: f for f in judge([Change(k, default=True) for k in keys], records_read)}
    forward = found["tinytorch/nets.py::Block.forward"]
    # three calls of its own, one compile; inside `outer`'s graph Dynamo folds the probe's
    # `is_compiling()` and inlines the original, no graph break; `comptime` records once,
    # while Dynamo compiles `outer` (the library's compiled caller)
    assert (forward.calls, forward.in_graph_calls, forward.signatures) == (3, 1, 1)
    assert forward.library_graphs == ["dynamo:outer"] and forward.run_in_graph
    assert forward.traces == 1 and forward.measured and not forward.excess_traces
    outer = found["tinytorch/nets.py::outer"]
    assert outer.calls == 1 and outer.measured
    assert outer.traces == 1  # one frame compiled: the probe inside it breaks no graph


class _StandInFunction:
    """A `tf.function` stand-in: traces once per new argument value, binds like a method."""

    def __init__(self, python_function: Any, instance: Any = None) -> None:
        self.python_function = python_function
        self.instance = instance
        self.seen: set[object] = set()

    def experimental_get_tracing_count(self) -> int:
        return len(self.seen)

    def __get__(self, instance: Any, owner: Any) -> _StandInFunction:
        bound = _StandInFunction(self.python_function, instance)
        bound.seen = self.seen
        return bound

    def __call__(self, *args: Any) -> Any:
        self.seen.add(args)
        if self.instance is not None:
            return self.python_function(self.instance, *args)
        return self.python_function(*args)


def _standin_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, package: str, source: str
) -> Any:
    """`package.ops` written from `source` and imported (the package leaves `sys.modules`
    with the test)."""
    folder = tmp_path / package
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    (folder / "ops.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "modules", dict(sys.modules))
    return importlib.import_module(f"{package}.ops")


def test_install_puts_a_probe_that_keeps_the_signature_and_reaches_re_exports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hybridize.verify import benefit_plugin

    ops = _standin_module(
        tmp_path,
        monkeypatch,
        "standin_pkg",
        "def _double(x, scale=2):\n    return x * scale\n\n"
        "class Layer:\n    def call(self, logits, labels=None):\n        return logits + 1\n",
    )

    ops.double = _StandInFunction(ops._double)
    ops.Layer.call = _StandInFunction(ops.Layer.__dict__["call"])
    import standin_pkg  # type: ignore[import-not-found]

    standin_pkg.double = ops.double  # bound before the probe, as a package's re-export is
    monkeypatch.setattr(benefit_plugin, "_calls", [])
    for qualname in ("double", "Layer.call"):
        target = {"key": qualname, "module": "standin_pkg.ops", "qualname": qualname}
        assert benefit_plugin.install(target) is None
    assert standin_pkg.double is ops.double  # the re-export holds the probe too
    assert [standin_pkg.double(3), standin_pkg.double(3), standin_pkg.double(4)] == [6, 6, 8]
    layer = ops.Layer()
    assert layer.call(1) == 2
    assert list(inspect.signature(ops.Layer.call).parameters) == ["self", "logits", "labels"]
    calls = benefit_plugin._calls
    doubles = [c for c in calls if c["key"] == "double"]
    assert [c["traces"] for c in doubles] == [1, 0, 1]
    assert all("compiled_seconds" in c and c["timing_traces"] == 0 for c in doubles)
    (method,) = [c for c in calls if c["key"] == "Layer.call"]
    assert method["owner"] == 1 and method["traces"] == 1
    missing = {"key": "k", "module": "standin_pkg.ops", "qualname": "outer.inner"}
    assert benefit_plugin.install(missing) == "nested definition (not reachable from its module)"


def test_an_instance_collected_leaves_its_token_to_no_other() -> None:
    from hybridize.verify.benefit_plugin import _Owners

    class Layer:
        pass

    owners = _Owners()
    first = Layer()
    assert owners.token(first) == 1 and owners.token(first) == 1
    del first
    gc.collect()
    assert owners.token(Layer()) == 2  # a new layer traces anew: a new signature owner
    assert owners.token([]) == 3  # not weakly referable: kept, by its id


class _FakeFunction:
    """What the plugin reads of a `tf.function` (framework-free tests)."""

    def __init__(self) -> None:
        self.python_function = lambda *args: None

    def __call__(self, *args: Any) -> None:
        return None

    def experimental_get_tracing_count(self) -> int:
        return 0


def _scripted_probe(monkeypatch: pytest.MonkeyPatch, ratios: list[float]) -> Any:
    """A probe whose samples give `ratios` in turn (eager CPU time 1e-3 x ratio, compiled
    1e-3), then 1.0 for ever: the rounds' arithmetic without a clock."""
    from hybridize.verify import benefit_plugin

    script = iter(ratios)
    state = {"eager": 0.0}

    def sample(call: Any, loops: int) -> tuple[float, float]:
        if benefit_plugin._mode() == "eager":
            state["eager"] = 1e-3 * next(script, 1.0)
            return state["eager"], state["eager"]
        return 1e-3, 1e-3

    monkeypatch.setattr(benefit_plugin, "_sample", sample)
    monkeypatch.setattr(benefit_plugin, "_timed", lambda call, loops: 1e-3)
    return benefit_plugin.Probe("k", _FakeFunction(), "tensorflow")


def test_a_call_timed_once_is_replayed_until_its_interval_decides(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from hybridize.verify.speed_band import LOOK_ROUNDS

    # 7 rounds that straddle 1 (a wide interval), then rounds about 3x faster
    first = [0.6, 3.0, 0.7, 2.8, 0.8, 3.1, 2.9]
    probe = _scripted_probe(monkeypatch, first + [3.0] * 100)
    timing = probe._time(lambda: None, lambda: None, probe.compiled)
    assert timing["samples"] == 7 and len(probe.ratios) == 7
    replayed = probe.replay()
    # the interval of the first 7 straddles 1; at 14 ratios it is the 3rd smallest to the
    # 3rd largest (98.7%; the 4th would give 94.3%), and 3 ratios are below 1: still wide;
    # at 21, the 6th to the 16th: clear of 1, the median past the band: faster, stop
    assert [r["kind"] for r in replayed] == ["replay", "replay"]
    assert replayed[0]["samples"] == LOOK_ROUNDS and len(probe.ratios) == 21
    call = _call("k", traces=1, **{k: v for k, v in timing.items() if k != "timing_traces"})
    functions = judge([Change("k", default=True)], [call, *replayed])
    assert functions[0].calls == 1 and functions[0].replayed_rounds == 2 * LOOK_ROUNDS
    assert functions[0].interval is not None and functions[0].interval.samples == 21
    assert functions[0].faster
    assert probe.replay() == []  # its calls were let go


def test_equal_modes_are_not_replayed_and_noise_stops_at_the_cap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from hybridize.verify.speed_band import MAX_RATIOS

    equal = _scripted_probe(monkeypatch, [1.0, 1.02, 0.98, 1.01, 0.99, 1.0, 1.03])
    equal._time(lambda: None, lambda: None, equal.compiled)
    assert equal.replay() == []  # within the band: genuinely equal, settled
    noisy = _scripted_probe(monkeypatch, [0.5, 2.0] * 100)
    noisy._time(lambda: None, lambda: None, noisy.compiled)
    noisy._time(lambda: None, lambda: None, noisy.compiled)  # two calls, replayed in turn
    replayed = noisy.replay()
    assert len(noisy.ratios) == MAX_RATIOS and len(replayed) == 7
    # both modes the same number of rounds in every record
    assert all(len(r["eager_cpu_samples"]) == len(r["compiled_cpu_samples"]) for r in replayed)


DEFINITIONS = """
import tensorflow as tf


@tf.function
def f(x):
    return x


class C:
    @tf.function(reduce_retracing=True)
    def m(self, x):
        return x

    @staticmethod
    @tf.function
    def s(x):
        return x

    @classmethod
    @tf.function
    def c(cls, x):
        return x


def outer():
    @tf.function
    def inner(x):
        return x

    return inner


TABLE = {"f": f}
"""


def test_the_probe_is_put_at_the_definition_above_the_compiler_decorator() -> None:
    import ast

    from hybridize.verify.benefit_plugin import probed_source

    tree = ast.parse(DEFINITIONS)
    names = ["f", "C.m", "C.s", "C.c", "outer.inner", "gone"]
    targets = [{"key": f"m.py::{n}", "module": "m", "qualname": n} for n in names]
    assert probed_source(tree, targets, "plug") == 4  # the nested and the missing ones: no
    text = ast.unparse(tree)
    probe = "@__import__('sys').modules['plug'].at_definition"
    assert f"{probe}('m.py::f', 'function')\n@tf.function\ndef f" in text
    assert f"{probe}('m.py::C.m', 'method')\n    @tf.function(reduce_retracing=True)" in text
    # under `staticmethod` a plain function; under `classmethod` a method (bound to the class)
    assert f"@staticmethod\n    {probe}('m.py::C.s', 'function')\n    @tf.function" in text
    assert f"@classmethod\n    {probe}('m.py::C.c', 'method')\n    @tf.function" in text
    assert "at_definition('m.py::outer.inner'" not in text


REFERENCES_LIBRARY = """
import tensorflow as tf


@tf.function
def heavy(x):
    for _ in range(20):
        x = tf.tanh(tf.matmul(x, x) * 0.01)
    return x


class Ops:
    @staticmethod
    @tf.function
    def twice(x):
        return heavy(x) * 2


# references taken at import, as legacy augment.py's NAME_TO_FUNC: a probe put in place of
# the module's attribute afterwards would never see these calls
NAME_TO_FUNC = {"heavy": heavy, "twice": Ops.twice}
DEFAULT = heavy
"""

REFERENCES_TESTS = """
import tensorflow as tf
from tinyrefs import ops


def test_calls_through_references_taken_at_import():
    x = tf.ones([16, 16])
    ops.NAME_TO_FUNC["heavy"](x)
    ops.NAME_TO_FUNC["twice"](x)
    ops.DEFAULT(x)
"""


@pytest.mark.tensorflow
def test_plugin_sees_calls_through_references_taken_at_import(tmp_path: Path) -> None:
    pytest.importorskip("tensorflow")
    project = _tiny_project(
        tmp_path, {"tinyrefs/ops.py": REFERENCES_LIBRARY, "test_refs.py": REFERENCES_TESTS}
    )
    keys = ["tinyrefs/ops.py::heavy", "tinyrefs/ops.py::Ops.twice"]
    records = _run_with_plugin(tmp_path, project, keys, "tinyrefs.ops", "test_refs.py")
    found = {f.key: f for f in judge([Change(k, default=True) for k in keys], records)}
    heavy, twice = found[keys[0]], found[keys[1]]
    # two eager calls through the dict and the alias (one signature, one trace), and one
    # inside `twice`'s trace, a graph of the library's
    assert (heavy.calls, heavy.signatures, heavy.traces) == (2, 1, 1)
    assert (heavy.in_graph_calls, heavy.library_graphs) == (1, ["twice"])
    assert heavy.measured and twice.measured and heavy.unreachable is None
    assert (twice.calls, twice.signatures, twice.traces) == (1, 1, 1)


def test_absl_flags_are_marked_parsed_so_that_pytest_s_arguments_are_not_read_as_flags(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import types

    from hybridize.verify.benefit_plugin import parse_absl_flags

    class Flags:
        parsed = False

        def is_parsed(self) -> bool:
            return self.parsed

        def mark_as_parsed(self) -> None:
            self.parsed = True

    monkeypatch.delitem(sys.modules, "absl.flags", raising=False)
    parse_absl_flags()  # no absl loaded: nothing to do, nothing imported
    assert "absl.flags" not in sys.modules
    absl = types.ModuleType("absl.flags")
    absl.FLAGS = Flags()  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "absl.flags", absl)
    parse_absl_flags()
    assert absl.FLAGS.parsed  # type: ignore[attr-defined]


TENSOR = '["array", "EagerTensor", "float64", [3, 3], false]'


def _valued(key: str, value: float, traces: int, test: str, owner: int = 0) -> dict[str, Any]:
    """A call with a tensor and a Python float, in `test`, on instance `owner`."""
    signature = f'[{TENSOR}, ["value", "float", "{value!r}"]]'
    return {**_call(key, signature, traces, **_rounds(0.02, 0.01)), "test": test, "owner": owner}


def test_judge_counts_traces_per_call_not_per_recorded_signature() -> None:
    """A trace per Python value or per instance is a new recorded signature each time, so
    traces never exceed signatures; counted per call against the test's tensor inputs, they
    grow with the calls: retracing (zfit's `_damped_hess0` with `L *= 11` per iteration, 9 of
    33 such calls traced; `_check_init_values` once per new instance, 10 of 10)."""
    damping = [1.0, 11.0, 121.0, 11.0, 1.0, 1 / 9, 1.0, 11.0, 1331.0, 121.0, 14641.0, 121.0]
    seen: set[float] = set()
    records = []
    for value in damping:
        records.append(_valued("per_value", value, int(value not in seen), "t::lm"))
        seen.add(value)
    records += [_valued("per_instance", 1.0, 1, "t::binned", owner) for owner in range(1, 6)]
    found = {
        f.key: f for f in judge([Change("per_value", True), Change("per_instance", True)], records)
    }
    per_value, per_instance = found["per_value"], found["per_instance"]
    assert per_value.traces == per_value.signatures == 6  # the old count saw no excess
    assert per_value.retraces_per_call is not None
    assert (per_value.retraces_per_call.retraces, per_value.retraces_per_call.repeats) == (5, 11)
    assert per_value.excess_traces and per_value.failure and not per_value.paying
    assert per_instance.retraces_per_call is not None and per_instance.failure
    assert (per_instance.cause or "").startswith("retraces per call: 4 of 4 calls")
    assert summarize(list(found.values())).default_retracing == 2


def test_traces_that_follow_inputs_flags_or_instances_are_not_per_call() -> None:
    """Near misses: a second value of a flag in a test (one trace without a new tensor input);
    three instances each called six times (2 such traces of 17 repeated calls); parametrized
    tests with a value each (one trace per test); new shapes per call (a trace per tensor
    input, which the per-signature count judges)."""
    flag = [_valued("flag", v, t, "t::modes") for v, t in ((1.0, 1), (0.0, 1), (1.0, 0), (0.0, 0))]
    layers = [
        _valued("layer", 1.0, int(i == 0), "t::layers", owner)
        for owner in (1, 2, 3)
        for i in range(6)
    ]
    params = [_valued("param", v, 1, f"t::param[{v}]") for v in (1.0, 2.0, 3.0)]
    shapes = [
        {
            **_call("shapes", f'[["array", "EagerTensor", "float32", [{n}], false]]', 1),
            "test": "t::decode",
            **_rounds(0.02, 0.01),
        }
        for n in range(1, 6)
    ]
    keys = ["flag", "layer", "param", "shapes"]
    found = {
        f.key: f for f in judge([Change(k, True) for k in keys], [*flag, *layers, *params, *shapes])
    }
    for key in keys:
        assert found[key].retraces_per_call is None, key
        assert not found[key].excess_traces and found[key].paying, key


class _TfBinding(_StandInFunction):
    """A `tf.function` stand-in that binds as `Function.__get__` does: looked up on the class,
    itself (the first argument an input); on an instance, a function of its own per instance,
    kept in a cache keyed by the instance (an unhashable one, such as an eager tensor, raises)."""

    def __init__(self, python_function: Any, instance: Any = None) -> None:
        super().__init__(python_function, instance)
        self.cache: dict[object, _StandInFunction] = {}

    def __get__(self, instance: Any, owner: Any) -> _StandInFunction:
        if instance is None:
            return self
        if instance not in self.cache:
            self.cache[instance] = _StandInFunction(self.python_function, instance)
        return self.cache[instance]

    def __call__(self, *args: Any) -> Any:
        self.seen.add(repr(args))  # traced by the inputs' values (lists are unhashable)
        return self.python_function(*args)


def _install_probes(plugin: Any, package: str, *qualnames: str) -> None:
    """A probe in place of each `package.ops` function (keyed by file, as the oracle's:
    the plugin keeps its probes by key for the whole process)."""
    for qualname in qualnames:
        key = f"{package}/ops.py::{qualname}"
        target = {"key": key, "module": f"{package}.ops", "qualname": qualname}
        assert plugin.install(target) is None


def test_a_method_probe_binds_as_tf_function_does_on_its_class(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hybridize.verify import benefit_plugin

    ops = _standin_module(
        tmp_path,
        monkeypatch,
        "standin_vectors",
        "class Vector(list):\n"  # a list: unhashable, as tf-pwa's `Vector3` (a tf.Tensor) is
        "    def dot(self, other):\n        return sum(a * b for a, b in zip(self, other))\n\n"
        "class Layer:\n    def call(self, x):\n        return x + 1\n",
    )

    ops.Vector.dot = _TfBinding(ops.Vector.__dict__["dot"])
    ops.Layer.call = _TfBinding(ops.Layer.__dict__["call"])
    with pytest.raises(TypeError, match="unhashable"):  # the stand-in hashes as TF does
        ops.Vector([1]).dot(ops.Vector([1]))
    monkeypatch.setattr(benefit_plugin, "_calls", [])
    _install_probes(benefit_plugin, "standin_vectors", "Vector.dot", "Layer.call")
    # through the class, the "self" is an input of the call: never bound, never hashed
    v, w = ops.Vector([1.0, 2.0]), ops.Vector([3.0, 4.0])
    assert ops.Vector.dot(v, w) == 11.0
    assert list(inspect.signature(ops.Vector.dot).parameters) == ["self", "other"]
    # on an instance, bound to it as before: each instance an owner of its own traces
    first, second = ops.Layer(), ops.Layer()
    assert [first.call(1), first.call(1), second.call(1)] == [2, 2, 2]
    assert ops.Layer.call(first, 5) == 6  # through the class: the function as it is
    assert list(inspect.signature(first.call).parameters) == ["x"]
    calls = benefit_plugin._calls
    (dot,) = [c for c in calls if c["key"].endswith("::Vector.dot")]
    assert dot["owner"] == 0 and dot["traces"] == 1 and "timing_error" not in dot
    layer = [c for c in calls if c["key"].endswith("::Layer.call")]
    assert [c["owner"] for c in layer] == [1, 1, 2, 0]
    assert [c["traces"] for c in layer] == [1, 0, 1, 1]


class _CompositeBinding(_TfBinding):
    """Binds as `Function.__get__` does a `CompositeTensor` instance: the function itself
    with the instance as its first argument (`MethodType(function, instance)`)."""

    def __get__(self, instance: Any, owner: Any) -> Any:
        return self if instance is None else types.MethodType(self, instance)


def test_a_composite_tensor_s_method_takes_its_instance_as_an_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hybridize.verify import benefit_plugin

    ops = _standin_module(
        tmp_path,
        monkeypatch,
        "standin_ragged",
        "class Ragged:\n    def __init__(self, n):\n        self.n = n\n\n"
        "    def total(self):\n        return self.n * 2\n",
    )

    ops.Ragged.total = _CompositeBinding(ops.Ragged.__dict__["total"])
    monkeypatch.setattr(benefit_plugin, "_calls", [])
    _install_probes(benefit_plugin, "standin_ragged", "Ragged.total")
    assert [ops.Ragged(1).total(), ops.Ragged(2).total()] == [2, 4]
    calls = benefit_plugin._calls
    # inputs of the call, traced by their values (the stand-in's type spec): no owner tokens
    assert [c["owner"] for c in calls] == [0, 0] and [c["traces"] for c in calls] == [1, 1]
    assert all("Ragged" in c["signature"] for c in calls)


@pytest.mark.tensorflow
def test_a_tf_function_method_called_through_its_class_with_a_tensor_as_self(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tf = pytest.importorskip("tensorflow")
    from hybridize.verify import benefit_plugin

    ops = _standin_module(
        tmp_path,
        monkeypatch,
        "tf_vectors",
        "import tensorflow as tf\n\n"
        "class Vector3(tf.Tensor):\n"  # tf-pwa's: methods called through the class on tensors
        "    @tf.function\n"
        "    def dot(self, other):\n        return tf.reduce_sum(self * other, axis=-1)\n",
    )

    monkeypatch.setattr(benefit_plugin, "_calls", [])
    _install_probes(benefit_plugin, "tf_vectors", "Vector3.dot")
    p = tf.constant([[1.0, 2.0, 3.0]])
    assert float(ops.Vector3.dot(p, p)[0]) == 14.0
    (call,) = benefit_plugin._calls
    assert call["owner"] == 0 and call["traces"] == 1 and "timing_error" not in call
