"""HY409 on a dict argument whose keys do not order among themselves.

Found on tensorflow-constrained-optimization 0.2 (held out): `update_ops_fn(variable,
memoizer)`, where `memoizer` is a dict keyed by `"global_step"` and by `(DeferredVariable,
self)`; decorated, 18 tests failed with "TypeError: '<' not supported between instances of
'tuple' and 'str'": `tf.function` sorts a dict argument's keys to type it. The dict is
followed to the callers that pass it and to the functions it is passed to, where its keys
are written. The last test measures the claim on the installed TensorFlow.
"""

from __future__ import annotations

import importlib.util

import pytest
from facts_helpers import analyse

MEMOIZED = """
import tensorflow as tf

GLOBAL_STEP_KEY = "global_step"


class Deferred:
    def __init__(self, update_fn):
        self._update_fn = update_fn

    def value(self, memoizer):
        key = (Deferred, self)
        if key not in memoizer:
            memoizer[key] = tf.ones((3,))
        return memoizer[key]

    def update(self, memoizer):
        return self._update_fn(self.value(memoizer), memoizer)


def update_fn(running, memoizer):
    step = tf.cast(memoizer[GLOBAL_STEP_KEY], tf.float32)
    return tf.reduce_sum(running * (1.0 / (step + 1.0)))


def run():
    memoizer = {GLOBAL_STEP_KEY: tf.constant(0)}
    return Deferred(update_fn).update(memoizer)
"""
"""A memo dict keyed by a string where the function reads it and by a tuple where another
method of the flow does (the TFCO pattern)."""


def _hy409(verdict_findings: list) -> list[str]:
    return [f.message for f in verdict_findings if f.code == "HY409"]


def test_a_dict_keyed_by_a_string_and_a_tuple_is_refused_naming_both() -> None:
    verdict = analyse(MEMOIZED)["update_fn"]
    (message,) = _hy409(verdict.findings)
    assert not verdict.passes
    assert "`memoizer` is a dict keyed by a str (in `update_fn`)" in message
    assert "by a tuple (in `Deferred.value`)" in message
    assert "'<' not supported" in message


@pytest.mark.parametrize(
    ("other_key", "expected"),
    [
        ("(Deferred, self)", True),
        ("Deferred", True),
        ('"value"', False),
        # a number or None indexes a list or a tensor as often: not claimed
        ("3", False),
        ("None", False),
    ],
)
def test_keys_of_kinds_that_do_not_order_are_refused(other_key: str, expected: bool) -> None:
    """A string key with a tuple or a class key fails; two string keys order. A number or
    None key fails as well (measured below) but is not claimed: it indexes lists and
    tensors too (tf-models' `model_outputs[0]` on a list of outputs)."""
    source = MEMOIZED.replace("key = (Deferred, self)", f"key = {other_key}")
    assert bool(_hy409(analyse(source)["update_fn"].findings)) is expected, other_key


def test_a_tensor_indexed_by_numbers_and_a_dict_of_one_key_kind_are_not_refused() -> None:
    """`running[0]` indexes a tensor (nothing is sorted), and a dict keyed by tuples only
    orders (the keys compare element by element)."""
    source = MEMOIZED.replace("memoizer[GLOBAL_STEP_KEY]", "running[0] + memoizer[(1, 2)]")
    source = source.replace("{GLOBAL_STEP_KEY: tf.constant(0)}", "{}")
    source = source.replace("key = (Deferred, self)", "key = (3, 4)")
    verdicts = analyse(source)
    assert not _hy409(verdicts["update_fn"].findings)
    assert verdicts["update_fn"].passes, verdicts["update_fn"].findings


@pytest.mark.parametrize("commonest", ["(1, 2)", '"name"'])
def test_a_mixed_flow_is_found_whichever_kind_most_places_key_by(commonest: str) -> None:
    """Only the places from which a flow may meet a key of a kind other than the commonest
    are followed (`_reaching_rarer_keys`): the flow of `memoizer` still meets both of its
    kinds, back through the caller that passes it (`Deferred.update`) and down to the
    method it passes it to (`Deferred.value`), when more unrelated dicts are keyed by a
    tuple or by a string than by the other; a dict of those keyed by one kind alone is
    not claimed."""
    unrelated = "".join(
        f"\n\ndef table_{i}(table):\n    return table[{commonest}] * 2.0\n" for i in range(3)
    )
    verdicts = analyse(MEMOIZED + unrelated)
    assert _hy409(verdicts["update_fn"].findings)
    assert _hy409(verdicts["Deferred.value"].findings)
    assert not any(_hy409(verdicts[f"table_{i}"].findings) for i in range(3))


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_tf_function_fails_on_a_dict_of_keys_that_do_not_order() -> None:
    """Measured: tf.function sorts a dict argument's keys; mixed kinds raise, one kind works."""
    import tensorflow as tf

    @tf.function
    def f(x: object, memo: object) -> object:
        return x

    class Key:
        pass

    x = tf.constant(1.0)
    for keys in ([("a", 1), "b"], [1, "b"], [None, "b"], [Key, "b"], [(Key, 1), "b"]):
        with pytest.raises(TypeError, match="'<' not supported"):
            f(x, dict.fromkeys(keys, 1.0))
    for keys in (["a", "b"], [("a", 1), ("b", 2)], [1, 2.5]):
        f(x, dict.fromkeys(keys, 1.0))


def test_a_key_taken_from_iterating_the_dict_is_not_typed() -> None:
    """`for level in boxes: boxes[level]` (tf-models' `MaskRCNNModel._call_box_outputs`):
    the analysis does not know the dict's keys, only the keys the code writes."""
    source = MEMOIZED.replace(
        "        return memoizer[key]",
        "        for other in memoizer:\n            memoizer[other] = memoizer[other]\n"
        "        return memoizer[GLOBAL_STEP_KEY]",
    ).replace("        key = (Deferred, self)\n", "        key = GLOBAL_STEP_KEY\n")
    assert "for other in memoizer" in source
    assert not _hy409(analyse(source)["update_fn"].findings)
