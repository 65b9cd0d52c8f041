"""Arguments handed on with `*args`/`**kwargs`: a callee that changes one of them changes the
caller's object, and `tf.function` refuses that while tracing ("should not modify its Python
input arguments", ValueError; measured on TF 2.21). tf-models' transformer
`PrePostProcessingWrapper.call(x, *args, **kwargs)` hands its caller's `cache=` dict on to an
attention layer that writes `cache["k"]`: decorated, the transformer's decoding broke.

The tuple and dict the parameters themselves hold are made by each call: `kwargs.pop("name")`
changes nothing of the caller's (measured too)."""

from __future__ import annotations

from facts_helpers import verdict

SOURCE = """
import tensorflow as tf


class Attention(tf.keras.layers.Layer):
    def call(self, x, training, cache=None):
        if cache is not None:
            cache["k"] = tf.concat([cache["k"], x], axis=1)
            x = cache["k"]
        return x * 2.0


class Wrapper(tf.keras.layers.Layer):
    def __init__(self, layer):
        super().__init__()
        self.layer = layer

    def call(self, x, *args, **kwargs):
        y = self.layer(x, *args, **kwargs)
        return x + y


class Named(tf.keras.layers.Layer):
    def call(self, x, **kwargs):
        kwargs.pop("name", None)
        return x * 3.0


def write_cache(x, cache):
    cache["x"] = x
    return x


def forward_positionally(x, *args):
    return write_cache(x, *args) * 2.0


def collect(x, **options):
    options["cache"]["x"] = x
    return x * 2.0


def decode(x, cache):
    wrapper = Wrapper(Attention())
    named = Named()
    for _ in range(3):
        x = wrapper(x, training=False, cache=cache)
        x = named(x, name="n")
        x = forward_positionally(x, cache)
    return x


def fill(x, cache):
    return collect(x, cache=cache, scale=2.0)


decode(tf.ones([1, 1]), {"k": tf.zeros([1, 0])})
fill(tf.ones([1, 1]), {})
"""


def _mutates(qualname: str) -> list[str]:
    v = verdict(SOURCE, qualname)
    return [f.message for f in v.findings if f.code == "HY107"]


def test_a_keyword_argument_forwarded_by_double_star_and_written_by_the_callee() -> None:
    assert any("calls `Attention.call`, which mutates" in m for m in _mutates("Wrapper.call"))
    assert not verdict(SOURCE, "Wrapper.call").passes


def test_a_positional_argument_forwarded_by_star_and_written_by_the_callee() -> None:
    assert any("calls `write_cache`, which mutates" in m for m in _mutates("forward_positionally"))


def test_the_caller_of_a_forwarding_function_sees_the_mutation_of_its_argument() -> None:
    assert any("`cache`" in m for m in _mutates("decode"))
    assert any(
        "calls `collect`, which mutates an object passed in as `cache`" in m
        for m in _mutates("fill")
    )


def test_changing_the_kwargs_dict_itself_is_no_mutation_of_the_callers() -> None:
    assert _mutates("Named.call") == []
    assert verdict(SOURCE, "Named.call").facts.has_python_side_effects is False
