"""HY302 for libraries that compute only on Python values (math, fractions, SymPy, ...).

`math.floor`, `fractions.Fraction` and SymPy read a number with `__float__`/`__index__` or
take it into their own object model; an eager tensor converts, a symbolic one (what a
compiled function's parameter is) does not. tf-pwa 0.2.2's low-benefit rewrite compiled
`opt_lambdify` (`sympy.cse` of its argument), `reverse_bessel_polynomials` (`math.factorial`
of its argument) and `Bound.get_y2x` (SymPy's `evalf`): the analysis took what those
libraries give for possibly a tensor. The first test measures the hazard on the installed
TensorFlow (and SymPy where installed); the others pin the verdicts and the look-alikes.
"""

from __future__ import annotations

import importlib.util

import pytest
from facts_helpers import finding_messages, verdict

from hybridize.analyzer.frameworks import lookup
from hybridize.analyzer.frameworks.python_stdlib import value_library


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_python_value_libraries_fail_on_symbolic_tensors() -> None:
    import fractions
    import math

    import tensorflow as tf

    def floored(x: object) -> object:
        return x * math.floor(x)  # type: ignore[operator, call-overload]

    def factorial(n: object) -> object:
        return tf.constant(float(math.factorial(n)))  # type: ignore[call-overload]

    def sqrt_constant(x: object) -> object:
        return x * math.sqrt(2.0)  # type: ignore[operator]

    def fraction(x: object) -> object:
        return tf.constant(float(fractions.Fraction(x, 2)))  # type: ignore[call-overload]

    # eagerly an eager tensor converts (`__float__`, `__index__`)
    assert float(floored(tf.constant(2.5))) == 5.0  # type: ignore[arg-type]
    assert float(factorial(tf.constant(3))) == 6.0  # type: ignore[arg-type]
    for fn, arg in ((floored, tf.constant(2.5)), (factorial, tf.constant(3))):
        with pytest.raises(TypeError):
            tf.function(fn)(arg)
    with pytest.raises(TypeError):
        tf.function(fraction)(tf.constant(3))
    # of a Python constant: computed at trace, a constant of the graph; fine
    assert float(tf.function(sqrt_constant)(tf.constant(2.0))) == pytest.approx(2 * math.sqrt(2))  # type: ignore[arg-type]
    if importlib.util.find_spec("sympy") is None:
        return
    import sympy

    def symbolic(x: object) -> object:
        return tf.constant(float(sympy.sympify(x)))

    assert float(symbolic(tf.constant(2.5))) == 2.5  # type: ignore[arg-type]
    with pytest.raises(Exception):  # noqa: B017 - StagingError: AutoGraph converts SymPy
        tf.function(symbolic)(tf.constant(2.5))


def test_the_tables_name_the_value_libraries() -> None:
    assert value_library("math.floor") == "math"
    assert value_library("sympy.cse") == "sympy"
    assert value_library("fractions.Fraction") == "fractions"
    # the function lambdify builds may compute with tensors: not a Python value
    assert value_library("sympy.lambdify") is None
    info = lookup("sympy.lambdify")
    assert info is not None and info.returns == "unknown"
    info = lookup("sympy.Symbol")
    assert info is not None and info.returns == "python"
    assert value_library("numpy.floor") is None


MODULE = """
    import fractions
    import math

    import somelib
    import sympy as sym
    import tensorflow as tf

    def scaled_by(x, factor):
        return tf.reduce_sum(x) * math.sqrt(factor)

    def floored(x):
        return tf.reduce_sum(x) * math.floor(x)

    def sqrt_constant(x):
        return tf.reduce_sum(x) * math.sqrt(2.0)

    def shape_root(x):
        return tf.reduce_sum(x) / math.sqrt(x.shape[-1])

    def fraction_of(x):
        return tf.reduce_sum(x) * float(fractions.Fraction(x))

    def expand(expr):
        subs, ret = sym.cse(expr)
        return tf.constant(float(len(subs)))

    def bessel(n, x):
        ret = 0
        for k in range(n + 1):
            ret += math.factorial(n + k) * x ** (n - k)
        return ret

    def helper(v):
        return math.floor(v)

    def via_helper(x):
        return tf.reduce_sum(x) * helper(x)

    def coefficients(l):
        return bessel(l, sym.Symbol("x"))

    class Bound:
        # tf-pwa's Bound: the inverse of its bound function, solved by SymPy
        def __init__(self, a, b):
            x, y = sym.symbols("x y")
            self.inv = sym.solve((b - a) * (sym.sin(x) + 1) / 2 + a - y, x)[-1]

        def get_y2x(self, val):
            y = sym.symbols("y")
            return tf.constant(complex(self.inv.evalf(subs={y: val})).real)

        def lower_x(self, val):
            y = sym.symbols("y")
            return tf.constant(complex(self.inv.evalf(subs={y: 0.0})).real) * val

    def main():
        t = tf.constant([1.0, 2.0])
        floored(t)
        scaled_by(t, somelib.factor())
        sqrt_constant(t)
        shape_root(t)
        fraction_of(t)
        expand(t)
        bessel(t, t)
        via_helper(t)
        coefficients(2)
        Bound(0.0, 1.0).get_y2x(t)
        Bound(0.0, 1.0).lower_x(t)
"""


@pytest.mark.parametrize(
    ("qualname", "blocked"),
    [
        ("floored", True),  # math.floor of its tensor argument
        # of a value of unknown kind (a configuration number, mostly): not claimed, unlike
        # NumPy, which is applied to data (tf-models' `round_repeats`, `RandomErasing`)
        ("scaled_by", False),
        ("sqrt_constant", False),  # math.sqrt of a Python constant: a graph constant
        ("shape_root", False),  # of a static shape: a Python int while tracing
        ("fraction_of", True),  # fractions.Fraction of its tensor argument
        ("expand", True),  # sympy.cse of its tensor argument
        ("bessel", True),  # math.factorial of a value derived from its tensor argument
        ("via_helper", True),  # the helper applies math.floor to what it is handed
        ("Bound.get_y2x", True),  # a SymPy object's method (evalf) given its tensor argument
        ("Bound.lower_x", False),  # evalf of a Python constant: computed at trace
    ],
)
def test_value_libraries_block_where_the_value_is_symbolic(qualname: str, blocked: bool) -> None:
    v = verdict({"m.py": MODULE}, qualname)
    found = "HY302" in {f.code for f in v.findings}
    failed = "has_numpy_calls_on_parameters" in v.failures
    assert (found, failed) == (blocked, blocked)
    assert not (blocked and v.passes)


def test_the_findings_name_the_library() -> None:
    (message,) = finding_messages({"m.py": MODULE}, "floored", "HY302")
    assert "`math.floor`" in message and "Python values" in message
    messages = finding_messages({"m.py": MODULE}, "via_helper", "HY302")
    assert any("`helper`" in m and "math.floor" in m for m in messages)


def test_a_sympy_value_is_no_tensor() -> None:
    """What SymPy gives is a Python value: a function handed only SymPy values takes no
    tensor (tf-pwa's `get_bprime_coeff` hands `reverse_bessel_polynomials` a Symbol)."""
    v = verdict({"m.py": MODULE}, "coefficients")
    assert "HY001" in {f.code for f in v.findings}


@pytest.mark.torch
@pytest.mark.skipif(
    importlib.util.find_spec("torch") is None or importlib.util.find_spec("sympy") is None,
    reason="PyTorch or SymPy absent",
)
def test_dynamo_breaks_the_graph_at_sympy() -> None:
    """torch.compile does not fail on SymPy of a Python value: it breaks the graph there
    (correct, slower), as for any library it has no table for."""
    import warnings

    import sympy
    import torch
    from torch._dynamo.utils import counters

    def coefficient(x: torch.Tensor, n: int) -> torch.Tensor:
        c = float(sympy.factorial(n) / sympy.Integer(2) ** n)
        return torch.sin(x) * c + torch.cos(x)

    x = torch.randn(8)
    torch._dynamo.reset()
    counters.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compiled = torch.compile(coefficient)
        assert torch.allclose(compiled(x, 3), coefficient(x, 3))
    assert sum(counters["graph_break"].values()) >= 1


TORCH_MODULE = """
    import sympy
    import torch

    def uses_sympy(x, n):
        return torch.sin(x) * float(sympy.factorial(n))

    uses_sympy(torch.ones(3), 3)
"""


def test_under_torch_compile_sympy_is_still_a_library_dynamo_traces_into() -> None:
    """Tabled as a library of Python values for tf.function, SymPy stays code Dynamo traces
    into (`Framework.untabled_library_calls`): not proposed, as before."""
    v = verdict({"m.py": TORCH_MODULE}, "uses_sympy")
    assert any("no table for" in f.message for f in v.findings if f.code == "HY301")
    assert "HY302" not in {f.code for f in v.findings}  # HY302 is tf.function's hazard


EXEC_MODULE = """
    import tensorflow as tf

    def built(x, source):
        scope = {}
        exec(source, {"tf": tf}, scope)
        return scope["f"](x)

    def evaluated(x, text):
        return tf.reduce_sum(x) * eval(text)

    def plain(x):
        return tf.reduce_sum(x) * 2.0

    def main():
        t = tf.constant([1.0, 2.0])
        built(t, "def f(x):\\n  return x * 2\\n")
        evaluated(t, "2.0")
        plain(t)
"""


@pytest.mark.parametrize(
    ("qualname", "blocked"), [("built", True), ("evaluated", True), ("plain", False)]
)
def test_code_built_at_run_time_is_not_known(qualname: str, blocked: bool) -> None:
    """`exec`/`eval` run code the analysis cannot read: its effects are unknown (HY110)."""
    v = verdict({"m.py": EXEC_MODULE}, qualname)
    assert ("HY110" in {f.code for f in v.findings}) is blocked
    assert ("undeterminable_side_effects" in v.failures) is blocked


def test_exec_and_eval_are_tabled_as_unknown_code() -> None:
    for name in ("builtins.exec", "builtins.eval"):
        info = lookup(name)
        assert info is not None and info.effect == "unknown_code"
