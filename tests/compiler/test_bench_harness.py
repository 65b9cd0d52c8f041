"""The measuring harness on small functions, in real worker subprocesses with TensorFlow.

One job (module-scoped, ~1 minute) covers: equivalence detection (a deliberately wrong rewrite
is caught), retrace counting, variables compared and restored, a crashing and a hanging function
isolated while the others are measured.
"""

from __future__ import annotations

import importlib.util
import textwrap
from typing import Any

import pytest

from hybridize.compiler import decisions
from hybridize.compiler.protocol import Limits, WorkerOutcome, run_job

pytestmark = [
    pytest.mark.tensorflow,
    pytest.mark.slow,
    pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent"),
]

FUNCTIONS = """
import ctypes
import tensorflow as tf


def good(x):
    return tf.reduce_sum(tf.sin(x) * 2.0), {"scaled": x * 3.0}


def good_rewritten_wrongly(x):
    return tf.reduce_sum(tf.sin(x) * 2.0) + 1e-3, {"scaled": x * 3.0}


def crash(x):
    ctypes.string_at(0)
    return x


def scale(x, n):
    return x * n


def hang(x):
    while True:
        pass


def raises(x):
    raise ValueError("boom")


class Scaler:
    def __init__(self, factor=2.0):
        self.factor = factor

    def apply(self, x):
        return tf.tanh(x) * self.factor


class NeedsWidth:
    def __init__(self, width):
        self.width = width

    def apply(self, x):
        return x[:, : self.width]


STEPS_TAKEN = tf.Variable(3)


def grow(x):
    # The variable's value sets a shape: XLA compiles it as a constant, once per value.
    STEPS_TAKEN.assign_add(1)
    return tf.reduce_sum(tf.ones([STEPS_TAKEN])) + tf.reduce_sum(x)


def normalized(x):
    return x / (tf.norm(x, axis=-1, keepdims=True) + 1.0)


class Counter:
    def __init__(self):
        self.total = tf.Variable(0.0)

    def bump(self, x):
        self.total.assign_add(tf.reduce_sum(x))
        return self.total.read_value()
"""

INPUTS = """
import tensorflow as tf
import fns

X = tf.linspace(0.0, 1.0, 8)
COUNTER = fns.Counter()
EXAMPLE_INPUTS = {
    "good": [(X,), (X * 2.0,)],
    "crash": [(X,)],
    "scale": [(X, 1), (X, 2), (X, 3)],
    "hang": [(X,)],
    "raises": [(X,)],
    "grow": [(X,)],
    "fns.py::Counter.bump": [(COUNTER, X)],
}
"""


def candidate(qualname: str, line: int, key: str | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "key": key or f"fns.py::{qualname}",
        "file": "fns.py",
        "qualname": qualname,
        "line": line,
        "is_hybrid": False,
        "input_signature": None,
        "framework": "tensorflow",
        **extra,
    }


def line_of(source: str, name: str) -> int:
    for number, text in enumerate(source.splitlines(), start=1):
        if text.strip().startswith(f"def {name}("):
            return number
    raise AssertionError(name)


def _method_line(qualname: str) -> int:
    owner, name = qualname.split(".")
    lines = FUNCTIONS.splitlines()
    start = next(i for i, text in enumerate(lines) if text.startswith(f"class {owner}"))
    for number, text in enumerate(lines[start:], start=start + 1):
        if text.strip().startswith(f"def {name}("):
            return number
    raise AssertionError(qualname)


@pytest.fixture(scope="module")
def outcome(tmp_path_factory: pytest.TempPathFactory) -> WorkerOutcome:
    root = tmp_path_factory.mktemp("harness")
    (root / "fns.py").write_text(textwrap.dedent(FUNCTIONS))
    (root / "example_inputs.py").write_text(textwrap.dedent(INPUTS))
    names = ["good", "crash", "scale", "hang", "raises", "grow"]
    candidates = [candidate(n, line_of(FUNCTIONS, n)) for n in names]
    candidates.insert(
        1,
        candidate(
            "good",
            line_of(FUNCTIONS, "good"),
            key="fns.py::good (wrong rewrite)",
            compile_instead="good_rewritten_wrongly",
        ),
    )
    candidates.append(candidate("Counter.bump", line_of(FUNCTIONS, "bump")))
    matrix = [{"spec": "TensorSpec", "shape": [None, 3], "dtype": "float32"}]
    for qualname in ("normalized", "Scaler.apply", "NeedsWidth.apply"):
        name = qualname.split(".")[-1]
        line = line_of(FUNCTIONS, name) if "." not in qualname else _method_line(qualname)
        candidates.append(candidate(qualname, line, input_signature=matrix))
    job = {
        "root": str(root),
        "cwd": str(root),
        "entry": None,
        "pytest": False,
        "inputs": str(root / "example_inputs.py"),
        "candidates": candidates,
        "settings": {"budget_seconds": 0.2, "min_rounds": 3, "max_rounds": 5},
    }
    limits = Limits(startup_seconds=120, function_seconds=25, memory_mib=8192)
    return run_job(job, limits, workdir=root)


def test_a_correct_compilation_is_equivalent(outcome: WorkerOutcome) -> None:
    result = outcome.results["fns.py::good"]
    assert result["status"] == "measured", result
    assert result["input_source"] == "user-file"
    assert result["argument_sets"] == 2
    for mode in ("graph", "xla"):
        info = result["modes"][mode]
        assert info["equivalence"]["status"] == "equal", info
        assert info["timing"]["samples"] >= 3
        assert info["traces"] == 1
    assert result["modes"]["graph"]["graph"]["graph_ops"] > 3
    hlo = result["modes"]["xla"]["hlo"]
    assert hlo["instructions_before"] > 0 and hlo["fusions"] >= 1


def test_a_tensorflow_job_loads_the_tensorflow_backend_only(outcome: WorkerOutcome) -> None:
    assert set(outcome.frameworks) == {"tensorflow"}
    assert outcome.tensorflow == outcome.frameworks["tensorflow"]
    result = outcome.results["fns.py::good"]
    # Every measured result names its framework; no torch-only fields in a TensorFlow one.
    assert result["framework"] == "tensorflow" and "notes" not in result
    assert not {"label", "compile_seconds", "recompiles"} & set(result["modes"]["graph"])


def test_a_wrong_rewrite_is_caught(outcome: WorkerOutcome) -> None:
    result = outcome.results["fns.py::good (wrong rewrite)"]
    assert result["status"] == "measured"
    for mode in ("graph", "xla"):
        equivalence = result["modes"][mode]["equivalence"]
        assert equivalence["status"] == "different"
        assert any("output[0][0]" in m for m in equivalence["mismatches"]), equivalence
    decision = decisions.decide(result, False, decisions.DecisionSettings(amortize=False))
    assert not decision.applied
    assert "not-equivalent:graph" in decision.flags


def test_retraces_are_counted_and_flagged(outcome: WorkerOutcome) -> None:
    result = outcome.results["fns.py::scale"]
    assert result["status"] == "measured"
    assert result["modes"]["graph"]["traces"] == 3  # one per Python value of n
    assert result["modes"]["graph"]["steady_retraces"] == 0
    decision = decisions.decide(result, False, decisions.DecisionSettings(amortize=False))
    assert "retracing:graph" in decision.flags and not decision.applied


def test_variables_are_compared_and_restored(outcome: WorkerOutcome) -> None:
    result = outcome.results["fns.py::Counter.bump"]
    assert result["status"] == "measured", result
    assert result["variables_changed"] == 1
    assert result["modes"]["graph"]["equivalence"]["status"] == "equal"
    assert result["modes"]["xla"]["equivalence"]["status"] == "equal"


def test_crash_hang_and_exception_are_isolated(outcome: WorkerOutcome) -> None:
    crash = outcome.results["fns.py::crash"]
    assert crash["status"] == "crash"
    assert "SIGSEGV" in crash["error"]
    hang = outcome.results["fns.py::hang"]
    assert hang["status"] == "timeout"
    raised = outcome.results["fns.py::raises"]
    assert raised["status"] == "error" and "boom" in raised["error"]
    assert outcome.restarts == 2
    # Functions after the crash and the hang were still measured.
    assert outcome.results["fns.py::scale"]["status"] == "measured"
    assert outcome.results["fns.py::Counter.bump"]["status"] == "measured"


def test_inferred_signatures_give_inputs_to_functions_and_methods(outcome: WorkerOutcome) -> None:
    function = outcome.results["fns.py::normalized"]
    assert function["status"] == "measured", function
    assert function["input_source"] == "signature"
    assert function["signatures"] == ["float32[16,3]", "float32[16,3]"]  # None axis -> 16
    # A method: the instance comes from the constructor, which needs no argument; the
    # signature describes the arguments after `self`.
    method = outcome.results["fns.py::Scaler.apply"]
    assert method["status"] == "measured", method
    assert method["input_source"] == "signature"
    assert method["signatures"] == ["float32[16,3]", "float32[16,3]"]
    assert method["modes"]["graph"]["equivalence"]["status"] == "equal"


def test_a_method_whose_instance_cannot_be_made_gets_no_inputs(outcome: WorkerOutcome) -> None:
    result = outcome.results["fns.py::NeedsWidth.apply"]
    assert result["status"] == "no-inputs"
    assert "NeedsWidth() needs arguments" in result["error"], result


def test_recompiling_for_each_new_variable_state_is_caught(outcome: WorkerOutcome) -> None:
    result = outcome.results["fns.py::grow"]
    assert result["status"] == "measured", result
    xla = result["modes"]["xla"]
    graph = result["modes"]["graph"]
    # The timed samples replay the same states (cache hits); new states recompile under XLA.
    assert min(xla["new_state_seconds"]) > 3 * xla["timing"]["median_seconds"]
    assert graph["new_state_seconds"] is not None
    decision = decisions.decide(result, False, decisions.DecisionSettings(amortize=False))
    assert "recompiles:xla" in decision.flags, decision
    assert "recompiles:graph" not in decision.flags
    assert decision.mode != "xla"
