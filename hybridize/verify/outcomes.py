"""Test outcomes before and after the rewrite, and what they say about the rewritten functions
(`hybridize refactor --verify`, and the real-code oracle of benchmarks/realcode_oracle.py).

A test that passed on the original copy and fails, errors, or no longer runs (its file failed
to import, crashed or timed out) on the rewritten copy is *newly failing*: the rewrite changed
the library's behaviour, so some rewritten function it ran was not safe to compile. Tests that
did not pass before say nothing (the environment may lack what they need) and are not
compared.

A newly failing test names the rewritten functions it ran (`exercised`, from the profile hook
of the rerun) and those its traceback passes through (`blamed`: the error's frames fall inside
the function's lines). Neither is the culprit for sure (a compiled callee leaves no frame, a
binding error runs no Python of the function): the verification (`verification`) confirms a
blame by a run without the change and bisects the rest.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hybridize.verify.rewritten import RewrittenFunction

PASSED = "passed"


@dataclass(slots=True)
class Outcome:
    """One test's result in one run: passed, failed, error, skipped, or a file-level failure
    (collect_error, crashed, timeout) given to every test the file held."""

    nodeid: str
    outcome: str
    error: str = ""
    error_text: str = ""
    frames: list[tuple[str, int]] = field(default_factory=list)
    exercised: list[str] | None = None


def test_file_of(nodeid: str) -> str:
    """The test file of a pytest node id (`tests/x.py::TestA::test_b`: not a function key)."""
    return nodeid.partition("::")[0]


def read_outcomes(lines: Iterable[str]) -> tuple[dict[str, Outcome], dict[str, str]]:
    """The test outcomes and the collection errors (by test file) of the plugin's JSON lines.
    A test reported twice keeps its last record (a rerun replaces a crashed chunk's)."""
    outcomes: dict[str, Outcome] = {}
    collect_errors: dict[str, str] = {}
    for line in lines:
        line = line.strip()
        if not line:
            continue
        try:
            record: dict[str, Any] = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut short by a crash
        kind = record.get("kind")
        if kind == "test":
            outcomes[record["nodeid"]] = Outcome(
                record["nodeid"],
                record.get("outcome", "missing"),
                record.get("error", ""),
                record.get("error_text", ""),
                [(str(f[0]), int(f[1])) for f in record.get("frames", [])],
                record.get("exercised"),
            )
        elif kind == "collect_error":
            collect_errors[test_file_of(record["nodeid"])] = record.get("error", "")
    return outcomes, collect_errors


def read_outcome_file(path: Path) -> tuple[dict[str, Outcome], dict[str, str]]:
    if not path.exists():
        return {}, {}
    return read_outcomes(path.read_text(encoding="utf-8", errors="replace").splitlines())


def collected_tests(path: Path) -> list[str]:
    """The test ids the plugin says pytest collected (none when it crashed before, or has not
    collected yet)."""
    if not path.exists():
        return []
    nodeids: list[str] = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut short by a crash, or being written
        if record.get("kind") == "collected":
            nodeids.extend(record["nodeids"])
    return nodeids


@dataclass(frozen=True, slots=True)
class NewFailure:
    """A test that passed before the rewrite and does not after."""

    nodeid: str
    outcome: str
    error: str


def newly_failing(
    before: Mapping[str, Outcome],
    after: Mapping[str, Outcome],
    file_failures: Mapping[str, str] | None = None,
) -> list[NewFailure]:
    """Tests that passed before and failed, errored or went missing after. A missing test takes
    its file's failure after (a collection error, a crash, a timeout) when there is one."""
    file_failures = file_failures or {}
    failures: list[NewFailure] = []
    for nodeid, outcome in sorted(before.items()):
        if outcome.outcome != PASSED:
            continue
        later = after.get(nodeid)
        if later is None:
            reason = file_failures.get(test_file_of(nodeid), "did not run after the rewrite")
            failures.append(NewFailure(nodeid, "missing", reason))
        elif later.outcome not in (PASSED, "skipped"):
            failures.append(NewFailure(nodeid, later.outcome, later.error))
    return failures


def count(outcomes: Mapping[str, Outcome], kind: str = PASSED) -> int:
    return sum(1 for o in outcomes.values() if o.outcome == kind)


def blamed_functions(
    frames: Iterable[tuple[str, int]],
    functions: Iterable[RewrittenFunction],
    path_of: Mapping[str, str],
) -> list[str]:
    """Keys of the rewritten functions whose lines hold one of the error's frames; `path_of`
    maps a function's report file to its absolute path in the rewritten copy. The innermost
    function of nested ones is named."""
    by_path: dict[str, list[RewrittenFunction]] = {}
    for function in functions:
        by_path.setdefault(path_of[function.file], []).append(function)
    blamed: list[str] = []
    for path, line in frames:
        holders = [f for f in by_path.get(path, []) if f.contains(line)]
        if holders:
            innermost = max(holders, key=lambda f: f.first_line)
            if innermost.key not in blamed:
                blamed.append(innermost.key)
    return blamed


def functions_named_in_error(error: str, functions: Iterable[RewrittenFunction]) -> list[str]:
    """Keys of the rewritten functions the error line names the way Python names a function
    whose arguments do not bind (`TypeError: Model.step() missing 1 required positional
    argument: 'self'`): its qualified name (a nested one's with `.<locals>`) and `(`. A compiled
    function called with arguments that do not bind fails before its body runs, so neither
    the traceback nor the functions a test ran name it: torch.compile's wrapper of a method,
    called in its compiled caller's graph after a graph break, gets no `self`."""
    named: list[str] = []
    for function in functions:
        parts = [re.escape(part) for part in function.qualname.split(".")]
        pattern = r"(?<![\w.])" + r"(?:\.<locals>)?\.".join(parts) + r"\("
        if re.search(pattern, error) and function.key not in named:
            named.append(function.key)
    return named


_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
_MODULE_PATH = re.compile(r"^(?:[A-Za-z_]\w*\.)+(?=[A-Za-z_]\w*:)")


def _same_error_key(nodeid: str, error: str) -> tuple[str, str]:
    """An error line with object addresses and the exception's module path left out (a
    repeated error may name its type `ConversionError` or
    `tensorflow.python.autograph.impl.api.ConversionError`)."""
    return test_file_of(nodeid), _MODULE_PATH.sub("", _ADDRESS.sub("0x?", error))


def borrow_blame(failures: Mapping[str, tuple[str, list[str]]]) -> dict[str, list[str]]:
    """Blame for newly failing tests whose traceback names no rewritten function:
    {nodeid: (error line, blamed keys)} -> {nodeid: keys borrowed}. TensorFlow reports a
    repeated conversion or tracing error without the user frames it quoted the first time, so
    a test of the same file failing with the same error (object addresses aside) shares the
    blame of the one whose traceback named the function."""
    named: dict[tuple[str, str], list[str]] = {}
    for nodeid, (error, blamed) in sorted(failures.items()):
        if blamed:
            key = _same_error_key(nodeid, error)
            named.setdefault(key, [])
            named[key].extend(k for k in blamed if k not in named[key])
    borrowed: dict[str, list[str]] = {}
    for nodeid, (error, blamed) in sorted(failures.items()):
        key = _same_error_key(nodeid, error)
        if not blamed and key in named:
            borrowed[nodeid] = list(named[key])
    return borrowed


RAISES_ASSERTIONS = ("assertRaises", "assertRaisesRegex", "assertRaisesRegexp", "raises")
"""unittest's, absltest's and pytest's "this must raise" (called, or as a context manager)."""


def _is_raises_call(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name in RAISES_ASSERTIONS or name.startswith("assertRaises")


def expects_an_error(source: str, line: int) -> bool:
    """Whether `line` of a test file runs where the test asserts that an exception is raised:
    inside `self.assertRaises(Error, f, ...)` or the body of `with self.assertRaises*(...)` /
    `with pytest.raises(...)`.

    A rewritten function that still raises there, but another exception, changed only which
    error invalid input gets: `tf.function` reports a shape mismatch at trace time as a
    `ValueError` where eager code raises `InvalidArgumentError`, and Python iteration of a
    tensor as `OperatorNotAllowedInGraphError`. Such tests are reported apart from the
    unsafe rewrites, which change what valid programs compute.
    """
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and _is_raises_call(node)
            and node.lineno <= line <= (node.end_lineno or node.lineno)
        ):
            return True
        if isinstance(node, ast.With | ast.AsyncWith) and any(
            _is_raises_call(item.context_expr) for item in node.items
        ):
            body_start = node.body[0].lineno
            if body_start <= line <= (node.end_lineno or body_start):
                return True
    return False


def error_changed(error: str, frames: Iterable[tuple[str, int]], test_path: str) -> bool:
    """A newly failing test whose innermost frame in its own file expects an exception and
    got another one (not "... not raised": a check that vanished is a real change)."""
    if not error or error.startswith("AssertionError"):
        return False
    lines = [line for path, line in frames if path == test_path]
    if not lines:
        return False
    try:
        source = Path(test_path).read_text(encoding="utf-8")
    except OSError:
        return False
    return expects_an_error(source, lines[-1])
