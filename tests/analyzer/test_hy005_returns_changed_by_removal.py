"""An existing decorator stays (HY005) where removing it changes what a caller gets back.

P2/P3/P6 would remove a `tf.function` whose arguments are Python values; but the compiled
function returns the Python values it computes as tensors, and a caller reading the result
(`.numpy()`) would get an int without the decorator. These tests measure that on the
installed TensorFlow and pin where the decorator stays and where it still goes.
"""

from __future__ import annotations

import importlib.util
import textwrap

import pytest
from facts_helpers import verdict

HALF = """
import tensorflow as tf


@tf.function
def half(n):
    return n // 2


for i in range(100):
    {use}
"""

HINTED = """
import tensorflow as tf


@tf.function(experimental_follow_type_hints=True)
def double(n: tf.Tensor):
    return n * 2


for i in range(100):
    print(double(i).numpy())
"""


def test_a_python_result_a_caller_reads_keeps_the_decorator() -> None:
    v = verdict(textwrap.dedent(HALF.format(use="print(half(i).numpy())")), "half")
    assert not v.passes
    [keep] = [f for f in v.findings if f.code == "HY005"]
    assert "returns a Python int" in keep.message and "module code (line 11)" in keep.message


def test_a_tensor_hint_on_python_arguments_keeps_the_decorator() -> None:
    """The hint calls `n` a tensor, but the caller passes ints, which reach the body as they
    are: eagerly `n * 2` is an int."""
    v = verdict(textwrap.dedent(HINTED), "double")
    assert not v.passes
    assert any(f.code == "HY005" and "Python arguments" in f.message for f in v.findings)


def test_a_result_no_caller_reads_lets_the_decorator_go() -> None:
    v = verdict(textwrap.dedent(HALF.format(use="half(i)")), "half")
    assert v.passes and v.transformation == "convert_to_eager"


@pytest.mark.tensorflow
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_a_compiled_function_returns_python_values_as_tensors() -> None:
    """Measured under TF 2.21: compiled, `n // 2` comes back as a tensor; eagerly as an int,
    whose `.numpy()` raises. `experimental_follow_type_hints` does not convert a Python
    argument for a `tf.Tensor` hint (the body sees the int), yet the result is a tensor."""
    import tensorflow as tf

    def half(n: int) -> object:
        return n // 2

    compiled = tf.function(half)(5)
    assert tf.is_tensor(compiled) and int(compiled.numpy()) == 2
    assert half(5) == 2
    with pytest.raises(AttributeError):
        half(5).numpy()  # type: ignore[attr-defined]

    seen = []

    def double(n: tf.Tensor) -> object:
        seen.append(type(n).__name__)
        return n * 2

    result = tf.function(double, experimental_follow_type_hints=True)(3)
    assert seen == ["int"]
    assert tf.is_tensor(result)
