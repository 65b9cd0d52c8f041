"""PyTorch's dtype vocabulary and the dtypes of its ops' results: `TORCH`'s
`Framework.dtype_named` and `Framework.result_dtype`.

Only what a call says outright: a `dtype=` naming one of `torch`'s dtypes (`torch.float64`,
`torch.long`), else the default float dtype of the float factories. Anything else stays
unknown (`None`), which is sound.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from hybridize.analyzer.facts.values import is_ext_atom

from .shapes import Atom

DTYPES: dict[str, str] = {
    "float16": "float16",
    "half": "float16",
    "bfloat16": "bfloat16",
    "float32": "float32",
    "float": "float32",
    "float64": "float64",
    "double": "float64",
    "int8": "int8",
    "int16": "int16",
    "short": "int16",
    "int32": "int32",
    "int": "int32",
    "int64": "int64",
    "long": "int64",
    "uint8": "uint8",
    "bool": "bool",
    "complex64": "complex64",
    "cfloat": "complex64",
    "complex128": "complex128",
    "cdouble": "complex128",
}
"""`torch.<attribute>` dtypes, by the dtype each is (`torch.long` is int64)."""

FLOAT_FACTORIES = frozenset({"zeros", "ones", "eye", "normal", "uniform"})
"""Factories whose result has the default float dtype (float32) unless `dtype=` says
otherwise."""


def dtype_named(atoms: frozenset[Atom]) -> str | None:
    """The dtype a `dtype=` argument names (`torch.float64`), if exactly one."""
    found = {
        DTYPES[name]
        for atom in atoms
        if is_ext_atom(atom)
        and atom[1].startswith("torch.")
        and (name := atom[1].removeprefix("torch.")) in DTYPES
    }
    return found.pop() if len(found) == 1 else None


def result_dtype(
    api_name: str,
    args: Sequence[frozenset[Atom]],
    kwargs: Mapping[str, frozenset[Atom]],
) -> str | None:
    """The dtype of the tensor an op returns when the call says it: its `dtype=`, else
    float32 for a float factory (`torch.zeros(3)`); None when unknown."""
    dtype = dtype_named(kwargs["dtype"]) if "dtype" in kwargs else None
    if dtype is None and api_name.rsplit(".", 1)[-1] in FLOAT_FACTORIES:
        dtype = "float32"
    return dtype
