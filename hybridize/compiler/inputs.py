"""Example inputs that do not come from running the program: inferred signatures, a user file.

Sources, best first (the report says which one each function used):

1. `entry` / `pytest`: real arguments recorded while the program runs (`instrument.py`).
2. `user-file`: `--inputs FILE`, a Python file that defines `EXAMPLE_INPUTS` (or a function
   `example_inputs()` returning it): a mapping from `"file.py::qualname"` (or just the qualname)
   to a list of calls, each a tuple of positional arguments or `{"args": [...], "kwargs":
   {...}}`. For a method, the first argument is the instance. The file runs in the worker with
   the project's root on `sys.path`, so it may import the project and build models.
3. `signature`: the input signature the analysis inferred, for functions whose every
   parameter is a tensor. A method also needs an instance: one the entry run passed to any
   recorded call (as `self` or as an argument), else `Class()` when the constructor takes no
   required argument; otherwise the method gets no input. Each `None` axis becomes
   `NONE_AXIS_SIZE` (16); floating-point tensors are drawn from a standard normal distribution, integers uniformly from [0, n) where
   n is 8 or the smallest known axis of the other parameters if that is smaller (integers are
   often indices into them), booleans at random (all with fixed seeds). A spec of unknown rank or dtype, a sparse or a
   ragged spec gives no input. Such synthetic values may take branches that real data never
   takes; a function that fails on them is reported, not guessed about.

A user file outranks inferred signatures: it states values the user chose, a signature is a
guess about shapes with made-up numbers.

TensorFlow is passed in by the worker; this module never imports it at import time.
"""

from __future__ import annotations

import importlib
import inspect
import runpy
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

NONE_AXIS_SIZE = 16
"""The size given to a `None` axis of an inferred input signature."""

INTEGER_RANGE = (0, 8)
SIGNATURE_SETS = 2


def module_name_for(file: str) -> str:
    """`pkg/mod.py` -> `pkg.mod`, `pkg/__init__.py` -> `pkg`, `main.py` -> `main`."""
    parts = file.removesuffix(".py").split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def resolve_function(root: Path, file: str, qualname: str) -> tuple[Any, bool]:
    """Import `file` (relative to `root`, which is on sys.path) and return (function, is_method).

    The function is the object found under `qualname` (a `tf.function` object for an existing
    hybrid function); `is_method` is true for a plain method of a class (the first argument is
    then the instance). Raises on failure, with a message a user can act on.
    """
    _, function, is_method = resolve_member(root, file, qualname)
    return function, is_method


def resolve_member(root: Path, file: str, qualname: str) -> tuple[Any, Any, bool]:
    """Like `resolve_function`, also returning the class that owns a method (else None)."""
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    module = importlib.import_module(module_name_for(file))
    parts = qualname.split(".")
    owner: Any = module
    for part in parts[:-1]:
        owner = getattr(owner, part)
        if not inspect.isclass(owner):
            raise LookupError(f"{qualname} is nested in a function: it cannot be called alone")
    name = parts[-1]
    if inspect.isclass(owner):
        static = inspect.getattr_static(owner, name)
        is_method = not isinstance(static, staticmethod | classmethod)
        function = static.__func__ if isinstance(static, staticmethod) else getattr(owner, name)
        return owner, function, is_method
    return None, getattr(owner, name), False


def find_instance(owner: type, recorded: Iterable[Any]) -> Any:
    """An instance of `owner` for calling one of its methods; raises LookupError if none.

    First an object the program itself made: any leaf of `recorded` (the arguments of the calls
    seen during the entry run, `self` included) that is an instance of `owner`. Then a fresh
    `owner()` when the constructor binds without arguments. A constructor that needs arguments
    is never guessed at.
    """
    for value in recorded:
        if isinstance(value, owner):
            return value
    try:
        inspect.signature(owner).bind()
    except TypeError as error:
        raise LookupError(
            f"a method needs an instance: none was passed to a recorded call, and "
            f"{owner.__name__}() needs arguments ({error})"
        ) from None
    except ValueError:  # no signature to inspect (a builtin): try the call itself
        pass
    return owner()


def _known_axes(spec: Any) -> list[int]:
    if isinstance(spec, list):
        return [axis for s in spec for axis in _known_axes(s)]
    if isinstance(spec, Mapping) and spec.get("shape"):
        return [int(axis) for axis in spec["shape"] if axis is not None and int(axis) > 0]
    return []


def _synthesize(spec: Any, tf: Any, seed: int, none_size: int, high: int) -> Any:
    if isinstance(spec, list):
        return [_synthesize(s, tf, seed + 7 * i, none_size, high) for i, s in enumerate(spec)]
    if not isinstance(spec, Mapping):
        raise ValueError(f"not a tensor spec: {spec!r}")
    if spec.get("spec") != "TensorSpec":
        raise ValueError(f"{spec.get('spec')} inputs are not synthesized")
    dtype_name = spec.get("dtype")
    shape = spec.get("shape")
    if dtype_name is None:
        raise ValueError("the signature gives no dtype")
    if shape is None:
        raise ValueError("the signature gives no rank")
    dims = [none_size if axis is None else int(axis) for axis in shape]
    dtype = tf.as_dtype(dtype_name)
    seeds = [seed, 20260]
    if dtype.is_floating or dtype.is_complex:
        value = tf.random.stateless_normal(dims, seed=seeds, dtype=tf.float32)
        return tf.cast(value, dtype)
    if dtype.is_integer:
        value = tf.random.stateless_uniform(
            dims, seed=seeds, minval=INTEGER_RANGE[0], maxval=high, dtype=tf.int32
        )
        return tf.cast(value, dtype)
    if dtype.is_bool:
        return tf.random.stateless_uniform(dims, seed=seeds) < 0.5
    raise ValueError(f"{dtype_name} inputs are not synthesized")


def signature_argument_sets(
    signature: Sequence[Any], tf: Any, none_size: int = NONE_AXIS_SIZE
) -> list[tuple[Any, ...]]:
    """`SIGNATURE_SETS` argument tuples for a signature (list of spec dicts, nested for lists)."""
    sets = []
    for n in range(SIGNATURE_SETS):
        values = []
        for i, spec in enumerate(signature):
            others = [axis for j, s in enumerate(signature) if j != i for axis in _known_axes(s)]
            high = min([INTEGER_RANGE[1], *others])
            values.append(_synthesize(spec, tf, 1000 * n + i, none_size, max(1, high)))
        sets.append(tuple(values))
    return sets


def load_user_inputs(path: Path) -> dict[str, list[tuple[tuple[Any, ...], dict[str, Any]]]]:
    """Run the user's example-input file; {key or qualname: [(args, kwargs), ...]}."""
    namespace = runpy.run_path(str(path), run_name="hybridize_example_inputs")
    table = namespace.get("EXAMPLE_INPUTS")
    if table is None and callable(namespace.get("example_inputs")):
        table = namespace["example_inputs"]()
    if not isinstance(table, Mapping):
        raise ValueError(f"{path} defines neither EXAMPLE_INPUTS nor example_inputs()")
    out: dict[str, list[tuple[tuple[Any, ...], dict[str, Any]]]] = {}
    for key, calls in table.items():
        if callable(calls):
            calls = calls()
        sets: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
        for call in calls:
            if isinstance(call, Mapping):
                sets.append((tuple(call.get("args", ())), dict(call.get("kwargs", {}))))
            elif isinstance(call, tuple | list):
                sets.append((tuple(call), {}))
            else:
                sets.append(((call,), {}))
        out[str(key)] = sets
    return out
