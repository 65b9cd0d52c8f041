"""How many calls count as many: the framework's figure (`CallCosts.many_calls`), not a constant
of the benefit model.

A function run fewer times per run of the program than its framework's `many_calls` is `none`
(its trace is not repaid), the reason quoting the figure; run that many times it is `repeated`,
its calls weighed against its trace's cost. Both frameworks, at the figure each gives.
"""

from __future__ import annotations

import pytest
from facts_helpers import analyse

from hybridize.analyzer.frameworks.framework import TENSORFLOW, TORCH, Framework

TF_BODY = """
import tensorflow as tf

def heavy(x):
    for _ in range(2):
        x = tf.sin(x) * tf.cos(x) + tf.exp(x) * tf.tanh(x) - tf.square(x)
        x = tf.matmul(x, x) + tf.reduce_sum(tf.concat([x, x], 0))
    return x

def main():
    x = tf.ones((8, 8))
    for _ in range(RUNS):
        heavy(x)

main()
"""

TORCH_BODY = """
import torch

def heavy(x):
    for _ in range(2):
        x = torch.sin(x) * torch.cos(x) + torch.exp(x) * torch.tanh(x) - torch.square(x)
        x = torch.sigmoid(x) * torch.relu(x) + torch.abs(x) * torch.sqrt(x) - torch.log1p(x)
    return x

def main():
    x = torch.ones(8, 8)
    for _ in range(RUNS):
        heavy(x)

main()
"""


@pytest.mark.parametrize(("framework", "body"), [(TENSORFLOW, TF_BODY), (TORCH, TORCH_BODY)])
def test_fewer_calls_than_the_framework_s_many_calls_do_not_repay_a_trace(
    framework: Framework, body: str
) -> None:
    many = framework.call_costs.many_calls
    valid = analyse(body.replace("RUNS", str(many)))["heavy"]
    # many calls: weighed on their work and the trace's cost (torch's compile, about 2400
    # calls' saving of this body, is not repaid by 50 counted calls; TensorFlow's is)
    assert "(fewer than" not in " ".join(valid.benefit_reasons), valid.benefit_reasons
    assert valid.benefit == ("high" if framework is TENSORFLOW else "none")
    invalid = analyse(body.replace("RUNS", str(many - 1)))["heavy"]
    assert invalid.benefit == "none", invalid.benefit_reasons
    assert (
        f"runs about {many - 1} times per run of the program (fewer than {many})"
        in (invalid.benefit_reasons[0])
    )
