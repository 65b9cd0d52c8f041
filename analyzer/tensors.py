"""The tensor analysis: which values are tensors, solved across the whole project.

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
    ("python",)                  some other Python value
    ("?",)                       unknown

Parameters get the atoms of the arguments at their call sites (from anywhere in the project),
return values flow back to callers, attributes stored on `self` flow to every method of the
class; all of it is iterated to a fixed point.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TypeVar

from hybridize.analyzer.frameworks import ApiInfo, lookup, lookup_attribute, lookup_method
from hybridize.analyzer.frameworks.framework import compiler_named
from hybridize.analyzer.frameworks.python_stdlib import COMMAND_LINE_FLAGS
from hybridize.analyzer.ir import CallSite, FunctionSummary, Sym
from hybridize.analyzer.resolve import UNKNOWN_REF, ProjectIndex, Ref
from hybridize.analyzer.shapes import (
    Shape,
    broadcast,
    infer_spec,
    literal_ints,
    matmul_shape,
    numpy_dtype,
    numpy_result_dtype,
    numpy_shape,
)
from hybridize.analyzer.test_parameters import (
    PYTEST_PARAMETRIZE,
    absl_cases,
    is_tuple_display,
    pytest_cases,
    receives_cases,
)
from hybridize.model import Span

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
Termination comes from widening, not from these: after WIDEN_AFTER rounds facts only grow,
over a finite shallow domain (`_widen`). Evidence moves one call down a chain per round, so
the bounds are set well above real call depths (TensorFlow's own ops settle in about 25);
past them the facts found so far are used and the run reports it."""
WIDEN_AFTER = 6
"""Rounds after which shapes and literal values are dropped from the project-wide facts.

Flow-insensitive values that feed themselves through calls (`x = tf.concat([x, y], 0)` in a
loop, a counter passed to a recursive call) would otherwise take a new shape or value every
round and never settle. Without them the facts range over a finite set, so the fixed point
is reached; projects that settle earlier keep every shape."""
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
    tensor_like = sorted((a for a in result if is_tensor_like(a)), key=repr)
    if tensor_like and (collapse or len(tensor_like) >= MAX_ATOMS):
        tensor_like = sorted(
            {KIND_REPRESENTATIVES.get(a[0], TENSOR) for a in tensor_like}, key=repr
        )
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


@dataclass(frozen=True, slots=True)
class LiteralSite:
    """A call site passing a parameter only Python literals, or a value of unknown kind."""

    caller: str
    span: Span
    argument: Sym
    unknown_kind: bool = False


@dataclass(slots=True)
class ResolvedCall:
    """A call site with what it reaches: project functions/classes and framework knowledge."""

    site: CallSite
    index: int
    callee_atoms: Atoms
    targets: list[tuple[str, str]]  # (kind, key): ("func"|"method"|"class"|"layer_call", key)
    api: list[ApiInfo]
    receiver_roles: list[str]
    """Roles of framework objects called directly: `layer(x)`, `loss_fn(y, p)`."""
    args: list[Atoms]
    kwargs: dict[str, Atoms]
    result: Atoms
    chained: dict[str, list[Atoms]] = field(default_factory=dict)
    """Targets a container module calls on another value than the call's arguments (the
    second module of an `nn.Sequential` gets the first one's output): their arguments."""


@dataclass(slots=True)
class TensorFacts:
    """The solution: per-function parameter evidence, returns, calls; per-class attributes."""

    param_atoms: dict[str, dict[str, set[Atom]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(set))
    )
    primitive_params: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    unknown_kind_params: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    """Parameters some caller fills with a value of unknown kind (maybe a Python literal)."""
    literal_sites: dict[str, dict[str, list[LiteralSite]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(list))
    )
    """Callee -> parameter -> the call sites that pass it only Python literals (or values of
    unknown kind): which caller, where, and the argument as written (see `retracing`)."""
    callers: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    callback_callers: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    external_evidence: dict[str, dict[str, set[Atom]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(set))
    )
    """Argument kinds from call sites outside the function itself (recursive calls excluded:
    their arguments derive from the parameter they feed)."""
    call_count: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    returns: dict[str, Atoms] = field(default_factory=dict)
    attrs: dict[str, dict[str, set[Atom]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(set))
    )
    calls: dict[str, list[ResolvedCall]] = field(default_factory=dict)
    traced_callbacks: set[str] = field(default_factory=set)
    """Callbacks TensorFlow traces whatever the caller's mode (`Dataset.map`, `tf.function`)."""
    caller_mode_callbacks: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    """Callback -> the functions that hand it to an API running it in their mode (`tf.map_fn`)."""
    wrapped_by_tf_function: set[str] = field(default_factory=set)
    wrapper_arguments: dict[str, set[str]] = field(default_factory=dict)
    wrapper_signatures: dict[str, tuple[str, Sym]] = field(default_factory=dict)
    symbolic_args: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    evaluators: dict[str, Evaluator] = field(default_factory=dict)
    final: bool = False
    latest_evaluators: dict[str, Evaluator] = field(default_factory=dict)
    rounds: int = 0
    converged: bool = True
    """False when the round bounds stopped the fixed point before it settled."""
    cache: dict[str, object] = field(default_factory=dict)
    internal_errors: dict[str, str] = field(default_factory=dict)
    """Functions the analysis failed on, with the error: they get unknown facts."""
    """Derived project-wide facts computed once from the solution (by later stages)."""
    """Set for the last round: parameters nobody passes are then unknown, not empty."""


def get_evaluator(index: ProjectIndex, facts: TensorFacts, key: str) -> Evaluator:
    """One evaluator (and memo) per function per round of the fixed point."""
    evaluator = facts.evaluators.get(key)
    if evaluator is None:
        evaluator = Evaluator(index, facts, key)
        facts.evaluators[key] = evaluator
    return evaluator


class Evaluator:
    """Evaluates the symbolic values of one function under the current solution."""

    def __init__(self, index: ProjectIndex, facts: TensorFacts, key: str) -> None:
        self.index = index
        self.facts = facts
        self.key = key
        self.relpath = key.split("::", 1)[0]
        self.fn: FunctionSummary = index.function(key)
        self.memo: dict[Sym, Atoms] = {}
        self.call_results: dict[int, Atoms] = {}
        self.active: set[Sym] = set()
        self.partial: dict[Sym, Atoms] = {}
        self.deps: set[Dep] = {("params", key)}
        self.optimistic = False
        """Set when a missing fact was read as "nothing yet" rather than "unknown"."""
        """The facts this evaluation read: re-evaluate when one of them changes."""
        self.class_key = (
            f"{self.relpath}::{self.fn.class_qualname}" if self.fn.class_qualname else None
        )
        self.framework = index.code_framework(self.relpath)
        """Whose tables answer the methods and attributes of this function's values."""

    # ------------------------------------------------------------------ values

    def eval(self, sym: Sym) -> Atoms:
        cached = self.memo.get(sym)
        if cached is not None:
            return cached
        if sym[0] != "local":
            # Symbolic values are trees; only a local variable can lead back to itself.
            result = _cap(self._eval(sym))
            self.memo[sym] = result
            return result
        if sym in self.active:
            # A cycle (`ds = ds.batch(2)`): use what the earlier assignments gave so far.
            return self.partial.get(sym, NO_ATOMS)
        self.active.add(sym)
        try:
            result = _cap(self._eval(sym))
        finally:
            self.active.discard(sym)
        self.memo[sym] = result
        return result

    def _eval(self, sym: Sym) -> Iterable[Atom]:
        kind = sym[0]
        if kind == "lit":
            return (sym,)
        if kind == "param":
            return self._param(sym[1])
        if kind == "local":
            out: set[Atom] = set()
            for value in self.fn.locals.get(sym[1], ()):
                out |= self.eval(value)
                self.partial[sym] = frozenset(out)
            return out
        if kind == "name":
            return self._free_name(sym[1])
        if kind == "attr":
            out = set()
            for atom in self.eval(sym[1]):
                out.update(self.attribute(atom, sym[2]))
            return out
        if kind == "item":
            out = set()
            for atom in self.eval(sym[1]):
                out.update(_item(atom, sym[2]))
            return out
        if kind == "call":
            return self.call_result(sym[1])
        if kind == "op":
            return _operation([self.eval(o) for o in sym[1]], sym[2] if len(sym) > 2 else None)
        if kind == "iter":
            out = set()
            for atom in self.eval(sym[1]):
                out.update(_iterate(atom))
            return out
        if (
            kind == "seq"
            and sym[1] in ("tuple", "list")
            and len(sym[2]) <= MAX_TUPLE
            and all(e[0] != "iter" for e in sym[2])
        ):
            # Short tuple and list displays keep their positions: `x, y = f()` must not mix
            # the kinds of x and y, and `tf.zeros([4, 8])` has a shape.
            return (("tup", tuple(self.eval(e) for e in sym[2]), sym[1]),)
        if kind == "seq":
            elements: set[Atom] = set()
            for element in sym[2]:
                elements |= self.eval(element)
            return (("seq", sym[1], _cap(elements)),)
        if kind == "dict":
            values: set[Atom] = set()
            for value in sym[1]:
                values |= self.eval(value)
            return (("dict", _cap(values)),)
        if kind == "cond":
            out = set()
            for option in sym[1]:
                out |= self.eval(option)
            return out
        if kind == "def":
            return (("func", f"{self.relpath}::{sym[1]}"),)
        if kind == "class":
            return (("class", f"{self.relpath}::{sym[1]}"),)
        if kind == "import":
            from hybridize.analyzer.ir import ImportSummary

            ref = self.index.resolve_import(ImportSummary("", sym[1], sym[2]), self.relpath)
            return self.ref_atoms(ref)
        if kind == "enter":
            out = set()
            for atom in self.eval(sym[1]):
                out.add(atom)
            return out
        if kind in ("fresh", "slice"):
            return (PYTHON,)
        if kind == "fstr":
            return (("lit", "str", None),)
        return (UNKNOWN_ATOM,)

    def _param(self, name: str) -> Iterable[Atom]:
        fn = self.fn
        if fn.binds_receiver and fn.params and fn.params[0].name == name and self.class_key:
            if "classmethod" in {d.name for d in fn.decorators}:
                return (("class", self.class_key),)
            return (("obj", self.index.object_role(self.class_key), self.class_key),)
        evidence = self.facts.param_atoms[self.key].get(name)
        param = next((p for p in fn.params if p.name == name), None)
        out: set[Atom] = set(evidence) if evidence else set()
        if param is not None:
            hinted = self.hint_atoms(param.annotation)
            out |= hinted
            if param.kind == "vararg":
                out = (
                    {("seq", "tuple", _cap(out))}
                    if out
                    else {("seq", "tuple", frozenset({UNKNOWN_ATOM}))}
                )
            elif param.kind == "kwarg":
                out = {("dict", _cap(out))} if out else {("dict", frozenset({UNKNOWN_ATOM}))}
            if param.default is not None and param.default != ("lit", "none", None):
                # Defaults are evaluated where the `def` runs, not in the body.
                owner = get_evaluator(self.index, self.facts, self.index.owner_key(self.key))
                out |= owner.eval(param.default)
                self.deps |= owner.deps
        if out:
            return out
        if self._is_keras_build_shape(name):
            return (PYTHON,)
        # No evidence yet: optimistic while iterating (so a self-call cannot keep "unknown"
        # alive), honest in the final round.
        self.optimistic = True
        return (UNKNOWN_ATOM,) if self.facts.final else ()

    def _is_keras_build_shape(self, name: str) -> bool:
        """Keras calls `build(input_shape)` with a shape (a tuple or TensorShape), not data."""
        fn = self.fn
        explicit = fn.explicit_params
        return (
            fn.name == "build"
            and self.class_key is not None
            and bool(explicit)
            and explicit[0].name == name
            and self.index.keras_role(self.class_key) is not None
        )

    def hint_atoms(self, annotation: str | None) -> Atoms:
        """Atoms a type hint promises: tf.Tensor, tf.Variable, ragged/sparse, np.ndarray."""
        if not annotation:
            return NO_ATOMS
        text = annotation.replace(" ", "")
        head = text.split("[", 1)[0]
        if head.replace(".", "").isidentifier():
            ref = self.index.resolve_dotted(self.relpath, head)
            name = ref[1] if ref[0] == "ext" else head
        else:
            name = text
        last = name.rsplit(".", 1)[-1]
        if name.startswith("tensorflow") or head.startswith(("tf.", "tensorflow.")):
            if last in ("Tensor", "RaggedTensor", "SparseTensor", "IndexedSlices", "TensorLike"):
                return frozenset({TENSOR})
            if last == "Variable":
                return frozenset({("variable", None, None)})
        if name in ("numpy.ndarray", "numpy.typing.NDArray"):
            return frozenset({("numpy", None)})
        return NO_ATOMS

    def _free_name(self, name: str) -> Iterable[Atom]:
        fn = self.fn
        if (
            name in fn.locals
            and fn.qualname != "<module>"
            and name not in fn.globals_declared
            and name not in fn.nonlocals_declared
        ):
            # Bound inside an expression (walrus, comprehension): local all the same.
            return self.eval(("local", name))
        # Closures: a name bound in an enclosing function.
        parent = self.fn.parent_qualname
        while parent is not None:
            parent_key = f"{self.relpath}::{parent}"
            parent_fn = self.index.function(parent_key)
            if name in parent_fn.locals:
                parent_evaluator = get_evaluator(self.index, self.facts, parent_key)
                result = parent_evaluator.eval(("local", name))
                self.deps |= parent_evaluator.deps
                return result
            parent = parent_fn.parent_qualname
        return self.ref_atoms(self.index.resolve_global(self.relpath, name))

    def ref_atoms(self, ref: Ref) -> Atoms:
        kind = ref[0]
        if kind == "func":
            return frozenset({("func", ref[1])})
        if kind == "class":
            return frozenset({("class", ref[1])})
        if kind == "module":
            return frozenset({("module", ref[1])})
        if kind == "ext":
            return frozenset({("ext", ref[1])})
        if kind == "global":
            module_key = f"{ref[1]}::<module>"
            if module_key == f"{self.relpath}::{self.fn.qualname}":
                return self.eval(("local", ref[2]))
            module_evaluator = _module_evaluator(self.index, self.facts, ref[1])
            result = module_evaluator.eval(("local", ref[2]))
            self.deps |= module_evaluator.deps
            return result
        return frozenset({UNKNOWN_ATOM})

    def attribute(self, atom: Atom, name: str) -> Atoms:
        kind = atom[0]
        if kind == "module":
            return self.ref_atoms(self.index.member(("module", atom[1]), name))
        if kind == "ext":
            if atom[1] in COMMAND_LINE_FLAGS:
                return frozenset({UNKNOWN_ATOM})  # FLAGS.batch_size: a value of unknown kind
            return frozenset({("ext", f"{atom[1]}.{name}")})
        if kind in ("tensor", "variable", "symbolic", "numpy"):
            role = "variable" if kind == "variable" else "tensor"
            if kind == "numpy":
                role = "numpy"
            info = lookup_attribute(role, name, self.framework)
            if info is not None:
                return atoms_for_return(info.returns)
            if name in ("shape", "dtype", "ndim", "name", "device"):
                return frozenset({PYTHON})
            if name == "T":
                return frozenset({atom})
            return frozenset({("boundext", role, name), UNKNOWN_ATOM})
        if kind == "obj":
            role, class_key = atom[1], atom[2]
            # The object may be an instance of a project subclass (`self` always may be):
            # its attribute is then whichever override that subclass defines.
            overrides: frozenset[Atom] = NO_ATOMS
            if class_key is not None:
                overrides = frozenset(("method", m) for m in self.index.dispatch(class_key, name))
                if self.index.find_method(class_key, name) is not None:
                    return overrides
                stored: set[Atom] = set()
                for key in self.index.mro(class_key):
                    self.deps.add(("attrs", key))
                    stored |= self.facts.attrs.get(key, {}).get(name, set())
                if stored:
                    return frozenset(stored) | overrides
            if role != "instance":
                info = lookup_attribute(role, name, self.framework)
                if info is not None:
                    return atoms_for_return(info.returns) | overrides
                if lookup_method(role, name, self.framework) is not None:
                    # A method the tables know: what calling it gives is theirs to say.
                    return frozenset({("boundext", role, name)}) | overrides
                # Unknown to the tables: a method if called, else some attribute value.
                return frozenset({("boundext", role, name), UNKNOWN_ATOM}) | overrides
            return frozenset({UNKNOWN_ATOM}) | overrides
        if kind == "super":
            # super().name: the next class in the MRO that defines it.
            for key in self.index.mro(atom[1])[1:]:
                method = self.index.find_method(key, name)
                if method is not None:
                    return frozenset({("method", method)})
            role = self.index.keras_role(atom[1])
            if role is not None:
                return frozenset({("boundext", role, name)})
            return frozenset({UNKNOWN_ATOM})
        if kind == "class":
            method = self.index.find_method(atom[1], name)
            if method is not None:
                return frozenset({("func", method)})
            return frozenset({UNKNOWN_ATOM})
        if kind == "dataset":
            return frozenset({("boundext", "dataset", name)})
        if kind == "iterator":
            return frozenset({("boundext", "iterator", name)})
        if kind == "seq":
            return frozenset({("boundext", "list" if atom[1] == "list" else atom[1], name)})
        if kind == "tup":
            return frozenset({("boundext", atom[2] if len(atom) > 2 else "tuple", name)})
        if kind == "dict":
            return frozenset({("boundext", "dict", name)})
        if kind == "lit" and atom[1] == "str":
            return frozenset({("boundext", "str", name)})
        return frozenset({UNKNOWN_ATOM})

    # ------------------------------------------------------------------ calls

    def returned(self, key: str) -> Atoms:
        """What a project function returns so far (nothing yet is not "unknown" until the end)."""
        self.deps.add(("ret", key))
        found = self.facts.returns.get(key)
        if found is not None:
            return found
        self.optimistic = True
        return frozenset({UNKNOWN_ATOM}) if self.facts.final else NO_ATOMS

    def call_result(self, index: int) -> Atoms:
        cached = self.call_results.get(index)
        if cached is not None:
            return cached
        resolved = self.resolve_call(index)
        self.call_results[index] = resolved.result
        return resolved.result

    def resolve_call(self, index: int) -> ResolvedCall:
        site = self.fn.calls[index]
        callee_atoms = self.eval(site.callee)
        args = [self.eval(a) for a in site.args]
        kwargs = {k: self.eval(v) for k, v in site.kwargs}
        targets: list[tuple[str, str]] = []
        apis: list[ApiInfo] = []
        roles: list[str] = []
        result: set[Atom] = set()
        chained: dict[str, list[Atoms]] = {}
        symbolic_args = any(_holds_symbolic(atoms) for atoms in args)
        for atom in callee_atoms:
            kind = atom[0]
            if kind in ("func", "method"):
                targets.append((kind, atom[1]))
                result |= self.returned(atom[1])
            elif kind == "class":
                targets.append(("class", atom[1]))
                result.add(("obj", self.index.object_role(atom[1]), atom[1]))
            elif kind == "obj":
                role, class_key = atom[1], atom[2]
                call_methods = self.index.dispatch(class_key, "__call__") if class_key else ()
                # A project `__call__` (on a Keras layer too) is what calling the object runs;
                # Keras' own `__call__` runs the layer's `call`.
                own_call = class_key is not None and bool(
                    self.index.find_method(class_key, "__call__")
                )
                if role in ("layer", "model") and class_key is not None and not own_call:
                    # Keras' `__call__` runs `call`, PyTorch's runs `forward`.
                    runs = self.index.instance_call(class_key)
                    layer_calls = self.index.dispatch(class_key, runs)
                    for method in layer_calls:
                        targets.append(("layer_call", method))
                        returned = self.returned(method)
                        if symbolic_args:
                            returned = frozenset({("symbolic",)})
                        result |= returned
                    if not layer_calls or self.index.find_method(class_key, runs) is None:
                        result.add(("symbolic",) if symbolic_args else TENSOR)
                    roles.append(role)
                elif call_methods:
                    for call_method in call_methods:
                        targets.append(("method", call_method))
                        result |= self.returned(call_method)
                    if not own_call:
                        result.add(UNKNOWN_ATOM)
                elif len(atom) > 3 and atom[3][0] == "chain":
                    roles.append(role)
                    result |= self._chain(atom[3][1], args, targets, chained)
                elif role in ("layer", "model", "loss", "metric"):
                    roles.append(role)
                    result.add(("symbolic",) if symbolic_args else _layer_output(atom, args))
                elif (called := lookup_method(role, "__call__", self.framework)) is not None:
                    # An object whose role's tables say what calling it does (a PyTorch
                    # RNN module: its calling frame is not compiled).
                    roles.append(role)
                    apis.append(called)
                    result |= self._api_result(called, args, kwargs, symbolic_args)
                else:
                    result.add(UNKNOWN_ATOM)
            elif kind == "ext" and atom[1] == "builtins.super" and self.class_key:
                result.add(("super", self.class_key))
            elif kind == "ext" and atom[1] in BUILTIN_RESULTS:
                result |= BUILTIN_RESULTS[atom[1]](args)
                info = lookup(atom[1])
                if info is not None:
                    apis.append(info)
            elif kind == "ext":
                info = lookup(atom[1])
                if info is None:
                    result.add(UNKNOWN_ATOM)
                    continue
                apis.append(info)
                result |= self._api_result(info, args, kwargs, symbolic_args)
            elif kind == "boundext":
                info = lookup_method(atom[1], atom[2], self.framework)
                if info is None:
                    result.add(TENSOR if atom[1] in ("tensor", "variable") else UNKNOWN_ATOM)
                    continue
                apis.append(info)
                receiver = self.eval(site.callee[1]) if site.callee[0] == "attr" else NO_ATOMS
                view = _dict_view(atom[2], receiver, args) if atom[1] == "dict" else None
                if view is not None:
                    result |= view
                else:
                    result |= self._api_result(info, args, kwargs, symbolic_args, receiver)
            else:
                result.add(UNKNOWN_ATOM)
        if (
            UNKNOWN_ATOM in result
            and not targets
            and not apis
            and any(_holds_tf_tensor(atoms) for atoms in (*args, *kwargs.values()))
        ):
            # An unknown function applied to TF tensors (a loaded SavedModel's signature, a
            # third-party op): what comes back is taken to be a tensor as well. Not so for
            # NumPy arrays: a third-party function on arrays (scikit-learn, SciPy) computes
            # with NumPy and gives NumPy or Python values back, never a TF tensor.
            result.add(TENSOR)
        if len(targets) > 1:
            # The callee's atoms are a set, iterated in an order that changes between runs
            # (string hashing): sorted, the first hazard or effect found through them, and the
            # path a finding names, are the same in every run.
            targets.sort()
        if len(apis) > 1:
            apis.sort(key=lambda info: info.name)
        if not result:
            # Nothing known yet (a callee not evaluated so far): empty while iterating, so
            # the value only grows; unknown in the final rounds.
            self.optimistic = True
            result = {UNKNOWN_ATOM} if self.facts.final else set()
        resolved = ResolvedCall(
            site=site,
            index=index,
            callee_atoms=callee_atoms,
            targets=targets,
            api=apis,
            receiver_roles=roles,
            args=args,
            kwargs=kwargs,
            result=_merge_tensor_specs(_cap(result)),
            chained=chained,
        )
        return resolved

    def _chain(
        self,
        positions: tuple[Atoms, ...],
        args: list[Atoms],
        targets: list[tuple[str, str]],
        chained: dict[str, list[Atoms]],
    ) -> Atoms:
        """Calling a container module (`nn.Sequential`): each module it holds is called on
        the previous one's output, the first on the call's arguments; the result is the last
        one's output. The project modules it reaches become targets, with their arguments
        in `chained` when they are not the call's own."""
        current = args
        for position, modules in enumerate(positions):
            outputs: set[Atom] = set()
            for module in modules:
                class_key = module[2] if module[0] == "obj" else None
                if class_key is not None and self.index.keras_role(class_key) is not None:
                    for method in self.index.dispatch(
                        class_key, self.index.instance_call(class_key)
                    ):
                        targets.append(("layer_call", method))
                        if position:
                            known = chained.get(method)
                            chained[method] = current if known is None else [known[0] | current[0]]
                        outputs |= self.returned(method)
                elif module[0] == "obj" and module[1] in ("layer", "model", "loss", "metric"):
                    outputs.add(_layer_output(module, current))
                else:
                    outputs.add(UNKNOWN_ATOM)
            current = [frozenset(outputs or {UNKNOWN_ATOM})]
        return current[0] if positions else frozenset({UNKNOWN_ATOM})

    def _api_result(
        self,
        info: ApiInfo,
        args: list[Atoms],
        kwargs: dict[str, Atoms],
        symbolic_args: bool,
        receiver: Atoms = NO_ATOMS,
    ) -> Atoms:
        if compiler_named(info.name) is not None:
            # tf.function(g) returns g compiled: calling it reaches g.
            return args[0] if args else frozenset({UNKNOWN_ATOM})
        if symbolic_args and info.tensor_op and info.returns not in CONTAINER_OBJECT_RESULTS:
            return frozenset({("symbolic",)})
        if info.returns == "callback_results":
            return self._mapped_structure(info, args, kwargs)
        if info.returns in ("tensor", "variable"):
            spec = infer_spec(info.name, args, kwargs)
            composite = composite_spec(info.name)
            if composite is not None:
                dtype, shape = spec if spec is not None else (None, None)
                return frozenset({("tensor", dtype, shape, composite)})
            if spec is not None:
                return frozenset({(info.returns, spec[0], spec[1])})
        if info.chains_modules:
            # The modules given to the container, in order (`nn.Sequential(a, b)`).
            return frozenset({("obj", info.returns, None, ("chain", tuple(args)))})
        if info.returns == "layer" and info.name == "keras.layers.Dense":
            units = literal_ints(args[0] if args else kwargs.get("units"))
            if units is not None and len(units) == 1 and units[0] is not None:
                return frozenset({("obj", "layer", None, ("dense", units[0]))})
        if info.returns == "numpy":
            dtype = numpy_dtype(info.name, args, kwargs, receiver)
            return frozenset({("numpy", dtype, numpy_shape(info.name, args, kwargs, receiver))})
        return atoms_for_return(info.returns)

    def _mapped_structure(
        self, info: ApiInfo, args: list[Atoms], kwargs: dict[str, Atoms]
    ) -> Atoms:
        """`map_structure(fn, structure)`: the structure with each leaf replaced by what `fn`
        returns for it. The structure is the first positional argument after the callback."""
        callback = _argument_atoms(args, kwargs, info.callback_args)
        structure = _mapped_structure_argument(info, args)
        leaves = frozenset(leaf_atoms(structure))
        results: set[Atom] = set()
        for atom in callback or (UNKNOWN_ATOM,):
            if atom[0] in ("func", "method"):
                results |= self.returned(atom[1])
                continue
            callee = lookup(atom[1]) if atom[0] == "ext" else None
            if callee is None:
                results.add(UNKNOWN_ATOM)
            else:
                results |= self._api_result(callee, [leaves], {}, _holds_symbolic(leaves))
        return _mapped_leaves(structure, frozenset(results))


def mapped_structure_position(info: ApiInfo) -> int | None:
    """Where a `map_structure` call takes the structure it maps: the first positional
    argument after the callback (None when the callback has no position)."""
    positions = [p for p in info.callback_args if isinstance(p, int)]
    return max(positions) + 1 if positions else None


def _mapped_structure_argument(info: ApiInfo, args: list[Atoms]) -> Atoms:
    """The structure a `map_structure` call maps (unknown when absent or given by keyword)."""
    position = mapped_structure_position(info)
    if position is None or position >= len(args):
        return frozenset({UNKNOWN_ATOM})
    return args[position]


def _mapped_leaves(structure: Atoms, results: Atoms, depth: int = 0) -> Atoms:
    """`structure` with every leaf replaced by `results` (lists, tuples and dicts kept, to
    MAX_NESTING); an unknown structure may be a container of results or a single one."""
    out: set[Atom] = set()
    for atom in structure:
        kind = atom[0]
        if depth < MAX_NESTING and kind == "seq":
            out.add(("seq", atom[1], _mapped_leaves(atom[2], results, depth + 1)))
        elif depth < MAX_NESTING and kind == "tup":
            parts = tuple(_mapped_leaves(part, results, depth + 1) for part in atom[1])
            out.add(("tup", parts, *atom[2:]))
        elif depth < MAX_NESTING and kind == "dict":
            out.add(("dict", _mapped_leaves(atom[1], results, depth + 1), *atom[2:]))
        elif atom == UNKNOWN_ATOM:
            out |= results
            out.add(UNKNOWN_ATOM)
        else:
            out |= results
    return frozenset(out) if out else results


DICT_KEY: Atom = ("lit", "str", None)
"""A dict key: a hashable Python value (a tensor is not hashable), taken to be a string, the
usual key; either way a Python literal, which retraces per value as an argument."""


def _dict_view(method: str, receiver: Atoms, args: list[Atoms]) -> Atoms | None:
    """What `d.items()`, `.values()`, `.keys()`, `.get()`, `.pop()`, `.setdefault()` give for
    the dicts `receiver` may be; None for other methods or receivers."""
    dicts = [a for a in receiver if a[0] == "dict"]
    if not dicts:
        return None
    values: set[Atom] = set()
    for d in dicts:
        values |= d[1]
    values = values or {UNKNOWN_ATOM}
    if method == "values":
        return _sequence_of(values)
    if method == "keys":
        return _sequence_of({DICT_KEY})
    if method == "items":
        return _sequence_of({("tup", (frozenset({DICT_KEY}), _cap(values)), "tuple")})
    if method in ("get", "pop", "setdefault"):
        default = args[1] if len(args) > 1 else frozenset({("lit", "none", None)})
        return _cap(values | default)
    return None


TF_TENSOR_KINDS = frozenset({"tensor", "variable", "symbolic"})


def _holds_tf_tensor(atoms: Atoms, depth: int = 0) -> bool:
    """A TensorFlow (or Keras symbolic) tensor, or a container holding one; not NumPy."""
    for atom in atoms:
        kind = atom[0]
        if kind in TF_TENSOR_KINDS:
            return True
        if depth < 3 and kind == "seq" and _holds_tf_tensor(atom[2], depth + 1):
            return True
        if depth < 3 and kind == "tup" and any(_holds_tf_tensor(p, depth + 1) for p in atom[1]):
            return True
        if depth < 3 and kind == "dict" and _holds_tf_tensor(atom[1], depth + 1):
            return True
    return False


def _holds_symbolic(atoms: Atoms) -> bool:
    """A Keras symbolic tensor, or a list/tuple holding one (`Concatenate()([a, b])`)."""
    for atom in atoms:
        if atom[0] == "symbolic":
            return True
        if atom[0] == "tup" and any(("symbolic",) in part for part in atom[1]):
            return True
        if atom[0] == "seq" and ("symbolic",) in atom[2]:
            return True
    return False


def composite_spec(api_name: str) -> str | None:
    """SparseTensorSpec / RaggedTensorSpec for the ops that build those composite tensors."""
    if api_name.startswith("tensorflow.sparse.") or api_name.endswith("SparseTensor"):
        return "SparseTensorSpec"
    if api_name.startswith(("tensorflow.ragged.", "tensorflow.RaggedTensor.")):
        return "RaggedTensorSpec"
    return None


def _layer_output(layer: Atom, args: list[Atoms]) -> Atom:
    """A built-in layer applied to a tensor: `Dense(units)` maps (..., n) to (..., units)."""
    config = layer[3] if len(layer) > 3 else None
    if config is not None and config[0] == "dense" and args:
        shapes = {a[2] for a in args[0] if a[0] in ("tensor", "variable")}
        if len(shapes) == 1 and (shape := shapes.pop()) is not None and len(shape) >= 1:
            return ("tensor", "float32", (*shape[:-1], config[1]))
        return ("tensor", "float32", None)
    return TENSOR


def _elements(args: list[Atoms], position: int = 0) -> set[Atom]:
    out: set[Atom] = set()
    if position < len(args):
        for atom in args[position]:
            out.update(_iterate(atom))
    return out or {UNKNOWN_ATOM}


def _sequence_of(elements: set[Atom], kind: str = "list") -> Atoms:
    return frozenset({("seq", kind, _cap(elements))})


def _pair_of(positions: list[set[Atom]]) -> Atom:
    """The tuple `enumerate` or `zip` yields: position i holds what `positions[i]` holds.

    Kept apart, so that `for step, x in enumerate(dataset)` gives `step` an int and `x` a
    tensor (merged, `step` would look like a tensor and a Python counter go unnoticed).
    """
    if not positions or len(positions) > MAX_TUPLE:
        merged = set().union(*positions) if positions else set()
        return ("seq", "tuple", _cap(merged or {UNKNOWN_ATOM}))
    return ("tup", tuple(_cap(p or {UNKNOWN_ATOM}) for p in positions), "tuple")


def _numeric_builtin(kind: str) -> Callable[[list[Atoms]], Atoms]:
    """int()/float() give a Python number, whatever they convert (a tensor too, eagerly)."""

    def result(args: list[Atoms]) -> Atoms:
        return frozenset({("lit", kind, None)})

    return result


def _choose_builtin(args: list[Atoms]) -> Atoms:
    """`min`/`max`: of several arguments (`min(1.0, x)`), one of the arguments; of one
    iterable, one of its elements."""
    if len(args) > 1:
        # Exactly one of the arguments, whatever it is: a Keras symbolic tensor stays one
        # (a kind dropped here hid HY406 from tf-models' `vertical_flip_boxes`).
        return frozenset(a for atoms in args for a in atoms)
    return _reduce_builtin(args)


def _reduce_builtin(args: list[Atoms]) -> Atoms:
    flat = [a for atoms in args for a in atoms]
    elements = _elements(args) if args else set()
    if any(is_tensor_like(a) for a in [*flat, *elements]):
        return frozenset({TENSOR})
    if elements and all(a[0] == "lit" for a in elements):
        return frozenset({("lit", "float", None)})
    return frozenset({PYTHON})


BUILTIN_RESULTS: dict[str, Callable[[list[Atoms]], Atoms]] = {
    "builtins.range": lambda args: frozenset({("seq", "range", frozenset({("lit", "int", None)}))}),
    "builtins.len": lambda args: frozenset({("lit", "int", None)}),
    "builtins.int": _numeric_builtin("int"),
    "builtins.float": _numeric_builtin("float"),
    "builtins.str": lambda args: frozenset({("lit", "str", None)}),
    "builtins.repr": lambda args: frozenset({("lit", "str", None)}),
    "builtins.bool": lambda args: frozenset({("lit", "bool", None)}),
    "builtins.isinstance": lambda args: frozenset({("lit", "bool", None)}),
    "builtins.iter": lambda args: frozenset(
        {("iterator",)}
        if args and any(a[0] in ("dataset", "iterator") for a in args[0])
        else _sequence_of(_elements(args))
    ),
    "builtins.next": lambda args: frozenset(_elements(args)),
    "builtins.list": lambda args: _sequence_of(_elements(args)) if args else _sequence_of(set()),
    "builtins.tuple": lambda args: (
        _sequence_of(_elements(args), "tuple") if args else _sequence_of(set(), "tuple")
    ),
    "builtins.set": lambda args: (
        _sequence_of(_elements(args), "set") if args else _sequence_of(set(), "set")
    ),
    "builtins.sorted": lambda args: _sequence_of(_elements(args)),
    # Python 3's zip, enumerate, reversed, map and filter give one-shot iterators, not lists:
    # iterated like a list, but tf.function cannot return one (TypeError while tracing).
    "builtins.reversed": lambda args: _sequence_of(_elements(args), "iterator"),
    "builtins.enumerate": lambda args: _sequence_of(
        {_pair_of([{("lit", "int", None)}, _elements(args)])}, "iterator"
    ),
    "builtins.zip": lambda args: _sequence_of(
        {_pair_of([_elements(args, i) for i in range(len(args))])}, "iterator"
    ),
    "builtins.map": lambda args: _sequence_of({UNKNOWN_ATOM}, "iterator"),
    "builtins.filter": lambda args: _sequence_of(_elements(args, 1), "iterator"),
    "builtins.sum": _reduce_builtin,
    "builtins.min": _choose_builtin,
    "builtins.max": _choose_builtin,
    "builtins.abs": _reduce_builtin,
    "builtins.round": _reduce_builtin,
    "builtins.dict": lambda args: frozenset({("dict", frozenset({UNKNOWN_ATOM}))}),
}
"""What Python's builtins return, by the kinds of their arguments."""


def _module_evaluator(index: ProjectIndex, facts: TensorFacts, relpath: str) -> Evaluator:
    return get_evaluator(index, facts, f"{relpath}::<module>")


def _item(atom: Atom, index: Sym) -> Iterable[Atom]:
    kind = atom[0]
    if kind in ("tensor", "variable"):
        shape = atom[2]
        if shape and index[0] == "lit" and index[1] == "int":
            return (("tensor", atom[1], shape[1:]),)  # x[i] drops the first axis
        return (("tensor", atom[1], None),)
    if kind in ("numpy", "symbolic"):
        return (atom,)
    if kind == "seq":
        if index[0] == "slice":
            return (atom,)
        return atom[2] or (UNKNOWN_ATOM,)
    if kind == "tup":
        if (
            index[0] == "lit"
            and isinstance(index[2], int)
            and -len(atom[1]) <= index[2] < len(atom[1])
        ):
            return atom[1][index[2]]
        if index[0] == "slice":
            return (atom,)
        return [a for part in atom[1] for a in part] or (UNKNOWN_ATOM,)
    if kind == "dict":
        return atom[1] or (UNKNOWN_ATOM,)
    if kind == "lit" and atom[1] == "str":
        return (("lit", "str", None),)
    if kind == "dataset":
        return (UNKNOWN_ATOM,)
    if kind == "python":
        # A non-tensor Python value (`x.shape`, a config): its items are no tensors either
        # (a container of tensors is "tensors", never "python").
        return (PYTHON,)
    return (UNKNOWN_ATOM,)


def _iterate(atom: Atom) -> Iterable[Atom]:
    kind = atom[0]
    if kind in ("dataset", "iterator"):
        return (TENSOR, ("seq", "tuple", frozenset({TENSOR})))
    if kind in ("tensor", "variable"):
        return (("tensor", atom[1], atom[2][1:] if atom[2] else None),)
    if kind in ("numpy", "symbolic"):
        return (atom,)
    if kind == "seq":
        return atom[2] or (UNKNOWN_ATOM,)
    if kind == "tup":
        return [a for part in atom[1] for a in part] or (UNKNOWN_ATOM,)
    if kind == "dict":
        return (DICT_KEY,)
    if kind == "lit" and atom[1] == "str":
        return (("lit", "str", None),)
    if kind == "ext" and atom[1].startswith("builtins."):
        return (PYTHON,)
    return (UNKNOWN_ATOM,)


def _matmul_operands(operands: list[Atoms]) -> Shape:
    shapes = [{a[2] for a in atoms if a[0] in ("tensor", "variable")} for atoms in operands]
    if len(shapes) != 2 or any(len(s) != 1 for s in shapes):
        return None
    a, b = next(iter(shapes[0])), next(iter(shapes[1]))
    return None if a is None or b is None else matmul_shape(a, b)


def _operand_shape(operands: list[Atoms]) -> Shape:
    """Broadcast shape of an operator's operands: Python numbers are scalars."""
    shapes: list[Shape] = []
    for atoms in operands:
        kinds = {a[0] for a in atoms}
        if kinds <= {"lit"} and atoms:
            shapes.append(())
        elif kinds <= {"tensor", "variable"} and len({a[2] for a in atoms}) == 1:
            shapes.append(next(iter(atoms))[2])
        else:
            return None
    return broadcast(shapes)


def _operation(operands: list[Atoms], operator: str | None = None) -> Iterable[Atom]:
    """Arithmetic: tensors win over NumPy, NumPy over Python numbers; literals stay literals."""
    flat = [a for atoms in operands for a in atoms]
    if not flat:
        return ()
    if any(a[0] in ("tensor", "variable") for a in flat):
        dtypes = {a[1] for a in flat if a[0] in ("tensor", "variable") and a[1] is not None}
        dtype = dtypes.pop() if len(dtypes) == 1 else None
        # An operand that may be a Keras symbolic tensor makes a result that may be one too
        # (`-scores` of a `tf_keras.Input` is a KerasTensor): the kinds are possibilities.
        symbolic: tuple[Atom, ...] = (
            (("symbolic",),) if any(a[0] == "symbolic" for a in flat) else ()
        )
        if operator == "matmul":
            return (("tensor", dtype, _matmul_operands(operands)), *symbolic)
        if operator == "compare":
            # `x > 0` of a tensor is a boolean tensor (a mask).
            return (("tensor", "bool", _operand_shape(operands)), *symbolic)
        return (("tensor", dtype, _operand_shape(operands)), *symbolic)
    if any(a[0] == "symbolic" for a in flat):
        return (("symbolic",),)
    if any(a[0] == "numpy" for a in flat):
        if len(operands) == 2:
            # each pair of possible operand arrays gives its own promoted dtype
            left = {a[1] for a in operands[0] if a[0] == "numpy"} or {"weak"}
            right = {a[1] for a in operands[1] if a[0] == "numpy"} or {"weak"}
            return tuple(
                ("numpy", numpy_result_dtype({x, y} - {"weak"})) for x in left for y in right
            )
        return (("numpy", numpy_result_dtype(a[1] for a in flat if a[0] == "numpy")),)
    if flat and all(a[0] == "lit" for a in flat):
        types = {a[1] for a in flat}
        if types <= {"int"}:
            return (("lit", "int", None),)
        if types <= {"int", "float", "bool"}:
            return (("lit", "float", None),)
        if types == {"str"}:
            return (("lit", "str", None),)
        return (PYTHON,)
    if any(a[0] == "?" for a in flat):
        return (UNKNOWN_ATOM,)
    return (PYTHON,)


# ---------------------------------------------------------------------- the solver


def bind_arguments(
    fn: FunctionSummary, args: list[Atoms], kwargs: dict[str, Atoms], *, skip_receiver: bool
) -> dict[str, Atoms]:
    """Map call-site arguments to parameter names (positional, keyword, *args, **kwargs)."""
    params = fn.params[1:] if skip_receiver and fn.params else fn.params
    positional = [p for p in params if p.kind in ("posonly", "normal")]
    vararg = next((p for p in params if p.kind == "vararg"), None)
    kwarg = next((p for p in params if p.kind == "kwarg"), None)
    bound: dict[str, Atoms] = {}
    for i, atoms in enumerate(args):
        if i < len(positional):
            bound[positional[i].name] = atoms
        elif vararg is not None:
            bound[vararg.name] = bound.get(vararg.name, NO_ATOMS) | atoms
    names = {p.name for p in params if p.kind != "posonly"}
    for name, atoms in kwargs.items():
        if name in names:
            bound[name] = atoms
        elif kwarg is not None:
            bound[kwarg.name] = bound.get(kwarg.name, NO_ATOMS) | atoms
    return bound


@dataclass(slots=True)
class Contribution:
    """What evaluating one function adds to the project-wide solution in a round."""

    calls: list[ResolvedCall] = field(default_factory=list)
    evidence: list[tuple[str, str, Atoms, bool]] = field(default_factory=list)
    """(callee, parameter, argument atoms, from outside the callee)"""
    primitive: list[tuple[str, str]] = field(default_factory=list)
    unknown_kind: list[tuple[str, str]] = field(default_factory=list)
    literal_sites: list[tuple[str, str, bool, Span, Sym]] = field(default_factory=list)
    """(callee, parameter, whether the kind is unknown rather than literal, the call's span,
    the argument as written): the sites behind `primitive` and `unknown_kind`."""
    symbolic: list[tuple[str, str]] = field(default_factory=list)
    callees: list[str] = field(default_factory=list)
    callbacks: list[tuple[str, bool]] = field(default_factory=list)
    """Callables handed to a framework API, and whether it traces them whatever the caller's
    mode (`Dataset.map`) or runs them in the caller's mode (`tf.map_fn`)."""
    wrapped: list[tuple[str, frozenset[str]]] = field(default_factory=list)
    wrapper_signatures: list[tuple[str, Sym]] = field(default_factory=list)
    """`tf.function(g, input_signature=...)`: g and the signature, in this caller's scope."""
    """Functions compiled by `tf.function(g, ...)`, with the arguments that call supplies."""
    attrs: list[tuple[str, str, Atoms]] = field(default_factory=list)
    returns: Atoms = NO_ATOMS


def _evaluate(index: ProjectIndex, facts: TensorFacts, key: str) -> tuple[Contribution, set[Dep]]:
    evaluator = get_evaluator(index, facts, key)
    facts.latest_evaluators[key] = evaluator
    fn = evaluator.fn
    out = Contribution()
    for i in range(len(fn.calls)):
        resolved = evaluator.resolve_call(i)
        evaluator.call_results[i] = resolved.result
        out.calls.append(resolved)
        _record_evidence(index, key, resolved, out)
    if receives_cases(fn):
        _record_test_cases(index, facts, key, fn, out, evaluator)
    for condition in fn.conditions:
        evaluator.eval(condition)  # memoised: an operator on tensors there is computation
    returned: set[Atom] = set()
    for value in fn.returns:
        returned |= evaluator.eval(value)
    if fn.is_generator:
        # Calling a generator function gives an iterator over what it yields.
        yielded: set[Atom] = set()
        for value in fn.yields:
            yielded |= evaluator.eval(value)
        returned = {("seq", "generator", _cap(yielded or {UNKNOWN_ATOM}))}
    out.returns = (
        _merge_tensor_specs(_cap(returned)) if returned else frozenset({("lit", "none", None)})
    )
    if evaluator.class_key is not None and fn.binds_receiver and fn.params:
        receiver = fn.params[0].name
        selves = (("local", receiver), ("param", receiver))
        for store in fn.stores:
            if store.kind == "attr" and store.target in selves:
                out.attrs.append((evaluator.class_key, store.name, evaluator.eval(store.value)))
            elif store.kind == "item" and store.target[0] == "attr" and store.target[1] in selves:
                # `self.heads["a"] = Dense(1)`: the dict attribute holds the value too.
                held = ("dict", evaluator.eval(store.value))
                out.attrs.append((evaluator.class_key, store.target[2], frozenset({held})))
        for site in fn.calls:
            grown = _grown_attribute(evaluator, site, selves)
            if grown is not None:
                out.attrs.append((evaluator.class_key, *grown))
    deps = set(evaluator.deps)
    if evaluator.optimistic:
        deps.add(OPTIMISTIC)
    return out, deps


def _record_test_cases(
    index: ProjectIndex,
    facts: TensorFacts,
    key: str,
    fn: FunctionSummary,
    out: Contribution,
    evaluator: Evaluator,
) -> None:
    """A parameterized test's cases (`test_parameters`) are calls of it: evidence for its
    parameters, evaluated where its decorators are (the enclosing scope)."""
    relpath = key.split("::", 1)[0]
    owner = get_evaluator(index, facts, index.owner_key(key))
    body = index.modules[relpath].functions.get(f"{fn.class_qualname}.<body>")
    if body is not None:
        # A method's decorators run in its class body: they may name the body's own
        # attributes (`_sharded_nms = edgetpu.non_max_suppression_padded`, then
        # `parameters((8, _sharded_nms))`). The summary wrote them in the enclosing scope (its
        # call indices are that scope's), where such a name is unresolved: a fresh evaluator
        # of that scope gets those names' values from the body's evaluator.
        body_evaluator = get_evaluator(index, facts, f"{relpath}::{body.qualname}")
        owner = Evaluator(index, facts, index.owner_key(key))
        for name in body.locals:
            owner.memo[("name", name)] = body_evaluator.eval(("local", name))
        evaluator.deps |= body_evaluator.deps
    for decorator in fn.decorators:
        if not decorator.called:
            continue
        ref = index.resolve_dotted(relpath, decorator.name)
        if ref[0] != "ext":
            continue
        args = [owner.eval(a) for a in decorator.args]
        calls: list[tuple[list[Atoms], dict[str, Atoms]]] = []
        single_display = len(decorator.args) == 1 and is_tuple_display(decorator.args[0])
        positional = absl_cases(ref[1], args, single_display)
        if positional is not None:
            calls = [(case, {}) for case in positional]
        elif ref[1] == PYTEST_PARAMETRIZE and len(args) >= 2:
            calls = [([], case) for case in pytest_cases(args[0], args[1])]
        for case_args, case_kwargs in calls:
            bound = bind_arguments(fn, case_args, case_kwargs, skip_receiver=fn.binds_receiver)
            for name, atoms in bound.items():
                out.evidence.append((key, name, atoms, True))
    evaluator.deps |= owner.deps


CONTAINER_GROWERS = frozenset({"append", "appendleft", "add", "insert", "extend", "update"})


def _grown_attribute(
    evaluator: Evaluator, site: CallSite, selves: tuple[Sym, ...]
) -> tuple[str, Atoms] | None:
    """`self.blocks.append(layer)` (or `extend`, `insert`, `update`): the container kept in
    attribute `blocks` now holds `layer` too, as `items.append(x)` does for a local."""
    callee = site.callee
    if (
        callee[0] != "attr"
        or callee[2] not in CONTAINER_GROWERS
        or callee[1][0] != "attr"
        or callee[1][1] not in selves
        or not site.args
    ):
        return None
    if callee[2] in ("extend", "update"):
        elements: set[Atom] = set()
        for atom in evaluator.eval(site.args[0]):
            if atom[0] == "dict":
                elements |= atom[1]
            else:
                elements.update(_iterate(atom))
    else:
        elements = set(evaluator.eval(site.args[-1]))
    return callee[1][2], frozenset({("seq", "list", _cap(elements))})


OPTIMISTIC: Dep = ("optimistic", "")
"""Marks an evaluation that read a missing fact optimistically: the final round redoes it."""


def _evaluate_guarded(
    index: ProjectIndex, facts: TensorFacts, key: str
) -> tuple[Contribution, set[Dep]]:
    """`_evaluate`, with a defect of the analysis confined to the function it happened in."""
    try:
        return _evaluate(index, facts, key)
    except (RecursionError, Exception) as exc:
        facts.internal_errors[key] = f"{type(exc).__name__}: {exc} (please report it)"
        return Contribution(), {("params", key)}


class Aggregate:
    """The project-wide facts as the join of every function's latest `Contribution`, kept
    up to date one contribution at a time.

    Each fact remembers who contributed what (callee parameter -> caller -> atoms, and so
    on), so replacing a function's contribution subtracts exactly what it added before and
    only the entries it touched are joined again. A round of the fixed point then costs what
    changed, not the whole project; the incremental re-solve of `Project` rests on the same
    exact removal. `order` fixes the order of the lists built from several contributors
    (`literal_sites`) to that of a rebuild from scratch over the keys in project order.
    """

    def __init__(self, order: dict[str, int]) -> None:
        self.order = order
        self.contributions: dict[str, Contribution] = {}
        self.params: dict[tuple[str, str], dict[str, Atoms]] = {}
        self.external: dict[tuple[str, str], dict[str, Atoms]] = {}
        self.attrs: dict[tuple[str, str], dict[str, Atoms]] = {}
        self.primitive: dict[tuple[str, str], set[str]] = {}
        self.unknown_kind: dict[tuple[str, str], set[str]] = {}
        self.symbolic: dict[tuple[str, str], set[str]] = {}
        self.literal: dict[tuple[str, str], dict[str, list[LiteralSite]]] = {}
        self.callees: dict[str, dict[str, int]] = {}
        self.callbacks: dict[str, dict[str, tuple[bool, bool]]] = {}
        self.wrapped: dict[str, dict[str, frozenset[str]]] = {}
        self.signatures: dict[str, dict[str, Sym]] = {}
        self.widened = False
        """The facts were last joined and widened (`WIDEN_AFTER`): the next plain round
        rebuilds every entry, as a rebuild from scratch would."""
        self.cut: dict[CutEntry, bool] = {}
        """The entries cut at MAX_ATOMS in the widening rounds of the current phase
        (`_join_capped`); a plain round forgets them."""
        self.unsettled: dict[str, set[tuple[str, str]]] | None = None
        """Widening rounds: the entries (by table; returns as (caller, "")) whose last join
        changed them. Only those and the entries whose contributions changed can change in
        the next widening round (`_publish_widened`); None: every entry."""

    # ---------------------------------------------------------------- contributors

    def replace(self, caller: str, contribution: Contribution | None, touched: _Touched) -> None:
        """Put `contribution` in place of the caller's last one (None: the caller is gone),
        adding the entries that may change to `touched`."""
        old = self.contributions.pop(caller, None)
        if old is not None:
            self._apply(caller, old, touched, remove=True)
        if contribution is not None:
            self.contributions[caller] = contribution
            self._apply(caller, contribution, touched, remove=False)
        touched.returns.add(caller)

    def _apply(self, caller: str, c: Contribution, touched: _Touched, *, remove: bool) -> None:
        if c.evidence:
            evidence: dict[tuple[str, str], set[Atom]] = {}
            outside: dict[tuple[str, str], set[Atom]] = {}
            for callee, name, atoms, from_outside in c.evidence:
                pair = (callee, name)
                found = evidence.get(pair)
                if found is None:
                    evidence[pair] = found = set()
                found |= atoms
                if from_outside:
                    found = outside.get(pair)
                    if found is None:
                        outside[pair] = found = set()
                    found |= atoms
            _put_all(self.params, caller, evidence, remove, touched.params)
            _put_all(self.external, caller, outside, remove, touched.external)
        if c.attrs:
            stored: dict[tuple[str, str], set[Atom]] = {}
            for class_key, attr, atoms in c.attrs:
                stored.setdefault((class_key, attr), set()).update(atoms)
            _put_all(self.attrs, caller, stored, remove, touched.attrs)
        if c.primitive or c.unknown_kind or c.symbolic:
            for table, pairs, names in (
                (self.primitive, c.primitive, touched.primitive),
                (self.unknown_kind, c.unknown_kind, touched.unknown_kind),
                (self.symbolic, c.symbolic, touched.symbolic),
            ):
                for pair in pairs:
                    _mark(table, pair, caller, remove)
                    names.add(pair)
        if c.literal_sites:
            self._apply_sites(caller, c, touched, remove)
        if c.callees:
            self._apply_callees(caller, c, touched, remove)
        if c.callbacks or c.wrapped or c.wrapper_signatures:
            self._apply_callbacks(caller, c, touched, remove)

    def _apply_sites(self, caller: str, c: Contribution, touched: _Touched, remove: bool) -> None:
        sites: dict[tuple[str, str], list[LiteralSite]] = {}
        for callee, name, unknown, span, argument in c.literal_sites:
            sites.setdefault((callee, name), []).append(
                LiteralSite(caller, span, argument, unknown)
            )
        for pair, found in sites.items():
            _put(self.literal, pair, caller, found, remove)
            touched.literal.add(pair)

    def _apply_callees(self, caller: str, c: Contribution, touched: _Touched, remove: bool) -> None:
        counts: dict[str, int] = {}
        for callee in c.callees:
            counts[callee] = counts.get(callee, 0) + 1
        for callee, count in counts.items():
            _put(self.callees, callee, caller, count, remove)
            touched.callees.add(callee)

    def _apply_callbacks(
        self, caller: str, c: Contribution, touched: _Touched, remove: bool
    ) -> None:
        modes: dict[str, tuple[bool, bool]] = {}
        for callee, always_traced in c.callbacks:
            traced, in_mode = modes.get(callee, (False, False))
            modes[callee] = (traced or always_traced, in_mode or not always_traced)
        for callee, mode in modes.items():
            _put(self.callbacks, callee, caller, mode, remove)
            touched.callbacks.add(callee)
        supplied_by: dict[str, frozenset[str]] = {}
        for wrapped, supplied in c.wrapped:
            supplied_by[wrapped] = supplied_by.get(wrapped, frozenset()) | supplied
        for wrapped, supplied in supplied_by.items():
            _put(self.wrapped, wrapped, caller, supplied, remove)
            touched.wrapped.add(wrapped)
        last: dict[str, Sym] = {}
        for wrapped, signature in c.wrapper_signatures:
            last[wrapped] = signature
        for wrapped, signature in last.items():
            _put(self.signatures, wrapped, caller, signature, remove)
            touched.signatures.add(wrapped)

    # ---------------------------------------------------------------- facts

    def publish(self, facts: TensorFacts, touched: _Touched) -> set[Dep]:
        """Write the touched entries into `facts` (every entry when widening or after it);
        return the facts that changed."""
        facts.rounds += 1
        if facts.rounds > WIDEN_AFTER and self.widened:
            return self._publish_widened(facts, touched)
        if facts.rounds > WIDEN_AFTER or self.widened:
            return self._publish_all(facts)
        changed: set[Dep] = set()
        for caller in touched.returns:
            contribution = self.contributions.get(caller)
            if contribution is None:
                facts.calls.pop(caller, None)
                if facts.returns.pop(caller, None) is not None:
                    changed.add(("ret", caller))
                continue
            facts.calls[caller] = contribution.calls
            if facts.returns.get(caller) != contribution.returns:
                changed.add(("ret", caller))
            facts.returns[caller] = contribution.returns
        for table, pairs, target, kind in (
            (self.params, touched.params, facts.param_atoms, "params"),
            (self.external, touched.external, facts.external_evidence, ""),
            (self.attrs, touched.attrs, facts.attrs, "attrs"),
        ):
            by_key: dict[str, list[str]] = {}
            for key, name in pairs:
                by_key.setdefault(key, []).append(name)
            for key, names in by_key.items():
                before = _frozen(target.get(key))
                entries = target.get(key)
                for name in names:
                    found = table.get((key, name))
                    if found is None:
                        if entries is not None:
                            entries.pop(name, None)
                        continue
                    if entries is None:
                        entries = target[key] = defaultdict(set)
                    entries[name] = _union(found.values())
                if entries is not None and not entries:
                    del target[key]
                if kind and _frozen(target.get(key)) != before:
                    changed.add((kind, key))
        self._publish_small(facts, touched)
        return changed

    def _publish_small(self, facts: TensorFacts, touched: _Touched) -> None:
        """The tables no evaluation reads during the solve (callers, literal sites, ...)."""
        for table, pairs, target in (
            (self.primitive, touched.primitive, facts.primitive_params),
            (self.unknown_kind, touched.unknown_kind, facts.unknown_kind_params),
            (self.symbolic, touched.symbolic, facts.symbolic_args),
        ):
            for callee, name in pairs:
                names = target.get(callee)
                if (callee, name) in table:
                    target[callee].add(name)
                elif names is not None:
                    names.discard(name)
                    if not names:
                        del target[callee]
        for callee, name in touched.literal:
            by_caller = self.literal.get((callee, name))
            entries = facts.literal_sites.get(callee)
            if by_caller is None:
                if entries is not None:
                    entries.pop(name, None)
                    if not entries:
                        del facts.literal_sites[callee]
                continue
            ordered = sorted(by_caller, key=self.order.__getitem__)
            facts.literal_sites[callee][name] = [s for c in ordered for s in by_caller[c]]
        for callee in touched.callees:
            by_count = self.callees.get(callee)
            if by_count is None:
                facts.callers.pop(callee, None)
                facts.call_count.pop(callee, None)
                continue
            facts.callers[callee] = set(by_count)
            facts.call_count[callee] = sum(by_count.values())
        for callee in touched.callbacks:
            modes = self.callbacks.get(callee)
            facts.traced_callbacks.discard(callee)
            facts.caller_mode_callbacks.pop(callee, None)
            facts.callback_callers.pop(callee, None)
            if modes is None:
                continue
            if any(traced for traced, _ in modes.values()):
                facts.traced_callbacks.add(callee)
            in_mode = {caller for caller, (_, mode) in modes.items() if mode}
            if in_mode:
                facts.caller_mode_callbacks[callee] = in_mode
            facts.callback_callers[callee] = set(modes)
        for wrapped in touched.wrapped:
            supplied_by = self.wrapped.get(wrapped)
            if supplied_by is None:
                facts.wrapped_by_tf_function.discard(wrapped)
                facts.wrapper_arguments.pop(wrapped, None)
                continue
            facts.wrapped_by_tf_function.add(wrapped)
            facts.wrapper_arguments[wrapped] = set().union(*supplied_by.values())
        for wrapped in touched.signatures:
            by_caller = self.signatures.get(wrapped)
            if by_caller is None:
                facts.wrapper_signatures.pop(wrapped, None)
                continue
            caller = max(by_caller, key=self.order.__getitem__)
            facts.wrapper_signatures[wrapped] = (caller, by_caller[caller])

    def _publish_all(self, facts: TensorFacts) -> set[Dep]:
        """Every entry from the contributors: joined with the last round and widened past
        WIDEN_AFTER rounds (from then on facts only grow, over a finite shallow domain, so
        the iteration stops even where evaluations are not monotone), plain otherwise."""
        params = _table_of(self.params)
        external = _table_of(self.external)
        attrs = _table_of(self.attrs)
        returns = {caller: c.returns for caller, c in self.contributions.items()}
        widening = facts.rounds > WIDEN_AFTER
        if widening:
            cut = self.cut
            _join_table(params, facts.param_atoms, cut, "params")
            _join_table(external, facts.external_evidence, cut, "external")
            _join_table(attrs, facts.attrs, cut, "attrs")
            for key, old in facts.returns.items():
                returns[key] = _join_capped(returns.get(key, NO_ATOMS) | old, cut, ("ret", key, ""))
            params = _widen_table(params)
            external = _widen_table(external)
            attrs = _widen_table(attrs)
            returns = {key: frozenset(_widen(a) for a in atoms) for key, atoms in returns.items()}
        self.widened = widening
        self.unsettled = None
        if not widening:
            self.cut.clear()
        changed: set[Dep] = set()
        for key in set(params) | set(facts.param_atoms):
            if _table_changed(params.get(key), facts.param_atoms.get(key)):
                changed.add(("params", key))
        for key, value in returns.items():
            if facts.returns.get(key) != value:
                changed.add(("ret", key))
        for key in set(attrs) | set(facts.attrs):
            if _table_changed(attrs.get(key), facts.attrs.get(key)):
                changed.add(("attrs", key))
        facts.param_atoms = params
        facts.external_evidence = external
        facts.attrs = attrs
        facts.returns = returns
        facts.calls = {caller: c.calls for caller, c in self.contributions.items()}
        facts.primitive_params = defaultdict(set)
        facts.unknown_kind_params = defaultdict(set)
        facts.symbolic_args = defaultdict(set)
        facts.literal_sites = defaultdict(lambda: defaultdict(list))
        facts.callers = defaultdict(set)
        facts.call_count = defaultdict(int)
        facts.traced_callbacks = set()
        facts.caller_mode_callbacks = defaultdict(set)
        facts.callback_callers = defaultdict(set)
        facts.wrapped_by_tf_function = set()
        facts.wrapper_arguments = {}
        facts.wrapper_signatures = {}
        self._publish_small(facts, self.everything())
        return changed

    def _publish_widened(self, facts: TensorFacts, touched: _Touched) -> set[Dep]:
        """A widening round after a widening round, entry by entry: what `_publish_all`
        computes, without rebuilding the entries that cannot change.

        A widened entry is a function of its contributions, its last value and whether it
        was cut (`_join_capped`): an entry whose contributions did not change and whose last
        join gave back its previous value, cut state and all, gives it back again. Rebuilding
        every table every round cost more than the evaluations in the late rounds (1.5 s a
        round on TensorFlow's own `python/ops`, for a handful of changed functions)."""
        everything = self.unsettled is None
        unsettled = self.unsettled or {}
        settling: dict[str, set[tuple[str, str]]] = {}
        changed: set[Dep] = set()
        cut = self.cut
        for table, previous, label, kind, pairs in (
            (self.params, facts.param_atoms, "params", "params", touched.params),
            (self.external, facts.external_evidence, "external", "", touched.external),
            (self.attrs, facts.attrs, "attrs", "attrs", touched.attrs),
        ):
            if everything:
                todo = set(table) | {(k, n) for k, entries in previous.items() for n in entries}
            else:
                todo = pairs | unsettled.get(label, set())
            moving = settling[label] = set()
            by_key: dict[str, list[str]] = {}
            for key, name in todo:
                by_key.setdefault(key, []).append(name)
            for key, names in by_key.items():
                entries = previous.get(key)
                before = _frozen(entries) if kind else None
                for name in names:
                    found = table.get((key, name))
                    had = entries is not None and name in entries
                    if found is None and not had:
                        continue
                    joined = _union(found.values()) if found is not None else set()
                    entry = (label, key, name)
                    was_cut = cut.get(entry)
                    old = entries[name] if entries is not None and had else None
                    if old is not None:
                        joined = set(_join_capped(joined | old, cut, entry))
                    new = {_widen(a) for a in joined}
                    if old is None or new != old or cut.get(entry) != was_cut:
                        moving.add((key, name))
                    if entries is None:
                        entries = previous[key] = defaultdict(set)
                    entries[name] = new
                if kind and _frozen(entries) != before:
                    changed.add((kind, key))
        if everything:
            callers = set(self.contributions) | set(facts.returns)
        else:
            callers = touched.returns | {c for c, _ in unsettled.get("ret", set())}
        moving = settling["ret"] = set()
        for caller in callers:
            contribution = self.contributions.get(caller)
            if contribution is None:
                facts.calls.pop(caller, None)
            else:
                facts.calls[caller] = contribution.calls
            previous_returns = facts.returns.get(caller)
            entry = ("ret", caller, "")
            was_cut = cut.get(entry)
            if previous_returns is not None:
                value = _join_capped(
                    (NO_ATOMS if contribution is None else contribution.returns) | previous_returns,
                    cut,
                    entry,
                )
            elif contribution is None:
                continue
            else:
                value = contribution.returns
            widened = frozenset(_widen(a) for a in value)
            if previous_returns is None or widened != previous_returns:
                changed.add(("ret", caller))
                moving.add((caller, ""))
            elif cut.get(entry) != was_cut:
                moving.add((caller, ""))
            facts.returns[caller] = widened
        self.unsettled = settling
        self._publish_small(facts, touched)
        self._in_rebuild_order(facts)
        return changed

    def _in_rebuild_order(self, facts: TensorFacts) -> None:
        """Put the entries of the widened tables in the order `_publish_all` builds them in
        (contributors first, in the aggregate's order, then entries only the last round
        had): later stages walk these tables, and what they report first (a witness path
        among several) must not depend on how the facts were published."""
        facts.calls = {caller: c.calls for caller, c in self.contributions.items()}
        facts.returns = {
            **{caller: facts.returns[caller] for caller in self.contributions},
            **facts.returns,
        }
        for table, name in (
            (self.params, "param_atoms"),
            (self.external, "external_evidence"),
            (self.attrs, "attrs"),
        ):
            previous: dict[str, dict[str, set[Atom]]] = getattr(facts, name)
            ordered: dict[str, dict[str, set[Atom]]] = defaultdict(lambda: defaultdict(set))
            for key, entry in table:
                ordered[key][entry] = previous[key][entry]
            for key, entries in previous.items():
                for entry, atoms in entries.items():
                    into = ordered[key]
                    if entry not in into:
                        into[entry] = atoms
            setattr(facts, name, ordered)

    def everything(self) -> _Touched:
        """Every entry of every table, as touched."""
        touched = _Touched()
        touched.returns = set(self.contributions)
        touched.params = set(self.params)
        touched.external = set(self.external)
        touched.attrs = set(self.attrs)
        touched.primitive = set(self.primitive)
        touched.unknown_kind = set(self.unknown_kind)
        touched.symbolic = set(self.symbolic)
        touched.literal = set(self.literal)
        touched.callees = set(self.callees)
        touched.callbacks = set(self.callbacks)
        touched.wrapped = set(self.wrapped)
        touched.signatures = set(self.signatures)
        return touched


@dataclass(slots=True)
class _Touched:
    """The entries of the aggregate that replacing contributions may have changed."""

    returns: set[str] = field(default_factory=set)
    params: set[tuple[str, str]] = field(default_factory=set)
    external: set[tuple[str, str]] = field(default_factory=set)
    attrs: set[tuple[str, str]] = field(default_factory=set)
    primitive: set[tuple[str, str]] = field(default_factory=set)
    unknown_kind: set[tuple[str, str]] = field(default_factory=set)
    symbolic: set[tuple[str, str]] = field(default_factory=set)
    literal: set[tuple[str, str]] = field(default_factory=set)
    callees: set[str] = field(default_factory=set)
    callbacks: set[str] = field(default_factory=set)
    wrapped: set[str] = field(default_factory=set)
    signatures: set[str] = field(default_factory=set)


_K = TypeVar("_K")
_V = TypeVar("_V")


def _put_all(
    table: dict[tuple[str, str], dict[str, Atoms]],
    caller: str,
    found: dict[tuple[str, str], set[Atom]],
    remove: bool,
    touched: set[tuple[str, str]],
) -> None:
    for pair, atoms in found.items():
        _put(table, pair, caller, frozenset(atoms), remove)
        touched.add(pair)


def _put(table: dict[_K, dict[str, _V]], key: _K, caller: str, value: _V, remove: bool) -> None:
    """Set (or, with `remove`, drop) one contributor's value of a fact; a fact left without
    contributors disappears, so that an exact removal leaves the table as a rebuild would."""
    by_caller = table.setdefault(key, {})
    if remove:
        by_caller.pop(caller, None)
        if not by_caller:
            del table[key]
    else:
        by_caller[caller] = value


def _mark(
    table: dict[tuple[str, str], set[str]], pair: tuple[str, str], caller: str, remove: bool
) -> None:
    callers = table.setdefault(pair, set())
    if remove:
        callers.discard(caller)
        if not callers:
            del table[pair]
    else:
        callers.add(caller)


def _union(parts: Iterable[Atoms]) -> set[Atom]:
    out: set[Atom] = set()
    for atoms in parts:
        out |= atoms
    return out


def _table_of(
    table: dict[tuple[str, str], dict[str, Atoms]],
) -> dict[str, dict[str, set[Atom]]]:
    out: dict[str, dict[str, set[Atom]]] = defaultdict(lambda: defaultdict(set))
    for (key, name), by_caller in table.items():
        out[key][name] = _union(by_caller.values())
    return out


_WIDENED: dict[Atom, Atom] = {}
"""`_widen` of container atoms already seen (and `_collapse` of nested ones). After
WIDEN_AFTER rounds every fact of the project is widened again in every round, and the same
container atoms come back each time (on TensorFlow's own ops a quarter of the solver's time
went into widening them again); widening is idempotent and a pure function of the atom."""


def _widen(atom: Atom, depth: int = 0) -> Atom:
    if atom[0] not in CONTAINER_KINDS:
        return _widen_atom(atom, depth)
    key = (atom, depth >= 1)
    found = _WIDENED.get(key)
    if found is None:
        if len(_WIDENED) >= MAX_SHRUNK:
            _WIDENED.clear()
        found = _WIDENED[key] = _widen_atom(atom, depth)
    return found


def _widen_atom(atom: Atom, depth: int) -> Atom:
    """An atom of the widened domain: no shapes, no literal values, and containers one level
    deep (a container inside a container is summarised as `_shrink` does past MAX_NESTING).

    Shapes and literal values alone do not make the domain small: containers of containers
    combine without end on real code (TensorFlow's own `data_flow_ops` gained a new nesting
    of lists and tuples in every round for twenty rounds). One level of containers, over a
    finite set of element atoms, makes the widened domain finite and shallow, so joined facts
    stop growing after a few rounds whatever the project."""
    kind = atom[0]
    if kind in ("tensor", "variable", "numpy") and len(atom) > 2 and atom[2] is not None:
        return (kind, atom[1], None, *atom[3:])
    if kind == "lit" and atom[1] in ("int", "float", "str") and atom[2] is not None:
        return ("lit", atom[1], None)
    if kind in CONTAINER_KINDS and depth >= 1:
        return _collapse(atom)
    if kind == "tup":
        parts = tuple(frozenset(_widen(a, depth + 1) for a in part) for part in atom[1])
        return ("tup", parts, *atom[2:])
    if kind == "seq":
        return ("seq", atom[1], frozenset(_widen(a, depth + 1) for a in atom[2]))
    if kind == "dict":
        return ("dict", frozenset(_widen(a, depth + 1) for a in atom[1]))
    return atom


def _join_table(
    table: dict[str, dict[str, set[Atom]]],
    previous: dict[str, dict[str, set[Atom]]],
    cut: dict[CutEntry, bool],
    label: str,
) -> None:
    for key, entries in previous.items():
        for name, atoms in entries.items():
            joined = table[key][name] | atoms
            table[key][name] = set(_join_capped(joined, cut, (label, key, name)))


def _widen_table(table: dict[str, dict[str, set[Atom]]]) -> dict[str, dict[str, set[Atom]]]:
    widened: dict[str, dict[str, set[Atom]]] = defaultdict(lambda: defaultdict(set))
    for key, entries in table.items():
        for name, atoms in entries.items():
            widened[key][name] = {_widen(a) for a in atoms}
    return widened


def _table_changed(new: dict[str, set[Atom]] | None, old: dict[str, set[Atom]] | None) -> bool:
    """Whether two name -> atoms tables differ, empty entries aside. Most tables are equal
    from one round to the next: the plain comparison settles those at C speed."""
    if new == old:
        return False
    return _frozen(new) != _frozen(old)


def _frozen(table: dict[str, set[Atom]] | None) -> frozenset[tuple[str, frozenset[Atom]]]:
    if not table:
        return frozenset()
    return frozenset((name, frozenset(atoms)) for name, atoms in table.items() if atoms)


def solve(index: ProjectIndex) -> TensorFacts:
    """Iterate parameter evidence, return values and class attributes to a fixed point."""
    return Solver(index).facts


def project_keys(index: ProjectIndex) -> list[str]:
    """Every function key of the project (module code first), in project order."""
    return [
        f"{relpath}::{q}"
        for relpath, module in index.modules.items()
        for q in ["<module>", *module.functions]
    ]


class Solver:
    """The fixed point of the tensor facts, and what it needs to be solved again after an
    edit without starting over.

    A worklist: after the first round only the functions that read a fact that changed
    (a parameter's evidence, a callee's return, a class's attributes) are evaluated again,
    found through `readers` (fact -> the functions whose latest evaluation read it). A last
    phase then runs with unknowns made explicit. Rounds are Jacobi rounds (every evaluation
    of a round reads the facts of the previous one), so what a function contributes depends
    only on the facts it read, which is what makes `update` possible.
    """

    def __init__(self, index: ProjectIndex) -> None:
        self.index = index
        self.facts = TensorFacts()
        self.keys = project_keys(index)
        self.aggregate = Aggregate({key: i for i, key in enumerate(self.keys)})
        self.deps: dict[str, set[Dep]] = {}
        self.readers: dict[Dep, set[str]] = defaultdict(set)
        self.widened = False
        """Some phase ran past WIDEN_AFTER rounds: its facts depend on the whole history of
        the iteration, so an edit is solved again from scratch."""
        self.settled: dict[str, tuple[int, int]] = {}
        self._solve(self.keys, set(), incremental=False)

    # ---------------------------------------------------------------- the fixed point

    def _solve(self, dirty: list[str], changed: set[Dep], *, incremental: bool) -> bool:
        """Both phases from `dirty` (and the readers of `changed`); False when a phase of an
        incremental re-solve would reach the widening rounds (`update` then gives up)."""
        facts = self.facts
        evaluated: set[str] = set()
        facts.final = False
        facts.rounds = 0
        dirty = self._dirty(dirty, changed)
        for _round in range(MAX_ROUNDS):
            if not dirty:
                break
            if incremental and facts.rounds >= WIDEN_AFTER:
                return False
            evaluated.update(dirty)
            dirty = self._dirty([], self._round(dirty))
        unsettled = set(dirty)
        self.widened = facts.rounds > WIDEN_AFTER
        # Final rounds: missing facts now read as "unknown". Only evaluations that relied on a
        # missing fact can change (or had not settled yet), and then whatever read what changed.
        facts.final = True
        facts.rounds = 0  # the final phase gets its own rounds before widening
        optimistic = self.readers.get(OPTIMISTIC, set()) & evaluated
        dirty = self._dirty(sorted(optimistic | unsettled), set())
        for _round in range(MAX_FINAL_ROUNDS):
            if not dirty:
                break
            if incremental and facts.rounds >= WIDEN_AFTER:
                return False
            evaluated.update(dirty)
            dirty = self._dirty([], self._round(dirty))
        self.widened = self.widened or facts.rounds > WIDEN_AFTER
        facts.converged = not dirty
        # Each function's latest evaluation read only facts that have not changed since: its
        # memo is the solution's view of the function, for the analyses that follow.
        facts.evaluators = dict(facts.latest_evaluators)
        # What each evaluator holds now, so that `update` can forget what the analyses after
        # the solve add to it (an evaluator not evaluated again keeps its earlier size).
        for key in facts.evaluators.keys() if not incremental else evaluated:
            evaluator = facts.evaluators.get(key)
            if evaluator is not None:
                self.settled[key] = (len(evaluator.memo), len(evaluator.call_results))
        return True

    def _dirty(self, keys: list[str], changed: set[Dep]) -> list[str]:
        """`keys` and the readers of `changed`, in project order."""
        found = set(keys)
        for dep in changed:
            found |= self.readers.get(dep, set())
        return sorted(found, key=self.aggregate.order.__getitem__)

    def _round(self, dirty: list[str]) -> set[Dep]:
        facts = self.facts
        facts.evaluators = {}
        touched = _Touched()
        for key in dirty:
            contribution, deps = _evaluate_guarded(self.index, facts, key)
            self._read(key, deps)
            self.aggregate.replace(key, contribution, touched)
        return self.aggregate.publish(facts, touched)

    def _read(self, key: str, deps: set[Dep] | None) -> None:
        """Record what `key`'s latest evaluation read (None: the key is gone)."""
        for dep in self.deps.pop(key, ()):
            readers = self.readers.get(dep)
            if readers is not None:
                readers.discard(key)
        if deps is not None:
            self.deps[key] = deps
            for dep in deps:
                self.readers[dep].add(key)

    # ---------------------------------------------------------------- after an edit

    def update(self, index: ProjectIndex, modules: Collection[str]) -> bool:
        """Solve again after the summaries of `modules` changed, re-evaluating only what
        depends on them; False when that is not possible (the caller solves from scratch).

        The caller promises that no other module changed and that name resolution through
        `modules` is unchanged (same files, same module-level names: see `project.py`).
        The functions of `modules`, and those that evaluated their code (closures, readers
        of their globals), are reset to nothing, with the functions on a one-step cycle
        with them (a caller that passes them their own results): what those contributed
        may rest on the old code, and a fact that only supports itself must not survive
        the edit. Then the worklist runs from there in both phases: every function that
        reads a fact that changes is evaluated again, so the rest stays as it was. A
        history-dependent solution (widened) is never updated.
        """
        if self.widened or not self.facts.converged:
            return False
        facts = self.facts
        old_keys = [k for k in self.keys if k.split("::", 1)[0] in modules]
        self.index = index
        keys = project_keys(index)
        order = self.aggregate.order
        if keys != self.keys:
            self.keys = keys
            order = {key: i for i, key in enumerate(keys)}
        new_keys = [k for k in self.keys if k.split("::", 1)[0] in modules]
        direct = set(old_keys) | set(new_keys)
        for key in old_keys:
            direct |= self.readers.get(("params", key), set())
        reset = set(direct)
        for key in direct:
            written = self._writes(key)
            for dep in self.deps.get(key, ()):
                for writer in self._writers(dep):
                    if self.deps.get(writer, set()) & written:
                        reset.add(writer)
        # Evaluators kept from the last solve forget what later analyses evaluated since.
        for key, evaluator in facts.latest_evaluators.items():
            evaluator.index = index
            size = self.settled.get(key)
            if size is not None and len(evaluator.memo) > size[0]:
                for sym in list(evaluator.memo)[size[0] :]:
                    del evaluator.memo[sym]
            if size is not None and len(evaluator.call_results) > size[1]:
                for i in list(evaluator.call_results)[size[1] :]:
                    del evaluator.call_results[i]
        facts.cache.clear()
        self.aggregate.order = order
        touched = _Touched()
        for key in reset:
            self.aggregate.replace(key, None, touched)
            facts.internal_errors.pop(key, None)
            facts.latest_evaluators.pop(key, None)
            self.settled.pop(key, None)
            self._read(key, None)
        for key in direct - set(self.keys):
            touched.returns.discard(key)
            facts.returns.pop(key, None)
            facts.calls.pop(key, None)
        facts.rounds = 0
        changed = self.aggregate.publish(facts, touched)
        dirty = sorted((reset & set(order)), key=order.__getitem__)
        return self._solve(dirty, changed, incremental=True)

    def _writes(self, key: str) -> set[Dep]:
        """The facts `key`'s contribution adds to."""
        contribution = self.aggregate.contributions.get(key)
        written: set[Dep] = {("ret", key)}
        if contribution is not None:
            written.update(("params", callee) for callee, _, _, _ in contribution.evidence)
            written.update(("attrs", class_key) for class_key, _, _ in contribution.attrs)
        return written

    def _writers(self, dep: Dep) -> set[str]:
        """The functions whose contribution adds to the fact `dep`."""
        kind, key = dep
        if kind == "ret":
            return {key}
        if kind == "params":
            return set(self.aggregate.callees.get(key, ())) | set(
                self.aggregate.callbacks.get(key, ())
            )
        if kind == "attrs":
            return {
                caller
                for (class_key, _), by_caller in self.aggregate.attrs.items()
                if class_key == key
                for caller in by_caller
            }
        return set()


def callees(index: ProjectIndex, resolved: ResolvedCall) -> Iterator[tuple[str, str]]:
    """The project functions a call runs, with how it reaches each: ("func" | "method" |
    "layer_call" | "class", key); constructing a class runs its `__init__`."""
    for kind, target in resolved.targets:
        if kind == "class":
            init = index.find_method(target, "__init__")
            if init is None:
                continue
            target = init
        yield kind, target


def _record_evidence(
    index: ProjectIndex, caller: str, resolved: ResolvedCall, out: Contribution
) -> None:
    """Arguments of a call become evidence for the callee's parameters."""
    for kind, target in callees(index, resolved):
        try:
            callee = index.function(target)
        except KeyError:
            continue
        # A method call or a construction binds the receiver; `Class.method(obj, x)` (a
        # "func" target) passes it explicitly.
        skip_receiver = kind in ("method", "layer_call", "class")
        out.callees.append(target)
        chained = resolved.chained.get(target)
        bound = (
            bind_arguments(callee, resolved.args, resolved.kwargs, skip_receiver=skip_receiver)
            if chained is None
            else bind_arguments(callee, chained, {}, skip_receiver=skip_receiver)
        )
        written: dict[str, Atoms] | None = None  # the arguments as written, when a site needs them
        for name, atoms in bound.items():
            out.evidence.append((target, name, atoms, caller != target))
            literal = bool(atoms) and all(is_primitive(a) for a in atoms)
            unknown = not literal and bool(atoms) and all(a[0] == "?" for a in atoms)
            if literal:
                out.primitive.append((target, name))
            elif unknown:
                out.unknown_kind.append((target, name))
            if literal or unknown:
                if written is None:
                    written = bind_arguments(
                        callee,
                        [frozenset({s}) for s in resolved.site.args],
                        {k: frozenset({v}) for k, v in resolved.site.kwargs},
                        skip_receiver=skip_receiver,
                    )
                syms = written.get(name, frozenset())
                # Several arguments collected by `**kwargs` or `*args`: sorted (the
                # set would name a different one first in every run).
                argument = (
                    next(iter(syms))
                    if len(syms) == 1
                    else ("seq", "tuple", tuple(sorted(syms, key=repr)))
                )
                out.literal_sites.append((target, name, unknown, resolved.site.span, argument))
            if any(a[0] == "symbolic" for a in atoms) and not (
                kind == "layer_call" and _builds_itself(index, resolved)
            ):
                out.symbolic.append((target, name))
        params = callee.params[1:] if skip_receiver and callee.params else callee.params
        for p in params:
            if p.name not in bound and p.default is not None and _constant(p.default):
                # The call takes the default: one more value the parameter receives.
                out.literal_sites.append((target, p.name, False, resolved.site.span, p.default))
    for info in resolved.api:
        compiler = compiler_named(info.name)
        if compiler is not None:
            # `tf.function(g, ...)`: g is compiled with the arguments this call supplies.
            supplied = compiler.argument_names(len(resolved.args), resolved.kwargs)
            site = resolved.site
            signature = compiler.argument(site.args, dict(site.kwargs), compiler.signature_argument)
            for atom in resolved.args[0] if resolved.args else ():
                if atom[0] in ("func", "method"):
                    out.wrapped.append((atom[1], frozenset(supplied)))
                    if signature is not None:
                        out.wrapper_signatures.append((atom[1], signature))
            continue
        for atom in callback_atoms(resolved, info):
            out.callbacks.append((atom[1], info.traces_callbacks))
            try:
                callback = index.function(atom[1])
            except KeyError:
                continue
            if info.callback_args_tuple:
                # `strategy.run(fn, args=(x, y))` calls `fn(x, y)`: the arguments flow.
                passed = _argument(resolved, info.callback_args_tuple)
                bound = bind_arguments(
                    callback, _positional(passed), {}, skip_receiver=atom[0] == "method"
                )
                elements = _written_elements(resolved, info.callback_args_tuple)
                for i, (name, atoms) in enumerate(bound.items()):
                    out.evidence.append((atom[1], name, atoms, True))
                    if atoms and all(is_primitive(a) for a in atoms):
                        out.primitive.append((atom[1], name))
                        element = elements[i] if i < len(elements) else ("?",)
                        out.literal_sites.append(
                            (atom[1], name, False, resolved.site.span, element)
                        )
                continue
            # Callbacks receive tensors (dataset elements, map_fn slices), what the API
            # says it hands them (`Dataset.apply` passes the dataset), or the leaves of the
            # structure `map_structure` maps, whatever they are.
            params = callback.explicit_params if atom[0] == "func" else callback.params[1:]
            if info.returns == "callback_results" and info.callback_input == "tensor":
                received = frozenset(leaf_atoms(_mapped_structure_argument(info, resolved.args)))
            else:
                received = atoms_for_return(info.callback_input)
            initial = (
                _argument(resolved, info.callback_accumulator)
                if info.callback_accumulator
                else None
            )
            for i, p in enumerate(params):
                if i == 0 and initial is not None:
                    # A fold's accumulator: the initializer, then what the callback returns
                    # (a tuple holding a tf.TensorArray stays one, not "a tensor").
                    out.evidence.append((atom[1], p.name, initial, True))
                    continue
                out.evidence.append((atom[1], p.name, received, True))


def _constant(sym: Sym, depth: int = 0) -> bool:
    """A literal int, float or str as written, or a list/tuple display of them."""
    if sym[0] == "lit":
        return sym[1] in ("int", "float", "str") and sym[2] is not None
    if sym[0] == "seq" and depth < 3:
        return bool(sym[2]) and all(_constant(e, depth + 1) for e in sym[2])
    return False


def _builds_itself(index: ProjectIndex, resolved: ResolvedCall) -> bool:
    """Every Keras layer or model called here defines `build`: Keras 3 then creates its
    weights by calling `build(input_shape)` before the first call, outside the symbolic pass,
    so that a symbolic call (functional API) only reads initialised variables and a compiled
    `call` captures them by reference."""
    classes = [a[2] for a in resolved.callee_atoms if a[0] == "obj" and a[2] is not None]
    return bool(classes) and all(index.find_method(c, "build") is not None for c in classes)


def _argument(resolved: ResolvedCall, where: tuple[int | str, ...]) -> Atoms | None:
    """The atoms of the argument at a position or keyword of `where`; None when absent."""
    return _argument_atoms(resolved.args, resolved.kwargs, where)


def _argument_atoms(
    args: list[Atoms], kwargs: dict[str, Atoms], where: tuple[int | str, ...]
) -> Atoms | None:
    for position in where:
        if isinstance(position, int) and position < len(args):
            return args[position]
        if isinstance(position, str) and position in kwargs:
            return kwargs[position]
    return None


def _written_elements(resolved: ResolvedCall, where: tuple[int | str, ...]) -> tuple[Sym, ...]:
    """The elements of a tuple display given as the callback's arguments (`args=(x, 2.0)`),
    as written; empty when it is not a display."""
    site = resolved.site
    for position in where:
        sym: Sym | None = None
        if isinstance(position, int) and position < len(site.args):
            sym = site.args[position]
        elif isinstance(position, str):
            sym = dict(site.kwargs).get(position)
        if sym is not None:
            return tuple(sym[2]) if sym[0] == "seq" else ()
    return ()


def _positional(passed: Atoms | None) -> list[Atoms]:
    """The arguments a tuple of arguments spreads into (`fn(*args)`): by position for a
    short tuple display, else one argument of every element kind; none when absent."""
    if passed is None:
        return []
    tuples = [a for a in passed if a[0] == "tup"]
    if len(tuples) == 1 and len(passed) == 1:
        return list(tuples[0][1])
    elements: set[Atom] = set()
    for atom in passed:
        elements.update(_iterate(atom))
    return [_cap(elements)] if elements else []


def callback_atoms(resolved: ResolvedCall, info: ApiInfo) -> Iterator[Atom]:
    """The project functions (`func`/`method` atoms) a call hands to `info` as callbacks that
    run as part of the call (`tf.map_fn(f, x)`, `strategy.run(f, args=...)`, `ds.map(f)`)."""
    for position in info.callback_args:
        atoms = (
            resolved.args[position]
            if isinstance(position, int) and position < len(resolved.args)
            else resolved.kwargs.get(str(position), NO_ATOMS)
        )
        for atom in atoms:
            if atom[0] in ("func", "method"):
                yield atom


def resolve_ref_key(ref: Ref) -> str | None:
    return ref[1] if ref[0] in ("func", "class") and ref != UNKNOWN_REF else None
