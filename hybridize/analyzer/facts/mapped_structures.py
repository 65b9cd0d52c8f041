"""What a `map_structure` callback is called with: one leaf of each structure, by position.

`tf.nest.map_structure(fn, *structures)` (and Keras' `tree.map_structure`, dm-tree's) calls
`fn(a, b, ...)` once per leaf position, `a` a leaf of the first structure, `b` the leaf of
the second one at the same place: parameter i receives structure i's leaves, not the first
structure's. The `_up_to` variants cut the structures at the leaves of a shallow structure,
so that a parameter may receive a subtree; the `_with_path` variants hand the leaf's path
(a tuple of keys, a Python value) first. Keyword arguments of the call (`check_types`) go to
the mapping function, not to the callback, whose keyword-only parameters keep their defaults.

The solver hands these arguments to the callback; the evaluator calls a framework callback
with them; both must read the same structures, which is why they share this module.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hybridize.analyzer.facts.predicates import leaf_atoms
from hybridize.analyzer.facts.values import (
    MAX_NESTING,
    PYTHON,
    UNKNOWN_ATOM,
    Atom,
    Atoms,
    is_dict_atom,
    is_seq_atom,
    is_tup_atom,
)
from hybridize.analyzer.frameworks.api_info import ApiInfo
from hybridize.analyzer.summaries.ir import Param

POSITIONAL_KINDS = frozenset({"posonly", "normal"})
"""Parameters a callback's positional arguments fill."""

PATH: Atoms = frozenset({PYTHON})
"""A leaf's path (`map_structure_with_path`): a tuple of keys or a string, a Python value."""


def mapped_structure_position(info: ApiInfo) -> int | None:
    """Where a `map_structure` call takes the structure it maps: the first positional
    argument after the callback (None when the callback has no position)."""
    positions = [p for p in info.callback_args if isinstance(p, int)]
    return max(positions) + 1 if positions else None


def mapped_structure_argument(info: ApiInfo, args: Sequence[Atoms]) -> Atoms:
    """The structure a `map_structure` call maps, whose shape its result takes (unknown when
    absent or given by keyword)."""
    position = mapped_structure_position(info)
    if position is None or position >= len(args):
        return frozenset({UNKNOWN_ATOM})
    return args[position]


def mapped_structures(info: ApiInfo, args: Sequence[Atoms]) -> list[Atoms]:
    """Every structure the call maps, in order: its positional arguments after the callback
    (`map_structure(fn, a, b)`: `[a, b]`); one unknown structure when none is written."""
    position = mapped_structure_position(info)
    if position is None or position >= len(args):
        return [frozenset({UNKNOWN_ATOM})]
    return list(args[position:])


def structure_elements(info: ApiInfo, structure: Atoms) -> Atoms:
    """What one structure hands the callback at each position: its leaves, or for the
    `_up_to` variants (cut at a shallow structure's leaves) its subtrees too."""
    if not info.callback_subtrees:
        return frozenset(leaf_atoms(structure))
    return frozenset(_every_level(structure, 0))


def _every_level(atoms: Atoms, depth: int) -> set[Atom]:
    """The atoms of a structure and of every list, tuple and dict nested in it (to
    MAX_NESTING): where a shallow structure may cut it."""
    out: set[Atom] = set(atoms)
    if depth >= MAX_NESTING:
        return out
    for atom in atoms:
        if is_seq_atom(atom):
            out |= _every_level(atom[2], depth + 1)
        elif is_tup_atom(atom):
            for part in atom[1]:
                out |= _every_level(part, depth + 1)
        elif is_dict_atom(atom):
            out |= _every_level(atom[1], depth + 1)
    return out


@dataclass(frozen=True, slots=True)
class CallbackParameter:
    """What one parameter of a `map_structure` callback receives at each call of it."""

    path: bool = False
    """The leaf's path (`_with_path` variants)."""
    structures: tuple[int, ...] = ()
    """An element of these mapped structures (indices into `mapped_structures`)."""
    spread: bool = False
    """An element of a structure spread by `*structures` at the call, unknown here."""


def callback_parameters(
    info: ApiInfo, params: Sequence[Param], structure_count: int, has_star_args: bool
) -> dict[str, CallbackParameter]:
    """Which of a call's mapped structures each callback parameter gets its elements from:
    the path first for the `_with_path` variants, then parameter i structure i's, a `*args`
    parameter every one left. Structures spread by `*structures` at the call are not among
    the written ones: their order is unknown, and each parameter after the path may get an
    element of any structure. Parameters left out (keyword-only, `**kw`, positional ones
    beyond the structures) take their defaults: they are not in the result."""
    every = tuple(range(structure_count))
    out: dict[str, CallbackParameter] = {}
    position = -1 if info.callback_path_first else 0
    for param in params:
        if param.kind in POSITIONAL_KINDS:
            if position < 0:
                out[param.name] = CallbackParameter(path=True)
            elif has_star_args:
                out[param.name] = CallbackParameter(structures=every, spread=True)
            elif position < structure_count:
                out[param.name] = CallbackParameter(structures=(position,))
            position += 1
        elif param.kind == "vararg":
            if has_star_args:
                out[param.name] = CallbackParameter(structures=every, spread=True)
            elif 0 <= position < structure_count:
                out[param.name] = CallbackParameter(structures=every[position:])
    return out


def callback_parameter_arguments(
    info: ApiInfo, params: Sequence[Param], args: Sequence[Atoms], has_star_args: bool
) -> dict[str, Atoms]:
    """What each parameter of a `map_structure` callback receives (`callback_parameters`):
    the elements of its structures, a path, or unknown values."""
    elements = [structure_elements(info, s) for s in mapped_structures(info, args)]
    out: dict[str, Atoms] = {}
    for name, parameter in callback_parameters(info, params, len(elements), has_star_args).items():
        received: set[Atom] = set(PATH) if parameter.path else set()
        for i in parameter.structures:
            received |= elements[i]
        if parameter.spread:
            received.add(UNKNOWN_ATOM)
        out[name] = frozenset(received)
    return out
