"""The measured claim behind the benefit model's sparse-tensor rule (`BenefitModel._graph_break`,
`Framework.sparse_tensor_calls`): torch.compile does not compile work on sparse tensors.

Measured with torch 2.13 on CPU: a frame given a sparse COO or CSR tensor (reading its
`_indices()`/`_values()`, `torch.sparse.mm`, plain arithmetic on it) builds no graph at all
(`torch._dynamo.explain`: 0 graphs; the frame runs eagerly behind the compiled wrapper), and
building one (`torch.sparse_coo_tensor`, `.to_sparse()`, `.to_sparse_csr()`) breaks the graph
at the call ("Attempted to call function marked as skipped", "Attempted to wrap sparse Tensor
with VariableTracker"), the dense work before it compiling as a graph of its own. So a
function whose work is on sparse tensors saves none of it compiled and pays the compiled
call's overhead: linear-operator 0.6.1's `sparse_repeat` (the held-out oracle's one default
change, rated `high` for its 34 µs of eager work) ran 0.77x compiled (49 µs eager, 64 µs
compiled, heldout14t FINDINGS B1).
"""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Callable
from typing import Any

import pytest

from hybridize.analyzer.frameworks.framework import TENSORFLOW, TORCH

pytestmark = [
    pytest.mark.slow,
    pytest.mark.torch,
    pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent"),
]


def _coo() -> Any:
    import torch

    i = torch.tensor([[0, 1, 2, 3], [1, 0, 2, 3]])
    return torch.sparse_coo_tensor(i, torch.randn(4), (4, 4)).coalesce()


def _read_indices(s: Any) -> Any:
    return s._indices() + 1, s._values() * 2


def _sparse_mm(s: Any) -> Any:
    import torch

    return torch.sparse.mm(s, torch.ones(4, 4)) + 1


def _arithmetic(s: Any) -> Any:
    return s * 2


def _coalesce(s: Any) -> Any:
    return s.coalesce()


def _csr_rows(s: Any) -> Any:
    return s.crow_indices() + 1


def _build_coo(x: Any) -> Any:
    import torch

    i = torch.tensor([[0, 1, 2, 3], [1, 0, 2, 3]])
    return torch.sparse_coo_tensor(i, x[0].sin() + 1, (4, 4))


def _to_sparse(x: Any) -> Any:
    return (x.sin() + 1).to_sparse()


def _to_sparse_csr(x: Any) -> Any:
    return (x.sin() + 1).to_sparse_csr()


def _dense(x: Any) -> Any:
    return x.sin() + 1


def _counted(f: Callable[..., Any], *args: Any) -> tuple[int, list[str]]:
    """Frames compiled (a counting backend) and graph-break reasons over three calls."""
    import torch
    import torch._dynamo as dynamo
    from torch._dynamo.testing import CompileCounter
    from torch._dynamo.utils import counters

    dynamo.reset()
    counters.clear()
    counter = CompileCounter()
    compiled = torch.compile(f, backend=counter)
    for _ in range(3):
        compiled(*args)
    return counter.frame_count, list(counters["graph_break"])


@pytest.mark.parametrize(
    ("function", "table_name", "layout"),
    [
        (_read_indices, "torch.Tensor._indices", "coo"),
        (_read_indices, "torch.Tensor._values", "coo"),
        (_sparse_mm, "torch.sparse.mm", "coo"),
        (_coalesce, "torch.Tensor.coalesce", "coo"),
        (_csr_rows, "torch.Tensor.crow_indices", "csr"),
        (_arithmetic, None, "coo"),
        (_arithmetic, None, "csr"),
    ],
    ids=["indices", "values", "sparse-mm", "coalesce", "csr-rows", "coo-arith", "csr-arith"],
)
def test_a_frame_given_a_sparse_tensor_builds_no_graph(
    function: Callable[[Any], Any], table_name: str | None, layout: str
) -> None:
    """No frame compiled for a function given a sparse tensor; the same function given
    nothing sparse (a dense tensor where the op allows one) compiles one frame. The table
    lists the call among the sparse ones, and TensorFlow has no such table (tf.function
    traces `tf.SparseTensor`)."""
    import torch

    s = _coo() if layout == "coo" else _coo().to_dense().to_sparse_csr()
    assert _counted(function, s)[0] == 0
    assert _counted(_dense, torch.randn(4, 4)) == (1, [])
    if table_name is not None:
        assert table_name in TORCH.sparse_tensor_calls
        assert "no graph" in TORCH.sparse_tensor_calls[table_name]
    assert not TENSORFLOW.sparse_tensor_calls


@pytest.mark.parametrize(
    ("function", "table_name"),
    [
        (_build_coo, "torch.sparse_coo_tensor"),
        (_to_sparse, "torch.Tensor.to_sparse"),
        (_to_sparse_csr, "torch.Tensor.to_sparse_csr"),
    ],
    ids=["sparse_coo_tensor", "to_sparse", "to_sparse_csr"],
)
def test_building_a_sparse_tensor_breaks_the_graph(
    function: Callable[[Any], Any], table_name: str
) -> None:
    """The dense work before the call compiles (one frame), and Dynamo logs a graph break at
    the call that builds the sparse tensor; the values are equal compiled (the labelling keeps
    such functions compilable)."""
    import torch

    x = torch.randn(4, 4)
    frames, reasons = _counted(function, x)
    assert frames == 1 and reasons, (frames, reasons)
    assert any("sparse" in r.lower() or "skipped" in r for r in reasons), reasons
    compiled = torch.compile(function)(x).to_dense()
    assert torch.allclose(compiled, function(x).to_dense(), atol=1e-5)
    assert table_name in TORCH.sparse_tensor_calls
    assert "graph breaks" in TORCH.sparse_tensor_calls[table_name]


def _sparse_repeat(sparse: Any, repeat: int) -> Any:
    """linear-operator's `sparse_repeat` along the first dimension (its loop's body)."""
    import torch

    new_indices = sparse._indices().repeat(1, repeat)
    adding = torch.arange(0, repeat, dtype=new_indices.dtype).unsqueeze_(1)
    new_indices[0].view(repeat, -1).add_(adding * sparse.shape[0])
    return torch.sparse_coo_tensor(
        new_indices,
        sparse._values().repeat(repeat),
        (sparse.shape[0] * repeat, *sparse.shape[1:]),
    )


def _seconds(f: Callable[[], Any], calls: int = 100) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        f()
    return (time.perf_counter() - start) / calls


def test_sparse_work_saves_nothing_compiled() -> None:
    """Timed on one thread, interleaved rounds (the fastest of each, which a loaded machine
    disturbs least): `sparse_repeat`'s work compiled runs no faster than eagerly (measured
    0.69x to 0.75x here, 0.77x on linear-operator's own function; the compiled wrapper's
    checks and the skipped frame only add). Generous margin: under 1.25x."""
    import torch
    import torch._dynamo as dynamo

    torch.set_num_threads(1)
    dynamo.reset()
    s = _coo()
    compiled = torch.compile(_sparse_repeat)
    for _ in range(3):
        compiled(s, 3)
    assert torch.equal(compiled(s, 3).to_dense(), _sparse_repeat(s, 3).to_dense())
    eager: list[float] = []
    fast: list[float] = []
    for _ in range(9):
        eager.append(_seconds(lambda: _sparse_repeat(s, 3)))
        fast.append(_seconds(lambda: compiled(s, 3)))
    speedup = min(eager) / min(fast)
    print(f"sparse_repeat: eager/compiled = {speedup:.2f}x")
    assert speedup < 1.25, speedup
