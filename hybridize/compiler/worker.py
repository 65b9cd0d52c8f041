"""The worker subprocess: the only place where TensorFlow or PyTorch is imported.

`python -m hybridize.compiler.worker JOB.json` (started by `protocol.run_job`):

1. loads the backend (`backends/`) of every framework the job's candidates have, importing
   only those frameworks, and says hello;
2. with an entry (`python main.py ...`, `python -m pkg ...`) or `--pytest`, runs the user's
   program eagerly in this process with the candidates instrumented (`instrument.py`), keeping a
   few real argument sets per function; the objects the program built (models, optimizers)
   stay alive for the measurements;
3. measures every candidate in turn (`Worker.measure`) with the backend of its framework:
   eager and the compiled modes (`tf.function` and `tf.function(jit_compile=True)`;
   `torch.compile`), equivalence of outputs and state, traces, the compiler's statistics,
   steady-state timing. An exception is that function's result; the rest goes on (crashes and
   hangs are the parent's business, see `protocol.py`).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from hybridize.compiler import backends, equivalence, inputs, instrument, timing
from hybridize.compiler.errors import short_error as _short_error
from hybridize.compiler.errors import where as _where
from hybridize.compiler.protocol import PROTOCOL_FD_ENV, Channel

_PYTHON_VALUE = re.compile(r"\b(int|float|str) [^,)\]}]+")
SEED = 1234


class EntryTimeout(BaseException):
    """The instrumented run took longer than its limit: stop it and measure what was seen."""


def _calls_within(captured: instrument.Captured) -> list[dict[str, Any]]:
    """`Captured.within` as JSON: [{"callers": [keys], "calls": n}], most calls first."""
    return [
        {"callers": sorted(callers), "calls": calls}
        for callers, calls in captured.within.most_common()
    ]


def _framework(candidate: dict[str, Any]) -> str:
    """The framework of a candidate's verdict (`Framework.name`): the bench writes it in every
    candidate of the job it gives the worker."""
    return str(candidate["framework"])


class Worker:
    def __init__(self, job: dict[str, Any], channel: Channel) -> None:
        import numpy as np

        self.np = np
        self.job = job
        self.channel = channel
        self.root = Path(job["root"]).resolve()
        self.settings: dict[str, Any] = job.get("settings", {})
        frameworks = sorted({_framework(c) for c in job.get("candidates", [])})
        self.backends: dict[str, backends.Backend] = {
            name: backends.load(name, self.settings) for name in frameworks
        }
        self.targets = [
            instrument.Target(c["key"], c["file"], c["qualname"], int(c["line"]))
            for c in job.get("candidates", [])
        ]
        self.registry = instrument.CaptureRegistry(
            int(self.settings.get("argument_sets", 3)),
            executing_eagerly=self._executing_eagerly,
            is_symbolic=self._is_symbolic,
            is_ndarray=lambda v: isinstance(v, np.ndarray),
            describe=self.describe,
            copy_leaf=self._copy_leaf,
        )
        self.capture_kind: str | None = None
        self.user_inputs: dict[str, list[tuple[tuple[Any, ...], dict[str, Any]]]] = {}
        self.user_inputs_error: str | None = None
        self.keep_alive: list[Any] = []

    # --- helpers ----------------------------------------------------------------------------

    def versions(self) -> dict[str, str]:
        """{framework: version} of the frameworks this worker imported."""
        return {name: backend.version for name, backend in self.backends.items()}

    def _executing_eagerly(self) -> bool:
        return all(backend.executing_eagerly() for backend in self.backends.values())

    def _is_symbolic(self, value: Any) -> bool:
        return any(backend.is_symbolic(value) for backend in self.backends.values())

    def _copy_leaf(self, value: Any) -> Any:
        for backend in self.backends.values():
            if backend.owns(value):
                return backend.copy_leaf(value)
        return value

    def describe(self, value: Any) -> str:
        """A short type description of arguments: `(float32[64,8], int, Sequential)`."""

        def one(v: Any, depth: int = 0) -> str:
            if depth > 4:
                return "..."
            for backend in self.backends.values():
                text = backend.describe_leaf(v)
                if text is not None:
                    return text
            if isinstance(v, self.np.ndarray):
                return f"np.{v.dtype.name}[{','.join(map(str, v.shape))}]"
            if isinstance(v, bool | int | float):
                return f"{type(v).__name__} {v!r}"
            if isinstance(v, str):
                return f"str {v[:20]!r}"
            if v is None:
                return "None"
            if isinstance(v, list | tuple):
                inner = ", ".join(one(x, depth + 1) for x in list(v)[:6])
                more = ", ..." if len(v) > 6 else ""
                return f"[{inner}{more}]" if isinstance(v, list) else f"({inner}{more})"
            if isinstance(v, dict):
                items = list(v.items())[:6]
                return "{" + ", ".join(f"{k}: {one(x, depth + 1)}" for k, x in items) + "}"
            return type(v).__name__

        args, kwargs = value
        text = ", ".join(one(a) for a in args)
        if kwargs:
            text += ", " + ", ".join(f"{k}={one(v)}" for k, v in kwargs.items())
        return text

    # --- capture ----------------------------------------------------------------------------

    def capture(self) -> None:
        entry = self.job.get("entry")
        use_pytest = bool(self.job.get("pytest"))
        if not (entry or use_pytest) or not self.job.get("capture", True):
            return
        kinds = [k for k, on in (("entry", bool(entry)), ("pytest", use_pytest)) if on]
        self.capture_kind = "+".join(kinds)
        self.channel.send("capture_start", kind=self.capture_kind)
        finder = instrument.InstrumentingFinder(self.root, self.targets)
        sys.meta_path.insert(0, finder)
        self.registry.install()
        runs: list[dict[str, Any]] = []
        limit = float(self.settings.get("capture_seconds", 600))
        started = time.perf_counter()
        saved_argv, saved_path = list(sys.argv), list(sys.path)

        def on_alarm(signum: int, frame: Any) -> None:
            raise EntryTimeout(f"stopped after {limit:g} s")

        signal.signal(signal.SIGALRM, on_alarm)
        if entry:
            runs.append(self._run_entry(entry, finder, limit))
        if use_pytest:
            runs.append(self._run_pytest(limit))
        signal.alarm(0)
        sys.argv = saved_argv
        sys.path[:] = [*saved_path, *[p for p in sys.path if p not in saved_path]]
        self.registry.uninstall(self.root)
        functions = {
            key: {
                "calls": c.calls,
                "symbolic_calls": c.symbolic_calls,
                "argument_sets": len(c.sets),
                "signatures": list(c.signatures),
                "calls_within": _calls_within(c),
            }
            for key, c in self.registry.captured.items()
        }
        self.channel.send(
            "capture_done",
            capture={
                "kind": self.capture_kind,
                "seconds": time.perf_counter() - started,
                "runs": runs,
                "functions": functions,
            },
        )

    def _run_entry(
        self, entry: list[str], finder: instrument.InstrumentingFinder, limit: float
    ) -> dict[str, Any]:
        cwd = Path(self.job.get("cwd") or self.root)
        os.chdir(cwd)
        started = time.perf_counter()
        record: dict[str, Any] = {"kind": "entry", "command": shlex.join(["python", *entry])}
        signal.alarm(max(1, int(limit)))
        try:
            if entry[0] == "-m":
                sys.path.insert(0, str(cwd))
                instrument.run_module(entry[1], entry[2:], finder)
            else:
                instrument.run_script((cwd / entry[0]).resolve(), entry[1:], finder)
            record["exit_status"] = 0
        except SystemExit as stop:
            code = stop.code
            record["exit_status"] = code if isinstance(code, int) else (0 if code is None else 1)
        except EntryTimeout as stop:
            record["exit_status"] = None
            record["error"] = f"the program did not finish: {stop}"
        except BaseException as error:
            record["exit_status"] = 1
            record["error"] = _short_error(error)
            where = _where(error, str(self.root))
            if where:
                record["error"] += f" (at {where})"
        finally:
            signal.alarm(0)
            main_module = sys.modules.get("__main__")
            if main_module is not None:
                self.keep_alive.append(main_module)
            sys.stdout.flush()
        record["seconds"] = time.perf_counter() - started
        return record

    def _run_pytest(self, limit: float) -> dict[str, Any]:
        started = time.perf_counter()
        record: dict[str, Any] = {"kind": "pytest", "command": "pytest --assert=plain"}
        os.chdir(self.job.get("cwd") or self.root)
        signal.alarm(max(1, int(limit)))
        try:
            import pytest

            code = pytest.main([str(self.root), "-q", "--assert=plain", "-p", "no:cacheprovider"])
            record["exit_status"] = int(code)
        except EntryTimeout as stop:
            record["exit_status"] = None
            record["error"] = f"the tests did not finish: {stop}"
        except BaseException as error:
            record["exit_status"] = 1
            record["error"] = _short_error(error)
        finally:
            signal.alarm(0)
            sys.stdout.flush()
        record["seconds"] = time.perf_counter() - started
        return record

    def load_user_inputs(self) -> None:
        path = self.job.get("inputs")
        if not path:
            return
        if str(self.root) not in sys.path:
            sys.path.insert(0, str(self.root))
        try:
            self.user_inputs = inputs.load_user_inputs(Path(path))
        except BaseException as error:
            self.user_inputs_error = f"{path}: {_short_error(error)}"

    # --- argument sets ----------------------------------------------------------------------

    def recorded_leaves(self) -> Iterator[Any]:
        """Every argument (instances included) of the calls recorded during the entry run."""
        for captured in self.registry.captured.values():
            for argument_set in captured.sets:
                yield from instrument.iter_leaves((argument_set.args, argument_set.kwargs))

    def argument_sets(
        self, candidate: dict[str, Any]
    ) -> tuple[
        str | None,
        Any,
        bool,
        list[tuple[tuple[Any, ...], dict[str, Any]]],
        str | None,
        dict[str, Any],
    ]:
        """(source, function, is_method, sets, reason when none, capture facts)."""
        key = candidate["key"]
        captured = self.registry.captured.get(key)
        facts: dict[str, Any] = {}
        if captured is not None:
            facts = {
                "calls_observed": captured.calls,
                "symbolic_calls": captured.symbolic_calls,
                "calls_within": _calls_within(captured),
            }
        if captured is not None and captured.sets:
            first = captured.sets[0]
            sets = [(s.args, s.kwargs) for s in captured.sets if s.function is first.function]
            facts["signatures"] = [
                sig
                for s, sig in zip(captured.sets, captured.signatures, strict=True)
                if s.function is first.function
            ]
            return self.capture_kind, first.function, first.is_method, sets, None, facts
        reasons = []
        if self.capture_kind:
            if captured is None or (captured.calls == 0 and captured.symbolic_calls == 0):
                reasons.append(f"not called during the {self.capture_kind} run")
            elif captured.calls == 0:
                reasons.append(
                    f"called only while being traced ({captured.symbolic_calls} symbolic calls)"
                )
        user = self.user_inputs.get(key) or self.user_inputs.get(candidate["qualname"])
        if user:
            try:
                function, is_method = inputs.resolve_function(
                    self.root, candidate["file"], candidate["qualname"]
                )
            except BaseException as error:
                reasons.append(
                    f"the user file gives inputs but the function cannot be found: {_short_error(error)}"
                )
            else:
                facts["signatures"] = [self.describe(s) for s in user]
                return "user-file", function, is_method, user, None, facts
        signature = candidate.get("input_signature")
        if signature:
            try:
                argument_tuples = self.backend_for(candidate).signature_argument_sets(
                    signature, int(self.settings.get("none_axis_size", inputs.NONE_AXIS_SIZE))
                )
                owner, function, is_method = inputs.resolve_member(
                    self.root, candidate["file"], candidate["qualname"]
                )
                if is_method:
                    instance = inputs.find_instance(owner, self.recorded_leaves())
                    argument_tuples = [(instance, *s) for s in argument_tuples]
            except BaseException as error:
                reasons.append(f"no inputs from the inferred signature: {_short_error(error)}")
            else:
                pairs: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
                    (s, {}) for s in argument_tuples
                ]
                facts["signatures"] = [
                    self.describe((s[1:] if is_method else s, {})) for s in argument_tuples
                ]
                return "signature", function, is_method, pairs, None, facts
        else:
            reasons.append("no complete input signature was inferred")
        if not self.capture_kind and not self.user_inputs:
            reasons.append("no --entry, --pytest or --inputs given")
        return None, None, False, [], "; ".join(reasons), facts

    # --- measuring --------------------------------------------------------------------------

    @staticmethod
    def time_new_states(run_pass: Callable[[], None]) -> list[float] | None:
        """Seconds of `NEW_STATE_PASSES` passes, each from variable values not seen before.

        Called with the variables at the start state, which the equivalence run has already
        taken one pass further: that pass runs untimed, the next ones are timed. The timed
        samples all start from the same restored variables, so they replay the same sequence
        of states, and a compiled function whose code depends on a variable's value (XLA
        compiles some inputs as constants) is served from its compilation cache there. A
        program moves on to new states on every step, so such a function compiles again on
        every call. None when a pass fails.
        """
        durations = []
        try:
            run_pass()
            for _ in range(NEW_STATE_PASSES):
                begin = time.perf_counter()
                run_pass()
                durations.append(time.perf_counter() - begin)
        except Exception:
            return None
        return durations

    def backend_for(self, candidate: dict[str, Any]) -> backends.Backend:
        """The backend of the candidate's verdict (`framework`)."""
        return self.backends[_framework(candidate)]

    def measure(self, candidate: dict[str, Any]) -> dict[str, Any]:
        """One candidate's measurements; measured again when its backend falls back (Inductor
        unusable on this machine: `Backend.fallback`)."""
        backend = self.backend_for(candidate)
        result = self._measure(candidate, backend)
        failure = next(
            (
                info["error"]
                for mode, info in (result.get("modes") or {}).items()
                if mode != "eager" and info.get("error")
            ),
            None,
        )
        if failure is not None and backend.fallback(failure):
            result = self._measure(candidate, backend)
        notes = backend.notes()
        if notes:
            result["notes"] = notes
        return result

    def _measure(self, candidate: dict[str, Any], backend: backends.Backend) -> dict[str, Any]:
        source, function, is_method, sets, reason, facts = self.argument_sets(candidate)
        result: dict[str, Any] = {
            "input_source": source,
            "argument_sets": len(sets),
            "framework": backend.framework,
            **facts,
        }
        if source is None:
            result.update(status="no-inputs", error=reason)
            return result
        compiled_function = function
        if candidate.get("compile_instead"):
            # A hand-written rewrite to check against the original: compiled modes compile
            # it, eager runs the original.
            compiled_function, _ = inputs.resolve_function(
                self.root, candidate["file"], candidate["compile_instead"]
            )
        modes = list(backend.modes(self.settings))
        prepared = backend.prepare(function, compiled_function, modes)
        python_function, compiled = prepared.python_function, prepared.compiled
        reference = prepared.existing if candidate.get("is_hybrid") else "eager"
        result["reference"] = reference
        signatures = facts.get("signatures") or []
        result["tensor_signatures"] = len({_PYTHON_VALUE.sub(r"\1", s) for s in signatures}) or 1
        rtol = float(self.settings.get("rtol", equivalence.DEFAULT_RTOL))
        atol = float(self.settings.get("atol", equivalence.DEFAULT_ATOL))
        bound: dict[tuple[str, int], Any] = {}

        def callable_for(mode: str, args: tuple[Any, ...]) -> tuple[Any, tuple[Any, ...]]:
            if mode == "eager":
                return python_function, args
            if is_method and args:
                owner = args[0]
                slot = (mode, id(owner))
                if slot not in bound:
                    bound[slot] = compiled[mode].__get__(owner, type(owner))
                return bound[slot], args[1:]
            return compiled[mode], args

        calls = []
        for mode in modes:
            mode_calls = []
            for args, kwargs in sets:
                target, call_args = callable_for(mode, args)
                mode_calls.append((target, call_args, kwargs))
            calls.append((mode, mode_calls))
        call_table = dict(calls)

        def tracing_count(mode: str) -> int | None:
            if mode == "eager":
                return 0
            return backend.tracing_count(mode, [t for t, _, _ in call_table[mode]])

        state = backend.state()
        start_state = state.snapshot()

        def run(mode: str) -> dict[str, Any]:
            state.restore(start_state)
            backend.seed(SEED)
            outputs, first_calls = [], []
            try:
                for target, call_args, kwargs in call_table[mode]:
                    begin = time.perf_counter()
                    value = target(*call_args, **kwargs)
                    first_calls.append(time.perf_counter() - begin)
                    outputs.append(backend.to_host(value))
            except BaseException as error:
                if isinstance(error, KeyboardInterrupt | SystemExit):
                    raise
                where = _where(error, str(self.root))
                message = _short_error(error) + (f" (at {where})" if where else "")
                return {"error": message}
            return {"outputs": outputs, "state": state.snapshot(), "first_calls": first_calls}

        runs: dict[str, dict[str, Any]] = {}
        for mode in modes:
            runs[mode] = run(mode)
        if "error" in runs.get(reference, {}) and reference != "eager":
            reference = "eager"
            result["reference"] = reference
        if "error" in runs["eager"] and reference == "eager":
            result.update(status="error", error=f"the eager call failed: {runs['eager']['error']}")
            state.restore(start_state)
            return result
        repeat = run(reference)  # is the reference itself deterministic?
        deterministic = (
            "error" not in repeat
            and not equivalence.compare(
                runs[reference]["outputs"], repeat["outputs"], rtol=rtol, atol=atol
            )
            and not equivalence.compare_states(
                state.names, runs[reference]["state"], repeat["state"], rtol=rtol, atol=atol
            )
        )
        result["deterministic"] = deterministic
        changed = state.changed(start_state, runs[reference]["state"])
        result["variables"] = len(state.names)
        result["variables_changed"] = len(changed)
        result["changed_variable_names"] = [state.names[i] for i in changed[:8]]

        mode_results: dict[str, dict[str, Any]] = {}
        for mode in modes:
            info: dict[str, Any] = {"error": runs[mode].get("error")}
            if mode in prepared.labels:
                info["label"] = prepared.labels[mode]
            if mode != "eager":
                info["traces_warmup"] = tracing_count(mode)
            if info["error"] is None:
                info["first_call_seconds"] = sum(runs[mode]["first_calls"])
                if mode in prepared.labels and runs[mode]["first_calls"]:
                    # The first call of a torch.compile'd function compiles it: cold.
                    info["compile_seconds"] = runs[mode]["first_calls"][0]
                    traces = info["traces_warmup"]
                    info["recompiles"] = None if traces is None else max(0, traces - 1)
                if mode == reference:
                    info["equivalence"] = {"status": "reference", "mismatches": []}
                else:
                    mismatches = equivalence.compare(
                        runs[reference]["outputs"], runs[mode]["outputs"], rtol=rtol, atol=atol
                    ) + equivalence.compare_states(
                        state.names,
                        runs[reference]["state"],
                        runs[mode]["state"],
                        rtol=rtol,
                        atol=atol,
                    )
                    if not mismatches:
                        status = "equal"
                    elif not deterministic:
                        status = "not-comparable"
                    else:
                        status = "different"
                    info["equivalence"] = {
                        "status": status,
                        "mismatches": [f"{m.path}: {m.problem}" for m in mismatches],
                    }
            mode_results[mode] = info

        def mark_random_ops(random_ops: list[str]) -> None:
            result["random_ops"] = random_ops
            for mode in modes if random_ops else ():
                equiv = mode_results[mode].get("equivalence")
                if equiv and equiv["status"] == "different":
                    equiv["status"] = "not-comparable"
                    equiv["mismatches"].append(
                        "stateful random ops draw different numbers in eager and graph mode: "
                        + ", ".join(random_ops)
                    )

        # The compiler's statistics: before timing, so that a failure here does not cost the
        # timing, unless gathering them disturbs the compiled callables' caches.
        if not backend.statistics_after_timing:
            mark_random_ops(backend.statistics(call_table, mode_results, prepared))

        # Steady-state timing, modes interleaved, variables restored before each sample.
        timed = {m: call_table[m] for m in modes if mode_results[m]["error"] is None}
        warm = {m: tracing_count(m) for m in timed}

        def make_pass(
            entries: list[tuple[Any, tuple[Any, ...], dict[str, Any]]],
        ) -> Callable[[], None]:
            def run_pass() -> None:
                for target, call_args, kwargs in entries:
                    target(*call_args, **kwargs)

            return run_pass

        restore: Callable[[], None] | None = (
            (lambda: state.restore(start_state)) if changed else None
        )
        # Before the timing loops: they compile many states, after which TensorFlow may stop
        # compiling the function at all, which would hide the cost a real run pays.
        new_states: dict[str, list[float] | None] = {}
        if changed:
            for mode in timed:
                if mode != "eager":
                    state.restore(start_state)
                    new_states[mode] = self.time_new_states(make_pass(timed[mode]))
            state.restore(start_state)
        try:
            stats = timing.measure(
                {m: make_pass(entries) for m, entries in timed.items()},
                len(sets),
                before_sample=restore,
                min_rounds=int(self.settings.get("min_rounds", 7)),
                max_rounds=int(self.settings.get("max_rounds", 41)),
                budget_seconds=float(self.settings.get("budget_seconds", 2.0)),
                min_sample_seconds=float(self.settings.get("min_sample_seconds", 0.02)),
            )
        except BaseException as error:
            if isinstance(error, KeyboardInterrupt | SystemExit):
                raise
            state.restore(start_state)
            result.update(
                status="error",
                error=f"failed while timing: {_short_error(error)}",
                modes=mode_results,
            )
            return result
        for mode, stat in stats.items():
            info = mode_results[mode]
            info["timing"] = stat.as_dict()
            if mode != "eager":
                info["traces"] = tracing_count(mode)
                before, after = warm[mode], info["traces"]
                known = before is not None and after is not None
                info["steady_retraces"] = after - before if known else None
                trace = info["first_call_seconds"] - stat.median * len(sets)
                info["trace_seconds"] = max(0.0, trace)
                info["new_state_seconds"] = new_states.get(mode)
        if backend.statistics_after_timing:
            state.restore(start_state)
            mark_random_ops(backend.statistics(call_table, mode_results, prepared))
        state.restore(start_state)
        result.update(status="measured", error=None, modes=mode_results)
        return result


NEW_STATE_PASSES = 3
"""Passes timed from variable states never seen before (see `Worker.time_new_states`)."""


def _clean(value: Any) -> Any:
    """JSON-safe: non-finite floats become None."""
    if isinstance(value, float):
        return value if value == value and value not in (float("inf"), float("-inf")) else None
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


def main(argv: list[str]) -> int:
    fd = int(os.environ.get(PROTOCOL_FD_ENV, "-1"))
    if fd < 0:
        print("hybridize worker: started without a protocol pipe", file=sys.stderr)
        return 2
    channel = Channel(fd)
    job = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    try:
        worker = Worker(job, channel)
    except BaseException as error:
        channel.send("fatal", message=f"cannot start the worker: {_short_error(error)}")
        return 1
    versions = worker.versions()
    channel.send(
        "hello", pid=os.getpid(), tensorflow=versions.get("tensorflow"), frameworks=versions
    )
    sys.path.insert(0, str(worker.root))
    os.chdir(job.get("cwd") or worker.root)
    worker.capture()
    worker.load_user_inputs()
    skip = set(job.get("skip", []))
    for candidate in job.get("candidates", []):
        key = candidate["key"]
        if key in skip:
            continue
        channel.send("function_start", key=key)
        try:
            result = worker.measure(candidate)
        except BaseException as error:
            if isinstance(error, KeyboardInterrupt):
                raise
            result = {"status": "error", "error": _short_error(error)}
        if worker.user_inputs_error and result.get("status") == "no-inputs":
            result["error"] = f"{result.get('error')}; {worker.user_inputs_error}"
        channel.send("function_done", key=key, result=_clean(result))
    channel.send("done")
    sys.stdout.flush()
    # Skip interpreter teardown: user objects and the frameworks can take seconds to finalize.
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
