"""A value with more tensor atoms than the analysis tracks is cut to "some tensor": which kinds
of tensor it may be must survive the cut. A Keras symbolic tensor among many tensors of
different shapes is still symbolic (HY406 reads it), a variable still a variable, a NumPy array
still NumPy."""

from __future__ import annotations

from hybridize.analyzer.facts.atom_bounds import MAX_ATOMS, cap_atoms
from hybridize.analyzer.facts.values import TENSOR, UNKNOWN_ATOM


def _many_tensors() -> list[tuple[object, ...]]:
    return [("tensor", "float32", (i,)) for i in range(MAX_ATOMS + 2)]


def test_a_symbolic_tensor_among_too_many_tensors_stays_symbolic() -> None:
    capped = cap_atoms([*_many_tensors(), ("symbolic",)])
    assert ("symbolic",) in capped
    assert TENSOR in capped and UNKNOWN_ATOM in capped
    assert len(capped) <= 6


def test_every_tensor_kind_keeps_one_atom() -> None:
    held = ("seq", "list", frozenset({TENSOR}))  # a list of tensors: some tensor, once cut
    capped = cap_atoms(
        [*_many_tensors(), ("variable", "float32", (2,)), ("numpy", "float64"), held]
    )
    kinds = {a[0] for a in capped}
    assert {"tensor", "variable", "numpy"} <= kinds
    assert ("symbolic",) not in capped


def test_the_cut_is_the_same_for_the_same_kinds() -> None:
    first = cap_atoms([*_many_tensors(), ("symbolic",)])
    second = cap_atoms([*reversed(_many_tensors()), ("symbolic",), ("tensor", "int32", (9,))])
    assert first == second
