"""The compile-and-benchmark stage's pure parts: no TensorFlow, no subprocess (fast)."""

from __future__ import annotations

import json
import math
import textwrap
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hybridize.compiler import (
    bench,
    decisions,
    equivalence,
    graphstats,
    inputs,
    instrument,
    refactored_copy,
    report,
    timing,
)
from hybridize.compiler.bench import EntryError, parse_entry

HLO = """HloModule a_inference_f_10__.5, entry_computation_layout={(f32[4]{0})->f32[]}

%fused_computation (param_0: f32[4]) -> f32[4] {
  %param_0 = f32[4]{0} parameter(0)
  %constant_1 = f32[] constant(2)
  %broadcast = f32[4]{0} broadcast(f32[] %constant_1), dimensions={}
  ROOT %multiply = f32[4]{0} multiply(f32[4]{0} %param_0, f32[4]{0} %broadcast)
}

%add_computation (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %add = f32[] add(f32[] %a, f32[] %b)
}

ENTRY %main.5 (Arg_0.1: f32[4]) -> (f32[], f32[4]) {
  %Arg_0.1 = f32[4]{0} parameter(0)
  %multiply_fusion = f32[4]{0} fusion(f32[4]{0} %Arg_0.1), kind=kLoop, calls=%fused_computation
  %constant_0 = f32[] constant(0)
  %reduce = f32[] reduce(f32[4]{0} %multiply_fusion, f32[] %constant_0), dimensions={0}, to_apply=%add_computation
  ROOT %tuple = (f32[], f32[4]{0}) tuple(f32[] %reduce, f32[4]{0} %multiply_fusion)
}
"""


def test_hlo_statistics_count_instructions_and_fusions() -> None:
    stats = graphstats.parse_hlo(HLO)
    assert stats.computations == 3
    assert stats.instructions == 4 + 3 + 5
    assert stats.fusions == 1
    assert stats.scheduled_instructions == 3 + 5  # the fused body runs as one instruction


class _Node:
    def __init__(self, op: str) -> None:
        self.op = op


class _GraphDef:
    def __init__(self, ops: list[str], library: list[list[str]]) -> None:
        self.node = [_Node(op) for op in ops]

        self.library = type("Library", (), {})()
        self.library.function = [
            type("F", (), {"node_def": [_Node(o) for o in f]})() for f in library
        ]


def test_graph_statistics_and_random_ops() -> None:
    graph = _GraphDef(
        ["Placeholder", "MatMul", "RandomStandardNormal", "Identity"], [["Add", "Mul"]]
    )
    stats = graphstats.graph_def_stats(graph)
    assert stats["graph_ops"] == 4
    assert stats["library_ops"] == 2
    assert graphstats.stateful_random_ops(graph) == ["RandomStandardNormal"]


def test_equivalence_of_nested_structures() -> None:
    a = {"loss": np.float32(1.0), "parts": (np.ones(3, np.float32), [np.int32(2), "x"])}
    close = {"loss": np.float32(1.0 + 1e-7), "parts": (np.ones(3, np.float32), [np.int32(2), "x"])}
    assert equivalence.compare(a, close) == []
    far = {"loss": np.float32(1.01), "parts": (np.ones(3, np.float32), [np.int32(2), "x"])}
    [mismatch] = equivalence.compare(a, far)
    assert mismatch.path == "output['loss']"
    assert "max abs difference" in mismatch.problem
    shape = {"loss": np.float32(1.0), "parts": (np.ones(4, np.float32), [np.int32(2), "x"])}
    assert "shape" in equivalence.compare(a, shape)[0].problem
    dtype = {"loss": np.float64(1.0), "parts": (np.ones(3, np.float32), [np.int32(2), "x"])}
    assert "dtype" in equivalence.compare(a, dtype)[0].problem
    assert equivalence.compare((1, 2), [1, 2])  # a tuple is not a list
    assert equivalence.compare({"a": 1}, {"b": 1})


def test_equivalence_tolerances_are_those_stated() -> None:
    base = np.array([1.0, 100.0], np.float32)
    assert not equivalence.compare(base, base * (1 + 5e-6))
    assert equivalence.compare(base, base * (1 + 5e-5))
    assert not equivalence.compare(base, base * (1 + 5e-5), rtol=1e-4)


def test_to_host_converts_tensor_likes() -> None:
    class FakeTensor:
        def numpy(self) -> np.ndarray:
            return np.arange(3)

    marker = object()
    host = equivalence.to_host((FakeTensor(), {"k": [1.5, None]}, marker))
    assert isinstance(host[0], np.ndarray)
    assert host[1] == {"k": [1.5, None]}
    assert host[2] == equivalence.Opaque(marker)


def test_variable_state_snapshot_restore_and_compare() -> None:
    class Var:
        def __init__(self, value: float, name: str) -> None:
            self.value = np.array(value)
            self.name = name

        def numpy(self) -> np.ndarray:
            return self.value

        def assign(self, value: np.ndarray) -> None:
            self.value = np.array(value)

    v, w = Var(1.0, "v"), Var(2.0, "w")
    state = equivalence.VariableState([v, w])
    before = state.snapshot()
    v.assign(np.array(5.0))
    after = state.snapshot()
    assert state.changed(before, after) == [0]
    [problem] = equivalence.compare_states(state.names, before, after)
    assert problem.path == "variable v"
    state.restore(before)
    assert float(v.value) == 1.0


def test_timing_prefers_the_faster_mode_and_reports_spread() -> None:
    def slow() -> None:
        time.sleep(0.002)

    def fast() -> None:
        pass

    stats = timing.measure(
        {"slow": slow, "fast": fast}, 1, min_rounds=5, max_rounds=5, min_sample_seconds=0.002
    )
    assert stats["slow"].samples == stats["fast"].samples == 5
    assert stats["fast"].median < stats["slow"].median
    assert stats["slow"].p25 <= stats["slow"].median <= stats["slow"].p75
    assert timing.clearly_faster(stats["slow"], stats["fast"], 1.1)
    assert timing.speedup(stats["slow"], stats["fast"]) > 10


def test_quantiles_and_geometric_mean() -> None:
    assert timing.quantile([1, 2, 3, 4], 0.5) == 2.5
    assert timing.quantile([5], 0.25) == 5
    assert math.isclose(timing.geometric_mean([2.0, 8.0]) or 0, 4.0)
    assert timing.geometric_mean([]) is None


def _timing(median: float, spread: float = 0.02) -> dict[str, Any]:
    return {
        "median_seconds": median,
        "p25_seconds": median * (1 - spread),
        "p75_seconds": median * (1 + spread),
        "min_seconds": median * 0.9,
        "max_seconds": median * 1.2,
        "samples": 9,
        "loops": 3,
    }


def _result(eager: float, graph: float, xla: float, **overrides: Any) -> dict[str, Any]:
    equal = {"status": "equal", "mismatches": []}
    result = {
        "status": "measured",
        "framework": "tensorflow",
        "input_source": "entry",
        "calls_observed": 1000,
        "reference": "eager",
        "deterministic": True,
        "tensor_signatures": 1,
        "modes": {
            "eager": {
                "error": None,
                "timing": _timing(eager),
                "equivalence": {"status": "reference", "mismatches": []},
            },
            "graph": {
                "error": None,
                "timing": _timing(graph),
                "equivalence": dict(equal),
                "trace_seconds": 0.05,
                "traces_warmup": 1,
                "steady_retraces": 0,
            },
            "xla": {
                "error": None,
                "timing": _timing(xla),
                "equivalence": dict(equal),
                "trace_seconds": 0.3,
                "traces_warmup": 1,
                "steady_retraces": 0,
            },
        },
    }
    result.update(overrides)
    return result


SETTINGS = decisions.DecisionSettings()


def test_decision_applies_graph_when_measured_faster_and_equivalent() -> None:
    decision = decisions.decide(_result(0.010, 0.001, 0.00095), False, SETTINGS)
    assert decision.applied and decision.mode == "graph"  # xla not clearly faster than graph
    assert decision.change == "add_tf_function"
    assert decision.speedup == pytest.approx(10.0)


def test_decision_prefers_xla_only_when_it_beats_graph() -> None:
    decision = decisions.decide(_result(0.010, 0.002, 0.001), False, SETTINGS)
    assert decision.mode == "xla" and decision.change == "add_tf_function_jit"
    hybrid = _result(0.010, 0.002, 0.001, reference="graph")
    decision = decisions.decide(hybrid, True, SETTINGS)
    assert decision.baseline == "graph" and decision.mode == "xla"
    assert decision.change == "add_jit_compile"
    assert decision.speedup == pytest.approx(2.0)


def test_decision_keeps_eager_for_slowdowns_and_flags_them() -> None:
    decision = decisions.decide(_result(0.0002, 0.0004, 0.0003), False, SETTINGS)
    assert not decision.applied and decision.mode == "eager"
    assert "slowdown:graph" in decision.flags and "slowdown:xla" in decision.flags


def test_decision_refuses_a_change_with_different_results() -> None:
    result = _result(0.010, 0.001, 0.0005)
    result["modes"]["graph"]["equivalence"] = {
        "status": "different",
        "mismatches": ["output: values differ"],
    }
    result["modes"]["xla"]["equivalence"] = {"status": "not-comparable", "mismatches": ["random"]}
    decision = decisions.decide(result, False, SETTINGS)
    assert not decision.applied
    assert {"not-equivalent:graph", "not-equivalent:xla"} <= set(decision.flags)


def test_decision_flags_retracing() -> None:
    result = _result(0.010, 0.001, 0.0005)
    result["modes"]["graph"]["traces_warmup"] = 3
    result["modes"]["xla"]["steady_retraces"] = 4
    decision = decisions.decide(result, False, SETTINGS)
    assert not decision.applied
    assert {"retracing:graph", "retracing:xla"} <= set(decision.flags)


def test_decision_requires_tracing_to_pay_off_over_the_observed_calls() -> None:
    result = _result(0.010, 0.001, 0.001, calls_observed=2)
    decision = decisions.decide(result, False, SETTINGS)
    assert not decision.applied and "not-amortized:graph" in decision.flags
    decision = decisions.decide(result, False, decisions.DecisionSettings(amortize=False))
    assert decision.applied


def test_calls_inside_a_compiled_caller_do_not_pay_for_the_callee() -> None:
    # step: 100 calls, 10x faster as a graph. loss: 100 calls, 90 of them made by step; on
    # its own it would pay for its trace (100 x 9 ms saved vs 2 x 50 ms), but once step is
    # compiled only its 10 calls from elsewhere count (10 x 9 ms < 2 x 50 ms).
    step = _result(0.010, 0.001, 0.001, calls_observed=100)
    loss = _result(
        0.010,
        0.001,
        0.001,
        calls_observed=100,
        calls_within=[{"callers": ["m.py::step"], "calls": 90}],
    )
    assert decisions.decide(loss, False, SETTINGS).applied
    # The callee listed first: callers are still decided before it.
    decided = decisions.decide_all(
        [("m.py::loss", loss, False), ("m.py::step", step, False)], SETTINGS
    )
    assert decided["m.py::step"].applied
    assert not decided["m.py::loss"].applied
    assert "not-amortized:graph" in decided["m.py::loss"].flags
    assert any(
        "90 of its 100 calls" in r and "m.py::step" in r for r in decided["m.py::loss"].reasons
    )
    # When the caller stays eager (here: its graph gives other results), the callee's calls
    # all count again.
    differs = {"status": "different", "mismatches": ["output[0]: values differ"]}
    wrong_step = _result(0.010, 0.001, 0.001, calls_observed=100)
    for mode in ("graph", "xla"):
        wrong_step["modes"][mode]["equivalence"] = differs
    decided = decisions.decide_all(
        [("m.py::loss", loss, False), ("m.py::step", wrong_step, False)], SETTINGS
    )
    assert not decided["m.py::step"].applied
    assert decided["m.py::loss"].applied


def test_a_callee_inside_an_xla_caller_stays_as_measured() -> None:
    # step wins with XLA; model_call, 100 calls of which 10 inside step, would win on its
    # own, but step was measured with model_call undecorated.
    step = _result(0.010, 0.002, 0.001, calls_observed=100)
    model_call = _result(
        0.010,
        0.001,
        0.001,
        calls_observed=100,
        calls_within=[{"callers": ["m.py::step"], "calls": 10}],
    )
    decided = decisions.decide_all(
        [("m.py::model_call", model_call, False), ("m.py::step", step, False)], SETTINGS
    )
    assert decided["m.py::step"].mode == "xla" and decided["m.py::step"].applied
    assert not decided["m.py::model_call"].applied
    assert "inside-xla" in decided["m.py::model_call"].flags
    # Under a caller compiled as a plain graph, the callee's own win stands.
    graph_step = _result(0.010, 0.002, 0.0019, calls_observed=100)
    decided = decisions.decide_all(
        [("m.py::model_call", model_call, False), ("m.py::step", graph_step, False)], SETTINGS
    )
    assert decided["m.py::step"].mode == "graph"
    assert decided["m.py::model_call"].applied


def test_decide_all_with_mutual_callers_keeps_the_given_order() -> None:
    a = _result(0.010, 0.001, 0.001, calls_observed=100)
    a["calls_within"] = [{"callers": ["m.py::b"], "calls": 50}]
    b = _result(0.010, 0.001, 0.001, calls_observed=100)
    b["calls_within"] = [{"callers": ["m.py::a"], "calls": 50}]
    decided = decisions.decide_all([("m.py::a", a, False), ("m.py::b", b, False)], SETTINGS)
    assert decided["m.py::a"].applied  # decided first, with all its calls
    assert any("50 of its 100 calls" in r for r in decided["m.py::b"].reasons)


def test_decision_refuses_a_mode_that_recompiles_for_new_variable_values() -> None:
    result = _result(0.010, 0.002, 0.001, argument_sets=2)
    result["modes"]["xla"]["new_state_seconds"] = [0.2, 0.21, 0.2]  # 100 ms a call, not 1 ms
    result["modes"]["graph"]["new_state_seconds"] = [0.0041, 0.004, 0.0042]
    decision = decisions.decide(result, False, SETTINGS)
    assert decision.applied and decision.mode == "graph", decision
    assert "recompiles:xla" in decision.flags
    assert any("compiled again as the variables change" in r for r in decision.reasons)


def test_decision_for_functions_not_measured() -> None:
    decision = decisions.decide(
        {"status": "crash", "error": "killed by signal SIGSEGV"}, False, SETTINGS
    )
    assert not decision.applied and "SIGSEGV" in decision.reasons[0]


def test_load_applied_changes(tmp_path: Path) -> None:
    def function(project: str, qualname: str, applied: bool, mode: str) -> dict[str, Any]:
        return {
            "project": project,
            "file": "main.py",
            "qualname": qualname,
            "decision": {"applied": applied, "mode": mode},
        }

    report = {
        "projects": [{"root": str(tmp_path / "a")}, {"root": str(tmp_path / "b")}],
        "functions": [
            function(str(tmp_path / "a"), "train_step", True, "graph"),
            function(str(tmp_path / "a"), "tiny", False, "eager"),
            function(str(tmp_path / "b"), "Model.call", True, "xla"),
        ],
    }
    path = tmp_path / "report.json"
    path.write_text(json.dumps(report))
    assert decisions.load_applied_changes(path) == {
        "a/main.py::train_step": "graph",
        "b/main.py::Model.call": "xla",
    }
    assert decisions.load_applied_changes(path, tmp_path / "b") == {"main.py::Model.call": "xla"}


SOURCE = '''"""Doc."""
from __future__ import annotations

import tensorflow as tf


def step(x):
    return x * 2


class Model:
    @staticmethod
    def helper(x):
        return x + 1

    @tf.function
    def call(self, x):
        return x

    @tf.function(reduce_retracing=True)
    def other(self, x):
        return x
'''


def _written(tmp_path: Path, text: str, *changes: refactored_copy.Change) -> str:
    (tmp_path / "m.py").write_text(text, encoding="utf-8")
    refactored_copy.write_changes(tmp_path, "m.py", changes)
    return (tmp_path / "m.py").read_text(encoding="utf-8")


def test_refactored_copy_adds_decorators_and_jit_compile(tmp_path: Path) -> None:
    out = _written(
        tmp_path,
        SOURCE,
        refactored_copy.Change("step", 7, "graph", False, "tensorflow"),
        refactored_copy.Change("Model.helper", 13, "xla", False, "tensorflow"),
        refactored_copy.Change("Model.call", 17, "xla", True, "tensorflow"),
        refactored_copy.Change("Model.other", 21, "xla", True, "tensorflow"),
    )
    assert "@tf.function\ndef step(x):" in out
    assert "    @staticmethod\n    @tf.function(jit_compile=True)\n    def helper(x):" in out
    assert "    @tf.function(jit_compile=True)\n    def call(self, x):" in out
    assert "@tf.function(reduce_retracing=True, jit_compile=True)" in out
    compile(out, "x.py", "exec")
    # Nothing else changes: the added lines are the only difference.
    added = [line for line in out.splitlines() if line not in SOURCE.splitlines()]
    assert len(out.splitlines()) == len(SOURCE.splitlines()) + 2
    assert len(added) == 4


def test_refactored_copy_adds_the_import_when_the_module_has_none(tmp_path: Path) -> None:
    out = _written(
        tmp_path,
        '"""Doc."""\ndef f(x):\n    return x\n',
        refactored_copy.Change("f", 2, "graph", False, "tensorflow"),
    )
    assert out == '"""Doc."""\nimport tensorflow as tf\n@tf.function\ndef f(x):\n    return x\n'
    aliased = "import tensorflow as T\n\ndef f(x):\n    return x\n"
    out = _written(tmp_path, aliased, refactored_copy.Change("f", 3, "xla", False, "tensorflow"))
    assert "@T.function(jit_compile=True)\ndef f" in out


def test_refactored_copy_leaves_a_hybrid_graph_win_as_it_is(tmp_path: Path) -> None:
    out = _written(
        tmp_path, SOURCE, refactored_copy.Change("Model.call", 17, "graph", True, "tensorflow")
    )
    assert out == SOURCE


def test_refactored_copy_refuses_a_change_it_cannot_make(tmp_path: Path) -> None:
    with pytest.raises(LookupError, match="gone"):
        _written(tmp_path, SOURCE, refactored_copy.Change("gone", 3, "graph", False, "tensorflow"))
    assert (tmp_path / "m.py").read_text(encoding="utf-8") == SOURCE


def test_parse_entry() -> None:
    assert parse_entry("python main.py --steps 5") == ["main.py", "--steps", "5"]
    assert parse_entry("python3.11 -m pkg.run") == ["-m", "pkg.run"]
    assert parse_entry("train.py") == ["train.py"]
    for bad in ("python", "bash run.sh", "python -c 'x'", "python -m", "'unclosed"):
        with pytest.raises(EntryError):
            parse_entry(bad)


def test_instrumented_source_records_real_calls_only(tmp_path: Path) -> None:
    source = textwrap.dedent(
        """
        class Box:
            def scale(self, x, k=2):
                return x * k

            @staticmethod
            def twice(x):
                return 2 * x

        def outer(x):
            def inner(y):
                return y + 1
            return inner(x)

        RESULTS = [Box().scale([1, 2]), Box.twice(3), outer(4), outer(5)]
        """
    )
    targets = [
        instrument.Target("m.py::Box.scale", "m.py", "Box.scale", 3),
        instrument.Target("m.py::Box.twice", "m.py", "Box.twice", 7),
        instrument.Target("m.py::outer.inner", "m.py", "outer.inner", 11),
    ]
    eager = [True]
    registry = instrument.CaptureRegistry(
        2,
        executing_eagerly=lambda: eager[0],
        is_symbolic=lambda v: isinstance(v, float),
        is_ndarray=lambda v: isinstance(v, np.ndarray),
        describe=repr,
    )
    registry.install()
    namespace: dict[str, Any] = {}
    exec(instrument.instrument_source(source, "m.py", targets), namespace)
    assert namespace["RESULTS"] == [[1, 2, 1, 2], 6, 5, 6]
    scale = registry.captured["m.py::Box.scale"]
    assert scale.calls == 1 and scale.sets[0].is_method
    assert scale.sets[0].args[1] == [1, 2]
    assert not registry.captured["m.py::Box.twice"].sets[0].is_method
    inner = registry.captured["m.py::outer.inner"]
    assert inner.calls == 2 and [s.args for s in inner.sets] == [(4,), (5,)]
    registry.captured.clear()
    namespace["outer"](1.5)
    assert registry.captured["m.py::outer.inner"].symbolic_calls == 1
    assert instrument.instrumented_keys(source, targets) == {t.key for t in targets}


def _eager_registry(max_sets: int) -> instrument.CaptureRegistry:
    """A registry for plain Python calls: everything eager, nothing symbolic or NumPy."""
    return instrument.CaptureRegistry(
        max_sets,
        executing_eagerly=lambda: True,
        is_symbolic=lambda v: False,
        is_ndarray=lambda v: False,
        describe=repr,
    )


def test_the_capture_records_which_instrumented_callers_were_running() -> None:
    source = textwrap.dedent(
        """
        def loss(x):
            return x * 2

        def step(x):
            return loss(x) + loss(x + 1)

        def epoch(xs):
            return [step(x) for x in xs]

        RESULTS = [epoch([1, 2]), loss(3)]
        """
    )
    targets = [
        instrument.Target("m.py::loss", "m.py", "loss", 2),
        instrument.Target("m.py::step", "m.py", "step", 5),
        instrument.Target("m.py::epoch", "m.py", "epoch", 8),
    ]
    registry = _eager_registry(2)
    registry.install()
    namespace: dict[str, Any] = {}
    exec(instrument.instrument_source(source, "m.py", targets), namespace)
    assert namespace["RESULTS"] == [[6, 10], 6]
    loss = registry.captured["m.py::loss"]
    assert loss.calls == 5
    assert dict(loss.within) == {frozenset({"m.py::step", "m.py::epoch"}): 4}
    assert dict(registry.captured["m.py::step"].within) == {frozenset({"m.py::epoch"}): 2}
    assert not registry.captured["m.py::epoch"].within
    assert registry.running == []  # balanced, also after the calls return


def test_the_capture_wrappers_are_removed_after_the_run(tmp_path: Path) -> None:
    (tmp_path / "helpers_for_uninstall.py").write_text(
        "class K:\n    @staticmethod\n    def s(x):\n        return x\n\n    def m(self, x):\n"
        "        return x\n\n\ndef f(x):\n    return x + 1\n"
    )
    targets = [
        instrument.Target("h::f", "helpers_for_uninstall.py", "f", 9),
        instrument.Target("h::K.s", "helpers_for_uninstall.py", "K.s", 3),
        instrument.Target("h::K.m", "helpers_for_uninstall.py", "K.m", 6),
    ]
    registry = _eager_registry(1)
    registry.install()
    finder = instrument.InstrumentingFinder(tmp_path, targets)
    import importlib
    import sys

    sys.meta_path.insert(0, finder)
    sys.path.insert(0, str(tmp_path))
    try:
        module = importlib.import_module("helpers_for_uninstall")
        assert module.f(1) == 2 and module.K.s(3) == 3 and module.K().m(4) == 4
        assert hasattr(module.f, "__hybridize_target__")
        assert registry.captured["h::K.m"].calls == 1
        assert registry.uninstall(tmp_path) == 3
        assert not hasattr(module.f, "__hybridize_target__")
        assert not hasattr(module.K.s, "__hybridize_target__")
        assert not hasattr(module.K.m, "__hybridize_target__")
        assert module.f(1) == 2 and module.K().m(4) == 4
    finally:
        sys.meta_path.remove(finder)
        sys.path.remove(str(tmp_path))
        sys.modules.pop("helpers_for_uninstall", None)


class _Model:
    def __init__(self, units: int) -> None:
        self.units = units


class _SubModel(_Model):
    pass


class _Plain:
    def __init__(self, scale: float = 1.0) -> None:
        self.scale = scale


def test_find_instance_prefers_an_object_the_program_made() -> None:
    made = _SubModel(7)
    assert inputs.find_instance(_Model, [1.5, "x", made]) is made
    # Without one, a constructor that needs no argument is called...
    fresh = inputs.find_instance(_Plain, [made])
    assert isinstance(fresh, _Plain) and fresh.scale == 1.0
    # ...and one that needs arguments is never guessed at.
    with pytest.raises(LookupError, match=r"_Model\(\) needs arguments"):
        inputs.find_instance(_Model, [1.5, _Plain()])


def test_resolve_member_returns_the_owner_of_a_method(tmp_path: Path) -> None:
    (tmp_path / "resolve_member_pkg").mkdir()
    (tmp_path / "resolve_member_pkg" / "__init__.py").write_text("")
    (tmp_path / "resolve_member_pkg" / "shapes_mod.py").write_text(
        "class Box:\n"
        "    def area(self, x):\n        return x\n"
        "    @staticmethod\n    def unit(x):\n        return x\n"
        "def free(x):\n    return x\n"
    )
    owner, method, is_method = inputs.resolve_member(
        tmp_path, "resolve_member_pkg/shapes_mod.py", "Box.area"
    )
    assert owner.__name__ == "Box" and method.__name__ == "area" and is_method
    owner, static, is_method = inputs.resolve_member(
        tmp_path, "resolve_member_pkg/shapes_mod.py", "Box.unit"
    )
    assert owner.__name__ == "Box" and static.__name__ == "unit" and not is_method
    owner, free, is_method = inputs.resolve_member(
        tmp_path, "resolve_member_pkg/shapes_mod.py", "free"
    )
    assert owner is None and free.__name__ == "free" and not is_method


def _whole(original: list[float], refactored: list[float], **extra: Any) -> dict[str, Any]:
    speedup = sorted(original)[len(original) // 2] / sorted(refactored)[len(refactored) // 2]
    return {
        "original": {"run_seconds": original},
        "refactored": {"run_seconds": refactored},
        "speedup": speedup,
        "output_match": True,
        "original_output_stable": True,
        **extra,
    }


def test_a_clearly_slower_or_different_program_withdraws_its_changes() -> None:
    assert bench._withdrawal_reason(_whole([2.0, 2.1, 2.2], [1.0, 1.1, 1.0])) is None
    # Slower, but the runs overlap: noise, not a verdict.
    assert bench._withdrawal_reason(_whole([2.0, 2.1, 2.6], [2.5, 2.3, 2.4])) is None
    slower = bench._withdrawal_reason(_whole([1.0, 1.1, 1.0], [9.0, 9.5, 9.2]))
    assert slower is not None and "slower" in slower
    differs = bench._withdrawal_reason(
        _whole([2.0, 2.0, 2.0], [1.0, 1.0, 1.0], output_match=False, detail="digest 0.5 != 0.6")
    )
    assert differs is not None and "digest 0.5 != 0.6" in differs
    # An original that prints other numbers on every run says nothing about the changes.
    unstable = _whole([2.0], [1.0], output_match=False, original_output_stable=False)
    assert bench._withdrawal_reason(unstable) is None


def test_withdrawn_changes_are_kept_as_is_and_left_out_of_the_summary() -> None:
    applied = {
        "status": "measured",
        "is_hybrid": False,
        "modes": {},
        "decision": decisions.Decision(
            "eager", "graph", True, "add_tf_function", 9.0, ["graph: 9x"], []
        ).as_dict(),
    }
    kept = {
        "status": "measured",
        "is_hybrid": False,
        "modes": {},
        "decision": decisions.Decision("eager", "eager", False, None, 1.0, ["slower"]).as_dict(),
    }
    bench._withdraw([applied, kept], "the refactored program ran slower (0.11x)")
    assert applied["decision"]["applied"] is False
    assert applied["decision"]["mode"] == "eager" and applied["decision"]["change"] is None
    assert applied["decision"]["reasons"][0].startswith("withdrawn: the refactored program")
    assert "whole-program-withdrawn" in applied["decision"]["flags"]
    assert kept["decision"]["reasons"] == ["slower"]
    projects = [
        {"whole_program": {**_whole([1.0], [9.0]), "changes_withdrawn": "slower"}},
        {"whole_program": _whole([2.0], [1.0])},
    ]
    summary = report.summarize([applied, kept], projects, 1.0)
    assert summary["changes_applied"] == 0
    assert summary["whole_programs_withdrawn"] == 1
    assert summary["whole_programs_compared"] == 1
    assert summary["whole_program_speedup"] == pytest.approx(2.0)


def test_whole_program_runtime_follows_the_frameworks_and_the_measured_backend() -> None:
    verdicts = [{"key": "a", "framework": "torch"}, {"key": "b", "framework": "tensorflow"}]
    measured = {"a": {"modes": {"graph": {"label": "torch.compile (inductor)"}}}, "b": {}}
    runtime = bench._runtime(verdicts, measured)
    assert runtime.frameworks == ("tensorflow", "torch")
    assert runtime.environment() == {"HYBRIDIZE_FRAMEWORKS": "tensorflow,torch"}
    fell_back = {"a": {"modes": {"graph": {"label": "torch.compile (aot_eager)"}}}, "b": {}}
    runtime = bench._runtime(verdicts[:1], fell_back)
    assert runtime.environment() == {
        "HYBRIDIZE_FRAMEWORKS": "torch",
        "HYBRIDIZE_TORCH_BACKEND": "aot_eager",
    }


def test_torch_assumptions_only_for_torch_projects() -> None:
    options = bench.BenchOptions(entry="python main.py")
    tf_only = bench.assumptions(options, ("tensorflow",))
    assert not any("torch.compile" in a for a in tf_only)
    assert any("`import tensorflow`" in a for a in tf_only)
    both = bench.assumptions(options, ("tensorflow", "torch"))
    assert any("torch.compile" in a for a in both)
    assert any("`import tensorflow` and `import torch`" in a for a in both)


def test_the_capture_wrapper_keeps_what_the_program_reads_from_a_compiled_function() -> None:
    # A tf.function's `input_signature` read by the program (corpus input_signature_model):
    # the recording run failed with AttributeError on the wrapper.
    source = textwrap.dedent(
        """
        class Compiled:
            input_signature = ("spec",)

            def __init__(self, function):
                self.python_function = function

            def __call__(self, *args):
                return self.python_function(*args)

            def get_concrete_function(self):
                return "concrete"

        @Compiled
        def predict(x):
            return x + 1

        RESULTS = [predict(1), predict.input_signature, predict.get_concrete_function()]
        """
    )
    targets = [instrument.Target("m.py::predict", "m.py", "predict", 15)]
    registry = _eager_registry(2)
    registry.install()
    namespace: dict[str, Any] = {}
    exec(instrument.instrument_source(source, "m.py", targets), namespace)
    assert namespace["RESULTS"] == [2, ("spec",), "concrete"]
    assert registry.captured["m.py::predict"].calls == 1
