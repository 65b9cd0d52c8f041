"""How the shapes of TensorFlow ops' results follow from their arguments: `TENSORFLOW`'s
`Framework.result_shape`.

The literal shapes given to `zeros`/`ones`/`random.*`/`reshape`, and the shapes of tensor
arguments flowing through `matmul`, broadcasting elementwise ops, reductions, `concat`,
`stack`, `transpose`. Anything else stays unknown (None), which is sound: an unknown axis only
makes a signature less specific.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from hybridize.analyzer.facts.values import NONE_ATOM, is_tup_atom, lit_atom

from .shapes import (
    Atom,
    Shape,
    argument,
    broadcast,
    literal_axes,
    literal_ints,
    literal_structure_shape,
    matmul_shape,
    one_shape,
    shapes_of,
)

Rule = Callable[[Sequence[frozenset[Atom]], Mapping[str, frozenset[Atom]]], Shape]


def result_shape(
    api_name: str, args: Sequence[frozenset[Atom]], kwargs: Mapping[str, frozenset[Atom]]
) -> Shape:
    """The shape of the tensor the TensorFlow op `api_name` returns; None when unknown."""
    short = api_name.rsplit(".", 1)[-1]
    if api_name.startswith("tensorflow.ragged."):
        rule = RAGGED_SHAPE_RULES.get(short)
        return rule(args, kwargs) if rule is not None else None
    return _result_shape(short, args, kwargs) if api_name.startswith("tensorflow.") else None


ELEMENTWISE = frozenset(
    {
        "add",
        "subtract",
        "multiply",
        "divide",
        "truediv",
        "maximum",
        "minimum",
        "pow",
        "square",
        "sqrt",
        "rsqrt",
        "exp",
        "log",
        "log1p",
        "abs",
        "negative",
        "sign",
        "relu",
        "relu6",
        "elu",
        "selu",
        "gelu",
        "sigmoid",
        "tanh",
        "softplus",
        "softsign",
        "softmax",
        "log_softmax",
        "sin",
        "cos",
        "tan",
        "floor",
        "ceil",
        "round",
        "reciprocal",
        "squared_difference",
        "identity",
        "stop_gradient",
        "clip_by_value",
        "dropout",
        "l2_normalize",
        "leaky_relu",
        "silu",
        "swish",
        "erf",
        "floordiv",
        "floormod",
        "mod",
        "divide_no_nan",
        "multiply_no_nan",
        "cast",
        "zeros_like",
        "ones_like",
    }
)
"""Ops whose result has the broadcast shape of their tensor arguments."""


def _result_shape(
    short: str, args: Sequence[frozenset[Atom]], kwargs: Mapping[str, frozenset[Atom]]
) -> Shape:
    rule = SHAPE_RULES.get(short)
    if rule is not None:
        return rule(args, kwargs)
    if short.startswith("reduce_"):
        return _reduction(args, kwargs)
    if short in ELEMENTWISE:
        tensors = [one_shape(a) for a in args if shapes_of(a)]
        return broadcast(tensors) if tensors else None
    return None


def _constant(args: Sequence[frozenset[Atom]], kwargs: Mapping[str, frozenset[Atom]]) -> Shape:
    if "shape" in kwargs:
        return literal_ints(kwargs["shape"])
    value = argument(args, kwargs, 0, "value") or argument(args, kwargs, 0, "initial_value")
    return literal_structure_shape(value) if value else None


def _created(name: str) -> Rule:
    def rule(args: Sequence[frozenset[Atom]], kwargs: Mapping[str, frozenset[Atom]]) -> Shape:
        return literal_ints(argument(args, kwargs, 0, name))

    return rule


def _eye(args: Sequence[frozenset[Atom]], kwargs: Mapping[str, frozenset[Atom]]) -> Shape:
    rows = literal_ints(argument(args, kwargs, 0, "num_rows"))
    cols = literal_ints(argument(args, kwargs, 1, "num_columns"))
    if rows is None or len(rows) != 1:
        return None
    return (rows[0], cols[0] if cols is not None and len(cols) == 1 else rows[0])


def _reshape(args: Sequence[frozenset[Atom]], kwargs: Mapping[str, frozenset[Atom]]) -> Shape:
    raw = argument(args, kwargs, 1, "shape")
    target = literal_ints(raw)
    if target is None:
        return None
    return _resolve_minus_one(target, one_shape(argument(args, kwargs, 0, "tensor")), raw)


def _matmul(args: Sequence[frozenset[Atom]], kwargs: Mapping[str, frozenset[Atom]]) -> Shape:
    a, b = one_shape(argument(args, kwargs, 0, "a")), one_shape(argument(args, kwargs, 1, "b"))
    if a is None or b is None or len(a) < 2 or len(b) < 2:
        return None
    for flag, which in (
        ("transpose_a", "a"),
        ("transpose_b", "b"),
        ("adjoint_a", "a"),
        ("adjoint_b", "b"),
    ):
        if flag not in kwargs:
            continue
        value = kwargs[flag]
        if value == frozenset({lit_atom("bool", True)}):
            if which == "a":
                a = (*a[:-2], a[-1], a[-2])
            else:
                b = (*b[:-2], b[-1], b[-2])
        elif value != frozenset({lit_atom("bool", False)}):
            return None
    return matmul_shape(a, b)


def _reduction(args: Sequence[frozenset[Atom]], kwargs: Mapping[str, frozenset[Atom]]) -> Shape:
    source = one_shape(argument(args, kwargs, 0, "input_tensor"))
    if source is None:
        return None
    axis_atoms = argument(args, kwargs, 1, "axis")
    keepdims = kwargs.get("keepdims") == frozenset({lit_atom("bool", True)})
    if axis_atoms is None or axis_atoms == frozenset({NONE_ATOM}):
        return tuple(1 for _ in source) if keepdims else ()
    axes = literal_axes(axis_atoms, len(source))
    if axes is None:
        return None
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(source))
    return tuple(d for i, d in enumerate(source) if i not in axes)


def _joined(stack: bool) -> Rule:
    def rule(args: Sequence[frozenset[Atom]], kwargs: Mapping[str, frozenset[Atom]]) -> Shape:
        values = argument(args, kwargs, 0, "values")
        if not values or len(values) != 1:
            return None
        (container,) = values
        if not is_tup_atom(container):
            return None
        parts = [one_shape(part) for part in container[1]]
        known = [p for p in parts if p is not None]
        if len(known) != len(parts) or len({len(p) for p in known}) != 1:
            return None
        rank = len(known[0]) + (1 if stack else 0)
        axes = literal_axes(
            argument(args, kwargs, 1, "axis") or frozenset({lit_atom("int", 0)}), rank
        )
        if axes is None or len(axes) != 1:
            return None
        (axis,) = axes
        if stack:
            merged = broadcast(known)
            return None if merged is None else (*merged[:axis], len(known), *merged[axis:])
        sizes = [p[axis] for p in known]
        total = None if any(s is None for s in sizes) else sum(s or 0 for s in sizes)
        others = broadcast([(*p[:axis], *p[axis + 1 :]) for p in known])
        return None if others is None else (*others[:axis], total, *others[axis:])

    return rule


def _transpose(args: Sequence[frozenset[Atom]], kwargs: Mapping[str, frozenset[Atom]]) -> Shape:
    if "perm" in kwargs or len(args) != 1:
        return None
    source = one_shape(args[0])
    return None if source is None else tuple(reversed(source))


def _range(args: Sequence[frozenset[Atom]], kwargs: Mapping[str, frozenset[Atom]]) -> Shape:
    values = [literal_ints(a) for a in args[:3]]
    if not values or any(v is None or len(v) != 1 or v[0] is None for v in values):
        return (None,)
    numbers = [v[0] for v in values if v is not None]
    start, limit, delta = (
        (0, numbers[0], 1) if len(numbers) == 1 else (*numbers[:2], *(numbers[2:] or [1]))
    )
    if start is None or limit is None or not delta:
        return (None,)
    return (max(0, -(-(limit - start) // delta)),)


def _sparse_from_dense(
    args: Sequence[frozenset[Atom]], kwargs: Mapping[str, frozenset[Atom]]
) -> Shape:
    return one_shape(argument(args, kwargs, 0, "tensor"))


def _sparse_tensor(args: Sequence[frozenset[Atom]], kwargs: Mapping[str, frozenset[Atom]]) -> Shape:
    return literal_ints(argument(args, kwargs, 2, "dense_shape"))


def _ragged_constant(
    args: Sequence[frozenset[Atom]], kwargs: Mapping[str, frozenset[Atom]]
) -> Shape:
    """`tf.ragged.constant([[1, 2], [3]])`: known rows, ragged second axis."""
    value = argument(args, kwargs, 0, "pylist")
    if not value or len(value) != 1:
        return None
    (atom,) = value
    if not is_tup_atom(atom):
        return None
    depth = 1
    inner: set[Atom] = set(atom[1][0]) if atom[1] else set()
    while inner and all(is_tup_atom(a) for a in inner):
        depth += 1
        inner = {b for a in inner for part in a[1] for b in part}
    return (len(atom[1]), *([None] * (depth - 1)))


SHAPE_RULES: dict[str, Rule] = {
    "constant": _constant,
    "convert_to_tensor": _constant,
    "Variable": _constant,
    "zeros": _created("shape"),
    "ones": _created("shape"),
    "normal": _created("shape"),
    "uniform": _created("shape"),
    "truncated_normal": _created("shape"),
    "fill": _created("dims"),
    "eye": _eye,
    "reshape": _reshape,
    "matmul": _matmul,
    "concat": _joined(stack=False),
    "stack": _joined(stack=True),
    "transpose": _transpose,
    "range": _range,
    "from_dense": _sparse_from_dense,
    "SparseTensor": _sparse_tensor,
}
"""Shape rules by op name (the last part of its TensorFlow name)."""

RAGGED_SHAPE_RULES: dict[str, Rule] = {"constant": _ragged_constant}
"""Shape rules of `tf.ragged.*` ops, whose names repeat the dense ones (`constant`)."""


def _resolve_minus_one(
    target: tuple[int | None, ...], source: Shape, raw: frozenset[Atom] | None
) -> Shape:
    """`reshape(x, [-1, 4])`: the -1 axis is known when every other size is."""
    minus_one = _minus_one_index(raw)
    if minus_one is None or source is None or any(d is None for d in source):
        return target
    known = [d for i, d in enumerate(target) if i != minus_one]
    if any(d is None for d in known):
        return target
    total = 1
    for d in source:
        total *= d or 0
    rest = 1
    for d in known:
        rest *= d or 0
    if rest == 0 or total % rest:
        return target
    return (*target[:minus_one], total // rest, *target[minus_one + 1 :])


def _minus_one_index(raw: frozenset[Atom] | None) -> int | None:
    if not raw or len(raw) != 1:
        return None
    (atom,) = raw
    if not is_tup_atom(atom):
        return None
    for i, part in enumerate(atom[1]):
        if lit_atom("int", -1) in part:
            return i
    return None
