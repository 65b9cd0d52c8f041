"""An eager loop-running call's own machinery is work a compiled caller saves
(`CallCosts.eager_loop_call`, measured in `test_benefit_rules_measured.py`): tf-agents'
`PPOAgent.compute_advantages`, whose GAE side is a two-op `tf.scan` (4.8 ms eager, 5.5x
compiled on its test's call), was rated by its body's ops alone, under the compiled call's
overhead once its other side (`returns - value_preds`) counted by share."""

from __future__ import annotations

import pytest
from facts_helpers import analyse

SOURCE = """
import tensorflow as tf


def advantages(deltas, discounts, use_gae):
    if use_gae:
        return LOOP
    return deltas - discounts


def main(data):
    while True:
        for d, g in data:
            advantages(d, g, True)
            advantages(d, g, False)
"""

LOOPS = {
    "scan": "tf.scan(lambda acc, e: e[0] + e[1] * acc, (discounts, deltas), initializer=deltas[0])",
    "map_fn": "tf.map_fn(lambda e: e * 2.0, deltas)",
    "while_loop": "tf.while_loop(lambda i, a: i < 9, lambda i, a: (i + 1, a * 2.0), (0, deltas))",
}


def _verdict(loop: str):  # type: ignore[no-untyped-def]
    return analyse(SOURCE.replace("LOOP", loop))["advantages"]


@pytest.mark.parametrize("loop", sorted(LOOPS))
def test_an_eager_loop_call_on_one_side_is_work_a_graph_saves(loop: str) -> None:
    v = _verdict(LOOPS[loop])
    assert v.benefit == "high", v.benefit_reasons
    assert "too little work per call" not in " ".join(v.benefit_reasons), v.benefit_reasons


def test_the_same_ops_without_the_loop_call_are_too_little_work() -> None:
    v = _verdict("(discounts + deltas) * 2.0")
    assert v.benefit == "low", v.benefit_reasons
    assert "too little work per call" in " ".join(v.benefit_reasons), v.benefit_reasons
