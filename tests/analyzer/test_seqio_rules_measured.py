"""Two classes seqio 0.0.20 (the sixteenth held-out TensorFlow library) found, measured.

1. A method compiled on a hashable base class runs with `self` an instance of whichever
   subclass calls it. seqio's `Vocabulary.encode_tf` / `decode_tf` are defined on the base
   class, and five of its six vocabularies (SentencePiece, Byte, PassThrough, the two
   codepoint ones, BertWordPiece) define `__eq__` without `__hash__`: compiled, every call
   on them fails with "TypeError: unhashable type: 'SentencePieceVocabulary'", since a
   `tf.function` method keys its traces on `self`. HY409 claimed only a method of an
   unhashable class itself; now also one that an unhashable project subclass inherits, or
   overrides and reaches through `super()`.
2. `Vocabulary.decode_tf` special-cases an empty input on its static shape, `if ids.shape ==
   (0,): return b""`. With `reduce_retracing=True` (HY014: call sites pass (1,) and (2,))
   the second shape traces a graph for (None,), where the comparison is False: an empty `ids`
   then runs the general path (`ids[0]`: InvalidArgumentError) where the eager call returns
   b"". The argument is now not written where the body compares a varying parameter's whole
   static shape (`p.shape == ...`, `p.shape.num_elements() == 0`, `p.shape.is_fully_defined()`):
   a plain `tf.function` traces each shape exactly, as the eager call sees it.
3. `UnigramVocabulary._decode_tf` joins `tf.gather(self._unigram_by_id_tf, ids)`, a tensor,
   with `tf.strings.join(..., " ")`, which takes a list of tensors: eagerly the op iterates
   the tensor's rows; traced it raises "Expected list for 'inputs' argument to 'string_join'
   Op". HY403 (a tensor iterated in Python) now also claims a tensor passed where
   `tf.strings.join`, `tf.add_n`, `tf.dynamic_stitch` or `tf.identity_n` take a list.
"""

from __future__ import annotations

import importlib.util

import pytest
from facts_helpers import analyse, run_probe

SUBCLASS_PROBE = """
import tensorflow as tf


class Base:
    @tf.function
    def encode(self, s):
        return self._encode(s)

    def _encode(self, s):
        return s * 2


class Inherits(Base):
    def __eq__(self, other):
        return isinstance(other, Inherits)


class Hashes(Base):
    def __eq__(self, other):
        return isinstance(other, Hashes)

    def __hash__(self):
        return 1


def run(obj):
    try:
        return str(int(obj.encode(tf.constant(2))))
    except Exception as error:
        return type(error).__name__


base, inherits, hashes = Base(), Inherits(), Hashes()
print("base", run(base))
print("inherits", run(inherits))
print("hashes", run(hashes))
"""

SHAPE_PROBE = """
import tensorflow as tf


def decode(ids):
    if ids.shape == (0,):
        return tf.constant(-1)
    return ids[0]


def count(ids):
    if ids.shape.num_elements() == 0:
        return tf.constant(-1)
    return ids[0]


def run(fn):
    out = []
    for values in ([5], [5, 6], []):
        try:
            out.append(str(int(fn(tf.constant(values, dtype=tf.int32)))))
        except Exception as error:
            out.append(type(error).__name__)
    return " ".join(out)


print("eager", run(decode), run(count))
print("relaxed", run(tf.function(decode, reduce_retracing=True)), run(tf.function(count, reduce_retracing=True)))
print("plain", run(tf.function(decode)), run(tf.function(count)))
"""


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_a_base_class_method_compiled_fails_on_an_unhashable_subclass_instance() -> None:
    measured = run_probe(SUBCLASS_PROBE)
    assert measured["base"] == "4", measured
    assert measured["inherits"] == "TypeError", measured
    # a subclass that hashes again is served
    assert measured["hashes"] == "4", measured


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_a_static_shape_comparison_is_decided_on_the_relaxed_shape() -> None:
    measured = run_probe(SHAPE_PROBE)
    assert measured["eager"] == "5 5 -1 5 5 -1", measured
    # relaxed to (None,) after the second call: the empty input takes the general path
    assert measured["relaxed"] == "5 5 InvalidArgumentError 5 5 InvalidArgumentError", measured
    # traced per shape, the comparison sees the call's own shape
    assert measured["plain"] == "5 5 -1 5 5 -1", measured


VOCABULARIES = """
import tensorflow as tf


class Vocabulary:
    def encode_tf(self, s):
        return self._encode_tf(s)

    def _encode_tf(self, s):
        return tf.strings.unicode_decode(s, "UTF-8")


class ByteVocabulary(Vocabulary):
    def __eq__(self, other):
        return isinstance(other, ByteVocabulary)


class Hashed(Vocabulary):
    def __eq__(self, other):
        return isinstance(other, Hashed)

    __hash__ = object.__hash__


class Plain:
    def encode_tf(self, s):
        return tf.strings.unicode_decode(s, "UTF-8")


class PlainChild(Plain):
    pass


class Base2:
    def encode_tf(self, s):
        return tf.strings.unicode_decode(s, "UTF-8")


class Overrides(Base2):
    def __eq__(self, other):
        return isinstance(other, Overrides)

    def encode_tf(self, s):
        return tf.strings.unicode_decode(s, "UTF-8")


class Base3:
    def encode_tf(self, s):
        return tf.strings.unicode_decode(s, "UTF-8")


class CallsSuper(Base3):
    def __eq__(self, other):
        return isinstance(other, CallsSuper)

    def encode_tf(self, s):
        return super().encode_tf(s)


def run(s):
    return (
        ByteVocabulary().encode_tf(s),
        Hashed().encode_tf(s),
        PlainChild().encode_tf(s),
        Overrides().encode_tf(s),
        CallsSuper().encode_tf(s),
    )


run(tf.constant("ab"))
"""


def _codes(verdicts: dict, qualname: str) -> set[str]:
    return {f.code for f in verdicts[qualname].findings}


def test_hy409_claims_a_method_an_unhashable_subclass_inherits() -> None:
    verdicts = analyse(VOCABULARIES)
    # INVALID: `ByteVocabulary` inherits `encode_tf` and its `_encode_tf` and does not hash;
    # `CallsSuper` reaches `Base3.encode_tf` through `super()`
    for qualname in ("Vocabulary.encode_tf", "Vocabulary._encode_tf", "Base3.encode_tf"):
        assert "HY409" in _codes(verdicts, qualname), (qualname, verdicts[qualname].findings)
        assert not verdicts[qualname].passes, qualname
    message = next(
        f.message for f in verdicts["Vocabulary.encode_tf"].findings if f.code == "HY409"
    )
    assert "subclass `ByteVocabulary`" in message, message
    # VALID: subclasses that hash (by identity, or again), or that override the method
    # without reaching the base's
    for qualname in ("Plain.encode_tf", "Base2.encode_tf"):
        assert "HY409" not in _codes(verdicts, qualname), (qualname, verdicts[qualname].findings)


SHAPES = """
import tensorflow as tf


def decode(ids):
    if ids.shape == (0,):
        return tf.constant(-1)
    return ids[0] + 1


def count(ids):
    if ids.shape.num_elements() == 0:
        return tf.constant(-1)
    return ids[0] + 1


def defined(ids):
    if not ids.get_shape().is_fully_defined():
        return tf.constant(-1)
    return ids[0] + 1


def dtype_only(ids):
    if ids.dtype == tf.int32:
        return ids[0] + 1
    return ids[0] - 1


def run():
    one, two = tf.constant([5]), tf.constant([5, 6])
    decode(one), count(one), defined(one), dtype_only(one)
    decode(two), count(two), defined(two), dtype_only(two)


run()
"""


def test_hy014_writes_no_reduce_retracing_where_the_whole_static_shape_is_compared() -> None:
    verdicts = analyse(SHAPES)
    # INVALID for the argument: the branch on the static shape must see each call's shape
    for qualname in ("decode", "count", "defined"):
        assert "HY014" not in _codes(verdicts, qualname), (qualname, verdicts[qualname].findings)
    # VALID: a dtype test is the same on every shape; the argument is written
    assert "HY014" in _codes(verdicts, "dtype_only"), verdicts["dtype_only"].findings


LIST_PROBE = """
import tensorflow as tf

words = tf.constant(["a", "b"])
rows = tf.constant([[1.0, 2.0], [3.0, 4.0]])
cases = {
    "join": lambda: tf.strings.join(words, " "),
    "add_n": lambda: tf.add_n(rows),
    "stitch": lambda: tf.dynamic_stitch(tf.constant([[0, 1]]), rows[None]),
    "identity_n": lambda: tf.identity_n(rows),
    "concat": lambda: tf.concat(rows, 0),
    "stack": lambda: tf.stack(rows),
}


def run(fn):
    try:
        fn()
        return "ok"
    except Exception as error:
        return type(error).__name__


for name, case in cases.items():
    print(name, run(case), run(tf.function(case)))
"""


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_a_tensor_in_place_of_a_list_of_tensors_works_only_eagerly() -> None:
    measured = run_probe(LIST_PROBE)
    assert measured["join"] == "ok TypeError", measured
    assert measured["add_n"] == "ok OperatorNotAllowedInGraphError", measured
    assert measured["stitch"] == "ok TypeError", measured
    assert measured["identity_n"] == "ok TypeError", measured
    # a single tensor is taken alike in both modes
    assert measured["concat"] == "ok ok", measured
    assert measured["stack"] == "ok ok", measured


JOINS = """
import tensorflow as tf
import tensorflow.compat.v2 as tf2

WORDS = tf.constant(["PAD", "a", "b"])


class Unigrams:
    def __init__(self, words):
        self.words = tf2.constant(words)

    def decode(self, ids):
        return tf2.strings.join(tf2.gather(self.words, ids), " ")


def join_words(ids):
    return tf.strings.join(tf.gather(WORDS, ids), " ")


def sum_rows(m):
    return tf.add_n(inputs=tf.abs(m)) * 2.0


def sum_losses(losses):
    losses = tf.nest.flatten(losses)
    return tf.add_n(losses)


def join_list(ids):
    return tf.strings.join([tf.gather(WORDS, ids), tf.gather(WORDS, ids)], " ")


def concat_rows(m):
    return tf.concat(m, 0) * 2.0


join_words(tf.constant([1, 2]))
Unigrams(["PAD", "a"]).decode(tf.constant([1]))
sum_rows(tf.ones((2, 2)))
sum_losses({"a": tf.ones(()), "b": tf.ones(())})
join_list(tf.constant([1, 2]))
concat_rows(tf.ones((2, 2)))
"""


def test_hy403_claims_a_tensor_passed_where_an_op_takes_a_list() -> None:
    verdicts = analyse(JOINS)
    # INVALID: a tensor as `inputs` of `tf.strings.join` / `tf.add_n`, in any spelling
    # (seqio imports `tensorflow.compat.v2 as tf`)
    for qualname in ("join_words", "sum_rows", "Unigrams.decode"):
        assert "HY403" in _codes(verdicts, qualname), (qualname, verdicts[qualname].findings)
        assert not verdicts[qualname].passes, qualname
    # VALID: a list of tensors (also as `tf.nest.flatten` gives it: tf-agents'
    # `BehavioralCloningAgent._discrete_loss`); an op that takes a single tensor alike in
    # both modes
    for qualname in ("join_list", "concat_rows", "sum_losses"):
        assert "HY403" not in _codes(verdicts, qualname), (qualname, verdicts[qualname].findings)
        assert verdicts[qualname].passes, (qualname, verdicts[qualname].findings)
