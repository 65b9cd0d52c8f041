"""How sets of atoms (`values.py`) are kept small: what keeps the fixed point finite.

A set holds at most `MAX_ATOMS` atoms, containers nest at most `MAX_NESTING` deep (deeper
ones collapse to one summary atom), and a join that was cut stays cut (`join_capped`). Past
the cap a set first gives up what it can without losing a kind of value: its dicts' keys
(`unkeyed`), then which values each dict held (`merged_dicts`); only then is it cut.
Both the evaluator, which caps every value it computes, and the solver, which caps the
project-wide joins, bound values here, so that a value has one bounded form whichever of
them built it.
"""

from __future__ import annotations

from collections.abc import Iterable

from hybridize.analyzer.facts.predicates import is_primitive, is_tensor_like
from hybridize.analyzer.facts.values import (
    CONTAINER_KINDS,
    INT,
    MAX_NESTING,
    PYTHON,
    SYMBOLIC,
    TENSOR,
    UNKNOWN_ATOM,
    Atom,
    AtomKind,
    Atoms,
    dict_atom,
    is_dict_atom,
    is_keyed_dict,
    is_seq_atom,
    is_tensor_atom,
    is_tup_atom,
    is_unknown_kind,
    keyed_dict_atom,
    numpy_atom,
    seq_atom,
    tensor_atom,
    tup_atom,
    variable_atom,
)
from hybridize.analyzer.summaries.keys import FunctionKey

MAX_ATOMS = 24
"""The most atoms a value keeps before it is cut to its tensor-like kinds and unknown."""
KIND_REPRESENTATIVES: dict[str, Atom] = {
    "tensor": TENSOR,
    "variable": variable_atom(None, None),
    "numpy": numpy_atom(None),
    "symbolic": SYMBOLIC,
}
"""The atom a collapsed value keeps for each tensor-like kind it may hold (`cut_atoms`)."""


def _shrink(atom: Atom, depth: int = 0) -> Atom:
    kind: AtomKind = atom[0]
    if kind not in ("seq", "tup", "dict"):
        return atom
    if depth >= MAX_NESTING:
        return collapse_container(atom)
    if kind == "seq":
        return seq_atom(atom[1], frozenset(_shrink(a, depth + 1) for a in atom[2]))
    if kind == "tup":
        parts = tuple(frozenset(_shrink(a, depth + 1) for a in part) for part in atom[1])
        return tup_atom(parts, atom[2])
    if len(atom) > 2:
        # a keyed dict's values are its keys' values: each shrunk once, not again per key
        shrunk = {a: _shrink(a, depth + 1) for a in atom[1]}
        keyed = tuple(
            (k, frozenset(shrunk[a] if a in shrunk else _shrink(a, depth + 1) for a in v))
            for k, v in atom[2]
        )
        return keyed_dict_atom(frozenset(shrunk.values()), keyed)
    return dict_atom(frozenset(_shrink(a, depth + 1) for a in atom[1]))


def collapse_container(container: Atom) -> Atom:
    """One summary atom for a container too deep to track: what matters of it downstream.
    Shared with the solver, whose widening summarises nested containers the same way."""
    if is_tensor_like(container):
        return seq_atom("list", frozenset({TENSOR}))
    if is_primitive(container):
        return seq_atom("list", frozenset({INT}))
    return UNKNOWN_ATOM if _has_unknown(container) else PYTHON


def _has_unknown(atom: Atom, depth: int = 0) -> bool:
    if is_unknown_kind(atom):
        return True
    if depth > 6:
        return False
    if is_seq_atom(atom):
        return any(_has_unknown(a, depth + 1) for a in atom[2])
    if is_tup_atom(atom):
        return any(_has_unknown(a, depth + 1) for part in atom[1] for a in part)
    if is_dict_atom(atom):
        return any(_has_unknown(a, depth + 1) for a in atom[1])
    return False


_SHRUNK: dict[Atom, Atom] = {}
"""`_shrink` of container atoms already seen. Every evaluation caps its result, and on real
code the same large container atoms come back thousands of times (half the solver's time
went into shrinking them again); `_shrink` is idempotent, so its result maps to itself."""
MAX_SHRUNK = 200_000


def _shrunk(atom: Atom) -> Atom:
    found = _SHRUNK.get(atom)
    if found is None:
        if len(_SHRUNK) >= MAX_SHRUNK:
            _SHRUNK.clear()
        found = _shrink(atom)
        _SHRUNK[atom] = found
        _SHRUNK[found] = found
    return found


def cap_atoms(atoms: Iterable[Atom]) -> Atoms:
    """`atoms` kept small: containers shrunk to MAX_NESTING levels, and cut (`cut_atoms`)
    past MAX_ATOMS atoms. Every value the evaluator computes, and every value the solver
    builds of several (a generator's items, a grown list), is capped alike."""
    result = _shrunk_containers(atoms)
    if len(result) > MAX_ATOMS:
        result = merged_dicts(unkeyed(result))
    return cut_atoms(result, collapse=False) if len(result) > MAX_ATOMS else result


def unkeyed(atoms: Atoms) -> Atoms:
    """`atoms` with keyed dicts (`keyed_dict_atom`) as plain dicts of their values: what a
    value too large to keep keys gives up first, before it is cut (zfit's `self.dist_params`,
    a dict per subclass beside 16 functions, kept its functions)."""
    if not any(map(is_keyed_dict, atoms)):
        return atoms
    return frozenset(dict_atom(a[1]) if is_keyed_dict(a) else a for a in atoms)


def merged_dicts(atoms: Atoms) -> Atoms:
    """`atoms` (keyed dicts given up already, `unkeyed`) with its dicts as one dict of all
    their values, when that brings it within MAX_ATOMS (else `atoms`, which is then cut as it
    was): what a value too large to keep gives up next, before it is cut. A mapping built
    with `dict(...)` holds the values it is built from, one dict per set of them: zfit's loss
    `params` (`dict(zip(all_params, params))` beside the mappings its callers pass) grew past
    the cap on its dicts, and the cut took its generators too, which the functions iterating
    it advance (HY108: 32 functions lost, all found again so)."""
    dicts = [a for a in atoms if is_dict_atom(a)]
    if len(dicts) < 2 or len(atoms) - len(dicts) + 1 > MAX_ATOMS:
        return atoms
    values = cap_atoms(frozenset().union(*(a[1] for a in dicts)))
    return frozenset([*(a for a in atoms if not is_dict_atom(a)), _shrunk(dict_atom(values))])


def _shrunk_containers(atoms: Iterable[Atom]) -> Atoms:
    result = atoms if type(atoms) is frozenset else frozenset(atoms)
    for a in result:
        if a[0] in CONTAINER_KINDS:
            return frozenset(_shrunk(a) if a[0] in CONTAINER_KINDS else a for a in result)
    return result


def cut_atoms(result: Atoms, *, collapse: bool) -> Atoms:
    """Too many kinds to track: keep whether it may be a tensor (a deterministic choice, so
    that the same input always gives the same output and the fixed point settles); with
    `collapse`, or when the tensor-like kinds alone are too many, only which kinds of tensor
    it may be: one atom per kind, so that a Keras symbolic tensor, a variable or a NumPy array
    among many tensors of different shapes stays known (tf-models' `vertical_flip_boxes` lost
    its symbolic caller when comparisons gave more tensor shapes).

    Past MAX_ATOMS, `cap_atoms` and `join_capped` cut with it, and so does the evaluator a
    union of values it capped already (only their number can be too large)."""
    tensor_like = [a for a in result if is_tensor_like(a)]
    if tensor_like and (collapse or len(tensor_like) >= MAX_ATOMS):
        return frozenset({KIND_REPRESENTATIVES.get(a[0], TENSOR) for a in tensor_like}) | {
            UNKNOWN_ATOM
        }
    return frozenset([*tensor_like, UNKNOWN_ATOM])


CutEntry = tuple[str, FunctionKey, str]
"""A fact of the joined tables: (table, function or class, name)."""


def join_capped(joined: Iterable[Atom], cut: dict[CutEntry, bool], entry: CutEntry) -> Atoms:
    """A widened fact joined with its last value, capped once and for all.

    A fact cut at MAX_ATOMS must stay cut: otherwise the cut value joined with the next
    round's evaluations fits under the cap again, grows past it, is cut again, and the fixed
    point oscillates with period two (it did on TensorFlow's own `python/ops`). So `cut`
    remembers every entry cut in the widening rounds of a phase (True once its tensor-like
    kinds were collapsed too), and those entries only ever get the cut form of their join,
    which grows monotonically over a finite domain."""
    result = _shrunk_containers(joined)
    if len(result) > MAX_ATOMS:
        result = unkeyed(result)
    collapsed = cut.get(entry)
    if collapsed is None and len(result) > MAX_ATOMS:
        result = merged_dicts(result)  # the next round's join merges the same
    if collapsed is None and len(result) <= MAX_ATOMS:
        return result
    collapse = bool(collapsed) or sum(map(is_tensor_like, result)) >= MAX_ATOMS
    cut[entry] = collapse
    return cut_atoms(result, collapse=collapse)


def merge_tensor_specs(atoms: Atoms) -> Atoms:
    """Collapse many tensor atoms with different shapes into one of unknown shape: a
    function's return, whether the evaluator or the solver builds it."""
    if len(atoms) <= 4:
        return atoms  # four tensors at most (most values): nothing to look at
    tensors = [a for a in atoms if is_tensor_atom(a)]
    if len(tensors) <= 4:
        return atoms
    dtypes = {a[1] for a in tensors}
    merged = tensor_atom(dtypes.pop() if len(dtypes) == 1 else None, None)
    return frozenset([a for a in atoms if not is_tensor_atom(a)] + [merged])
