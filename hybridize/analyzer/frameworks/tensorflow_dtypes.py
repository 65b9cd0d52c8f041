"""TensorFlow's dtype vocabulary and the dtypes of its ops' results: `TENSORFLOW`'s
`Framework.dtype_named` and `Framework.result_dtype`.

What can be read off a call: a `dtype=` argument (`tf.float32`, `'float32'`), the Python type
and nesting of a literal given to `tf.constant` (TensorFlow converts a Python int to int32), the
tensors an op keeps the dtype of. Anything else stays unknown (`None`), which is sound: an
unknown dtype only makes a signature less specific.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from hybridize.analyzer.facts.values import NONE_ATOM, ext_name, is_ext_atom, is_lit_atom
from hybridize.analyzer.summaries.syms import lit_type

from .shapes import DTYPE_ALIASES, DTYPE_NAMES, Atom, argument, common_dtype, literal_type

LITERAL_DTYPES = {"float": "float32", "int": "int32", "bool": "bool", "str": "string"}
"""The dtype TensorFlow converts a Python literal of each type to."""


def dtype_named(atoms: frozenset[Atom]) -> str | None:
    """The TF dtype a `dtype=` argument names (`tf.float32`, `'float32'`), if exactly one."""
    found: set[str] = set()
    for atom in atoms:
        if is_ext_atom(atom) and ext_name(atom).startswith("tensorflow."):
            name = atom[1].rsplit(".", 1)[-1]
            if name in DTYPE_NAMES:
                found.add(DTYPE_ALIASES.get(name, name))
        elif is_lit_atom(atom) and lit_type(atom) == "str" and atom[2] in DTYPE_NAMES:
            found.add(DTYPE_ALIASES.get(atom[2], atom[2]))
    return found.pop() if len(found) == 1 else None


REQUESTED_DTYPE_POSITIONS = {
    "constant": 1,
    "convert_to_tensor": 1,
    "cast": 1,
    "saturate_cast": 1,
    "zeros": 1,
    "ones": 1,
    "zeros_like": 1,
    "ones_like": 1,
}
"""Ops whose result has the dtype they are asked for, and the position of that argument
(`tf.convert_to_tensor(x, tf.int32)`: int32 whatever `x` is, or the call raises). Measured
under TF 2.21, eagerly and traced, by tests/analyzer/test_requested_dtypes_measured.py."""


def requested_dtype_position(api_name: str) -> int | None:
    """`Framework.requested_dtype_position`: where a TensorFlow op takes the dtype its result
    has (`REQUESTED_DTYPE_POSITIONS`, by the op's own name: Keras's and TensorFlow's NumPy
    ops of those names take the dtype there too)."""
    return REQUESTED_DTYPE_POSITIONS.get(api_name.rsplit(".", 1)[-1])


def result_dtype(
    api_name: str,
    args: Sequence[frozenset[Atom]],
    kwargs: Mapping[str, frozenset[Atom]],
) -> str | None:
    """The dtype of the tensor an op returns, when its arguments say it (a `dtype=`, the
    literal it converts, the tensors it keeps the dtype of); None when unknown."""
    short = api_name.rsplit(".", 1)[-1]
    dtype = dtype_named(kwargs["dtype"]) if "dtype" in kwargs else None
    position = requested_dtype_position(api_name)
    if dtype is None and position is not None and len(args) > position:
        # a requested dtype is the result's, whatever the converted value's own; one not
        # known (a variable) leaves the result's unknown, not the input's
        dtype = dtype_named(args[position])
        if dtype is None and any(atom != NONE_ATOM for atom in args[position]):
            return None
    if short == "SparseTensor":
        values = argument(args, kwargs, 1, "values")
        args = [values] if values is not None else []  # its dtype is that of its values
    if (
        dtype is None
        and short in ("constant", "convert_to_tensor", "Variable", "SparseTensor")
        and args
    ):
        literal_types = {literal_type(a) for a in args[0]}
        if len(literal_types) == 1 and (only := literal_types.pop()) is not None:
            dtype = LITERAL_DTYPES.get(only)
        else:
            dtype = common_dtype(args[:1])
    if dtype is None and short == "fill" and len(args) > 1:
        literal = {literal_type(a) for a in args[1]}
        dtype = LITERAL_DTYPES.get(literal.pop() or "") if len(literal) == 1 else None
    if dtype is None and short == "range":
        literal = {literal_type(a) for atoms in args for a in atoms}
        dtype = "float32" if "float" in literal else "int32" if literal == {"int"} else None
    if dtype is None and short in ("zeros", "ones", "eye", "normal", "uniform", "truncated_normal"):
        dtype = "float32"
    if dtype is None and _preserves_dtype(api_name, short):
        dtype = common_dtype(args)
    return dtype


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


def preserves_dtype(api_name: str) -> bool:
    """Whether a TensorFlow op's result has its (first) tensor input's dtype."""
    return _preserves_dtype(api_name, api_name.rsplit(".", 1)[-1])


def _preserves_dtype(api_name: str, short: str) -> bool:
    """Elementwise math, reductions, reshapes and linear algebra keep their input's dtype."""
    if not api_name.startswith("tensorflow.") or short in DTYPE_CHANGING:
        return False
    comparisons = {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal"}
    return not (short.startswith(("is_", "logical_", "arg")) or short in comparisons)
