"""What the worker asks of a framework: one small `Backend` protocol, one module per framework.

The worker's measuring loop (`worker.py`: run every mode from the same state, compare outputs
and state with the reference, time the steady state interleaved) is the same for TensorFlow
and PyTorch; what differs is how a function is compiled, how its traces are counted, which
objects hold the program's state, how tensors reach the host, and which statistics the compiler
gives. Those parts sit behind `Backend`, so a candidate is measured by the backend of its
verdict's `framework` and adding a framework adds a module here, not branches in the worker.

A backend module imports its framework when it is loaded, and `load` loads one only when a
candidate of that framework is in the job: a TensorFlow-only project never imports torch, a
PyTorch-only one never imports TensorFlow, and the worker runs with only one of them installed.
Nothing here imports either framework.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

FRAMEWORKS = ("tensorflow", "torch")
"""The verdicts' `framework` values, each the name of its backend module here."""

CallTable = dict[str, list[tuple[Any, tuple[Any, ...], dict[str, Any]]]]
"""Per mode, the calls the worker makes: (callable, positional arguments, keyword arguments)."""


class StateTracker(Protocol):
    """The program's state a call may change (variables; parameters, buffers, gradients,
    optimizer state): snapshot as host values, restored between modes and timing samples."""

    names: list[str]

    def snapshot(self) -> list[Any]:
        """Host copies of every tracked value (None: unreadable), in `names` order."""
        ...

    def restore(self, values: Sequence[Any]) -> None:
        """Put a snapshot back."""
        ...

    def changed(self, before: Sequence[Any], after: Sequence[Any]) -> list[int]:
        """Indices of the values that differ between two snapshots."""
        ...


@dataclass(slots=True)
class Prepared:
    """A candidate made ready for measuring: the plain Python function eager mode runs, the
    compiled callable of every other mode, and the mode the program already uses."""

    python_function: Any
    compiled: dict[str, Any]
    existing: str
    labels: dict[str, str] = field(default_factory=dict)
    """The name a mode is shown under when it is not the mode's key (`torch.compile
    (inductor)` for torch's `graph` mode)."""


class Backend(Protocol):
    """The framework-specific half of measuring one candidate (see the module docstring).

    Modes are keyed as in the report: `eager`, `graph` (the framework's compiled form:
    `tf.function`, `torch.compile`) and, for TensorFlow, `xla`; decisions treat every
    backend's `graph` alike.
    """

    framework: str
    version: str
    statistics_after_timing: bool
    """Whether `statistics` runs after the timing (it would disturb the compiled caches)."""

    def modes(self, settings: dict[str, Any]) -> tuple[str, ...]:
        """The modes measured, `eager` first."""
        ...

    def notes(self) -> list[str]:
        """What the report should say about how this backend measured (a fallback taken)."""
        ...

    def fallback(self, error: str) -> bool:
        """After a compiled mode failed with `error`: whether the compiler itself is unusable
        on this machine, in which case the backend has switched to a fallback and the
        candidate is to be measured again."""
        ...

    def executing_eagerly(self) -> bool:
        """Whether a call seen now runs eagerly (not inside a trace or compilation)."""
        ...

    def is_symbolic(self, value: Any) -> bool:
        """Whether an argument is a symbolic placeholder with no value to record."""
        ...

    def owns(self, value: Any) -> bool:
        """Whether the value is one of this framework's tensors (for `describe_leaf`)."""
        ...

    def describe_leaf(self, value: Any) -> str | None:
        """`float32[64,8]` for a tensor of this framework; None for anything else."""
        ...

    def copy_leaf(self, value: Any) -> Any:
        """A copy of a recorded argument that the program may later change in place (the
        value itself when it cannot change)."""
        ...

    def to_host(self, value: Any) -> Any:
        """An output as host values for `equivalence.compare`."""
        ...

    def state(self) -> StateTracker:
        """The program's state now reachable (collected once per candidate)."""
        ...

    def seed(self, seed: int) -> None:
        """Seed the framework's global random generator before each run."""
        ...

    def prepare(self, function: Any, compiled_function: Any, modes: Sequence[str]) -> Prepared:
        """The candidate's callables per mode (`compiled_function`: what compiled modes run,
        a hand-written rewrite to check, or the function itself)."""
        ...

    def tracing_count(self, mode: str, targets: Sequence[Any]) -> int | None:
        """Traces (compilations) of a mode so far, over its distinct callables (None: this
        framework's version does not tell; the report's counts are then null)."""
        ...

    def statistics(
        self, call_table: CallTable, results: dict[str, dict[str, Any]], prepared: Prepared
    ) -> list[str]:
        """Add the compiler's statistics to the modes' `results`; the stateful random ops
        found."""
        ...

    def signature_argument_sets(
        self, signature: Sequence[Any], none_axis_size: int
    ) -> list[tuple[Any, ...]]:
        """Argument sets synthesised from an inferred input signature."""
        ...


def load(framework: str, settings: dict[str, Any]) -> Backend:
    """The backend of a verdict's framework, importing that framework (and only that one)."""
    if framework not in FRAMEWORKS:
        raise ValueError(f"no bench backend for framework {framework!r}")
    module = importlib.import_module(f"hybridize.compiler.backends.{framework}")
    factory: Callable[[dict[str, Any]], Backend] = module.create
    return factory(settings)
