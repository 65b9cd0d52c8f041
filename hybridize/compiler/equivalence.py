"""Numerical equivalence of two modes: every output, and every variable after the call.

Outputs are nested structures (tuples, lists, dicts, namedtuples) whose leaves are tensors or
Python values. Both sides are first brought to the host (`to_host`): tensors and variables
become NumPy arrays, Python scalars and strings stay, any other object is compared by identity.
Two structures are equivalent when they have the same shape of nesting, every array pair has the
same shape and dtype and satisfies `numpy.allclose(a, b, rtol, atol, equal_nan=True)`, and every
other leaf is equal. Variables (model weights, optimizer slots and step counters, random
generator states) are compared the same way after the same calls from the same starting state.

The defaults, `rtol=1e-5` and `atol=1e-6`, accept the reassociation of float32 sums that graph
optimisation and XLA fusion perform, and nothing more visible.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

DEFAULT_RTOL = 1e-5
DEFAULT_ATOL = 1e-6

_MAX_MISMATCHES = 5


@dataclass(frozen=True, slots=True)
class Mismatch:
    """Where two structures differ, and how."""

    path: str
    problem: str


class Opaque:
    """A leaf that is neither a tensor nor a plain Python value: compared by identity."""

    __slots__ = ("identity", "type_name")

    def __init__(self, value: Any) -> None:
        self.type_name = type(value).__name__
        self.identity = id(value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Opaque) and other.identity == self.identity

    def __hash__(self) -> int:
        return self.identity

    def __repr__(self) -> str:
        return f"<{self.type_name}>"


def to_host(
    value: Any, depth: int = 0, leaf: Callable[[Any], np.ndarray | None] | None = None
) -> Any:
    """A copy of `value` with tensors as NumPy arrays; containers keep their shape of nesting.

    `leaf` converts a framework's own tensors first (None: not one of them): a torch tensor
    that requires grad refuses `numpy()`.
    """
    if depth > 50:
        return Opaque(value)
    if value is None or isinstance(value, bool | int | float | complex | str | bytes):
        return value
    if isinstance(value, np.ndarray | np.generic):
        return np.array(value, copy=True)
    if leaf is not None:
        converted = leaf(value)
        if converted is not None:
            return converted
    if isinstance(value, dict):
        return {k: to_host(v, depth + 1, leaf) for k, v in value.items()}
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return (type(value).__name__, tuple(to_host(v, depth + 1, leaf) for v in value))
    if isinstance(value, list | tuple):
        return type(value)(to_host(v, depth + 1, leaf) for v in value)
    to_list = getattr(value, "to_list", None)  # tf.RaggedTensor
    if callable(to_list) and type(value).__name__ == "RaggedTensor":
        return ("RaggedTensor", to_host(to_list(), depth + 1))
    if type(value).__name__ == "SparseTensor":
        return (
            "SparseTensor",
            (to_host(value.indices), to_host(value.values), to_host(value.dense_shape)),
        )
    numpy = getattr(value, "numpy", None)
    if callable(numpy):
        try:
            return np.array(numpy(), copy=True)
        except Exception:
            return Opaque(value)
    return Opaque(value)


def _child(path: str, key: object) -> str:
    return f"{path}[{key!r}]"


def _compare(a: Any, b: Any, rtol: float, atol: float, path: str, out: list[Mismatch]) -> None:
    if len(out) >= _MAX_MISMATCHES:
        return
    if isinstance(a, np.ndarray | np.generic) or isinstance(b, np.ndarray | np.generic):
        if not (isinstance(a, np.ndarray | np.generic) and isinstance(b, np.ndarray | np.generic)):
            out.append(
                Mismatch(
                    path,
                    f"a tensor against {type(b).__name__ if isinstance(a, np.ndarray | np.generic) else type(a).__name__}",
                )
            )
            return
        a_arr, b_arr = np.asarray(a), np.asarray(b)
        if a_arr.shape != b_arr.shape:
            out.append(Mismatch(path, f"shape {a_arr.shape} != {b_arr.shape}"))
            return
        if a_arr.dtype != b_arr.dtype:
            out.append(Mismatch(path, f"dtype {a_arr.dtype} != {b_arr.dtype}"))
            return
        if a_arr.dtype.kind in "fciub":
            if not np.allclose(a_arr, b_arr, rtol=rtol, atol=atol, equal_nan=True):
                diff = np.abs(a_arr.astype(np.float64) - b_arr.astype(np.float64))
                worst = float(np.nanmax(diff)) if diff.size else 0.0
                out.append(Mismatch(path, f"values differ (max abs difference {worst:.3g})"))
        elif not np.array_equal(a_arr, b_arr):
            out.append(Mismatch(path, "values differ"))
        return
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        if set(a) != set(b):
            out.append(Mismatch(path, f"keys {sorted(map(str, a))} != {sorted(map(str, b))}"))
            return
        for key in a:
            _compare(a[key], b[key], rtol, atol, _child(path, key), out)
        return
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        if type(a) is not type(b) or len(a) != len(b):
            out.append(
                Mismatch(path, f"{type(a).__name__} of {len(a)} != {type(b).__name__} of {len(b)}")
            )
            return
        for index, (x, y) in enumerate(zip(a, b, strict=True)):
            _compare(x, y, rtol, atol, _child(path, index), out)
        return
    if isinstance(a, float) and isinstance(b, float):
        if not np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=True):
            out.append(Mismatch(path, f"{a!r} != {b!r}"))
        return
    if type(a) is not type(b) or a != b:
        out.append(Mismatch(path, f"{a!r} != {b!r}"))


def compare(
    expected: Any,
    actual: Any,
    *,
    rtol: float = DEFAULT_RTOL,
    atol: float = DEFAULT_ATOL,
    path: str = "output",
) -> list[Mismatch]:
    """The differences between two host structures (empty when equivalent), at most a few."""
    out: list[Mismatch] = []
    _compare(expected, actual, rtol, atol, path, out)
    return out


def compare_states(
    names: Sequence[str],
    expected: Sequence[np.ndarray | None],
    actual: Sequence[np.ndarray | None],
    *,
    rtol: float = DEFAULT_RTOL,
    atol: float = DEFAULT_ATOL,
) -> list[Mismatch]:
    """Differences between two snapshots of the same variables (None: unreadable, skipped)."""
    out: list[Mismatch] = []
    for name, a, b in zip(names, expected, actual, strict=True):
        if a is None or b is None:
            continue
        _compare(a, b, rtol, atol, f"variable {name}", out)
        if len(out) >= _MAX_MISMATCHES:
            break
    return out


class VariableState:
    """Snapshot and restore a fixed list of variables (anything with `numpy()` and `assign`)."""

    def __init__(self, variables: Sequence[Any]) -> None:
        self.variables = list(variables)
        self.names = [self._name(v, i) for i, v in enumerate(self.variables)]

    @staticmethod
    def _name(variable: Any, index: int) -> str:
        try:
            return str(getattr(variable, "path", None) or variable.name)
        except Exception:
            return f"#{index}"

    def snapshot(self) -> list[np.ndarray | None]:
        values: list[np.ndarray | None] = []
        for variable in self.variables:
            try:
                values.append(np.array(variable.numpy(), copy=True))
            except Exception:
                values.append(None)
        return values

    def restore(self, values: Sequence[np.ndarray | None]) -> None:
        for variable, value in zip(self.variables, values, strict=True):
            if value is None:
                continue
            try:
                variable.assign(value)
            except Exception:
                continue

    def changed(
        self, before: Sequence[np.ndarray | None], after: Sequence[np.ndarray | None]
    ) -> list[int]:
        """Indices of the variables whose value differs between two snapshots."""
        return [
            i
            for i, (a, b) in enumerate(zip(before, after, strict=True))
            if a is not None and b is not None and (a.shape != b.shape or not np.array_equal(a, b))
        ]
