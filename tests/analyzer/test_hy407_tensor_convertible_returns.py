"""HY407: a returned instance of a project class TensorFlow converts to a tensor.

edward2's `RandomVariable` is a plain class registered with
`tf.register_tensor_conversion_function` when its module is imported. Eagerly a function
returning one gives the caller the object (`rv.distribution`); `tf.function` converts every
returned leaf to a tensor, so compiled the caller gets an `EagerTensor` and reading
`.distribution` raises AttributeError. The same holds for a subclass of a registered class and
for a class defining `__tf_tensor__`; a class not registered raises TypeError while tracing.
The measuring test below re-measures that on the installed TensorFlow (TF 2.21 when written).
"""

from __future__ import annotations

import pytest
from facts_helpers import finding_messages

RANDOM_VARIABLE = """
import tensorflow as tf


class RandomVariable:
    def __init__(self, distribution, value):
        self.distribution = distribution
        self.value = value


def _convert(v, dtype=None, name=None, as_ref=False):
    return v.value


tf.register_tensor_conversion_function(RandomVariable, _convert)


class Plain:
    def __init__(self, value):
        self.value = value
"""

LAYERS = """
import tensorflow as tf
from pkg import rv


class Sub(rv.RandomVariable):
    pass


class Converted:
    def __init__(self, value):
        self.value = value

    def __tf_tensor__(self, dtype=None, name=None):
        return tf.convert_to_tensor(self.value, dtype=dtype)


def direct(x):
    y = tf.exp(x)
    return rv.RandomVariable(None, y)


def subclassed(x):
    return Sub(None, tf.exp(x)), tf.exp(x)


def protocol(x):
    return Converted(tf.exp(x))


def through_a_helper(x):
    return direct(x * 2.0)


def plain(x):
    return rv.Plain(tf.exp(x))


def unwrapped(x):
    return direct(x).value


def run():
    for i in range(10):
        x = tf.ones([3]) * float(i)
        direct(x)
        subclassed(x)
        protocol(x)
        through_a_helper(x)
        plain(x)
        unwrapped(x)
"""

FILES = {"pkg/__init__.py": "", "pkg/rv.py": RANDOM_VARIABLE, "pkg/layers.py": LAYERS}


def _hy407(qualname: str) -> list[str]:
    return finding_messages(FILES, f"pkg/layers.py::{qualname}", "HY407")


@pytest.mark.parametrize(
    ("qualname", "cls", "how"),
    [
        ("direct", "RandomVariable", "registered with `tf.register_tensor_conversion_function`"),
        ("subclassed", "Sub", "(as a `RandomVariable`)"),
        ("protocol", "Converted", "converted by its `__tf_tensor__`"),
        ("through_a_helper", "RandomVariable", "registered with"),
    ],
)
def test_a_returned_tensor_convertible_instance_blocks_the_function(
    qualname: str, cls: str, how: str
) -> None:
    [message] = _hy407(qualname)
    assert f"an instance of `{cls}`" in message
    assert how in message
    assert "comes back as a tensor" in message


def test_a_plain_class_still_fails_while_tracing_and_an_unwrapped_value_passes() -> None:
    [message] = _hy407("plain")
    assert "TypeError while tracing" in message
    assert _hy407("unwrapped") == []


@pytest.mark.tensorflow
@pytest.mark.slow
def test_a_compiled_function_returns_a_tensor_convertible_object_as_a_tensor() -> None:
    """Measured under TF 2.21: eagerly the object (registered, subclass of registered,
    `__tf_tensor__`), alone or in a tuple; compiled an EagerTensor without its attributes;
    an unregistered class raises TypeError while tracing."""
    import tensorflow as tf

    class Registered:
        def __init__(self, value: tf.Tensor) -> None:
            self.value = value

    class Sub(Registered):
        pass

    class Protocol:
        def __init__(self, value: tf.Tensor) -> None:
            self.value = value

        def __tf_tensor__(self, dtype: object = None, name: object = None) -> tf.Tensor:
            return tf.convert_to_tensor(self.value, dtype=dtype)

    class Plain:
        def __init__(self, value: tf.Tensor) -> None:
            self.value = value

    tf.register_tensor_conversion_function(
        Registered, lambda v, dtype=None, name=None, as_ref=False: v.value
    )
    x = tf.constant([1.0, 2.0])
    for cls in (Registered, Sub, Protocol):

        def make(x: tf.Tensor, cls: type = cls) -> object:
            return cls(x * 2.0)

        def paired(x: tf.Tensor, cls: type = cls) -> tuple[object, tf.Tensor]:
            return cls(x * 2.0), x

        assert isinstance(make(x), cls)
        assert isinstance(paired(x)[0], cls)
        compiled = tf.function(make)(x)
        assert isinstance(compiled, tf.Tensor)
        assert not hasattr(compiled, "value")
        assert compiled.numpy().tolist() == [2.0, 4.0]
        assert isinstance(tf.function(paired)(x)[0], tf.Tensor)
    with pytest.raises(TypeError, match="must return zero or more Tensors"):
        tf.function(lambda x: Plain(x))(x)
