"""HY423 with a method that formats a tensor's shape into a string, measured on torch 2.13.

curvlinops-for-pytorch 3.0.1 (held out): with HY301 off, the rewrite compiled
`PyTorchLinearOperator._check_input_and_preprocess` and the name-mangled
`__check_tensor_and_preprocess` it calls as `self.__check...(X)`; the callee raises
`ValueError(f"... Got {X.shape}.")` on a bad input. Alone, the first compile specialises the
sizes and the string is built; after other tests had recompiled the caller on other sizes
(automatic dynamic shapes), Dynamo could not build the string from the symbolic size
("BUILD_STRING type error"), broke the graph inside the callee, and resuming called the
callee's compile wrapper without its instance: "missing 1 required positional argument: 'X'".
Not name mangling (a plain name fails the same) and not the caller alone (a plain callee
raises the right error): the class HY423 owns, a compiled method broken inside a compiled
caller. These tests measure it again and pin the analysis.
"""

from __future__ import annotations

import importlib.util

import pytest
from facts_helpers import analyse, run_probe

PROBE = """
import sys
import torch
from torch import Tensor, zeros

compile = torch.compile(backend="eager")


def make(inner_compiled, message):
    inner = compile if inner_compiled else (lambda f: f)

    class Op:
        def __init__(self, n):
            self.n = n
            self.shape = (n, n)

        @compile
        def check(self, X):
            if isinstance(X, Tensor):
                out, k = self.tensor(X)
            else:
                raise ValueError("kind")
            return out, k

        @inner
        def tensor(self, X):
            if X.ndim > 2 or X.shape[0] != self.shape[1]:
                raise ValueError(message(self, X))
            k = 1 if X.ndim == 1 else X.shape[1]
            return [X.reshape(self.n, k)], k

        @compile
        def mangled(self, X):
            return self.__tensor(X)

        @inner
        def __tensor(self, X):
            if X.ndim > 2 or X.shape[0] != self.shape[1]:
                raise ValueError(message(self, X))
            return [X.reshape(self.n, -1)]

    return Op


MESSAGES = {
    "formatted": lambda self, X: f"shape ({self.shape[1]},) " + f"Got {X.shape}.",
    "constant": lambda self, X: f"shape ({self.shape[1]},) expected",
}


def run(name, inner_compiled, message, method):
    torch._dynamo.reset()
    op = make(inner_compiled, MESSAGES[message])(3)
    call = getattr(op, method)
    outcomes = []
    for x in (zeros(3), zeros(3, 2), zeros(3, 5)):  # recompiles: the sizes become dynamic
        call(x)
    for x in (zeros(2), zeros(4)):
        try:
            call(x)
            outcomes.append("ok")
        except Exception as error:
            outcomes.append(type(error).__name__)
    print(name, "/".join(outcomes))


run("fresh", True, "formatted", "check")
run("plain_callee", False, "formatted", "check")
run("constant_message", True, "constant", "check")
run("mangled", True, "formatted", "mangled")
torch._dynamo.reset()
op = make(True, MESSAGES["formatted"])(3)
try:
    op.check(zeros(2))
    print("first_compile ok")
except Exception as error:
    print("first_compile", type(error).__name__)
"""


@pytest.mark.torch
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_a_compiled_method_formatting_a_dynamic_shape_loses_its_argument() -> None:
    measured = run_probe(PROBE)
    assert measured["fresh"] == "TypeError/TypeError", measured
    assert measured["mangled"] == "TypeError/TypeError", measured  # not name mangling
    assert measured["plain_callee"] == "ValueError/ValueError", measured
    assert measured["constant_message"] == "ValueError/ValueError", measured
    assert measured["first_compile"] == "ValueError", measured  # static sizes: fine


SOURCE = """
import torch
from torch import Tensor


class Op:
    def __init__(self, n):
        self.n = n
        self.shape = (n, n)

    def check(self, X):
        if isinstance(X, Tensor):
            out, k = self.__tensor(X)
        else:
            raise ValueError("kind")
        return out, k

    def __tensor(self, X):
        if X.ndim > 2 or X.shape[0] != self.shape[1]:
            raise ValueError(f"shape ({self.shape[1]},) " + f"Got {X.shape}.")
        k = 1 if X.ndim == 1 else X.shape[1]
        return [X.reshape(self.n, k)], k

    def sized(self, X):
        if X.shape[0] != self.n:
            raise ValueError("got " + str(X.shape))
        return X * 2

    def quiet(self, X):
        if X.ndim > 2 or X.shape[0] != self.shape[1]:
            raise ValueError(f"shape ({self.shape[1]},) expected, own {self.shape}")
        return [X.reshape(self.n, -1)]

    def run(self, X):
        return self.sized(X) + self.quiet(X)[0].sum()


def free(X):
    if X.shape[0] != 3:
        raise ValueError(f"got {X.shape}")
    return X * 2


def caller(X):
    return free(X)


op = Op(3)
for _ in range(50):
    op.check(torch.zeros(3))
    op.run(torch.zeros(3))
    caller(torch.zeros(3))
"""


def test_hy423_claims_a_method_formatting_a_tensor_shape_under_a_compiled_caller() -> None:
    verdicts = analyse(SOURCE)
    codes = {name: {f.code for f in v.findings} for name, v in verdicts.items()}
    assert "HY423" in codes["Op.__tensor"], codes
    assert "HY423" in codes["Op.sized"], codes  # str() of a shape
    assert "HY423" not in codes["Op.quiet"], codes  # only the instance's own int shape
    assert "HY423" not in codes["free"], codes  # a free function has no instance to lose
    message = next(f.message for f in verdicts["Op.__tensor"].findings if f.code == "HY423")
    assert "formats the shape of `X`" in message, message
