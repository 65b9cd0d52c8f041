"""pytest plugin of `hybridize refactor --verify` and of the real-code oracle, loaded into the
user's (or a library's) own test run, in the environment those tests need: so it uses only the
standard library and pytest, and is imported as a module file of its own (`command_run` copies
it beside the run as `PLUGIN_MODULE`), never as part of the hybridize package.

Both compare test outcomes before and after `hybridize refactor`, and need from each test run
three things that pytest's own output does not give reliably:

- one outcome per test, written as soon as the test ends (a JSON line in
  `$HYBRIDIZE_VERIFY_OUTCOMES`), so that a run that crashes or times out half way still tells
  which tests ran;
- for a failing test, the exception's text and the frames of its traceback (file, line), so the
  rewritten function an error comes from can be named;
- with `$HYBRIDIZE_VERIFY_TRACE` (a JSON list of the rewritten functions' code locations), which
  of them ran during each test: a hook sees each Python function start, and a `tf.function`
  call is recognised by its public `python_function` attribute (the traced body runs as
  AutoGraph's converted copy, not as the original code object). The hook's cost must not grow
  with the code a compiler traces (`_Hook`): a profile hook on every call made Dynamo's
  compiles 2-2.4x slower on this plugin's own test and about 10x on neuraloperator's.

`$HYBRIDIZE_VERIFY_SELECT` (a file of test ids, one a line) runs only those tests of the
collection, whatever command collected it: a newly failing test is run again alone, traced, and
alone against subsets of the changes when they are bisected.

`$HYBRIDIZE_VERIFY_SHADOW` ("pkg=/abs/folder,...") makes the run refuse to start unless each
package is imported from that folder: the copy must shadow the installed library, or the
comparison would test the installed code twice.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import sys
import threading
from collections.abc import Callable, Generator
from types import CodeType, FrameType
from typing import Any

import pytest

_OUT = os.environ.get("HYBRIDIZE_VERIFY_OUTCOMES")
_ROOT = os.path.realpath(os.environ.get("HYBRIDIZE_VERIFY_ROOT", os.getcwd()))
_TRACE_FILE = os.environ.get("HYBRIDIZE_VERIFY_TRACE")
_SELECT_FILE = os.environ.get("HYBRIDIZE_VERIFY_SELECT")
_SHADOW = os.environ.get("HYBRIDIZE_VERIFY_SHADOW", "")

_ERROR_TEXT_LIMIT = 4000
_USER_FRAME = re.compile(r'File "([^"]+)", line (\d+)')

_phases: dict[str, dict[str, Any]] = {}
_targets: dict[tuple[str, int], str] = {}
_hits: list[str] = []
_tf_call_types: dict[type, bool] = {}
_real_paths: dict[str, str] = {}


def _write(record: dict[str, Any]) -> None:
    if not _OUT:
        return
    with open(_OUT, "a", encoding="utf-8") as out:
        out.write(json.dumps(record) + "\n")
        out.flush()


def _real(path: str) -> str:
    known = _real_paths.get(path)
    if known is None:
        known = _real_paths[path] = os.path.realpath(path)
    return known


def _in_root(path: str) -> bool:
    return _real(path).startswith(_ROOT + os.sep)


_NAMED = re.compile(r"^[\w.]+(Error|Exception|Warning|Exit|Interrupt|Failed|Timeout)\b")


_EPILOGUES = (
    "from user code:",
    "Set TORCHDYNAMO_VERBOSE=1",
    "Call arguments received by layer",
    "Arguments received by",
)
"""Lines that open what is appended after an error's cause: torch.compile's user frames and
advice on logging; Keras' list of a layer call's arguments (tf_keras: "Call arguments received
by layer 'x' (type X):", Keras 3: "Arguments received by X.call():"), whose last line
("• training=None") named no cause (edward2's recurrent tests). The cause is the last line
before them."""

_ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;]*m")
"""Terminal styling (Keras 3 prints a layer's error message in bold)."""


def error_line(type_name: str, text: str) -> str:
    """The exception's last line (TensorFlow's graph errors put the cause last, after the user
    frames), led by the exception's type when that line does not name one; torch.compile's
    and Keras' epilogues (`_EPILOGUES`) and terminal styling are left out."""
    plain = _ANSI_ESCAPE.sub("", text)
    lines = [line.strip() for line in plain.splitlines() if line.strip()]
    ends = [i for i, line in enumerate(lines) if line.startswith(_EPILOGUES)]
    if ends and ends[0] > 0:
        lines = lines[: ends[0]]
    if not lines:
        return type_name
    last = lines[-1]
    return last if _NAMED.match(last) else f"{type_name}: {last}"


def pytest_configure(config: pytest.Config) -> None:
    """Check that the copies shadow the installed packages, and load the trace targets."""
    for entry in filter(None, _SHADOW.split(",")):
        package, _, folder = entry.partition("=")
        try:
            module = importlib.import_module(package)
        except Exception:  # the tests that import it report why: not this check's to say
            continue
        where = os.path.realpath(getattr(module, "__file__", "") or "")
        expected = os.path.realpath(folder) + os.sep
        if not where.startswith(expected):
            _write({"kind": "shadow_error", "package": package, "file": where})
            raise pytest.UsageError(f"{package} imported from {where}, not from {expected}")
    if _TRACE_FILE:
        with open(_TRACE_FILE, encoding="utf-8") as handle:
            for target in json.load(handle):
                for line in {target["first_line"], target["def_line"]}:
                    _targets[(os.path.realpath(target["path"]), line)] = target["key"]
        if _targets:
            _hook.start()


def pytest_unconfigure(config: pytest.Config) -> None:
    _hook.stop()


def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    """Only the selected tests, when a selection is given (the others are deselected)."""
    if not _SELECT_FILE:
        return
    with open(_SELECT_FILE, encoding="utf-8") as handle:
        wanted = {line.strip() for line in handle if line.strip()}
    kept = [item for item in items if item.nodeid in wanted]
    dropped = [item for item in items if item.nodeid not in wanted]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = kept


def pytest_collection_finish(session: pytest.Session) -> None:
    """The collected test ids: after a timeout they tell which files had not finished."""
    _write({"kind": "collected", "nodeids": [item.nodeid for item in session.items]})


def _target_of_code(code: Any) -> str | None:
    return _targets.get((_real(code.co_filename), code.co_firstlineno))


def _is_tf_function_type(kind: type) -> bool:
    """Whether `kind` has a `python_function` (`tf.function`'s classes: their `__call__` runs
    the function they hold)."""
    known = _tf_call_types.get(kind)
    if known is None:
        known = _tf_call_types[kind] = any("python_function" in vars(b) for b in kind.__mro__)
    return known


def _tf_function_target(frame: FrameType) -> str | None:
    """The rewritten function a `tf.function` object's `__call__` frame is calling, if any."""
    owner: Any = frame.f_locals.get("self")
    if not _is_tf_function_type(type(owner)):
        return None
    try:
        function = owner.python_function
    except Exception:  # a broken object is not what this run is about
        return None
    return _unwrapped_target(function)


_TORCH_COMPILE_WRAPPERS = frozenset({"compile_wrapper", "_fn"})
"""The names of the function `torch.compile` returns (torch 2.13's `compile_wrapper`, earlier
`_fn`, both in `torch/_dynamo/eval_frame.py`); it holds the compiled function as `fn`."""


def _torch_compile_target(frame: FrameType) -> str | None:
    """The rewritten function a `torch.compile` wrapper's frame is calling, if any. Dynamo runs
    the compiled function's frame as its graph, never as Python, so the profile sees no call of
    it: only of the wrapper, whose closure holds it."""
    if not frame.f_code.co_filename.endswith(os.path.join("_dynamo", "eval_frame.py")):
        return None
    return _unwrapped_target(frame.f_locals.get("fn"))


def _unwrapped_target(function: Any) -> str | None:
    """The rewritten function `function` is, or wraps (bound methods, `functools.wraps`)."""
    seen = 0
    while function is not None and seen < 20:
        seen += 1
        inner = getattr(function, "__func__", None) or getattr(function, "__wrapped__", None)
        code = getattr(function, "__code__", None)
        if code is not None:
            hit = _target_of_code(code)
            if hit is not None:
                return hit
        function = inner
    return None


def _framework_target(frame: FrameType) -> str | None:
    """The rewritten function a compiler's call frame (`tf.function`'s `__call__`,
    `torch.compile`'s wrapper) is calling, if any."""
    name = frame.f_code.co_name
    if name == "__call__":
        return _tf_function_target(frame)
    if name in _TORCH_COMPILE_WRAPPERS:
        return _torch_compile_target(frame)
    return None


def _record(hit: str | None) -> None:
    if hit is not None and hit not in _hits:
        _hits.append(hit)


def _profile(frame: FrameType, event: str, arg: object) -> None:
    if event != "call":
        return
    hit = _target_of_code(frame.f_code)
    if hit is None:
        if frame.f_code.co_name in _TORCH_COMPILE_WRAPPERS:
            _pause_profile_in_frame_conversion()
        hit = _framework_target(frame)
    _record(hit)


_FRAME_CONVERSION = ("torch._dynamo.convert_frame", "CatchErrorsWrapper")
"""The callable Dynamo's frame evaluation calls to compile a frame (torch 2.13's
`convert_frame.CatchErrorsWrapper`, whose `__call__` holds the whole compilation: symbolic
tracing, the backend, Inductor's code generation). It runs none of the user's functions (they
are traced, not run; the compiled code runs after it returns, and the wrapper of `torch.compile`
before it), so the profile hook is paused while it runs: it holds most of a test's Python calls
while compiling, each one slowed by the hook (and, on 3.11, every instruction by the
interpreter's tracing mode)."""

_paused: list[tuple[type, Callable[..., Any]]] = []


def _pause_profile_in_frame_conversion() -> None:
    """Pause the profile hook while Dynamo converts a frame (`_FRAME_CONVERSION`), if torch is
    loaded (never imported here) and not paused yet; `_resume_frame_conversion` undoes it."""
    module_name, class_name = _FRAME_CONVERSION
    owner = getattr(sys.modules.get(module_name), class_name, None)
    call = vars(owner).get("__call__") if isinstance(owner, type) else None
    if owner is None or call is None or any(paused is owner for paused, _ in _paused):
        return

    def converting_unprofiled(self: object, *args: Any, **kwargs: Any) -> Any:
        if sys.getprofile() is not _profile:  # not this plugin's hook: leave it be
            return call(self, *args, **kwargs)
        threads = threading.getprofile()
        sys.setprofile(None)
        threading.setprofile(None)
        try:
            return call(self, *args, **kwargs)
        finally:
            threading.setprofile(threads)
            sys.setprofile(_profile)

    owner.__call__ = converting_unprofiled
    _paused.append((owner, call))


def _resume_frame_conversion() -> None:
    while _paused:
        owner, call = _paused.pop()
        owner.__call__ = call  # type: ignore[method-assign]


_MONITORING: Any = getattr(sys, "monitoring", None)
_MONITORING_TOOLS = (2, 3, 4)
"""`sys.monitoring` tool ids this plugin may take (3.12+): the profiler's, then the two unnamed
ones (the debugger's, coverage's and the optimizer's are left to them)."""


class _Hook:
    """Records which rewritten functions run, at a cost that does not grow with the code that
    runs between them. On 3.12+, `sys.monitoring`'s function-start events (`PY_START`, and
    `PY_RESUME` for a generator resumed, as the profile hook's "call" sees it): a code object
    that is neither a rewritten function nor a compiler's call frame (`_framework_target`)
    answers DISABLE once, and its starts cost nothing after, so Dynamo's compiles run at
    full speed. On 3.10 and 3.11 (or when every tool id is taken), a profile hook on every
    call, paused while Dynamo converts a frame (`_FRAME_CONVERSION`). Either sees the same
    starts: a function's code, a `tf.function`'s `__call__`, `torch.compile`'s wrapper."""

    def __init__(self) -> None:
        self.tool: int | None = None
        self.recording = False

    def start(self) -> None:
        """Once, when the targets are loaded: take a tool id, or use the profile hook."""
        monitoring = _MONITORING
        if monitoring is None or not _dynamo_skips_monitoring_callbacks():
            return
        for tool in _MONITORING_TOOLS:
            try:
                monitoring.use_tool_id(tool, "hybridize-verify")
            except ValueError:  # taken (a profiler, coverage): the next one
                continue
            self.tool = tool
            events = monitoring.events.PY_START | monitoring.events.PY_RESUME
            monitoring.register_callback(tool, monitoring.events.PY_START, _started)
            monitoring.register_callback(tool, monitoring.events.PY_RESUME, _started)
            monitoring.set_events(tool, events)
            return

    def stop(self) -> None:
        if self.tool is not None:
            _MONITORING.set_events(self.tool, 0)
            _MONITORING.free_tool_id(self.tool)
            self.tool = None

    def begin_test(self) -> None:
        self.recording = True
        if self.tool is None:
            threading.setprofile(_profile)
            sys.setprofile(_profile)
            _pause_profile_in_frame_conversion()

    def end_test(self) -> None:
        self.recording = False
        if self.tool is None:
            sys.setprofile(None)
            threading.setprofile(None)
            _resume_frame_conversion()

    def started(self, code: CodeType, offset: int) -> object:
        """A function starts (or a generator resumes): record it if it is a rewritten function
        or a compiler's call of one, while a test runs; DISABLE the code object for good if it
        can be neither (nothing is kept for it: it reports no more)."""
        hit = _target_of_code(code)
        keep = hit is not None
        if hit is None and code.co_name in _FRAMEWORK_CALLS:
            frame = sys._getframe(2)  # the function starting (this method's caller: `_started`)
            hit = _framework_target(frame)
            keep = hit is not None or _may_call_a_target(frame)
        if self.recording:
            _record(hit)
        return None if keep else _MONITORING.DISABLE


def _started(code: CodeType, offset: int) -> object:
    """`sys.monitoring`'s callback: a plain function, which torch 2.9+'s Dynamo leaves
    untraced (`_dynamo_skips_monitoring_callbacks`)."""
    return _hook.started(code, offset)


def _dynamo_skips_monitoring_callbacks() -> bool:
    """Whether torch, if installed, is 2.9 or later (read from its metadata, never imported):
    before it, Dynamo traced a `sys.monitoring` callback that a compiled function's start called
    as part of that function (pytorch#158164, a graph break), so the traced run would not be the
    run it explains; then the profile hook is used."""
    from importlib import metadata

    try:
        version = metadata.version("torch")
    except metadata.PackageNotFoundError:
        return True
    numbers = re.findall(r"\d+", version)[:2]
    return [int(n) for n in numbers] >= [2, 9]


_FRAMEWORK_CALLS = frozenset({"__call__", *_TORCH_COMPILE_WRAPPERS})


def _may_call_a_target(frame: FrameType) -> bool:
    """Whether a compiler's call frame's code may call a rewritten function on another call: a
    `tf.function` class's `__call__`, `torch.compile`'s wrapper; not another class's
    `__call__` (whose starts are then no longer reported)."""
    if frame.f_code.co_name in _TORCH_COMPILE_WRAPPERS:
        return frame.f_code.co_filename.endswith(os.path.join("_dynamo", "eval_frame.py"))
    return _is_tf_function_type(type(frame.f_locals.get("self")))


_hook = _Hook()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None]:
    """Run one test (traced when asked) and write its record once every phase has reported."""
    _hits.clear()
    tracing = bool(_targets)
    if tracing:
        _hook.begin_test()
    try:
        yield
    finally:
        if tracing:
            _hook.end_test()
    record = _phases.pop(item.nodeid, {"outcome": "missing"})
    record.update(kind="test", nodeid=item.nodeid)
    if tracing:
        record["exercised"] = list(_hits)
    _write(record)
    if nextitem is None or nextitem.path != item.path:
        run_functions_as_compiled()


def run_functions_as_compiled() -> None:
    """Undo a `tf.config.run_functions_eagerly(True)` a test file left set, once its last test
    has run. The setting is process-wide: a test file that sets it without resetting it
    (tf-models' `segmentation_metrics_test.py`) makes every later test file of the process run
    each `tf.function` as plain Python, so a rewritten function would be judged (by the oracle,
    by `--verify`) without ever being compiled. Within the file that set it, it holds; the run
    before the rewrite gets the same treatment, so the comparison stays like for like.
    TensorFlow is looked up, never imported: a test run that did not import it is left alone."""
    tf = sys.modules.get("tensorflow")
    config = getattr(tf, "config", None)
    try:
        if config is not None and config.functions_run_eagerly():
            config.run_functions_eagerly(False)
    except Exception:  # an older TensorFlow without the query: nothing to undo
        pass


def _frames(excinfo: pytest.ExceptionInfo[BaseException], text: str) -> list[list[object]]:
    """(file, line) of the traceback's frames in the analysed copy, and of the frames an error
    message quotes (TensorFlow quotes the user code a graph error comes from)."""
    frames: list[list[object]] = []
    for entry in excinfo.traceback:
        path = str(entry.path)
        if _in_root(path):
            frames.append([_real(path), entry.lineno + 1])
    for match in _USER_FRAME.finditer(text):
        if _in_root(match.group(1)):
            frames.append([_real(match.group(1)), int(match.group(2))])
    unique: list[list[object]] = []
    for frame in frames:
        if frame not in unique:
            unique.append(frame)
    return unique


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, Any, None]:
    outcome = yield
    report = outcome.get_result()
    record = _phases.setdefault(item.nodeid, {"outcome": "passed"})
    if report.skipped and record["outcome"] == "passed":
        record["outcome"] = "skipped"
    if report.failed and record["outcome"] in ("passed", "skipped"):
        record["outcome"] = "failed" if report.when == "call" else "error"
        excinfo = call.excinfo
        if excinfo is not None:
            text = excinfo.exconly()
            record["error"] = error_line(type(excinfo.value).__name__, text)
            record["error_text"] = text[:_ERROR_TEXT_LIMIT]
            record["frames"] = _frames(excinfo, text)
        else:
            lines = str(report.longrepr).strip().splitlines()
            record["error"] = lines[-1] if lines else "failed"


def pytest_collectreport(report: pytest.CollectReport) -> None:
    """A module that fails to import fails every test it holds: record it."""
    if report.failed:
        text = str(report.longrepr)
        lines = [line for line in text.splitlines() if line.strip()]
        _write(
            {
                "kind": "collect_error",
                "nodeid": report.nodeid,
                "error": lines[-1] if lines else "collection failed",
                "error_text": text[-_ERROR_TEXT_LIMIT:],
            }
        )
