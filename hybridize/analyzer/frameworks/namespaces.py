"""Which library's tables answer a qualified API name, and its canonical spelling.

A name written after import resolution may use one of a framework's alternative spellings
(`tensorflow.keras.layers.Dense` is `keras.layers.Dense`); its top-level package then says
whose tables answer it: the value of `ApiInfo.framework` ("tensorflow", "keras", "torch",
"numpy", "scipy", or "python" for the standard library and what the tables know of other
libraries).
"""

from __future__ import annotations

from . import python_stdlib, tensorflow_rules, torch_rules

_NAMESPACE_OF_ROOT: dict[str, str] = {
    **tensorflow_rules.API_ROOTS,
    "numpy": "numpy",
    "scipy": "scipy",
    **torch_rules.API_ROOTS,
}

PYTHON_NAMESPACE = "python"
"""The namespace of the standard library (and of the third-party names the tables know)."""


def normalise(name: str) -> str:
    """The canonical spelling of a qualified name (`tensorflow.keras.X` -> `keras.X`; a bare
    builtin `print` -> `builtins.print`)."""
    name = name.strip()
    for _ in range(3):
        if name in tensorflow_rules.API_EXACT_REWRITES:
            return tensorflow_rules.API_EXACT_REWRITES[name]
        for prefix, replacement in tensorflow_rules.API_PREFIX_REWRITES:
            if name.startswith(prefix):
                name = replacement + name[len(prefix) :]
                break
        else:
            break
    if "." not in name and name in python_stdlib.BUILTIN_NAMES:
        return "builtins." + name
    return name


def namespace_of(name: str) -> str:
    """The `ApiInfo.framework` of a (normalised) qualified name: its package's tables."""
    return _NAMESPACE_OF_ROOT.get(name.split(".", 1)[0], PYTHON_NAMESPACE)


def canonical_external(dotted: str) -> str:
    """A resolved reference outside the project in its one spelling among a framework's
    several (`tensorflow.keras.Model` -> `keras.Model`)."""
    return tensorflow_rules.keras_spelling(dotted)
