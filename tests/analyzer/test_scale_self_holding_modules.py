"""A container module given itself stays one value (the speed issue, torch-harmonics).

`self.skip = nn.Sequential(self.skip, nn.Dropout2d(p))` (torch-harmonics' U-Net blocks)
reads the attribute it writes: the class attribute's value held a chain holding that value,
one level deeper at every round of the fixed point, each level holding every earlier one.
Ordering the callee's atoms (`canonical`) walked a tree that doubled every round, until the
evaluation of `forward` ran past its CPU budget and was reported undecided (HY902): a
verdict that depended on the machine's speed. A chain keeps its modules without their own
chain (calling it calls a held container as a framework layer, reading no chain of it), so
the value is bounded whatever the rounds. The tests count `canonical`'s steps, never time.
"""

from __future__ import annotations

import pytest
from facts_helpers import project_result

from hybridize.analyzer.facts import values


def _blocks(count: int, rewraps: int) -> str:
    """`count` module classes, each wrapping its skip module in a Sequential of itself
    `rewraps` times, and calling it in `forward`."""
    lines = ["import torch", "from torch import nn", ""]
    for b in range(count):
        lines += [
            f"class Block{b}(nn.Module):",
            "    def __init__(self, rate=0.0):",
            "        super().__init__()",
            "        self.skip = nn.Conv2d(3, 3, kernel_size=1)",
        ]
        for _ in range(rewraps):
            lines += [
                "        if rate > 0.0:",
                "            self.skip = nn.Sequential(self.skip, nn.Dropout2d(p=rate))",
            ]
        lines += [
            "",
            "    def forward(self, x: torch.Tensor) -> torch.Tensor:",
            "        return self.skip(x)",
            "",
        ]
    return "\n".join(lines) + "\n"


def _canonical_steps(monkeypatch: pytest.MonkeyPatch, source: str) -> tuple[int, list[str]]:
    """The steps `canonical` takes analysing `source` (its recursion goes through the
    module's name, so every nested call counts), and the internal errors met."""
    counter = [0]
    original = values.canonical

    def counting(value: object) -> str:
        counter[0] += 1
        return original(value)

    monkeypatch.setattr(values, "canonical", counting)
    result = project_result({"blocks.py": source})
    errors = [e.message for e in result.errors]
    monkeypatch.undo()
    return counter[0], errors


def test_a_module_wrapped_in_a_sequential_of_itself_is_decided(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    steps, errors = _canonical_steps(monkeypatch, _blocks(1, 1))
    # No evaluation is cut by the budget: the verdict is the analysis', not the clock's.
    assert errors == []
    # Before: ~12 million steps when the 10 s budget cut it; now a few hundred.
    assert steps < 5_000


def test_canonical_steps_grow_at_most_linearly_in_the_blocks_and_rewraps(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    base, _ = _canonical_steps(monkeypatch, _blocks(1, 1))
    more_blocks, errors_blocks = _canonical_steps(monkeypatch, _blocks(4, 1))
    more_rewraps, errors_rewraps = _canonical_steps(monkeypatch, _blocks(1, 4))
    assert errors_blocks == [] and errors_rewraps == []
    # Four times the construct: at most about four times the steps (plus the module's
    # fixed part), where a nesting per round made them double per round.
    assert more_blocks <= 4 * base + 200
    assert more_rewraps <= 4 * base + 200
