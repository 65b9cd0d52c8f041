"""How the shapes of PyTorch ops' results follow from their arguments: `TORCH`'s
`Framework.result_shape`.

Only the factories' results are known (what call sites most often build inputs with): enough
to see that two call sites pass a parameter tensors of different shapes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from hybridize.analyzer.facts.values import Atom

from .shapes import Shape, argument, literal_ints, one_shape, shapes_of

Rule = Callable[[Sequence[frozenset[Atom]], Mapping[str, frozenset[Atom]]], Shape]


def result_shape(
    api_name: str, args: Sequence[frozenset[Atom]], kwargs: Mapping[str, frozenset[Atom]]
) -> Shape:
    """The shape of the tensor the PyTorch op `api_name` returns; None when unknown."""
    rule = TORCH_SHAPE_RULES.get(api_name)
    return rule(args, kwargs) if rule is not None else None


def _torch_size(args: Sequence[frozenset[Atom]], kwargs: Mapping[str, frozenset[Atom]]) -> Shape:
    """A PyTorch factory's size: `torch.ones(8, 32)`, `torch.ones((8, 32))`, `size=(8, 32)`."""
    if "size" in kwargs:
        return literal_ints(kwargs["size"])
    if len(args) == 1:
        return literal_ints(args[0])
    if not args:
        return None
    axes = [literal_ints(a) for a in args]
    if any(axis is None or len(axis) != 1 for axis in axes):
        return None
    return tuple(axis[0] for axis in axes if axis is not None)


def _torch_full(args: Sequence[frozenset[Atom]], kwargs: Mapping[str, frozenset[Atom]]) -> Shape:
    size = argument(args, kwargs, 0, "size")
    return literal_ints(size) if size is not None else None


def _torch_like(args: Sequence[frozenset[Atom]], kwargs: Mapping[str, frozenset[Atom]]) -> Shape:
    like = argument(args, kwargs, 0, "input")
    return one_shape(like) if like is not None and shapes_of(like) else None


TORCH_SHAPE_RULES: dict[str, Rule] = {
    **{f"torch.{name}": _torch_size for name in ("ones", "zeros", "empty", "rand", "randn")},
    "torch.full": _torch_full,
    **{
        f"torch.{name}_like": _torch_like
        for name in ("ones", "zeros", "empty", "rand", "randn", "full")
    },
}
"""The shapes of PyTorch's factories' results (what call sites most often build inputs
with): enough to see that two call sites pass a parameter tensors of different shapes."""
