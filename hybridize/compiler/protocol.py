"""The worker subprocess protocol: a job file in, JSON-lines events out, limits and restarts.

The CLI process never imports TensorFlow or PyTorch. It writes a *job* (JSON: the project copy, the entry,
the candidates, the settings) and starts `python -m hybridize.compiler.worker JOB` in its own
process group, with an address-space limit (`RLIMIT_AS`), no core dumps, and a pipe whose file
descriptor is named by `HYBRIDIZE_PROTOCOL_FD`. The user's program keeps stdout and stderr
(redirected to files); the worker speaks only on the pipe, one JSON object per line:

    {"event": "hello", "pid": 123, "tensorflow": "2.21.0", "frameworks": {"tensorflow": "2.21.0"}}
    {"event": "capture_start", "kind": "entry"}
    {"event": "capture_done", "capture": {...}}
    {"event": "function_start", "key": "main.py::train_step"}
    {"event": "function_done", "key": "main.py::train_step", "result": {...}}
    {"event": "done"}

Time limits are kept here, per phase: start-up (importing the frameworks), the instrumented entry run
and each function. When the worker dies (a crash, the memory limit) or a limit passes (a hang),
the process group is killed, the function in progress is reported as `crash` or `timeout` with
the end of the worker's stderr, and a new worker resumes with the remaining functions (it reruns
the capture first: recorded arguments live only in the worker's memory). A capture that
crashes or hangs is reported and the new worker measures without it.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import select
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PROTOCOL_FD_ENV = "HYBRIDIZE_PROTOCOL_FD"


@dataclass(frozen=True, slots=True)
class Limits:
    """Limits of one worker: seconds per phase, address space in MiB (0: no limit)."""

    startup_seconds: float = 120.0
    capture_seconds: float = 600.0
    function_seconds: float = 180.0
    memory_mib: int = 8192


@dataclass(slots=True)
class WorkerOutcome:
    """What the workers reported for one job, whatever happened to them."""

    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    capture: dict[str, Any] | None = None
    capture_error: str | None = None
    errors: list[str] = field(default_factory=list)
    tensorflow: str | None = None
    frameworks: dict[str, str] = field(default_factory=dict)
    """{framework: version} the workers imported (only the frameworks the candidates use)."""
    restarts: int = 0


Event = dict[str, Any]
EventSink = Callable[[Event], None]


class Channel:
    """The worker's side of the pipe: one JSON object per line, flushed at once."""

    def __init__(self, fd: int) -> None:
        self._stream = os.fdopen(fd, "w", buffering=1, encoding="utf-8")

    def send(self, event: str, **payload: Any) -> None:
        line = json.dumps({"event": event, **payload}, allow_nan=False, default=str)
        self._stream.write(line + "\n")
        self._stream.flush()


def limited_child(memory_mib: int) -> Callable[[], None]:
    """The `preexec_fn` of a compiler child process: a session of its own (a timeout kills
    its whole group), no core dumps, and at most `memory_mib` MiB of address space (none when
    0). Shared by the per-function worker here and the whole-program run
    (`whole_program`): both run user code that may loop or grow without bound."""

    def apply() -> None:
        os.setsid()
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if memory_mib > 0:
            size = memory_mib * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (size, size))

    return apply


def _tail(path: Path, limit: int = 1500) -> str:
    try:
        data = path.read_bytes()
    except OSError:
        return ""
    text = data[-limit:].decode("utf-8", "replace")
    lines = [
        line
        for line in text.splitlines()
        if "oneDNN custom operations" not in line and "absl::InitializeLog" not in line
    ]
    return "\n".join(lines).strip()


def _describe_exit(code: int | None) -> str:
    if code is None:
        return "still running"
    if code < 0:
        try:
            return f"killed by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit status {code}"


class _Worker:
    def __init__(self, python: str, job: dict[str, Any], workdir: Path, limits: Limits) -> None:
        self.job_path = workdir / f"job-{time.monotonic_ns()}.json"
        self.job_path.write_text(json.dumps(job), encoding="utf-8")
        self.stdout_path = workdir / "worker-stdout.txt"
        self.stderr_path = workdir / "worker-stderr.txt"
        read_fd, write_fd = os.pipe()
        env = {
            **os.environ,
            PROTOCOL_FD_ENV: str(write_fd),
            "TF_CPP_MIN_LOG_LEVEL": "2",
            "PYTHONHASHSEED": "0",
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        with open(self.stdout_path, "ab") as out, open(self.stderr_path, "ab") as err:
            self.process = subprocess.Popen(
                [python, "-m", "hybridize.compiler.worker", str(self.job_path)],
                cwd=job.get("cwd") or None,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                env=env,
                pass_fds=(write_fd,),
                preexec_fn=limited_child(limits.memory_mib),
            )
        os.close(write_fd)
        self.read_fd = read_fd
        self.buffer = b""
        self.eof = False
        self.closed = False

    def next_event(self, deadline: float) -> Event | None:
        """The next event, or None at end of stream or when the deadline passes."""
        while True:
            newline = self.buffer.find(b"\n")
            if newline >= 0:
                line, self.buffer = self.buffer[:newline], self.buffer[newline + 1 :]
                try:
                    event = json.loads(line)
                except ValueError:
                    continue
                if isinstance(event, dict):
                    return event
                continue
            if self.eof:
                return None
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            ready, _, _ = select.select([self.read_fd], [], [], min(remaining, 1.0))
            if ready:
                chunk = os.read(self.read_fd, 65536)
                if not chunk:
                    self.eof = True
                else:
                    self.buffer += chunk

    def kill(self) -> None:
        if self.closed:
            return
        self.closed = True
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                self.process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=30)
        os.close(self.read_fd)

    def finish(self) -> None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=30)
        self.kill()


def run_job(
    job: dict[str, Any],
    limits: Limits,
    *,
    python: str | None = None,
    on_event: EventSink | None = None,
    workdir: Path | None = None,
) -> WorkerOutcome:
    """Run a job to the end, restarting the worker after each crash or hang."""
    python = python or sys.executable
    outcome = WorkerOutcome()
    keys = [c["key"] for c in job.get("candidates", [])]
    notify = on_event or (lambda event: None)
    own_dir = None
    if workdir is None:
        own_dir = tempfile.TemporaryDirectory(prefix="hybridize-worker-")
        workdir = Path(own_dir.name)
    capture_enabled = bool(job.get("entry") or job.get("pytest"))
    worker: _Worker | None = None
    try:
        for _ in range(len(keys) + 3):
            remaining = [k for k in keys if k not in outcome.results]
            if not remaining and (outcome.capture is not None or not capture_enabled):
                break
            attempt = {**job, "skip": sorted(outcome.results), "capture": capture_enabled}
            worker = _Worker(python, attempt, workdir, limits)
            phase, current = "startup", None
            deadline = time.monotonic() + limits.startup_seconds
            finished = False
            while True:
                event = worker.next_event(deadline)
                if event is None:
                    break
                kind = event.get("event")
                if kind == "hello":
                    outcome.tensorflow = event.get("tensorflow")
                    outcome.frameworks.update(event.get("frameworks") or {})
                    phase, deadline = "ready", time.monotonic() + limits.startup_seconds
                elif kind == "capture_start":
                    phase = "capture"
                    deadline = time.monotonic() + limits.capture_seconds + 30
                    notify(event)
                elif kind == "capture_done":
                    if outcome.capture is None:
                        outcome.capture = event.get("capture")
                    phase, deadline = "ready", time.monotonic() + limits.startup_seconds
                    notify(event)
                elif kind == "function_start":
                    phase, current = "function", str(event.get("key"))
                    deadline = time.monotonic() + limits.function_seconds
                    notify(event)
                elif kind == "function_done":
                    key = str(event.get("key"))
                    outcome.results[key] = event.get("result") or {}
                    phase, current = "ready", None
                    deadline = time.monotonic() + limits.startup_seconds
                    notify(event)
                elif kind == "fatal":
                    outcome.errors.append(str(event.get("message")))
                elif kind == "done":
                    finished = True
                    break
            timed_out = not finished and not worker.eof
            worker.kill() if timed_out else worker.finish()
            if finished:
                break
            outcome.restarts += 1
            how = (
                "no answer within the time limit"
                if timed_out
                else _describe_exit(worker.process.returncode)
            )
            tail = _tail(worker.stderr_path)
            detail = f"{how}" + (f"; stderr ends with:\n{tail}" if tail else "")
            if phase == "function" and current is not None:
                status = "timeout" if timed_out else "crash"
                limit = limits.function_seconds
                message = (
                    f"the function ran longer than {limit:g} s ({detail})"
                    if timed_out
                    else f"the worker died while measuring it ({detail})"
                )
                outcome.results[current] = {"status": status, "error": message}
                notify(
                    {"event": "function_done", "key": current, "result": outcome.results[current]}
                )
            elif phase == "capture":
                outcome.capture_error = (
                    f"the instrumented run did not finish within {limits.capture_seconds:g} s "
                    f"({detail})"
                    if timed_out
                    else f"the instrumented run crashed the worker ({detail})"
                )
                capture_enabled = False
                notify({"event": "capture_done", "capture": None, "error": outcome.capture_error})
            else:
                message = f"the worker failed before measuring ({detail})"
                outcome.errors.append(message)
                for key in keys:
                    if key not in outcome.results:
                        outcome.results[key] = {"status": "error", "error": message}
                        notify(
                            {"event": "function_done", "key": key, "result": outcome.results[key]}
                        )
                break
        for key in keys:
            if key not in outcome.results:
                outcome.results[key] = {
                    "status": "error",
                    "error": "not measured (too many restarts)",
                }
        return outcome
    finally:
        if worker is not None:
            worker.kill()  # interrupted (Ctrl-C, SIGTERM): never leave a worker behind
        if own_dir is not None:
            own_dir.cleanup()
