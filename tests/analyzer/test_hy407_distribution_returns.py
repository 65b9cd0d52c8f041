"""HY407: a returned TensorFlow Probability distribution comes back rebuilt from its type spec.

The examples (hybridize/check_examples/HY407/invalid-6, -7) run through test_check_examples;
these tests pin the verdicts and measure the claim on the installed TensorFlow and TensorFlow
Probability (`make test` installs both, the `tfp` extra and tf-keras; skipped where they are
absent: docs/oracle.md says how to run it elsewhere).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest
from facts_helpers import finding_messages

PROJECT = """
import tensorflow as tf
import tensorflow_probability as tfp

tfd = tfp.distributions


class Head(tf.keras.layers.Layer):
    def call(self, x, state=()):
        return tfd.Deterministic(loc=x * 2.0), state


class Policy(tf.Module):
    def __init__(self, head):
        self._head = head

    def apply_head(self, x):
        return self._head(x * 2.0)

    def mean(self, x):
        return tfd.Normal(x * 2.0, 1.0).mean()


def make(x):
    dist = tfd.Normal(x * 2.0, 1.0)
    return {"dist": dist, "x": x}


def run():
    policy = Policy(Head())
    for _ in range(10):
        policy.apply_head(tf.ones([3]))
        policy.mean(tf.ones([3]))
        make(tf.ones([3]))
"""


def _hy407(qualname: str, project: str = PROJECT) -> list[str]:
    return finding_messages(project, qualname, "HY407")


@pytest.mark.parametrize(
    ("qualname", "made"),
    [
        ("Head.call", "Deterministic"),
        ("Policy.apply_head", "Deterministic"),
        ("make", "Normal"),
    ],
)
def test_a_returned_distribution_blocks_the_function(qualname: str, made: str) -> None:
    [message] = _hy407(qualname)
    assert f"distributions.{made}`" in message
    assert "rebuilt from its type spec" in message


def test_a_tensor_computed_from_a_distribution_is_returned_as_such() -> None:
    assert _hy407("Policy.mean") == []


NETWORKS = """
import tensorflow as tf
import tensorflow_probability as tfp


class Network(tf.keras.layers.Layer):
    def __call__(self, inputs, state=()):
        outputs, new_state = super(Network, self).__call__(inputs, state=state)
        return outputs, new_state


class DistributionNet(Network):
    def call(self, inputs, state=()):
        return tfp.distributions.Deterministic(loc=inputs * 2.0), state


class QNet(Network):
    def call(self, inputs, state=()):
        return inputs * 2.0, state


class Agent(tf.Module):
    def __init__(self, net):
        self._net = net

    def apply(self, x):
        return self._net(x * 2.0)


class QAgent(tf.Module):
    def __init__(self, q_net):
        self._q_net = q_net

    def q_values(self, x):
        return self._q_net(x * 2.0)


class EitherAgent(tf.Module):
    def __init__(self, net):
        self._net = net

    def apply(self, x):
        return self._net(x * 2.0)


def run():
    agent = Agent(DistributionNet())
    q_agent = QAgent(QNet())
    either = [EitherAgent(QNet()), EitherAgent(DistributionNet())]
    for _ in range(10):
        agent.apply(tf.ones([3]))
        q_agent.q_values(tf.ones([3]))
        for e in either:
            e.apply(tf.ones([3]))
"""


@pytest.mark.parametrize(
    ("qualname", "blocked"),
    [
        # The base's `__call__` runs `self.call` of whatever subclass `self` is: on its own,
        # any of them, one of which returns a distribution.
        ("Network.__call__", True),
        # The attribute holds a `DistributionNet`: its `call` returns the distribution.
        ("Agent.apply", True),
        # The attribute only ever holds a `QNet`, whose `call` returns tensors: the same
        # `__call__` returns no distribution there.
        ("QAgent.q_values", False),
        # One of the objects the attribute may hold returns a distribution.
        ("EitherAgent.apply", True),
    ],
)
def test_a_network_call_returns_a_distribution_only_when_the_bound_class_s_call_does(
    qualname: str, blocked: bool
) -> None:
    messages = _hy407(qualname, NETWORKS)
    assert any("rebuilt from its type spec" in m for m in messages) is blocked


PROBE = """
import tensorflow as tf
import tensorflow_probability as tfp

tfd = tfp.distributions
x = tf.constant([1.0, 2.0])
for name, make in [
    ("Deterministic", lambda x: tfd.Deterministic(loc=x)),
    ("Normal", lambda x: tfd.Normal(x, 1.0)),
]:
    made, compiled = make(x), tf.function(make)(x)
    tensors = [sorted(k for k, v in d.parameters.items() if tf.is_tensor(v)) for d in (made, compiled)]
    print(name, type(compiled) is type(made), ",".join(tensors[0]), ",".join(tensors[1]))
"""


@pytest.mark.tensorflow
@pytest.mark.slow
@pytest.mark.skipif(
    importlib.util.find_spec("tensorflow_probability") is None
    or importlib.util.find_spec("tf_keras") is None,
    reason="TensorFlow Probability (and the tf_keras it imports) absent: `make test` installs both",
)
def test_a_compiled_function_returns_a_distribution_with_other_parameters() -> None:
    """Measured under TF 2.21, TensorFlow Probability 0.25: the compiled function gives back
    a distribution of the same class whose `parameters` hold tensors where the body passed a
    Python number (`scale`) or left None (`atol`, `rtol`). In a subprocess: importing
    TensorFlow Probability imports tf_keras, which the other tests of the session do not
    have loaded."""
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    env.pop("TF_USE_LEGACY_KERAS", None)
    done = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    measured = {
        name: (same, eager, compiled)
        for name, same, eager, compiled in (line.split(" ") for line in done.stdout.splitlines())
    }
    assert measured == {
        "Deterministic": ("True", "loc", "atol,loc,rtol"),
        "Normal": ("True", "loc", "loc,scale"),
    }
