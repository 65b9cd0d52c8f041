"""Measure what ``torch.compile`` does to every function of a PyTorch program.

Run with the .venv that has the ``torch`` extra, from the repository root::

    .venv/bin/python -m tools.torch_compile_probe corpus/torch/mlp_classifier [--json OUT]

The corpus labels of ``corpus/torch`` are written by reasoning from ``torch.compile``'s
semantics; this tool checks that reasoning against the real thing. It imports the program's
modules, wraps every function and method they define, runs the program's ``main()`` once
eagerly and records (deep copies of) the arguments of the first calls of each function. Then,
for each function, on copies of those arguments:

* ``torch._dynamo.explain`` on the first call: graphs, graph breaks and their reasons;
* ``torch.compile`` with a counting ``aot_eager`` backend over all recorded calls: frames
  compiled (more frames than graphs per call means recompilations), and whether every call's
  result equals the eager result on the same arguments (tensors compared with ``allclose``,
  the global RNG reseeded before each run), and whether both printed the same lines.

Inductor is not what is measured here (``aot_eager`` traces the same graphs with AOTAutograd,
and keeps eager's random numbers): Dynamo's graph breaks, guards and side-effect handling are.
Only tools import torch; the analyzer reads the labels this tool helped to check.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import functools
import importlib
import io
import json
import math
import os
import sys
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from hybridize.analyzer.summaries.keys import FunctionKey

#: Calls recorded per function (the first ones): enough to see a recompilation.
CALLS = 4


@dataclass
class Probe:
    """What torch.compile did to one function."""

    qualname: str
    file: str
    calls: int = 0
    graphs: int | None = None
    graph_breaks: int | None = None
    break_reasons: list[str] = field(default_factory=list)
    frames: int | None = None
    equal: bool | None = None
    same_output_lines: bool | None = None
    error: str = ""


@dataclass
class _Recorded:
    qualname: str
    file: str
    function: Callable[..., Any]
    calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = field(default_factory=list)


_ACTIVE = False  # set while probing: wrapped functions then call through


def _wrap(record: _Recorded, limit: int) -> Callable[..., Any]:
    import torch

    function = record.function

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if _ACTIVE or torch.compiler.is_compiling() or len(record.calls) >= limit:
            return function(*args, **kwargs)
        # open files, generators...: not replayable, the call is not recorded
        with contextlib.suppress(Exception):
            record.calls.append(_copy((args, kwargs)))
        return function(*args, **kwargs)

    return wrapper


def _copy(value: Any) -> Any:
    """A deep copy; tensors inside autograd graphs (which refuse ``deepcopy``) become leaf
    copies with the same values and ``requires_grad``."""
    import torch

    try:
        return copy.deepcopy(value)
    except RuntimeError:
        pass
    if isinstance(value, torch.Tensor):
        return value.detach().clone().requires_grad_(value.requires_grad)
    if isinstance(value, tuple | list):
        return type(value)(_copy(item) for item in value)
    if isinstance(value, dict):
        return {key: _copy(item) for key, item in value.items()}
    return copy.deepcopy(value)


def _instrument(program: Path, limit: int) -> tuple[list[_Recorded], Any]:
    sys.path.insert(0, str(program))
    records: list[_Recorded] = []
    main_module = None
    for path in sorted(program.glob("*.py")):
        module = importlib.import_module(path.stem)
        if path.stem == "main":
            main_module = module
        for name, value in list(vars(module).items()):
            if getattr(value, "__module__", None) != module.__name__:
                continue
            if isinstance(value, type):
                for attr, member in list(vars(value).items()):
                    if callable(member) and hasattr(member, "__code__"):
                        record = _Recorded(f"{name}.{attr}", path.name, member)
                        records.append(record)
                        setattr(value, attr, _wrap(record, limit))
            elif callable(value) and hasattr(value, "__code__"):
                record = _Recorded(name, path.name, value)
                records.append(record)
                setattr(module, name, _wrap(record, limit))
    return records, main_module


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, list | tuple):
        return [leaf for item in value for leaf in _leaves(item)]
    if isinstance(value, dict):
        return [leaf for key in sorted(value, key=str) for leaf in _leaves(value[key])]
    return [value]


def _same(a: Any, b: Any) -> bool:
    import numpy as np
    import torch

    left, right = _leaves(a), _leaves(b)
    if len(left) != len(right):
        return False
    for x, y in zip(left, right, strict=True):
        if isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor):
            if x.shape != y.shape or not torch.allclose(
                x.detach().float(), y.detach().float(), atol=1e-5, rtol=1e-4, equal_nan=True
            ):
                return False
        elif isinstance(x, float | np.floating) and isinstance(y, float | np.floating):
            if not math.isclose(float(x), float(y), rel_tol=1e-4, abs_tol=1e-5):
                return False
        elif isinstance(x, int | str | bool | type(None)) and x != y:
            return False
    return True


def _run(function: Callable[..., Any], call: Any) -> tuple[Any, str]:
    import torch

    args, kwargs = _copy(call)
    torch.manual_seed(0)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = function(*args, **kwargs)
    return result, out.getvalue()


def _probe(record: _Recorded) -> Probe:
    import torch
    import torch._dynamo as dynamo
    from torch._dynamo.testing import CompileCounterWithBackend

    probe = Probe(record.qualname, record.file, calls=len(record.calls))
    if not record.calls:
        return probe
    try:
        dynamo.reset()
        args, kwargs = _copy(record.calls[0])
        with contextlib.redirect_stdout(io.StringIO()):
            explained = dynamo.explain(record.function)(*args, **kwargs)
        probe.graphs = explained.graph_count
        probe.graph_breaks = explained.graph_break_count
        probe.break_reasons = sorted(
            {str(b.reason).strip().splitlines()[0][:120] for b in explained.break_reasons}
        )
        dynamo.reset()
        counter = CompileCounterWithBackend("aot_eager")
        compiled = torch.compile(record.function, backend=counter)
        equal = True
        same_lines = True
        for call in record.calls:
            eager_result, eager_out = _run(record.function, call)
            compiled_result, compiled_out = _run(compiled, call)
            equal = equal and _same(eager_result, compiled_result)
            same_lines = same_lines and eager_out == compiled_out
        probe.frames = counter.frame_count
        probe.equal = equal
        probe.same_output_lines = same_lines
    except Exception as error:  # a probe failure is a finding, not a crash
        probe.error = f"{type(error).__name__}: {str(error).splitlines()[0][:200]}"
    return probe


def probe_program(program: Path, *, limit: int = CALLS, skip: frozenset[str]) -> list[Probe]:
    """Run ``program``'s ``main()`` eagerly, then probe every function it called."""
    global _ACTIVE
    import torch

    os.chdir(program)
    records, main_module = _instrument(program, limit)
    assert main_module is not None, "the program has no main.py"
    torch.manual_seed(0)
    with contextlib.redirect_stdout(io.StringIO()):
        main_module.main()
    _ACTIVE = True
    probes = []
    for record in records:
        # __init__ is recorded before it runs (a half-built module): nothing to replay
        if record.qualname in skip or record.qualname.endswith(".__init__"):
            probes.append(Probe(record.qualname, record.file, error="skipped"))
            continue
        probes.append(_probe(record))
    return probes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("program", type=Path)
    parser.add_argument("--calls", type=int, default=CALLS)
    parser.add_argument("--skip", nargs="*", default=["main"], help="qualnames not probed")
    parser.add_argument("--json", type=Path, help="also write the probes here")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    program = args.program.resolve()
    probes = probe_program(program, limit=args.calls, skip=frozenset(args.skip))
    for p in probes:
        print(
            f"{FunctionKey(p.file, p.qualname)}: calls={p.calls} graphs={p.graphs} "
            f"breaks={p.graph_breaks} frames={p.frames} equal={p.equal} "
            f"same_prints={p.same_output_lines} {p.error}"
        )
        for reason in p.break_reasons:
            print(f"    break: {reason}")
    if args.json:
        args.json.write_text(json.dumps([asdict(p) for p in probes], indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
