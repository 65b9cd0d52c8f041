"""What a call of plain PyTorch modules saves compiled, against modules of many small ops
(torch 2.13, CPU, one thread): the measured base of nflows' `MADE.forward` miss (0.79x in the
oracle, `high` in the model; docs/oracle.md, "Benefit, sixteenth session").

A chain of plain modules (a masked linear's `F.linear` of a masked weight, `relu`,
`nn.Dropout`), with gradients, spends its eager time in the module calls' dispatch and in
library kernels the compiled code calls as eager code does: compiling it saves little or
nothing. A module whose forward runs many small elementwise ops through `torch.fx`-generated
code (e3nn's tensor products) is what Inductor fuses: compiling it saves several times its
call. The model's one `layer_call` cost (6 µs a module call) rates both alike; a rule that
separates them must read what each module's forward does. Ratios side by side (least of 15
interleaved samples), with a margin: the plain chain's ratio is under 1.2, and the small ops'
at least 1.5 times it.
"""

from __future__ import annotations

import importlib.util
import warnings

import pytest
from test_benefit_switches_measured import _least_microseconds

pytestmark = pytest.mark.slow


@pytest.mark.torch
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_plain_module_calls_save_little_compiled_and_many_small_ops_save_much() -> None:
    import torch
    import torch.nn.functional as F
    from torch import nn

    torch.set_num_threads(1)

    class MaskedLinear(nn.Linear):
        def __init__(self, features: int) -> None:
            super().__init__(features, features)
            self.register_buffer("mask", torch.tril(torch.ones(features, features)))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return F.linear(x, self.weight * self.mask, self.bias)

    class Block(nn.Module):
        def __init__(self, features: int) -> None:
            super().__init__()
            self.linear = MaskedLinear(features)
            self.dropout = nn.Dropout(0.0)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.dropout(F.relu(self.linear(x)))

    class Plain(nn.Module):
        def __init__(self, features: int) -> None:
            super().__init__()
            self.initial = MaskedLinear(features)
            self.blocks = nn.ModuleList([Block(features) for _ in range(2)])
            self.final = MaskedLinear(features)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            x = self.initial(x)
            for block in self.blocks:
                x = block(x)
            return self.final(x)

    def small_ops(x: torch.Tensor) -> torch.Tensor:
        for _ in range(10):
            x = torch.sin(x) * 0.5 + x * x - 0.25
        return x

    class SmallOps(nn.Module):
        def __init__(self, features: int) -> None:
            super().__init__()
            self.main = torch.fx.symbolic_trace(small_ops)  # generated code, as e3nn's
            self.weight = nn.Parameter(torch.ones(features))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.main(x * self.weight)

    x = torch.randn(16, 8)
    plain, many = Plain(8), SmallOps(8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        modules = {"plain": plain, "small ops": many}
        compiled = {name: torch.compile(module) for name, module in modules.items()}
        for _ in range(2):
            for run in compiled.values():
                run(x)
    runs = {}
    for name in modules:
        runs[f"{name} eager"] = lambda module=modules[name]: module(x)
        runs[f"{name} compiled"] = lambda run=compiled[name]: run(x)
    times = _least_microseconds(runs)
    ratio = {name: times[f"{name} eager"] / times[f"{name} compiled"] for name in modules}
    assert ratio["plain"] < 1.2, times  # module dispatch and library kernels: little to save
    assert ratio["small ops"] > 1.5 * ratio["plain"], times  # small ops fused: what it saves
