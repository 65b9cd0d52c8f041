"""The benefit oracle's verdicts: from the calls the plugin recorded (`benefit_plugin`), per
rewritten function whether the change pays on the tests' own calls, and per library how well
the default set (`benefit` high) matches the changes that do.

A change is *faster*, *slower* or of *no measurable difference* by the median of its rounds'
ratios of eager to compiled CPU time and that median's interval (`speed_band`: the noise band
and the method). It is a *benefit failure* when it is measured slower, or when it traces more
often than it sees distinct input signatures (a new trace without a new input: a new Python
object per call, a graph break), or when its traces grow with its calls in a test: counted per
call, a call that traces with a tensor input (shapes, dtypes) the test had already called it
with is a retrace, however its Python values or instance differ (`TestTraces`: a new Python
float per iteration, a new object or instance per call, which each are a new recorded
signature and so escape the per-signature count); a change of no measurable difference is
neither paying nor a failure, and is counted apart.
The second trace of a `tf.function`'s first call that created variables is not such a retrace:
TensorFlow traces that call once creating them and once more to use them, once per function
object (per instance for a method; `benefit_plugin.created_variables`). A change the tests never
call eagerly is *unmeasured*: only called inside a graph (the decorator adds nothing there),
only while the tests run every `tf.function` as plain Python
(`tf.config.run_functions_eagerly(True)`: compiled and eager times are then the same code),
never called, or not reachable by the plugin (a nested definition).

A change *run inside a graph by the library* is one the plugin saw called while the graph of
another function was being built, a graph the library's code (or the framework's, for it)
built, not the test's (`library_graph`): a `tf.function` or tf.data tracing it (Keras's
`predict_function` over `predict_step`, a `map` function, a compiled caller), or Dynamo
compiling a caller that inlines it. Its decorator gains nothing in real use even when the
tests' direct eager calls are faster: it is paying on those calls, and reported apart from
the paying changes the default set should hold (`LibraryBenefit.paying`). The evidence is the
run's, never the analysis' prediction.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hybridize.verify.speed_band import (
    RatioInterval,
    SpeedVerdict,
    median,
    median_interval,
    speed_verdict,
)

RETRACES_IN_A_TEST = 2
"""Traces without a new tensor input in one test (`TestTraces.retraces`) from which a change
retraces per call: one such trace is a second value of a flag or a second instance; more, and
the traces grow with the calls (a new Python float per iteration, a new object per call)."""

RETRACE_SHARE = 0.25
"""The least share of a test's repeated calls (`TestTraces.repeats`) that traced for the
change to retrace per call: several instances each called many times trace once each, a
small share of their calls (their traces follow the instances, not the calls)."""

LITTLE_WORK_SECONDS = 1e-3
"""An eager call shorter than this that is slower compiled is put down to too little work:
the compiled call's fixed cost (signature matching, the runtime's dispatch) outweighs it."""


TEST_FILE = re.compile(r"(^test_.*|.*_test|^conftest)\.py$")
"""The name of a test module (pytest's defaults, and `conftest.py`)."""

TEST_HELPER_GLOBS = ("*_tests.py", "*_test_utils.py", "testing/*", "*/testing/*")
"""Test-helper modules a library ships inside its package, by path: base test cases and
fixtures its test modules import (Sonnet's `optimizers/optimizer_tests.py`,
`distribute/replicator_test_utils.py`; tf-models' `official/utils/testing/`). Test code, not
the library's: the oracles leave them unrewritten (`realcode_oracle.refactor_options`) and a
graph they build is a test's (`is_test_code`)."""

TEST_HELPER_FILE = re.compile(r".*(_tests|_test_utils)\.py$")
"""The name of a test-helper module (`TEST_HELPER_GLOBS`' file names)."""


def is_test_code(path: str) -> bool:
    """Whether a file is a test's, not the library's nor a framework's: a test module's name
    (as the oracle selects test files), a test-helper module's (`TEST_HELPER_GLOBS`) or a
    module of a `test`/`tests`/`testing` folder (gpytorch's base test cases), outside an installed distribution (`site-packages` holds the frameworks' own
    helpers named so, `tensorflow/python/framework/test_util.py`)."""
    parts = path.replace("\\", "/").split("/")
    if "site-packages" in parts:
        return False
    name = parts[-1]
    return bool(TEST_FILE.match(name) or TEST_HELPER_FILE.match(name)) or bool(
        {"test", "tests", "testing"} & set(parts[:-1])
    )


def library_graph(record: Mapping[str, Any]) -> str | None:
    """The graph an in-graph call was traced into when the library built it: its name, from
    a plugin record naming a trace (`graph`) that is not the function's own (`own`) and that no
    test's code reached the call in (`graph_files`: a test wrapping the function in its own
    `tf.function` shows it can be compiled, not that the library compiles it); else None."""
    graph = record.get("graph")
    if not graph or record.get("own"):
        return None
    if any(is_test_code(str(f)) for f in record.get("graph_files") or ()):
        return None
    return str(graph)


@dataclass(frozen=True, slots=True)
class Change:
    """One rewritten function and whether the default refactoring (`benefit` high) makes it."""

    key: str
    default: bool


@dataclass(slots=True)
class FunctionBenefit:
    """What the tests' calls say about one change."""

    key: str
    default: bool
    calls: int = 0
    in_graph_calls: int = 0
    library_graph_calls: int = 0
    """In-graph calls traced into a graph the library built (`library_graph`)."""
    library_graphs: list[str] = field(default_factory=list)
    """Those graphs' names ("predict_function", "Dataset_map_lambda", "dynamo:forward")."""
    static_graphs: list[str] = field(default_factory=list)
    """The steps the library's training loop compiles from which, by its code, the library
    alone calls the function (`Task.train_step`): static evidence, for a path no test runs
    (set by the oracle, `benchmarks/library_steps.py`)."""
    run_eagerly_calls: int = 0
    """Calls made while the tests ran every `tf.function` eagerly: neither counted nor timed."""
    signatures: int = 0
    traces: int = 0
    variable_traces: int = 0
    """The second traces of first calls that created variables (one per function object)."""
    timed_calls: int = 0
    replayed_rounds: int = 0
    """Rounds of its timed calls replayed at the end of a test file while its interval was
    not settled (`benefit_plugin.Probe.replay`)."""
    timing_traces: int = 0
    speedup: float | None = None
    """The median of its rounds' ratios of eager to compiled CPU time (`interval.median`)."""
    interval: RatioInterval | None = None
    wall_speedup: float | None = None
    """The same median in wall time, reported: on a loaded machine it measures the load."""
    eager_seconds: float | None = None
    unreachable: str | None = None
    timing_errors: list[str] = field(default_factory=list)
    varying: list[str] = field(default_factory=list)
    """What differs between its signatures: "shapes", "values", "objects" (empty: one)."""
    retraces_per_call: TestTraces | None = None
    """The test whose calls traced most without a new tensor input, where they trace per
    call (`TestTraces.per_call`); None where no test's did."""

    @property
    def measured(self) -> bool:
        return self.speedup is not None

    @property
    def speed(self) -> SpeedVerdict | None:
        """Faster, slower or no measurable difference (None: not measured)."""
        return None if self.interval is None else speed_verdict(self.interval)

    @property
    def faster(self) -> bool:
        return self.speed == "faster"

    @property
    def slower(self) -> bool:
        return self.speed == "slower"

    @property
    def no_difference(self) -> bool:
        """Measured, no excess traces, and neither measurably faster nor slower."""
        return self.speed == "no measurable difference" and not self.excess_traces

    @property
    def paying(self) -> bool:
        """Measured faster, and tracing no more than its inputs explain."""
        return self.faster and not self.excess_traces

    @property
    def run_in_graph(self) -> bool:
        """Seen called inside a graph the library built during the tests (measured), or
        called by the library only from steps its training loop compiles (`static_graphs`)."""
        return self.library_graph_calls > 0 or bool(self.static_graphs)

    @property
    def paying_in_graph(self) -> bool:
        """Paying on the tests' direct calls, but run inside a graph by the library."""
        return self.paying and self.run_in_graph

    @property
    def excess_traces(self) -> bool:
        """More traces on the tests' own calls than distinct signatures among them. The traces
        during the timing repeats (`timing_traces`) are reported, not judged: Dynamo's count
        is process-wide, and the eager original may call a compiled function that no probe
        replaced (a default argument bound at import, `inv_transform=inv_softplus`)."""
        return self.traces - self.variable_traces > self.signatures or (
            self.retraces_per_call is not None
        )

    @property
    def failure(self) -> bool:
        """Measured, and slower or tracing more than its inputs explain."""
        return self.measured and (self.slower or self.excess_traces)

    @property
    def cause(self) -> str | None:
        """Why it does not pay (None: it does, or nothing says)."""
        if self.unreachable is not None:
            return self.unreachable
        if self.calls == 0:
            if self.in_graph_calls:
                return "already in a graph"
            if self.run_eagerly_calls:
                return "run eagerly: the tests set tf.config.run_functions_eagerly(True)"
            return "not called by the tests"
        if not self.measured:
            return "not timed: " + (self.timing_errors[0] if self.timing_errors else "no sample")
        if self.retraces_per_call is not None:
            t = self.retraces_per_call
            return (
                f"retraces per call: {t.retraces} of {t.repeats} calls with a tensor input "
                f"already seen traced again in {t.test} (new Python objects or values per call)"
            )
        if self.excess_traces:
            return "retraces beyond its input signatures (new Python objects or graph breaks)"
        if self.slower:
            if self.eager_seconds is not None and self.eager_seconds < LITTLE_WORK_SECONDS:
                return "too little work"
            return "slower compiled"
        if not self.faster:
            return "no measurable difference"
        if self.run_in_graph:
            graphs = ", ".join(self.library_graphs[:3]) or "its code calls it only from " + (
                ", ".join(f"`{s}`" for s in self.static_graphs[:3])
                + ", which its training loop compiles"
            )
            return f"faster on direct calls, but run inside a graph by the library ({graphs})"
        return None

    def as_record(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "default": self.default,
            "calls": self.calls,
            "in_graph_calls": self.in_graph_calls,
            "library_graph_calls": self.library_graph_calls,
            "library_graphs": self.library_graphs,
            "static_graphs": self.static_graphs,
            "run_eagerly_calls": self.run_eagerly_calls,
            "signatures": self.signatures,
            "traces": self.traces,
            "variable_traces": self.variable_traces,
            "timed_calls": self.timed_calls,
            "replayed_rounds": self.replayed_rounds,
            "timing_traces": self.timing_traces,
            "speedup": self.speedup,
            "interval": None
            if self.interval is None
            else [self.interval.low, self.interval.high, self.interval.coverage],
            "ratios": None if self.interval is None else self.interval.samples,
            "wall_speedup": self.wall_speedup,
            "speed": self.speed,
            "eager_seconds": self.eager_seconds,
            "varying": self.varying,
            "retraces_per_call": None
            if self.retraces_per_call is None
            else {
                "test": self.retraces_per_call.test,
                "calls": self.retraces_per_call.calls,
                "repeats": self.retraces_per_call.repeats,
                "retraces": self.retraces_per_call.retraces,
            },
            "faster": self.faster,
            "paying": self.paying,
            "paying_in_graph": self.paying_in_graph,
            "excess_traces": self.excess_traces,
            "failure": self.failure,
            "cause": self.cause,
        }


def round_ratios(record: Mapping[str, Any], clock: str = "cpu") -> list[float]:
    """A timed call's ratios of eager to compiled time, one per round (`clock`: "cpu" or
    "wall"); a record of a plugin that kept only medians gives its one ratio of medians."""
    eager_key, compiled_key = (
        ("eager_cpu_samples", "compiled_cpu_samples")
        if clock == "cpu"
        else ("eager_samples", "compiled_samples")
    )
    if eager_key in record:
        pairs = zip(record[eager_key], record[compiled_key], strict=False)
        return [float(e) / max(float(c), 1e-12) for e, c in pairs]
    return [float(record["eager_seconds"]) / max(float(record["compiled_seconds"]), 1e-12)]


def _varying(signatures: Iterable[str]) -> list[str]:
    """What differs between a function's signatures: "shapes" (or dtypes, or object types)
    once Python values are set aside, "values" once shapes are."""
    parsed = [json.loads(s) for s in set(signatures)]
    if len(parsed) < 2:
        return []
    varying = []
    if len({json.dumps(_strip_values(p)) for p in parsed}) > 1:
        varying.append("shapes")
    if len({json.dumps(_strip_shapes(p)) for p in parsed}) > 1:
        varying.append("values")
    return varying


def _strip_shapes(node: Any) -> Any:
    if isinstance(node, list) and len(node) == 5 and node[0] == "array":
        return ["array", node[1], node[2]]
    if isinstance(node, list):
        return [_strip_shapes(n) for n in node]
    return node


def _strip_values(node: Any) -> Any:
    if isinstance(node, list) and len(node) == 3 and node[0] == "value":
        return ["value", node[1]]
    if isinstance(node, list):
        return [_strip_values(n) for n in node]
    return node


def tensor_signature(signature: str) -> str:
    """A recorded signature with its Python values reduced to their types: what tells a new
    tensor input (shape, dtype) from a new Python value, which retraces without one."""
    try:
        parsed = json.loads(signature)
    except (TypeError, json.JSONDecodeError):
        return str(signature)
    return json.dumps(_strip_values(parsed))


@dataclass(slots=True)
class TestTraces:
    """One test's calls of a change: how many repeated a tensor input (shapes, dtypes, Python
    values' types) the test had called it with before, and how many of those traced."""

    test: str
    calls: int = 0
    repeats: int = 0
    retraces: int = 0
    seen: set[str] = field(default_factory=set)

    def add(self, signature: str, traces: int) -> None:
        """A call with its recorded signature and its traces (a first call's second trace
        creating variables aside)."""
        self.calls += 1
        tensors = tensor_signature(signature)
        if tensors in self.seen:
            self.repeats += 1
            self.retraces += traces > 0
        self.seen.add(tensors)

    @property
    def per_call(self) -> bool:
        """Whether the calls trace per call: at least `RETRACES_IN_A_TEST` traces without a
        new tensor input, a `RETRACE_SHARE` of the calls that repeated one or more."""
        return self.retraces >= RETRACES_IN_A_TEST and self.retraces >= RETRACE_SHARE * self.repeats


def judge(changes: Sequence[Change], records: Iterable[Mapping[str, Any]]) -> list[FunctionBenefit]:
    """Each change's benefit from the plugin's records (of every test process of a library)."""
    by_key = {c.key: FunctionBenefit(c.key, c.default) for c in changes}
    # a trace cache is per process, and per instance for a method: a signature is new per
    # (process, instance token, signature); instance tokens restart at 1 in every process
    signatures: dict[str, set[tuple[str, int, str]]] = {k: set() for k in by_key}
    ratios: dict[str, list[float]] = {k: [] for k in by_key}
    wall_ratios: dict[str, list[float]] = {k: [] for k in by_key}
    eager: dict[str, list[float]] = {k: [] for k in by_key}
    # traces per call: per (process, test), a call that traces with a tensor input the test
    # had already called the function with is a retrace (a new instance or Python value)
    tests: dict[str, dict[tuple[str, str], TestTraces]] = {k: {} for k in by_key}
    for record in records:
        function = by_key.get(str(record.get("key")))
        if function is None:
            continue
        if record.get("kind") == "unreachable":
            function.unreachable = str(record["reason"])
            continue
        if record.get("kind") == "replay":  # more rounds of calls timed before: no call
            if "compiled_seconds" in record:
                function.replayed_rounds += int(record.get("samples", 0))
                ratios[function.key].extend(round_ratios(record, "cpu"))
                wall_ratios[function.key].extend(round_ratios(record, "wall"))
            continue
        if record.get("in_graph"):
            function.in_graph_calls += 1
            graph = library_graph(record)
            if graph is not None:
                function.library_graph_calls += 1
                # TensorFlow numbers its loop bodies' graphs: `while_body_1545` is `while_body`
                graph = re.sub(r"_\d+$", "", graph)
                if graph not in function.library_graphs and len(function.library_graphs) < 8:
                    function.library_graphs.append(graph)
            continue
        if record.get("run_eagerly"):
            function.run_eagerly_calls += 1
            continue
        function.calls += 1
        traces = int(record.get("traces", 0))
        function.traces += traces
        if record.get("created_variables") and traces >= 2:
            function.variable_traces += 1
            traces -= 1
        test = str(record.get("test", ""))
        process = str(record.get("process", ""))
        in_test = tests[function.key].setdefault((process, test), TestTraces(test))
        in_test.add(str(record.get("signature")), traces)
        signatures[function.key].add(
            (
                str(record.get("process", "")),
                int(record.get("owner", 0)),
                str(record.get("signature")),
            )
        )
        if "timing_error" in record:
            function.timing_errors.append(str(record["timing_error"]))
        if "compiled_seconds" in record:
            function.timed_calls += 1
            function.timing_traces += int(record.get("timing_traces", 0))
            ratios[function.key].extend(round_ratios(record, "cpu"))
            wall_ratios[function.key].extend(round_ratios(record, "wall"))
            eager[function.key].append(float(record["eager_seconds"]))
    for key, function in by_key.items():
        if function.unreachable is not None and function.calls:
            function.unreachable = None  # reached in another process
        function.signatures = len(signatures[key])
        function.varying = _varying(s for _, _, s in signatures[key])
        retracing = [t for t in tests[key].values() if t.per_call]
        if retracing:
            function.retraces_per_call = max(retracing, key=lambda t: (t.retraces, t.test))
        function.interval = median_interval(ratios[key])
        if function.interval is not None:
            function.speedup = function.interval.median
            function.wall_speedup = median(wall_ratios[key])
            function.eager_seconds = median(eager[key])
    return list(by_key.values())


@dataclass(frozen=True, slots=True)
class LibraryBenefit:
    """The issue's two figures for one library, with their counts."""

    default_changes: int
    default_measured: int
    default_paying: int
    """Default changes measured faster that trace no more than their inputs explain."""
    default_no_difference: int
    """Default changes measured, no excess traces, of no measurable difference."""
    default_retracing: int
    """Default changes that trace more often than they see distinct inputs."""
    paying: int
    """Changes (of every safe one) measured faster with no excess traces, and not run inside
    a graph by the library (those are `paying_in_graph`): the recall's denominator."""
    paying_in_default: int
    paying_in_graph: int = 0
    """Changes faster on the tests' direct calls, but run inside a graph by the library."""
    paying_in_graph_default: int = 0
    """Of those, the ones the default set holds."""

    @property
    def default_rate(self) -> float | None:
        """Paying of every default change measured (no measurable difference counts against)."""
        return self.default_paying / self.default_measured if self.default_measured else None

    @property
    def default_decided(self) -> int:
        """Default changes measured with a measurable difference, or retracing."""
        return self.default_measured - self.default_no_difference

    @property
    def default_rate_decided(self) -> float | None:
        """Paying of the default changes measured with a measurable difference."""
        return self.default_paying / self.default_decided if self.default_decided else None

    @property
    def recall(self) -> float | None:
        return self.paying_in_default / self.paying if self.paying else None


def summarize(
    functions: Sequence[FunctionBenefit],
    default_functions: Sequence[FunctionBenefit] | None = None,
) -> LibraryBenefit:
    """The library's figures: the paying changes and their share in the default set from
    `functions` (every safe change applied); the default changes' from `default_functions`
    when given (a run with only the default changes applied, as `refactor` makes by default:
    a failing low-benefit change cannot stop the tests before they reach a default one), else
    from the default changes among `functions`."""
    default = [
        f for f in (functions if default_functions is None else default_functions) if f.default
    ]
    paying = [f for f in functions if f.paying and not f.run_in_graph]
    in_graph = [f for f in functions if f.paying_in_graph]
    return LibraryBenefit(
        default_changes=len(default),
        default_measured=sum(f.measured for f in default),
        default_paying=sum(f.paying for f in default),
        default_no_difference=sum(f.no_difference for f in default),
        default_retracing=sum(f.measured and f.excess_traces for f in default),
        paying=len(paying),
        paying_in_default=sum(f.default for f in paying),
        paying_in_graph=len(in_graph),
        paying_in_graph_default=sum(f.default for f in in_graph),
    )


def read_records(paths: Iterable[Path]) -> list[dict[str, Any]]:
    """The plugin's JSON lines of every file (a line cut by a killed process is skipped), each
    with the `process` that wrote it: the file's name (the plugin writes one per process), as
    each process traces anew."""
    records: list[dict[str, Any]] = []
    for path in paths:
        if not path.exists():
            continue
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(record, dict):
                record.setdefault("process", path.stem)
                records.append(record)
    return records


BENEFIT_PLUGIN_MODULE = "_hybridize_benefit_plugin"
"""The benefit plugin's module name in the test run (see `command_run.PLUGIN_MODULE`)."""


SPEED_BAND_MODULE = "_hybridize_speed_band"
"""`speed_band`'s module name beside the plugin (standard library only, as the plugin)."""


def install_benefit_plugin(folder: Path) -> Path:
    """Copy the benefit plugin into `folder` as `BENEFIT_PLUGIN_MODULE` (for `PYTHONPATH`),
    and `speed_band` beside it as `SPEED_BAND_MODULE`."""
    folder.mkdir(parents=True, exist_ok=True)
    source = Path(__file__).with_name("benefit_plugin.py")
    (folder / f"{BENEFIT_PLUGIN_MODULE}.py").write_bytes(source.read_bytes())
    # the rule of when a function's rounds are settled, which the plugin imports
    band = Path(__file__).with_name("speed_band.py")
    (folder / f"{SPEED_BAND_MODULE}.py").write_bytes(band.read_bytes())
    return folder


def module_of(file: str) -> str:
    """The module a file of the analysed root defines (`pkg/__init__.py` -> `pkg`)."""
    name = file.removesuffix(".py").replace("/", ".")
    return name.removesuffix(".__init__")
