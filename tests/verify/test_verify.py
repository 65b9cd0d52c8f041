"""`hybridize refactor --verify` / `--verify-entry` end to end, on a small project with its own
pytest tests.

With HY301 switched off (`HYBRIDIZE_DISABLE_CHECKS`), the analysis proposes rewrites that HY301
blocks: `checked` calls `.numpy()`, which fails in a graph, and `total` calls `checked`. The
verification must drop exactly those two and keep `scale`, which is safe. Most tests run the
project against a stand-in for TensorFlow (a `tensorflow` package, outside the project, whose
`function` runs its function "in a graph" where `.numpy()` raises as TensorFlow's does), so
they need no framework; one runs the same project against TensorFlow itself.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from verify_projects import (
    NESTED_DEFAULTS,
    PROJECT,
    REFUSED_OUTPUT,
    SCRIPTED_UNRUN,
    TESTS,
    UNHASHABLE_ARGUMENT,
    decorated,
    make_project,
    refactor,
    refactor_command,
)

from hybridize.verify.report import report_path, verified_functions


def test_the_switch_lets_the_unsafe_rewrites_through(tmp_path: Path) -> None:
    """Without HY301 only `scale` is proposed; with it off, `total` and `checked` too."""
    project = make_project(tmp_path)
    on = refactor(tmp_path, project, switched_off=False)
    off = refactor(tmp_path, project)
    assert "def scale" in on.stdout and "def total" not in on.stdout
    assert "3 functions in 1 file would change" in off.stderr


def test_verify_drops_exactly_the_changes_a_test_fails_with(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    before = (project / "mylib" / "ops.py").read_text()
    shown = refactor(tmp_path, project, "--verify", TESTS)
    assert shown.returncode == 0, shown.stderr
    assert "round 1: 3 changes, running tests..." in shown.stderr
    assert "dropping mylib/ops.py::checked: tests/test_ops.py::test_checked fails" in shown.stderr
    # `test_total` (its traceback names `total` and `checked`) runs again without `checked`,
    # dropped for `test_checked`, and still fails: `total` is dropped in the same round
    assert "round 1: dropping mylib/ops.py::total" in shown.stderr
    assert "round 1: running 1 test whose suspects this round drops again" in shown.stderr
    assert "1 change kept, 2 dropped (2 rounds" in shown.stderr
    assert "round 1" not in shown.stdout and "dropping" not in shown.stdout  # progress: stderr
    # the diff (the default) shows only the verified change, and writes nothing
    assert shown.stdout.count("+@tf.function") == 1 and "+@tf.function\n def scale" in shown.stdout
    assert (project / "mylib" / "ops.py").read_text() == before

    report = json.loads(report_path(project, tmp_path / "cache").read_text())
    assert [c["qualname"] for c in report["verified"]] == ["scale"]
    assert {c["qualname"] for c in report["dropped"]} == {"checked", "total"}
    assert report["command"] == TESTS and report["judged_by"] == "tests"
    # the language server: verified while the report is newer than the file, not after an edit
    ops = project / "mylib" / "ops.py"
    assert verified_functions(project, ops, tmp_path / "cache") == {"scale"}
    future = report_path(project, tmp_path / "cache").stat().st_mtime + 10
    os.utime(ops, (future, future))
    assert verified_functions(project, ops, tmp_path / "cache") == frozenset()

    written = refactor(tmp_path, project, "--apply", "--verify", TESTS)
    assert written.returncode == 0, written.stderr
    assert decorated(ops.read_text()) == ["scale"]
    assert "refactored 1 function in 1 file" in written.stderr


def test_a_test_whose_traceback_names_two_rewrites_bisects_them(tmp_path: Path) -> None:
    """Without `test_checked`, only `test_total` fails: its traceback passes through `total`
    and `checked`, so the two are bisected with that test alone (compiling `total` alone
    already breaks it: `checked` then runs in its graph); run again without `total`, it still
    fails (`checked` compiled alone), so `checked` is bisected and dropped in the same round
    (before, in the next)."""
    tests = PROJECT["tests/test_ops.py"].split("\n\n\n        def test_checked")[0] + "\n"
    project = make_project(tmp_path, {**PROJECT, "tests/test_ops.py": tests})
    done = refactor(tmp_path, project, "--apply", "--verify", TESTS)
    assert done.returncode == 0, done.stderr
    assert "round 1: bisecting 2 changes for tests/test_ops.py::test_total..." in done.stderr
    assert (
        "dropping mylib/ops.py::total: tests/test_ops.py::test_total fails with it" in done.stderr
    )
    assert "round 1: dropping mylib/ops.py::checked" in done.stderr
    assert "1 change kept, 2 dropped (2 rounds" in done.stderr
    assert decorated((project / "mylib" / "ops.py").read_text()) == ["scale"]


def test_of_two_changes_failing_only_together_the_inner_one_is_dropped(tmp_path: Path) -> None:
    """The traceback's frames name the caller, its error line the callee: the two are bisected
    in that order, the outermost first, so the callee is dropped and the caller, whose graph
    runs it inlined, kept (torchkbnufft with HY301 off: `ToepNufft.forward` and its compiled
    `toep_batch_loop`, called unbound in its graph)."""
    project = make_project(tmp_path, NESTED_DEFAULTS)
    done = refactor(tmp_path, project, "--apply", "--verify", TESTS, codes="")
    assert done.returncode == 0, done.stderr
    assert "round 1: bisecting 2 changes for tests/test_densities.py::test_pair_density" in (
        done.stderr
    )
    assert "dropping mylib/densities.py::log_density" in done.stderr
    assert "dropping mylib/densities.py::pair_density" not in done.stderr
    assert decorated((project / "mylib" / "densities.py").read_text()) == ["pair_density"]


def test_a_traceback_naming_the_caller_of_the_culprit_blames_the_culprit(tmp_path: Path) -> None:
    project = make_project(tmp_path, REFUSED_OUTPUT)
    done = refactor(tmp_path, project, "--apply", "--verify", TESTS, codes="HY407")
    assert done.returncode == 0, done.stderr
    assert "round 1: bisecting 2 changes for tests/test_metrics.py::test_step..." in done.stderr
    assert "dropping mylib/metrics.py::update" in done.stderr
    assert "dropping mylib/metrics.py::step" not in done.stderr
    assert decorated((project / "mylib" / "metrics.py").read_text()) == ["step"]


def test_tests_naming_no_change_are_bisected_once_a_round(tmp_path: Path) -> None:
    """Both tests of `scaled` fail naming no change (the failure is raised binding the
    arguments, before the body runs): one bisection finds `scaled` for both, not one per
    test (larq: 50 tests failing from one cause would have cost 50 bisections)."""
    project = make_project(tmp_path, UNHASHABLE_ARGUMENT)
    done = refactor(tmp_path, project, "--apply", "--verify", TESTS, codes="HY409")
    assert done.returncode == 0, done.stderr
    assert "round 1: 2 tests newly failing" in done.stderr
    assert done.stderr.count("bisecting") == 1, done.stderr
    assert "dropping mylib/boxes.py::scaled: tests/test_boxes.py::test_scaled_by_" in done.stderr
    assert "1 change kept, 1 dropped (2 rounds" in done.stderr
    assert decorated((project / "mylib" / "boxes.py").read_text()) == ["doubled"]


LEFT_DIRTY = {
    **UNHASHABLE_ARGUMENT,
    "tests/test_boxes.py": """\
        import tensorflow as tf

        from mylib.boxes import Scale, doubled, scaled

        STATE = {"busy": False}


        def test_scaled_by_two():
            STATE["busy"] = True
            assert scaled(tf.constant([1.0, 2.0]), Scale(2.0)).numpy() == 6.0
            STATE["busy"] = False


        def test_a_state_left_clean():
            assert not STATE["busy"]


        def test_doubled():
            assert doubled(tf.constant([1.0, 2.0])).numpy() == 6.0
        """,
}
"""`test_a_state_left_clean` runs after `test_scaled_by_two` and fails when that one failed
(it leaves the state busy), as larq's `test_checkpoint[eager]` failed after a test whose
compiled `scatter_*` failed inside a quantized scope; alone it passes, with every change."""


def test_a_test_failing_only_after_another_failing_test_blames_nothing_alone(
    tmp_path: Path,
) -> None:
    """Its bisection, the test alone, fails in no step: before, the search ended on the last
    suspect unseen and dropped the innocent `doubled`. Now a run with every change confirms
    that it passes alone: nothing is dropped for it, and `scaled` (HY409's) is dropped by the
    test whose failure it is."""
    project = make_project(tmp_path, LEFT_DIRTY)
    done = refactor(tmp_path, project, "--apply", "--verify", TESTS, codes="HY409")
    assert done.returncode == 0, done.stderr
    assert (
        "round 1: tests/test_boxes.py::test_a_state_left_clean passes alone with every change"
        in done.stderr
    )
    assert "dropping mylib/boxes.py::doubled" not in done.stderr
    assert "dropping mylib/boxes.py::scaled: tests/test_boxes.py::test_scaled_by_two" in (
        done.stderr
    )
    assert decorated((project / "mylib" / "boxes.py").read_text()) == ["doubled"]
    assert "1 change kept, 1 dropped" in done.stderr


def test_a_test_naming_no_change_blames_the_one_it_ran_only_if_it_passes_without_it(
    tmp_path: Path,
) -> None:
    """A test whose traceback names no rewritten function and that ran only one is not
    thereby that one's failure: it may fail on a rewritten function it never ran (scripted
    from its source, as julius' `torch.jit.script` tests with HY421 off: the innocent `sinc`,
    which the module's constructor ran, was dropped for them). The blame holds once the test
    passes without that change; here it does not, and the changes are bisected: `kernel`.
    The second test that ran only `window` waits for the next round, where it passes: one
    bisection in all (julius bisected its 12 changes once for each of three such tests)."""
    project = make_project(tmp_path, SCRIPTED_UNRUN)
    done = refactor(tmp_path, project, "--apply", "--verify", TESTS, codes="")
    assert done.returncode == 0, done.stderr
    assert "round 1: 2 tests newly failing" in done.stderr
    assert done.stderr.count("bisecting") == 1, done.stderr
    assert "dropping mylib/filters.py::kernel" in done.stderr
    assert "dropping mylib/filters.py::window" not in done.stderr
    assert decorated((project / "mylib" / "filters.py").read_text()) == ["window"]
    assert "1 change kept, 1 dropped" in done.stderr


def _alive(pid: int) -> bool:
    """Whether process `pid` still runs (a zombie, dead but not reaped, does not)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


ORDER_DEPENDENT = {
    "mylib/__init__.py": "",
    "mylib/ops.py": """\
        import tensorflow as tf

        MODE = {"strict": False}


        def scale(x):
            return tf.reduce_sum(x * 2.0)


        def checked(x):
            y = tf.reduce_sum(x)
            if MODE["strict"] and y.numpy() < 0:
                raise ValueError("negative")
            return y
        """,
    "tests/test_a_strict.py": """\
        import tensorflow as tf

        from mylib import ops


        def test_strict_mode():
            ops.MODE["strict"] = True
            assert ops.scale(tf.constant([1.0, 2.0])).numpy() == 6.0
        """,
    "tests/test_b_checked.py": """\
        import tensorflow as tf

        from mylib.ops import checked


        def test_checked():
            assert checked(tf.constant([1.0, 2.0])).numpy() == 3.0
        """,
    "tests/test_c_noise.py": """\
        import os


        def test_noise():
            # fails in every bisection step, whatever the changes: as a test drawing unseeded
            # random data fails now and then
            outcomes = os.environ["HYBRIDIZE_VERIFY_OUTCOMES"]
            assert "bisect" not in outcomes and "group" not in outcomes
        """,
}
"""`test_checked` fails only after `test_strict_mode` (its `.numpy()` runs in strict mode only):
alone it passes; `test_noise` fails in the bisection's runs for no change's sake."""


def test_tests_failing_only_together_judge_their_bisection_alone(tmp_path: Path) -> None:
    """A test that fails in the whole run and passes alone, twice, has the changes bisected
    with the whole command; only that test judges the steps: another test failing in one
    (zuko's `test_multivariate_transforms`, unseeded) must not get the innocent change ending
    the prefix (`scale`, first in the plan) dropped. It passes in its own file alone and
    fails after the file run before it: those two files judge, the noisy one after them not
    run."""
    project = make_project(tmp_path, ORDER_DEPENDENT)
    done = refactor(tmp_path, project, "--apply", "--verify", TESTS)
    assert done.returncode == 0, done.stderr
    assert "running tests/test_b_checked.py alone (1 test)" in done.stderr
    widened = "running tests/test_a_strict.py, tests/test_b_checked.py with up to 1 file run before"
    assert widened in done.stderr
    assert (
        "searching 2 changes together for tests/test_b_checked.py::test_checked with "
        "tests/test_a_strict.py, tests/test_b_checked.py"
    ) in done.stderr
    assert "dropping mylib/ops.py::checked: tests/test_b_checked.py::test_checked fails" in (
        done.stderr
    )
    assert "dropping mylib/ops.py::scale" not in done.stderr
    assert decorated((project / "mylib" / "ops.py").read_text()) == ["scale"]
    assert "1 change kept, 1 dropped" in done.stderr


def _flaky_test(counter: Path, fails_on: str) -> str:
    """A test of the safe `scale` that fails by the number of times it has run (kept in
    `counter`, outside the copy), whatever the code: as a test drawing unseeded random data
    (normflows' `test_gaussian_pca`) fails now and then. `fails_on`: a condition on `n`."""
    return f"""\
        import pathlib

        import tensorflow as tf

        from mylib.ops import scale

        COUNTER = pathlib.Path({str(counter)!r})


        def test_scale_flaky():
            n = int(COUNTER.read_text()) + 1 if COUNTER.exists() else 1
            COUNTER.write_text(str(n))
            assert scale(tf.constant([1.0, 2.0])).numpy() == 6.0
            assert not ({fails_on}), f"run {{n}}"
        """


FLAKY = "tests/test_flaky.py::test_scale_flaky"


def _verify_with_flaky_test(tmp_path: Path, fails_on: str) -> str:
    """Verify PROJECT with `_flaky_test(fails_on)` beside its tests: the unsafe `checked` and
    `total` are dropped by their tests, and `scale` is kept (the flaky test, which runs it,
    blames nothing); the flaky test is reported as such. The verification's stderr."""
    counter = tmp_path / "runs"
    files = {**PROJECT, "tests/test_flaky.py": _flaky_test(counter, fails_on)}
    project = make_project(tmp_path, files)
    done = refactor(tmp_path, project, "--apply", "--verify", TESTS)
    assert done.returncode == 0, done.stderr
    assert f"{FLAKY} fails in the whole command without the changes too (flaky)" in done.stderr
    assert "dropping mylib/ops.py::scale" not in done.stderr
    assert decorated((project / "mylib" / "ops.py").read_text()) == ["scale"]
    assert "1 change kept, 2 dropped" in done.stderr
    report = json.loads(report_path(project, tmp_path / "cache").read_text())
    assert report["flaky"] == [FLAKY]
    assert int(counter.read_text()) > 4  # it did fail after the baseline, more than once
    return done.stderr


def test_a_test_failing_without_the_changes_too_blames_nothing(tmp_path: Path) -> None:
    """A test that passes in the baseline and fails in every run after, whatever the code
    (alone, traced, on the original code), ran only `scale`: without running it on the
    original code the verification would drop the innocent `scale` for it. Run alone on the
    original code it fails too: flaky (and failing in the whole command there, set aside)."""
    stderr = _verify_with_flaky_test(tmp_path, "n > 1")
    # it, test_checked and test_total fail again alone: one run of the three on the original
    assert "round 1: 3 tests failing again, running them alone on the original code" in stderr
    assert f"round 1: {FLAKY} fails alone without the changes too (flaky)" in stderr


def test_a_test_failing_only_in_whole_runs_without_the_changes_too_blames_nothing(
    tmp_path: Path,
) -> None:
    """A test that fails in every second run whatever the code: in each whole run with the
    changes, and passing when run again alone. Twice so, the whole command runs on the
    original code, where it fails too: flaky, nothing is bisected for it (before, the changes
    were bisected with the whole command judged by it, and `scale` dropped)."""
    stderr = _verify_with_flaky_test(tmp_path, "n % 2 == 0")
    assert f"round 1: {FLAKY} passes when run again alone (flaky)" in stderr
    assert "running the command on the original code" in stderr
    assert "bisecting 1 change for tests/test_flaky.py" not in stderr


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_a_terminated_verification_kills_its_run_and_removes_its_copy(tmp_path: Path) -> None:
    """The command runs in a session of its own, which no signal to hybridize reaches: on
    SIGTERM the verification kills it and removes its temporary copy, and writes nothing."""
    project = make_project(tmp_path)
    before = (project / "mylib" / "ops.py").read_text()
    started = tmp_path / "started"
    sleeper = (
        f'{sys.executable} -c "import os, pathlib, time; '
        f"pathlib.Path('{started}.part').write_text(str(os.getpid())); "
        f"os.replace('{started}.part', '{started}'); time.sleep(300)\""
    )
    command, env = refactor_command(tmp_path, project, "--apply", "--verify-entry", sleeper)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    process = subprocess.Popen(
        command, env={**env, "TMPDIR": str(scratch)}, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 300
    while not started.exists():
        assert process.poll() is None and time.monotonic() < deadline
        time.sleep(0.2)
    run = int(started.read_text())
    assert _alive(run)
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=60) == 143
    assert process.stderr is not None and "Traceback" not in process.stderr.read()
    deadline = time.monotonic() + 10
    while _alive(run) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(run)
    assert list(scratch.iterdir()) == []
    assert (project / "mylib" / "ops.py").read_text() == before


def test_verify_entry_bisects_the_changes_the_command_fails_with(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    done = refactor(tmp_path, project, "--apply", "--verify-entry", f"{sys.executable} run.py")
    assert done.returncode == 0, done.stderr
    assert "round 1: 3 changes, running the command..." in done.stderr
    assert "bisecting 3 changes for the command" in done.stderr
    assert decorated((project / "mylib" / "ops.py").read_text()) == ["scale"]
    assert "1 change kept, 2 dropped" in done.stderr


BROKEN = "def test_broken():\n    assert False\n"
"""A test that fails with or without any change (real suites have some: a missing optional
dependency, a known bug)."""


def test_tests_failing_already_are_set_aside_and_the_others_judge(tmp_path: Path) -> None:
    project = make_project(tmp_path, {**PROJECT, "tests/test_broken.py": BROKEN})
    done = refactor(tmp_path, project, "--apply", "--verify", TESTS)
    assert done.returncode == 0, done.stderr
    assert "baseline: 1 test already failing without the changes" in done.stderr
    assert "tests/test_broken.py::test_broken" in done.stderr
    # the unsafe changes are still dropped, by the tests that passed before; the safe one stays
    assert "dropping mylib/ops.py::checked" in done.stderr
    assert "dropping mylib/ops.py::total" in done.stderr
    assert decorated((project / "mylib" / "ops.py").read_text()) == ["scale"]


def test_a_failing_baseline_of_a_command_writes_nothing(tmp_path: Path) -> None:
    """Judged by its exit status (`--verify-entry`), a command that already fails says nothing
    about the changes."""
    project = make_project(tmp_path, {**PROJECT, "tests/test_broken.py": BROKEN})
    before = (project / "mylib" / "ops.py").read_text()
    failing = f"{sys.executable} -m pytest -q -p no:cacheprovider tests"
    done = refactor(tmp_path, project, "--apply", "--verify-entry", failing)
    assert done.returncode == 3
    assert "fails on the unchanged project" in done.stderr
    assert "nothing is verified and nothing written" in done.stderr
    assert (project / "mylib" / "ops.py").read_text() == before
    assert done.stdout == ""


def test_a_baseline_where_every_test_fails_writes_nothing(tmp_path: Path) -> None:
    tests = {"tests/test_ops.py": BROKEN}
    project = make_project(tmp_path, {**PROJECT, **tests})
    before = (project / "mylib" / "ops.py").read_text()
    done = refactor(tmp_path, project, "--apply", "--verify", TESTS)
    assert done.returncode == 3
    assert "fails on the unchanged project" in done.stderr
    assert (project / "mylib" / "ops.py").read_text() == before


@pytest.mark.parametrize(
    ("code", "limit", "says"),
    [
        ("import time; time.sleep(60)", ("--verify-timeout", "1"), "did not finish within 1 s"),
        # 768 MiB (zeroed lazily) in an address space of 384: `--verify-memory` reaches the run
        ("bytearray(768 * 2**20)", ("--verify-memory", "384"), "MemoryError"),
    ],
    ids=["time", "memory"],
)
def test_a_baseline_over_its_limit_writes_nothing(
    tmp_path: Path, code: str, limit: tuple[str, str], says: str
) -> None:
    project = make_project(tmp_path)
    before = (project / "mylib" / "ops.py").read_text()
    command = f"{sys.executable} -c '{code}'"
    done = refactor(tmp_path, project, "--apply", "--verify-entry", command, *limit)
    assert done.returncode == 3
    assert "fails on the unchanged project" in done.stderr
    assert says in done.stderr
    assert (project / "mylib" / "ops.py").read_text() == before


@pytest.mark.tensorflow
def test_verify_with_tensorflow_drops_the_numpy_call_under_tf_function(tmp_path: Path) -> None:
    pytest.importorskip("tensorflow")
    project = make_project(tmp_path)
    done = refactor(tmp_path, project, "--apply", "--verify", TESTS, stand_in=False)
    assert done.returncode == 0, done.stderr
    assert "no attribute 'numpy'" in done.stderr
    assert decorated((project / "mylib" / "ops.py").read_text()) == ["scale"]


def test_a_bisection_leaves_out_the_changes_its_round_drops_already() -> None:
    """Two tests of one round: one fails with a compiled callee alone (its bisection drops the
    callee), the other only with its compiled caller and that callee together. Bisected with
    the callee still kept, the second ends on the caller, a change the rules allow, dropped
    for nothing (linear-operator 0.6.1's `RootLinearOperator._matmul`); without it, the test
    passes with every other change: nothing is dropped for it."""
    import types

    from hybridize.verify.verification import _Session

    caller, callee, other = "lo.py::Root._matmul", "lo.py::Kronecker._matmul", "lo.py::f"
    kept = types.SimpleNamespace(
        changes=[types.SimpleNamespace(key=k) for k in (caller, callee, other)]
    )

    class Run:
        def __init__(self, applied: frozenset[str]) -> None:
            self.applied = applied
            self.outcomes: dict[str, object] = {}

        def passes(self, nodeid: str) -> bool:
            return not {caller, callee} <= self.applied  # the pair fails, each alone passes

        def describe(self) -> str:
            return "1 failed"

    session = object.__new__(_Session)
    session.progress = lambda message: None
    session.replan = lambda applied: applied
    session.run = lambda plan, label, select=(): Run(plan)
    failed = Run(frozenset({caller, callee, other}))

    kept_callee = session.bisect(kept, [caller, other], "t.py::test_root", 1, failed)
    assert kept_callee is not None and kept_callee.change.key == caller  # the premise
    assert (
        session.bisect(
            kept, [caller, other], "t.py::test_root", 1, failed, dropped=frozenset({callee})
        )
        is None
    )


def _fake_session(
    fails_with: Callable[[frozenset[str]], bool],
    *,
    selects: list[tuple[str, ...]] | None = None,
    baseline: Sequence[str] = (),
) -> tuple[Any, list[str]]:
    """A `_Session` whose runs fail (every test in them) when `fails_with(applied)`; and the
    labels of the runs it made (each run's selection into `selects`; `baseline`: the tests
    its baseline ran, in order, each passing)."""
    import types

    from hybridize.verify.verification import _Session

    labels: list[str] = []

    class Run:
        def __init__(self, applied: frozenset[str]) -> None:
            self.applied = applied
            self.outcomes: dict[str, object] = {}

        def passes(self, nodeid: str) -> bool:
            return not fails_with(self.applied)

        def describe(self) -> str:
            return "1 failed"

    def run(plan: Any, label: str, select: Sequence[str] = ()) -> Run:
        labels.append(label)
        if selects is not None:
            selects.append(tuple(select))
        if not isinstance(plan, frozenset):  # the plan kept (`_kept`)
            plan = frozenset(c.key for c in plan.changes)
        return Run(plan)

    session = object.__new__(_Session)
    session.progress = lambda message: None
    session.replan = lambda applied: applied
    session.run = run
    session.result = types.SimpleNamespace(runs=0)
    session.baseline = types.SimpleNamespace(outcomes=dict.fromkeys(baseline)) if baseline else None
    session.exercised = {}
    session.set_aside = set()
    return session, labels


def _kept(*keys: str) -> Any:
    import types

    return types.SimpleNamespace(changes=[types.SimpleNamespace(key=k) for k in keys])


def test_a_test_failing_with_any_of_several_changes_has_them_all_dropped_in_one_round() -> None:
    """xitorch 0.5.1's memory-leak tests fail after any compiled call (the garbage collector's
    scan meets a dead `weakref.proxy` Dynamo made): a bisection finds one such change, the
    first in order; the others it fails with are searched together in the same round. The
    change it does not fail with stays."""
    a, b, c, d = "s.py::_dot", "s.py::A_fcn", "e.py::_fcn", "i.py::innocent"
    session, labels = _fake_session(lambda applied: bool(applied & {a, b, c}))
    kept = _kept(d, a, b, c)
    failed = session.run(frozenset({a, b, c, d}), "round-1")
    first = session.bisect(kept, [d, a, b, c], "t.py::test_mem", 1, failed)
    assert first is not None and first.change.key == a
    dropped = {a: first.reason}
    runs = len(labels)
    for more in session.other_culprits(kept, [d, a, b, c], "t.py::test_mem", 1, dropped):
        dropped[more.change.key] = more.reason
        assert "t.py::test_mem fails with it (bisected)" in more.reason
    assert list(dropped) == [a, b, c]
    # the three left fail together, d alone passes, with it b fails, c fails: 4 runs
    # (before: a run without the drops and a bisection for each, and a last run: 8)
    assert len(labels) - runs == 4


def test_a_caller_kept_with_its_callee_dropped_is_not_bisected_again() -> None:
    # of a pair failing only together, the callee goes; without it the test passes: no more
    caller, callee = "lo.py::Root._matmul", "lo.py::Kronecker._matmul"
    session, labels = _fake_session(lambda applied: {caller, callee} <= applied)
    kept = _kept(caller, callee)
    failed = session.run(frozenset({caller, callee}), "round-1")
    first = session.bisect(kept, [caller, callee], "t.py::test_root", 1, failed)
    assert first is not None and first.change.key == callee
    runs = len(labels)
    more = session.other_culprits(kept, [caller, callee], "t.py::test_root", 1, {callee: ""})
    assert more == []
    assert len(labels) == runs + 1  # one run of the test without the callee: it passes


def test_tests_failing_only_together_have_every_culprit_found_in_one_round() -> None:
    """Tests failing only in the whole command's run (after the tests before them ran any of
    several compiled changes) have every culprit found in one round, judged by the whole
    command's run of them; judged by the command alone (no such tests), one change a round,
    as before."""
    a, b, c = "a.py::f", "b.py::g", "c.py::h"
    session, _ = _fake_session(lambda applied: bool(applied & {a, c}))
    kept = _kept(a, b, c)
    failed = session.run(frozenset({a, b, c}), "round-1")
    found = session.bisect_every_change(kept, 1, failed, together=["t.py::test_mem"])
    assert [d.change.key for d in found] == [a, c]
    assert all("run with the other tests (bisected)" in d.reason for d in found)
    session._clean = lambda run: run.passes("")
    assert [d.change.key for d in session.bisect_every_change(kept, 1, failed)] == [a]


def _whole_run_search(
    keys: list[str], culprits: set[str], entered: Sequence[str] = ()
) -> tuple[list[str], int]:
    """The changes a search judged by a test failing only in the whole run drops, and the
    runs it made; `entered`: the changes that test entered when run alone, traced."""
    session, labels = _fake_session(lambda applied: bool(applied & culprits))
    session.exercised = {"t.py::test_mem": list(entered)}
    failed = session.run(frozenset(keys), "round-1")
    found = session.bisect_every_change(_kept(*keys), 1, failed, together=["t.py::test_mem"])
    return [d.change.key for d in found], len(labels) - 1


def test_a_whole_run_search_finds_many_culprits_in_fewer_runs_than_a_bisection_each() -> None:
    """xitorch's memory-leak tests fail in the whole run after any of 10 of its 13 changes:
    a bisection a culprit (log2(n) runs of the whole command each, and a run to tell
    whether more remain) costs about 50 runs of 5 min; the search of them all together
    decides each in about one run once most of those decided are culprits."""
    keys = [f"m.py::f{i}" for i in range(13)]
    culprits = set(keys[:10])
    found, runs = _whole_run_search(keys, culprits)
    assert found == keys[:10]
    bisections = len(culprits) * (1 + (len(keys) - 1).bit_length())
    assert runs <= len(keys) + 3 < bisections
    # one culprit among many: about log2(n) runs, as a bisection
    found, runs = _whole_run_search(keys, {keys[6]})
    assert found == [keys[6]]
    assert runs <= (len(keys) - 1).bit_length() + 1


def test_a_whole_run_search_takes_the_changes_the_failing_tests_entered_first() -> None:
    """The per-test attribution orders the search: the changes the failing test entered when
    run alone (traced) first, so the innocent rest pass as one group."""
    keys = [f"m.py::f{i}" for i in range(16)]
    culprits = {keys[1], keys[6], keys[11], keys[15]}
    entered = [keys[15], keys[1], keys[11], keys[6]]
    plain, plain_runs = _whole_run_search(keys, culprits)
    ordered, ordered_runs = _whole_run_search(keys, culprits, entered)
    assert set(plain) == set(ordered) == culprits
    assert ordered == entered  # found in the order the test entered them
    assert ordered_runs < plain_runs


def test_tests_failing_only_with_others_are_judged_by_their_own_files_when_they_fail_there() -> (
    None
):
    """A test failing only after the tests before it is judged, when it fails there too, by
    a run of its own file's tests (in the baseline's order), not of the whole command."""
    a, b = "a.py::f", "b.py::g"
    mem = ["tests/test_mem.py::test_one", "tests/test_mem.py::test_two"]
    baseline = ["tests/test_a.py::test_x", *mem, "tests/test_z.py::test_y"]
    selects: list[tuple[str, ...]] = []
    session, _ = _fake_session(lambda applied: a in applied, selects=selects, baseline=baseline)
    failed = session.run(frozenset({a, b}), "round-1")
    found = session.bisect_every_change(_kept(a, b), 1, failed, together=[mem[1]])
    assert [d.change.key for d in found] == [a]
    assert selects[1:] and all(select == tuple(mem) for select in selects[1:])
    # passing in its file alone, it is judged by the whole command
    selects.clear()
    whole = [()] * 10

    def fails_in_whole_runs(applied: frozenset[str]) -> bool:
        return a in applied and selects[-1] == ()

    session, _ = _fake_session(fails_in_whole_runs, selects=selects, baseline=baseline)
    selects.append(())
    failed = session.run(frozenset({a, b}), "round-1")
    found = session.bisect_every_change(_kept(a, b), 1, failed, together=[mem[1]])
    assert [d.change.key for d in found] == [a]
    # its file alone, then with the one file run before it (all there is before it), then
    # the whole command
    assert selects[2] == tuple(mem) and selects[3] == tuple(baseline[:3])
    assert selects[4:] == whole[: len(selects) - 4]


def _files_run(*names: str, tests: int = 2) -> list[str]:
    return [f"tests/{name}.py::test_{i}" for name in names for i in range(tests)]


def test_a_test_failing_only_after_an_earlier_file_is_judged_by_the_files_before_it() -> None:
    """curvlinops' `test_input_formatting` fails only after `test_activation_hessian.py`
    ran, two files before its own (3 files, 34 s, against 20 min a whole run): the narrowed
    run widens from its own file to the files run before it, the window doubled (1, 2, 4),
    until it fails; the search then runs those files only, never the files run after it."""
    a, b, c = "a.py::f", "b.py::g", "c.py::h"
    baseline = _files_run("t0", "t1", "t2_hessian", "t3", "t4", "t5", "t6_formatting", "t7")
    target = "tests/t6_formatting.py::test_1"
    selects: list[tuple[str, ...]] = []

    def fails(applied: frozenset[str]) -> bool:
        ran = selects[-1] or tuple(baseline)
        return a in applied and any("t2_hessian" in n for n in ran) and target in ran

    session, labels = _fake_session(fails, selects=selects, baseline=baseline)
    failed = session.run(frozenset({a, b, c}), "round-1")
    found = session.bisect_every_change(_kept(a, b, c), 1, failed, together=[target])
    assert [d.change.key for d in found] == [a]
    assert "run with the other tests (bisected)" in found[0].reason
    window = [n for n in baseline if n.startswith(("tests/t2", "tests/t3", "tests/t4"))]
    own = _files_run("t6_formatting")
    # own file, then 1, 2, 4 files before it: the last (t2 to t6) fails
    assert selects[1:5] == [
        tuple(own),
        tuple(baseline[10:14]),
        tuple(baseline[8:14]),
        tuple(baseline[4:14]),
    ]
    assert labels[1:5] == [f"round-1-narrowed-{w}" for w in (0, 1, 2, 4)]
    # every step of the search runs that window: never the whole command, nor t7 after it
    assert len(selects) > 5 and all(s == tuple(baseline[4:14]) for s in selects[5:])
    assert set(window) < set(selects[-1])


def test_tests_failing_only_after_others_in_two_files_widen_before_each() -> None:
    """Two failing tests in two files: each file's window of files run before it, together;
    files outside every window (t0 before, t5 after) are not run."""
    a, b = "a.py::f", "b.py::g"
    baseline = _files_run("t0", "t1_state", "t2_x", "t3_x", "t4_y", "t5", tests=1)
    x, y = "tests/t2_x.py::test_0", "tests/t4_y.py::test_0"
    selects: list[tuple[str, ...]] = []

    def fails(applied: frozenset[str]) -> bool:
        ran = selects[-1] or tuple(baseline)
        return a in applied and "tests/t1_state.py::test_0" in ran

    session, _ = _fake_session(fails, selects=selects, baseline=baseline)
    failed = session.run(frozenset({a, b}), "round-1")
    found = session.bisect_every_change(_kept(a, b), 1, failed, together=[x, y])
    assert [d.change.key for d in found] == [a]
    assert selects[1:3] == [(x, y), (baseline[1], x, "tests/t3_x.py::test_0", y)]
    assert selects[3:] and all(s == selects[2] for s in selects[3:])


def test_a_spent_run_budget_writes_nothing_and_says_what_was_dropped(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    before = (project / "mylib" / "ops.py").read_text()
    done = refactor(tmp_path, project, "--apply", "--verify", TESTS, "--verify-max-runs", "3")
    assert done.returncode == 3, done.stderr
    assert "the run budget (--verify-max-runs 3) is spent in round 1" in done.stderr
    assert "nothing written" in done.stderr
    assert (project / "mylib" / "ops.py").read_text() == before
    enough = refactor(tmp_path, project, "--apply", "--verify", TESTS, "--verify-max-runs", "40")
    assert enough.returncode == 0, enough.stderr
    assert decorated((project / "mylib" / "ops.py").read_text()) == ["scale"]
