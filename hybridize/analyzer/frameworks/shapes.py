"""The shape vocabulary of every framework's shape rules (`tensorflow_shapes`, `torch_shapes`,
reached through `Framework.result_shape`; `tensor_spec` combines them with the dtype rules,
`Framework.result_dtype`), and cheap dtype rules for NumPy calls.

What can be read off a call: literal shapes, the shapes of tensor arguments, a NumPy call's
`dtype=`. Anything else stays unknown (`None`), which is sound: an unknown axis only makes a
signature less specific.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from hybridize.analyzer.facts.values import (
    Atom,
    is_ext_atom,
    is_lit_atom,
    is_numpy_atom,
    is_seq_atom,
    is_tup_atom,
)
from hybridize.analyzer.summaries.syms import kind_of, lit_type, lit_value

DTYPE_NAMES = frozenset(
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
"""Dtype names NumPy and TensorFlow share (`np.float32`, `tf.float32`; `string` is
TensorFlow's), as `dtype=` arguments and `astype` spell them."""
DTYPE_ALIASES = {"half": "float16", "double": "float64"}


Shape = tuple[int | None, ...] | None
"""A tensor shape: a tuple of axes (None where unknown), or None for an unknown rank."""


def argument(
    args: Sequence[frozenset[Atom]], kwargs: Mapping[str, frozenset[Atom]], index: int, name: str
) -> frozenset[Atom] | None:
    """The argument a call passes for the parameter `name` at position `index`."""
    if name in kwargs:
        return kwargs[name]
    return args[index] if index < len(args) else None


def literal_ints(atoms: frozenset[Atom] | None) -> tuple[int | None, ...] | None:
    """`(2, 3)`, `[2, 3]` or `4` given as a shape: its axes (None for -1, None or unknown)."""
    if not atoms or len(atoms) != 1:
        return None
    (atom,) = atoms
    if is_lit_atom(atom) and lit_type(atom) == "int":
        return (atom[2] if isinstance(atom[2], int) and atom[2] >= 0 else None,)
    if not is_tup_atom(atom):
        return None
    axes: list[int | None] = []
    for part in atom[1]:
        values = [lit_value(a) for a in part if is_lit_atom(a) and lit_type(a) == "int"]
        if len(part) == 1 and len(values) == 1 and isinstance(values[0], int) and values[0] >= 0:
            axes.append(values[0])
        else:
            axes.append(None)
    return tuple(axes)


def literal_structure_shape(atoms: frozenset[Atom]) -> Shape:
    """The shape of a nested literal: `[[1., 2.], [3., 4.]]` -> (2, 2); `3.0` -> ()."""
    if len(atoms) != 1:
        return None
    (atom,) = atoms
    if is_lit_atom(atom) and lit_type(atom) in ("int", "float", "bool", "str"):
        return ()
    if is_tup_atom(atom):
        inner = {literal_structure_shape(part) for part in atom[1]}
        if len(inner) == 1 and (only := inner.pop()) is not None:
            return (len(atom[1]), *only)
        return None
    if kind_of(atom) in ("tensor", "variable"):
        shape: Shape = atom[2]
        return shape
    return None


def shapes_of(atoms: frozenset[Atom] | None) -> set[Shape]:
    """Shapes of the tensors among the atoms (None for a tensor of unknown rank)."""
    if not atoms:
        return set()
    return {a[2] for a in atoms if kind_of(a) in ("tensor", "variable")}


def one_shape(atoms: frozenset[Atom] | None) -> Shape:
    """The shape of the tensors among the atoms when they agree on one."""
    found = shapes_of(atoms)
    return found.pop() if len(found) == 1 else None


def broadcast(shapes: Sequence[Shape]) -> Shape:
    """NumPy broadcasting of known shapes; unknown where any input is unknown or disagrees."""
    if not shapes or any(s is None for s in shapes):
        return None
    known = [s for s in shapes if s is not None]
    rank = max(len(s) for s in known)
    result: list[int | None] = []
    for i in range(rank):
        axis: set[int | None] = set()
        for s in known:
            offset = rank - len(s)
            if i >= offset:
                axis.add(s[i - offset])
        if len(axis) > 1:
            axis.discard(1)
        result.append(axis.pop() if len(axis) == 1 else None)
    return tuple(result)


def matmul_shape(a: tuple[int | None, ...], b: tuple[int | None, ...]) -> Shape:
    """`a @ b` for known ranks >= 2: batch axes broadcast, (n, k) @ (k, m) -> (n, m)."""
    if len(a) < 2 or len(b) < 2:
        return None
    batch = broadcast([a[:-2], b[:-2]])
    return None if batch is None else (*batch, a[-2], b[-1])


def literal_axes(atoms: frozenset[Atom], rank: int) -> set[int] | None:
    """Literal axis arguments, negative ones counted from the end."""
    if len(atoms) != 1:
        return None
    (atom,) = atoms
    parts = [frozenset({atom})] if is_lit_atom(atom) else list(atom[1]) if is_tup_atom(atom) else []
    axes: set[int] = set()
    for part in parts:
        values = [lit_value(a) for a in part if is_lit_atom(a) and lit_type(a) == "int"]
        if len(values) != 1 or not isinstance(values[0], int) or not -rank <= values[0] < rank:
            return None
        axes.add(values[0] % rank)
    return axes or None


def common_dtype(args: Sequence[frozenset[Atom]]) -> str | None:
    """The one dtype of the tensors among the arguments (also inside a list of tensors)."""
    dtypes: set[str | None] = set()
    for atoms in args:
        for a in atoms:
            if kind_of(a) in ("tensor", "variable"):
                dtypes.add(a[1])
            elif is_tup_atom(a):
                dtypes.update(
                    b[1] for part in a[1] for b in part if kind_of(b) in ("tensor", "variable")
                )
    dtypes.discard(None)
    return dtypes.pop() if len(dtypes) == 1 else None


def literal_type(atom: Atom, depth: int = 0) -> str | None:
    if is_lit_atom(atom):
        return str(atom[1])
    if is_tup_atom(atom) and depth < 4:
        types = {literal_type(a, depth + 1) for part in atom[1] for a in part}
        if types == {"int", "float"}:
            return "float"
        return types.pop() if len(types) == 1 else None
    if is_seq_atom(atom) and depth < 4:
        types = {literal_type(a, depth + 1) for a in atom[2]}
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
        if is_ext_atom(atom):
            name = atom[1].rsplit(".", 1)[-1]
            if name in DTYPE_NAMES:
                found.add(DTYPE_ALIASES.get(name, name))
            elif name == "float_":
                found.add("float64")
        elif is_lit_atom(atom) and lit_type(atom) == "str" and atom[2] in DTYPE_NAMES:
            found.add(DTYPE_ALIASES.get(atom[2], atom[2]))
    return found.pop() if len(found) == 1 else None


def _array_dtype(atoms: frozenset[Atom]) -> str | None:
    dtypes = {a[1] for a in atoms if kind_of(a) in ("numpy", "tensor", "variable")}
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
    position = NUMPY_DTYPE_POSITIONS.get(short)
    if position is not None and api_name.count(".") == 1 and len(args) > position:
        # `np.array([0, 1], np.int32)`, `np.zeros(3, np.int32)`: a dtype given by position.
        return numpy_dtype_of(args[position])
    if short == "astype" and args:
        return numpy_dtype_of(args[0])
    if short in DTYPE_NAMES and api_name.count(".") == 1:
        # A NumPy scalar type called (`np.float32(2.0)`, `np.int32(3)`): a value of it.
        return DTYPE_ALIASES.get(short, short)
    if short == "numpy" and receiver:
        return _array_dtype(receiver)
    # `choice(a)` draws elements of `np.array(a)`: its dtype is that of the population
    # (`rng.choice([0., 1.])` is float64, whatever array it is later multiplied with).
    if short in ("array", "asarray") or (short == "choice" and api_name.startswith("numpy.")):
        if not args:
            return None
        literal = {literal_type(a) for a in args[0]}
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


NUMPY_DTYPE_POSITIONS = {"array": 1, "asarray": 1, "zeros": 1, "ones": 1, "empty": 1, "full": 2}
"""NumPy constructors' positional `dtype` parameter (`np.array(object, dtype)`,
`np.zeros(shape, dtype)`, `np.full(shape, fill_value, dtype)`), by name."""


NUMPY_FLOAT_BITS = {"float16": 16, "float32": 32, "float64": 64}
NUMPY_INT_BITS = {"int8": 8, "int16": 16, "int32": 32, "int64": 64}


def numpy_result_dtype(dtypes: Iterable[str | None]) -> str | None:
    """The dtype NumPy gives an arithmetic result of arrays of these dtypes (None: unknown).

    NumPy promotes to a type that holds both operands: float32 with float64 is float64, and
    an int32 or int64 array with a float32 one is float64 too, unlike TensorFlow, which
    refuses to mix them. Python scalars are not arrays and do not take part (NEP 50).
    A float64 operand makes the result float64 whatever the other operands are.
    """
    known = set(dtypes)
    if "float64" in known:
        return "float64"
    if None in known or not known:
        return None
    known.discard("bool")
    if not known:
        return "bool"
    if len(known) == 1:
        return known.pop()
    if not known <= NUMPY_FLOAT_BITS.keys() | NUMPY_INT_BITS.keys():
        return None
    floats = [NUMPY_FLOAT_BITS[d] for d in known if d in NUMPY_FLOAT_BITS]
    ints = [NUMPY_INT_BITS[d] for d in known if d in NUMPY_INT_BITS]
    if not floats:
        return f"int{max(ints)}"
    # the smallest float that holds every integer operand exactly: int8 -> 16, int16 -> 32,
    # int32/int64 -> 64 bits
    needed = max([*floats, *(min(64, 2 * bits) if bits > 8 else 16 for bits in ints)])
    return f"float{needed}"


def numpy_shape(
    api_name: str,
    args: Sequence[frozenset[Atom]],
    kwargs: Mapping[str, frozenset[Atom]],
    receiver: frozenset[Atom],
) -> Shape:
    """The shape of the NumPy array a call returns, when literal arguments give it."""
    short = api_name.rsplit(".", 1)[-1]
    if short in ("zeros", "ones", "empty", "full") and api_name.count(".") == 1:
        return literal_ints(argument(args, kwargs, 0, "shape"))
    if "size" in kwargs:
        return literal_ints(kwargs["size"])
    if short in ("array", "asarray") and args:
        return literal_structure_shape(args[0])
    if short in ("astype", "copy") and receiver:
        shapes = {a[2] if len(a) > 2 else None for a in receiver if is_numpy_atom(a)}
        return shapes.pop() if len(shapes) == 1 else None
    return None
