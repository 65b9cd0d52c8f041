"""The measured claims of ``torch_rules`` still hold for the installed PyTorch.

``torch_rules`` is data the analyzer reads without importing torch; its graph-break reasons,
frame skips and recompilation counts were measured with torch 2.13 on CPU. These tests measure
them again (``torch._dynamo.explain`` and a counting backend), so that a PyTorch upgrade that
changes Dynamo's behaviour fails here instead of silently making the rules wrong.
"""

from __future__ import annotations

import importlib.util
import logging
import time
import warnings
from collections.abc import Callable
from typing import Any

import pytest

from hybridize.analyzer.frameworks import torch_rules

pytestmark = [
    pytest.mark.torch,
    pytest.mark.slow,
    pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent"),
]

_logger = logging.getLogger("hybridize.tests.torch_rules")
_COUNTER = [0]


def _explain(function: Callable[..., Any], *args: Any) -> tuple[int, list[str]]:
    """(graphs, break reasons) of one call."""
    import torch._dynamo as dynamo

    dynamo.reset()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        explained = dynamo.explain(function)(*args)
    return explained.graph_count, [str(b.reason) for b in explained.break_reasons]


def _frames(function: Callable[..., Any], calls: list[tuple[Any, ...]]) -> int:
    """Frames compiled over ``calls`` (a recompilation adds frames)."""
    import torch
    import torch._dynamo as dynamo
    from torch._dynamo.testing import CompileCounter

    dynamo.reset()
    counter = CompileCounter()
    compiled = torch.compile(function, backend=counter)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for args in calls:
            compiled(*args)
    return counter.frame_count


def _breaks_with(name: str, function: Callable[..., Any]) -> None:
    import torch

    graphs, reasons = _explain(function, torch.ones(3))
    expected = torch_rules.GRAPH_BREAK_CALLS[name].split(" (")[0]
    assert graphs >= 2, (name, graphs)
    assert any(expected in reason for reason in reasons), (name, reasons)


def test_print_logging_item_backward_and_the_clock_break_the_graph() -> None:
    import torch

    def with_print(x: Any) -> Any:
        y = x * 2
        print("step")
        return y + 1

    def with_logging(x: Any) -> Any:
        y = x * 2
        _logger.info("step")
        return y + 1

    def with_item(x: Any) -> Any:
        return x * x.sum().item()

    def with_clock(x: Any) -> Any:
        return x * 0 + time.time()

    def with_backward(x: Any) -> Any:
        leaf = x.detach().requires_grad_()
        (leaf * leaf).sum().backward()
        return leaf.grad * 2

    def with_masked_select(x: Any) -> Any:
        return torch.masked_select(x, x > 0) * 2

    def with_mask_index(x: Any) -> Any:
        return x[x > 0] * 2

    def with_nonzero(x: Any) -> Any:
        return torch.nonzero(x) * 2

    _breaks_with("builtins.print", with_print)
    _breaks_with("logging.Logger.info", with_logging)
    _breaks_with("torch.Tensor.item", with_item)
    _breaks_with("time.time", with_clock)
    _breaks_with("torch.Tensor.backward", with_backward)
    _breaks_with("torch.masked_select", with_masked_select)
    graphs, reasons = _explain(with_mask_index, torch.ones(3))
    assert graphs == 2, reasons
    assert any(torch_rules.BOOLEAN_MASK_INDEXING_BREAKS.split(" (")[0] in r for r in reasons)
    # nonzero itself is captured (this is why it is not listed)
    assert _explain(with_nonzero, torch.ones(3)) == (1, [])


def test_float_of_a_tensor_and_branching_on_one_read_its_value() -> None:
    def with_float(x: Any) -> Any:
        return x * float(x.sum())

    def with_branch(x: Any) -> Any:
        if x.sum() > 0:
            return x * 2
        return x - 1

    import torch

    assert "builtins.float" in torch_rules.VALUE_READING_BUILTINS
    graphs, reasons = _explain(with_float, torch.ones(3))
    assert graphs == 2 and any("item()" in r for r in reasons), reasons
    graphs, reasons = _explain(with_branch, torch.ones(3))
    assert graphs == 2 and any("generic_jump" in r for r in reasons), reasons


def test_numpy_tolist_grad_modes_seeding_and_in_place_ops_trace_without_a_break() -> None:
    import torch

    def with_numpy(x: Any) -> Any:
        return torch.from_numpy(x.numpy() * 2)

    def with_no_grad(x: Any) -> Any:
        with torch.no_grad():
            return x * 2

    def with_seed(x: Any) -> Any:
        torch.manual_seed(0)
        return x + torch.rand(3)

    def in_place(x: Any) -> Any:
        x.add_(1)
        return x * 2

    assert "torch.Tensor.numpy" in torch_rules.TRACED_DATA_READS
    assert torch_rules.FUNCTION_OVERRIDES["torch.manual_seed"].effect == "graph"
    for function in (with_numpy, with_no_grad, with_seed, in_place):
        graphs, reasons = _explain(function, torch.ones(3))
        assert (graphs, reasons) == (1, []), function.__name__
    # seeding is applied at every call, not once at trace time
    compiled = torch.compile(with_seed, backend="eager")
    first, second = compiled(torch.ones(3)), compiled(torch.ones(3))
    assert torch.equal(first, second)


def test_rnn_modules_open_and_dataloader_loops_leave_the_frame_uncompiled() -> None:
    import torch
    from torch.utils.data import DataLoader, TensorDataset

    lstm = torch.nn.LSTM(1, 4, batch_first=True)
    loader = DataLoader(TensorDataset(torch.randn(8, 3)), batch_size=4)

    def with_lstm(x: Any) -> Any:
        return lstm(x)[0].sum() * 2

    def with_loader(x: Any) -> Any:
        total = x * 0
        for (batch,) in loader:
            total = total + batch.sum()
        return total

    def with_open(x: Any) -> Any:
        with open(__file__, encoding="utf-8") as handle:
            handle.read(1)
        return x * 2

    assert "torch.nn.LSTM" in torch_rules.FRAME_SKIPPING_MODULES
    assert "torch.utils.data.DataLoader" in torch_rules.FRAME_SKIPPING_ITERABLES
    assert "builtins.open" in torch_rules.FRAME_SKIPPING_CALLS
    assert _explain(with_lstm, torch.randn(2, 5, 1))[0] == 0
    assert _explain(with_loader, torch.ones(3))[0] == 0
    assert _frames(with_open, [(torch.ones(3),)]) == 0


def test_recompilations() -> None:
    import torch

    class Counting(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.linear = torch.nn.Linear(3, 3)
            self.calls = 0

        def forward(self, x: Any) -> Any:
            self.calls += 1
            return self.linear(x)

    module = Counting()

    def bump_global(x: Any) -> Any:
        _COUNTER[0] += 1
        return x * 2

    def scale(x: Any, s: float) -> Any:
        return x * s

    def tolist(x: Any) -> Any:
        return x * sum(x.tolist())

    same = [(torch.ones(2, 3),)] * 5
    # a module's int attribute and a global counter: a new frame at every call
    assert _frames(module, same) == 5
    assert _frames(bump_global, same) == 5
    # a varying float or a varying shape: one recompilation, then dynamic
    assert _frames(scale, [(torch.ones(3), 0.1 * i) for i in range(5)]) == 2
    assert _frames(lambda x: x.sum(0) * 2, [(torch.ones(i + 2, 3),) for i in range(5)]) == 2
    assert "torch.Tensor.tolist" in torch_rules.VALUE_SPECIALISING_CALLS
    assert _frames(tolist, [(torch.ones(3) * i,) for i in range(5)]) == 2
    for key in ("module_int_attribute_mutation", "global_state_mutation", "varying_shapes"):
        assert key in torch_rules.RECOMPILE_HAZARDS


def test_an_int_read_from_state_changed_between_calls_recompiles_every_time() -> None:
    """`STATE_RECOMPILES`: an int attribute set anew before each call compiles a frame per
    call; a float attribute, one recompilation and then dynamic."""
    import torch

    class Scaled(torch.nn.Module):
        def __init__(self, value: Any) -> None:
            super().__init__()
            self.value = value

        def forward(self, x: Any) -> Any:
            return x * self.value + 1

    def frames(values: list[Any]) -> int:
        import torch._dynamo as dynamo
        from torch._dynamo.testing import CompileCounter

        dynamo.reset()
        module = Scaled(values[0])
        counter = CompileCounter()
        compiled = torch.compile(module.forward, backend=counter)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for value in values:
                module.value = value
                compiled(torch.ones(3))
        return counter.frame_count

    assert frames([1, 2, 3, 4, 5, 6]) == 6
    assert frames([0.5, 0.25, 0.125, 0.1, 0.2, 0.3]) == 2
    assert "6 frames" in torch_rules.STATE_RECOMPILES


def _run_torch(script: str) -> str:
    """Run `script` in a fresh interpreter (what it measures is process-wide state) and give
    its standard output."""
    import subprocess
    import sys
    import textwrap

    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_the_first_torch_compile_turns_distribution_validation_off() -> None:
    """`PROCESS_WIDE_EFFECTS`: wrapping a function, before any call, is enough."""
    out = _run_torch(
        """
        import torch
        from torch.distributions import Distribution
        before = Distribution._validate_args
        compiled = torch.compile(lambda x: x + 1)
        print(before, Distribution._validate_args)
        # What changes: invalid parameters compute instead of raising (silently: NaN), and
        # only an explicit validate_args=True still rejects them.
        print(torch.distributions.Normal(0.0, -1.0).log_prob(torch.tensor(0.0)).isnan().item())
        try:
            torch.distributions.Normal(0.0, -1.0, validate_args=True)
        except ValueError:
            print("ValueError")
        """
    )
    assert "torch.distributions" in torch_rules.PROCESS_WIDE_EFFECTS
    assert out.split() == ["True", "False", "True", "ValueError"], out


def test_assigning_data_of_another_shape_fails_under_inductor() -> None:
    """`TENSOR_DATA_ASSIGNMENT`: eagerly the parameter takes the expanded data; compiled,
    Inductor asserts."""
    out = _run_torch(
        """
        import warnings
        import torch
        warnings.simplefilter("ignore")

        class K(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.raw = torch.nn.Parameter(torch.zeros(1, 3))

        def expand(k, sizes):
            new = K()
            for name, p in k.named_parameters(recurse=False):
                new.__getattr__(name).data = p.expand(torch.Size([*sizes, *p.shape]))
            return new

        print(tuple(expand(K(), (2,)).raw.shape))
        try:
            print(tuple(torch.compile(expand)(K(), (2,)).raw.shape))
        except Exception as error:
            print(type(error).__name__, str(error).splitlines()[0])
        """
    )
    eager, compiled = out.strip().splitlines()[-2:]
    assert eager == "(2, 1, 3)"
    assert "wrong number of dimensions" in compiled, out
    assert "wrong number of dimensions" in torch_rules.TENSOR_DATA_ASSIGNMENT


def test_builtins_reading_a_tensors_value_break_and_the_others_trace() -> None:
    """`Framework.value_reading_builtins` of PyTorch: each breaks the graph; `max`/`min` of a
    tensor and a number, `len` of a tensor, trace without one (`TENSOR_CASTS` is empty: no
    builtin becomes an op giving a tensor, as AutoGraph's `int`/`float`/`len` do)."""
    import torch

    def reading(builtin: Callable[[Any], Any]) -> Callable[[Any], Any]:
        def function(x: Any) -> Any:
            y = x * 2
            read = builtin(y)
            return y + 1, read  # an op after the read: a second graph when it breaks

        return function

    expected = {
        "builtins.int": (lambda y: int(y.sum()), "item()"),
        "builtins.float": (lambda y: float(y.sum()), "item()"),
        "builtins.bool": (lambda y: bool(y.sum()), "item()"),
        "builtins.range": (lambda y: list(range(y.sum().long())), "builtin operator"),
        "builtins.sorted": (sorted, "builtin operator"),
        "builtins.any": (any, "Data-dependent branching"),
        "builtins.all": (all, "Data-dependent branching"),
    }
    assert set(expected) == torch_rules.VALUE_READING_BUILTINS
    for name, (builtin, reason) in expected.items():
        graphs, reasons = _explain(reading(builtin), torch.ones(3))
        assert graphs >= 2 and any(reason in r for r in reasons), (name, reasons)
    for builtin in (lambda y: max(y.sum(), 1), lambda y: min(y.sum(), 1), len):
        graphs, reasons = _explain(reading(builtin), torch.ones(3))
        assert graphs == 1 and not reasons, reasons
    assert not torch_rules.TENSOR_CASTS


def test_len_of_a_tensor_is_its_size_a_python_int_then_a_symbolic_one() -> None:
    """`len(t)` never gives a tensor: the static size, then a symbolic int once Dynamo makes
    the shape dynamic (two frames over four lengths, not four)."""
    import torch

    def with_len(x: Any) -> Any:
        return x + len(x)

    assert _frames(with_len, [(torch.ones(n),) for n in (3, 4, 5, 6)]) == 2


def test_device_queries_return_python_values() -> None:
    """`torch_rules.DEVICE_QUERY_NAMESPACES`: their functions' annotations name Python values
    (ints, bools, strings, devices, streams), never a tensor but for `get_rng_state` (and `_all`)."""
    import importlib
    import inspect

    for namespace in torch_rules.DEVICE_QUERY_NAMESPACES:
        module = importlib.import_module(namespace)
        for name in dir(module):
            member = getattr(module, name)
            if name.startswith(("_", "get_rng_state")) or not inspect.isfunction(member):
                continue
            returned = str(inspect.signature(member).return_annotation)
            assert "Tensor" not in returned, (namespace, name, returned)
    import torch

    assert isinstance(torch.cuda.device_count(), int)
    assert isinstance(torch.cuda.is_available(), bool)
