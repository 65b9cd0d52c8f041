"""HY408 for an attribute of a module-level object of no project class, read through
`getattr` too: larq's thread-local `quantized_scope` flag.

Found by the differential oracle on larq 0.14.0: `QuantizedVariable._quantize` reads
`context.should_quantize()`, which returns `getattr(_quantized_scope, "should_quantize",
False)` of a `threading.local()` that `quantized_scope` reassigns around each layer call;
compiled, the graph kept the flag it traced with (silently unquantized reads). Neither the
object (no project class: its attributes are keyed by the global that holds it) nor the
`getattr` with a literal name was a read HY408 saw (`facts/frozen_state.py`). These tests pin
the class and measure the claim on the installed TensorFlow.
"""

from __future__ import annotations

import importlib.util

import pytest
from facts_helpers import analyse

PROGRAM = """
import contextlib
import threading

import tensorflow as tf

_scope = threading.local()
_scope.flag = False
_settings = threading.local()
_settings.scale = 2.0


@contextlib.contextmanager
def scope(value):
    backup = flag()
    _scope.flag = value
    yield value
    _scope.flag = backup


def flag():
    return getattr(_scope, "flag", False)


def quantized(x):
    if flag():
        return tf.sign(x)
    return x


def direct(x):
    return x * tf.cast(_scope.flag, tf.float32)


def scaled(x):
    return x * getattr(_settings, "scale", 1.0)


quantized(tf.ones((2,)))
direct(tf.ones((2,)))
scaled(tf.ones((2,)))
with scope(True):
    quantized(tf.ones((2,)))
"""


def hy408(qualname: str) -> list[str]:
    return [f.message for f in analyse(PROGRAM)[qualname].findings if f.code == "HY408"]


def test_a_thread_local_flag_read_through_a_getattr_helper_is_hy408() -> None:
    [message] = hy408("quantized")
    assert "calls `flag`, which reads `_scope.flag`" in message
    assert "`scope` reassigns" in message


def test_the_same_attribute_read_directly_is_hy408() -> None:
    [message] = hy408("direct")
    assert "reads `_scope.flag`" in message


def test_an_attribute_set_only_at_initialisation_is_not_concerned() -> None:
    # `_settings.scale` is assigned once, in module code before any call: nothing changes it
    assert hy408("scaled") == []


@pytest.mark.tensorflow
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_a_traced_function_keeps_the_thread_local_flag_it_read() -> None:
    """Measured under TF 2.21: the flag set after the first trace is not seen by the graph
    (3.5 where the eager function gives 7.0)."""
    import threading

    import tensorflow as tf

    local = threading.local()
    local.flag = False

    def flag() -> bool:
        return bool(getattr(local, "flag", False))

    def doubled(x: tf.Tensor) -> tf.Tensor:
        return x * 2.0 if flag() else x

    compiled = tf.function(doubled)
    value = tf.constant(3.5)
    assert float(compiled(value)) == 3.5
    local.flag = True
    assert float(doubled(value)) == 7.0
    assert float(compiled(value)) == 3.5
