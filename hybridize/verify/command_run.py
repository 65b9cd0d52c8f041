"""One run of the user's verify command on the project's copy, within time and memory limits.

The command is a shell command line (`pytest -q tests/`, `python train.py`), run in the copy's
root as the user would run it in the project's, with:

- the copy first on `PYTHONPATH`, and the folder each rewritten package is imported from (a
  `src/` layout), so the copy's code runs, not an installed (or editable) one; the pytest
  plugin refuses a run where a rewritten package is imported from elsewhere;
- the pytest plugin (`pytest_plugin`, copied beside the run as `PLUGIN_MODULE`) loaded through
  `PYTEST_ADDOPTS`: every test's outcome, its error's frames and, when asked, the rewritten
  functions it ran; a command that runs no pytest simply records nothing;
- its own process group, an address-space limit (`RLIMIT_AS`) and a wall-clock limit, after
  which the whole group is killed, as it is when the verification is interrupted (a signal
  to hybridize does not reach a group of its own);
- no bytecode written: the copy's files are rewritten between runs within the same second, and
  a stale `.pyc` of the same size and time would run the previous round's code.

A run of a real suite takes minutes (tensorflow-gnn's six files: over five on 2 busy cores):
while it runs, every `CommandSetting.heartbeat_seconds` the caller is told how far it got
(`RunSoFar`: the tests done and failing, read from the plugin's records as they are written),
so that a long verification does not look stuck.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from hybridize.compiler.protocol import limited_child
from hybridize.verify.outcomes import PASSED, Outcome, collected_tests, read_outcome_file

PLUGIN_MODULE = "_hybridize_verify_plugin"
"""The plugin's module name in the test run: a name of its own, so that the run needs neither
hybridize nor its dependencies, and shadows none of the project's modules."""

OUTPUT_TAIL = 3000
"""Characters of the command's output kept for the messages about a failing run."""


def install_plugin(folder: Path) -> Path:
    """Copy the pytest plugin into `folder` as `PLUGIN_MODULE`; `folder` then goes on the
    run's `PYTHONPATH` (it is also the real-code oracle's way of loading it)."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(Path(__file__).with_name("pytest_plugin.py"), folder / f"{PLUGIN_MODULE}.py")
    return folder


@dataclass(frozen=True, slots=True)
class RunLimits:
    """Seconds one run of the command may take, and its address space in MiB (0: none)."""

    seconds: float = 1800.0
    memory_mib: int = 8192


@dataclass(frozen=True, slots=True)
class CommandSetting:
    """How every run of the command is made: the command, the copy it runs in, where the
    plugin and the runs' records go, the limits, and the packages the copy must shadow
    ({package: folder in the copy}) with the import roots they need on `PYTHONPATH`."""

    command: str
    copy: Path
    records: Path
    plugin_folder: Path
    limits: RunLimits
    shadow: Mapping[str, Path] = field(default_factory=dict)
    import_roots: tuple[Path, ...] = ()
    heartbeat_seconds: float = 60.0
    """Seconds between two reports of a run still going (`run_command`'s `on_wait`)."""


@dataclass(frozen=True, slots=True)
class RunSoFar:
    """How far a run still going got: seconds since it started, the tests collected (0 before
    pytest has collected them, or for a command that runs no pytest), done and failing."""

    seconds: float
    collected: int
    done: int
    failing: int

    def describe(self) -> str:
        """The progress line's words: "still running, 120 of 303 tests done (2 failing), 180 s",
        or the seconds alone before any test is known."""
        if not self.collected and not self.done:
            return f"still running, {self.seconds:.0f} s"
        total = f" of {self.collected}" if self.collected else ""
        failing = f" ({self.failing} failing)" if self.failing else ""
        return f"still running, {self.done}{total} tests done{failing}, {self.seconds:.0f} s"


@dataclass(slots=True)
class CommandRun:
    """What one run of the command did."""

    status: int | None
    """The exit status; None when the run was killed at its time limit."""
    seconds: float
    outcomes: dict[str, Outcome]
    """Every test the plugin saw end, by test id (none for a command that runs no pytest)."""
    collect_errors: dict[str, str]
    output: str
    """The end of the command's output (stdout and stderr together)."""
    timeout: float

    @property
    def timed_out(self) -> bool:
        return self.status is None

    @property
    def succeeded(self) -> bool:
        return self.status == 0

    def passes(self, nodeid: str) -> bool:
        outcome = self.outcomes.get(nodeid)
        return outcome is not None and outcome.outcome in (PASSED, "skipped")

    def describe(self) -> str:
        """The run's result in words: its status and the last line of its output."""
        status = (
            f"did not finish within {self.timeout:g} s"
            if self.status is None
            else f"exited with status {self.status}"
        )
        lines = [line.strip() for line in self.output.splitlines() if line.strip()]
        return f"{status}: {lines[-1]}" if lines else status


def run_command(
    setting: CommandSetting,
    label: str,
    *,
    select: Sequence[str] = (),
    trace: Path | None = None,
    on_wait: Callable[[RunSoFar], None] | None = None,
) -> CommandRun:
    """Run the command once in the copy as it is now. `select`: only these test ids (the
    plugin deselects the others); `trace`: the JSON list of rewritten functions whose calls
    each test records; `on_wait`: told how far the run got, every `heartbeat_seconds` it
    goes on."""
    setting.records.mkdir(parents=True, exist_ok=True)
    outcomes_path = setting.records / f"{label}.jsonl"
    log_path = setting.records / f"{label}.log"
    outcomes_path.unlink(missing_ok=True)
    env = _environment(setting, outcomes_path, trace)
    if select:
        selection = setting.records / f"{label}.select"
        selection.write_text("".join(f"{nodeid}\n" for nodeid in select), encoding="utf-8")
        env["HYBRIDIZE_VERIFY_SELECT"] = str(selection)
    started = time.perf_counter()
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            setting.command,
            shell=True,
            cwd=setting.copy,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            preexec_fn=limited_child(setting.limits.memory_mib),
        )
        try:
            status = _wait(process, setting, started, outcomes_path, on_wait)
            if status is None:
                _kill_group(process)
        except BaseException:  # interrupted (Ctrl-C, SIGTERM): the run, in a session of its
            _kill_group(process)  # own that no signal to ours reaches, must not outlive it
            raise
    seconds = time.perf_counter() - started
    outcomes, collect_errors = read_outcome_file(outcomes_path)
    output = log_path.read_bytes()[-OUTPUT_TAIL:].decode("utf-8", "replace")
    return CommandRun(status, seconds, outcomes, collect_errors, output, setting.limits.seconds)


def _wait(
    process: subprocess.Popen[bytes],
    setting: CommandSetting,
    started: float,
    outcomes_path: Path,
    on_wait: Callable[[RunSoFar], None] | None,
) -> int | None:
    """The run's exit status, or None when its time limit passed first; `on_wait` is told
    how far it got every `heartbeat_seconds` meanwhile."""
    deadline = started + setting.limits.seconds
    while True:
        left = deadline - time.perf_counter()
        if left <= 0:
            return None
        wait = left if on_wait is None else min(left, setting.heartbeat_seconds)
        try:
            return process.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            if on_wait is not None and time.perf_counter() < deadline:
                on_wait(_so_far(outcomes_path, time.perf_counter() - started))


def _so_far(outcomes_path: Path, seconds: float) -> RunSoFar:
    """How far the run got, from the records the plugin has written so far."""
    outcomes, _ = read_outcome_file(outcomes_path)
    failing = sum(1 for o in outcomes.values() if o.outcome not in (PASSED, "skipped"))
    return RunSoFar(seconds, len(collected_tests(outcomes_path)), len(outcomes), failing)


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """Kill the command and everything it started (its own process group)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        process.kill()
    process.wait()


def _environment(setting: CommandSetting, outcomes: Path, trace: Path | None) -> dict[str, str]:
    inherited = {k: v for k, v in os.environ.items() if not k.startswith("HYBRIDIZE_VERIFY_")}
    paths = [str(setting.copy), *(str(p) for p in setting.import_roots)]
    paths.append(str(setting.plugin_folder))
    if inherited.get("PYTHONPATH"):
        paths.append(inherited["PYTHONPATH"])
    addopts = inherited.get("PYTEST_ADDOPTS", "")
    env = {
        **inherited,
        "PYTHONPATH": os.pathsep.join(dict.fromkeys(paths)),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTEST_ADDOPTS": f"{addopts} -p {PLUGIN_MODULE}".strip(),
        "HYBRIDIZE_VERIFY_OUTCOMES": str(outcomes),
        "HYBRIDIZE_VERIFY_ROOT": str(setting.copy),
        "HYBRIDIZE_VERIFY_SHADOW": ",".join(
            f"{package}={folder}" for package, folder in sorted(setting.shadow.items())
        ),
    }
    if trace is not None:
        env["HYBRIDIZE_VERIFY_TRACE"] = str(trace)
    return env
