"""Keeping only the planned changes the user's own tests (or program) still pass with.

The differential oracle as a feature: the project is copied, the verify command runs on the
unchanged copy (the *baseline*, which must succeed: a command that already fails judges
nothing; with `--verify`, tests that already fail are set aside and the others judge), then
round after round on the copy holding the changes still kept:

- a clean run ends the verification: the changes kept are the verified ones;
- with `--verify` (pytest), the tests that passed in the baseline and fail now are run again,
  alone and traced (the plugin records which rewritten functions each one ran, and its error's
  frames name the ones it failed in); a test whose traceback names exactly one rewritten
  function, and that ran no other, drops that change; a test that ran others too (a compiled
  callee whose trace has finished leaves no frame, so the traceback may name its caller; a
  caller and a callee may fail only together), or names several, or none (a change it only
  ran is not thereby its failure: a rewritten function it never ran may fail it, scripted
  from its source), has its culprit found by bisecting those changes (or all of them, when
  it still fails without them) with that test alone,
  unless a change it suspects is dropped already in this round (such tests run again, together,
  without the round's drops: a test failing still is bisected then; a round bisects once for
  the tests that name nothing, not once per test, when one cause fails many; a test whose
  suspects an earlier test's bisection found innocent suspects every change, like one naming
  nothing);
  and a test that still fails alone without its culprit (it fails with any one of several
  changes) has the others among its suspects searched together in the same round
  (`culprits`, below);
- with `--verify-entry` (any command, judged by its exit status), the culprit is found by
  bisecting the changes kept, with the whole command.

A bisection judged by a test alone blames a change only once the test has failed alone in one
of its steps: a test whose failure names no change first runs alone with every change, and a
search whose every step passed confirms with every change; passing alone, the test failed only
after the other failing tests it ran with, and nothing is dropped for it.

Bisecting looks for the shortest prefix of the suspects (in the order the test's traceback
names them, or ran them, the outermost first; all changes: in plan order), on top of the other
changes kept, with which the judge fails: its last change is dropped, so of a caller and a
callee that fail only together the callee goes and the caller, which runs it inlined, stays. Each round drops at least
one change, so the rounds end.

No change is blamed for a test that fails without it (a test drawing unseeded random data, or
one that broke after the baseline, fails now and then whatever the code): a newly failing test
is run again alone on the rewritten code (traced, above) and, failing again, alone on the
original code. One that passes when run again, or fails on the original code too, is reported
as flaky and nothing is dropped for it; the round runs again, and when it fails again with
nothing to blame, the whole command runs on the original code: the tests failing there too are
flaky for good (set aside, like the tests failing in the baseline), and those passing there
(tests that fail only together, in their order) have every change searched with the whole
command (or with their own test files, or those and the files run before them, the window
doubled until they fail there too: a run a window), judged by those tests alone (another test
failing in a step, e.g. one drawing unseeded random data, says nothing about them): all the
culprits in one search, the changes those tests entered when run alone traced first.

A search of several culprits (`culprits`) is adaptive group testing: the suspects, in order,
are taken in groups on top of those accepted; a group the judge passes with is kept whole, a
failing one is halved down to the change it fails with; where most changes decided were
culprits, the rest go one at a time. Each decision costs about one run when most suspects
are culprits, log2(n) when one is; a bisection a culprit cost log2(n) runs each.

`--verify-max-runs` bounds the runs in all: spent, the verification stops with what it had
dropped and kept so far, and nothing is written.
"""

from __future__ import annotations

import signal
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

from hybridize.refactor.plan import RefactorPlan
from hybridize.refactor.planned import PlannedChange
from hybridize.verify.command_run import (
    CommandRun,
    CommandSetting,
    RunLimits,
    RunSoFar,
    install_plugin,
    run_command,
)
from hybridize.verify.outcomes import (
    NewFailure,
    blamed_functions,
    borrow_blame,
    functions_named_in_error,
    newly_failing,
    test_file_of,
)
from hybridize.verify.rewritten import planned_rewrites, write_trace_targets
from hybridize.verify.workspace import Workspace

Replan = Callable[[frozenset[str]], RefactorPlan]
"""The project's plan of only the changes with these keys (`file::qualname`)."""

Progress = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class VerifyRequest:
    """What judges the changes: a pytest command whose tests are told apart (`per_test`), or
    any command judged by its exit status; and the limits of each run."""

    command: str
    per_test: bool
    limits: RunLimits = field(default_factory=RunLimits)
    heartbeat_seconds: float = 60.0
    """Seconds between two progress lines of a run still going ("round 2: still running, 120
    of 303 tests done (2 failing), 180 s")."""
    max_runs: int = 0
    """Runs of the command the verification may make, the baseline's included (0: no limit).
    Spent, it stops: nothing is written, and the message says what was kept and dropped."""

    @property
    def what(self) -> str:
        return "tests" if self.per_test else "the command"


@dataclass(frozen=True, slots=True)
class DroppedChange:
    """A planned change the verification left out, why, and the tests that failed with it."""

    change: PlannedChange
    reason: str
    tests: tuple[str, ...] = ()


@dataclass(slots=True)
class Verification:
    """The outcome: the plan of the verified changes and the changes dropped."""

    request: VerifyRequest
    plan: RefactorPlan
    dropped: list[DroppedChange] = field(default_factory=list)
    flaky: list[str] = field(default_factory=list)
    """Tests that failed with the changes and then passed when run again, or failed without
    them too: no change was blamed."""
    already_failing: list[str] = field(default_factory=list)
    """Tests that fail without any change (set aside: they judge nothing)."""
    rounds: int = 0
    runs: int = 0
    seconds: float = 0.0


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


class VerificationError(Exception):
    """The changes could not be verified (the command fails or times out without them, or
    the run budget is spent first): nothing may be written."""


@dataclass(frozen=True, slots=True)
class _Judge:
    """What each step of a search runs and when it fails: the tests `tests` in a run of
    `select` (a test alone; tests failing only after others, in a run of their files or of
    the whole command when `select` is empty), or, with no `tests`, the whole command (its
    exit status, less the tests set aside)."""

    name: str
    select: tuple[str, ...] = ()
    tests: tuple[str, ...] = ()

    @classmethod
    def alone(cls, nodeid: str) -> _Judge:
        return cls(nodeid, (nodeid,), (nodeid,))

    def failing(self, run: CommandRun) -> list[str]:
        return [t for t in self.tests if not run.passes(t)]


def verify_plan(
    plan: RefactorPlan, replan: Replan, request: VerifyRequest, progress: Progress
) -> Verification:
    """Verify `plan`'s changes on a temporary copy of its project (`plan.root`)."""
    with (
        _terminated_as_exit(),
        tempfile.TemporaryDirectory(prefix="hybridize-verify-") as scratch,
    ):
        return _Session(plan, replan, request, progress, Path(scratch)).verify()


@contextmanager
def _terminated_as_exit() -> Iterator[None]:
    """SIGTERM, while verifying, exits as SystemExit (status 143) instead of ending the
    process at once: the command's run (in a session of its own, which no signal to this
    process reaches) is killed and the temporary copy removed on the way out, as on Ctrl-C.
    Only the main thread may set a handler; elsewhere the default stays."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def exit_on_term(signum: int, frame: FrameType | None) -> None:
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, exit_on_term)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


class _Session:
    """One verification: its copy, its runs and what they said."""

    def __init__(
        self,
        plan: RefactorPlan,
        replan: Replan,
        request: VerifyRequest,
        progress: Progress,
        scratch: Path,
    ) -> None:
        self.replan = replan
        self.request = request
        self.progress = progress
        self.scratch = scratch
        base = plan.root
        self.workspace = Workspace(base, scratch / "copy" / base.name, plan)
        packages = self.workspace.import_roots()
        self.setting = CommandSetting(
            request.command,
            self.workspace.copy,
            scratch / "runs",
            install_plugin(scratch / "plugin"),
            request.limits,
            shadow=packages,
            import_roots=tuple(dict.fromkeys(p.parent for p in packages.values())),
            heartbeat_seconds=request.heartbeat_seconds,
        )
        self.result = Verification(request, plan)
        self.per_test = request.per_test
        self.baseline: CommandRun | None = None
        """The run on the unchanged copy, once made."""
        self.set_aside: set[str] = set()
        """Tests that passed in the baseline and failed in a later run of the whole command on
        the unchanged copy: flaky, they judge nothing any more."""
        self.kept = plan
        """The changes kept when the round now running began."""
        self.exercised: dict[str, list[str]] = {}
        """The rewritten functions each test run again traced entered, in order (its last
        traced run): the order in which a search judged by it takes its suspects."""

    def run(
        self, plan: RefactorPlan, label: str, select: Sequence[str] = (), trace: Path | None = None
    ) -> CommandRun:
        budget = self.request.max_runs
        if budget and self.result.runs >= budget:
            raise VerificationError(self._budget_spent(budget))
        self.workspace.apply(plan)
        self.result.runs += 1
        step = label.replace("-", " ")  # "round 2 bisect 3"

        def still_running(so_far: RunSoFar) -> None:
            self.progress(f"{step}: {so_far.describe()}")

        run = run_command(self.setting, label, select=select, trace=trace, on_wait=still_running)
        self.result.seconds += run.seconds
        return run

    def _budget_spent(self, budget: int) -> str:
        dropped = [d.change.key for d in self.result.dropped]
        gone = set(dropped)
        kept = [c.key for c in self.kept.changes if c.key not in gone]
        listed = ", ".join(dropped[:5]) + (", ..." if len(dropped) > 5 else "")
        return (
            f"the run budget (--verify-max-runs {budget}) is spent in round "
            f"{self.result.rounds}: {_count(len(dropped), 'change')} dropped in the rounds "
            f"before{f' ({listed})' if dropped else ''}, {_count(len(kept), 'change')} still "
            "unverified; nothing written (a larger budget, or fewer changes with --select, "
            "finishes it)"
        )

    def verify(self) -> Verification:
        kept = self.result.plan
        self.progress(
            f"baseline: {_count(len(kept.changes), 'change')} planned, running {self.request.what} "
            "on the unchanged copy..."
        )
        baseline = self.baseline = self.run(RefactorPlan(root=kept.root), "baseline")
        if self.per_test and not baseline.outcomes and baseline.succeeded:
            self.progress(
                "baseline: the command ran no pytest test this run could see; judging by "
                "its exit status (as --verify-entry)"
            )
            self.per_test = False
        if not self._judges(baseline):
            raise VerificationError(
                f"the verify command fails on the unchanged project ({baseline.describe()}); "
                "nothing is verified and nothing written"
            )
        if not baseline.succeeded:
            already = sorted(n for n, o in baseline.outcomes.items() if not baseline.passes(n))
            self.result.already_failing = already
            self.progress(
                f"baseline: {_count(len(already), 'test')} already failing without the changes "
                f"(not judged: {', '.join(already[:3])}{', ...' if len(already) > 3 else ''})"
            )
        unexplained = 0
        while kept.changes:
            self.result.rounds += 1
            number = self.result.rounds
            self.kept = kept
            self.progress(
                f"round {number}: {_count(len(kept.changes), 'change')}, running {self.request.what}..."
            )
            after = self.run(kept, f"round-{number}")
            if self._clean(after):
                break
            dropped = self.attribute(kept, after, number)
            if not dropped and not unexplained:
                unexplained = 1  # every failing test passed alone: once more, as it was
                continue
            if not dropped:  # twice: the tests fail together only (their order), or by chance
                together = self.failing_with_changes_only(kept, after, number)
                if not together and self._clean(after):
                    break  # each failed without the changes too: flaky, set aside
                dropped = self.bisect_every_change(kept, number, after, together)
            unexplained = 0
            for drop in dropped:
                self.progress(f"round {number}: dropping {drop.change.key}: {drop.reason}")
            self.result.dropped.extend(dropped)
            gone = {d.change.key for d in dropped}
            kept = self.replan(frozenset(c.key for c in kept.changes if c.key not in gone))
        self.result.plan = kept
        return self.result

    def _judges(self, baseline: CommandRun) -> bool:
        """Whether the baseline can judge the changes. A command judged by its exit status
        must succeed; a pytest run whose tests are told apart may have tests that already
        fail (an optional dependency missing, a known bug: real suites have them): only the
        tests that pass without the changes judge them. A run that did not finish (a timeout,
        a crash before the tests ran) judges nothing either way."""
        if baseline.succeeded:
            return True
        return (
            self.per_test
            and baseline.status is not None
            and any(baseline.passes(nodeid) for nodeid in baseline.outcomes)
        )

    def _clean(self, after: CommandRun) -> bool:
        """A round is clean when the command succeeds, or (tests told apart, a baseline with
        tests failing already, or tests set aside as flaky) when it finished and no test that
        judges fails now."""
        baseline = self.baseline
        assert baseline is not None, "the baseline runs first"
        if after.succeeded:
            return True
        if not self.per_test or after.status is None:
            return False
        if baseline.succeeded and not self.set_aside:
            return False
        return not self._newly_failing(after)

    def _newly_failing(self, after: CommandRun) -> list[NewFailure]:
        """The tests that passed in the baseline, are not set aside, and fail in `after`."""
        baseline = self.baseline
        assert baseline is not None, "the baseline runs first"
        judging = {n: o for n, o in baseline.outcomes.items() if n not in self.set_aside}
        return newly_failing(judging, after.outcomes, after.collect_errors)

    def _flaky(self, nodeid: str, why: str, number: int) -> str:
        self.progress(f"round {number}: {nodeid} {why} (flaky): nothing dropped for it")
        if nodeid not in self.result.flaky:
            self.result.flaky.append(nodeid)
        return nodeid

    def failing_with_changes_only(
        self, kept: RefactorPlan, after: CommandRun, number: int
    ) -> list[str]:
        """Of the tests newly failing in `after` (each passing when run again, or failing
        alone without the changes too, twice), those that pass when the whole command runs on
        the original code. The others fail without the changes too: flaky, set aside (a test
        whose data is drawn at random fails now and then, whatever the code: normflows'
        `test_gaussian_pca`, a tolerance missed in one run of three; bisecting the changes
        judged by it would drop whichever change ends the prefix it failed with)."""
        failing = [f.nodeid for f in self._newly_failing(after)]
        if not failing:
            return []
        self.progress(
            f"round {number}: {_count(len(failing), 'test')} failing again with nothing to "
            "blame, running the command on the original code..."
        )
        original = self.run(RefactorPlan(root=kept.root), f"round-{number}-original")
        together: list[str] = []
        for nodeid in failing:
            if original.passes(nodeid):
                together.append(nodeid)
            else:
                self.set_aside.add(nodeid)
                self._flaky(nodeid, "fails in the whole command without the changes too", number)
        return together

    # --- attribution ---------------------------------------------------------------------

    def attribute(self, kept: RefactorPlan, after: CommandRun, number: int) -> list[DroppedChange]:
        """The changes to drop after a failing round."""
        failures = self._newly_failing(after)
        if not self.per_test or not failures:
            return self.bisect_every_change(kept, number, after)
        rewritten = planned_rewrites(kept.files)
        copy = self.workspace.copy.resolve()
        path_of = {f.file: str((copy / f.file).resolve()) for f in rewritten}
        trace = write_trace_targets(self.scratch / f"trace-{number}.json", rewritten, path_of)
        nodeids = [f.nodeid for f in failures]
        self.progress(
            f"round {number}: {_count(len(failures), 'test')} newly failing, running them again traced..."
        )
        traced = self.run(kept, f"round-{number}-traced", select=nodeids, trace=trace)
        for nodeid in nodeids:
            outcome = traced.outcomes.get(nodeid)
            if outcome is not None and outcome.exercised is not None:
                self.exercised[nodeid] = list(outcome.exercised)
        flaky = {
            self._flaky(nodeid, "passes when run again alone", number)
            for nodeid in nodeids
            if traced.passes(nodeid)
        }
        failing_again = [n for n in nodeids if n not in flaky]
        if failing_again:
            # a test failing without the changes too says nothing about them
            self.progress(
                f"round {number}: {_count(len(failing_again), 'test')} failing again, running "
                f"{'them' if len(failing_again) > 1 else 'it'} alone on the original code..."
            )
            original = self.run(
                RefactorPlan(root=kept.root), f"round-{number}-original", failing_again
            )
            flaky.update(
                self._flaky(nodeid, "fails alone without the changes too", number)
                for nodeid in failing_again
                if not original.passes(nodeid)
            )
        errors = {f.nodeid: f.error for f in failures}
        blamed: dict[str, list[str]] = {}
        exercised: dict[str, list[str]] = {}
        for nodeid in failing_again:
            if nodeid in flaky:
                continue
            first, again = after.outcomes.get(nodeid), traced.outcomes.get(nodeid)
            frames = (first.frames if first else []) + (again.frames if again else [])
            named = blamed_functions(frames, rewritten, path_of)
            in_error = functions_named_in_error(errors[nodeid], rewritten)
            named += [k for k in in_error if k not in named]
            blamed[nodeid] = named
            exercised[nodeid] = (again.exercised or []) if again else []
        # TensorFlow reports a repeated conversion error without the frames it quoted first
        borrowed = borrow_blame({n: (errors[n], b) for n, b in blamed.items()})
        blamed.update(borrowed)
        by_key = {c.key: c for c in kept.changes}
        reasons: dict[str, str] = {}
        tests: dict[str, list[str]] = {}
        suspects: list[tuple[str, list[str]]] = []
        for nodeid in blamed:
            named = [k for k in blamed[nodeid] if k in by_key]
            ran = [k for k in exercised[nodeid] if k in by_key]
            if len(named) == 1 and set(ran) <= set(named):
                key = named[0]
                reasons.setdefault(key, f"{nodeid} fails (in its traceback): {errors[nodeid]}")
                tests.setdefault(key, []).append(nodeid)
            elif not named:
                # nothing in its error names a change: the one it ran, alone, may be innocent
                # (a rewritten function it never ran can fail it: scripted from its source,
                # julius' torch.jit.script tests), so bisecting it first runs the test without
                # it, and widens the search to every change when the test still fails
                suspects.append((nodeid, ran))
            elif len(named) == 1:
                # it ran other rewritten functions too: a compiled callee whose trace has
                # finished leaves no frame (a tf.function returning an Operation is refused
                # after its trace: the traceback holds its caller only), and a caller and a
                # callee may fail only together; bisecting them in the order the test entered
                # them finds the culprit, or of such a pair the callee
                suspects.append((nodeid, ran if named[0] in ran else [*named, *ran]))
            else:
                suspects.append((nodeid, named))
        cleared: set[str] = set()  # suspects a bisection found innocent: it failed without them

        def blame(nodeid: str, suspected: list[str], failed: CommandRun) -> None:
            # bisected without the changes this round drops already: of a caller and a
            # callee failing only together, another test's bisection may have dropped the
            # callee; kept in, it would make this one end on the caller (linear-operator's
            # `RootLinearOperator._matmul` over Kronecker's, two tests of one round)
            drop = self.bisect(kept, suspected, nodeid, number, failed, dropped=frozenset(reasons))
            if drop is None:
                self.progress(
                    f"round {number}: {nodeid} passes alone with every change kept"
                    + (" but those this round drops" if reasons else "")
                    + " (it failed with the other failing tests only, or with a change dropped "
                    "for another test): nothing dropped for it"
                )
                return
            if drop.change.key not in suspected:
                cleared.update(suspected)
            reasons.setdefault(drop.change.key, drop.reason)
            tests.setdefault(drop.change.key, []).extend(drop.tests)
            others = self.other_culprits(
                kept, suspected, nodeid, number, reasons, drop.change.key in suspected
            )
            for more in others:
                reasons.setdefault(more.change.key, more.reason)
                tests.setdefault(more.change.key, []).extend(more.tests)

        deferred: list[tuple[str, list[str]]] = []
        for nodeid, named in suspects:
            suspected = named or list(by_key)
            if cleared.issuperset(suspected):
                # an earlier test failed without these too and its culprit lay elsewhere: as
                # for a test naming nothing, every change is suspect
                suspected = list(by_key)
            if any(key in reasons for key in suspected):
                deferred.append((nodeid, suspected))  # it may fail for that change only
                continue
            blame(nodeid, suspected, after)
        if deferred:
            # one run of them together without the changes this round drops: those passing
            # failed for those; those failing still are bisected now, not a round later (a
            # whole run of the command: onnx-tf's max-pool tests, which also ran the handler
            # helper a traceback of this round named, waited for round 2)
            self.progress(
                f"round {number}: running {_count(len(deferred), 'test')} whose suspects this "
                "round drops again without them..."
            )
            leaving = frozenset(reasons)
            plan = self.replan(frozenset(k for k in by_key if k not in leaving))
            select = [nodeid for nodeid, _ in deferred]
            without = self.run(plan, f"round-{number}-deferred", select=select)
            for nodeid, suspected in deferred:
                if not without.passes(nodeid):
                    blame(nodeid, suspected, without)
        return [DroppedChange(by_key[k], reasons[k], tuple(tests.get(k, ()))) for k in reasons]

    def other_culprits(
        self,
        kept: RefactorPlan,
        suspected: list[str],
        nodeid: str,
        number: int,
        dropped: dict[str, str],
        base_passes: bool = True,
    ) -> list[DroppedChange]:
        """After a bisection for the test `nodeid` found its culprit: the other changes among
        its suspects it fails with, searched together (`culprits`, judged by the test alone,
        without the changes this round drops); its first step runs the test with them all,
        and when it passes, that one run ends the search. A test that fails with any one of
        several changes (xitorch's memory-leak tests: after any compiled call the garbage
        collector's scan meets a dead `weakref.proxy` Dynamo made) otherwise has one change
        dropped a round, each round a whole run of the command. Of a caller and a callee
        that fail only together, the test passes once the callee is dropped: the caller
        stays, as before. `base_passes`: whether the test passed alone with the changes kept
        that are not `suspected` (the bisection ran it so)."""
        return self.culprits(
            kept,
            suspected,
            number,
            _Judge.alone(nodeid),
            dropped=frozenset(dropped),
            base_passes=base_passes,
        )

    def bisect_every_change(
        self, kept: RefactorPlan, number: int, failed: CommandRun, together: Sequence[str] = ()
    ) -> list[DroppedChange]:
        """The changes the whole command fails with. Judged by its exit status: `bisect` over
        every change kept, which always ends on a change, one a round. Judged by the tests
        `together` (they fail in the whole command's run and pass alone): every culprit in
        this round, searched together (`culprits`), the changes the tests entered when run
        alone first (in that order), then the others; each step a run of the tests' own files
        when they fail there too (`narrowed`), else of the whole command (xitorch's
        memory-leak tests fail after any of several compiled calls in the tests before them:
        about 5 min a whole run loaded, and before, log2(n) of them a culprit)."""
        every = [c.key for c in kept.changes]
        if not together:
            drop = self.bisect(kept, every, None, number, failed)
            assert drop is not None, "judged by the command, a bisection ends on a change"
            return [drop]
        judge, failing = self.narrowed(kept, number, tuple(together), failed)
        entered = [k for t in together for k in self.exercised.get(t, ()) if k in every]
        ordered = list(dict.fromkeys(entered + every))
        # the unchanged code passes (the run on the original code) and every change fails
        return self.culprits(
            kept,
            ordered,
            number,
            judge,
            known_failing=(frozenset(every), failing),
            base_passes=True,
            likely=frozenset(entered),
        )

    def narrowed(
        self, kept: RefactorPlan, number: int, together: tuple[str, ...], failed: CommandRun
    ) -> tuple[_Judge, CommandRun]:
        """The judge of tests failing only in the whole command's run (`failed`): a run of
        their own test files with every change kept, then, passing there, of those files and
        the files run before each of them (in the run's order), the window of preceding files
        doubled each time (1, 2, 4...), until the tests fail in one (each a run to tell); else,
        once a window holds every file before them, the whole command. A run's tests are the
        baseline's in those files, in its order. The judge, and the run that failed with every
        change. curvlinops' `test_input_formatting` passes in its file alone and fails after
        `test_spectrum.py`, the file before it: 69 tests a step, against 526 and 20 min a
        whole run loaded."""
        baseline = self.baseline
        name = f"{together[0]}{f' and {len(together) - 1} more' if len(together) > 1 else ''}"
        whole = _Judge(f"{name} with the whole command", (), together)
        if baseline is None:
            return whole, failed
        judging = [n for n in baseline.outcomes if n not in self.set_aside]
        order = list(dict.fromkeys(test_file_of(n) for n in [*failed.outcomes, *judging]))
        own = [f for f in order if f in {test_file_of(t) for t in together}]
        widest = max(order.index(f) for f in own) if own else 0
        window = 0
        while True:
            files = {
                order[i]
                for f in own
                for i in range(max(0, order.index(f) - window), order.index(f) + 1)
            }
            select = tuple(n for n in judging if test_file_of(n) in files)
            if not select or len(select) >= len(judging):
                break
            described = ", ".join(f for f in order if f in files)
            alone = "alone" if window == 0 else f"with up to {_count(window, 'file')} run before"
            self.progress(
                f"round {number}: running {described} {alone} ({_count(len(select), 'test')}) "
                "with every change kept: do the tests failing only with the others fail there?"
            )
            run = self.run(kept, f"round-{number}-narrowed-{window}", select=select)
            narrow = _Judge(f"{name} with {described}", select, together)
            if narrow.failing(run):
                return narrow, run
            if window >= widest:
                break  # every file before them ran: only the whole command is left
            window = max(1, 2 * window)
        self.progress(f"round {number}: they pass there: judged by the whole command")
        return whole, failed

    def culprits(
        self,
        kept: RefactorPlan,
        suspects: Sequence[str],
        number: int,
        judge: _Judge,
        dropped: frozenset[str] = frozenset(),
        known_failing: tuple[frozenset[str], CommandRun] | None = None,
        base_passes: bool = False,
        likely: frozenset[str] | None = None,
    ) -> list[DroppedChange]:
        """Every change among `suspects` (on top of the other changes kept, less `dropped`)
        the judge fails with, found by one search (adaptive group testing): the suspects, in
        order, are taken in groups on top of those accepted so far; a group the judge passes
        with is accepted whole (one run for many innocent changes), a failing one is split
        in halves, down to the single change it fails with, which is dropped; once at least
        half of those decided are culprits (a test failing after any compiled call), the
        rest go one at a time. As a bisection's shortest failing prefix, of a caller and a
        callee failing only together the later, the callee, is dropped. The changes accepted
        end on a run that passed (or are those `base_passes` says pass). `known_failing`: a
        set of changes the judge is known to fail with, and the run that did (no run for
        it); `base_passes`: whether it passes with the other changes kept, none of the
        suspects; if not known, it is run before blaming a change, and failing, every change
        is suspect. `likely`:
        the suspects the tests' attribution names (they ran them), weighed apart from the
        others: many culprits among them do not send the innocent rest one at a time (all
        the suspects when not given)."""
        order = [c.key for c in kept.changes if c.key not in dropped]
        planned = set(order)
        candidates = [k for k in dict.fromkeys(suspects) if k in planned]
        accepted = [k for k in order if k not in set(candidates)]
        likely = frozenset(candidates) if likely is None else likely
        failed_with: dict[frozenset[str], CommandRun] = {}
        if known_failing is not None:
            failed_with[known_failing[0] & planned] = known_failing[1]
        step = 0

        def fails(applied: list[str]) -> bool:
            nonlocal step
            if frozenset(applied) in failed_with:
                return True
            step += 1
            plan = self.replan(frozenset(applied))
            run = self.run(plan, f"round-{number}-group-{step}", select=judge.select)
            if not self._judge_fails(judge, run):
                return False
            failed_with[frozenset(applied)] = run
            return True

        self.progress(
            f"round {number}: searching {_count(len(candidates), 'change')} together for "
            f"{judge.name}..."
        )
        found: list[DroppedChange] = []
        # per part (the likely suspects, the others): changes decided, culprits among them
        decided, guilty = [0, 0], [0, 0]
        parts = [[k for k in candidates if k in likely], [k for k in candidates if k not in likely]]
        pending = [(part, group) for part, group in enumerate(parts) if group]
        while pending:
            part, group = pending.pop(0)
            if len(group) > 1 and guilty[part] >= 2 and 2 * guilty[part] >= decided[part]:
                # dense (a test failing after any compiled call): one at a time
                pending[:0] = [(part, [key]) for key in group[1:]]
                group = group[:1]
            if not fails(accepted + group):
                accepted += group
                decided[part] += len(group)
                base_passes = True
                continue
            if len(group) > 1:
                half = len(group) // 2
                pending[:0] = [(part, group[:half]), (part, group[half:])]
                continue
            if not base_passes:
                if fails(accepted):  # the suspects are not the cause: every change is
                    return self.culprits(
                        kept, order, number, judge, dropped, base_passes=True, likely=likely
                    )
                base_passes = True
            change = next(c for c in kept.changes if c.key == group[0])
            failure = failed_with[frozenset(accepted + group)]
            found.append(self._blamed(change, judge, failure))
            decided[part] += 1
            guilty[part] += 1
        return found

    def _judge_fails(self, judge: _Judge, run: CommandRun) -> bool:
        return bool(judge.failing(run)) if judge.tests else not self._clean(run)

    def _blamed(self, change: PlannedChange, judge: _Judge, failure: CommandRun) -> DroppedChange:
        """The change dropped for failing `judge` in the run `failure`."""
        if not judge.tests:
            described = failure.describe()
            return DroppedChange(change, f"the command fails with it (bisected): {described}")
        failing = judge.failing(failure) or list(judge.tests)
        outcome = failure.outcomes.get(failing[0])
        error = outcome.error if outcome and outcome.error else failure.describe()
        if judge.tests == judge.select:
            return DroppedChange(
                change, f"{failing[0]} fails with it (bisected): {error}", tuple(failing)
            )
        return DroppedChange(
            change,
            f"{failing[0]} fails with it, run with the other tests (bisected): {error}",
            tuple(failing),
        )

    def bisect(
        self,
        kept: RefactorPlan,
        suspects: list[str],
        nodeid: str | None,
        number: int,
        failed: CommandRun,
        together: Sequence[str] = (),
        dropped: frozenset[str] = frozenset(),
    ) -> DroppedChange | None:
        """The change among `suspects` (on top of the other changes kept) with which the judge
        (the test `nodeid` alone, or the whole command) fails; None when the test, run alone,
        failed in no step, and passes alone with every change kept too: it failed only with
        the other tests it ran with (larq's `test_checkpoint[eager]`, after a test whose
        compiled `scatter_*` failed inside a quantized scope), and no change is its culprit
        alone (before, the last suspect was dropped unseen: no prefix failing, the search
        ends on it).

        `together`: tests that fail only in the whole command's run (alone they pass); the
        whole command then judges by them alone, not by any test failing: another test failing
        in a step (zuko's `test_multivariate_transforms` draws unseeded random data and fails
        now and then) says nothing about these, and would have the bisection drop whichever
        change ends the prefix it failed with (zuko's innocent `Linear.forward`).

        The suspects are bisected in the order given: a test's traceback (outermost frame
        first) or the order it entered them, the caller before its callee. Of two changes that
        fail only together (each alone passes: a nested compiled callee whose defaults the
        caller's graph cannot guard, HY423), the later, the callee, is dropped, and the caller
        kept: its graph runs the callee inlined, so compiling the caller alone keeps the
        speed-up of both.

        `dropped`: changes this round drops already (for other tests): left out of every step,
        as the next round will have them."""
        order = [c.key for c in kept.changes if c.key not in dropped]
        planned = set(order)
        candidates = [k for k in dict.fromkeys(suspects) if k in planned]
        suspected = set(candidates)
        others = [k for k in order if k not in suspected]
        if nodeid is not None:
            judge = _Judge.alone(nodeid)
        elif together:
            judge = _Judge(f"{together[0]} with the whole command", (), tuple(together))
        else:
            judge = _Judge("the command")
        step = 0
        last_failure = failed

        def fails(prefix: list[str]) -> bool:
            nonlocal step, last_failure
            step += 1
            plan = self.replan(frozenset(others + prefix))
            run = self.run(plan, f"round-{number}-bisect-{step}", select=judge.select)
            failing = self._judge_fails(judge, run)
            if failing:
                last_failure = run
            return failing

        self.progress(
            f"round {number}: bisecting {_count(len(candidates), 'change')} for {judge.name}..."
        )
        if nodeid is not None and not others and not fails(candidates):
            # every change suspect (its failure named none): one run of it alone with them
            # all tells first whether it fails alone at all, not log2(n) runs at the end
            return None
        if others and fails([]):
            candidates, others = order, []  # the suspects were not the cause: all are
        low, high = 0, len(candidates)
        while high - low > 1:
            middle = (low + high) // 2
            if fails(candidates[:middle]):
                high = middle
            else:
                low = middle
        if nodeid is not None and last_failure is failed and not fails(candidates):
            return None  # it passes alone with every change: nothing to blame on it
        culprit = candidates[high - 1]
        change = next(c for c in kept.changes if c.key == culprit)
        return self._blamed(change, judge, last_failure)
