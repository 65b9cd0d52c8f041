"""PyTorch's backend: eager and `torch.compile` (Inductor on CPU, or `aot_eager`).

`torch.compile`'s mode is the report's `graph` mode, so decisions, the refactored copy
(`@torch.compile`) and the renderers treat it as they treat `tf.function`; it is labelled
`torch.compile (inductor)` or `torch.compile (aot_eager)`.

- *Backend.* Inductor, torch's default, unless the job asks for `aot_eager` (the same graph
  capture and AOT autograd, no code generation: seconds instead of tens of seconds per cold
  compile). Inductor needs a working C++ compiler; when a candidate's compiled mode fails, a
  trivial function is compiled to tell a broken toolchain from the candidate's own failure, and
  when that fails too every torch candidate from then on (this one again included) is measured
  with `aot_eager`, which the report says (`notes`).
- *Cold compile.* The FX graph cache is off, so the first call of the compiled function pays
  for Dynamo, AOT autograd and Inductor's code generation as a first run of the program does
  (the worker reports it as `compile_seconds`). Dynamo's caches are reset for each candidate.
- *Traces, recompiles.* Traces are the cache entries Dynamo holds for the candidate's own code
  object: one per compilation of its frame, so a guard failure (another shape, another Python
  value, a lazily created optimizer state) shows as a second entry, as a retrace does for
  `tf.function`. Graphs and graph breaks (with their reasons) come from
  `torch._dynamo.explain`, which resets Dynamo, so it runs after the timing.
- *State.* Parameters, buffers, gradients (`.grad`) and optimizer state of every `nn.Module`
  and `torch.optim.Optimizer` alive in the process: what a training step changes, compared and
  restored like TensorFlow's variables. Values are restored in place so that Dynamo's guards,
  which hold the tensors, keep matching.
"""

from __future__ import annotations

import gc
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
import torch._dynamo as dynamo

from hybridize.compiler import equivalence
from hybridize.compiler.backends import CallTable, Prepared, StateTracker
from hybridize.compiler.errors import short_error

BACKENDS = ("inductor", "aot_eager")
FALLBACK = "aot_eager"
NO_GRAD = "no gradient"
"""A gradient's snapshot when the parameter has none (`.grad is None`)."""
MAX_BREAK_REASONS = 5
_RANDOM = re.compile(r"rand|dropout|bernoulli|normal|multinomial|poisson|uniform")


def _host(tensor: torch.Tensor) -> np.ndarray:
    value = tensor.detach().cpu().resolve_conj().resolve_neg()
    if value.dtype in (torch.bfloat16, torch.float16):
        value = value.float()
    return np.array(value.numpy(), copy=True)


def _tensor(value: np.ndarray, like: torch.Tensor | None = None) -> torch.Tensor:
    tensor = torch.from_numpy(np.array(value, copy=True))
    if like is not None:
        tensor = tensor.to(dtype=like.dtype, device=like.device)
    return tensor


class TorchState:
    """Parameters, buffers, gradients and optimizer states (see the module docstring)."""

    def __init__(self, modules: Sequence[torch.nn.Module], optimizers: Sequence[Any]) -> None:
        self.names: list[str] = []
        self._entries: list[tuple[str, Any]] = []
        seen: set[int] = set()
        children = {id(m) for module in modules for m in list(module.modules())[1:]}
        roots = [m for m in modules if id(m) not in children]
        for module in roots:
            owner = type(module).__name__
            for name, parameter in module.named_parameters():
                self._add_parameter(f"{owner}.{name}", parameter, seen)
            for name, buffer in module.named_buffers():
                if id(buffer) not in seen:
                    seen.add(id(buffer))
                    self.names.append(f"{owner}.{name}")
                    self._entries.append(("buffer", buffer))
        for index, optimizer in enumerate(optimizers):
            owner = f"{type(optimizer).__name__}#{index}"
            parameters = [p for group in optimizer.param_groups for p in group["params"]]
            for number, parameter in enumerate(parameters):
                self._add_parameter(f"{owner}.param{number}", parameter, seen)
            self.names.append(f"{owner}.state")
            self._entries.append(("optimizer", (optimizer, parameters)))

    def _add_parameter(self, name: str, parameter: torch.Tensor, seen: set[int]) -> None:
        if id(parameter) in seen:
            return
        seen.add(id(parameter))
        self.names += [name, f"{name}.grad"]
        self._entries += [("value", parameter), ("grad", parameter)]

    def snapshot(self) -> list[Any]:
        values: list[Any] = []
        for kind, item in self._entries:
            try:
                if kind in ("value", "buffer"):
                    values.append(_host(item))
                elif kind == "grad":
                    values.append(NO_GRAD if item.grad is None else _host(item.grad))
                else:
                    optimizer, parameters = item
                    index = {id(p): i for i, p in enumerate(parameters)}
                    values.append(
                        {
                            f"param{index.get(id(p), -1)}": {
                                k: _host(v) if isinstance(v, torch.Tensor) else v
                                for k, v in state.items()
                            }
                            for p, state in optimizer.state.items()
                        }
                    )
            except Exception:
                values.append(None)
        return values

    def restore(self, values: Sequence[Any]) -> None:
        with torch.no_grad():
            for (kind, item), value in zip(self._entries, values, strict=True):
                if value is None:
                    continue
                try:
                    self._restore_one(kind, item, value)
                except Exception:
                    continue

    @staticmethod
    def _restore_one(kind: str, item: Any, value: Any) -> None:
        if kind in ("value", "buffer"):
            item.copy_(_tensor(value, item))
        elif kind == "grad":
            if isinstance(value, str):
                item.grad = None
            elif item.grad is not None and tuple(item.grad.shape) == value.shape:
                item.grad.copy_(_tensor(value, item.grad))
            else:
                item.grad = _tensor(value, item)
        else:
            optimizer, parameters = item
            wanted = {parameters[int(key[5:])]: state for key, state in value.items()}
            for parameter in list(optimizer.state):
                if parameter not in wanted:
                    del optimizer.state[parameter]
            for parameter, state in wanted.items():
                current = optimizer.state.get(parameter)
                if current is None or set(current) != set(state):
                    current = optimizer.state[parameter] = {}
                for key, saved in state.items():
                    held = current.get(key)
                    if isinstance(saved, np.ndarray):
                        if isinstance(held, torch.Tensor) and tuple(held.shape) == saved.shape:
                            held.copy_(_tensor(saved, held))
                        else:
                            current[key] = _tensor(saved)
                    else:
                        current[key] = saved

    def changed(self, before: Sequence[Any], after: Sequence[Any]) -> list[int]:
        return [
            i
            for i, (a, b) in enumerate(zip(before, after, strict=True))
            if a is not None
            and b is not None
            and equivalence.compare(a, b, rtol=0.0, atol=0.0, path=self.names[i])
        ]


def random_ops(graphs: Sequence[Any]) -> list[str]:
    """The random-number calls in captured FX graphs (`dropout`, `randn`, ...), sorted."""
    found: set[str] = set()
    for graph_module in graphs:
        for node in graph_module.graph.nodes:
            if node.op not in ("call_function", "call_method", "call_module"):
                continue
            name = getattr(node.target, "__name__", None) or str(node.target)
            if _RANDOM.search(name):
                found.add(name)
    return sorted(found)


def short_reason(reason: str) -> str:
    """A graph break's reason as one line (Dynamo's are paragraphs with hints)."""
    first = next((line.strip() for line in reason.splitlines() if line.strip()), reason)
    explanation = re.search(r"Explanation:\s*(.+)", reason)
    text = f"{first}: {explanation.group(1).strip()}" if explanation else first
    return text[:200]


def inductor_usable() -> str | None:
    """None when Inductor compiles a trivial function here, else why not.

    The constant is new on every probe, so the generated C++ is new and no cache stands in
    for the compiler."""
    constant = random.random()
    try:
        compiled = torch.compile(lambda x: (x * constant).sin() + 1.0, backend="inductor")
        compiled(torch.ones(4))
    except Exception as error:
        return short_error(error).splitlines()[0]
    finally:
        dynamo.reset()
    return None


class TorchBackend:
    """`Backend` for PyTorch (see the module docstring)."""

    framework = "torch"
    statistics_after_timing = True

    def __init__(self, settings: dict[str, Any]) -> None:
        import torch._inductor.config as inductor_config

        inductor_config.fx_graph_cache = False
        requested = str(settings.get("torch_backend") or "inductor")
        if requested not in BACKENDS:
            raise ValueError(f"torch_backend must be one of {', '.join(BACKENDS)}: {requested!r}")
        self.version = str(torch.__version__)
        self.backend = requested
        self._notes: list[str] = []
        self._probed = False
        self._code: Any = None
        self._source: Any = None

    def modes(self, settings: dict[str, Any]) -> tuple[str, ...]:
        return ("eager", "graph")

    def notes(self) -> list[str]:
        return list(self._notes)

    def label(self) -> str:
        return f"torch.compile ({self.backend})"

    def fallback(self, error: str) -> bool:
        """After a compiled mode failed: whether Inductor itself is unusable here, in which
        case the backend now uses `aot_eager` and the candidate should be measured again."""
        if self.backend != "inductor" or self._probed:
            return False  # probed once: the toolchain does not change within a worker
        self._probed = True
        problem = inductor_usable()
        if problem is None:
            return False
        self.backend = FALLBACK
        self._notes.append(
            f"Inductor cannot compile on this machine ({problem}); torch.compile was measured "
            f"with backend='{FALLBACK}' (graph capture and AOT autograd, no code generation)"
        )
        return True

    def executing_eagerly(self) -> bool:
        return not torch.compiler.is_compiling()

    def is_symbolic(self, value: Any) -> bool:
        return type(value).__name__ in ("FakeTensor", "FunctionalTensor")

    def owns(self, value: Any) -> bool:
        return isinstance(value, torch.Tensor)

    def describe_leaf(self, value: Any) -> str | None:
        if not isinstance(value, torch.Tensor):
            return None
        prefix = "param " if isinstance(value, torch.nn.Parameter) else ""
        dtype = str(value.dtype).removeprefix("torch.")
        return f"{prefix}{dtype}[{','.join(str(d) for d in value.shape)}]"

    def copy_leaf(self, value: Any) -> Any:
        if not isinstance(value, torch.Tensor) or isinstance(value, torch.nn.Parameter):
            return value  # parameters are state, snapshotted and restored apart
        copy = value.detach().clone()
        return copy.requires_grad_(value.requires_grad)

    def to_host(self, value: Any) -> Any:
        return equivalence.to_host(
            value, leaf=lambda v: _host(v) if isinstance(v, torch.Tensor) else None
        )

    def state(self) -> StateTracker:
        modules, optimizers = [], []
        for obj in gc.get_objects():
            kind = type(obj)  # not isinstance: a dead weakref.proxy raises on __class__
            if issubclass(kind, torch.nn.Module):
                modules.append(obj)
            elif issubclass(kind, torch.optim.Optimizer):
                optimizers.append(obj)
        return TorchState(modules, optimizers)

    def seed(self, seed: int) -> None:
        torch.manual_seed(seed)

    def prepare(self, function: Any, compiled_function: Any, modes: Sequence[str]) -> Prepared:
        dynamo.reset()
        python_function = getattr(function, "_torchdynamo_orig_callable", function)
        source = getattr(compiled_function, "_torchdynamo_orig_callable", compiled_function)
        self._source = source
        self._code = getattr(source, "__code__", None)
        # An existing torch.compile(...) is measured with its own arguments (a rewrite to
        # check, `compile_instead`, with the rewrite's), the backend aside: every function of
        # a report is measured with the report's.
        existing = compile_arguments(compiled_function) or compile_arguments(function)
        arguments = self._arguments(existing)
        compiled = {"graph": torch.compile(source, backend=self.backend, **arguments)}
        return Prepared(python_function, compiled, "graph", {"graph": self.label()})

    def _arguments(self, existing: CompileArguments | None) -> dict[str, Any]:
        if existing is None:
            return {}
        arguments: dict[str, Any] = {"fullgraph": existing.fullgraph, "dynamic": existing.dynamic}
        if existing.options and existing.backend == self.backend == "inductor":
            arguments["options"] = dict(existing.options)  # `mode` is a set of these
        return arguments

    def tracing_count(self, mode: str, targets: Sequence[Any]) -> int | None:
        """Dynamo's cache entries for the candidate's own code. torch has no public way to
        count them; the debugging helper used here is private, so a torch without it gives
        None (traces and recompiles reported unknown, with a note), never a wrong count."""
        if self._code is None:
            return 0
        try:
            from torch._dynamo.eval_frame import _debug_get_cache_entry_list

            return len(_debug_get_cache_entry_list(self._code))
        except (ImportError, AttributeError, TypeError) as error:
            note = (
                f"torch {self.version} does not list Dynamo's cache entries "
                f"({short_error(error)}): traces and recompiles are not counted"
            )
            if note not in self._notes:
                self._notes.append(note)
            return None

    def statistics(
        self, call_table: CallTable, results: dict[str, dict[str, Any]], prepared: Prepared
    ) -> list[str]:
        info = results.get("graph")
        if info is None or info.get("error") is not None or not call_table.get("eager"):
            return []
        _, call_args, kwargs = call_table["eager"][0]
        try:
            explained = dynamo.explain(self._source)(*call_args, **kwargs)
        except BaseException as error:
            if isinstance(error, KeyboardInterrupt | SystemExit):
                raise
            info["graph"] = {"error": short_error(error)}
            return []
        finally:
            dynamo.reset()
        reasons: list[str] = []
        for item in explained.break_reasons:
            text = short_reason(str(item.reason))
            if text not in reasons:
                reasons.append(text)
        info["graphs"] = int(explained.graph_count)
        info["graph_breaks"] = int(explained.graph_break_count)
        info["break_reasons"] = reasons[:MAX_BREAK_REASONS]
        info["graph"] = {
            "graph_ops": int(explained.op_count),
            "graphs": int(explained.graph_count),
            "graph_breaks": int(explained.graph_break_count),
        }
        return random_ops(explained.graphs)

    def signature_argument_sets(
        self, signature: Sequence[Any], none_axis_size: int
    ) -> list[tuple[Any, ...]]:
        raise NotImplementedError("inputs from an inferred signature are TensorFlow's only")


@dataclass(frozen=True)
class CompileArguments:
    """What an existing `torch.compile(...)` was given that changes what is measured."""

    fullgraph: bool
    dynamic: bool | None
    backend: str | None
    """The compiler's name (`inductor`, `aot_eager`, ...), None when it has none."""
    options: tuple[tuple[str, Any], ...]
    """Inductor's options, `mode`'s included (torch turns a mode into options)."""


def compile_arguments(compiled: Any) -> CompileArguments | None:
    """The arguments of `compiled`, a function or module made by `torch.compile`; None for
    anything else, or when they cannot be read.

    torch keeps them in private objects only: the `OptimizeContext` in the compiled
    function's closure (an `OptimizedModule`'s `dynamo_ctx`) holds `fullgraph` and `dynamic`,
    and the compiler its callback wraps holds its name and options. They are read here as the
    TensorFlow backend reads a tf.function's; a torch that keeps them elsewhere gives None,
    and the function is measured with torch.compile's defaults."""
    if not hasattr(compiled, "_torchdynamo_orig_callable"):
        return None
    context = getattr(compiled, "dynamo_ctx", None)
    if context is None:
        cells = getattr(compiled, "__closure__", None) or ()
        contents = [cell.cell_contents for cell in cells if _filled(cell)]
        context = next((c for c in contents if hasattr(c, "fullgraph")), None)
    if context is None or not hasattr(context, "_dynamic"):
        return None
    compiler = getattr(context, "callback", None)
    for _ in range(8):  # the compiler is a few wrappers down
        if compiler is None or hasattr(compiler, "compiler_name") or hasattr(compiler, "config"):
            break
        compiler = getattr(compiler, "_torchdynamo_orig_backend", None)
    name = getattr(compiler, "compiler_name", None) or getattr(compiler, "_compiler_name", None)
    options = getattr(compiler, "config", None)
    return CompileArguments(
        fullgraph=bool(context.fullgraph),
        dynamic=context._dynamic,
        backend=name if isinstance(name, str) else None,
        options=tuple(sorted(options.items())) if isinstance(options, dict) else (),
    )


def _filled(cell: Any) -> bool:
    try:
        _ = cell.cell_contents  # an empty cell raises
    except ValueError:
        return False
    return True


def create(settings: dict[str, Any]) -> TorchBackend:
    return TorchBackend(settings)
