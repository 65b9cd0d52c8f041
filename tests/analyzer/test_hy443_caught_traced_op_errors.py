"""HY443: a `try` around a torch operation whose error the handler catches to take another path
(TensorFlow's form: test_tensorflow_kernel_errors_caught_are_reported, measured in
test_hy443_tensorflow_measured.py).

Dynamo runs the operations on fake tensors while it traces; an operation's error (a shape that
does not fit) is raised from the tracer, out of `torch.compile`, and the handler never runs. An
exception the function's own code raises is caught compiled too. The analysis cases pin what is
reported; the measured test (torch 2.13) runs each form eagerly and compiled.
"""

from __future__ import annotations

import importlib.util

import pytest
from facts_helpers import finding_messages, verdict

FACT = "catches_traced_op_errors"

FORMS = """
import torch


def index_or_expand(x):
    try:
        return x[:, 1, :]
    except IndexError:
        return x.expand(1, *x.shape)[:, 1, :]


def matmul_or_transpose(a, b):
    try:
        return a @ b
    except RuntimeError:
        return a @ b.mT


def reshape_or_flatten(x):
    try:
        return x.reshape(4, 4)
    except Exception:
        return x.flatten()


def cat_or_transpose(a, b):
    try:
        return torch.cat([a, b])
    except:  # noqa: E722
        return torch.cat([a, b.mT])


def product_or_transpose(a, b):
    try:
        return torch.matmul(a, b)
    except (KeyError, RuntimeError):
        return a @ b.mT


def own_raise(x):
    try:
        if x.dim() < 3:
            raise IndexError("no batch dimension")
        return x.sum()
    except IndexError:
        return x.mean()


def _helper(x):
    try:
        return x[:, 1, :]
    except IndexError:
        return x.unsqueeze(0)[:, 1, :]


def calls_helper(x):
    return _helper(x) * 2


def other_exception(x, table):
    try:
        scale = table["scale"]
    except KeyError:
        scale = 1.0
    return x[:, 1] * scale


def handler_does_the_op(x):
    try:
        n = int("3")
    except ValueError:
        return x[:, 1, :]
    return x * n


def not_a_tensor(x, sizes):
    try:
        first = sizes[5]
    except IndexError:
        first = 0
    return x * first


x, a, b = torch.randn(5, 3), torch.randn(2, 3), torch.randn(2, 3)
index_or_expand(x)
matmul_or_transpose(a, b)
reshape_or_flatten(torch.randn(6))
cat_or_transpose(a, torch.randn(3, 2))
product_or_transpose(a, b)
own_raise(x)
calls_helper(x)
other_exception(x, {"scale": 2.0})
handler_does_the_op(x)
not_a_tensor(x, [1, 2])
"""

REPORTED = (
    "index_or_expand",
    "matmul_or_transpose",
    "reshape_or_flatten",
    "cat_or_transpose",
    "product_or_transpose",
    "calls_helper",
)
NOT_REPORTED = ("own_raise", "other_exception", "handler_does_the_op", "not_a_tensor")


@pytest.mark.parametrize("qualname", REPORTED)
def test_a_caught_error_of_a_torch_operation_is_reported(qualname: str) -> None:
    v = verdict(FORMS, qualname)
    assert v.fact(FACT) is True
    assert not v.passes


@pytest.mark.parametrize("qualname", NOT_REPORTED)
def test_other_try_statements_are_not(qualname: str) -> None:
    assert verdict(FORMS, qualname).fact(FACT) is False


def test_the_finding_names_the_operation_the_handler_and_the_callee() -> None:
    (message,) = finding_messages(FORMS, "calls_helper", "HY443")
    assert "calls `_helper`" in message and "indexes a tensor" in message
    assert "`IndexError`" in message
    (message,) = finding_messages(FORMS, "product_or_transpose", "HY443")
    assert "`torch.matmul`" in message and "`RuntimeError`" in message


def test_tensorflow_kernel_errors_caught_are_reported() -> None:
    """TensorFlow: a handler of a kernel's error (`InvalidArgumentError`, `OpError`,
    `Exception`) around an op on a tensor; not a handler of `ValueError` alone (no kernel error),
    nor one around Python work (test_hy443_tensorflow_measured.py measures the forms)."""
    source = """
    import tensorflow as tf


    def f(x):
        try:
            return tf.matmul(x, x)
        except tf.errors.InvalidArgumentError:
            return x


    def g(x):
        try:
            tf.debugging.assert_positive(x)
            return x
        except tf.errors.OpError:
            return -x


    def value_error_only(x):
        try:
            return tf.matmul(x, x)
        except ValueError:
            return x


    def python_work(x, table):
        try:
            scale = table["unit"]
        except Exception:
            scale = 0.5
        return x * scale


    f(tf.ones((2, 3)))
    g(tf.ones((2, 3)))
    value_error_only(tf.ones((2, 3)))
    python_work(tf.ones((2, 3)), {"unit": 1.0})
    """
    assert verdict(source, "f").fact(FACT) is True
    (message,) = finding_messages(source, "g", "HY443")
    assert "`tf.debugging.assert_positive`" in message and "`OpError`" in message
    assert "when the graph runs" in message
    assert verdict(source, "value_error_only").fact(FACT) in (False, None)
    assert verdict(source, "python_work").fact(FACT) in (False, None)


MEASURE = """
import sys
import warnings

warnings.simplefilter("ignore")
import torch

namespace = {}
exec(compile(sys.stdin.read(), "forms", "exec"), namespace)
calls = {
    "index_or_expand": (torch.randn(5, 3),),
    "matmul_or_transpose": (torch.randn(2, 3), torch.randn(2, 3)),
    "reshape_or_flatten": (torch.randn(6),),
    "cat_or_transpose": (torch.randn(2, 3), torch.randn(3, 2)),
    "product_or_transpose": (torch.randn(2, 3), torch.randn(2, 3)),
    "calls_helper": (torch.randn(5, 3),),
    "own_raise": (torch.randn(5, 3),),
}
for name, args in calls.items():
    f = namespace[name]
    eager = f(*args)
    torch._dynamo.reset()
    try:
        compiled = torch.compile(f)(*args)
        outcome = "same" if torch.allclose(eager, compiled) else "differs"
    except Exception as error:
        outcome = "raises " + type(error).__name__
    print(name, outcome)
"""


@pytest.mark.torch
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch absent")
def test_compiled_the_handler_never_runs() -> None:
    """Measured (torch 2.13): every reported form returns the handler's result eagerly and
    raises compiled; the function's own `raise` is caught compiled too."""
    import subprocess
    import sys

    run = subprocess.run(
        [sys.executable, "-c", MEASURE],
        input=FORMS.replace("\nx, a, b =", "\n_unused =").split("\n_unused =")[0],
        capture_output=True,
        text=True,
        check=True,
    )
    outcomes = dict(line.split(" ", 1) for line in run.stdout.strip().splitlines())
    for name in REPORTED:
        assert outcomes[name].startswith("raises"), (name, outcomes[name])
    assert outcomes["own_raise"] == "same"
