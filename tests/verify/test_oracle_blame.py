"""The real-code oracle's blame is `hybridize refactor --verify` judged by the newly failing
tests (benchmarks/oracle_blame.py): it names the culprit where a traceback names its caller
and where nothing names it (a failure raised binding the arguments, before the body runs).

Run end to end on a small library against the TensorFlow stand-in of verify_projects.py, with
the rules that block the two unsafe rewrites switched off; and the oracle's judgement of a
rewrite from its outcomes and a blame, without running anything.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from verify_projects import (
    REFUSED_OUTPUT,
    ROOT,
    UNHASHABLE_ARGUMENT,
    make_project,
    write_stand_in,
)

sys.path.insert(0, str(ROOT / "benchmarks"))

from oracle_blame import Blame, Culprit, read_blame
from realcode_oracle import (
    ChunkResult,
    Rewrite,
    Run,
    blame_failures,
    judge_rewrite,
    refactor_options,
)

from hybridize.verify.outcomes import Outcome
from hybridize.verify.rewritten import RewrittenFunction

TIMEOUT_STAND_IN = '''\
"""pytest-timeout's option, which the oracle's pytest command passes (this environment may
lack the plugin)."""


def pytest_addoption(parser):
    parser.addoption("--timeout")
'''

LIBRARY = {**REFUSED_OUTPUT, **UNHASHABLE_ARGUMENT}
"""`update` returns an Operation (refused once its trace is done: the traceback names its
caller `step`); `scaled` fails hashing its argument (nothing names it); `step` and `doubled`
are safe."""

FAILING = [
    "tests/test_boxes.py::test_scaled_by_three",
    "tests/test_boxes.py::test_scaled_by_two",
    "tests/test_metrics.py::test_step",
]


def _run(tmp_path: Path, original: Path) -> Run:
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "timeout_option.py").write_text(TIMEOUT_STAND_IN, encoding="utf-8")
    return Run(
        "blame-low-benefit",
        Path(sys.executable),
        original,
        [str(write_stand_in(tmp_path)), str(tools)],
        {"HYBRIDIZE_DISABLE_CHECKS": "HY407,HY409", "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
        ("mylib",),
        60,
        120,
        tmp_path / "logs",
        plugins=("timeout_option",),
    )


def test_the_blame_names_the_culprits_a_traceback_misnames_or_misses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    original = make_project(tmp_path, LIBRARY)
    run = _run(tmp_path, original)
    options = refactor_options("low-benefit")
    blame = blame_failures(original, options, run, FAILING, tmp_path / "cache", jobs=1)
    assert blame.error == "", (tmp_path / "logs" / "blame-low-benefit.log").read_text()
    assert {c.key for c in blame.culprits} == {"mylib/metrics.py::update", "mylib/boxes.py::scaled"}
    assert set(blame.kept) == {"mylib/metrics.py::step", "mylib/boxes.py::doubled"}
    # the traceback of test_step holds `step`'s frame only; the culprit is its callee
    assert blame.culprits_of("tests/test_metrics.py::test_step") == ["mylib/metrics.py::update"]
    # nothing names `scaled`: it failed binding its arguments; one of its tests bisected it
    scaled = next(c for c in blame.culprits if c.key == "mylib/boxes.py::scaled")
    assert scaled.tests and set(scaled.tests) < set(FAILING[:2])
    assert blame.unexplained(FAILING) == [] and blame.flaky == []
    written = {"mylib/metrics.py::update", "mylib/metrics.py::step", "mylib/boxes.py::scaled"}
    assert blame.plan_differences({*written, "mylib/boxes.py::doubled"}) == []
    assert blame.plan_differences(written) == ["mylib/boxes.py::doubled"]
    assert "@tf.function" not in (original / "mylib" / "boxes.py").read_text()


def test_a_verification_that_judged_nothing_explains_no_failure(tmp_path: Path) -> None:
    blame = read_blame(tmp_path / "missing.json", 3, "round 1\nerror: the verify command fails\n")
    assert blame.error == "exit 3: round 1 | error: the verify command fails"
    assert blame.unexplained(["t.py::a", "t.py::b"]) == ["t.py::a", "t.py::b"]


def test_the_report_gives_the_culprits_the_kept_and_the_tests_not_judged(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    change = {"file": "m.py", "qualname": "A.f", "line": 3, "code": "HY010", "description": ""}
    document = {
        "rounds": 2,
        "runs": 5,
        "seconds": 12.5,
        "verified": [{**change, "qualname": "g"}],
        "dropped": [{**change, "reason": "t.py::a fails", "tests": ["t.py::a"]}],
        "flaky": ["t.py::c"],
        "already_failing": ["t.py::b"],
    }
    report.write_text(json.dumps(document), encoding="utf-8")
    blame = read_blame(report, 0, "")
    assert blame.culprits == [Culprit("m.py::A.f", "t.py::a fails", ("t.py::a",))]
    assert blame.kept == ["m.py::g"] and blame.flaky == ["t.py::c"]
    assert (blame.rounds, blame.runs, blame.seconds) == (2, 5, 12.5)
    assert blame.unexplained(["t.py::a", "t.py::b"]) == ["t.py::b"]


def _function(qualname: str) -> RewrittenFunction:
    return RewrittenFunction("m.py", qualname, 3, 2, 9, "added")


def test_the_oracle_reports_the_culprits_of_its_blame(tmp_path: Path) -> None:
    """Tests that only changed the error invalid input raises are not blamed; the others go to
    the blame, whose culprits are the unsafe functions and whose flaky tests are flaky."""
    test_file = tmp_path / "rewritten" / "t.py"
    test_file.parent.mkdir()
    test_file.write_text("def test_b():\n    with raises(ValueError):\n        f()\n")
    before = ChunkResult({n: Outcome(n, "passed") for n in ("t.py::a", "t.py::b", "t.py::c")})
    after = ChunkResult(
        {
            "t.py::a": Outcome("t.py::a", "failed", "TypeError: x"),
            "t.py::b": Outcome("t.py::b", "failed", "TypeError: y", frames=[(str(test_file), 3)]),
            "t.py::c": Outcome("t.py::c", "failed", "TypeError: z"),
        }
    )
    asked: list[list[str]] = []

    def blame(nodeids: list[str]) -> Blame:
        asked.append(nodeids)
        return Blame([Culprit("m.py::f", "t.py::a fails", ("t.py::a",))], ["m.py::g"], ["t.py::c"])

    done = Rewrite(5, 2, [_function("f"), _function("g")], {}, 1.0)
    result = judge_rewrite(done, before, after, blame, tmp_path / "rewritten")
    assert asked == [["t.py::a", "t.py::c"]]
    assert result["error_changes"] == ["t.py::b"] and result["flaky"] == ["t.py::c"]
    assert [u["key"] for u in result["unsafe_functions"]] == ["m.py::f"]
    assert result["unsafe_functions"][0]["errors"] == {"t.py::a": "TypeError: x"}
    assert result["unattributed"] == [] and result["blame"]["plan_differences"] == []
    records = {r["nodeid"]: r for r in result["newly_failing"]}
    assert records["t.py::a"]["blamed"] == ["m.py::f"] and not records["t.py::c"]["reproduced"]


def test_a_failing_test_passing_in_the_verification_with_every_change_kept_is_not_reproduced() -> (
    None
):
    """nflows' unseeded round-trip test failed in the whole run and passed when the
    verification ran it alone with all 44 changes kept: it blames nothing and is counted apart
    (flaky), like a test that failed there and passed run again; a test the verification could
    not judge, or that failed with a dropped change, is not."""
    blame = Blame(
        [Culprit("m.py::f", "t.py::a fails", ("t.py::a",))],
        ["m.py::g"],
        ["t.py::c"],
        not_judged=["t.py::b"],
    )
    tests = ["t.py::a", "t.py::b", "t.py::c", "t.py::d"]
    assert blame.not_reproduced(tests) == ["t.py::c", "t.py::d"]
    # a verification that judged nothing says nothing about reproduction
    assert Blame(error="exit 3: boom").not_reproduced(tests) == []


def test_the_oracle_counts_a_test_passing_in_the_verification_apart(tmp_path: Path) -> None:
    (tmp_path / "rewritten").mkdir()
    before = ChunkResult({n: Outcome(n, "passed") for n in ("t.py::a", "t.py::d")})
    after = ChunkResult(
        {n: Outcome(n, "failed", "AssertionError: tolerance") for n in ("t.py::a", "t.py::d")}
    )

    def blame(nodeids: list[str]) -> Blame:
        return Blame([Culprit("m.py::f", "t.py::a fails", ("t.py::a",))], ["m.py::g"])

    done = Rewrite(5, 2, [_function("f"), _function("g")], {}, 1.0)
    result = judge_rewrite(done, before, after, blame, tmp_path / "rewritten")
    assert result["flaky"] == ["t.py::d"] and result["unattributed"] == []
    records = {r["nodeid"]: r for r in result["newly_failing"]}
    assert records["t.py::a"]["reproduced"] and not records["t.py::d"]["reproduced"]
