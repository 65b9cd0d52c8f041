"""HY445: a compiled method called on an instance made in place, measured again.

`tf.function` binds a method to its instance through a weak reference (TF 2.21:
`Function.__get__` caches one bound copy per instance in a weak-keyed cache, whose
`TfMethodTarget` holds `weakref.ref(instance)`): `C().m(x)` frees the temporary before the
call runs, and the traced body sees `self` None. `torch.compile` of a method gives a plain
function, bound strongly by Python: every form works there. The analysis tests read the
verdicts of the same forms.
"""

from __future__ import annotations

import importlib.util

import pytest
from facts_helpers import analyse, run_probe

FORMS = """
import functools

def statement():
    C().m(x)
    return "ok"

def argument():
    return str(float(C().m(x)) + 0)

def returned():
    return C().m(x)

def partial():
    return functools.partial(C().m)(x)

def bound():
    f = C().m
    return f(x)

def held():
    c = C()
    return c.m(x)

def sub_module():
    return M().m(x)

def layer_call():
    return L()(x)

def layer_method():
    return L().m(x)

def run(name, thunk):
    try:
        thunk()
        print(name, "ok")
    except Exception as error:
        print(name, type(error).__name__)

for name in ("statement", "argument", "returned", "partial", "bound", "held"):
    run(name, globals()[name])
for name in ("sub_module", "layer_call", "layer_method"):
    if "M" in globals():
        run(name, globals()[name])
"""

TF_PROBE = (
    """
import tensorflow as tf

x = tf.constant(1.0)

class C:
    def __init__(self):
        self.k = 2.0

    @tf.function
    def m(self, x):
        return x * self.k

class M(tf.Module):
    def __init__(self):
        super().__init__()
        self.k = 2.0

    @tf.function
    def m(self, x):
        return x * self.k

class L(tf.keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.k = 2.0

    @tf.function
    def call(self, x):
        return x * self.k

    @tf.function
    def m(self, x):
        return x * self.k
"""
    + FORMS
)

TORCH_PROBE = (
    """
import torch

x = torch.tensor(1.0)

class C:
    def __init__(self):
        self.k = 2.0

    @torch.compile(backend="eager")
    def m(self, x):
        return x * self.k
"""
    + FORMS
)

TEMPORARY_FORMS = ("statement", "argument", "returned", "partial", "bound")


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_tf_function_methods_lose_a_temporary_instance() -> None:
    measured = run_probe(TF_PROBE)
    for form in TEMPORARY_FORMS:
        assert measured[form] == "AttributeError", (form, measured)
    assert measured["sub_module"] == "AttributeError", measured
    assert measured["held"] == "ok", measured
    assert measured["layer_call"] == "ok", measured
    assert measured["layer_method"] == "ok", measured


@pytest.mark.torch
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_torch_compile_methods_keep_a_temporary_instance() -> None:
    measured = run_probe(TORCH_PROBE)
    for form in (*TEMPORARY_FORMS, "held"):
        assert measured[form] == "ok", (form, measured)


CALLERS = """
import functools
import tensorflow as tf


class Scaler:
    def __init__(self, k=2.0):
        self.k = k

    def apply(self, x):
        return tf.reduce_sum(x * self.k)

    def held(self, x):
        return tf.reduce_sum(x * self.k)

    def other(self, x):
        return tf.reduce_sum(x + self.k)


class Doubler(Scaler):
    pass


class Layer(tf.keras.layers.Layer):
    def scale(self, x):
        return tf.reduce_sum(x * 2.0)


def temporary(x):
    return Scaler(2.0).apply(x)


def through_partial(x):
    return functools.partial(Doubler().other)(x)


def local(x):
    s = Scaler()
    return s.held(x)


def layer(x):
    return Layer().scale(x)


for _ in range(50):
    temporary(tf.ones([3]))
    through_partial(tf.ones([3]))
    local(tf.ones([3]))
    layer(tf.ones([3]))
"""


def test_hy445_claims_methods_read_on_temporaries_only() -> None:
    verdicts = analyse(CALLERS)
    codes = {name: {f.code for f in v.findings} for name, v in verdicts.items()}
    assert "HY445" in codes["Scaler.apply"], codes
    assert "HY445" in codes["Scaler.other"], codes  # inherited, through functools.partial
    assert "HY445" not in codes["Scaler.held"], codes
    assert "HY445" not in codes["Layer.scale"], codes
    assert "HY445" not in codes["temporary"], codes  # the caller compiled is fine


def test_hy445_is_not_reported_for_torch() -> None:
    source = CALLERS.replace("import tensorflow as tf", "import torch").replace(
        "tf.reduce_sum", "torch.sum"
    )
    source = source.replace("tf.keras.layers.Layer", "torch.nn.Module").replace(
        "tf.ones([3])", "torch.ones(3)"
    )
    verdicts = analyse(source)
    assert "Scaler.apply" in verdicts, sorted(verdicts)
    assert all("HY445" not in {f.code for f in v.findings} for v in verdicts.values()), {
        n: [f.code for f in v.findings] for n, v in verdicts.items()
    }


SUPER_CALLS = """
import tensorflow as tf


class Base:
    def __init__(self):
        self.k = 2.0

    def apply(self, x):
        return tf.reduce_sum(x * self.k)


class Sub(Base):
    def apply(self, x):
        return super().apply(x) + 1.0

    def other(self, x):
        return super(Sub, self).apply(x)


for _ in range(60):
    Sub().other(tf.ones([3]))
    s = Sub()
    s.apply(tf.ones([3]))
"""


def test_hy445_takes_no_super_call_for_a_temporary() -> None:
    """`super().apply(x)` reads the method on a proxy of `self`, which the caller holds; the
    module code's `Sub().other(...)` is a temporary."""
    verdicts = analyse(SUPER_CALLS)
    codes = {name: {f.code for f in v.findings} for name, v in verdicts.items()}
    assert "HY445" not in codes["Base.apply"], codes
    assert "HY445" not in codes["Sub.apply"], codes
    assert "HY445" in codes["Sub.other"], codes


RECEIVER_PROBE = """
import tensorflow as tf

x = tf.constant(1.0)


class Base:
    def m(self, x):
        return x * 3.0


class N(Base):
    def __init__(self):
        self.k = 2.0

    @tf.function
    def no_self(self, x):
        return x * 2.0

    @tf.function
    def no_self_nested(self, x):
        f = lambda a: a * 2.0
        return sum(f(v) for v in (x,))

    @tf.function
    def reads_self(self, x):
        return x * self.k

    @tf.function
    def lambda_self(self, x):
        f = lambda a: a * self.k
        return f(x)

    @tf.function
    def comprehension_self(self, x):
        return [v * self.k for v in (x,)][0]

    @tf.function
    def zero_super(self, x):
        return super().m(x)


for name in (
    "no_self", "no_self_nested", "reads_self", "lambda_self", "comprehension_self", "zero_super"
):
    try:
        getattr(N(), name)(x)
        print(name, "ok")
    except Exception as error:
        print(name, type(error).__name__)
"""

RECEIVER_READS = ("reads_self", "lambda_self", "comprehension_self", "zero_super")


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_tf_function_methods_on_a_temporary_fail_only_where_the_body_reads_self() -> None:
    """A body that never reads its receiver runs compiled on a freed temporary; a read of
    `self` in the body, a lambda or a comprehension, or a zero-argument `super()` fails."""
    measured = run_probe(RECEIVER_PROBE)
    assert measured["no_self"] == "ok", measured
    assert measured["no_self_nested"] == "ok", measured
    for form in RECEIVER_READS:
        assert measured[form] == "AttributeError", (form, measured)


RECEIVER_CALLERS = """
import tensorflow as tf


class Base:
    def m(self, x):
        return tf.reduce_sum(x * 3.0)


class N(Base):
    def __init__(self):
        self.k = 2.0

    def no_self(self, x):
        return tf.reduce_sum(x * 2.0)

    def no_self_nested(self, x):
        f = lambda a: a * 2.0
        return tf.reduce_sum(sum(f(v) for v in (x,)))

    def shadowed(self, x):
        f = lambda self: self * 2.0
        return tf.reduce_sum(f(x))

    def reads_self(self, x):
        return tf.reduce_sum(x * self.k)

    def lambda_self(self, x):
        f = lambda a: a * self.k
        return tf.reduce_sum(f(x))

    def nested_self(self, x):
        def g(a):
            return a * self.k

        return tf.reduce_sum(g(x))

    def comprehension_self(self, x):
        return tf.reduce_sum([v * self.k for v in (x,)][0])

    def zero_super(self, x):
        return super().m(x)


def run(x):
    return (
        N().no_self(x)
        + N().no_self_nested(x)
        + N().shadowed(x)
        + N().reads_self(x)
        + N().lambda_self(x)
        + N().nested_self(x)
        + N().comprehension_self(x)
        + N().zero_super(x)
    )


for _ in range(50):
    run(tf.ones([3]))
"""


def test_hy445_claims_only_methods_whose_body_reads_the_receiver() -> None:
    verdicts = analyse(RECEIVER_CALLERS)
    codes = {name: {f.code for f in v.findings} for name, v in verdicts.items()}
    for name in ("no_self", "no_self_nested", "shadowed"):
        assert "HY445" not in codes[f"N.{name}"], (name, codes)
    for name in (*RECEIVER_READS, "nested_self"):
        assert "HY445" in codes[f"N.{name}"], (name, codes)
