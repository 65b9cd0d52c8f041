"""The value vocabulary of the tensor analysis: atoms, and how sets of them are kept small.

Every symbolic value of the per-file summaries is evaluated to a set of *atoms*, the kinds of
value it may hold at run time:


    ("tensor", dtype, shape)     a TF tensor; dtype name or None, shape tuple or None
    ("variable", dtype, shape)   a tf.Variable (also a tensor)
    ("numpy", dtype[, shape])    a NumPy array (tensor-like as an argument); dtype or None
    ("symbolic",)                a Keras symbolic tensor (functional API)
    ("dataset",) ("iterator",)   tf.data datasets and their iterators
    ("obj", role, class_key)     an object of a known role: layer, model, optimizer, loss,
                                 metric, tape, strategy, file, logger, instance (project class)
    ("lit", type, value)         a Python literal (value None when computed)
    ("seq", kind, atoms)         a list/tuple/set whose elements are `atoms`
    ("tup", parts, kind)         a short tuple or list display: `parts[i]` holds element i
    ("dict", atoms)              a dict whose values are `atoms`
    ("func", key) ("method", key) ("class", key) ("module", relpath) ("ext", dotted)
    ("boundext", role, name)     a method of a framework object, e.g. tensor.numpy
    ("ext", "lib.C()[.member]")  what a call into a library the tables do not describe gave
                                 (`foreign_object`), where the compiler traces such code;
                                 otherwise as unknown as ("?",), which accompanies it
    ("python",)                  some other Python value
    ("?",)                       unknown

Sets of atoms are capped (`MAX_ATOMS`), containers nest at most `MAX_NESTING` deep, and a
join that was cut stays cut (`_join_capped`): what keeps the fixed point finite. The
evaluator (`evaluator.py`) computes atoms; the solver (`solver.py`) joins them project-wide.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

Atom = tuple
Atoms = frozenset[Atom]
Dep = tuple[str, str]
"""A fact an evaluation read: ("params", function), ("ret", function), ("attrs", class)."""

UNKNOWN_ATOM: Atom = ("?",)
TENSOR: Atom = ("tensor", None, None)
PYTHON: Atom = ("python",)
NO_ATOMS: Atoms = frozenset()
MAX_ATOMS = 24
MAX_ROUNDS = 60
MAX_FINAL_ROUNDS = 60
"""Safety bounds on the rounds of the fixed point (optimistic, then with unknowns explicit).
Termination comes from widening, not from these: an entry that changed in WIDEN_AFTER rounds
only grows from then on, over a finite shallow domain (`_widen`), so every entry settles.
Evidence moves at least one call down a chain per round, so the bounds are set well above
real call depths; past them the facts found so far are used and the run reports it."""
WIDEN_AFTER = 10
"""Rounds of a phase in which an entry of the project-wide facts (a function's parameter
evidence, its return, a class's attribute) may change before its shapes and literal values
are dropped (`Aggregate._settle`).

Flow-insensitive values that feed themselves through calls (`x = tf.concat([x, y], 0)` in a
loop, a counter passed to a recursive call) would otherwise take a new shape or value every
round and never settle. Widened, they range over a finite set, so the fixed point is
reached; every other entry keeps its shapes. A solution with no widened entry is the one an
edit can update (`Solver.update`); the Gauss-Seidel sweeps settle real libraries well within
it (Sonnet in 9 rounds, the corpus in 7)."""
MAX_TUPLE = 8

TENSOR_LIKE_KINDS = frozenset({"tensor", "variable", "numpy", "symbolic"})
KIND_REPRESENTATIVES: dict[str, Atom] = {
    "tensor": TENSOR,
    "variable": ("variable", None, None),
    "numpy": ("numpy", None),
    "symbolic": ("symbolic",),
}
"""The atom a collapsed value keeps for each tensor-like kind it may hold (`_cut`)."""
RETURN_ATOMS: dict[str, Atoms] = {
    "tensor": frozenset({TENSOR}),
    "tensors": frozenset({("seq", "list", frozenset({TENSOR})), TENSOR}),
    "variable": frozenset({("variable", None, None)}),
    "dataset": frozenset({("dataset",)}),
    "iterator": frozenset({("iterator",)}),
    "layer": frozenset({("obj", "layer", None)}),
    "model": frozenset({("obj", "model", None)}),
    "optimizer": frozenset({("obj", "optimizer", None)}),
    "loss": frozenset({("obj", "loss", None)}),
    "metric": frozenset({("obj", "metric", None)}),
    "tape": frozenset({("obj", "tape", None)}),
    "strategy": frozenset({("obj", "strategy", None)}),
    "file": frozenset({("obj", "file", None)}),
    "logger": frozenset({("obj", "logger", None)}),
    "keras_symbolic": frozenset({("symbolic",)}),
    "numpy": frozenset({("numpy", None)}),
    "dtype": frozenset({PYTHON}),
    "spec": frozenset({PYTHON}),
    "none": frozenset({("lit", "none", None)}),
    "python": frozenset({PYTHON}),
    "int": frozenset({("lit", "int", None)}),
    # A PyTorch `torch.Size`: a tuple of ints (a TensorFlow TensorShape may hold None).
    "shape": frozenset({("seq", "tuple", frozenset({("lit", "int", None)}))}),
    # `Tensor.size()` is a `torch.Size`, `Tensor.size(dim)` one int of it.
    "size": frozenset({("seq", "tuple", frozenset({("lit", "int", None)})), ("lit", "int", None)}),
    "object": frozenset({PYTHON}),
}


CONTAINER_OBJECT_RESULTS = frozenset({"tensor_array"})
"""What an op makes from symbolic arguments that is no symbolic tensor itself: a
`tf.TensorArray` sized by a symbolic value is a TensorArray all the same (what a fold's
callback returns of it decides whether it can be compiled)."""


def atoms_for_return(returns: str) -> Atoms:
    """Atoms for what a framework API returns; object roles keep their name for method lookup."""
    known = RETURN_ATOMS.get(returns)
    if known is not None:
        return known
    if returns == "unknown":
        return frozenset({UNKNOWN_ATOM})
    if returns == "list":
        return frozenset({("seq", "list", frozenset({UNKNOWN_ATOM}))})
    if returns == "dict":
        return frozenset({("dict", frozenset({UNKNOWN_ATOM}))})
    if returns == "set":
        return frozenset({("seq", "set", frozenset({UNKNOWN_ATOM}))})
    if returns == "dataset_iterator":
        return frozenset({("iterator",)})
    return frozenset({("obj", returns, None)})


def is_tensor_like(atom: Atom, depth: int = 0) -> bool:
    """A tensor, variable, NumPy array, Keras symbolic tensor, or a container holding one."""
    kind = atom[0]
    if kind in TENSOR_LIKE_KINDS:
        return True
    if depth < 3 and kind == "seq":
        return any(is_tensor_like(a, depth + 1) for a in atom[2])
    if depth < 3 and kind == "tup":
        return any(is_tensor_like(a, depth + 1) for part in atom[1] for a in part)
    if depth < 3 and kind == "dict":
        return any(is_tensor_like(a, depth + 1) for a in atom[1])
    return False


def is_primitive(atom: Atom, depth: int = 0) -> bool:
    """A Python int/float/str literal or a container of only such (booleans and None excluded).

    Containers include dicts (their values): `tf.function` keys its cache on every Python
    leaf of a nested argument, so `{"scale": 2.0}` retraces per value like `2.0` does.
    """
    if atom[0] == "lit":
        return atom[1] in ("int", "float", "str")
    if depth < 3 and atom[0] == "seq":
        return bool(atom[2]) and all(is_primitive(a, depth + 1) for a in atom[2])
    if depth < 3 and atom[0] == "dict":
        return bool(atom[1]) and all(is_primitive(a, depth + 1) for a in atom[1])
    if depth < 3 and atom[0] == "tup":
        return bool(atom[1]) and all(
            part and all(is_primitive(a, depth + 1) for a in part) for part in atom[1]
        )
    return False


FOREIGN_CALL = "()"
"""Marks an `ext` name as a value a foreign library's call gave, not one of its names."""


def foreign_object(dotted: str) -> str:
    """The name standing for what calling a foreign library's `dotted` gives: the callee's
    object, `sklearn.neighbors.NearestNeighbors()`, whatever member of such an object was
    called (`...NearestNeighbors().fit` gives the same name back). Bounded: chains of calls
    and attributes never grow it past one member (`foreign_member`)."""
    head, found, _ = dotted.partition(FOREIGN_CALL)
    return f"{head}{FOREIGN_CALL}" if found else f"{dotted}{FOREIGN_CALL}"


def foreign_member(dotted: str, name: str) -> str:
    """The name of attribute `name` of the `ext` value `dotted` (see `foreign_object`)."""
    head, found, _ = dotted.partition(FOREIGN_CALL)
    return f"{head}{FOREIGN_CALL}.{name}" if found else f"{dotted}.{name}"


def is_foreign_object(atom: Atom) -> bool:
    """A value a foreign library's call gave, or a member of one (`foreign_object`)."""
    return atom[0] == "ext" and FOREIGN_CALL in atom[1]


def is_unknown(atom: Atom) -> bool:
    """A value of unknown kind: ("?",), or a foreign library's object, which is no better
    known (it is kept apart only to tell that calling its methods runs that library)."""
    return atom[0] == "?" or is_foreign_object(atom)


def is_known_non_tensor(atom: Atom) -> bool:
    return not is_tensor_like(atom) and atom[0] != "?"


MAX_NESTING = 3
"""Deeper containers collapse to one summary atom: recursive data (trees of tuples) would
otherwise grow a new level on every round of the fixed point."""


def _shrink(atom: Atom, depth: int = 0) -> Atom:
    kind = atom[0]
    if kind not in ("seq", "tup", "dict"):
        return atom
    if depth >= MAX_NESTING:
        return _collapse(atom)
    if kind == "seq":
        return ("seq", atom[1], frozenset(_shrink(a, depth + 1) for a in atom[2]))
    if kind == "tup":
        parts = tuple(frozenset(_shrink(a, depth + 1) for a in part) for part in atom[1])
        return ("tup", parts, *atom[2:])
    return ("dict", frozenset(_shrink(a, depth + 1) for a in atom[1]))


def _collapse(container: Atom) -> Atom:
    """One summary atom for a container too deep to track: what matters of it downstream."""
    if is_tensor_like(container):
        return ("seq", "list", frozenset({TENSOR}))
    if is_primitive(container):
        return ("seq", "list", frozenset({("lit", "int", None)}))
    return UNKNOWN_ATOM if _has_unknown(container) else PYTHON


def _has_unknown(atom: Atom, depth: int = 0) -> bool:
    if atom[0] == "?":
        return True
    if depth > 6:
        return False
    if atom[0] == "seq":
        return any(_has_unknown(a, depth + 1) for a in atom[2])
    if atom[0] == "tup":
        return any(_has_unknown(a, depth + 1) for part in atom[1] for a in part)
    if atom[0] == "dict":
        return any(_has_unknown(a, depth + 1) for a in atom[1])
    return False


def leaf_atoms(atoms: Iterable[Atom], depth: int = 0) -> Iterator[Atom]:
    """The atoms a value may hold, looking into lists, tuples and dicts (to MAX_NESTING).

    Keras tracks layers kept in a list or dict attribute (`self.blocks = [Dense(8) for _ in
    range(3)]`) as sub-layers, and tf.function converts every leaf of a returned structure:
    both ask what the leaves are."""
    for atom in atoms:
        kind = atom[0]
        if depth < MAX_NESTING and kind == "seq":
            yield from leaf_atoms(atom[2], depth + 1)
        elif depth < MAX_NESTING and kind == "tup":
            for part in atom[1]:
                yield from leaf_atoms(part, depth + 1)
        elif depth < MAX_NESTING and kind == "dict":
            yield from leaf_atoms(atom[1], depth + 1)
        else:
            yield atom


CONTAINER_KINDS = frozenset({"seq", "tup", "dict"})
PYTHON_SEQUENCE_KINDS = frozenset({"seq", "tup"})
"""Atoms of Python sequences (lists, tuples, ranges): an index must be a Python int, and a
symbolic tensor raises "list indices must be integers or slices"."""


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


def _cap(atoms: Iterable[Atom]) -> Atoms:
    result = _shrunk_containers(atoms)
    return _cut(result, collapse=False) if len(result) > MAX_ATOMS else result


def _shrunk_containers(atoms: Iterable[Atom]) -> Atoms:
    result = atoms if type(atoms) is frozenset else frozenset(atoms)
    for a in result:
        if a[0] in CONTAINER_KINDS:
            return frozenset(_shrunk(a) if a[0] in CONTAINER_KINDS else a for a in result)
    return result


def _cut(result: Atoms, *, collapse: bool) -> Atoms:
    """Too many kinds to track: keep whether it may be a tensor (a deterministic choice, so
    that the same input always gives the same output and the fixed point settles); with
    `collapse`, or when the tensor-like kinds alone are too many, only which kinds of tensor
    it may be: one atom per kind, so that a Keras symbolic tensor, a variable or a NumPy array
    among many tensors of different shapes stays known (tf-models' `vertical_flip_boxes` lost
    its symbolic caller when comparisons gave more tensor shapes)."""
    tensor_like = [a for a in result if is_tensor_like(a)]
    if tensor_like and (collapse or len(tensor_like) >= MAX_ATOMS):
        return frozenset({KIND_REPRESENTATIVES.get(a[0], TENSOR) for a in tensor_like}) | {
            UNKNOWN_ATOM
        }
    return frozenset([*tensor_like, UNKNOWN_ATOM])


CutEntry = tuple[str, str, str]
"""A fact of the joined tables: (table, function or class, name)."""


def _join_capped(joined: Iterable[Atom], cut: dict[CutEntry, bool], entry: CutEntry) -> Atoms:
    """A widened fact joined with its last value, capped once and for all.

    A fact cut at MAX_ATOMS must stay cut: otherwise the cut value joined with the next
    round's evaluations fits under the cap again, grows past it, is cut again, and the fixed
    point oscillates with period two (it did on TensorFlow's own `python/ops`). So `cut`
    remembers every entry cut in the widening rounds of a phase (True once its tensor-like
    kinds were collapsed too), and those entries only ever get the cut form of their join,
    which grows monotonically over a finite domain."""
    result = _shrunk_containers(joined)
    collapsed = cut.get(entry)
    if collapsed is None and len(result) <= MAX_ATOMS:
        return result
    collapse = bool(collapsed) or sum(map(is_tensor_like, result)) >= MAX_ATOMS
    cut[entry] = collapse
    return _cut(result, collapse=collapse)


def _merge_tensor_specs(atoms: Atoms) -> Atoms:
    """Collapse many tensor atoms with different shapes into one of unknown shape."""
    tensors = [a for a in atoms if a[0] == "tensor"]
    if len(tensors) <= 4:
        return atoms
    dtypes = {a[1] for a in tensors}
    merged = ("tensor", dtypes.pop() if len(dtypes) == 1 else None, None)
    return frozenset([a for a in atoms if a[0] != "tensor"] + [merged])
