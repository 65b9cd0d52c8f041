"""The arguments of `tf.function`, however they are spelled.

`tf.function(func=None, input_signature=None, autograph=True, jit_compile=None,
reduce_retracing=False, experimental_implements=None, experimental_autograph_options=None,
experimental_attributes=None, experimental_relax_shapes=None, experimental_compile=None,
experimental_follow_type_hints=None)`: the deprecated `experimental_relax_shapes` and
`experimental_compile` are reported under their current names.
"""

from __future__ import annotations

from collections.abc import Iterable

TF_FUNCTION_POSITIONAL = (
    "func",
    "input_signature",
    "autograph",
    "jit_compile",
    "reduce_retracing",
    "experimental_implements",
    "experimental_autograph_options",
    "experimental_attributes",
    "experimental_relax_shapes",
    "experimental_compile",
    "experimental_follow_type_hints",
)
DEPRECATED_ALIASES = {
    "experimental_relax_shapes": "reduce_retracing",
    "experimental_compile": "jit_compile",
}


def argument_names(positional: int, keywords: Iterable[str]) -> set[str]:
    """Names of the tf.function parameters a call supplies, deprecated names translated."""
    names = [TF_FUNCTION_POSITIONAL[i] for i in range(min(positional, len(TF_FUNCTION_POSITIONAL)))]
    names.extend(keywords)
    return {DEPRECATED_ALIASES.get(name, name) for name in names}
