"""HY439: a function reads the execution mode, itself or through the project's callees.

The check's examples (hybridize/check_examples/HY439) run through test_check_examples; these
tests measure the claim behind the rule on the installed TensorFlow and PyTorch (the mode is
decided while tracing, in callees too, and a branch on it changes the result and the effects)
and pin the verdicts, the callee chain included (zfit's `run.executing_eagerly()` wrapper).
"""

from __future__ import annotations

import importlib.util

import pytest
from facts_helpers import analyse


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_tracing_switches_the_mode_in_the_function_and_its_callees() -> None:
    import tensorflow as tf

    seen: list[tuple[str, bool, bool, bool]] = []
    effects: list[str] = []

    def mode(where: str) -> None:
        seen.append(
            (
                where,
                tf.executing_eagerly(),
                tf.inside_function(),
                tf.compat.v1.executing_eagerly_outside_functions(),
            )
        )

    def callee(x: object) -> object:
        mode("callee")
        if tf.executing_eagerly():
            effects.append("eager side")
            return x * 2.0
        return x * 3.0

    def f(x: object) -> object:
        mode("body")
        return callee(x) + 1.0

    assert float(f(tf.constant(1.0))) == 3.0
    assert seen == [("body", True, False, True), ("callee", True, False, True)]
    assert effects == ["eager side"]
    seen.clear()
    effects.clear()
    assert float(tf.function(f)(tf.constant(1.0))) == 4.0  # the other side's result
    # Traced: both reads switch; the outermost context stays eager (not a switch).
    assert seen == [("body", False, True, True), ("callee", False, True, True)]
    assert effects == []  # the eager side's effect never runs


@pytest.mark.torch
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_dynamo_takes_is_compiling_as_true() -> None:
    import torch

    def callee(x: torch.Tensor) -> torch.Tensor:
        return x * 3.0 if torch.compiler.is_compiling() else x * 2.0

    def f(x: torch.Tensor) -> torch.Tensor:
        return callee(x) + 1.0

    x = torch.ones(2)
    assert f(x).tolist() == [3.0, 3.0]
    assert torch.compile(f, backend="eager")(x).tolist() == [4.0, 4.0]


PROJECT = """
import tensorflow as tf


class RunManager:
    def executing_eagerly(self):
        return tf.executing_eagerly()


run = RunManager()


def set_value(v, value):
    if run.executing_eagerly():
        if value < 0:
            raise ValueError("negative")
    else:
        tf.debugging.assert_non_negative(value)
    v.assign(value)


def integrate(v, x):
    set_value(v, tf.reduce_sum(x))
    return v * 2.0


def outside(x):
    if tf.compat.v1.executing_eagerly_outside_functions():
        return x * 2.0
    return x


@tf.function
def compiled(v, x):
    return integrate(v, x)


v = tf.Variable(1.0)
for _ in range(10):
    integrate(v, tf.ones([3]))
    outside(tf.ones([3]))
    compiled(v, tf.ones([3]))
"""


def _hy439(qualname: str) -> list[str]:
    return [f.message for f in analyse(PROJECT)[qualname].findings if f.code == "HY439"]


def test_a_caller_of_a_caller_of_the_wrapper_is_blocked_with_the_chain() -> None:
    (message,) = _hy439("integrate")
    assert "`set_value`" in message and "`RunManager.executing_eagerly`" in message
    assert "tf.executing_eagerly()" in message and "line 7" in message
    assert "branches_on_execution_mode" in analyse(PROJECT)["integrate"].failures


def test_a_branch_on_the_wrapper_is_a_read() -> None:
    (message,) = _hy439("set_value")
    assert message.startswith("calls `RunManager.executing_eagerly` (line 7)")


def test_the_outermost_context_is_no_switch() -> None:
    assert _hy439("outside") == []


def test_an_already_compiled_function_is_not_concerned() -> None:
    assert _hy439("compiled") == []


WRAPPED = """
import tensorflow as tf


class Registry:
    def __init__(self, **kwargs):
        self.kwargs = kwargs

    def __call__(self, func):
        compiled = tf.function(func)

        def concrete_func(*args, **kwargs):
            if not tf.executing_eagerly():
                return func(*args, **kwargs)
            return compiled(*args, **kwargs)

        return concrete_func


def function(func=None, **kwargs):
    if callable(func):
        return Registry(**kwargs)(func)
    return Registry(**kwargs)


def plain(func):
    def inner(*args):
        return func(*args)

    return inner


class Model:
    @function(wraps="model")
    def integrand(self, x):
        return x * 2.0

    @plain
    def other(self, x):
        return x * 3.0

    def integrate(self, x):
        return tf.reduce_sum(self.integrand(x))

    def add(self, x):
        return tf.reduce_sum(self.other(x))


m = Model()
for _ in range(10):
    m.integrate(tf.ones([3]))
    m.add(tf.ones([3]))
"""


def test_a_callee_wrapped_by_a_decorator_reading_the_mode_is_a_read() -> None:
    """zfit's `z.function`: its wrapper runs the body as is once inside a graph, so a
    caller compiled switches it (the wrapper runs in the caller's trace)."""
    verdicts = analyse(WRAPPED)
    (message,) = [f.message for f in verdicts["Model.integrate"].findings if f.code == "HY439"]
    assert "calls `Model.integrand`" in message
    assert "`function`" in message and "Registry.__call__.concrete_func" in message
    assert not [f for f in verdicts["Model.add"].findings if f.code == "HY439"]
