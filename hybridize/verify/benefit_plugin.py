"""pytest plugin of the benefit oracle: in a library's own test run on the rewritten copy, how
each rewritten function is called, how often it traces, and how fast it runs compiled and eager.

The safety oracle asks whether a rewrite keeps the tests passing; this one asks whether it pays,
on the calls the tests make. Like `pytest_plugin`, it runs in the library's environment, uses
only the standard library and pytest, finds the framework in `sys.modules` (never importing
it), and is copied beside the run as a module of its own (`BENEFIT_PLUGIN_MODULE`).

`$HYBRIDIZE_BENEFIT_TARGETS` is a JSON list of the rewritten functions ({"key", "module",
"qualname"}). At configure time each is looked up (a module function, or a method of a
module-level class) and its compiled object (a `tf.function`, or a `torch.compile` wrapper) is
replaced by a probe, in its module or class and wherever another loaded module holds the same
object. A function defined inside another one cannot be reached: it is reported as such. On
each call the probe:

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
  the judge's interval (`speed_band`); nested rewritten functions follow the mode being timed
  (eager inside the eager sample) and record nothing. The test's own call is never timed: it may trace, and its
  result is the one the test gets.

Each test's calls are written as JSON lines when the test ends, to a file of its own per process
in the folder `$HYBRIDIZE_BENEFIT_OUT` (test processes run side by side), so a run cut by a
timeout keeps what it measured. The repeated calls run the function's effects again
(a variable's `assign_add`, an optimizer step): this run measures, the safety oracle judges the
outcomes.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import importlib
import inspect
import itertools
import json
import os
import sys
import threading
import time
import weakref
from collections.abc import Callable, Generator
from typing import Any

import pytest

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

    def call(
        self, owner: Any, has_owner: bool, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        """The test's call (owner: the instance of a method, bound here), measured."""
        compiled = self.compiled.__get__(owner, type(owner)) if has_owner else self.compiled
        mode = _mode()
        if mode is not None:  # inside another probe's timing: follow its mode, record nothing
            if mode == "eager":
                return (
                    self.eager(owner, *args, **kwargs) if has_owner else self.eager(*args, **kwargs)
                )
            return compiled(*args, **kwargs)
        if in_graph(self.framework, args, kwargs):
            _calls.append({"key": self.key, "in_graph": True})
            return compiled(*args, **kwargs)
        sig = signature(args, kwargs)
        token = self.owners.token(owner) if has_owner else 0
        run_eagerly = functions_run_eagerly(self.framework)
        had_variables = created_variables(compiled)
        before = trace_count(compiled, self.framework)
        result = compiled(*args, **kwargs)
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
        if self._wants_timing(sig):
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
        started = time.perf_counter()
        self.timed_calls += 1
        samples: dict[str, list[float]] = {"eager": [], "compiled": []}
        cpu: dict[str, list[float]] = {"eager": [], "compiled": []}
        calls = {"eager": eager_call, "compiled": compiled_call}
        before = trace_count(compiled, self.framework)
        try:
            _state.mode = "eager"
            _timed(eager_call, 1)
            first = _timed(eager_call, 1)
            loops = max(1, min(MAX_LOOPS, int(SAMPLE_SECONDS / max(first, 1e-9))))
            for round_ in range(ROUNDS):
                order = ("eager", "compiled") if round_ % 2 else ("compiled", "eager")
                for mode in order:
                    _state.mode = mode
                    _timed(calls[mode], 1)  # the first call after the other mode's: untimed
                    wall, used = _sample(calls[mode], loops)
                    samples[mode].append(wall)
                    cpu[mode].append(used)
                if time.perf_counter() - started > BUDGET_SECONDS / 2:
                    break
        except Exception as error:  # the repeated call failed (a consumed iterator...): no timing
            return {"timing_error": f"{type(error).__name__}: {str(error)[:200]}"}
        finally:
            _state.mode = None
            self.seconds += time.perf_counter() - started
        return {
            "eager_seconds": _median(samples["eager"]),
            "compiled_seconds": _median(samples["compiled"]),
            "samples": len(samples["eager"]),
            # each round's pair, side by side in time: the judge's interval is built from them
            "eager_samples": samples["eager"],
            "compiled_samples": samples["compiled"],
            "eager_cpu_samples": cpu["eager"],
            "compiled_cpu_samples": cpu["compiled"],
            "loops": loops,
            "timing_traces": trace_count(compiled, self.framework) - before,
        }


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


def _function_probe(probe: Probe) -> Callable[..., Any]:
    compiling, compiled = _compiling(probe.framework), probe.compiled

    def probed(*args: Any, **kwargs: Any) -> Any:
        if compiling():
            return compiled(*args, **kwargs)
        return probe.call(None, False, args, kwargs)

    return _dressed(probed, probe)


def _method_probe(probe: Probe) -> Callable[..., Any]:
    compiling, compiled = _compiling(probe.framework), probe.compiled

    def probed(self: Any, *args: Any, **kwargs: Any) -> Any:
        if compiling():  # a torch.compile wrapper is a plain function (Dynamo binds no __get__)
            return compiled(self, *args, **kwargs)
        return probe.call(self, True, args, kwargs)

    return _dressed(probed, probe)


def _unwrap_descriptor(raw: Any) -> tuple[Any, str]:
    if isinstance(raw, staticmethod):
        return raw.__func__, "static"
    if isinstance(raw, classmethod):
        return raw.__func__, "class"
    return raw, "method"


def install(target: dict[str, str]) -> str | None:
    """Put a probe in place of one rewritten function; the reason it cannot be, or None."""
    try:
        module = importlib.import_module(target["module"])
    except Exception as error:
        return f"import failed: {type(error).__name__}: {str(error)[:200]}"
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
    framework = framework_of(compiled)
    if framework is None:
        return f"not a compiled function ({type(compiled).__name__})"
    probe = Probe(target["key"], compiled, framework)
    replacement: Any
    if kind == "method":
        replacement = _method_probe(probe)
    elif kind == "class":
        replacement = classmethod(_method_probe(probe))
    elif kind == "static":
        replacement = staticmethod(_function_probe(probe))
    else:
        replacement = _function_probe(probe)
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
    if not _TARGETS_FILE:
        return
    with open(_TARGETS_FILE, encoding="utf-8") as handle:
        targets = json.load(handle)
    for target in targets:
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


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None]:
    _calls.clear()
    try:
        yield
    finally:
        _write([{"kind": "call", "test": item.nodeid, **c} for c in _calls])
        _calls.clear()
        if nextitem is None or nextitem.path != item.path:
            run_functions_as_compiled()
