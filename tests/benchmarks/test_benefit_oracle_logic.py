"""The benefit oracle's driver: which changes it probes, how the test command loads the
plugin, and the rendering of a library's verdicts (the plugin and the verdicts themselves are
tested in tests/verify/test_benefit_oracle_plugin.py)."""

from __future__ import annotations

import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from benefit_oracle import default_tests_limit, render_library, targets_of  # noqa: E402
from oracle_libraries import LIBRARIES  # noqa: E402
from realcode_oracle import Run  # noqa: E402

from hybridize.verify.benefit import BENEFIT_PLUGIN_MODULE  # noqa: E402
from hybridize.verify.rewritten import RewrittenFunction  # noqa: E402


def test_targets_are_the_changes_that_add_a_decorator() -> None:
    added = RewrittenFunction("pkg/__init__.py", "Layer.call", 5, 4, 9, "added")
    edited = RewrittenFunction("pkg/ops.py", "step", 3, 2, 6, "edited")
    removed = RewrittenFunction("pkg/ops.py", "helper", 9, 9, 12, "removed")
    assert targets_of([added, edited, removed]) == [
        {"key": "pkg/__init__.py::Layer.call", "module": "pkg", "qualname": "Layer.call"},
        {"key": "pkg/ops.py::step", "module": "pkg.ops", "qualname": "step"},
    ]


def test_the_benefit_oracle_runs_a_sample_of_gpytorch_s_tests_and_the_safety_oracle_all() -> None:
    """gpytorch's 133 test files, each call of a rewritten function timed compiled and eager
    and compiled again by Inductor per test process, cannot end in a session: the benefit
    oracle runs a sample by default, the safety oracle every file; elsewhere the two agree."""
    gpytorch = LIBRARIES["gpytorch"]
    assert gpytorch.tests_limit is None
    assert default_tests_limit(gpytorch) == 20
    for name in ("sonnet", "recommenders", "tf-models"):
        assert default_tests_limit(LIBRARIES[name]) == LIBRARIES[name].tests_limit


def test_the_test_command_loads_the_benefit_plugin_before_the_targets(tmp_path: Path) -> None:
    run = Run("benefit", Path("python"), tmp_path, [], {}, ("pkg",), 60, 120, tmp_path)
    assert BENEFIT_PLUGIN_MODULE not in run.command(["a_test.py"])
    run.plugins = (BENEFIT_PLUGIN_MODULE,)
    command = run.command(["a_test.py"])
    assert command[-3:] == ["-p", BENEFIT_PLUGIN_MODULE, "a_test.py"]


def test_render_marks_default_changes_and_names_causes() -> None:
    function = {
        "key": "pkg/ops.py::step",
        "default": True,
        "speedup": 0.5,
        "interval": [0.4, 0.6, 0.98],
        "wall_speedup": 0.45,
        "speed": "slower",
        "calls": 40,
        "in_graph_calls": 2,
        "signatures": 3,
        "traces": 3,
        "cause": "too little work",
    }
    summary = {
        "default_changes": 1,
        "default_measured": 1,
        "default_paying": 0,
        "default_no_difference": 0,
        "default_retracing": 0,
        "default_rate": 0.0,
        "default_rate_decided": 0.0,
        "paying": 0,
        "paying_in_default": 0,
        "recall": None,
    }
    result = {
        "requirement": "pkg==1.0",
        "probed": 1,
        "tests": 10,
        "passing": 9,
        "test_files": ["pkg/ops_test.py"],
        "summary": summary,
        "functions": [function],
    }
    text = render_library(result)
    assert "0 of 1 measured (0%; target >= 85%)" in text
    assert "0 of 0 (-; target >= 70%)" in text
    assert "0 of no measurable difference, 0 retracing" in text
    assert "D  0.50x [0.40-0.60]- w0.45x calls   40 (+2 in graph)" in text
    assert "[too little work]" in text
