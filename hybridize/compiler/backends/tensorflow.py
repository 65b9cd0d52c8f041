"""TensorFlow's backend: eager, `tf.function` and `tf.function(jit_compile=True)`.

This is the measuring the worker always did for TensorFlow, moved behind `Backend` unchanged:
an existing `tf.function` keeps its options (input signature, retracing, AutoGraph, XLA),
traces are `experimental_get_tracing_count()`, the state is every `tf.Variable` of the process,
and the statistics are the graph's op counts and the HLO before and after XLA's optimisation.
"""

from __future__ import annotations

import gc
from collections.abc import Sequence
from typing import Any

import tensorflow as tf

from hybridize.compiler import equivalence, graphstats, inputs
from hybridize.compiler.backends import CallTable, Prepared, StateTracker
from hybridize.compiler.errors import short_error

MODES = ("eager", "graph", "xla")


class TensorFlowBackend:
    """`Backend` for TensorFlow (see the module docstring)."""

    framework = "tensorflow"
    statistics_after_timing = False

    def __init__(self, settings: dict[str, Any]) -> None:
        self.version = str(tf.__version__)

    def modes(self, settings: dict[str, Any]) -> tuple[str, ...]:
        return tuple(m for m in MODES if m != "xla" or settings.get("xla", True))

    def notes(self) -> list[str]:
        return []

    def fallback(self, error: str) -> bool:
        return False  # tf.function and XLA need no toolchain of the machine's

    def executing_eagerly(self) -> bool:
        return bool(tf.executing_eagerly())

    def is_symbolic(self, value: Any) -> bool:
        name = type(value).__name__
        if name == "KerasTensor":
            return True
        if isinstance(value, tf.Tensor):
            return not hasattr(value, "numpy") or bool(tf.is_symbolic_tensor(value))
        return False

    def owns(self, value: Any) -> bool:
        return isinstance(value, tf.Tensor | tf.Variable)

    def describe_leaf(self, value: Any) -> str | None:
        if not isinstance(value, tf.Tensor | tf.Variable):
            return None
        dims = (
            ",".join("?" if d is None else str(d) for d in value.shape.as_list())
            if value.shape.rank is not None
            else "*"
        )
        prefix = "var " if isinstance(value, tf.Variable) else ""
        return f"{prefix}{value.dtype.name}[{dims}]"

    def copy_leaf(self, value: Any) -> Any:
        return value  # eager tensors are immutable; variables are state, restored apart

    def to_host(self, value: Any) -> Any:
        return equivalence.to_host(value)

    def state(self) -> StateTracker:
        seen: set[int] = set()
        found = []
        for obj in gc.get_objects():
            if isinstance(obj, tf.Variable) and id(obj) not in seen:
                seen.add(id(obj))
                found.append(obj)
        return equivalence.VariableState(found)

    def seed(self, seed: int) -> None:
        tf.random.set_seed(seed)

    def prepare(self, function: Any, compiled_function: Any, modes: Sequence[str]) -> Prepared:
        python_function = getattr(function, "python_function", function)
        compiled_function = getattr(compiled_function, "python_function", compiled_function)
        options: dict[str, Any] = {}
        if hasattr(function, "python_function"):  # an existing tf.function: keep its options
            options["input_signature"] = getattr(function, "input_signature", None)
            options["reduce_retracing"] = bool(getattr(function, "_reduce_retracing", False))
            options["autograph"] = bool(getattr(function, "_autograph", True))
            if getattr(function, "_jit_compile", None):
                options["jit_compile"] = True
        existing = "xla" if options.get("jit_compile") else "graph"
        compiled: dict[str, Any] = {}
        for mode in ("graph", "xla"):
            mode_options = {
                **options,
                "jit_compile": True if mode == "xla" else options.get("jit_compile"),
            }
            if mode == "graph" and existing == "xla":
                mode_options["jit_compile"] = None
            compiled[mode] = tf.function(compiled_function, **mode_options)
        return Prepared(python_function, compiled, existing)

    def tracing_count(self, mode: str, targets: Sequence[Any]) -> int:
        objects = {id(t): t for t in targets}
        return sum(int(t.experimental_get_tracing_count()) for t in objects.values())

    def statistics(
        self, call_table: CallTable, results: dict[str, dict[str, Any]], prepared: Prepared
    ) -> list[str]:
        random_ops: list[str] = []
        if results.get("graph", {}).get("error") is None and "graph" in call_table:
            target, call_args, kwargs = call_table["graph"][0]
            try:
                graph_def = target.get_concrete_function(*call_args, **kwargs).graph.as_graph_def()
                results["graph"]["graph"] = graphstats.graph_def_stats(graph_def)
                random_ops = graphstats.stateful_random_ops(graph_def)
            except BaseException as error:
                results["graph"]["graph"] = {"error": short_error(error)}
        if "xla" in call_table and results["xla"].get("error") is None:
            target, call_args, kwargs = call_table["xla"][0]
            try:
                ir = target.experimental_get_compiler_ir(*call_args, **kwargs)
                before = graphstats.parse_hlo(ir(stage="hlo"))
                after = graphstats.parse_hlo(ir(stage="optimized_hlo"))
                results["xla"]["hlo"] = {
                    "instructions_before": before.instructions,
                    "instructions_after": after.scheduled_instructions,
                    "instructions_after_total": after.instructions,
                    "fusions": after.fusions,
                    "computations_before": before.computations,
                }
            except BaseException as error:
                results["xla"]["hlo"] = {"error": short_error(error)}
        return random_ops

    def signature_argument_sets(
        self, signature: Sequence[Any], none_axis_size: int
    ) -> list[tuple[Any, ...]]:
        return inputs.signature_argument_sets(signature, tf, none_axis_size)


def create(settings: dict[str, Any]) -> TensorFlowBackend:
    return TensorFlowBackend(settings)
