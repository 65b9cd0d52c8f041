"""The benefit oracle's driver: which changes it probes, how the test command loads the
plugin, and the rendering of a library's verdicts (the plugin and the verdicts themselves are
tested in tests/verify/test_benefit_oracle_plugin.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import benefit_oracle  # noqa: E402
from benefit_oracle import (  # noqa: E402
    benefit_test_files,
    default_tests_limit,
    judge_recorded,
    low_benefit_graphs_apart,
    module_imports,
    render_library,
    targets_of,
    traced_function,
)
from oracle_libraries import LIBRARIES  # noqa: E402
from realcode_oracle import Run  # noqa: E402

from hybridize.verify.benefit import BENEFIT_PLUGIN_MODULE, Change, judge  # noqa: E402
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


def _tree(root: Path, files: dict[str, str]) -> list[str]:
    for relpath, text in files.items():
        (root / relpath).parent.mkdir(parents=True, exist_ok=True)
        (root / relpath).write_text(text)
    return sorted(f for f in files if f.endswith("_test.py"))


def test_the_sample_holds_the_tests_of_every_default_change(tmp_path: Path) -> None:
    """tf-models' 10-file sample, chosen among the tests of all 300 rewritten modules, ran
    none of its 20 default changes: a default change's module brings its tests first (named
    after it; else one importing it, preferring one naming the changed class), even past the
    limit, then the sample fills the rest."""
    tests = _tree(
        tmp_path,
        {
            "pkg/layers.py": "class Dense: ...\n",
            "pkg/layers_test.py": "from pkg import layers\n",
            "pkg/ops/nms.py": "def suppress(): ...\n",
            # no `nms_test.py`: two tests import the module, one calls the changed function
            "pkg/ops/boxes_test.py": "from pkg.ops import nms\n",
            "pkg/models/detector_test.py": "from ..ops import nms\nnms.suppress()\n",
            **{f"pkg/low/m{i}_test.py": "" for i in range(6)},
            **{f"pkg/other/o{i}_test.py": "" for i in range(6)},
        },
    )
    default = {"pkg/layers.py::Dense.call", "pkg/ops/nms.py::suppress"}
    rewritten = {"pkg/layers.py", "pkg/ops/nms.py", *(f"pkg/low/m{i}.py" for i in range(6))}
    picked = benefit_test_files(tmp_path, tests, default, rewritten, 4)
    assert len(picked) == 4
    assert {"pkg/layers_test.py", "pkg/models/detector_test.py"} <= set(picked)
    assert "pkg/ops/boxes_test.py" not in picked  # imports it, names nothing changed
    # the rest is the safety oracle's sample: tests of the other rewritten modules first
    assert set(picked) - {"pkg/layers_test.py", "pkg/models/detector_test.py"} <= {
        f"pkg/low/m{i}_test.py" for i in range(6)
    }
    assert picked == benefit_test_files(tmp_path, list(reversed(tests)), default, rewritten, 4)
    # the default changes' tests even past the limit; every file without one
    assert benefit_test_files(tmp_path, tests, default, rewritten, 1) == [
        "pkg/layers_test.py",
        "pkg/models/detector_test.py",
    ]
    assert benefit_test_files(tmp_path, tests, default, rewritten, None) == tests


def test_the_sample_adds_a_test_naming_a_change_its_module_s_tests_do_not_call(
    tmp_path: Path,
) -> None:
    """tf-models' `nn_blocks_test.py` (named after the module) builds none of its
    `DepthwiseSeparableConvBlock`s: a test file naming the changed class is added, the first
    in the sample's order; a name the chosen files already name adds nothing."""
    tests = _tree(
        tmp_path,
        {
            "pkg/blocks.py": "class Sep: ...\nclass Res: ...\n",
            "pkg/blocks_test.py": "from pkg import blocks\nblocks.Res()\n",
            "pkg/backbones/net_test.py": "from pkg.blocks import Sep\nSep()\n",
            "pkg/backbones/other_test.py": "from pkg import blocks\nblocks.Res()\n",
            **{f"pkg/other/o{i}_test.py": "" for i in range(6)},
        },
    )
    default = {"pkg/blocks.py::Sep.call", "pkg/blocks.py::Res.call"}
    picked = benefit_test_files(tmp_path, tests, default, {"pkg/blocks.py"}, 1)
    assert picked == ["pkg/backbones/net_test.py", "pkg/blocks_test.py"]


def test_module_imports_resolve_relative_imports(tmp_path: Path) -> None:
    (tmp_path / "t.py").write_text(
        "import a.b\nfrom c import d\nfrom . import e\nfrom ..f import g\ndef h():\n    import i\n"
    )
    found = module_imports(tmp_path / "t.py", "pkg/sub/t.py")
    assert {"a.b", "c", "c.d", "pkg.sub", "pkg.sub.e", "pkg.f", "pkg.f.g", "i"} <= found
    (tmp_path / "bad.py").write_text("def (:\n")
    assert module_imports(tmp_path / "bad.py", "bad.py") == set()


def test_a_low_benefit_change_s_graph_is_not_the_library_s() -> None:
    """tensorflow-graphics' `quaternion.multiply` (default) was seen in the graphs of
    `dual_quaternion.multiply` and `from_rotation_translation`, which only the low-benefit copy
    compiles: the library, and the default copy, run them eagerly, so those calls are inside
    a graph (counted) but not one the library built; a default change's graph, or the
    library's own (`predict_function`), still is."""
    copy = "/out/lib/rewritten/pkg"
    targets = [
        {"key": "pkg/quaternion.py::multiply", "module": "pkg.quaternion", "qualname": "multiply"},
        {"key": "pkg/dual.py::multiply", "module": "pkg.dual", "qualname": "multiply"},
        {"key": "pkg/dual.py::Dual.rotate", "module": "pkg.dual", "qualname": "Dual.rotate"},
        {"key": "pkg/harmonics.py::pmm", "module": "pkg.harmonics", "qualname": "pmm"},
        {"key": "pkg/helpers.py::factorial", "module": "pkg.helpers", "qualname": "factorial"},
    ]
    default = {"pkg/quaternion.py::multiply", "pkg/harmonics.py::pmm"}

    def call(key: str, graph: str, file: str) -> dict[str, object]:
        files = [f"{copy}/{file}", "/venv/site-packages/tensorflow/python/eager/api.py"]
        return {"kind": "call", "key": key, "in_graph": True, "graph": graph, "graph_files": files}

    records = [
        call("pkg/quaternion.py::multiply", "multiply", "dual.py"),
        call("pkg/quaternion.py::multiply", "rotate", "dual.py"),
        # the same name in another file: not that change's graph
        call("pkg/quaternion.py::multiply", "multiply", "other.py"),
        call("pkg/helpers.py::factorial", "pmm", "harmonics.py"),
        call("pkg/helpers.py::factorial", "predict_function", "harmonics.py"),
    ]
    kept = low_benefit_graphs_apart(records, targets, default)
    assert [r.get("rewrite_graph") for r in kept] == ["multiply", "rotate", None, None, None]
    assert [r["graph"] for r in kept] == [None, None, "multiply", "pmm", "predict_function"]
    assert records[0]["graph"] == "multiply"  # the plugin's records are left as they were
    functions = {
        f.key: f for f in judge([Change(t["key"], t["key"] in default) for t in targets], kept)
    }
    multiply = functions["pkg/quaternion.py::multiply"]
    assert (multiply.in_graph_calls, multiply.library_graph_calls) == (3, 1)
    assert functions["pkg/helpers.py::factorial"].library_graphs == ["pmm", "predict_function"]


def test_the_function_a_graph_was_traced_from() -> None:
    """e3nn's calls were recorded in Dynamo's compilations of other low-benefit changes, one
    resumed after a graph break (torch 2.13's `resume_execution` names the frame)."""
    assert traced_function("multiply") == "multiply"
    assert traced_function("dynamo:quaternion_to_matrix") == "quaternion_to_matrix"
    resumed = "dynamo:torch_dynamo_resume_in_matrix_to_angles_at_412"
    assert traced_function(resumed) == "matrix_to_angles"
    twice = "torch_dynamo_resume_in_torch_dynamo_resume_in_f_at_3_at_7"
    assert traced_function(twice) == "f"
    assert traced_function("while_body_1545") == "while_body_1545"
    targets = [
        {"key": "pkg/rot.py::matrix_to_angles", "module": "pkg.rot", "qualname": "matrix_to_angles"}
    ]
    record = {"key": "pkg/rot.py::xyz", "in_graph": True, "graph": resumed}
    kept = low_benefit_graphs_apart([{**record, "graph_files": ["/c/pkg/rot.py"]}], targets, ())
    assert kept[0]["rewrite_graph"] == resumed


def _timed_call(key: str, ratio: float, test: str = "t.py::test") -> dict[str, Any]:
    """A call as the plugin records it, timed in 7 rounds, each `ratio` times faster."""
    eager, compiled = [1e-3 * ratio] * 7, [1e-3] * 7
    return {
        "kind": "call",
        "test": test,
        "key": key,
        "in_graph": False,
        "owner": 0,
        "signature": "[]",
        "traces": 1,
        "eager_seconds": eager[0],
        "compiled_seconds": compiled[0],
        "eager_samples": eager,
        "compiled_samples": compiled,
        "eager_cpu_samples": eager,
        "compiled_cpu_samples": compiled,
    }


def _recorded(
    work: Path, targets_file: str, records: str, keys: list[str], calls: list[Any]
) -> None:
    targets = [{"key": k, "module": "pkg.ops", "qualname": k.split("::")[1]} for k in keys]
    (work / targets_file).write_text(json.dumps(targets))
    (work / records).mkdir(parents=True)
    (work / records / "benefit-1.jsonl").write_text("".join(json.dumps(c) + "\n" for c in calls))


def test_the_default_set_is_judged_on_the_copy_with_only_the_default_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On the low-benefit copy a failing low-benefit change stopped the tests before they
    called the default one (tf-pwa's `SU2M.Boost_z` before `cal_angle_from_particle`): the
    default figure comes from the default copy's run, the paying changes from the other's."""
    fast, broken = "pkg/ops.py::fast", "pkg/ops.py::broken"
    default = [RewrittenFunction("pkg/ops.py", "fast", 3, 2, 4, "added")]
    monkeypatch.setattr(benefit_oracle, "rewrites_from_diff", lambda diff, root: default)
    (tmp_path / "refactor-default.diff").write_text("")
    _recorded(
        tmp_path,
        "benefit-targets.json",
        "benefit-records",
        [fast, broken],
        [_timed_call(broken, 2.0)],
    )
    library = LIBRARIES["sonnet"]
    before = judge_recorded(library, tmp_path)["summary"]  # a work folder of one run only
    assert (before["default_changes"], before["default_measured"]) == (1, 0)
    assert (before["paying"], before["paying_in_default"]) == (1, 0)
    _recorded(
        tmp_path,
        "benefit-targets-default.json",
        "benefit-records-default",
        [fast],
        [_timed_call(fast, 3.0)],
    )
    result = judge_recorded(library, tmp_path)
    summary = result["summary"]
    assert (summary["default_changes"], summary["default_measured"]) == (1, 1)
    assert (summary["default_paying"], summary["default_rate"]) == (1, 1.0)
    # the paying changes still from the low-benefit copy, where `fast` was never called
    assert (summary["paying"], summary["paying_in_default"]) == (1, 0)
    assert result["copies"] == ["default", "low-benefit"]
    assert [f["key"] for f in result["default_functions"]] == [fast]
    text = render_library(result)
    assert "(with only the default changes applied): 1 of 1 measured (100%" in text
    assert "default copy (only the default changes applied):" in text
    assert "low-benefit copy (every safe change applied):" in text
    assert "paying changes (all safe ones) in the default set: 0 of 1" in text
    # the default copy run alone: no paying figure, said so
    (tmp_path / "benefit-targets.json").unlink()
    alone = judge_recorded(library, tmp_path)
    assert alone["copies"] == ["default"] and alone["summary"]["default_paying"] == 1
    assert "not measured (the low-benefit copy not run)" in render_library(alone)


def test_copies_are_parsed_and_checked() -> None:
    from benefit_oracle import parse_args

    assert parse_args(["--libraries", "sonnet"]).copies == ["default", "low-benefit"]
    assert parse_args(["--libraries", "sonnet", "--copies", "default"]).copies == ["default"]
    with pytest.raises(SystemExit):
        parse_args(["--libraries", "sonnet", "--copies", "defaults"])
