"""A Python number that reaches a compiled function's argument through a container or a
method call is still a Python number: HY201 (`has_primitive_parameters`) sees it retrace per
value (zfit's `LevenbergMarquardt._damped_hess0(hess, L)`: `L` a float the minimizer
multiplies by 11 or divides by 9 per iteration, read back from `step[2]` of the dict its step
returns, and passed to a staticmethod through `self`; measured by the benefit oracle: 10
traces in 35 calls).

The class: a staticmethod called through an instance or `self` binds its arguments from its
first parameter (it has no receiver to skip); the analysis bound them one position off, so
`L` received `hess`'s values (the dict subscript the oracle's notes blamed reads every value of
the dict, and `step[2]` of them still holds the float: not the cause here)."""

from __future__ import annotations

import importlib.util
from typing import Any

import pytest
from facts_helpers import case, verdict

STEP = """
import tensorflow as tf


class Minimizer:
    def __init__(self):
        self.up = 11

    DAMPED

    def step(self, hess, grad, L):
        best = (tf.zeros_like(grad), 0.0, L)
        for _ in range(10):
            h = tf.linalg.solve(CALL, grad)
            if tf.reduce_sum(h) > 0:
                best = (h, 1.0, L)
            L *= self.up
        return {"step": best, "hessian": hess, "gradient": grad}

    def minimize(self, hess, grad):
        L = 1.0
        for _ in range(100):
            point = self.step(hess, grad, L)
            best = READ
            L = best[2]
            grad = grad + best[0]
        return grad


Minimizer().minimize(tf.eye(3), tf.ones((3, 1)))
"""

STATIC = "@staticmethod\n    def damped(hess, L):\n        return hess + L * tf.eye(3)"
METHOD = "def damped(self, hess, L):\n        return hess + L * tf.eye(3)"


def _source(
    damped: str = STATIC, call: str = "self.damped(hess, L)", read: str = 'point["step"]'
) -> str:
    return STEP.replace("DAMPED", damped).replace("CALL", call).replace("READ", read)


CASES = [
    # INVALID (flagged): a float per iteration, through `self.` to a staticmethod
    case("staticmethod-through-self", _source(), "Minimizer.damped", True),
    case(
        "staticmethod-through-class",
        _source(call="Minimizer.damped(hess, L)"),
        "Minimizer.damped",
        True,
    ),
    case("method", _source(damped=METHOD), "Minimizer.damped", True),
    # the float read back from the dict, passed on to the step again
    case("read-back", _source(), "Minimizer.step", True),
    # VALID: a tensor read back by its key is no Python literal
    case(
        "tensor-read-back",
        _source()
        .replace("L = 1.0", "L = tf.constant(1.0)")
        .replace("L *= self.up", "L = L * tf.constant(11.0)"),
        "Minimizer.step",
        False,
    ),
    # the dict built with keywords, or copied, reads back by key like the display
    case(
        "read-back-keywords",
        _source().replace(
            'return {"step": best, "hessian": hess, "gradient": grad}',
            "return dict(step=best, hessian=hess, gradient=grad)",
        ),
        "Minimizer.damped",
        True,
    ),
    case(
        "read-back-unpacked",
        _source().replace(
            'return {"step": best, "hessian": hess, "gradient": grad}',
            'return {**{"step": best, "hessian": hess}, "gradient": grad}',
        ),
        "Minimizer.damped",
        True,
    ),
    case(
        "tensor-read-back-keywords",
        _source()
        .replace("L = 1.0", "L = tf.constant(1.0)")
        .replace("L *= self.up", "L = L * tf.constant(11.0)")
        .replace(
            'return {"step": best, "hessian": hess, "gradient": grad}',
            "return dict(step=best, hessian=hess, gradient=grad)",
        ),
        "Minimizer.step",
        False,
    ),
]


@pytest.mark.parametrize(("files", "qualname", "expected"), CASES)
def test_python_numbers_read_back(files: str, qualname: str, expected: bool) -> None:
    v = verdict(files, qualname)
    assert v.facts.has_primitive_parameters == expected, [f.message for f in v.findings]
    if expected:
        assert any(f.code == "HY201" and "`L`" in f.message for f in v.findings)


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_a_float_per_iteration_retraces_a_compiled_staticmethod() -> None:
    """Measured on TF 2.21: the staticmethod compiled and called through `self` with a float
    multiplied per iteration traces once per value (the HY201 class), and once with a
    tensor of the same values."""
    import tensorflow as tf

    traces: list[object] = []

    class Minimizer:
        @staticmethod
        @tf.function
        def damped(hess: Any, L: Any) -> Any:
            traces.append(L)
            return hess + L * tf.eye(3)

        def run(self, values: list[Any]) -> None:
            for L in values:
                self.damped(tf.eye(3), L)

    floats = [1.0 * 11**i for i in range(5)]
    Minimizer().run(floats)
    assert len(traces) == len(floats)
    traces.clear()
    Minimizer().run([tf.constant(v) for v in floats])
    assert len(traces) == 1
