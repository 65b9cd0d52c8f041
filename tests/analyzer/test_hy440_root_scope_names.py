"""HY440: a name TensorFlow checks only at a graph's root scope.

The check's examples (hybridize/check_examples/HY440) run through test_check_examples; these
tests pin the verdicts the rule gives and measure the claim behind it on the installed
TensorFlow: a name with a leading `_` (or a space) passes eagerly and fails at the root of a
tf.function's graph, passes inside another name scope; tf_keras's `Conv2D.call` names its
scope after the class (a private subclass fails compiled), Keras 3's does not.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from facts_helpers import analyse

from hybridize.analyzer.checks.hy440_invalid_root_scope_names import ROOT_SCOPE_NAME
from hybridize.project import Project, ProjectOptions

PROBE = """
import tensorflow as tf

keras = tf.keras
x = tf.ones([1, 5, 5, 1])


def nested(t):
    with tf.name_scope("outer"):
        return tf.add(t, t, name="_a")


def nested_space(t):
    with tf.name_scope("outer"):
        return tf.add(t, t, name="a b")


cases = {
    "underscore": lambda t: tf.add(t, t, name="_a"),
    "space": lambda t: tf.add(t, t, name="a b"),
    "public": lambda t: tf.add(t, t, name="a_b"),
    "nested": nested,
    "nestedspace": nested_space,
}

def compiled_call(base):
    return tf.function(lambda self, t: base.call(self, t))


for label, base in (("conv", keras.layers.Conv2D), ("convT", keras.layers.Conv2DTranspose)):
    for name in ("_Priv", "Pub"):
        cases[label + name] = type(name, (base,), {"call": compiled_call(base)})(1, 3)


def run(f):
    try:
        f(x)
        return "ok"
    except ValueError as error:
        return "ValueError" if "root scope" in str(error) else "other"


for label, f in cases.items():
    eager = run(f) if not label.startswith("conv") else "-"
    compiled = run(tf.function(f)) if not label.startswith("conv") else run(f)
    print(label, eager, compiled)
"""


def _measure(legacy: bool) -> dict[str, tuple[str, str]]:
    env = {**os.environ, "TF_USE_LEGACY_KERAS": "1" if legacy else "0", "TF_CPP_MIN_LOG_LEVEL": "3"}
    done = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [line.split(" ") for line in done.stdout.splitlines()]
    return {label: (eager, compiled) for label, eager, compiled in rows}


_TF = pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")


@pytest.mark.tensorflow
@_TF
@pytest.mark.skipif(importlib.util.find_spec("tf_keras") is None, reason="tf_keras absent")
def test_names_failing_the_pattern_fail_only_at_a_graphs_root_keras_2() -> None:
    measured = _measure(legacy=True)
    assert measured["underscore"] == ("ok", "ValueError")
    assert measured["space"] == ("ok", "ValueError")
    assert measured["public"] == ("ok", "ok")
    assert measured["nested"] == ("ok", "ok")
    assert measured["nestedspace"][0] == "ok" and measured["nestedspace"][1] != "ok"
    assert measured["conv_Priv"][1] == "ValueError"
    assert measured["convPub"][1] == "ok"
    assert measured["convT_Priv"][1] == "ok"  # Conv2DTranspose.call names no scope


@pytest.mark.tensorflow
@_TF
def test_keras_3_convolutions_name_no_scope() -> None:
    if importlib.util.find_spec("keras") is None:
        pytest.skip("Keras absent")
    measured = _measure(legacy=False)
    assert measured["underscore"] == ("ok", "ValueError")
    assert measured["conv_Priv"][1] == "ok"


@pytest.mark.parametrize(
    ("name", "valid"),
    [
        ("a_b", True),
        ("Net/dense", True),
        (".x", True),
        ("_a", False),
        ("a b", False),
        ("-a", False),
    ],
)
def test_the_pattern(name: str, valid: bool) -> None:
    """TensorFlow's root-scope pattern, as its error message states it."""
    assert bool(ROOT_SCOPE_NAME.match(name)) is valid


PROJECT = """
import tensorflow as tf


def named_by_caller(x, name):
    return tf.add(x, x, name=name)


def spaced(x):
    return tf.identity(x, "a b")


def public(x):
    with tf.name_scope("outer"):
        return tf.add(x, x, name="double")


def private_in_scope(x):
    with tf.name_scope("outer"):
        y = tf.add(x, x, name="_double")
    return y


def spaced_in_scope(x):
    with tf.name_scope("outer"):
        return tf.identity(x, "a b")


def private_after_scope(x):
    with tf.name_scope("outer"):
        y = tf.add(x, x, name="double")
    return tf.identity(y, name="_out")


def private_in_private_scope(x):
    with tf.name_scope("_outer"):
        return tf.add(x, x, name="_double")


class Base(tf.keras.layers.Conv2D):
    def call(self, inputs):
        return super().call(inputs)


class _Private(Base):
    pass


class Public(tf.keras.layers.Conv2D):
    def call(self, inputs):
        return super().call(inputs)


class Transposed(tf.keras.layers.Conv2DTranspose):
    def call(self, inputs):
        return super().call(inputs)


class _PrivateTransposed(Transposed):
    pass


for _ in range(10):
    named_by_caller(tf.ones([2]), "n")
    spaced(tf.ones([2]))
    public(tf.ones([2]))
    private_in_scope(tf.ones([2]))
    spaced_in_scope(tf.ones([2]))
    private_after_scope(tf.ones([2]))
    private_in_private_scope(tf.ones([2]))
    _Private(1, 3)(tf.ones([1, 5, 5, 1]))
    Public(1, 3)(tf.ones([1, 5, 5, 1]))
    _PrivateTransposed(1, 3)(tf.ones([1, 5, 5, 1]))
"""


def _hy440(qualname: str) -> list[str]:
    return [f.message for f in analyse(PROJECT)[qualname].findings if f.code == "HY440"]


def test_a_positional_name_with_a_space_blocks() -> None:
    """`tf.identity(x, "a b")`: the second parameter of `identity` is `name`."""
    assert _hy440("spaced")


def test_a_conv_call_whose_subclass_is_private_blocks() -> None:
    assert any("_Private" in m for m in _hy440("Base.call"))


@pytest.mark.parametrize(
    "qualname",
    ["named_by_caller", "public", "private_in_scope", "Public.call", "Transposed.call"],
)
def test_names_not_known_to_fail_do_not_block(qualname: str) -> None:
    """A parameter (unknown: not blocked), valid literals, a name valid inside the valid
    scope the function opens around it (measured above), a public class, and a transposed
    convolution (its `call` names no scope after the class: measured above for Keras 2)."""
    assert _hy440(qualname) == []


BASE = """
import tensorflow as tf


class Ensemble(tf.keras.layers.Conv2D):
    def call(self, inputs):
        return super().call(inputs * 2.0)


for _ in range(10):
    Ensemble(1, 3)(tf.ones([1, 5, 5, 1]))
"""

SUBCLASS = """
from base import Ensemble


class NoFastWeights(Ensemble):
    pass
"""


def test_renaming_a_subclass_in_another_module_decides_the_base_again(tmp_path: Path) -> None:
    """The finding on `Ensemble.call` reads a subclass's name in a module that neither calls
    it nor is called by it: a class renamed changes the module's interface, and the language
    server's incremental verdicts follow the rename as an analysis from scratch does."""
    (tmp_path / "base.py").write_text(textwrap.dedent(BASE))
    (tmp_path / "sub.py").write_text(textwrap.dedent(SUBCLASS))
    project = Project.open(tmp_path, ProjectOptions(use_cache=False))

    def hy440() -> list[str]:
        [verdict] = [v for v in project.results().functions if v.qualname == "Ensemble.call"]
        return [f.code for f in verdict.findings if f.code == "HY440"]

    assert hy440() == []
    project.update(tmp_path / "sub.py", textwrap.dedent(SUBCLASS).replace("NoFast", "_NoFast"))
    assert hy440() == ["HY440"]
    project.update(tmp_path / "sub.py", textwrap.dedent(SUBCLASS))
    assert hy440() == []


@pytest.mark.parametrize(
    "qualname", ["spaced_in_scope", "private_after_scope", "private_in_private_scope"]
)
def test_a_scope_the_function_opens_lifts_only_the_root_rule(qualname: str) -> None:
    """Inside a valid scope a space still fails (measured above); an op after the block is
    at the root again; a scope whose own name fails the root rule opens nothing valid."""
    assert _hy440(qualname)
