"""The measured claim behind the benefit model's graph-break rule (`BenefitModel._graph_break`,
`Framework.quiet_graph_breaks`): torch.compile breaks the graph at a call computing a Python
bool from tensors' values, and a function so broken gains little or nothing from compiling.

e3nn's `matrix_to_angles` opens with `assert torch.allclose(torch.det(R), R.new_tensor(1))`
(the benefit oracle: 1.18x on its tests' calls, traced twice per input signature;
`compose_angles`, which calls it, 1.12x). Measured with torch 2.13 on CPU: Dynamo compiles
two frames, the break reason "Data dependent operator" (`aten.allclose`, `aten.equal`: "a
non-Tensor output whose value is dependent on the data"); timed on one thread, interleaved,
the same work without the assert ran 2.65x to 5.89x faster compiled, with it 0.76x to 0.96x.
"""

from __future__ import annotations

import importlib.util
import statistics
import time
from collections.abc import Callable
from typing import Any

import pytest

from hybridize.analyzer.frameworks.framework import TORCH

pytestmark = [
    pytest.mark.slow,
    pytest.mark.torch,
    pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent"),
]


def _with_allclose(R: Any) -> Any:
    import torch

    assert torch.allclose(torch.det(R), R.new_tensor(1))
    return _work(R)


def _with_equal(R: Any) -> Any:
    import torch

    if torch.equal(R, R):
        return _work(R)
    return R


def _with_method(R: Any) -> Any:
    assert R.allclose(R)
    return _work(R)


def _without(R: Any) -> Any:
    import torch

    torch.det(R)
    return _work(R)


def _work(R: Any) -> Any:
    import torch

    x = R[..., 0, :]
    for _ in range(6):
        x = torch.sin(x) * torch.cos(x) + x
    return x


def _rotations() -> Any:
    import torch

    torch.manual_seed(0)
    q = torch.linalg.qr(torch.randn(16, 3, 3))[0]
    return q * torch.det(q).sign()[:, None, None]


@pytest.mark.parametrize(
    ("function", "table_name"),
    [
        (_with_allclose, "torch.allclose"),
        (_with_equal, "torch.equal"),
        (_with_method, "torch.Tensor.allclose"),
    ],
    ids=["assert-allclose", "if-equal", "method-allclose"],
)
def test_a_data_dependent_python_bool_breaks_the_graph(
    function: Callable[[Any], Any], table_name: str
) -> None:
    """Two frames (the graph before the call and the one Dynamo resumes in; one when the call
    comes first), a "Data dependent operator" break; the same work without it, one frame and
    no break. The analyzer's table lists the call among the quiet breaks."""
    import torch._dynamo as dynamo
    from torch._dynamo.testing import CompileCounter
    from torch._dynamo.utils import counters

    assert table_name in TORCH.quiet_graph_breaks
    R = _rotations()
    runs: dict[str, tuple[int, list[str]]] = {}
    for name, f in (("broken", function), ("plain", _without)):
        dynamo.reset()
        counters.clear()
        counter = CompileCounter()
        compiled = torch_compile(f, counter)
        for _ in range(3):
            compiled(R)
        runs[name] = (counter.frame_count, list(counters["graph_break"]))
    frames, reasons = runs["broken"]
    assert reasons and all("Data dependent operator" in r for r in reasons), reasons
    assert frames >= 1 and runs["plain"] == (1, []), runs


def torch_compile(f: Callable[[Any], Any], backend: Any) -> Callable[[Any], Any]:
    import torch

    return torch.compile(f, backend=backend)


def test_a_function_with_a_graph_break_gains_less_from_compiling() -> None:
    """Timed on one thread, interleaved rounds (medians): compiled with Inductor, the function
    with `assert torch.allclose(...)` gains less over its eager run than the same work without
    it (measured 0.76x to 0.96x against 2.65x to 5.89x). Printed side by side."""
    import torch
    import torch._dynamo as dynamo

    torch.set_num_threads(1)
    dynamo.reset()
    R = _rotations()
    compiled = {"broken": torch.compile(_with_allclose), "plain": torch.compile(_without)}
    eager = {"broken": _with_allclose, "plain": _without}
    for f in compiled.values():
        f(R)
        f(R)
    times: dict[str, list[float]] = {f"{m}/{n}": [] for m in ("eager", "compiled") for n in eager}
    for _ in range(7):
        for name in eager:
            times[f"eager/{name}"].append(_seconds(lambda f=eager[name]: f(R)))
            times[f"compiled/{name}"].append(_seconds(lambda f=compiled[name]: f(R)))
    speedup = {
        name: statistics.median(times[f"eager/{name}"])
        / statistics.median(times[f"compiled/{name}"])
        for name in eager
    }
    print(
        f"compiled vs eager: with the break {speedup['broken']:.2f}x, without {speedup['plain']:.2f}x"
    )
    assert speedup["broken"] < speedup["plain"], speedup


def _seconds(call: Callable[[], object], calls: int = 100) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        call()
    return (time.perf_counter() - start) / calls
