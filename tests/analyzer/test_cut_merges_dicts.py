"""A value past the cap gives up which values each of its dicts holds before it is cut.

`dict(zip(names, values))`, `dict(d)` and `OrderedDict(...)` hold the values they are built
from, so a parameter every caller passes such a mapping gets one dict per set of values. zfit's
loss `params` (a generator from one caller, dicts built so from the others) grew past
`MAX_ATOMS` on its dicts alone, and the cut, which keeps only tensor-like kinds, took the
generator with them: the functions iterating `params` no longer advanced a Python iterator
(HY108, 32 functions of zfit, all found again with this). Merging the dicts into one, as keyed dicts give up
their keys first (`unkeyed`), keeps every other atom.
"""

from __future__ import annotations

import itertools

from hybridize.analyzer.facts.atom_bounds import MAX_ATOMS, cap_atoms, join_capped
from hybridize.analyzer.facts.values import UNKNOWN_ATOM, dict_atom, seq_atom
from hybridize.analyzer.summaries.keys import FunctionKey

GENERATOR = seq_atom("generator", frozenset({UNKNOWN_ATOM}))

KINDS = [("lit", "int", None), ("lit", "str", None), ("lit", "bool", None), ("lit", "none", None)]
KINDS += [("tensor", dtype, None) for dtype in ("float32", "float64", "int32", "int64")]


def _dicts() -> list[tuple[object, ...]]:
    """One dict per pair of kinds: more than the cap keeps."""
    return [dict_atom(frozenset(pair)) for pair in itertools.combinations(KINDS, 2)]


def test_many_dicts_merge_into_one_and_the_generator_stays() -> None:
    dicts = _dicts()
    assert len(dicts) > MAX_ATOMS
    capped = cap_atoms([*dicts, GENERATOR])
    assert GENERATOR in capped
    (merged,) = [a for a in capped if a[0] == "dict"]
    assert merged == dict_atom(frozenset(KINDS))


def test_too_many_other_atoms_are_cut_as_before() -> None:
    """Merging the dicts would not bring the value within the cap: it is cut, dicts and all."""
    tensors = [("tensor", "float32", (i,)) for i in range(MAX_ATOMS + 2)]
    capped = cap_atoms([*tensors, *_dicts(), GENERATOR])
    assert GENERATOR not in capped
    assert capped == cap_atoms(tensors)


def test_a_join_merges_alike_and_an_entry_cut_stays_cut() -> None:
    entry = ("params", FunctionKey("m.py", "consume"), "params")
    cut: dict[tuple[str, FunctionKey, str], bool] = {}
    joined = join_capped([*_dicts(), GENERATOR], cut, entry)
    assert joined == cap_atoms([*_dicts(), GENERATOR])
    assert entry not in cut
    cut[entry] = False  # cut in an earlier round: only the cut form from now on
    assert GENERATOR not in join_capped([*_dicts(), GENERATOR], cut, entry)
