"""Cheap dtype and shape rules for the TF ops that create tensors.

Only what can be read off the call: a `dtype=` argument naming a TF dtype, the Python type of
a literal given to `tf.constant`. Shapes need ordered literal arguments and arrive with input
signature inference; until then they stay unknown (`None`), which is always sound.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

Atom = tuple

TF_DTYPES = frozenset(
    {
        "float16",
        "bfloat16",
        "float32",
        "float64",
        "half",
        "double",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "bool",
        "string",
        "complex64",
        "complex128",
    }
)
ALIASES = {"half": "float16", "double": "float64"}
LITERAL_DTYPES = {"float": "float32", "int": "int32", "bool": "bool", "str": "string"}


def dtype_of(atoms: frozenset[Atom]) -> str | None:
    """The TF dtype a `dtype=` argument names (`tf.float32`, `'float32'`), if exactly one."""
    found: set[str] = set()
    for atom in atoms:
        if atom[0] == "ext" and atom[1].startswith("tensorflow."):
            name = atom[1].rsplit(".", 1)[-1]
            if name in TF_DTYPES:
                found.add(ALIASES.get(name, name))
        elif atom[0] == "lit" and atom[1] == "str" and atom[2] in TF_DTYPES:
            found.add(ALIASES.get(atom[2], atom[2]))
    return found.pop() if len(found) == 1 else None


def infer_spec(
    api_name: str, args: Sequence[frozenset[Atom]], kwargs: Mapping[str, frozenset[Atom]]
) -> tuple[str | None, tuple[int | None, ...] | None] | None:
    """(dtype, shape) of the tensor a creating op returns, or None when nothing is known."""
    dtype = dtype_of(kwargs["dtype"]) if "dtype" in kwargs else None
    short = api_name.rsplit(".", 1)[-1]
    if dtype is None and short in ("constant", "convert_to_tensor", "Variable") and args:
        literal_types = {_literal_type(a) for a in args[0]}
        if len(literal_types) == 1 and (only := literal_types.pop()) is not None:
            dtype = LITERAL_DTYPES.get(only)
    if dtype is None and short in ("cast", "zeros", "ones", "constant") and len(args) > 1:
        dtype = dtype_of(args[1])
    if dtype is None and short in ("zeros", "ones", "eye", "normal", "uniform", "truncated_normal"):
        dtype = "float32"
    if dtype is None and _preserves_dtype(api_name, short):
        dtype = _common_dtype(args)
    if dtype is None:
        return None
    return dtype, None


DTYPE_CHANGING = frozenset(
    {
        "cast",
        "saturate_cast",
        "bitcast",
        "argmax",
        "argmin",
        "shape",
        "shape_n",
        "size",
        "rank",
        "one_hot",
        "range",
        "where",
        "top_k",
        "unique",
        "histogram_fixed_width",
        "count_nonzero",
        "in_top_k",
        "confusion_matrix",
        "complex",
        "real",
        "imag",
        "angle",
        "string_to_number",
        "as_string",
        "fill",
        "searchsorted",
        "bincount",
    }
)
"""TF ops whose result dtype is not the dtype of their tensor arguments."""


def _preserves_dtype(api_name: str, short: str) -> bool:
    """Elementwise math, reductions, reshapes and linear algebra keep their input's dtype."""
    if not api_name.startswith("tensorflow.") or short in DTYPE_CHANGING:
        return False
    comparisons = {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal"}
    return not (short.startswith(("is_", "logical_", "arg")) or short in comparisons)


def _common_dtype(args: Sequence[frozenset[Atom]]) -> str | None:
    dtypes = {
        a[1] for atoms in args for a in atoms if a[0] in ("tensor", "variable") and a[1] is not None
    }
    return dtypes.pop() if len(dtypes) == 1 else None


def _literal_type(atom: Atom, depth: int = 0) -> str | None:
    if atom[0] == "lit":
        return str(atom[1])
    if atom[0] == "seq" and depth < 4:
        types = {_literal_type(a, depth + 1) for a in atom[2]}
        if types == {"int", "float"}:
            return "float"
        return types.pop() if len(types) == 1 else None
    return None


NUMPY_FLOAT64_DEFAULTS = frozenset(
    {
        "zeros",
        "ones",
        "empty",
        "full",
        "linspace",
        "eye",
        "identity",
        "logspace",
        "normal",
        "uniform",
        "standard_normal",
        "random",
        "rand",
        "randn",
        "random_sample",
        "multivariate_normal",
        "exponential",
        "gamma",
        "beta",
        "lognormal",
        "laplace",
    }
)
"""NumPy creators and random draws whose result is float64 unless told otherwise."""

NUMPY_DTYPE_PRESERVING = frozenset(
    {
        "mean",
        "std",
        "var",
        "sum",
        "max",
        "min",
        "clip",
        "abs",
        "sqrt",
        "exp",
        "log",
        "concatenate",
        "stack",
        "vstack",
        "hstack",
        "reshape",
        "transpose",
        "take",
        "dot",
        "matmul",
        "copy",
        "squeeze",
        "expand_dims",
        "tile",
        "repeat",
        "flatten",
        "ravel",
        "maximum",
        "minimum",
        "where",
        "cumsum",
        "diff",
        "outer",
        "tanh",
        "sin",
        "cos",
    }
)
"""NumPy functions and methods whose result keeps the dtype of their (first) array."""


def numpy_dtype_of(atoms: frozenset[Atom]) -> str | None:
    """The dtype a `dtype=`/`astype` argument names: np.float32, tf.float32, 'float32'."""
    found: set[str] = set()
    for atom in atoms:
        if atom[0] == "ext":
            name = atom[1].rsplit(".", 1)[-1]
            if name in TF_DTYPES:
                found.add(ALIASES.get(name, name))
            elif name == "float_":
                found.add("float64")
        elif atom[0] == "lit" and atom[1] == "str" and atom[2] in TF_DTYPES:
            found.add(ALIASES.get(atom[2], atom[2]))
    return found.pop() if len(found) == 1 else None


def _array_dtype(atoms: frozenset[Atom]) -> str | None:
    dtypes = {a[1] for a in atoms if a[0] in ("numpy", "tensor", "variable")}
    return dtypes.pop() if len(dtypes) == 1 else None


def numpy_dtype(
    api_name: str,
    args: Sequence[frozenset[Atom]],
    kwargs: Mapping[str, frozenset[Atom]],
    receiver: frozenset[Atom],
) -> str | None:
    """The dtype of the NumPy array an API call returns, when the call says it.

    NumPy defaults to float64 where TensorFlow defaults to float32: an array made with the
    defaults and handed to a traced function becomes a float64 tensor, which then meets
    float32 tensors (the conflicting-coercion hazard).
    """
    if "dtype" in kwargs:
        return numpy_dtype_of(kwargs["dtype"])
    short = api_name.rsplit(".", 1)[-1]
    if short == "astype" and args:
        return numpy_dtype_of(args[0])
    if short == "numpy" and receiver:
        return _array_dtype(receiver)
    if short in ("array", "asarray") and args:
        literal = {_literal_type(a) for a in args[0]}
        if literal == {"float"}:
            return "float64"
        if literal == {"int"}:
            return "int64"
        return _array_dtype(args[0])
    if short in NUMPY_FLOAT64_DEFAULTS and (
        api_name.startswith("numpy.random") or api_name.count(".") == 1
    ):
        return "float64"
    if short in NUMPY_DTYPE_PRESERVING:
        source = receiver if receiver else (args[0] if args else frozenset())
        return _array_dtype(source)
    return None
