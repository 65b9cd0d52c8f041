"""The value vocabulary of the tensor analysis: atoms, the kinds of value a symbol may hold.

Every symbolic value of the per-file summaries is evaluated to a set of *atoms* (`Atom`).

The questions asked of atoms (is it tensor-like, unknown, what are its leaves) are in
`predicates.py`; how sets of them are kept small enough for the fixed point to be finite,
in `atom_bounds.py`. The evaluator (`evaluator.py`) computes atoms; the solver
(`solver.py`) joins them project-wide.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Literal, TypeGuard, TypeVar

from hybridize.analyzer.summaries.keys import FunctionKey

Atom = tuple
"""A kind of value a symbolic value may hold at run time: a plain tuple (no class: sets of
them are the solver's hot path), whose first element names its kind:

    ("tensor", dtype, shape)     a TF tensor; dtype name or None, shape tuple or None
    ("tensor", dtype, shape, spec)
                                 a composite tensor: `spec` the name of its TypeSpec class
                                 ("SparseTensorSpec", "RaggedTensorSpec")
    ("variable", dtype, shape)   a tf.Variable (also a tensor)
    ("numpy", dtype[, shape])    a NumPy array (tensor-like as an argument); dtype or None
    ("symbolic",)                a Keras symbolic tensor (functional API)
    ("dataset",) ("iterator",)   tf.data datasets and their iterators
    ("obj", role, class_key)     an object of a known role: layer, model, optimizer, loss,
                                 metric, tape, strategy, file, logger, instance; class_key
                                 the project class (a `ClassKey`) or None
    ("obj", role, class_key, config)
                                 a framework object the analysis knows more of
                                 (`ObjConfig`): a container module's chain of modules, a
                                 dense layer's units
    ("lit", type, value)         a Python literal (value None when computed)
    ("seq", kind, atoms)         a list/tuple/set whose elements are `atoms`
    ("tup", parts, kind)         a short tuple or list display: `parts[i]` holds element i
    ("dict", atoms)              a dict whose values are `atoms`
    ("dict", atoms, keyed)       a short dict display with string keys: `keyed`, (key, the
                                 atoms of its value) per key, for a read by a constant key
    ("func", key) ("method", key) ("class", key)
                                 a project function, method or class, by its `FunctionKey`
    ("super", class_key)         what `super()` gives in a method of the project class
    ("module", relpath)          a project module
    ("ext", dotted)              a name outside the project (`tensorflow.matmul`)
    ("boundext", role, name)     a method of a framework object, e.g. tensor.numpy
    ("ext", "lib.C()[.member]")  what a call into a library the tables do not describe gave
                                 (`foreign_object`), where the compiler traces such code;
                                 otherwise as unknown as ("?",), which accompanies it
    ("python",)                  some other Python value
    ("python", "spec")           a `tf.TypeSpec` (`SPEC`): a Python value to every rule that
                                 asks for one (`is_python_atom`), kept apart because
                                 tf.function refuses it as an argument or a result (HY427)
    ("?",)                       unknown
"""
Atoms = frozenset[Atom]
Dep = tuple[str, FunctionKey]
"""A fact an evaluation read: ("params", function), ("ret", function), ("attrs", class)."""

AtomKind = Literal[
    "?",
    "tensor",
    "variable",
    "numpy",
    "symbolic",
    "dataset",
    "iterator",
    "obj",
    "lit",
    "seq",
    "tup",
    "dict",
    "func",
    "method",
    "class",
    "super",
    "module",
    "ext",
    "boundext",
    "python",
]
"""The kinds of atom: what a dispatch on an atom's kind reads, typed (`kind: AtomKind =
atom[0]` where the dispatch is hot, `atom_kind(atom)` elsewhere), so that mypy's
strict equality rejects a comparison with a kind no atom has."""

Shape = tuple[int | None, ...] | None
"""A tensor's static shape: one entry per axis (None where unknown), None for an unknown rank."""

TensorAtom = (
    tuple[Literal["tensor"], str | None, Shape] | tuple[Literal["tensor"], str | None, Shape, str]
)
VariableAtom = tuple[Literal["variable"], str | None, Shape]
NumpyAtom = tuple[Literal["numpy"], str | None] | tuple[Literal["numpy"], str | None, Shape]
SymbolicAtom = tuple[Literal["symbolic"]]
DatasetAtom = tuple[Literal["dataset"]]
IteratorAtom = tuple[Literal["iterator"]]
ChainConfig = tuple[Literal["chain"], tuple[Atoms, ...]]
"""A container module (`nn.Sequential(a, b)`): the modules it calls in turn, position by
position, each the atoms of one argument of its constructor."""
DenseConfig = tuple[Literal["dense"], int]
"""A dense layer (`Dense(units)`): the size of its output's last axis."""
PartialConfig = tuple[Literal["partial"], Atoms, tuple[Atoms, ...], tuple[tuple[str, Atoms], ...]]
"""A `functools.partial` object: the callables it wraps (project functions, methods,
classes, modules), the positional arguments it prepends and the keywords it adds to a call."""
ObjConfig = ChainConfig | DenseConfig | PartialConfig
"""What an `ObjAtom`'s optional fourth element knows of a framework object."""
ObjAtom = (
    tuple[Literal["obj"], str, FunctionKey | None]
    | tuple[Literal["obj"], str, FunctionKey | None, ObjConfig]
)
LitAtom = tuple[Literal["lit"], str, object]
SeqAtom = tuple[Literal["seq"], str, Atoms]
TupAtom = tuple[Literal["tup"], tuple[Atoms, ...], str]
DictAtom = (
    tuple[Literal["dict"], Atoms] | tuple[Literal["dict"], Atoms, tuple[tuple[str, Atoms], ...]]
)
FuncAtom = tuple[Literal["func"], FunctionKey]
MethodAtom = tuple[Literal["method"], FunctionKey]
ClassAtom = tuple[Literal["class"], FunctionKey]
SuperAtom = tuple[Literal["super"], FunctionKey]
ModuleAtom = tuple[Literal["module"], str]
ExtAtom = tuple[Literal["ext"], str]
BoundExtAtom = tuple[Literal["boundext"], str, str]
PythonAtom = tuple[Literal["python"]] | tuple[Literal["python"], Literal["spec"]]

UNKNOWN_ATOM: Atom = ("?",)
TENSOR: Atom = ("tensor", None, None)
PYTHON: Atom = ("python",)
SPEC: Atom = ("python", "spec")
SYMBOLIC: SymbolicAtom = ("symbolic",)
DATASET: DatasetAtom = ("dataset",)
ITERATOR: IteratorAtom = ("iterator",)
NONE_ATOM: LitAtom = ("lit", "none", None)
INT: LitAtom = ("lit", "int", None)
FLOAT: LitAtom = ("lit", "float", None)
STR: LitAtom = ("lit", "str", None)
BOOL: LitAtom = ("lit", "bool", None)
"""A Python value of the type, computed (its value not kept)."""
NO_ATOMS: Atoms = frozenset()
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
    "spec": frozenset({SPEC}),
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


FOREIGN_CALL = "()"
"""Marks an `ext` name as a value a foreign library's call gave, not one of its names
(`predicates.is_foreign_object` tells such values)."""


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


MAX_NESTING = 3
"""Deeper containers collapse to one summary atom (`atom_bounds.cap_atoms`): recursive data
(trees of tuples) would otherwise grow a new level on every round of the fixed point."""


CONTAINER_KINDS = frozenset({"seq", "tup", "dict"})
PYTHON_SEQUENCE_KINDS = frozenset({"seq", "tup"})
"""Atoms of Python sequences (lists, tuples, ranges): an index must be a Python int, and a
symbolic tensor raises "list indices must be integers or slices"."""


# One constructor per kind: no module writes an atom's tuple by hand. Plain functions over
# plain tuples (see `summaries/syms.py` for why atoms are no objects); the evaluator builds
# atoms where a value's evaluation is memoised, not per atom of the fixed point.


def atom_kind(atom: Atom) -> AtomKind:
    """The kind of an atom, typed (see `AtomKind`)."""
    kind: AtomKind = atom[0]
    return kind


def tensor_atom(dtype: str | None, shape: Shape, spec: str | None = None) -> TensorAtom:
    """A tensor of `dtype` and `shape` (either None where unknown); a composite one when
    `spec` names its TypeSpec class ("SparseTensorSpec", "RaggedTensorSpec")."""
    return ("tensor", dtype, shape) if spec is None else ("tensor", dtype, shape, spec)


def variable_atom(dtype: str | None, shape: Shape) -> VariableAtom:
    return ("variable", dtype, shape)


def numpy_atom(dtype: str | None) -> NumpyAtom:
    """A NumPy array of `dtype` whose shape is not followed (no shape element at all)."""
    return ("numpy", dtype)


def shaped_numpy_atom(dtype: str | None, shape: Shape) -> NumpyAtom:
    """A NumPy array whose shape was looked for (`shape` None: looked for, not found)."""
    return ("numpy", dtype, shape)


def obj_atom(role: str, class_key: FunctionKey | None, config: ObjConfig | None = None) -> ObjAtom:
    """An object of a known `role`, of the project class `class_key` (None: a framework's);
    `config`, what more is known of it (`ObjConfig`)."""
    if config is None:
        return ("obj", role, class_key)
    return ("obj", role, class_key, config)


def chain_config(positions: tuple[Atoms, ...]) -> ChainConfig:
    return ("chain", positions)


def dense_config(units: int) -> DenseConfig:
    return ("dense", units)


def canonical(value: object) -> str:
    """`repr(value)` with every set in it written in sorted order: the same text for the same
    value in every run, the order to sort atoms by where the result must not depend on how a
    set iterates. `repr` is not that: a set's repr follows its iteration order, which follows
    the hashes of its elements, and on Python before 3.12 the hash of `None` (in most atoms:
    an unknown dtype, shape or class) is its address, which changes from run to run."""
    # most values are strings, then tuples (atoms, keys): tested first (no value is both a
    # tuple and a set)
    if type(value) is str:
        return repr(value)
    if isinstance(value, tuple):
        inner = ", ".join(map(canonical, value))
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, (frozenset, set)):
        return "{" + ", ".join(sorted(map(canonical, value))) + "}"
    return repr(value)


canonical_atom = functools.lru_cache(maxsize=4096)(canonical)
"""`canonical` of an atom, memoised (a few thousand kept): the fixed point orders the same
callee atoms of a call again at every round it evaluates the call."""

_A = TypeVar("_A")
_R = TypeVar("_R")


def first_in_canonical_order(atoms: Iterable[_A], found: Callable[[_A], _R | None]) -> _R | None:
    """`found(atom)` of the first atom in `canonical` order for which it is not None: what
    iterating `sorted(atoms, key=canonical)` until the first answer gives, for a pure `found`
    (asked of every atom, in any order: it may fill no memo that another answer reads). Only
    the answered atoms are ordered, most sets have none or one, and `canonical` of a nested
    atom is a walk of all of it (memoised: `canonical_atom`; the same large atoms, a class's
    instances, are ordered again for every function that receives them)."""
    answered = [(atom, value) for atom in atoms if (value := found(atom)) is not None]
    if not answered:
        return None
    if len(answered) == 1:
        return answered[0][1]
    return min(answered, key=lambda pair: canonical_atom(pair[0]))[1]


def partial_config(
    wrapped: Atoms, args: tuple[Atoms, ...], kwargs: tuple[tuple[str, Atoms], ...]
) -> PartialConfig:
    return ("partial", wrapped, args, kwargs)


def partial_wrapped(config: PartialConfig) -> Atoms:
    """What a `functools.partial` object calls."""
    return config[1]


def partial_args(config: PartialConfig) -> tuple[Atoms, ...]:
    """The positional arguments a `functools.partial` object puts before a call's."""
    return config[2]


def partial_keywords(config: PartialConfig) -> dict[str, Atoms]:
    """The keywords a `functools.partial` object adds to a call (the call's win)."""
    return dict(config[3])


def lit_atom(type_name: str, value: object = None) -> LitAtom:
    """A Python literal of `type_name` ("int", "str"...); `value` None when computed."""
    return ("lit", type_name, value)


def seq_atom(kind: str, elements: Atoms) -> SeqAtom:
    """A "list", "tuple", "set" or "range" whose elements are `elements`."""
    return ("seq", kind, elements)


def tup_atom(parts: tuple[Atoms, ...], kind: str = "tuple") -> TupAtom:
    """A short "tuple" or "list" display: `parts[i]`, the atoms of element i."""
    return ("tup", parts, kind)


def dict_atom(values: Atoms) -> DictAtom:
    return ("dict", values)


def keyed_dict_atom(values: Atoms, keyed: tuple[tuple[str, Atoms], ...]) -> DictAtom:
    """A dict display whose keys are the string literals of `keyed`, each with the atoms of
    its value (`values`, their union): what reading it back by a constant key gives."""
    return ("dict", values, keyed)


def is_keyed_dict(atom: Atom) -> TypeGuard[DictAtom]:
    """A dict that keeps its keys (`keyed_dict_atom`)."""
    return is_dict_atom(atom) and len(atom) > 2


def dict_value_at(atom: DictAtom, key: str) -> Atoms | None:
    """The atoms a keyed dict holds at `key` (`keyed_dict_atom`); None where unknown (a
    dict of unkeyed values, or a key the display does not write)."""
    if len(atom) > 2:
        for name, value in atom[2]:
            if name == key:
                return value
    return None


def func_atom(key: FunctionKey) -> FuncAtom:
    return ("func", key)


def method_atom(key: FunctionKey) -> MethodAtom:
    return ("method", key)


def class_atom(key: FunctionKey) -> ClassAtom:
    return ("class", key)


def super_atom(class_key: FunctionKey) -> SuperAtom:
    return ("super", class_key)


def module_atom(relpath: str) -> ModuleAtom:
    return ("module", relpath)


def ext_atom(dotted: str) -> ExtAtom:
    return ("ext", dotted)


def boundext_atom(role: str, name: str) -> BoundExtAtom:
    """The method `name` of a framework object of `role` (`tensor.numpy`, `dict.items`)."""
    return ("boundext", role, name)


# Named fields of the kinds read by position elsewhere.


def obj_role(atom: ObjAtom) -> str:
    """An object's role ("layer", "model", "optimizer"... `values.RETURN_ATOMS`)."""
    return atom[1]


def super_class(atom: SuperAtom) -> FunctionKey:
    """The class whose `super()` this is (its MRO after it is searched)."""
    return atom[1]


def obj_class(atom: ObjAtom) -> FunctionKey | None:
    """The project class of an object, None for a framework's own object."""
    return atom[2]


def project_key(atom: FuncAtom | MethodAtom | ClassAtom) -> FunctionKey:
    """The project function, method or class a callable atom is."""
    return atom[1]


def ext_name(atom: ExtAtom) -> str:
    """The canonical dotted name of something outside the project."""
    return atom[1]


def boundext_role(atom: BoundExtAtom) -> str:
    """The role of the framework object whose method a bound method is."""
    return atom[1]


def obj_config(atom: ObjAtom) -> ObjConfig | None:
    """What more is known of an object (`ObjConfig`), None when nothing is."""
    return atom[3] if len(atom) > 3 else None


def is_chain_config(config: ObjConfig | None) -> TypeGuard[ChainConfig]:
    """A container module's chain of modules."""
    return config is not None and config[0] == "chain"


def is_dense_config(config: ObjConfig | None) -> TypeGuard[DenseConfig]:
    """A dense layer's units."""
    return config is not None and config[0] == "dense"


def is_partial_config(config: ObjConfig | None) -> TypeGuard[PartialConfig]:
    """A `functools.partial` object's callables and bound arguments."""
    return config is not None and config[0] == "partial"


def tensor_spec_class(atom: TensorAtom | VariableAtom | NumpyAtom) -> str:
    """The TypeSpec class of what tf.function receives for a tensor: a composite tensor's
    own, "TensorSpec" for the rest (a NumPy array too)."""
    return atom[3] if len(atom) > 3 else "TensorSpec"


# The kinds of atom, tested by name (`is_tensor_atom(atom)` narrows `atom` to `TensorAtom`):
# atoms stay plain tuples (see `summaries/syms.py` for why).


def is_unknown_kind(atom: Atom) -> bool:
    """The atom ("?",) itself; `predicates.is_unknown` also counts a foreign object."""
    return atom[0] == "?"


def is_tensor_atom(atom: Atom) -> TypeGuard[TensorAtom]:
    """A TF (or torch) tensor."""
    return atom[0] == "tensor"


def is_variable_atom(atom: Atom) -> TypeGuard[VariableAtom]:
    """A variable (also a tensor)."""
    return atom[0] == "variable"


def is_numpy_atom(atom: Atom) -> TypeGuard[NumpyAtom]:
    """A NumPy array."""
    return atom[0] == "numpy"


def is_symbolic_atom(atom: Atom) -> TypeGuard[SymbolicAtom]:
    """A Keras symbolic tensor."""
    return atom[0] == "symbolic"


def is_dataset_atom(atom: Atom) -> TypeGuard[DatasetAtom]:
    """A tf.data dataset."""
    return atom[0] == "dataset"


def is_iterator_atom(atom: Atom) -> TypeGuard[IteratorAtom]:
    """An iterator over a dataset."""
    return atom[0] == "iterator"


def is_obj_atom(atom: Atom) -> TypeGuard[ObjAtom]:
    """An object of a known role."""
    return atom[0] == "obj"


def is_lit_atom(atom: Atom) -> TypeGuard[LitAtom]:
    """A Python literal."""
    return atom[0] == "lit"


def is_seq_atom(atom: Atom) -> TypeGuard[SeqAtom]:
    """A list, tuple or set of `atoms`."""
    return atom[0] == "seq"


def is_tup_atom(atom: Atom) -> TypeGuard[TupAtom]:
    """A short tuple or list display."""
    return atom[0] == "tup"


def tup_parts(atom: TupAtom) -> tuple[Atoms, ...]:
    """The atoms of each element of a tuple or list display."""
    return atom[1]


def is_dict_atom(atom: Atom) -> TypeGuard[DictAtom]:
    """A dict of `atoms`."""
    return atom[0] == "dict"


def is_func_atom(atom: Atom) -> TypeGuard[FuncAtom]:
    """A project function."""
    return atom[0] == "func"


def is_method_atom(atom: Atom) -> TypeGuard[MethodAtom]:
    """A project method."""
    return atom[0] == "method"


def is_class_atom(atom: Atom) -> TypeGuard[ClassAtom]:
    """A project class."""
    return atom[0] == "class"


def is_module_atom(atom: Atom) -> TypeGuard[ModuleAtom]:
    """A project module."""
    return atom[0] == "module"


def is_ext_atom(atom: Atom) -> TypeGuard[ExtAtom]:
    """A name outside the project."""
    return atom[0] == "ext"


def is_boundext_atom(atom: Atom) -> TypeGuard[BoundExtAtom]:
    """A method of a framework object."""
    return atom[0] == "boundext"


def is_python_atom(atom: Atom) -> TypeGuard[PythonAtom]:
    """Some other Python value."""
    return atom[0] == "python"


def is_super_atom(atom: Atom) -> TypeGuard[SuperAtom]:
    """What `super()` gives."""
    return atom[0] == "super"
