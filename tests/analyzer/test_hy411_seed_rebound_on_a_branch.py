"""HY411 when the op seed is a parameter that defaults to None and is rebound on one branch.

`def draw(x, seed=None, stateless=False): if stateless: seed = tf.convert_to_tensor(seed)`
hands the op `seed=seed`: on the branch that does not rebind it the parameter itself, None
when the caller left it out, so the op draws from the global stream (an op given
`seed=None` is an op without a seed). The analysis used to follow a seed to a parameter only
through locals assigned once, and took this one as seeded. These tests pin the reading (every
definition of the local reaching the call counts) and measure the claim on the installed
TensorFlow: compiled, the draw under `tf.random.set_seed` differs from the eager one.
"""

from __future__ import annotations

import importlib.util

import pytest
from facts_helpers import verdict

FACT = "draws_seeded_global_random"

REBOUND = """
import tensorflow as tf

tf.random.set_seed(0)


def draw(x, seed=None, stateless=False):
    if stateless:
        seed = tf.convert_to_tensor(value=seed)
    return x * tf.random.uniform(tf.shape(x), seed=seed)


def draw_either(x, seed=None, stateless=False):
    if stateless:
        seed = tf.convert_to_tensor(value=seed)
        sample_fn = tf.random.stateless_uniform
    else:
        sample_fn = tf.random.uniform
    return x * sample_fn(tf.shape(x), seed=seed)


def draw_conditional(x, seed=None, fixed=False):
    op_seed = 7 if fixed else seed
    return x * tf.random.uniform(tf.shape(x), seed=op_seed)


def draw_rebound_to_numbers(x, seed=3, offset=False):
    if offset:
        seed = seed + 1
    return x * tf.random.uniform(tf.shape(x), seed=seed)


data = tf.ones((2, 3))
draw(data)
draw_either(data)
draw_conditional(data)
draw_rebound_to_numbers(data)
"""


@pytest.mark.parametrize("qualname", ["draw", "draw_either", "draw_conditional"])
def test_a_seed_parameter_defaulting_to_none_on_any_definition_is_no_op_seed(
    qualname: str,
) -> None:
    v = verdict(REBOUND, qualname)
    assert v.fact(FACT) is True
    assert not v.passes
    assert any(f.code == "HY411" for f in v.findings)


def test_a_seed_parameter_with_a_number_default_rebound_to_numbers_is_an_op_seed() -> None:
    assert verdict(REBOUND, "draw_rebound_to_numbers").fact(FACT) is False


@pytest.mark.tensorflow
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_compiled_the_unseeded_branch_draws_other_numbers() -> None:
    """Measured under TF 2.21: after the same global seed, the eager call and the compiled
    call leaving `seed` out draw different numbers; passing a seed on the same code makes
    them equal (the control: the difference is the op counter, not the code)."""
    import numpy as np
    import tensorflow as tf

    def draw(x: tf.Tensor, seed: object = None, stateless: bool = False) -> tf.Tensor:
        if stateless:
            seed = tf.convert_to_tensor(value=seed)
        return x * tf.random.uniform(tf.shape(x), seed=seed)

    x = tf.ones((4, 4))
    # Eager ops before the call advance the eager op counter the compiled graph does not see.
    tf.random.set_seed(0)
    tf.random.uniform([1])
    eager = draw(x).numpy()
    tf.random.set_seed(0)
    tf.random.uniform([1])
    compiled = tf.function(draw)(x).numpy()
    assert not np.allclose(eager, compiled, rtol=1e-5, atol=1e-6)

    tf.random.set_seed(0)
    tf.random.uniform([1])
    eager_seeded = draw(x, 5).numpy()
    tf.random.set_seed(0)
    tf.random.uniform([1])
    compiled_seeded = tf.function(draw)(x, 5).numpy()
    assert np.allclose(eager_seeded, compiled_seeded, rtol=1e-5, atol=1e-6)
