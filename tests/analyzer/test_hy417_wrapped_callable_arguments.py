"""HY417: a callable carrying `__wrapped__` passed to a function that would be compiled.

The check's examples (hybridize/check_examples/HY417) run through test_check_examples; these
tests pin the class of code the rule covers (every way a project callable comes to carry
`__wrapped__`, every way it reaches a parameter), the safe near-misses it leaves alone, and
measure the claim behind it on the installed TensorFlow.
"""

from __future__ import annotations

import functools
import importlib.util
from collections.abc import Callable

import pytest
from facts_helpers import analyse

from hybridize.analyzer.checks import check_of

WRAPPER = """
import functools
import tensorflow as tf


def scaled(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs) * 10.0

    return wrapper


def plain(x):
    return x * 2.0
"""


def hy417(source: str, qualname: str) -> list[str]:
    """The HY417 messages of one function of a module made of WRAPPER and `source`."""
    v = analyse(WRAPPER + source)[qualname]
    messages = [f.message for f in v.findings if f.code == "HY417"]
    assert bool(messages) == ("receives_wrapped_callables" in v.failures)
    return messages


@pytest.mark.parametrize(
    "source",
    [
        pytest.param(
            """
@scaled
def act(x):
    return x + 1.0

def apply(x, fn):
    return fn(tf.matmul(x, x))

for _ in range(100):
    apply(tf.ones([3, 3]), act)
""",
            id="a function decorated by a functools.wraps decorator",
        ),
        pytest.param(
            """
def apply(x, fn):
    return fn(tf.matmul(x, x))

for _ in range(100):
    apply(tf.ones([3, 3]), scaled(plain))
""",
            id="a wrapper made by calling the decorator",
        ),
        pytest.param(
            """
def retry(times):
    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(x):
            return fn(x) * times
        return wrapper
    return decorate

@retry(3)
def act(x):
    return x + 1.0

def apply(x, fn):
    return fn(tf.matmul(x, x))

for _ in range(100):
    apply(tf.ones([3, 3]), act)
""",
            id="a decorator factory",
        ),
        pytest.param(
            """
def clipped(fn):
    def wrapper(x):
        return tf.clip_by_value(fn(x), 0.0, 1.0)
    functools.update_wrapper(wrapper, fn)
    return wrapper

def apply(x, fn):
    return fn(tf.matmul(x, x))

for _ in range(100):
    apply(tf.ones([3, 3]), clipped(plain))
""",
            id="functools.update_wrapper",
        ),
        pytest.param(
            """
class Scale:
    def __init__(self, fn):
        functools.update_wrapper(self, fn)
        self.fn = fn

    def __call__(self, x):
        return self.fn(x) * 100.0

@Scale
def act(x):
    return x + 1.0

def apply(x, fn):
    return fn(tf.matmul(x, x))

for _ in range(100):
    apply(tf.ones([3, 3]), act)
""",
            id="a class whose objects are wrappers",
        ),
        pytest.param(
            """
@scaled
def act(x):
    return x + 1.0

def apply(x, fns):
    for fn in fns:
        x = fn(tf.matmul(x, x))
    return x

for _ in range(100):
    apply(tf.ones([3, 3]), [act, plain])
""",
            id="in a list",
        ),
        pytest.param(
            """
@scaled
def act(x):
    return x + 1.0

def apply(x, fn=act):
    return fn(tf.matmul(x, x))

for _ in range(100):
    apply(tf.ones([3, 3]))
""",
            id="as the default",
        ),
    ],
)
def test_a_wrapped_callable_argument_blocks_the_receiver(source: str) -> None:
    [message] = hy417(source, "apply")
    assert "__wrapped__" in message
    assert check_of("HY417").severity == "error"


@pytest.mark.parametrize(
    "source",
    [
        pytest.param(
            """
@scaled
def act(x):
    return x + 1.0

def apply(x):
    return act(tf.matmul(x, x))

for _ in range(100):
    apply(tf.ones([3, 3]))
""",
            id="read from the module: AutoGraph converts the wrapper",
        ),
        pytest.param(
            """
def timed(fn):
    def wrapper(x):
        return fn(x) * 10.0
    return wrapper

@timed
def act(x):
    return x + 1.0

def apply(x, fn):
    return fn(tf.matmul(x, x))

for _ in range(100):
    apply(tf.ones([3, 3]), act)
""",
            id="a wrapper without __wrapped__",
        ),
        pytest.param(
            """
@functools.lru_cache(maxsize=None)
def table(n):
    return n * 2

def apply(x, fn, act):
    return act(tf.matmul(x, x)) * fn(3)

for _ in range(100):
    apply(tf.ones([3, 3]), table, tf.nn.relu)
""",
            id="library callables (lru_cache, a dispatching TF op)",
        ),
        pytest.param(
            """
@scaled
def act(x):
    return x + 1.0

@tf.function
def apply(x, fn):
    return fn(tf.matmul(x, x))

for _ in range(100):
    apply(tf.ones([3, 3]), act)
""",
            id="already compiled: nothing changes",
        ),
    ],
)
def test_safe_near_misses_are_not_concerned(source: str) -> None:
    assert hy417(source, "apply") == []


@pytest.mark.tensorflow
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_a_traced_function_receives_the_wrapped_function_of_its_argument() -> None:
    """Measured under TF 2.21: an argument with `__wrapped__` reaches the traced body as the
    wrapped function (`trace_type_builder.from_value` follows `__wrapped__`), with or
    without AutoGraph, in a list too; read from a global, the wrapper is kept."""
    import tensorflow as tf

    def scaled(fn: Callable[[tf.Tensor], tf.Tensor]) -> Callable[[tf.Tensor], tf.Tensor]:
        @functools.wraps(fn)
        def wrapper(x: tf.Tensor) -> tf.Tensor:
            return fn(x) * 10.0

        return wrapper

    @scaled
    def act(x: tf.Tensor) -> tf.Tensor:
        return x + 1.0

    def apply(x: tf.Tensor, fn: Callable[[tf.Tensor], tf.Tensor]) -> tf.Tensor:
        return fn(x)

    def apply_all(x: tf.Tensor, fns: list[Callable[[tf.Tensor], tf.Tensor]]) -> tf.Tensor:
        return fns[0](x)

    def apply_global(x: tf.Tensor) -> tf.Tensor:
        return act(x)

    x = tf.constant([1.0, 2.0])
    assert apply(x, act).numpy().tolist() == [20.0, 30.0]
    assert tf.function(apply)(x, act).numpy().tolist() == [2.0, 3.0]
    assert tf.function(apply, autograph=False)(x, act).numpy().tolist() == [2.0, 3.0]
    assert tf.function(apply_all)(x, [act]).numpy().tolist() == [2.0, 3.0]
    assert tf.function(apply_global)(x).numpy().tolist() == [20.0, 30.0]
    # A dispatching TF op carries `__wrapped__` too: its wrapped function computes the same.
    assert hasattr(tf.add, "__wrapped__")
    assert tf.function(apply)(x, lambda t: tf.add(t, t)).numpy().tolist() == [2.0, 4.0]
