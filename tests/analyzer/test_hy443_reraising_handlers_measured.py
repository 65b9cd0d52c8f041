"""HY443 and a handler that always raises again (`except InvalidArgumentError as e: raise
ValueError(...)`, a clearer message): it takes no other path, so compiling loses no
recovery. Eagerly the handler's error leaves the call; compiled (TF 2.21: the kernel raises
when the graph runs; torch 2.13: Dynamo raises from its fake tensors) the operation's own
error does: an error either way, on the same invalid input, and the same value on valid
input. Measured here in fresh interpreters; the analysis cases pin what is reported: a
handler that may return (a fallback behind a condition) is still a recovery path.
"""

from __future__ import annotations

import importlib.util

import pytest
from facts_helpers import run_probe, verdict

FACT = "catches_traced_op_errors"

TF_FORMS = """
import tensorflow as tf


def reraise(x, i):
    try:
        return tf.gather(x, i) * 2.0
    except tf.errors.InvalidArgumentError as error:
        raise ValueError(f"index out of range: {error}") from error


def reraise_after_logging(x, i):
    try:
        return tf.gather(x, i) * 2.0
    except Exception as error:
        message = str(error)
        raise ValueError(message)


def fallback_or_raise(x, i, strict):
    try:
        return tf.gather(x, i) * 2.0
    except tf.errors.InvalidArgumentError:
        if not strict:
            return tf.zeros([])
        raise


reraise(tf.range(4.0), tf.constant(2))
reraise_after_logging(tf.range(4.0), tf.constant(2))
fallback_or_raise(tf.range(4.0), tf.constant(2), False)
"""

TORCH_FORMS = """
import torch


def reraise(x):
    try:
        return x[:, 1, :] * 2
    except IndexError as error:
        raise ValueError(f"needs a batch dimension: {error}") from error


reraise(torch.randn(2, 3, 4))
"""

TF_PROBE = (
    TF_FORMS.split("\nreraise(tf.range")[0]
    + """
for name, f, args in [
    ("valid", reraise, (tf.range(4.0), tf.constant(2))),
    ("invalid", reraise, (tf.range(4.0), tf.constant(9))),
    ("logged", reraise_after_logging, (tf.range(4.0), tf.constant(9))),
]:
    out = []
    for g in (f, tf.function(f)):
        try:
            out.append(str(float(g(*args))))
        except Exception as e:
            out.append("raises-" + type(e).__name__)
    print(name, *out)
"""
)

TORCH_PROBE = (
    TORCH_FORMS.split("\nreraise(torch")[0]
    + """
import warnings
warnings.simplefilter("ignore")
for name, x in [("valid", torch.randn(2, 3, 4)), ("invalid", torch.randn(3, 4))]:
    out = []
    for g in (reraise, torch.compile(reraise, backend="eager")):
        torch._dynamo.reset()
        try:
            out.append("value-%d" % g(x).numel())
        except Exception as e:
            out.append("raises-" + type(e).__name__)
    print(name, *out)
"""
)


def test_a_handler_that_always_raises_is_not_reported() -> None:
    assert verdict(TF_FORMS, "reraise").fact(FACT) in (False, None)
    assert verdict(TF_FORMS, "reraise_after_logging").fact(FACT) in (False, None)
    assert verdict(TORCH_FORMS, "reraise").fact(FACT) in (False, None)


def test_a_handler_that_may_return_is_still_reported() -> None:
    assert verdict(TF_FORMS, "fallback_or_raise").fact(FACT) is True


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_tensorflow_raises_either_way_on_invalid_input() -> None:
    measured = {name: value.split() for name, value in run_probe(TF_PROBE).items()}
    eager, compiled = measured["valid"]
    assert eager == compiled == "4.0", measured
    for name in ("invalid", "logged"):
        eager, compiled = measured[name]
        assert eager == "raises-ValueError", measured  # the handler's error
        assert compiled.startswith("raises-") and compiled != eager, measured  # the kernel's


@pytest.mark.torch
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch absent")
def test_torch_raises_either_way_on_invalid_input() -> None:
    measured = {name: value.split() for name, value in run_probe(TORCH_PROBE).items()}
    eager, compiled = measured["valid"]
    assert eager == compiled == "value-8", measured
    eager, compiled = measured["invalid"]
    assert eager == "raises-ValueError", measured
    assert compiled.startswith("raises-"), measured
