"""pytest plugin of the benefit oracle: in a library's own test run on the rewritten copy, how
each rewritten function is called, how often it traces, and how fast it runs compiled and eager.

The safety oracle asks whether a rewrite keeps the tests passing; this one asks whether it pays,
on the calls the tests make. Like `pytest_plugin`, it runs in the library's environment, uses
only the standard library and pytest, finds the framework in `sys.modules` (never importing
it), and is copied beside the run as a module of its own (`BENEFIT_PLUGIN_MODULE`).

`$HYBRIDIZE_BENEFIT_TARGETS` is a JSON list of the rewritten functions ({"key", "module",
"qualname"}). The probe is put where the function is defined: when the plugin is loaded (`-p`,
before any conftest or test module), an import hook (`_DefinitionProbes`) loads each target
module from its source with one more decorator right above the compiler decorator the rewrite
wrote (`at_definition`), so the module body binds the probe from the start and every reference
taken at import holds it too (a dict of the module's functions such as tf-models' legacy
`augment.NAME_TO_FUNC`, a default argument, a `from m import f` of another module). A module
already imported, or not loaded from a source file, gets the probe at configure time instead:
its compiled object (a `tf.function`, or a `torch.compile` wrapper) is replaced in its module
or class and wherever another loaded module holds the same object. A function defined inside
another one cannot be reached: it is reported as such. On each call the probe:

- passes straight through when the call is made inside a graph (a `tf.function` being traced, a
  symbolic Keras tensor among the arguments, Dynamo compiling): counted, never timed;
- otherwise records the call's *input signature* (tensors and arrays by dtype and shape,
  Python scalars and strings by value, other objects by type, per instance for a method: each
  instance of a class has its own traces) and how many traces the call caused (TensorFlow: the
  change of `experimental_get_tracing_count()`; PyTorch: of Dynamo's compiled frames);
- for the first calls of each new signature, up to `SAMPLED_CALLS` calls and `BUDGET_SECONDS`
  per function, times the same call again compiled and eager (the original function:
  `python_function` of the `tf.function`, `_torchdynamo_orig_callable` of the `torch.compile`),
  in `ROUNDS` rounds of one eager and one compiled sample side by side (which goes first
  alternating; each sample after an untimed call of its mode, looping calls that are shorter
  than `SAMPLE_SECONDS`), every sample kept in wall time and in the process's CPU time, for
  the judge's interval (`speed_band`); at the end of each test file, the calls timed so far
  are replayed (the same inputs) for more rounds while the function's interval is not settled
  (`Probe.replay`, `speed_band.settled`), so a function the tests call once or twice still
  gets a verdict; nested rewritten functions follow the mode being timed
  (eager inside the eager sample) and record nothing. The test's own call is never timed: it may trace, and its
  result is the one the test gets.

Each test's calls are written as JSON lines when the test ends, to a file of its own per process
in the folder `$HYBRIDIZE_BENEFIT_OUT` (test processes run side by side), so a run cut by a
timeout keeps what it measured. The repeated calls run the function's effects again
(a variable's `assign_add`, an optimizer step): this run measures, the safety oracle judges the
outcomes.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import gc
import importlib
import importlib.abc
import importlib.machinery
import inspect
import itertools
import json
import os
import sys
import threading
import time
import types
import weakref
from collections.abc import Callable, Generator
from dataclasses import dataclass
from types import FrameType
from typing import Any

import pytest

try:  # copied beside the plugin in a library's run (`benefit.install_benefit_plugin`)
    import _hybridize_speed_band as speed_band
except ImportError:  # the plugin imported from the package (its own tests)
    from hybridize.verify import speed_band

_TARGETS_FILE = os.environ.get("HYBRIDIZE_BENEFIT_TARGETS")
_OUT = os.environ.get("HYBRIDIZE_BENEFIT_OUT")

SAMPLED_CALLS = 6
"""Calls timed per function and process (new signatures first)."""
BUDGET_SECONDS = 20.0
"""Seconds of timing per function and process, after which its calls are only counted."""
ROUNDS = 7
"""Rounds per timed call, each one sample per mode (which mode goes first alternating): every
round's pair is recorded, and the judge builds its interval from the rounds' ratios."""
SAMPLE_SECONDS = 0.002
"""A sample loops a call shorter than this, so that the clock's resolution stays out of it."""
EXTEND_SECONDS = 60.0
"""Seconds of timing per function and process up to which a call's rounds are extended while
the function's interval is not settled (`speed_band.settled`: decided, or wholly within the
band): a function the tests call only once or twice still gets enough rounds to decide."""
LONG_CALL_SECONDS = 0.05
"""A call at least this long (eager, first timing) is sampled without the untimed call of its
mode before each sample: what that call settles (the caches the other mode's call left) is
microseconds, against a sample of tens of milliseconds, and it would double each round."""
MAX_LOOPS = 50
SIGNATURE_DEPTH = 4
SIGNATURE_ITEMS = 32

_state = threading.local()
_calls: list[dict[str, Any]] = []
_unreachable: list[dict[str, str]] = []


def _mode() -> str | None:
    """'eager' or 'compiled' while a probe times a call (nested probes follow it), else None."""
    return getattr(_state, "mode", None)


# --- the frameworks, as the run loaded them ------------------------------------------------------


def _tensorflow() -> Any:
    return sys.modules.get("tensorflow")


def _torch() -> Any:
    return sys.modules.get("torch")


def framework_of(compiled: Any) -> str | None:
    """'tensorflow' for a `tf.function`, 'torch' for a `torch.compile` wrapper, else None."""
    if hasattr(compiled, "_torchdynamo_orig_callable"):
        return "torch"
    if hasattr(compiled, "python_function") and hasattr(compiled, "experimental_get_tracing_count"):
        return "tensorflow"
    return None


def eager_of(compiled: Any, framework: str) -> Callable[..., Any]:
    """The function the decorator wraps, undecorated."""
    if framework == "torch":
        return compiled._torchdynamo_orig_callable
    return compiled.python_function


def _dynamo_frames() -> int:
    torch = _torch()
    try:
        counters = torch._dynamo.utils.counters
    except Exception:  # Dynamo not loaded yet: nothing compiled
        return 0
    return int(sum(counters["frames"].get(k, 0) for k in ("ok",)))


def trace_count(compiled: Any, framework: str) -> int:
    if framework == "torch":
        return _dynamo_frames()
    try:
        return int(compiled.experimental_get_tracing_count())
    except Exception:  # a function that never ran has no count on some versions
        return 0


def functions_run_eagerly(framework: str) -> bool:
    """Whether TensorFlow runs every `tf.function` as plain Python (the process-wide
    `tf.config.run_functions_eagerly(True)`, which a test may set and never reset): a
    "compiled" call is then the eager one plus the function's dispatch, and never traces."""
    tf = _tensorflow()
    if framework != "tensorflow" or tf is None:
        return False
    try:
        return bool(tf.config.functions_run_eagerly())
    except Exception:  # an older TensorFlow without the query
        return False


def created_variables(compiled: Any) -> bool:
    """Whether a `tf.function` created variables at its first call: TensorFlow then traces
    that call twice, once creating them and once more to use them (`Function._call`), a
    one-off per function object (per instance for a method), not a retrace."""
    return bool(getattr(compiled, "_created_variables", None))


def _is_symbolic(value: Any) -> bool:
    tf = _tensorflow()
    if type(value).__name__ == "KerasTensor":
        return True
    if tf is not None and isinstance(value, tf.Tensor):
        return not hasattr(value, "numpy") or bool(tf.is_symbolic_tensor(value))
    return False


def in_graph(framework: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """Whether the call is part of a graph being built: then the decorator adds nothing."""
    if framework == "torch":
        torch = _torch()
        return bool(torch is not None and torch.compiler.is_compiling())
    tf = _tensorflow()
    if tf is not None and not tf.executing_eagerly():
        return True
    return any(_is_symbolic(leaf) for leaf in _leaves((args, kwargs), 0))


TRACING_FRAME = ("func_graph_from_py_func", "func_graph.py")
"""TensorFlow's function that runs a Python function to build its graph (code name, file): on
the call stack whenever a `tf.function` traces (a caller's trace, Keras's `predict_function`,
`get_concrete_function`) and when tf.data traces a `map`/`filter` function; not when Keras
builds a functional model on symbolic tensors (its scratch graph is built without it), which
later runs each layer's call eagerly."""


GRAPH_FILES = 16
"""Files kept per in-graph call: of the code between the graph's start and the probe."""


def traced_graph() -> tuple[str, list[str]] | None:
    """The graph a `tf.function` or tf.data is tracing on this thread (the innermost) and the
    files of the code that reached the probe inside it: its name ("outer",
    "Dataset_map_lambda", "one_step_on_data"), found as TensorFlow's tracing function on the
    call stack (`TRACING_FRAME`), and the files of the frames from there to the probe's
    caller with the traced function's own first (the judge tells a graph a test built from
    one the library did by them); None: no such trace."""
    frame: FrameType | None = sys._getframe(1)
    files: list[str] = []
    while frame is not None:
        code = frame.f_code
        if code.co_name == TRACING_FRAME[0] and code.co_filename.endswith(TRACING_FRAME[1]):
            traced = inspect.unwrap(frame.f_locals.get("python_func") or _never)
            own = getattr(getattr(traced, "__code__", None), "co_filename", None)
            return str(frame.f_locals.get("name") or "?"), _distinct([own, *reversed(files)])
        if code.co_filename != __file__:
            # AutoGraph's converted code runs from a file of its own: the module it came from
            files.append(str(frame.f_globals.get("__file__") or code.co_filename))
        frame = frame.f_back
    return None


def _distinct(files: list[str | None]) -> list[str]:
    kept: list[str] = []
    for file in files:
        if file and file not in kept and len(kept) < GRAPH_FILES:
            kept.append(file)
    return kept


def _running_key() -> str | None:
    """The probe whose test call (compiled) is under way on this thread, innermost."""
    running: list[str] = getattr(_state, "running", [])
    return running[-1] if running else None


def graph_call(key: str, graph: tuple[str, list[str]] | None) -> dict[str, Any]:
    """The record of a call made while a graph is built: `graph` names the function whose
    trace (TensorFlow) or compilation (Dynamo) ran it and the files of the code that reached
    the call, None when no such trace is on the stack (a symbolic Keras tensor, a graph built
    by hand); `own` when that trace is the function's own test call (a recursive call), which
    is no other function's graph."""
    record: dict[str, Any] = {"key": key, "in_graph": True, "graph": None}
    if graph is not None:
        record["graph"], record["graph_files"] = graph
        if _running_key() == key:
            record["own"] = True
    return record


def _leaves(value: Any, depth: int) -> Generator[Any]:
    if depth > SIGNATURE_DEPTH:
        return
    if isinstance(value, list | tuple):
        for item in value[:SIGNATURE_ITEMS]:
            yield from _leaves(item, depth + 1)
    elif isinstance(value, dict):
        for item in list(value.values())[:SIGNATURE_ITEMS]:
            yield from _leaves(item, depth + 1)
    else:
        yield value


def describe(value: Any, depth: int = 0) -> Any:
    """The part of an argument that decides a trace, as JSON: tensors and arrays by kind, dtype
    and shape, Python scalars by value, containers by their items, other objects by type."""
    if depth > SIGNATURE_DEPTH:
        return "..."
    if value is None or isinstance(value, bool | int | float | str | bytes):
        return ["value", type(value).__name__, repr(value)[:80]]
    if isinstance(value, list | tuple):
        return [type(value).__name__, [describe(v, depth + 1) for v in value[:SIGNATURE_ITEMS]]]
    if isinstance(value, dict):
        items = list(value.items())[:SIGNATURE_ITEMS]
        return ["dict", [[str(k), describe(v, depth + 1)] for k, v in items]]
    shape = getattr(value, "shape", None)
    dtype = getattr(value, "dtype", None)
    if shape is not None and dtype is not None:
        try:
            dims = list(shape)
            dims = [d if d is None or isinstance(d, int) else int(d) for d in dims]
        except Exception:  # unknown rank
            dims = None
        kind = type(value).__name__
        extra = bool(getattr(value, "requires_grad", False))
        return ["array", kind, str(dtype), dims, extra]
    return ["object", f"{type(value).__module__}.{type(value).__qualname__}"]


def signature(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    return json.dumps([describe(a) for a in args] + [[k, describe(v)] for k, v in kwargs.items()])


# --- one rewritten function ----------------------------------------------------------------------


class _Owners:
    """A token per instance a method is called on (each has its own traces), weakly held;
    tokens are never reused, also when an instance is collected and another takes its place."""

    def __init__(self) -> None:
        self._tokens: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()
        self._by_id: dict[int, int] = {}
        self._kept: list[Any] = []
        self._next = itertools.count(1)

    def token(self, owner: Any) -> int:
        try:
            found = self._tokens.get(owner)
            if found is None:
                found = self._tokens[owner] = next(self._next)
            return found
        except TypeError:  # not weakly referable: kept alive, so that its id stays its own
            if id(owner) not in self._by_id:
                self._kept.append(owner)
                self._by_id[id(owner)] = next(self._next)
            return self._by_id[id(owner)]


def _timed(call: Callable[[], Any], loops: int) -> float:
    enabled = gc.isenabled()
    gc.disable()
    try:
        start = time.perf_counter()
        for _ in range(loops):
            call()
        return (time.perf_counter() - start) / loops
    finally:
        if enabled:
            gc.enable()


def _sample(call: Callable[[], Any], loops: int) -> tuple[float, float]:
    """One sample: seconds per call in wall time and in the process's CPU time (every thread,
    the framework's own pools included), both from the same loop of calls."""
    cpu = time.process_time()
    wall = _timed(call, loops)
    return wall, (time.process_time() - cpu) / loops


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


class Probe:
    """Stands in for one rewritten function's compiled object and measures its calls."""

    autograph_info__: frozenset[str] = frozenset()
    """Marks the probe as AutoGraph's own artifact: a `tf.function` tracing through it calls
    it as it is instead of converting its code."""

    def __init__(self, key: str, compiled: Any, framework: str) -> None:
        self.key = key
        self.compiled = compiled
        self.framework = framework
        self.eager = eager_of(compiled, framework)
        self.owners = _Owners()
        self.timed_signatures: set[str] = set()
        self.timed_calls = 0
        self.seconds = 0.0
        self.ratios: list[float] = []
        """Every round's ratio of eager to compiled CPU time so far, in this process."""
        self.replays: list[_TimedCall] = []
        """The calls timed since the last replay (`replay`), their inputs held until then."""

    def call(
        self, owner: Any, has_owner: bool, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        """The test's call (owner: the instance of a method, bound here), measured."""
        compiled = self.compiled.__get__(owner, type(owner)) if has_owner else self.compiled
        if has_owner and self.framework == "tensorflow" and _passes_owner(compiled, self.compiled):
            # a composite tensor's `tf.function` method takes the instance as an argument
            # (`MethodType(function, instance)`): traced by its type spec, not per instance
            args, owner, has_owner, compiled = (owner, *args), None, False, self.compiled
        mode = _mode()
        if mode is not None:  # inside another probe's timing: follow its mode, record nothing
            if mode == "eager":
                return (
                    self.eager(owner, *args, **kwargs) if has_owner else self.eager(*args, **kwargs)
                )
            return compiled(*args, **kwargs)
        if in_graph(self.framework, args, kwargs):
            graph = traced_graph() if self.framework == "tensorflow" else None
            _calls.append(graph_call(self.key, graph))
            return compiled(*args, **kwargs)
        sig = signature(args, kwargs)
        token = self.owners.token(owner) if has_owner else 0
        run_eagerly = functions_run_eagerly(self.framework)
        had_variables = created_variables(compiled)
        before = trace_count(compiled, self.framework)
        running: list[str] = getattr(_state, "running", [])
        _state.running = [*running, self.key]
        try:
            result = compiled(*args, **kwargs)
        finally:
            _state.running = running
        record: dict[str, Any] = {
            "key": self.key,
            "in_graph": False,
            "signature": sig,
            "owner": token,
            "traces": trace_count(compiled, self.framework) - before,
        }
        if run_eagerly:
            record["run_eagerly"] = True
        if not had_variables and created_variables(compiled):
            record["created_variables"] = True
        # A call made while every tf.function runs as Python would time the same Python
        # twice: recorded, not timed, so that it spends none of the function's samples
        # (zfit's `_damped_hess0`: its 6 timed calls all fell in a file that set it).
        if not run_eagerly and self._wants_timing(sig):
            self.timed_signatures.add(sig)
            eager = (
                (lambda: self.eager(owner, *args, **kwargs))
                if has_owner
                else (lambda: self.eager(*args, **kwargs))
            )
            record.update(self._time(lambda: compiled(*args, **kwargs), eager, compiled))
        _calls.append(record)
        return result

    def _wants_timing(self, sig: str) -> bool:
        if self.timed_calls >= SAMPLED_CALLS or self.seconds >= BUDGET_SECONDS:
            return False
        return sig not in self.timed_signatures or self.timed_calls < SAMPLED_CALLS // 2

    def _time(
        self, compiled_call: Callable[[], Any], eager_call: Callable[[], Any], compiled: Any
    ) -> dict[str, Any]:
        """`ROUNDS` rounds of the call (within `BUDGET_SECONDS / 2`), kept for a replay."""
        started = time.perf_counter()
        self.timed_calls += 1
        before = trace_count(compiled, self.framework)
        try:
            _state.mode = "eager"
            _timed(eager_call, 1)
            first = _timed(eager_call, 1)
            loops = max(1, min(MAX_LOOPS, int(SAMPLE_SECONDS / max(first, 1e-9))))
            call = _TimedCall(compiled_call, eager_call, loops, first < LONG_CALL_SECONDS)
            timing = self._rounds(call, ROUNDS, started + BUDGET_SECONDS / 2)
        except Exception as error:  # the repeated call failed (a consumed iterator...): no timing
            return {"timing_error": f"{type(error).__name__}: {str(error)[:200]}"}
        finally:
            _state.mode = None
            self.seconds += time.perf_counter() - started
        self.replays.append(call)
        return timing | {"timing_traces": trace_count(compiled, self.framework) - before}

    def _rounds(self, call: _TimedCall, rounds: int, deadline: float) -> dict[str, Any]:
        """`rounds` rounds of one eager and one compiled sample (which goes first alternating;
        each sample after an untimed call of its mode unless the call is long), stopping after
        the round that passes `deadline` (`time.perf_counter()`); every round's ratio of CPU
        times is added to the function's ratios."""
        samples: dict[str, list[float]] = {"eager": [], "compiled": []}
        cpu: dict[str, list[float]] = {"eager": [], "compiled": []}
        calls = {"eager": call.eager, "compiled": call.compiled}
        try:
            for round_ in range(rounds):
                order = ("eager", "compiled") if round_ % 2 else ("compiled", "eager")
                for mode in order:
                    _state.mode = mode
                    if call.warm:
                        _timed(calls[mode], 1)  # the first call after the other mode's: untimed
                    wall, used = _sample(calls[mode], call.loops)
                    samples[mode].append(wall)
                    cpu[mode].append(used)
                self.ratios.append(cpu["eager"][-1] / max(cpu["compiled"][-1], 1e-12))
                if time.perf_counter() > deadline:
                    break
        finally:
            _state.mode = None
        return {
            "eager_seconds": _median(samples["eager"]),
            "compiled_seconds": _median(samples["compiled"]),
            "samples": len(samples["eager"]),
            # each round's pair, side by side in time: the judge's interval is built from them
            "eager_samples": samples["eager"],
            "compiled_samples": samples["compiled"],
            "eager_cpu_samples": cpu["eager"],
            "compiled_cpu_samples": cpu["compiled"],
            "loops": call.loops,
        }

    def replay(self) -> list[dict[str, Any]]:
        """More rounds of the calls timed so far (the same inputs), while the function's
        ratios in this process are not settled (`speed_band.settled`: decided, or wholly
        within the band), `speed_band.LOOK_ROUNDS` rounds of each call in turn between two
        looks, within `EXTEND_SECONDS` of timing per function and process and
        `speed_band.MAX_RATIOS` ratios; then the calls are let go. One record per call
        replayed (`kind` "replay": ratios, not calls)."""
        records: list[dict[str, Any]] = []
        calls, self.replays = self.replays, []
        warmed: set[int] = set()
        started = time.perf_counter()
        while calls and not speed_band.settled(speed_band.median_interval(self.ratios)):
            for call in list(calls):
                left = EXTEND_SECONDS - self.seconds - (time.perf_counter() - started)
                if left <= 0 or len(self.ratios) >= speed_band.MAX_RATIOS:
                    calls = []
                    break
                try:
                    if id(call) not in warmed:
                        # untimed, once per call and mode: after the test's teardown the
                        # compiled call may trace again (tf-models: a 13 s first replay)
                        warmed.add(id(call))
                        for mode, run in (("eager", call.eager), ("compiled", call.compiled)):
                            _state.mode = mode
                            _timed(run, 1)
                        _state.mode = None
                    timing = self._rounds(call, speed_band.LOOK_ROUNDS, time.perf_counter() + left)
                except Exception as error:  # a call that cannot be repeated any more
                    _state.mode = None
                    calls.remove(call)
                    error_text = f"{type(error).__name__}: {error}"[:200]
                    records.append({"kind": "replay", "key": self.key, "timing_error": error_text})
                    continue
                records.append({"kind": "replay", "key": self.key, **timing})
        self.seconds += time.perf_counter() - started
        return records


@dataclass(frozen=True, slots=True)
class _TimedCall:
    """A test's call as the probe times it: compiled and eager closures over its inputs, the
    calls per sample, and whether each sample follows an untimed call of its mode."""

    compiled: Callable[[], Any]
    eager: Callable[[], Any]
    loops: int
    warm: bool


def _dressed(probed: Callable[..., Any], probe: Probe) -> Callable[..., Any]:
    """The probe with the function's name and signature: Keras reads `call`'s parameters
    (`training`, `mask`) to decide what to pass, and would pass them to `*args, **kwargs`."""
    functools.update_wrapper(probed, probe.eager)
    with contextlib.suppress(TypeError, ValueError):  # none to read: __wrapped__ tells
        probed.__signature__ = inspect.signature(probe.eager)  # type: ignore[attr-defined]
    probed.autograph_info__ = frozenset()  # type: ignore[attr-defined]
    return probed


def _compiling(framework: str) -> Callable[[], bool]:
    """Dynamo's own test of whether it is tracing (it folds the call to a constant and
    inlines the compiled function's original), so that a compiled caller traces through the
    probe without a graph break; TensorFlow's graph test is part of the probe's call."""
    torch = _torch()
    if framework == "torch" and torch is not None:
        return torch.compiler.is_compiling
    return _never


def _never() -> bool:
    return False


def _no_note(note: Callable[..., None]) -> None:
    return None


def _compile_time(framework: str) -> Callable[[Callable[..., None]], None]:
    """Dynamo's `comptime`: the function given is run once while Dynamo compiles the frame
    the call is in (never when the compiled code runs; nothing in eager), so a probe that a
    compiled caller inlines can record that it was compiled into the caller's graph."""
    if framework != "torch" or _torch() is None:
        return _no_note
    try:
        return importlib.import_module("torch._dynamo.comptime").comptime
    except Exception:  # a torch without it: the in-graph calls go unrecorded
        return _no_note


def _compiled_frame(context: Any) -> tuple[str, list[str]]:
    """The name of the function whose frame Dynamo compiles (the outermost, from `comptime`'s
    context) and the files of the frames it inlined down to the probe, outermost first, or
    ("dynamo", []) when its internals differ."""
    try:
        tx = context._ComptimeContext__tx
        files: list[str | None] = []
        while tx is not None:
            files.append(tx.f_code.co_filename)
            tx = getattr(tx, "parent", None)
        name = context._ComptimeContext__tx.output.root_tx.f_code.co_name
        return f"dynamo:{name}", _distinct([f for f in reversed(files) if f != __file__])
    except Exception:
        return "dynamo", []


def record_compiled_into(key: str, context: Any) -> None:
    """`comptime`'s callback: a caller compiled by the tests or the library, not while a probe
    times its own call (nested probes record nothing then)."""
    if _mode() is None:
        _calls.append(graph_call(key, _compiled_frame(context)))


def _compile_note(key: str) -> Callable[[Any], None]:
    """A function of no free variables for `comptime` (Dynamo refuses closures; it calls a
    module-level function as it is): it records `key`'s call compiled into a caller."""
    namespace: dict[str, Any] = {"_record": record_compiled_into, "_KEY": key}
    exec("def compiled_into(context):\n    _record(_KEY, context)\n", namespace)
    return namespace["compiled_into"]


def _function_probe(probe: Probe) -> Callable[..., Any]:
    compiling, compiled = _compiling(probe.framework), probe.compiled
    comptime, note = _compile_time(probe.framework), _compile_note(probe.key)

    def probed(*args: Any, **kwargs: Any) -> Any:
        if compiling():
            comptime(note)
            return compiled(*args, **kwargs)
        return probe.call(None, False, args, kwargs)

    return _dressed(probed, probe)


def _method_probe(probe: Probe) -> Callable[..., Any]:
    compiling, compiled = _compiling(probe.framework), probe.compiled
    comptime, note = _compile_time(probe.framework), _compile_note(probe.key)

    def probed(self: Any, *args: Any, **kwargs: Any) -> Any:
        if compiling():  # a torch.compile wrapper is a plain function (Dynamo binds no __get__)
            comptime(note)
            return compiled(self, *args, **kwargs)
        return probe.call(self, True, args, kwargs)

    return _dressed(probed, probe)


def _passes_owner(bound: Any, compiled: Any) -> bool:
    """Whether `bound`, what `compiled.__get__(instance, owner)` gave, is the same function
    with the instance as its first argument (TensorFlow binds a `CompositeTensor` so)."""
    return isinstance(bound, types.MethodType) and bound.__func__ is compiled


class _BoundAsTfFunction:
    """A probed `tf.function` method in its class, bound as the `tf.function` itself is (its
    `__get__`, `polymorphic_function.Function.__get__`): looked up on an instance, the probe
    bound to the instance (the call binds the compiled function to it: per-instance traces);
    looked up on the class, the probe of the function as it is, every argument the caller
    passes an input of the call, the first too (`__get__(None, owner)` returns the `Function`:
    tf-pwa's `Vector3.dot(p, v)`, a `tf.Tensor` as `self`, is traced as an input and never
    hashed as an instance; a plain method probe bound it and raised "Tensor is unhashable")."""

    def __init__(self, probe: Probe) -> None:
        method, function = _method_probe(probe), _function_probe(probe)
        functools.update_wrapper(self, method)  # type: ignore[arg-type]
        self._probed_method, self._probed_function = method, function

    def __get__(self, instance: Any, owner: Any = None) -> Callable[..., Any]:
        if instance is None:
            return self._probed_function
        return types.MethodType(self._probed_method, instance)


def _unwrap_descriptor(raw: Any) -> tuple[Any, str]:
    if isinstance(raw, staticmethod):
        return raw.__func__, "static"
    if isinstance(raw, classmethod):
        return raw.__func__, "class"
    return raw, "method"


_probes: dict[str, Probe] = {}
"""The probes put in place, by key (at the definition or afterwards)."""


def _probe_for(key: str, compiled: Any, kind: str) -> Any:
    """The replacement of one compiled function: a probe of the kind of binding it is
    ("method", "class", "static", "function"), registered; `compiled` itself when it is no
    compiled function (no probe)."""
    framework = framework_of(compiled)
    if framework is None:
        return compiled
    probe = _probes[key] = Probe(key, compiled, framework)
    if kind == "method":
        return _BoundAsTfFunction(probe) if framework == "tensorflow" else _method_probe(probe)
    if kind == "class":
        return classmethod(_method_probe(probe))
    if kind == "static":
        return staticmethod(_function_probe(probe))
    return _function_probe(probe)


def at_definition(key: str, kind: str) -> Callable[[Any], Any]:
    """The decorator put right above the compiler decorator the rewrite wrote
    (`_DefinitionProbes`): the module body binds the probe from the start, so references taken
    at import (a dict of the module's functions, a default argument, `from m import f`) hold
    it too. `kind` is "method" or "function" (a static method's, under its `staticmethod`)."""
    return lambda compiled: _probe_for(key, compiled, kind)


COMPILER_DECORATORS = frozenset({"function", "compile"})
"""The last name of a decorator the rewrite writes (`tf.function`, `torch.compile`, with or
without arguments)."""


def _compiler_decorator(node: ast.expr) -> bool:
    target = node.func if isinstance(node, ast.Call) else node
    name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", None)
    return name in COMPILER_DECORATORS


def _definition(tree: ast.Module, qualname: str) -> tuple[ast.FunctionDef, bool] | None:
    """The definition of a module-level function or of a method of module-level classes
    (`A.B.f`), and whether it is a method; None: nested in a function, or not there."""
    *owners, name = qualname.split(".")
    body: list[ast.stmt] = tree.body
    for owner in owners:
        found = [n for n in body if isinstance(n, ast.ClassDef) and n.name == owner]
        if not found:
            return None
        body = found[-1].body
    defs = [n for n in body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    named = [n for n in defs if n.name == name]
    return (named[-1], bool(owners)) if named else None  # type: ignore[return-value]


def probed_source(tree: ast.Module, targets: list[dict[str, str]], plugin: str) -> int:
    """Put `at_definition` above the compiler decorator of each target defined in `tree`
    (the decorator nearest the `def` of that kind, the one the rewrite wrote), in place;
    the number of definitions probed."""
    done = 0
    for target in targets:
        found = _definition(tree, target["qualname"])
        if found is None:
            continue
        node, is_method = found
        at = next(
            (
                i
                for i in range(len(node.decorator_list) - 1, -1, -1)
                if _compiler_decorator(node.decorator_list[i])
            ),
            None,
        )
        if at is None:
            continue
        above = node.decorator_list[:at]
        static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in above)
        kind = "method" if is_method and not static else "function"
        probe = ast.parse(
            f"__import__('sys').modules[{plugin!r}].at_definition({target['key']!r}, {kind!r})",
            mode="eval",
        ).body
        ast.copy_location(probe, node.decorator_list[at])
        ast.fix_missing_locations(probe)
        node.decorator_list.insert(at, probe)
        done += 1
    return done


class _ProbingLoader(importlib.machinery.SourceFileLoader):
    """Loads a target module from its source with `at_definition` above each rewritten
    definition (never from, nor to, a bytecode cache)."""

    def __init__(self, fullname: str, path: str, targets: list[dict[str, str]]) -> None:
        super().__init__(fullname, path)
        self.targets = targets

    def get_code(self, fullname: str) -> Any:
        path = self.get_filename(fullname)
        source = self.get_data(path)
        try:
            tree = ast.parse(source, path)
        except SyntaxError:
            return super().get_code(fullname)
        if not probed_source(tree, self.targets, __name__):
            return super().get_code(fullname)
        return compile(tree, path, "exec", dont_inherit=True)


class _DefinitionProbes(importlib.abc.MetaPathFinder):
    """Finds the rewritten functions' modules first, to load them with `_ProbingLoader`."""

    def __init__(self, targets: list[dict[str, str]]) -> None:
        self.by_module: dict[str, list[dict[str, str]]] = {}
        for target in targets:
            self.by_module.setdefault(target["module"], []).append(target)

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        targets = self.by_module.get(fullname)
        if not targets:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or not isinstance(spec.loader, importlib.machinery.SourceFileLoader):
            return spec
        spec.loader = _ProbingLoader(fullname, str(spec.origin), targets)
        return spec


def _read_targets() -> list[dict[str, str]]:
    if not _TARGETS_FILE:
        return []
    with open(_TARGETS_FILE, encoding="utf-8") as handle:
        return list(json.load(handle))


def probe_definitions() -> None:
    """Before any test module, conftest or library module is imported (the plugin is loaded
    by `-p`): every target module is loaded with its probes at the definitions."""
    targets = _read_targets()
    if targets:
        sys.meta_path.insert(0, _DefinitionProbes(targets))


def install(target: dict[str, str]) -> str | None:
    """Put a probe in place of one rewritten function, unless one is there from its
    definition (`at_definition`); the reason it cannot be, or None."""
    if target["key"] in _probes:
        return None
    try:
        module = importlib.import_module(target["module"])
    except Exception as error:
        return f"import failed: {type(error).__name__}: {str(error)[:200]}"
    if target["key"] in _probes:  # probed at its definition by this import
        return None
    *owners, name = target["qualname"].split(".")
    holder: Any = module
    for part in owners:
        holder = getattr(holder, part, None)
        if not isinstance(holder, type):
            return "nested definition (not reachable from its module)"
    raw = vars(holder).get(name)
    if raw is None:
        return "not found"
    compiled, kind = _unwrap_descriptor(raw) if isinstance(holder, type) else (raw, "function")
    if framework_of(compiled) is None:
        return f"not a compiled function ({type(compiled).__name__})"
    replacement = _probe_for(target["key"], compiled, kind)
    setattr(holder, name, replacement)
    if holder is module:  # re-exports bound before the probe: `from .x import f` in a package
        for other in list(sys.modules.values()):
            try:
                if other is not module and vars(other).get(name) is raw:
                    setattr(other, name, replacement)
            except Exception:  # a lazy module that refuses: it holds no such binding yet
                continue
    return None


def pytest_configure(config: pytest.Config) -> None:
    for target in _read_targets():
        reason = install(target)
        if reason is not None:
            _unreachable.append({"key": target["key"], "reason": reason})
    _write([{"kind": "unreachable", **u} for u in _unreachable])


def _write(records: list[dict[str, Any]]) -> None:
    if not _OUT or not records:
        return
    with open(os.path.join(_OUT, f"benefit-{os.getpid()}.jsonl"), "a", encoding="utf-8") as out:
        for record in records:
            out.write(json.dumps(record) + "\n")


def run_functions_as_compiled() -> None:
    """Undo a `tf.config.run_functions_eagerly(True)` a test file left set, once its last test
    has run: the setting is process-wide, and a test file that sets it without resetting it
    (tf-models' `segmentation_metrics_test.py`) would make every later test file of the
    process run each `tf.function` as plain Python, leaving the compiled functions unmeasured.
    Within the file that set it (in a test, a fixture or `setUpClass`) it holds."""
    tf = _tensorflow()
    if tf is not None and functions_run_eagerly("tensorflow"):
        with contextlib.suppress(Exception):
            tf.config.run_functions_eagerly(False)


def parse_absl_flags() -> None:
    """Mark absl's flags parsed (their defaults), once absl is loaded: TensorFlow's flags
    wrapper parses `sys.argv` the first time a flag is read (`tf.compat.v1.flags`; its
    distribution `combinations` read `FLAGS.tpu` for every generated test), and pytest's own
    arguments (`-q`) are no flags of absl's: `UnrecognizedFlagError: Unknown command line
    flag 'q'` failed every such test of tf-models (`nn_blocks_test.py`'s
    `DepthwiseSeparableConvBlockTest`) before it called anything, with or without a rewrite.
    `absltest.main()`, which these tests are written for, parses its own command line."""
    flags = sys.modules.get("absl.flags")
    if flags is None:
        return
    with contextlib.suppress(Exception):  # an absl without the query: leave it
        if not flags.FLAGS.is_parsed():
            flags.FLAGS.mark_as_parsed()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None]:
    _calls.clear()
    parse_absl_flags()
    try:
        yield
    finally:
        _write([{"kind": "call", "test": item.nodeid, **c} for c in _calls])
        _calls.clear()
        if nextitem is None or nextitem.path != item.path:
            replayed = [r for probe in list(_probes.values()) for r in probe.replay()]
            _write([{"test": item.nodeid, **r} for r in replayed])
            run_functions_as_compiled()


probe_definitions()
