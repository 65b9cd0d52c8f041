"""The real-code oracle's blame: which rewritten functions a library's newly failing tests fail
with, found by `hybridize refactor --verify` run on those tests alone.

A traceback names the rewritten functions whose frames it holds, and a test's profile names
those it ran in Python; neither is the culprit reliably. A compiled callee whose trace has
finished leaves no frame, so the traceback names its caller; a failure raised while
`tf.function` binds the arguments (larq's `Variable is unhashable`) or in Dynamo's guard code
runs none of the function's Python, so nothing names it. `--verify` (hybridize/verify/)
already settles both: a traceback's blame holds only once the test passes without the change,
and a test naming several changes or none has its culprit bisected. So the oracle asks it,
with the oracle's own pytest command on the failing tests, and reads its verify report: the
changes it dropped are the unsafe rewrites, each with the tests that failed with it; a test
passing when run again alone (flaky there, or passing there with every change kept) is counted
apart as not reproduced: it blames nothing. The analysis and the plan are the ones the oracle's
rewrite made (same sources, options and cache), checked against the rewrite.
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hybridize.analyzer.summaries.keys import FunctionKey


def verify_command(pytest_words: Sequence[str], pythonpath: Sequence[str]) -> str:
    """The shell command line `--verify` runs in its copy of the library: the oracle's pytest
    command, with the library's site folders after the copy (`--verify` puts the copy and its
    plugin first on `$PYTHONPATH`)."""
    extra = os.pathsep.join(pythonpath)
    return f'PYTHONPATH="$PYTHONPATH{os.pathsep}{extra}" {shlex.join(pytest_words)}'


@dataclass(frozen=True, slots=True)
class Culprit:
    """A rewrite the verification dropped: its key, why, and the tests that failed with it."""

    key: str
    reason: str
    tests: tuple[str, ...]


@dataclass(slots=True)
class Blame:
    """What the verification of the newly failing tests said."""

    culprits: list[Culprit] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    """Keys of the rewrites the failing tests pass with."""
    flaky: list[str] = field(default_factory=list)
    """Tests that passed when run again alone: nothing blamed."""
    not_judged: list[str] = field(default_factory=list)
    """Tests that fail in the verification's own run without any change (they passed in the
    oracle's run of their whole file: they depend on the tests run before them)."""
    rounds: int = 0
    runs: int = 0
    seconds: float = 0.0
    error: str = ""
    """Why the verification judged nothing ("" when it did)."""

    def culprits_of(self, nodeid: str) -> list[str]:
        return [c.key for c in self.culprits if nodeid in c.tests]

    def unexplained(self, nodeids: Iterable[str]) -> list[str]:
        """The failing tests the verification explains by no dropped change: all when it
        judged nothing, else those it could not judge. (Its last round passes every other
        one: each is explained by the changes dropped, named or not by its own run.)"""
        if self.error:
            return list(nodeids)
        return [n for n in nodeids if n in self.not_judged]

    def not_reproduced(self, nodeids: Iterable[str]) -> list[str]:
        """The failing tests that did not fail again when the verification ran them: flaky ones
        (they failed there, then passed run again) and those that passed there with every
        change kept (named by no dropped change, not already failing without the changes).
        None when the verification judged nothing."""
        if self.error:
            return []
        failed_again = {test for culprit in self.culprits for test in culprit.tests}
        return [
            n
            for n in nodeids
            if n in self.flaky or (n not in failed_again and n not in self.not_judged)
        ]

    def plan_differences(self, rewritten: Iterable[str]) -> list[str]:
        """Keys rewritten by the oracle but not planned by the verification, or the other way
        round: none when both made the same plan."""
        planned = {*self.kept, *(c.key for c in self.culprits)}
        return sorted(planned.symmetric_difference(rewritten))


def _key(change: dict[str, Any]) -> str:
    return str(FunctionKey(str(change["file"]), str(change["qualname"])))


def read_blame(report: Path, status: int, stderr: str) -> Blame:
    """The blame in the verify report at `report`, written by a `hybridize refactor --verify`
    that exited with `status`; a blame with an `error` when it wrote none."""
    if status != 0 or not report.is_file():
        lines = [line for line in stderr.splitlines() if line.strip()]
        return Blame(error=f"exit {status}: " + " | ".join(lines[-3:]))
    document = json.loads(report.read_text(encoding="utf-8"))
    return Blame(
        culprits=[
            Culprit(_key(dropped), str(dropped["reason"]), tuple(dropped.get("tests", ())))
            for dropped in document["dropped"]
        ],
        kept=[_key(change) for change in document["verified"]],
        flaky=list(document.get("flaky", ())),
        not_judged=list(document.get("already_failing", ())),
        rounds=int(document["rounds"]),
        runs=int(document["runs"]),
        seconds=float(document["seconds"]),
    )
