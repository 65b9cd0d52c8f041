"""Names a module binds at import under computed names: `globals()[name] = value` (directly or
through a local holding `globals()`) or `setattr(sys.modules[__name__], name, value)`.

edward2 makes `ed.Normal`, `ed.Independent`, ... by a loop over TFP's distributions binding
`_globals[name] = make_random_variable(cls)`, a factory returning an inner function that
returns a `RandomVariable` (registered with `tf.register_tensor_conversion_function`). A name
the module defines no other way resolves to any of the values so bound: what a layer's `call`
returning `rv.Normal(...)` returns is then known, and HY407 blocks it (compiled, the random
variable comes back as a tensor). Python semantics: after the loop, the module's attribute
is the factory's result, which a test below checks by running such a module.
"""

from __future__ import annotations

import sys
import types

import pytest
from facts_helpers import finding_messages

RANDOM_VARIABLES = """
import sys

import tensorflow as tf
import tensorflow_probability as tfp


class RandomVariable:
    def __init__(self, distribution):
        self.distribution = distribution
        self.value = distribution.sample()


def _convert(v, dtype=None, name=None, as_ref=False):
    return v.value


tf.register_tensor_conversion_function(RandomVariable, _convert)


def make_random_variable(distribution_cls):
    def func(*args, **kwargs):
        return RandomVariable(distribution_cls(*args, **kwargs))

    return func


_globals = globals()
for candidate_name in sorted(dir(tfp.distributions)):
    _globals[candidate_name] = make_random_variable(getattr(tfp.distributions, candidate_name))
"""

DIRECT = """
import tensorflow_probability as tfp

from pkg.rv import make_random_variable

for name in ("Normal", "Logistic"):
    globals()[name] = make_random_variable(getattr(tfp.distributions, name))
"""

SETATTR = """
import sys

import tensorflow_probability as tfp

from pkg.rv import make_random_variable

for name in ("Normal", "Logistic"):
    setattr(sys.modules[__name__], name, make_random_variable(getattr(tfp.distributions, name)))
"""

LITERAL = """
import sys

import tensorflow_probability as tfp

from pkg.rv import make_random_variable

globals()["Normal"] = make_random_variable(tfp.distributions.Normal)
setattr(sys.modules[__name__], "Logistic", make_random_variable(tfp.distributions.Logistic))


def exp(x):
    return x
"""

STATIC = """
import tensorflow as tf


def helper(x):
    return tf.exp(x)
"""

LAYERS = """
import tensorflow as tf

from pkg import direct, literal, rv, static, with_setattr
from pkg.rv import Independent


class ThroughAttribute(tf.keras.layers.Layer):
    def call(self, inputs):
        return rv.Normal(loc=tf.exp(inputs), scale=1.0)


class ThroughImport(tf.keras.layers.Layer):
    def call(self, inputs):
        return Independent(rv.Normal(loc=tf.exp(inputs), scale=1.0).distribution)


class ThroughGlobals(tf.keras.layers.Layer):
    def call(self, inputs):
        return direct.Logistic(loc=tf.exp(inputs), scale=1.0)


class ThroughSetattr(tf.keras.layers.Layer):
    def call(self, inputs):
        return with_setattr.Normal(loc=tf.exp(inputs), scale=1.0)


class ThroughLiteralKey(tf.keras.layers.Layer):
    def call(self, inputs):
        return literal.Normal(loc=tf.exp(inputs), scale=1.0)


class ThroughLiteralSetattr(tf.keras.layers.Layer):
    def call(self, inputs):
        return literal.Logistic(loc=tf.exp(inputs), scale=1.0)


class OtherNameOfLiteralKeys(tf.keras.layers.Layer):
    def call(self, inputs):
        return literal.Missing(tf.exp(inputs))


class Unknown(tf.keras.layers.Layer):
    def call(self, inputs):
        return static.Missing(tf.exp(inputs))


class Sampled(tf.keras.layers.Layer):
    def call(self, inputs):
        return tf.convert_to_tensor(rv.Normal(loc=tf.exp(inputs), scale=1.0))
"""

FILES = {
    "pkg/__init__.py": "",
    "pkg/rv.py": RANDOM_VARIABLES,
    "pkg/direct.py": DIRECT,
    "pkg/with_setattr.py": SETATTR,
    "pkg/static.py": STATIC,
    "pkg/literal.py": LITERAL,
    "pkg/layers.py": LAYERS,
}


def _hy407(qualname: str) -> list[str]:
    return finding_messages(FILES, f"pkg/layers.py::{qualname}", "HY407")


@pytest.mark.parametrize(
    "qualname",
    [
        "ThroughAttribute.call",
        "ThroughImport.call",
        "ThroughGlobals.call",
        "ThroughSetattr.call",
        "ThroughLiteralKey.call",
        "ThroughLiteralSetattr.call",
    ],
)
def test_a_name_bound_through_globals_resolves_to_the_factory_result(qualname: str) -> None:
    [message] = _hy407(qualname)
    assert "an instance of `RandomVariable`" in message
    assert "comes back as a tensor" in message


@pytest.mark.parametrize(
    "qualname", ["Unknown.call", "Sampled.call", "OtherNameOfLiteralKeys.call"]
)
def test_a_name_no_dynamic_binding_may_bind_and_a_converted_result_are_not_blocked(
    qualname: str,
) -> None:
    assert _hy407(qualname) == []


def test_python_binds_the_factory_result_under_the_computed_name() -> None:
    """The semantics read: after such a loop the module's attribute is what the factory
    returned (both spellings)."""
    source = (
        "import sys\n"
        "def make(tag):\n"
        "    def func(x):\n"
        "        return (tag, x)\n"
        "    return func\n"
        "for name in ('A', 'B'):\n"
        "    globals()[name] = make(name)\n"
        "setattr(sys.modules[__name__], 'C', make('C'))\n"
    )
    module = types.ModuleType("dynamic_globals_probe")
    sys.modules[module.__name__] = module
    try:
        exec(compile(source, "dynamic_globals_probe", "exec"), module.__dict__)
    finally:
        del sys.modules[module.__name__]
    assert module.A(1) == ("A", 1)
    assert module.B(2) == ("B", 2)
    assert module.C(3) == ("C", 3)
