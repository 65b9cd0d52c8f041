"""HY415: the text of a NumPy argument read with string methods or `re`.

The check's examples (hybridize/check_examples/HY415) run through test_check_examples; these
tests measure the claim behind it on the installed TensorFlow, and pin where the rule fires
and where it stays silent.
"""

from __future__ import annotations

import importlib.util
import textwrap

import pytest
from facts_helpers import analyse

from hybridize.analyzer.checks import check_of

PROGRAM = """
import re

import numpy as np
import tensorflow as tf

vocab = {"a": 1, "b": 2}


def encode(line):
    return tf.constant([vocab.get(w, 0) for w in line.decode("utf-8").split()])


def encode_batch(lines):
    return tf.stack([tf.constant(len(lines[0].split()))])


def label(name):
    return tf.one_hot(int(re.sub(r"\\D", "", name)), 10)


def encode_text(line):
    return tf.constant([vocab.get(w, 0) for w in line.split()])


def scale(x, mode):
    return x * 2.0 if mode.lower() == "double" else x


for line in np.array([b"a b", b"b a"] * 50):
    encode(line)
    label(np.load("names.npy")[0])
    encode_batch(np.load("lines.npy"))
    encode_text("a b")
    scale(np.ones(3, np.float32), "double")
"""


def _hy415(qualname: str) -> list[str]:
    v = analyse(textwrap.dedent(PROGRAM))[qualname]
    return [f.message for f in v.findings if f.code == "HY415"]


@pytest.mark.parametrize(
    ("qualname", "words"),
    [
        ("encode", "`.decode()` on `line`"),
        ("encode_batch", "`.split()` on `lines`"),  # an element of an array
        ("label", "searches `name` with `re.sub`"),
    ],
)
def test_text_of_a_numpy_argument_read_as_a_string_is_hy415(qualname: str, words: str) -> None:
    [message] = _hy415(qualname)
    assert words in message
    assert check_of("HY415").severity == "error"


@pytest.mark.parametrize("qualname", ["encode_text", "scale"])
def test_python_strings_stay_python_strings_and_are_not_concerned(qualname: str) -> None:
    assert _hy415(qualname) == []


@pytest.mark.tensorflow
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_a_traced_function_gets_numpy_text_as_a_string_tensor() -> None:
    """Measured under TF 2.21: a NumPy bytes scalar and an array of text are string tensors
    once traced, without `.decode()`/`.split()`; Python bytes stay bytes."""
    import numpy as np
    import tensorflow as tf

    def length(raw: bytes) -> tf.Tensor:
        return tf.strings.length(raw.decode("utf-8"))

    def words(lines: object) -> tf.Tensor:
        return tf.constant(len(lines[0].split()))  # type: ignore[index]

    scalar = np.array([b"ab"])[0]
    assert int(length(scalar)) == 2
    with pytest.raises(AttributeError, match="decode"):
        tf.function(length)(scalar)
    assert int(tf.function(length)(b"ab")) == 2
    lines = np.array([b"a b"])
    assert int(words(lines)) == 2
    with pytest.raises(AttributeError, match="split"):
        tf.function(words)(lines)
