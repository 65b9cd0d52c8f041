"""The measured claim behind `facts/switched_branches.weighted_branches`: Python branching is
resolved when a graph is traced, so a compiled function holds only the side its calls take,
and pays as that side's ops predict, not as the ops of both sides summed (TensorFlow 2.21 and
torch 2.13, CPU, one thread).

A module whose `forward` runs a dozen elementwise ops under `if self.use_norm:` (a constructor
argument stored on `self`, nflows' `MaskedResidualBlock.use_batch_norm`) and two outside it
saves little or nothing compiled where the attribute is False, and several times that ratio
where it is True; a function whose dozen ops run only `if context is not None:` (nflows'
`MADE.forward`) the same with `context` left None. Least of 15 interleaved samples; ratios side
by side, with margins.
"""

from __future__ import annotations

import importlib.util
import warnings
from typing import Any

import pytest
from test_benefit_switches_measured import _least_microseconds

pytestmark = pytest.mark.slow


def _heavy(x: Any, sin: Any, cos: Any, exp: Any) -> Any:
    """A dozen small elementwise ops (what a graph fuses or runs without dispatch)."""
    for _ in range(3):
        x = sin(x) * cos(x) + exp(x) * 0.5 - x * x
    return x


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_a_graph_holds_only_the_side_its_calls_take_and_pays_as_that_side_predicts() -> None:
    import tensorflow as tf

    def step(x: Any, context: Any = None) -> Any:
        if context is not None:
            x = _heavy(x + context, tf.sin, tf.cos, tf.exp)
        return tf.sin(x) + 1.0

    x = tf.ones([4, 3])
    untaken, taken = tf.function(step), tf.function(step)
    untaken_graph = untaken.get_concrete_function(x).graph
    taken_graph = taken.get_concrete_function(x, x).graph
    # Only the taken side's ops are in the graph: the untaken one's were never traced.
    assert len(untaken_graph.get_operations()) * 3 < len(taken_graph.get_operations())
    times = _least_microseconds(
        {
            "untaken eager": lambda: step(x),
            "untaken compiled": lambda: untaken(x),
            "taken eager": lambda: step(x, x),
            "taken compiled": lambda: taken(x, x),
        }
    )
    untaken_ratio = times["untaken eager"] / times["untaken compiled"]
    taken_ratio = times["taken eager"] / times["taken compiled"]
    assert untaken_ratio < 1.0, times  # two ops against a compiled call's overhead
    assert taken_ratio > 1.5 * untaken_ratio, times  # the branch's ops are what compiling saves


@pytest.mark.torch
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_a_compiled_module_holds_only_the_side_its_construction_chose() -> None:
    import torch

    torch.set_num_threads(1)

    class Block(torch.nn.Module):
        def __init__(self, use_norm: bool = False) -> None:
            super().__init__()
            self.use_norm = use_norm
            self.scale = torch.nn.Parameter(torch.ones(8))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            if self.use_norm:
                x = _heavy(x, torch.sin, torch.cos, torch.exp)
            return torch.relu(x * self.scale)

    x = torch.randn(16, 8)
    plain, normed = Block(), Block(use_norm=True)
    plain_compiled, normed_compiled = torch.compile(Block()), torch.compile(Block(True))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain_compiled(x)
        normed_compiled(x)
    with torch.no_grad():
        times = _least_microseconds(
            {
                "plain eager": lambda: plain(x),
                "plain compiled": lambda: plain_compiled(x),
                "normed eager": lambda: normed(x),
                "normed compiled": lambda: normed_compiled(x),
            }
        )
    plain_ratio = times["plain eager"] / times["plain compiled"]
    normed_ratio = times["normed eager"] / times["normed compiled"]
    assert plain_ratio < 1.2, times  # the untaken branch's ops are not in its graph
    assert normed_ratio > 1.5 * plain_ratio, times
