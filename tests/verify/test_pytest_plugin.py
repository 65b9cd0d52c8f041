"""The pytest plugin of `refactor --verify` and of the real-code oracle, run on a small package
written here: outcomes, error frames, collection errors, the functions each test ran, the
selection of tests, and the refusal of a copy that does not shadow the package."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from verify_projects import make_project

from hybridize.verify.command_run import PLUGIN_MODULE, install_plugin
from hybridize.verify.rewritten import function_spans

PACKAGE = {
    "pkg/__init__.py": "",
    "pkg/mod.py": """\
        import types


        def decorate(f):
            return f


        @decorate
        def used(x):
            return x + 1


        def broken(x):
            raise ValueError(f"bad {x}")


        def unused():
            return 0


        class Compiled:
            \"\"\"Calls a method the way tf.function does: `__call__` runs a converted copy of
            its code (AutoGraph's, from another file), the original stays `python_function`.\"\"\"

            def __init__(self, function):
                self._function = function

            @property
            def python_function(self):
                return self._function

            def __call__(self, *args):
                method = self._function
                code = method.__func__.__code__.replace(co_filename="<converted>")
                converted = types.FunctionType(code, method.__func__.__globals__)
                return converted(method.__self__, *args)


        class Holder:
            def twice(self, x):
                return x * 2


        compiled = Compiled(Holder().twice)
        """,
    "pkg/mod_test.py": """\
        from pkg import mod


        def test_used():
            assert mod.used(1) == 2


        def test_broken():
            mod.broken(3)


        def test_compiled():
            assert mod.compiled(2) == 4
        """,
    "pkg/import_test.py": "import pkg.missing_module\n\n\ndef test_x():\n    pass\n",
}


def _run_plugin(root: Path, env: dict[str, str]) -> tuple[int, list[dict[str, object]]]:
    outcomes = root.parent / "outcomes.jsonl"
    outcomes.unlink(missing_ok=True)
    full = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(root), str(install_plugin(root.parent / "plugin"))]),
        "HYBRIDIZE_VERIFY_OUTCOMES": str(outcomes),
        "HYBRIDIZE_VERIFY_ROOT": str(root),
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",  # only the plugin under test, and fast
        **env,
    }
    process = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
         PLUGIN_MODULE, "--rootdir", str(root), "-o", "addopts=", "--continue-on-collection-errors",
         "-o", "python_files=*_test.py", "pkg"],
        cwd=root, env=full, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    records = (
        [json.loads(line) for line in outcomes.read_text().splitlines()]
        if outcomes.exists()
        else []
    )
    return process.returncode, records


@pytest.fixture
def package(tmp_path: Path) -> Path:
    return make_project(tmp_path, PACKAGE, "copy")


def test_the_plugin_records_outcomes_errors_frames_and_collection_errors(package: Path) -> None:
    status, records = _run_plugin(package, {"HYBRIDIZE_VERIFY_SHADOW": f"pkg={package / 'pkg'}"})
    assert status == 1
    tests = {r["nodeid"]: r for r in records if r["kind"] == "test"}
    assert {n: r["outcome"] for n, r in tests.items()} == {
        "pkg/mod_test.py::test_used": "passed",
        "pkg/mod_test.py::test_broken": "failed",
        "pkg/mod_test.py::test_compiled": "passed",
    }
    broken = tests["pkg/mod_test.py::test_broken"]
    assert broken["error"] == "ValueError: bad 3"
    source = (package / "pkg" / "mod.py").read_text().splitlines()
    lines = {line for path, line in broken["frames"] if path.endswith("pkg/mod.py")}
    assert [source[n - 1].strip() for n in sorted(lines)] == ['raise ValueError(f"bad {x}")']
    assert "exercised" not in broken  # nothing traced without HYBRIDIZE_VERIFY_TRACE
    [collect] = [r for r in records if r["kind"] == "collect_error"]
    assert collect["nodeid"] == "pkg/import_test.py" and "missing_module" in collect["error"]


def test_the_plugin_traces_rewritten_functions_called_directly_or_as_a_compiled_function(
    package: Path,
) -> None:
    mod = package / "pkg" / "mod.py"
    spans = {s.qualname: s for s in function_spans(mod.read_text())}
    targets = [
        {"key": f"pkg/mod.py::{name}", "path": str(mod), "first_line": spans[name].first_line,
         "def_line": spans[name].def_line}
        for name in ("used", "unused", "Holder.twice")
    ]  # fmt: skip
    trace = package.parent / "targets.json"
    trace.write_text(json.dumps(targets))
    _, records = _run_plugin(package, {"HYBRIDIZE_VERIFY_TRACE": str(trace)})
    exercised = {r["nodeid"]: r["exercised"] for r in records if r["kind"] == "test"}
    assert exercised == {
        "pkg/mod_test.py::test_used": ["pkg/mod.py::used"],
        "pkg/mod_test.py::test_broken": [],
        "pkg/mod_test.py::test_compiled": ["pkg/mod.py::Holder.twice"],
    }


def test_the_plugin_refuses_a_copy_that_does_not_shadow_the_package(
    package: Path, tmp_path: Path
) -> None:
    status, records = _run_plugin(
        package, {"HYBRIDIZE_VERIFY_SHADOW": f"pkg={tmp_path / 'elsewhere'}"}
    )
    assert status == 4
    assert [r["kind"] for r in records] == ["shadow_error"]
    assert records[0]["file"].startswith(str(package.resolve()))


def test_the_plugin_runs_only_the_selected_tests_whatever_the_command_collects(
    package: Path,
) -> None:
    selection = package.parent / "selected.txt"
    selection.write_text("pkg/mod_test.py::test_broken\n")
    status, records = _run_plugin(package, {"HYBRIDIZE_VERIFY_SELECT": str(selection)})
    assert status == 1  # the selected test fails (and the collection error remains)
    tests = {r["nodeid"]: r["outcome"] for r in records if r["kind"] == "test"}
    assert tests == {"pkg/mod_test.py::test_broken": "failed"}


EAGER_LEFT_SET = {
    "pkg/__init__.py": "",
    "pkg/a_test.py": """\
        import tensorflow as tf


        def test_sets_eager_and_leaves_it():
            tf.config.run_functions_eagerly(True)
            assert tf.config.functions_run_eagerly()


        def test_still_eager_within_the_file():
            assert tf.config.functions_run_eagerly()
        """,
    "pkg/b_test.py": """\
        import tensorflow as tf


        def test_a_later_file_runs_functions_compiled():
            double = tf.function(lambda x: x * 2)
            double(tf.constant(1.0))
            assert not tf.config.functions_run_eagerly()
            assert double.experimental_get_tracing_count() == 1
        """,
}


@pytest.mark.tensorflow
def test_a_test_file_that_leaves_functions_eager_does_not_make_later_files_eager(
    tmp_path: Path,
) -> None:
    """Measured: `tf.config.run_functions_eagerly(True)` is process-wide; left set by one test
    file, a later file's `tf.function` never traces (count 0), so a rewritten function would be
    judged uncompiled. The plugin undoes it after the file's last test, not before."""
    pytest.importorskip("tensorflow")
    root = make_project(tmp_path, EAGER_LEFT_SET, "copy")
    status, records = _run_plugin(root, {})
    outcomes = {r["nodeid"]: r["outcome"] for r in records if r["kind"] == "test"}
    assert outcomes == {
        "pkg/a_test.py::test_sets_eager_and_leaves_it": "passed",
        "pkg/a_test.py::test_still_eager_within_the_file": "passed",
        "pkg/b_test.py::test_a_later_file_runs_functions_compiled": "passed",
    }
    assert status == 0


TORCH_PACKAGE = {
    "pkg/__init__.py": "",
    "pkg/nets.py": """\
        import torch


        class Density(torch.nn.Module):
            @torch.compile(backend="eager")
            def log_prob(self, z, context=None):
                return (z * 2).sum(1)


        class Pair(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.density = Density()

            @torch.compile(backend="eager")
            def log_prob(self, z):
                return self.density.log_prob(z) + 1


        @torch.compile(backend="eager")
        def shifted(x):
            return x + 1


        def plain(x):
            return x - 1
        """,
    "pkg/nets_test.py": """\
        import torch

        from pkg import nets


        def test_pair():
            nets.Pair().log_prob(torch.ones(3, 2))


        def test_both():
            assert nets.shifted(torch.ones(2)).tolist() == [2.0, 2.0]
            assert nets.plain(torch.ones(2)).tolist() == [0.0, 0.0]
        """,
}


@pytest.mark.torch
def test_the_plugin_traces_a_torch_compiled_function_whose_compilation_fails(
    tmp_path: Path,
) -> None:
    """A compiled function that runs runs Dynamo's copy of its code (same file and first
    line); one whose compilation fails runs no frame of its own: the profile sees only the call
    of `torch.compile`'s wrapper, which holds it. Measured on torch 2.13: a compiled method
    calling a compiled method with a default parameter fails building the graph's guards
    ("object of type 'NoneType' has no len()", HY423), before either body runs (normflows with
    HY423 off: `TwoIndependent.log_prob` was missing from what its failing test ran, so the
    bisection searched all 83 changes, not the 3 the test ran). The callee, inlined in the
    caller's graph, runs no frame nor wrapper of its own: it stays unseen."""
    pytest.importorskip("torch")
    root = make_project(tmp_path, TORCH_PACKAGE, "copy")
    nets = root / "pkg" / "nets.py"
    spans = {s.qualname: s for s in function_spans(nets.read_text())}
    targets = [
        {"key": f"pkg/nets.py::{name}", "path": str(nets), "first_line": spans[name].first_line,
         "def_line": spans[name].def_line}
        for name in ("Density.log_prob", "Pair.log_prob", "shifted", "plain")
    ]  # fmt: skip
    trace = tmp_path / "targets.json"
    trace.write_text(json.dumps(targets))
    _, records = _run_plugin(root, {"HYBRIDIZE_VERIFY_TRACE": str(trace)})
    tests = {r["nodeid"]: r for r in records if r["kind"] == "test"}
    assert {n: r["outcome"] for n, r in tests.items()} == {
        "pkg/nets_test.py::test_pair": "failed",
        "pkg/nets_test.py::test_both": "passed",
    }
    assert "has no len()" in str(tests["pkg/nets_test.py::test_pair"]["error"])
    assert {n: r["exercised"] for n, r in tests.items()} == {
        "pkg/nets_test.py::test_pair": ["pkg/nets.py::Pair.log_prob"],
        "pkg/nets_test.py::test_both": ["pkg/nets.py::shifted", "pkg/nets.py::plain"],
    }


WORK_PACKAGE = {
    "pkg/__init__.py": "",
    "pkg/mod.py": """\
        def used(x):
            return x + 1


        def step(n):
            return n if n < 2 else step(n - 1) + step(n - 2)
        """,
    "pkg/mod_test.py": """\
        import os
        import time

        from pkg import mod


        def test_work():
            assert mod.used(1) == 2
            start = time.perf_counter()
            mod.step(27)
            with open(os.environ["WORK_SECONDS"], "a") as out:
                out.write(f"{time.perf_counter() - start}\\n")
        """,
}


def _traced_and_plain_seconds(
    root: Path, targets: list[dict[str, object]], runs: int
) -> tuple[float, float, list[dict[str, object]]]:
    """The test's own measure of its work (`$WORK_SECONDS`), best of `runs` runs traced and
    untraced in turn (side by side: the same load), and the traced runs' records."""
    trace = root.parent / "targets.json"
    trace.write_text(json.dumps(targets))
    best = {True: float("inf"), False: float("inf")}
    records: list[dict[str, object]] = []
    for _ in range(runs):
        for traced in (False, True):
            seconds = root.parent / "seconds.txt"
            seconds.unlink(missing_ok=True)
            env = {"WORK_SECONDS": str(seconds)}
            if traced:
                env["HYBRIDIZE_VERIFY_TRACE"] = str(trace)
            _, run_records = _run_plugin(root, env)
            if traced:
                records = run_records
            best[traced] = min(best[traced], float(seconds.read_text().split()[0]))
    return best[True], best[False], records


@pytest.mark.skipif(sys.version_info < (3, 12), reason="3.10/3.11 trace with a profile hook")
def test_tracing_costs_no_more_than_the_rewritten_functions_own_calls(tmp_path: Path) -> None:
    """On 3.12+ the plugin records function starts with `sys.monitoring`, and every code object
    that is no rewritten function stops reporting after its first start: a test's other Python
    calls (Dynamo's compiles: neuraloperator's traced re-runs took about 100 s a test under
    the profile hook, 5-10 s untraced) run at full speed. Measured here on 630,000 recursive
    calls of a function that is not a target: about 1.0x traced; a profile hook on every call,
    as before, 3-6x."""
    root = make_project(tmp_path, WORK_PACKAGE, "copy")
    mod = root / "pkg" / "mod.py"
    spans = {s.qualname: s for s in function_spans(mod.read_text())}
    targets: list[dict[str, object]] = [
        {"key": "pkg/mod.py::used", "path": str(mod), "first_line": spans["used"].first_line,
         "def_line": spans["used"].def_line}
    ]  # fmt: skip
    traced, plain, records = _traced_and_plain_seconds(root, targets, runs=3)
    assert [r["exercised"] for r in records if r["kind"] == "test"] == [["pkg/mod.py::used"]]
    assert traced / plain < 1.8, (traced, plain)


TORCH_WORK_PACKAGE = {
    "pkg/__init__.py": "",
    "pkg/nets.py": """\
        import torch


        def used(x):
            return x + 1


        def body(x, w):
            for _ in range(40):
                x = torch.tanh(x @ w) + x.sin() * 0.5 - x.mean(dim=-1, keepdim=True)
                x = torch.nn.functional.layer_norm(x, x.shape[-1:])
            return x.sum()
        """,
    "pkg/nets_test.py": """\
        import os
        import time

        import torch

        from pkg import nets


        def test_compile():
            assert nets.used(1) == 2
            compiled = torch.compile(nets.body, backend="eager")
            start = time.perf_counter()
            compiled(torch.ones(4, 8), torch.ones(8, 8))
            with open(os.environ["WORK_SECONDS"], "a") as out:
                out.write(f"{time.perf_counter() - start}\\n")
        """,
}


@pytest.mark.torch
@pytest.mark.slow
def test_tracing_does_not_slow_a_dynamo_compile(tmp_path: Path) -> None:
    """A test's `torch.compile` compiles as fast traced as untraced: on 3.12+ Dynamo's own
    frames stop reporting after their first start (above); on 3.10/3.11 the profile hook is
    paused while Dynamo converts a frame (`_FRAME_CONVERSION`), which runs none of the
    user's functions. Measured here (torch 2.13, 3.11): the compile of a 40-step function
    about 1.0x traced; with the profile hook left on, as before, 1.4-2x."""
    pytest.importorskip("torch")
    root = make_project(tmp_path, TORCH_WORK_PACKAGE, "copy")
    nets = root / "pkg" / "nets.py"
    spans = {s.qualname: s for s in function_spans(nets.read_text())}
    targets: list[dict[str, object]] = [
        {"key": f"pkg/nets.py::{name}", "path": str(nets), "first_line": spans[name].first_line,
         "def_line": spans[name].def_line}
        for name in ("used", "body")
    ]  # fmt: skip
    traced, plain, records = _traced_and_plain_seconds(root, targets, runs=2)
    assert [r["exercised"] for r in records if r["kind"] == "test"] == [
        ["pkg/nets.py::used", "pkg/nets.py::body"]
    ]
    assert traced / plain < 1.6, (traced, plain)
