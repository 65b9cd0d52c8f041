"""The real-code oracle's own logic: reading the refactoring's diff, comparing outcomes, naming
the functions a failure comes from, and the pytest plugin that records all of it. None of it
needs TensorFlow: the diff comes from this repo's hybridize on a corpus program, and the plugin
runs on a small package written here."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from oracle_outcomes import (  # noqa: E402
    Outcome,
    blamed_functions,
    borrow_blame,
    error_changed,
    expects_an_error,
    newly_failing,
    read_outcomes,
    unsafe_functions,
)
from oracle_pytest_plugin import error_line  # noqa: E402
from oracle_rewrites import (  # noqa: E402
    RewrittenFunction,
    function_spans,
    parse_unified_diff,
    rewrites_from_diff,
)
from realcode_oracle import TEST_GLOBS, is_test_file, select_test_files  # noqa: E402

from hybridize.refactor.edits import unified_diff  # noqa: E402

CORPUS = Path(__file__).resolve().parents[2] / "corpus" / "tensorflow"

# --- the diff ----------------------------------------------------------------------------------


def test_diff_lines_are_numbered_in_the_new_file() -> None:
    old = "a\nb\nc\nd\ne\nf\ng\nh\n"
    new = "a\nX\nb\nc\nd\ne\nf\nh\n"  # X added before b, g removed before h
    changes = parse_unified_diff(unified_diff("m.py", old, new))["m.py"]
    lines = new.splitlines()
    assert {lines[n - 1] for n in changes.added} == {"X"}
    assert changes.removed_text == ["g"]
    # the removal point is the new file's line that took the removed line's place
    assert [lines[n - 1] for n in changes.removed_at] == ["h"]


def test_lines_that_look_like_headers_inside_a_hunk_are_changes() -> None:
    old = "x = 1\n-- y\nz = 2\n"
    new = "x = 1\n++ w\nz = 2\n"
    diff = unified_diff("m.py", old, new)
    assert "\n--- y\n" in diff and "\n+++ w\n" in diff  # the lines that could mislead a parser
    changes = parse_unified_diff(diff)
    assert list(changes) == ["m.py"]
    assert changes["m.py"].removed_text == ["-- y"]
    assert changes["m.py"].added_text == {2: "++ w"}


def test_several_files_and_a_missing_final_newline() -> None:
    diff = unified_diff("a.py", "p\nq", "p\nr") + unified_diff("pkg/b.py", "1\n", "0\n1\n")
    assert "No newline at end of file" in diff
    changes = parse_unified_diff(diff)
    assert set(changes) == {"a.py", "pkg/b.py"}
    assert changes["a.py"].added == {2}
    assert changes["pkg/b.py"].added == {1}
    assert not changes["pkg/b.py"].removed_at


def test_function_spans_name_methods_and_nested_functions() -> None:
    source = textwrap.dedent(
        """\
        class A:
            @staticmethod
            @other
            def f(x):
                def inner():
                    return 1
                return inner

        def g():
            pass
        """
    )
    spans = {s.qualname: s for s in function_spans(source)}
    assert set(spans) == {"A.f", "A.f.inner", "g"}
    assert (spans["A.f"].first_line, spans["A.f"].def_line, spans["A.f"].end_line) == (2, 4, 7)
    assert spans["A.f.inner"].first_line == spans["A.f.inner"].def_line == 5


def test_a_removal_above_the_decorators_is_not_a_rewrite() -> None:
    old = "import os\nimport tensorflow as tf\n\n\n@tf.function\ndef f(x):\n    return x\n"
    new = "import tensorflow as tf\n\n\n@tf.function\ndef f(x):\n    return x\n"
    changes = parse_unified_diff(unified_diff("m.py", old, new))["m.py"]
    from oracle_rewrites import rewritten_functions

    assert rewritten_functions("m.py", new, changes) == []


@pytest.mark.parametrize("program", ["tf_function_misuse", "gan"])
def test_the_diff_names_exactly_the_functions_the_report_transforms(
    program: str, tmp_path: Path
) -> None:
    """hybridize's own diff, read by the oracle, names the functions whose verdict plans a
    transformation in the JSON report, each located in the rewritten file at its `def`."""
    project = tmp_path / program
    shutil.copytree(CORPUS / program, project)
    # As the oracle does: every safe change, paying or not (the report's refactored_files
    # follow the configuration, the refactor command its flag).
    (project / "pyproject.toml").write_text("[tool.hybridize]\ninclude-low-benefit = true\n")
    env = {**os.environ, "HYBRIDIZE_CACHE_DIR": str(tmp_path / "cache")}
    run = [sys.executable, "-m", "hybridize"]
    report = json.loads(
        subprocess.run(
            [*run, "analyze", str(project), "--format", "json"],
            env=env, capture_output=True, text=True, check=True,
        ).stdout
    )  # fmt: skip
    diff = subprocess.run(
        [*run, "refactor", str(project), "--apply", "--diff", "--no-config", "--include-low-benefit"],
        env=env, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    planned = {
        f"{f['file']}::{f['qualname']}": f["transformation"]
        for f in report["functions"]
        if f["passes"] and f["transformation"] and f["file"] in report["refactored_files"]
    }
    assert planned, "the corpus program plans no transformation"
    found = rewrites_from_diff(diff, project)
    change_of = {"convert_to_hybrid": "added", "convert_to_eager": "removed"}
    assert {f.key: f.change for f in found} == {
        key: change_of.get(transformation, "edited") for key, transformation in planned.items()
    }
    for function in found:
        lines = (project / function.file).read_text(encoding="utf-8").splitlines()
        name = function.qualname.rsplit(".", 1)[-1]
        assert lines[function.def_line - 1].lstrip().startswith(f"def {name}(")
        decorators = "\n".join(lines[function.first_line - 1 : function.def_line - 1])
        assert ("function" in decorators) == (function.change != "removed")


def test_test_files_are_recognised_like_the_ignore_globs() -> None:
    from fnmatch import fnmatchcase

    for path in ["pkg/a_test.py", "pkg/sub/test_b.py", "test_c.py", "pkg/tests.py", "pkg/x.py"]:
        ignored = any(fnmatchcase(path, glob) for glob in TEST_GLOBS)
        assert is_test_file(path) == ignored, path


def test_the_sample_prefers_tests_of_rewritten_modules_and_is_deterministic() -> None:
    tests = [f"pkg/m{i}_test.py" for i in range(10)]
    tests += ["other/test_m3.py", "lib/sub/z_test.py", "lib/w_test.py"]
    rewritten = {"pkg/m3.py", "other/m3.py", "lib/sub/y.py"}
    picked = select_test_files(tests, rewritten, 2)
    assert picked == select_test_files(list(reversed(tests)), rewritten, 2)
    assert set(picked) == {"pkg/m3_test.py", "other/test_m3.py"}  # they test a rewritten module
    # then tests beside a rewritten module, before those in a folder without any
    beside = {f"pkg/m{i}_test.py" for i in range(10) if i != 3} | {"lib/sub/z_test.py"}
    assert set(select_test_files(tests, rewritten, 3)) - set(picked) <= beside
    assert set(select_test_files(tests, rewritten, 12)) == set(tests) - {"lib/w_test.py"}
    assert select_test_files(tests, rewritten, None) == sorted(tests)
    # among equally relevant files the sample is spread, not the alphabetical head
    plain = select_test_files(tests[:10], set(), 5)
    assert len(plain) == 5 and plain != sorted(tests[:10])[:5]


# --- outcomes ----------------------------------------------------------------------------------


def _outcomes(**kinds: str) -> dict[str, Outcome]:
    return {
        f"t.py::{name}": Outcome(f"t.py::{name}", kind, error=kind) for name, kind in kinds.items()
    }


def test_only_tests_that_passed_before_can_newly_fail() -> None:
    before = _outcomes(a="passed", b="passed", c="failed", d="passed", e="passed", f="skipped")
    after = _outcomes(a="passed", b="failed", c="failed", e="error", f="failed")
    failures = {f.nodeid: f for f in newly_failing(before, after)}
    assert set(failures) == {"t.py::b", "t.py::d", "t.py::e"}
    assert failures["t.py::d"].outcome == "missing"
    assert failures["t.py::e"].outcome == "error"


def test_a_missing_test_takes_its_file_failure() -> None:
    before = _outcomes(a="passed")
    failures = newly_failing(before, {}, {"t.py": "crashed (exit -11)"})
    assert [(f.outcome, f.error) for f in failures] == [("missing", "crashed (exit -11)")]


def test_plugin_lines_give_the_last_record_of_a_test_and_survive_a_cut_line() -> None:
    lines = [
        json.dumps({"kind": "test", "nodeid": "a.py::t", "outcome": "failed", "error": "E"}),
        json.dumps({"kind": "test", "nodeid": "a.py::t", "outcome": "passed"}),
        json.dumps({"kind": "collect_error", "nodeid": "b.py", "error": "ImportError: x"}),
        '{"kind": "test", "nodeid": "c.py::cut',
    ]
    outcomes, collect_errors = read_outcomes(lines)
    assert {n: o.outcome for n, o in outcomes.items()} == {"a.py::t": "passed"}
    assert collect_errors == {"b.py": "ImportError: x"}


def _function(qualname: str, first: int, def_line: int, end: int) -> RewrittenFunction:
    return RewrittenFunction("pkg/m.py", qualname, def_line, first, end, "added")


def test_a_frame_blames_the_innermost_rewritten_function_holding_it() -> None:
    outer, inner, other = (
        _function("f", 3, 4, 20),
        _function("f.g", 10, 11, 15),
        _function("h", 22, 23, 30),
    )
    path_of = {"pkg/m.py": "/copy/pkg/m.py"}
    frames = [
        ("/copy/pkg/m.py", 12),
        ("/copy/pkg/m.py", 5),
        ("/copy/pkg/m.py", 21),
        ("/elsewhere.py", 25),
    ]
    blamed = blamed_functions(frames, [outer, inner, other], path_of)
    assert blamed == ["pkg/m.py::f.g", "pkg/m.py::f"]


def test_unsafe_functions_gather_their_tests_most_blamed_first() -> None:
    f, g, h = _function("f", 1, 1, 5), _function("g", 6, 6, 9), _function("h", 10, 10, 12)
    unsafe = unsafe_functions(
        {"t::1": ([g.key], [f.key, g.key]), "t::2": ([g.key], [g.key]), "t::3": ([], [f.key])},
        [f, g, h],
    )
    assert [u.function.key for u in unsafe] == [g.key, f.key]
    assert unsafe[0].blamed_by == ["t::1", "t::2"]
    assert unsafe[1].blamed_by == [] and unsafe[1].exercised_by == ["t::1", "t::3"]


def test_a_repeated_error_borrows_the_blame_within_its_file_only() -> None:
    error = "ConversionError: converting <Function object at 0x7f01>: no __code__"
    same = "tensorflow.python.autograph.impl.api." + error.replace("0x7f01", "0x7f99")
    borrowed = borrow_blame(
        {
            "a.py::T::t0": (error, ["pkg/m.py::f"]),
            "a.py::T::t1": (same, []),
            "a.py::T::t2": ("ValueError: other", []),
            "b.py::T::t1": (error, []),
        }
    )
    assert borrowed == {"a.py::T::t1": ["pkg/m.py::f"]}


RAISING_TEST = """\
import pytest


class T:
    def test_call_form(self):
        self.assertRaises(ValueError, f,
                          1)

    def test_context_form(self):
        x = 1
        with self.assertRaisesRegex(ValueError, "bad"):
            f(x)
        f(x)

    def test_pytest_form(self):
        with pytest.raises(TypeError):
            f(2)
"""


def test_a_line_inside_an_assertion_that_something_raises_expects_an_error() -> None:
    assert expects_an_error(RAISING_TEST, 7)  # the call form's second line
    assert expects_an_error(RAISING_TEST, 12)  # inside the with block
    assert not expects_an_error(RAISING_TEST, 13)  # after it
    assert not expects_an_error(RAISING_TEST, 10)  # before it
    assert expects_an_error(RAISING_TEST, 17)  # pytest.raises


def test_only_another_exception_where_one_is_expected_is_an_error_change(tmp_path: Path) -> None:
    test_file = tmp_path / "t_test.py"
    test_file.write_text(RAISING_TEST)
    path = str(test_file)
    frames = [(path, 12), ("/lib/mod.py", 40)]
    assert error_changed("OperatorNotAllowedInGraphError: iterating", frames, path)
    # the expected exception is no longer raised: the check vanished, a real change
    assert not error_changed("AssertionError: ValueError not raised", frames, path)
    # the failure comes from a line that expects nothing
    assert not error_changed("TypeError: x", [(path, 13)], path)
    assert not error_changed("TypeError: x", [("/lib/mod.py", 40)], path)


def test_the_error_line_is_the_exceptions_last_line_named() -> None:
    text = 'ValueError: in user code:\n\n  File "m.py", line 3\n\n  ValueError: Dimensions must be equal\n'
    assert error_line("ValueError", text) == "ValueError: Dimensions must be equal"
    assert error_line("AssertionError", "AssertionError: lists differ\n- 1\n+ 2") == (
        "AssertionError: + 2"
    )
    assert error_line("KeyError", "") == "KeyError"


# --- the plugin --------------------------------------------------------------------------------

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
        "PYTHONPATH": os.pathsep.join([str(root), str(BENCHMARKS)]),
        "ORACLE_OUTCOMES": str(outcomes),
        "ORACLE_ROOT": str(root),
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",  # only the plugin under test, and fast
        **env,
    }
    process = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
         "oracle_pytest_plugin", "--rootdir", str(root), "-o", "addopts=", "--continue-on-collection-errors",
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
    root = tmp_path / "copy"
    for name, text in PACKAGE.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def test_the_plugin_records_outcomes_errors_frames_and_collection_errors(package: Path) -> None:
    status, records = _run_plugin(package, {"ORACLE_SHADOW": f"pkg={package / 'pkg'}"})
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
    assert "exercised" not in broken  # nothing traced without ORACLE_TRACE
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
    _, records = _run_plugin(package, {"ORACLE_TRACE": str(trace)})
    exercised = {r["nodeid"]: r["exercised"] for r in records if r["kind"] == "test"}
    assert exercised == {
        "pkg/mod_test.py::test_used": ["pkg/mod.py::used"],
        "pkg/mod_test.py::test_broken": [],
        "pkg/mod_test.py::test_compiled": ["pkg/mod.py::Holder.twice"],
    }


def test_the_plugin_refuses_a_copy_that_does_not_shadow_the_package(
    package: Path, tmp_path: Path
) -> None:
    status, records = _run_plugin(package, {"ORACLE_SHADOW": f"pkg={tmp_path / 'elsewhere'}"})
    assert status == 4
    assert [r["kind"] for r in records] == ["shadow_error"]
    assert records[0]["file"].startswith(str(package.resolve()))


# --- libraries whose tests are in their source distribution -------------------------------------


def test_only_the_tests_folder_of_a_source_distribution_is_extracted(tmp_path: Path) -> None:
    import io
    import tarfile

    from realcode_oracle import extract_folder

    archive = tmp_path / "lib-1.0.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        for name, text in (
            ("lib-1.0/setup.py", "setup()"),
            ("lib-1.0/lib/__init__.py", ""),
            ("lib-1.0/test/__init__.py", ""),
            ("lib-1.0/test/kernels/test_rbf.py", "def test_rbf(): pass"),
        ):
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    destination = tmp_path / "site" / "test"
    destination.parent.mkdir()
    extract_folder(archive, "test", destination)
    found = sorted(p.relative_to(destination).as_posix() for p in destination.rglob("*.py"))
    assert found == ["__init__.py", "kernels/test_rbf.py"]
    assert sorted(p.name for p in destination.parent.iterdir()) == ["test"]
    with pytest.raises(RuntimeError, match="no docs/ folder"):
        extract_folder(archive, "docs", tmp_path / "site" / "docs")


def test_each_base_environment_is_its_own_venv(tmp_path: Path) -> None:
    from oracle_libraries import BASE_REQUIREMENTS, LIBRARIES, TORCH_BASE_REQUIREMENTS
    from realcode_oracle import venv_folder

    assert venv_folder(tmp_path, BASE_REQUIREMENTS) == tmp_path / "venv"
    assert venv_folder(tmp_path, TORCH_BASE_REQUIREMENTS) not in (tmp_path / "venv", None)
    assert LIBRARIES["gpytorch"].base == TORCH_BASE_REQUIREMENTS
    assert LIBRARIES["gpytorch"].sdist_tests == "test"
    assert all(LIBRARIES[n].base == BASE_REQUIREMENTS for n in ("sonnet", "recommenders"))
