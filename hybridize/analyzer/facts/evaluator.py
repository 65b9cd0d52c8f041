"""The evaluator of the tensor analysis: one function's values under the current facts.

`Evaluator` turns the symbolic values of a function's summary into atoms (`values.py`):
parameters read their call sites' evidence from `TensorFacts`, calls are resolved to project
functions, classes, framework APIs and Python builtins (`ResolvedCall`), and every fact read
is recorded as a dependency, so that the solver (`solver.py`) evaluates a function again only
when something it read has changed.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, cast

from hybridize.analyzer.facts.atom_bounds import (
    MAX_ATOMS,
    cap_atoms,
    cut_atoms,
    merge_tensor_specs,
    merged_dicts,
    unkeyed,
)
from hybridize.analyzer.facts.container_modules import instance_call_methods
from hybridize.analyzer.facts.mapped_structures import (
    mapped_structure_argument,
    mapped_structures,
    structure_elements,
)
from hybridize.analyzer.facts.predicates import is_tensor_like
from hybridize.analyzer.facts.refs import UNKNOWN_REF, Ref, RefKind, is_ext_ref, module_ref
from hybridize.analyzer.facts.resolve import ProjectIndex, dynamic_global_name
from hybridize.analyzer.facts.spec_annotations import spec_annotation_atoms
from hybridize.analyzer.facts.values import (
    BOOL,
    CONTAINER_OBJECT_RESULTS,
    FLOAT,
    INT,
    ITERATOR,
    MAX_NESTING,
    MAX_TUPLE,
    NO_ATOMS,
    NONE_ATOM,
    PYTHON,
    STR,
    SYMBOLIC,
    TENSOR,
    TENSOR_LIKE_KINDS,
    UNKNOWN_ATOM,
    Atom,
    AtomKind,
    Atoms,
    Dep,
    ObjConfig,
    PartialConfig,
    atom_kind,
    atoms_for_return,
    boundext_atom,
    canonical,
    canonical_atom,
    chain_config,
    class_atom,
    dense_config,
    dict_atom,
    dict_value_at,
    ext_atom,
    ext_name,
    foreign_member,
    foreign_object,
    func_atom,
    is_chain_config,
    is_class_atom,
    is_dense_config,
    is_dict_atom,
    is_ext_atom,
    is_func_atom,
    is_keyed_dict,
    is_lit_atom,
    is_method_atom,
    is_numpy_atom,
    is_obj_atom,
    is_partial_config,
    is_symbolic_atom,
    is_unknown_kind,
    keyed_dict_atom,
    lit_atom,
    method_atom,
    module_atom,
    numpy_atom,
    obj_atom,
    obj_class,
    obj_config,
    partial_args,
    partial_config,
    partial_wrapped,
    seq_atom,
    shaped_numpy_atom,
    super_atom,
    tensor_atom,
    tup_atom,
    variable_atom,
)
from hybridize.analyzer.frameworks import (
    ApiInfo,
    composite_spec,
    hinted_kind,
    lookup,
    tensor_spec,
    units_parameter,
)
from hybridize.analyzer.frameworks.framework import (
    compiler_named,
    is_foreign_library,
)
from hybridize.analyzer.frameworks.methods import NOT_TENSOR_MEMBERS
from hybridize.analyzer.frameworks.numpy_rules import FLOAT_INFO_SMALL_MEMBERS
from hybridize.analyzer.frameworks.python_stdlib import (
    ARGUMENT_RETURNING_CALLS,
    COMMAND_LINE_FLAGS,
    PARTIAL_APPLICATIONS,
    value_library,
)
from hybridize.analyzer.frameworks.shapes import (
    Shape,
    broadcast,
    literal_ints,
    matmul_shape,
    numpy_dtype,
    numpy_result_dtype,
    numpy_shape,
)
from hybridize.analyzer.summaries.ir import CallSite, FunctionSummary, ImportSummary, Param, Sym
from hybridize.analyzer.summaries.keys import MODULE_CODE, ClassKey, FunctionKey
from hybridize.analyzer.summaries.syms import (
    NONE,
    SymKind,
    attr_base,
    attr_name,
    call_index,
    dict_keys,
    is_attr,
    is_call,
    is_iter,
    is_lit,
    is_local,
    is_slice,
    kind_of,
    local_sym,
)
from hybridize.model import Span


@dataclass(frozen=True, slots=True)
class LiteralSite:
    """A call site passing a parameter only Python literals, or a value of unknown kind."""

    caller: FunctionKey
    span: Span
    argument: Sym
    unknown_kind: bool = False


@dataclass(slots=True)
class ResolvedCall:
    """A call site with what it reaches: project functions/classes and framework knowledge.

    One per call of the project, kept with the solution: what is empty (most calls reach
    either functions or APIs, pass no keywords, chain nothing) is a shared empty tuple or
    mapping, not an empty container of its own (`Evaluator.resolve_call`)."""

    site: CallSite
    index: int
    callee_atoms: Atoms
    targets: Sequence[
        tuple[str, FunctionKey]
    ]  # (kind, key): ("func"|"method"|"class"|"layer_call", key)
    api: Sequence[ApiInfo]
    receiver_roles: Sequence[str]
    """Roles of framework objects called directly: `layer(x)`, `loss_fn(y, p)`."""
    args: Sequence[Atoms]
    kwargs: Mapping[str, Atoms]
    result: Atoms
    chained: Mapping[FunctionKey, list[Atoms]] = field(default_factory=dict)
    """Targets a container module calls on another value than the call's arguments (the
    second module of an `nn.Sequential` gets the first one's output): their arguments."""
    partials: Mapping[FunctionKey, tuple[PartialConfig, ...]] = field(default_factory=dict)
    """Targets the call reaches through `functools.partial` objects: the objects (one or
    several: the callee may be any of them, each binding its own arguments before the
    call's), in `canonical` order."""
    constructs: bool = False
    """Some target is a class (`callees` then looks up its `__init__`); else the targets are
    the functions the call runs, as they are."""


@dataclass(slots=True)
class TensorFacts:
    """The solution: per-function parameter evidence, returns, calls; per-class attributes."""

    param_atoms: dict[FunctionKey, dict[str, set[Atom]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(set))
    )
    primitive_params: dict[FunctionKey, set[str]] = field(default_factory=lambda: defaultdict(set))
    unknown_kind_params: dict[FunctionKey, set[str]] = field(
        default_factory=lambda: defaultdict(set)
    )
    """Parameters some caller fills with a value of unknown kind (maybe a Python literal)."""
    literal_sites: dict[FunctionKey, dict[str, list[LiteralSite]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(list))
    )
    """Callee -> parameter -> the call sites that pass it only Python literals (or values of
    unknown kind): which caller, where, and the argument as written (see `retracing`)."""
    callers: dict[FunctionKey, set[FunctionKey]] = field(default_factory=lambda: defaultdict(set))
    callback_callers: dict[FunctionKey, set[FunctionKey]] = field(
        default_factory=lambda: defaultdict(set)
    )
    external_evidence: dict[FunctionKey, dict[str, set[Atom]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(set))
    )
    """Argument kinds from call sites outside the function itself (recursive calls excluded:
    their arguments derive from the parameter they feed)."""
    call_count: dict[FunctionKey, int] = field(default_factory=lambda: defaultdict(int))
    returns: dict[FunctionKey, Atoms] = field(default_factory=dict)
    attrs: dict[ClassKey, dict[str, set[Atom]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(set))
    )
    calls: dict[FunctionKey, list[ResolvedCall]] = field(default_factory=dict)
    traced_callbacks: set[FunctionKey] = field(default_factory=set)
    """Callbacks TensorFlow traces whatever the caller's mode (`Dataset.map`, `tf.function`)."""
    caller_mode_callbacks: dict[FunctionKey, set[FunctionKey]] = field(
        default_factory=lambda: defaultdict(set)
    )
    """Callback -> the functions that hand it to an API running it in their mode (`tf.map_fn`)."""
    wrapped_by_compiler: set[FunctionKey] = field(default_factory=set)
    wrapper_arguments: dict[FunctionKey, set[str]] = field(default_factory=dict)
    wrapper_signatures: dict[FunctionKey, tuple[FunctionKey, Sym]] = field(default_factory=dict)
    symbolic_args: dict[FunctionKey, set[str]] = field(default_factory=lambda: defaultdict(set))
    evaluators: dict[FunctionKey, Evaluator] = field(default_factory=dict)
    final: bool = False
    latest_evaluators: dict[FunctionKey, Evaluator] = field(default_factory=dict)
    consulted: set[FunctionKey] = field(default_factory=set)
    """The functions whose evaluator was handed out (`get_evaluator`, `solved_evaluator`)
    since the fixed point last settled: the only evaluators whose memo the analyses after
    it can have grown, which `Solver.update` trims back (not a pass over every function)."""
    evaluators_changed: set[FunctionKey] = field(default_factory=set)
    """The functions whose entry of `evaluators` may be another object (or none) than when
    the set was last taken (`take_changed_evaluators`): an evaluator made
    (`get_evaluator`), a latest one dropped (`Solver.update`), the entries one made outside
    the solution (`made_outside_solution`) when `evaluators` is set to the solution's
    again. What was read through the evaluators (`frozen_state._writes`) is read again of
    these alone, not checked over every function of the project after each edit."""
    made_outside_solution: set[FunctionKey] = field(default_factory=set)
    """The functions whose evaluator `get_evaluator` made with none in `latest_evaluators`:
    setting `evaluators` to the solution's drops it (`solution_evaluators`)."""
    rounds: int = 0
    converged: bool = True
    """False when the round bounds stopped the fixed point before it settled."""
    cache: dict[str, object] = field(default_factory=dict)
    scans: dict[str, object] = field(default_factory=dict)
    """Per-function and per-module parts of project-wide facts, kept across incremental
    updates by the identity of what each came from (`scan_memo`)."""
    calls_log: list[FunctionKey] = field(default_factory=list)
    """The functions whose `calls` entry was replaced or removed in place, in order
    (`scan_memo` catches up from it); cleared, with `calls_epoch` counted up, when it
    outgrows the project."""
    calls_epoch: int = 0
    modules_log: list[str] = field(default_factory=list)
    """The modules whose summary an update replaced (`Solver.update`), in order (`scan_memo`'s
    module scans catch up from it, as function scans do from `calls_log`); cleared, with
    `modules_epoch` counted up, when it grows long."""
    modules_epoch: int = 0
    shared: dict[Atoms, Atoms] = field(default_factory=dict)
    """One object per distinct value the evaluators keep (`Evaluator.share`): the same few
    values (a tensor, unknown, a Python object) are computed again and again, and kept as
    copies they were most of the evaluators' memory (9 objects per distinct value on the
    tf-models sample). Emptied when it outgrows MAX_SHARED (sharing is never needed)."""
    updatable: bool = True
    """The facts may be updated after an edit (`Solver.update`: a project kept open). A
    one-shot analysis's (False) never change once solved: what serves only an update (the
    per-key sources of `scans`) is not kept."""
    internal_errors: dict[FunctionKey, str] = field(default_factory=dict)
    """Functions the analysis failed on, with the error: they get unknown facts."""
    past_budget: set[FunctionKey] = field(default_factory=set)
    """Functions whose evaluation ran past its budget in this solve: not evaluated again
    (`solver._evaluate_guarded`)."""
    """Derived project-wide facts computed once from the solution (by later stages)."""
    """Set for the last round: parameters nobody passes are then unknown, not empty."""


def solution_evaluators(facts: TensorFacts) -> None:
    """Set `evaluators` to the solution's (`latest_evaluators`), noting the functions whose
    entry that drops (`TensorFacts.made_outside_solution`) as changed; the others' entries
    are the latest, whose changes were noted as they were made."""
    facts.evaluators = dict(facts.latest_evaluators)
    facts.evaluators_changed |= facts.made_outside_solution
    facts.made_outside_solution = set()


def take_changed_evaluators(facts: TensorFacts) -> set[FunctionKey]:
    """The functions whose entry of `evaluators` may have changed since the last call
    (`TensorFacts.evaluators_changed`), forgotten as they are handed over."""
    changed = facts.evaluators_changed
    facts.evaluators_changed = set()
    return changed


MODULES_LOG_LIMIT = 4096
"""`TensorFacts.modules_log` is cleared past this many entries (a scan then looks at every
module once)."""


def modules_replaced(facts: TensorFacts, relpaths: Iterable[str]) -> None:
    """Log that the summaries of `relpaths` were just replaced (`TensorFacts.modules_log`)."""
    log = facts.modules_log
    log.extend(relpaths)
    if len(log) > MODULES_LOG_LIMIT:
        log.clear()
        facts.modules_epoch += 1


def calls_written(facts: TensorFacts, keys: Iterable[FunctionKey]) -> None:
    """Log that the `calls` entries of `keys` were just replaced or removed (in place: a
    new `calls` dict needs no log, its identity says it all)."""
    log = facts.calls_log
    log.extend(keys)
    if len(log) > 2 * len(facts.calls) + 64:
        log.clear()
        facts.calls_epoch += 1


SIZE_RETURNS = frozenset({"int", "shape", "size"})
"""What a tensor's size-reading methods return (PyTorch's `size`, `dim`, `numel`)."""


def get_evaluator(index: ProjectIndex, facts: TensorFacts, key: FunctionKey) -> Evaluator:
    """One evaluator (and memo) per function per round of the fixed point."""
    evaluator = facts.evaluators.get(key)
    if evaluator is None:
        evaluator = Evaluator(index, facts, key)
        facts.evaluators[key] = evaluator
        facts.evaluators_changed.add(key)
        if key not in facts.latest_evaluators:
            facts.made_outside_solution.add(key)
    elif evaluator.index is not index:
        # Kept from an earlier solve of the project (`Solver.update`): it reads the current
        # index from now on (an update re-points only the evaluators it hands out).
        evaluator.index = index
    facts.consulted.add(key)
    return evaluator


def solved_evaluator(index: ProjectIndex, facts: TensorFacts, key: FunctionKey) -> Evaluator | None:
    """The solution's evaluator of `key`, if the function has one (none is made), ready to
    evaluate more of it (`get_evaluator`)."""
    return get_evaluator(index, facts, key) if key in facts.evaluators else None


_NOTHING: Mapping[Any, Any] = MappingProxyType({})
"""The empty mapping of every `ResolvedCall` that has nothing in one (read-only)."""

MAX_SHARED = 1_000_000
"""The most distinct values `TensorFacts.shared` holds before it starts again (a project kept
open across many edits would otherwise keep every value it ever computed)."""


class Evaluator:
    """Evaluates the symbolic values of one function under the current solution."""

    # one per function of the project, kept with the solution: no `__dict__` each
    __slots__ = (
        "active",
        "attribute_of",
        "call_results",
        "class_key",
        "deps",
        "facts",
        "fn",
        "framework",
        "index",
        "key",
        "memo",
        "method_of",
        "names",
        "optimistic",
        "partial",
        "relpath",
    )

    def __init__(self, index: ProjectIndex, facts: TensorFacts, key: FunctionKey) -> None:
        self.index = index
        self.facts = facts
        self.key = key
        self.relpath = key.file
        self.fn: FunctionSummary = index.function(key)
        self.memo: dict[Sym, Atoms] = {}
        self.call_results: dict[int, Atoms] = {}
        self.active: set[Sym] = set()
        self.partial: dict[Sym, Atoms] = {}
        own: Dep = ("params", key)
        self.deps: set[Dep] = {own}
        """The facts this evaluation read: re-evaluate when one of them changes."""
        self.names: dict[Dep, set[str]] = {own: set()}
        """Of the `deps` this evaluation read itself by name (its own parameters, a class's
        attributes): the names it read. A dep absent here (merged from another evaluator:
        `read_through`) was read whole. Before the final phase the solver wakes a reader of
        a class's attributes or of a function's parameters only when a name it read changed
        (`Solver._sweep`): a method reading `self.units` is not evaluated again because
        `self.built` changed (on `keras/src` a fifth of the re-evaluations read no name that
        had changed)."""
        self.optimistic = False
        """Set when a missing fact was read as "nothing yet" rather than "unknown"."""
        self.class_key = (
            FunctionKey(self.relpath, self.fn.class_qualname) if self.fn.class_qualname else None
        )
        self.framework = index.function_framework(key)
        """Whose tables answer the methods and attributes of this function's values."""
        self.method_of = self.framework.method_of
        """`Framework.method_of` of the function's framework, bound once (it is hot)."""
        self.attribute_of = self.framework.attribute_of
        """`Framework.attribute_of` of the function's framework, bound once."""

    # ------------------------------------------------------------------ values

    def eval(self, sym: Sym) -> Atoms:
        cached = self.memo.get(sym)
        if cached is not None:
            return cached
        kind: SymKind = sym[0]
        if kind != "local":
            # Symbolic values are trees; only a local variable can lead back to itself.
            result = self.share(
                self._eval_capped(sym) if kind in _CAPPED_KINDS else cap_atoms(self._eval(sym))
            )
            self.memo[sym] = result
            return result
        if sym in self.active:
            # A cycle (`ds = ds.batch(2)`): use what the earlier assignments gave so far.
            return self.partial.get(sym, NO_ATOMS)
        self.active.add(sym)
        try:
            out: set[Atom] = set()
            for value in self.fn.locals.get(sym[1], ()):
                out |= self.eval(value)
                self.partial[sym] = frozenset(out)
            result = self.share(_cap_union(out))
        finally:
            self.active.discard(sym)
        self.memo[sym] = result
        # read only while `sym` is evaluated (a cycle back to it): from now on the memo answers
        self.partial.pop(sym, None)
        return result

    def share(self, value: Atoms) -> Atoms:
        """`value`, as the one object of the facts that holds it (`TensorFacts.shared`)."""
        shared = self.facts.shared
        found = shared.get(value)
        if found is None:
            if len(shared) >= MAX_SHARED:
                shared.clear()
            shared[value] = found = value
        return found

    def read_name(self, dep: Dep, name: str) -> None:
        """This evaluation read the entry `name` of the fact `dep` (`names`)."""
        deps = self.deps
        if dep not in deps:
            deps.add(dep)
            self.names[dep] = {name}
            return
        names = self.names.get(dep)
        if names is not None:
            names.add(name)

    def read_through(self, other: Evaluator) -> None:
        """This evaluation read values `other` evaluated (a default where the `def` runs, a
        parent's local, a module's global): what `other` read, each read whole (which names
        it read is not kept: the merge stays a set union). Whether `other` read a missing
        fact optimistically is not merged: such a reader is made "unknown" in the final
        phase only by a wake-up for any name (`Solver._sweep`)."""
        names = self.names
        if not names.keys().isdisjoint(other.deps):
            for dep in names.keys() & other.deps:
                del names[dep]
        self.deps |= other.deps

    def _eval_capped(self, sym: Sym) -> Atoms:
        """`cap_atoms(self._eval(sym))` for the kinds of `_CAPPED_KINDS`, whose values are built
        from values already capped (or are single atoms that are no containers): capping
        them again gives the same atoms, and re-checking every value took a tenth of the
        evaluation time on `keras/src`."""
        kind: SymKind = sym[0]
        if kind == "call":
            return self.call_result(sym[1])
        if kind == "lit":
            return frozenset((sym,))
        if kind == "name":
            return self._free_name(sym[1])
        if kind == "cond":
            out: set[Atom] = set()
            for option in sym[1]:
                out |= self.eval(option)
            return _cap_union(out)
        if kind == "enter":
            return self.eval(sym[1])
        if kind == "def":
            return frozenset({func_atom(FunctionKey(self.relpath, sym[1]))})
        if kind == "class":
            return frozenset({class_atom(FunctionKey(self.relpath, sym[1]))})
        if kind == "import":
            return self._import(sym)
        if kind == "fstr":
            return STR_ATOMS
        return PYTHON_ATOMS  # "fresh", "slice"

    def _import(self, sym: Sym) -> Atoms:
        ref = self.index.resolve_import(ImportSummary("", sym[1], sym[2]), self.relpath)
        return self.ref_atoms(ref)

    def _eval(self, sym: Sym) -> Iterable[Atom]:
        """The atoms of a symbolic value of a kind not in `_CAPPED_KINDS`, not capped yet."""
        kind: SymKind = sym[0]
        if kind == "param":
            return self._param(sym[1])
        if kind == "attr":
            # (the member's name first: almost no attribute read is `np.finfo(...).eps`)
            if sym[2] in _FLOAT_INFO_MEMBER_NAMES:
                small = self._float_info_member(sym)
                if small is not None:
                    return (small,)
            out: set[Atom] = set()
            for atom in self.eval(sym[1]):
                out.update(self.attribute(atom, sym[2]))
            return out
        if kind == "item":
            index = sym[2]
            if is_lit(index) and type(index[2]) is str:
                return self._keyed_item(sym, index[2])
            out = set()
            for atom in self._subscripted(self.eval(sym[1]), sym[1]):
                out.update(_item(atom, index))
            return out
        if kind == "op":
            return _operation([self.eval(o) for o in sym[1]], sym[2] if len(sym) > 2 else None)
        if kind == "iter":
            out = set()
            for atom in self.eval(sym[1]):
                out.update(iterated_atoms(atom))
            return out
        if kind == "seq" and sym[1] == "generator":
            # A generator expression: its elements are in the summary (HY430 follows them to
            # the leaves they are), but the values' facts still take it for an unknown Python
            # object; seeing its elements there changes other rules' verdicts, each to judge.
            return PYTHON_ATOMS
        if (
            kind == "seq"
            and sym[1] in ("tuple", "list")
            and len(sym[2]) <= MAX_TUPLE
            and all((not is_iter(e)) for e in sym[2])
        ):
            # Short tuple and list displays keep their positions: `x, y = f()` must not mix
            # the kinds of x and y, and `tf.zeros([4, 8])` has a shape.
            return (tup_atom(tuple(self.eval(e) for e in sym[2]), sym[1]),)
        if kind == "seq":
            elements: set[Atom] = set()
            for element in sym[2]:
                elements |= self.eval(element)
            return (seq_atom(sym[1], cap_atoms(elements)),)
        if kind == "dict":
            values: set[Atom] = set()
            for value in sym[1]:
                values |= self.eval(value)
            keys = dict_keys(sym)
            if keys is not None and len(keys) <= MAX_TUPLE:
                # Keys kept, as a short tuple keeps positions: `{"step": best, "hessian": h}`
                # read back by `["step"]` is `best`, not also the tensor `h`.
                keyed = dict(zip(keys, (self.eval(v) for v in sym[1]), strict=True))
                return (keyed_dict_atom(cap_atoms(values), tuple(keyed.items())),)
            return (dict_atom(cap_atoms(values)),)
        return (UNKNOWN_ATOM,)

    def _subscripted(self, atoms: Atoms, base: Sym) -> Atoms:
        """The values a subscript of `base` reads from: `None` left out beside other values,
        since subscripting it raises (a read of `step[2]` after `step = None` sees only what
        `step` holds later). A value that is only `None` is left out too while `base` is a
        local read back inside its own cycle (zfit's loop: `step = None` before it, `L =
        step[2]` in it, `step` still only `None` when the cycle reaches it): what the cycle
        has so far is not all `base` holds. Outside a cycle a value that is only `None` is read
        as before: an empty read there made the incremental solve's results depend on the
        order of its updates (`tests/project/test_incremental.py`, the corpus' vae edited)."""
        if NONE_ATOM not in atoms:
            return atoms
        if len(atoms) > 1 or (is_local(base) and base in self.active):
            return atoms - {NONE_ATOM}
        return atoms

    def _keyed_item(self, sym: Sym, key: str) -> Iterable[Atom]:
        """`base["key"]`: a keyed dict's value at the key (`keyed_dict_atom`). What the function
        stores into `base` is among its values already (the summary adds each store to the
        local); every value where the function may write it out of sight (a mutating method,
        the dict handed to a call, whose callee may store anything)."""
        base = sym[1]
        opened = base in handed_on(self.fn)
        out: set[Atom] = set()
        for atom in self._subscripted(self.eval(base), base):
            found = dict_value_at(atom, key) if not opened and is_dict_atom(atom) else None
            out.update(_item(atom, sym[2]) if found is None else found)
        return out

    def _param(self, name: str) -> Iterable[Atom]:
        fn = self.fn
        if fn.binds_receiver and fn.params and fn.params[0].name == name and self.class_key:
            if _is_classmethod(fn):
                return (class_atom(self.class_key),)
            return (obj_atom(self.index.object_role(self.class_key), self.class_key),)
        names = self.names.get(("params", self.key))
        if names is not None:
            names.add(name)
        evidence = self.facts.param_atoms[self.key].get(name)
        param = next((p for p in fn.params if p.name == name), None)
        out: set[Atom] = set(evidence) if evidence else set()
        if param is not None:
            hinted = self.hint_atoms(param.annotation)
            out |= hinted
            specs = self._spec_hint(param.annotation) if not hinted else NO_ATOMS
            if specs:
                # A spec annotation adds a possibility, not a certainty: with no call site
                # and no default known the value may also be anything else (as an
                # unannotated one is).
                out |= specs
                if not evidence and param.default is None:
                    if self.facts.final:
                        out.add(UNKNOWN_ATOM)
                    else:
                        self.optimistic = True
            if param.kind == "vararg":
                out = {seq_atom("tuple", cap_atoms(out) if out else frozenset({UNKNOWN_ATOM}))}
            elif param.kind == "kwarg":
                out = {dict_atom(cap_atoms(out) if out else frozenset({UNKNOWN_ATOM}))}
            if param.default is not None and param.default != NONE:
                # Defaults are evaluated where the `def` runs, not in the body.
                owner = get_evaluator(self.index, self.facts, self.index.owner_key(self.key))
                out |= owner.eval(param.default)
                self.read_through(owner)
        if out:
            return out
        if self.is_layer_build_shape(name):
            return (PYTHON,)
        # No evidence yet: optimistic while iterating (so a self-call cannot keep "unknown"
        # alive), honest in the final round.
        self.optimistic = True
        return (UNKNOWN_ATOM,) if self.facts.final else ()

    def is_layer_build_shape(self, name: str) -> bool:
        """The shape parameter of a layer's build method (`Framework.layer_build_method`):
        Keras calls `build(input_shape)` with a shape (a tuple or TensorShape), not data."""
        fn = self.fn
        explicit = fn.explicit_params
        if self.class_key is None or not explicit or explicit[0].name != name:
            return False
        base = self.index.layer_base(self.class_key)
        return base is not None and fn.name == base.framework.layer_build_method

    def hint_atoms(self, annotation: str | None) -> Atoms:
        """Atoms a type hint promises: a framework's tensor or variable type (`tf.Tensor`,
        `tf.Variable`, ragged/sparse: `Framework.hinted_kind`), np.ndarray."""
        if not annotation:
            return NO_ATOMS
        text = annotation.replace(" ", "")
        head = text.split("[", 1)[0]
        if head.replace(".", "").isidentifier():
            ref = self.index.resolve_dotted(self.relpath, head)
            name = ref[1] if is_ext_ref(ref) else head
        else:
            name = text
        kind = hinted_kind(name, head)
        if kind == "tensor":
            return frozenset({TENSOR})
        if kind == "variable":
            return frozenset({variable_atom(None, None)})
        if name in ("numpy.ndarray", "numpy.typing.NDArray"):
            return frozenset({numpy_atom(None)})
        return NO_ATOMS

    def _spec_hint(self, annotation: str | None) -> Atoms:
        """What a `tf.TypeSpec` annotation (or a dict or list of specs) says a parameter may
        hold (`spec_annotation_atoms`): a possibility the value carries where it flows, not a
        parameter kind (`hint_atoms`); memoised per module and annotation for the solution,
        since aliases are resolved to answer."""
        if not annotation:
            return NO_ATOMS
        memo = cast("dict[tuple[str, str], Atoms]", self.facts.cache.setdefault("spec_hints", {}))
        key = (self.relpath, annotation)
        found = memo.get(key)
        if found is None:
            found = memo[key] = spec_annotation_atoms(self.index, self.relpath, annotation)
        return found

    def _free_name(self, name: str) -> Atoms:
        fn = self.fn
        if (
            name in fn.locals
            and fn.qualname != MODULE_CODE
            and name not in fn.globals_declared
            and name not in fn.nonlocals_declared
        ):
            # Bound inside an expression (walrus, comprehension): local all the same.
            return self.eval(local_sym(name))
        # Closures: a name bound in an enclosing function.
        parent = self.fn.parent_qualname
        while parent is not None:
            parent_key = FunctionKey(self.relpath, parent)
            parent_fn = self.index.function(parent_key)
            if name in parent_fn.locals:
                parent_evaluator = get_evaluator(self.index, self.facts, parent_key)
                result = parent_evaluator.eval(local_sym(name))
                self.read_through(parent_evaluator)
                return result
            parent = parent_fn.parent_qualname
        return self.ref_atoms(self.index.resolve_global(self.relpath, name))

    def ref_atoms(self, ref: Ref) -> Atoms:
        kind: RefKind = ref[0]
        if kind == "func":
            return frozenset({func_atom(ref[1])})
        if kind == "class":
            return frozenset({class_atom(ref[1])})
        if kind == "module":
            return frozenset({module_atom(ref[1])})
        if kind == "ext":
            return frozenset({ext_atom(ref[1])})
        dynamic = dynamic_global_name(ref)
        if dynamic is not None:
            # A name the module binds dynamically: any of the values it may bind it to.
            own = FunctionKey.module_code(ref[1]) == FunctionKey(self.relpath, self.fn.qualname)
            module_evaluator = self if own else _module_evaluator(self.index, self.facts, ref[1])
            found: set[Atom] = set()
            for sym in self.index.dynamic_values(ref[1], dynamic):
                found |= module_evaluator.eval(sym)
            self.read_through(module_evaluator)
            return frozenset(found) if found else frozenset({UNKNOWN_ATOM})
        if kind == "global":
            module_key = FunctionKey.module_code(ref[1])
            if module_key == FunctionKey(self.relpath, self.fn.qualname):
                return self.eval(local_sym(ref[2]))
            module_evaluator = _module_evaluator(self.index, self.facts, ref[1])
            result = module_evaluator.eval(local_sym(ref[2]))
            self.read_through(module_evaluator)
            return result
        return frozenset({UNKNOWN_ATOM})

    def attribute(self, atom: Atom, name: str) -> Atoms:
        kind: AtomKind = atom[0]
        if kind == "module":
            return self.ref_atoms(self.index.member(module_ref(atom[1]), name))
        if kind == "ext":
            if atom[1] in COMMAND_LINE_FLAGS:
                return frozenset({UNKNOWN_ATOM})  # FLAGS.batch_size: a value of unknown kind
            return frozenset({ext_atom(foreign_member(atom[1], name))})
        if kind in ("tensor", "variable", "symbolic", "numpy"):
            role = "variable" if kind == "variable" else "tensor"
            if kind == "numpy":
                role = "numpy"
            info = self.attribute_of(role, name)
            if info is not None:
                return atoms_for_return(info.returns)
            if name in ("shape", "dtype", "ndim", "name", "device"):
                return frozenset({PYTHON})
            if name == "T":
                return frozenset({atom})
            method = self.method_of(role, name)
            if method is not None and (kind == "numpy" or method.returns in SIZE_RETURNS):
                # A tensor's size (`x.size(0)`, `x.dim()`): an int, not "something unknown
                # if not called" (a name such as `values` may be an attribute of what a
                # mis-modelled op returned, and stays unknown). A NumPy array's methods are
                # ndarray's own (`x.astype(np.float32)`: a float32 array, nothing unknown).
                return frozenset({boundext_atom(role, name)})
            return frozenset({boundext_atom(role, name), UNKNOWN_ATOM})
        if kind == "obj":
            role, class_key = atom[1], atom[2]
            # The object may be an instance of a project subclass (`self` always may be):
            # its attribute is then whichever override that subclass defines.
            overrides: frozenset[Atom] = NO_ATOMS
            if class_key is not None:
                overrides = frozenset(method_atom(m) for m in self.index.dispatch(class_key, name))
                if self.index.find_method(class_key, name) is not None:
                    return overrides
                stored: set[Atom] = set()
                for key in self.index.mro(class_key):
                    self.read_name(("attrs", key), name)
                    stored |= self.facts.attrs.get(key, {}).get(name, set())
                if stored:
                    return frozenset(stored) | overrides
            if role != "instance":
                info = self.attribute_of(role, name)
                if info is not None:
                    return atoms_for_return(info.returns) | overrides
                if self.method_of(role, name) is not None:
                    # A method the tables know: what calling it gives is theirs to say.
                    return frozenset({boundext_atom(role, name)}) | overrides
                # Unknown to the tables: a method if called, else some attribute value.
                return frozenset({boundext_atom(role, name), UNKNOWN_ATOM}) | overrides
            return frozenset({UNKNOWN_ATOM}) | overrides
        if kind == "super":
            # super().name: the next class in the MRO that defines it.
            for key in self.index.mro(atom[1])[1:]:
                defined = self.index.find_method(key, name)
                if defined is not None:
                    return frozenset({method_atom(defined)})
            parent_role = self.index.layer_role(atom[1])
            if parent_role is not None:
                return frozenset({boundext_atom(parent_role, name)})
            return frozenset({UNKNOWN_ATOM})
        if kind == "class":
            defined = self.index.find_method(atom[1], name)
            if defined is not None:
                if _is_classmethod(self.index.function(defined)):
                    # Read off its class (`Class.make`, `cls.make`), a classmethod is bound
                    # to it: the call's arguments start after `cls`, as an instance's method
                    # call's start after `self` (a "func" atom would bind the first to `cls`).
                    return frozenset({method_atom(defined)})
                return frozenset({func_atom(defined)})
            return frozenset({UNKNOWN_ATOM})
        if kind == "dataset":
            info = self.attribute_of("dataset", name)
            if info is not None:
                return atoms_for_return(info.returns)  # `element_spec`: the elements' specs
            return frozenset({boundext_atom("dataset", name)})
        if kind == "iterator":
            return frozenset({boundext_atom("iterator", name)})
        if kind == "seq":
            return frozenset({boundext_atom("list" if atom[1] == "list" else atom[1], name)})
        if kind == "tup":
            return frozenset({boundext_atom(atom[2] if len(atom) > 2 else "tuple", name)})
        if kind == "dict":
            return frozenset({boundext_atom("dict", name)})
        if kind == "lit" and atom[1] == "str":
            return frozenset({boundext_atom("str", name)})
        return frozenset({UNKNOWN_ATOM})

    # ------------------------------------------------------------------ calls

    def returned(self, key: FunctionKey) -> Atoms:
        """What a project function returns so far (nothing yet is not "unknown" until the end)."""
        self.deps.add(("ret", key))
        found = self.facts.returns.get(key)
        if found is not None:
            return found
        self.optimistic = True
        return frozenset({UNKNOWN_ATOM}) if self.facts.final else NO_ATOMS

    def _float_info_member(self, sym: Sym) -> Atom | None:
        """`np.finfo(dtype).eps` (`tiny`, ...), an attribute read: the number, when the call
        describes a float type (`Framework.float_info_calls`), of the type named (float32 when not
        known)."""
        if not is_attr(sym):
            return None
        base, name = attr_base(sym), attr_name(sym)
        if not is_call(base) or name not in FLOAT_INFO_SMALL_MEMBERS["float32"]:
            return None
        resolved = self.resolve_call(call_index(base))
        calls = self.framework.float_info_calls
        if not resolved.api or not all(info.name in calls for info in resolved.api):
            return None
        dtype = resolved.args[0] if resolved.args else resolved.kwargs.get("dtype", NO_ATOMS)
        named = {_float_type_named(atom) for atom in dtype}
        members = FLOAT_INFO_SMALL_MEMBERS[named.pop() if len(named) == 1 else "float32"]
        return lit_atom("float", members[name])

    def call_result(self, index: int) -> Atoms:
        cached = self.call_results.get(index)
        if cached is not None:
            return cached
        resolved = self.resolve_call(index)
        self.call_results[index] = resolved.result
        return resolved.result

    def resolve_call(self, index: int) -> ResolvedCall:
        site = self.fn.calls[index]
        # the values already evaluated read from the memo in line (most arguments are: a
        # call is resolved again at every round of the fixed point), an empty one evaluated
        # again, which gives it back from the memo
        memo, evaluate = self.memo, self.eval
        callee_atoms = memo.get(site.callee) or evaluate(site.callee)
        args = [memo.get(a) or evaluate(a) for a in site.args]
        kwargs = {k: memo.get(v) or evaluate(v) for k, v in site.kwargs} if site.kwargs else {}
        targets: list[tuple[str, FunctionKey]] = []
        apis: list[ApiInfo] = []
        roles: list[str] = []
        result: set[Atom] = set()
        chained: dict[FunctionKey, list[Atoms]] = {}
        partials: dict[FunctionKey, list[PartialConfig]] = {}
        constructs = False
        symbolic_args = False
        if args:
            # Only calls of objects and framework APIs ask whether an argument is symbolic.
            for atom in callee_atoms:
                if atom[0] not in _PROJECT_CALLABLES:
                    symbolic_args = any(map(_holds_symbolic, args))
                    break
        # The targets, APIs and roles in an order that is the same in every run (a set of
        # atoms iterates in another: `canonical`), for whatever names the first of them.
        ordered = (
            callee_atoms if len(callee_atoms) < 2 else sorted(callee_atoms, key=canonical_atom)
        )
        for atom in ordered:
            kind: AtomKind = atom[0]
            if kind in ("func", "method"):
                targets.append((kind, atom[1]))
                result |= self.returned(atom[1])
            elif kind == "class":
                constructs = True
                targets.append(("class", atom[1]))
                result.add(obj_atom(self.index.object_role(atom[1]), atom[1]))
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
                    layer_calls = instance_call_methods(self.index, class_key)
                    for method in layer_calls:
                        targets.append(("layer_call", method))
                        returned = self.returned(method)
                        if symbolic_args:
                            returned = frozenset({SYMBOLIC})
                        result |= returned
                    if not layer_calls or self.index.find_method(class_key, runs) is None:
                        result.add(SYMBOLIC if symbolic_args else TENSOR)
                    roles.append(role)
                elif call_methods:
                    for call_method in call_methods:
                        targets.append(("method", call_method))
                        result |= self.returned(call_method)
                    if not own_call:
                        result.add(UNKNOWN_ATOM)
                elif is_chain_config(config := obj_config(atom)):
                    roles.append(role)
                    result |= self._chain(config[1], args, targets, chained)
                elif is_partial_config(config):
                    result |= self._call_partial(config, targets, partials)
                    constructs = constructs or any(kind == "class" for kind, _ in targets)
                elif role in ("layer", "model", "loss", "metric"):
                    roles.append(role)
                    result.add(SYMBOLIC if symbolic_args else _layer_output(atom, args))
                elif (called := self.method_of(role, "__call__")) is not None:
                    # An object whose role's tables say what calling it does (a PyTorch
                    # RNN module: its calling frame is not compiled).
                    roles.append(role)
                    apis.append(called)
                    result |= self._api_result(called, args, kwargs, symbolic_args)
                else:
                    result.add(UNKNOWN_ATOM)
            elif kind == "seq" and atom[1] == "list":
                # A list is not callable: a module container grown in place (`seq.append(m)`,
                # `seq.add_module(name, m)` on an `nn.Sequential` attribute) is kept as the list
                # of what it was given. Calling it runs those modules.
                for module in sorted(atom[2], key=canonical):
                    class_key = obj_class(module) if is_obj_atom(module) else None
                    if class_key is not None and self.index.layer_role(class_key) is not None:
                        for method in instance_call_methods(self.index, class_key):
                            targets.append(("layer_call", method))
                            result |= self.returned(method)
                result.add(UNKNOWN_ATOM)
            elif kind == "ext" and atom[1] == "builtins.super" and self.class_key:
                result.add(super_atom(self.class_key))
            elif kind == "ext" and atom[1] in MAPPING_BUILDERS:
                result.add(_built_mapping(args, kwargs))
                info = lookup(atom[1])
                if info is not None:
                    apis.append(info)
            elif kind == "ext" and atom[1] in BUILTIN_RESULTS:
                result |= BUILTIN_RESULTS[atom[1]](args)
                info = lookup(atom[1])
                if info is not None:
                    apis.append(info)
            elif kind == "ext":
                info = lookup(atom[1])
                if info is None:
                    result.add(UNKNOWN_ATOM)
                    result.update(self.foreign_result(atom[1]))
                    continue
                apis.append(info)
                if info.chains_modules and site.star_values:
                    result |= self._chain_object(info, args, site.star_values)
                else:
                    result |= self._api_result(info, args, kwargs, symbolic_args)
                result.update(self.value_library_object(atom[1], info))
            elif kind == "boundext":
                info = self.method_of(atom[1], atom[2])
                if info is None:
                    if atom[1] in ("tensor", "variable") and atom[2] not in NOT_TENSOR_MEMBERS:
                        result.add(TENSOR)
                    elif atom[1] not in ("tensor", "variable"):
                        result.add(UNKNOWN_ATOM)
                    # else `x.items()`, `x.startswith(...)` of a tensor: no tensor has such a
                    # method (AttributeError), so what the call gives is the other kinds' (`x`
                    # a dict or a string on that path).
                    continue
                apis.append(info)
                receiver = self.eval(site.callee[1]) if is_attr(site.callee) else NO_ATOMS
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
            targets=targets or (),
            api=apis or (),
            receiver_roles=roles or (),
            args=args or (),
            kwargs=kwargs or _NOTHING,
            result=self.share(merge_tensor_specs(cap_atoms(result))),
            chained=chained or _NOTHING,
            partials={
                target: tuple(configs if len(configs) < 2 else sorted(configs, key=canonical_atom))
                for target, configs in partials.items()
            }
            if partials
            else _NOTHING,
            constructs=constructs,
        )
        return resolved

    def reaching_arguments(self, index: int) -> tuple[list[Atoms], dict[str, Atoms]]:
        """The arguments of the call `index`, a local rebound before the call read as the
        values that reach it (`CallSite.reaching`): `x = znp.array(x)[0, 0]; f(x)` passes a
        tensor, not also what `x` held before. (The solution's facts flow every value of a
        local; the rules that read this ask what one call passes.)"""
        site = self.fn.calls[index]
        reaching = dict(site.reaching)
        values = self.fn.locals

        def evaluate(sym: Sym) -> Atoms:
            indexes = reaching.get(sym[1]) if is_local(sym) else None
            if indexes is None:
                return self.eval(sym)
            out: set[Atom] = set()
            for position in indexes:
                out |= self.eval(values[sym[1]][position])
            return _cap_union(out)

        return [evaluate(a) for a in site.args], {k: evaluate(v) for k, v in site.kwargs}

    def foreign_result(self, callee: str) -> Atoms:
        """What calling `callee`, a function or class of a third-party library the tables do
        not describe, gives besides an unknown value: where the framework's compiler traces
        such libraries (`Framework.untabled_library_calls`), an object still known to be the
        library's, so that calling its methods later is judged as calling into the library
        (`self.nn = NearestNeighbors().fit(x)`, then `self.nn.kneighbors(y)`)."""
        if self.framework.untabled_library_calls is None:
            return NO_ATOMS
        if not is_foreign_library(callee):
            return NO_ATOMS
        return frozenset({ext_atom(foreign_object(callee))})

    @staticmethod
    def value_library_object(callee: str, info: ApiInfo) -> Atoms:
        """What calling `callee` of a third-party library of Python values (SymPy, mpmath:
        `python_stdlib.VALUE_LIBRARIES`) gives besides a Python value: an object still known
        to be the library's, so that its methods are calls into that library too
        (`inv = sympy.solve(f - y, x)[-1]`, then `inv.evalf(subs={y: val})`), and returning
        it from a compiled function is returning an object tf.function cannot return."""
        if info.returns != "python" or value_library(callee) is None:
            return NO_ATOMS
        if not is_foreign_library(callee):
            return NO_ATOMS  # math, fractions...: numbers, not objects with methods
        return frozenset({ext_atom(foreign_object(callee))})

    def _chain_object(self, info: ApiInfo, args: list[Atoms], star_values: Sequence[Sym]) -> Atoms:
        """A container module given modules unpacked (`nn.Sequential(*layers)`): the
        positional ones in order, then the unpacked ones, in an order not known, as one
        position (each may be called on what any other returns)."""
        unpacked: set[Atom] = set()
        for value in star_values:
            for atom in self.eval(value):
                if kind_of(atom) in ("seq", "tup"):
                    unpacked.update(iterated_atoms(atom))
        if not unpacked:
            unpacked.add(UNKNOWN_ATOM)
        positions = chained_modules([*args, frozenset(unpacked)])
        return frozenset({obj_atom(info.returns, None, chain_config(positions))})

    def _chain(
        self,
        positions: tuple[Atoms, ...],
        args: list[Atoms],
        targets: list[tuple[str, FunctionKey]],
        chained: dict[FunctionKey, list[Atoms]],
    ) -> Atoms:
        """Calling a container module (`nn.Sequential`): each module it holds is called on
        the previous one's output, the first on the call's arguments; the result is the last
        one's output. The project modules it reaches become targets, with their arguments
        in `chained` when they are not the call's own."""
        current = args
        for position, modules in enumerate(positions):
            outputs: set[Atom] = set()
            for module in modules if len(modules) < 2 else sorted(modules, key=canonical):
                class_key = module[2] if is_obj_atom(module) else None
                if class_key is not None and self.index.layer_role(class_key) is not None:
                    for method in instance_call_methods(self.index, class_key):
                        targets.append(("layer_call", method))
                        if position:
                            known = chained.get(method)
                            chained[method] = current if known is None else [known[0] | current[0]]
                        outputs |= self.returned(method)
                elif is_obj_atom(module) and module[1] in ("layer", "model", "loss", "metric"):
                    outputs.add(_layer_output(module, current))
                else:
                    outputs.add(UNKNOWN_ATOM)
            current = [frozenset(outputs or {UNKNOWN_ATOM})]
        return current[0] if positions else frozenset({UNKNOWN_ATOM})

    def _call_partial(
        self,
        config: PartialConfig,
        targets: list[tuple[str, FunctionKey]],
        partials: dict[FunctionKey, list[PartialConfig]],
    ) -> Atoms:
        """Calling a `functools.partial` object calls what it wraps, its own arguments first:
        the project functions, methods, classes and modules it wraps become targets, with the
        object in `partials` (their parameters bound from both). A callee that may be one of
        several partial objects of the same function is one target with every object: each
        binds the parameters its own way (which one is met first must not matter: a set of
        atoms iterates in another order in every run). What they return."""
        result: set[Atom] = set()

        def reached(kind: str, target: FunctionKey, bound: FunctionKey | None) -> None:
            """`target` is called (as `kind`), `bound` (the function it runs) with `config`."""
            if (kind, target) not in targets:
                targets.append((kind, target))
            if bound is not None:
                configs = partials.setdefault(bound, [])
                if config not in configs:
                    configs.append(config)

        for atom in sorted(partial_wrapped(config), key=canonical):
            if is_func_atom(atom) or is_method_atom(atom):
                reached(atom_kind(atom), atom[1], atom[1])
                result |= self.returned(atom[1])
            elif is_class_atom(atom):
                reached(atom_kind(atom), atom[1], self.index.find_method(atom[1], "__init__"))
                result.add(obj_atom(self.index.object_role(atom[1]), atom[1]))
            elif is_obj_atom(atom) and (module := obj_class(atom)) is not None:
                for method in self.index.dispatch(module, self.index.instance_call(module)):
                    reached("layer_call", method, method)
                    result |= self.returned(method)
        return frozenset(result)

    def _api_result(
        self,
        info: ApiInfo,
        args: list[Atoms],
        kwargs: dict[str, Atoms],
        symbolic_args: bool,
        receiver: Atoms = NO_ATOMS,
    ) -> Atoms:
        small = self.framework.small_constant_getters.get(info.name)
        if small is not None:
            return frozenset({lit_atom("float", small)})  # `tf.keras.backend.epsilon()`
        returned = ARGUMENT_RETURNING_CALLS.get(info.name)
        if returned is not None and len(args) > returned:
            return args[returned]  # `typing.cast(T, value)` is `value`
        if info.name in PARTIAL_APPLICATIONS:
            made = partial_object(args, kwargs)
            if made is not None:
                return frozenset({made})
        if compiler_named(info.name) is not None:
            # tf.function(g) returns g compiled: calling it reaches g.
            return args[0] if args else frozenset({UNKNOWN_ATOM})
        if symbolic_args and info.tensor_op and info.returns not in CONTAINER_OBJECT_RESULTS:
            return frozenset({SYMBOLIC})
        if info.returns == "callback_results":
            return self._mapped_structure(info, args, kwargs)
        if info.returns in ("tensor", "variable"):
            spec = tensor_spec(info, args, kwargs)
            composite = composite_spec(info.name)
            if composite is not None:
                dtype, shape = spec if spec is not None else (None, None)
                return frozenset({tensor_atom(dtype, shape, composite)})
            if spec is not None:
                return frozenset({(info.returns, spec[0], spec[1])})
        if info.holds_modules:
            # The modules given (a list or dict display, a comprehension), held as given.
            if args:
                return args[0]
            empty = (
                seq_atom("list", NO_ATOMS) if info.holds_modules == "list" else dict_atom(NO_ATOMS)
            )
            return frozenset({empty})
        if info.chains_modules:
            # The modules given to the container, in order (`nn.Sequential(a, b)`).
            return frozenset({obj_atom(info.returns, None, chain_config(chained_modules(args)))})
        if info.returns == "layer" and (units_name := units_parameter(info.name)) is not None:
            units = literal_ints(args[0] if args else kwargs.get(units_name))
            if units is not None and len(units) == 1 and units[0] is not None:
                return frozenset({obj_atom("layer", None, dense_config(units[0]))})
        if info.returns == "numpy":
            dtype = numpy_dtype(info.name, args, kwargs, receiver)
            return frozenset(
                {shaped_numpy_atom(dtype, numpy_shape(info.name, args, kwargs, receiver))}
            )
        return atoms_for_return(info.returns)

    def _mapped_structure(
        self, info: ApiInfo, args: list[Atoms], kwargs: dict[str, Atoms]
    ) -> Atoms:
        """`map_structure(fn, *structures)`: the first structure with each leaf replaced by
        what `fn` returns for it; a framework `fn` is called with one element of each
        structure (`mapped_structures`)."""
        callback = argument_at(args, kwargs, info.callback_args)
        structure = mapped_structure_argument(info, args)
        elements = [structure_elements(info, s) for s in mapped_structures(info, args)]
        results: set[Atom] = set()
        for atom in callback or (UNKNOWN_ATOM,):
            if kind_of(atom) in ("func", "method"):
                results |= self.returned(atom[1])
                continue
            callee = lookup(atom[1]) if is_ext_atom(atom) else None
            if callee is None:
                results.add(UNKNOWN_ATOM)
            else:
                symbolic = any(_holds_symbolic(e) for e in elements)
                results |= self._api_result(callee, elements, {}, symbolic)
        return _mapped_leaves(structure, frozenset(results))


def _mapped_leaves(structure: Atoms, results: Atoms, depth: int = 0) -> Atoms:
    """`structure` with every leaf replaced by `results` (lists, tuples and dicts kept, to
    MAX_NESTING); an unknown structure may be a container of results or a single one."""
    out: set[Atom] = set()
    for atom in structure:
        kind: AtomKind = atom[0]
        if depth < MAX_NESTING and kind == "seq":
            out.add(seq_atom(atom[1], _mapped_leaves(atom[2], results, depth + 1)))
        elif depth < MAX_NESTING and kind == "tup":
            parts = tuple(_mapped_leaves(part, results, depth + 1) for part in atom[1])
            out.add(tup_atom(parts, atom[2]))
        elif depth < MAX_NESTING and kind == "dict":
            out.add(dict_atom(_mapped_leaves(atom[1], results, depth + 1)))
        elif atom == UNKNOWN_ATOM:
            out |= results
            out.add(UNKNOWN_ATOM)
        else:
            out |= results
    return frozenset(out) if out else results


_CAPPED_KINDS = frozenset(
    {"call", "lit", "name", "cond", "enter", "def", "class", "import", "fstr", "fresh", "slice"}
)
"""The symbolic values `Evaluator._eval_capped` evaluates: a call's result is capped when the
call is resolved, names and conditional values are (unions of) values already evaluated, the
rest single atoms that are no containers."""

_PROJECT_CALLABLES = frozenset({"func", "method", "class"})
"""Callee atoms whose call does not depend on whether the arguments are symbolic tensors."""

_FLOAT_INFO_MEMBER_NAMES = frozenset(FLOAT_INFO_SMALL_MEMBERS["float32"])
"""The members `_float_info_member` answers (`eps`, `tiny`, ...): any other attribute read is
not asked about (nearly all of them)."""

STR_ATOMS: Atoms = frozenset({STR})
PYTHON_ATOMS: Atoms = frozenset({PYTHON})


def _cap_union(atoms: set[Atom]) -> Atoms:
    """`cap_atoms` of a union of capped values: their atoms are shrunk already (`_shrunk` maps
    its results to themselves), so only the number of atoms may need a cut."""
    result = frozenset(atoms)
    if len(result) > MAX_ATOMS:
        result = merged_dicts(unkeyed(result))
    return cut_atoms(result, collapse=False) if len(result) > MAX_ATOMS else result


DICT_KEY: Atom = STR
"""A dict key: a hashable Python value (a tensor is not hashable), taken to be a string, the
usual key; either way a Python literal, which retraces per value as an argument."""


def _dict_view(method: str, receiver: Atoms, args: list[Atoms]) -> Atoms | None:
    """What `d.items()`, `.values()`, `.keys()`, `.get()`, `.pop()`, `.setdefault()`, `.copy()` give for
    the dicts `receiver` may be; None for other methods or receivers."""
    dicts = [a for a in receiver if is_dict_atom(a)]
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
        return _sequence_of({tup_atom((frozenset({DICT_KEY}), cap_atoms(values)))})
    if method in ("get", "pop", "setdefault"):
        default = args[1] if len(args) > 1 else frozenset({NONE_ATOM})
        return cap_atoms(values | default)
    if method == "copy":
        # A shallow copy: a dict of the same values.
        return frozenset(dicts)
    return None


TF_TENSOR_KINDS = frozenset({"tensor", "variable", "symbolic"})


def _holds_tf_tensor(atoms: Atoms, depth: int = 0) -> bool:
    """A TensorFlow (or Keras symbolic) tensor, or a container holding one; not NumPy."""
    for atom in atoms:
        kind: AtomKind = atom[0]
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
        # The kind read once (not `is_symbolic_atom`, `is_tup_atom`, `is_seq_atom`): this
        # runs on every argument of every call the fixed point resolves.
        kind: AtomKind = atom[0]
        if kind == "symbolic":
            return True
        if kind == "tup" and any(SYMBOLIC in part for part in atom[1]):
            return True
        if kind == "seq" and SYMBOLIC in atom[2]:
            return True
    return False


def _layer_output(layer: Atom, args: list[Atoms]) -> Atom:
    """A built-in layer applied to a tensor: `Dense(units)` maps (..., n) to (..., units)."""
    config = obj_config(layer) if is_obj_atom(layer) else None
    if is_dense_config(config) and args:
        shapes = {a[2] for a in args[0] if kind_of(a) in ("tensor", "variable")}
        if len(shapes) == 1 and (shape := shapes.pop()) is not None and len(shape) >= 1:
            return tensor_atom("float32", (*shape[:-1], config[1]))
        return tensor_atom("float32", None)
    return TENSOR


def _elements(args: list[Atoms], position: int = 0) -> set[Atom]:
    out: set[Atom] = set()
    if position < len(args):
        for atom in args[position]:
            out.update(iterated_atoms(atom))
    return out or {UNKNOWN_ATOM}


def _sequence_of(elements: set[Atom], kind: str = "list") -> Atoms:
    return frozenset({seq_atom(kind, cap_atoms(elements))})


def _pair_of(positions: list[set[Atom]]) -> Atom:
    """The tuple `enumerate` or `zip` yields: position i holds what `positions[i]` holds.

    Kept apart, so that `for step, x in enumerate(dataset)` gives `step` an int and `x` a
    tensor (merged, `step` would look like a tensor and a Python counter go unnoticed).
    """
    if not positions or len(positions) > MAX_TUPLE:
        merged = set().union(*positions) if positions else set()
        return seq_atom("tuple", cap_atoms(merged or {UNKNOWN_ATOM}))
    return tup_atom(tuple(cap_atoms(p or {UNKNOWN_ATOM}) for p in positions))


def _numeric_builtin(kind: str) -> Callable[[list[Atoms]], Atoms]:
    """int()/float() give a Python number, whatever they convert (a tensor too, eagerly)."""

    def result(args: list[Atoms]) -> Atoms:
        return frozenset({lit_atom(kind)})

    return result


def _integral(args: list[Atoms]) -> Atoms:
    """`math.floor`/`ceil`/`trunc`: an int of a Python number (of a tensor, whatever its
    `__floor__` gives: some Python value, as for the rest of `math`)."""
    if not args or any(is_tensor_like(a) for a in args[0]):
        return PYTHON_ATOMS
    return frozenset({INT})


def _choose_builtin(args: list[Atoms]) -> Atoms:
    """`min`/`max`: of several arguments (`min(1.0, x)`), one of the arguments; of one
    iterable, one of its elements."""
    if len(args) > 1:
        # Exactly one of the arguments, whatever it is: a Keras symbolic tensor stays one
        # (a kind dropped here hid HY406 from tf-models' `vertical_flip_boxes`).
        return frozenset(a for atoms in args for a in atoms)
    if args and not any(kind_of(a) in TENSOR_LIKE_KINDS for a in args[0]):
        elements = _elements(args)
        if any(kind_of(a) in STRUCTURED_ELEMENT_KINDS for a in elements):
            # One of the iterable's elements as it is: `min(specs.items(), key=...)` is a
            # (name, spec) pair, not a tensor made of the pair (tensorflow-gnn's
            # `_get_indicative_feature` returns the spec of that pair to its callers).
            return cap_atoms(elements)
    return _reduce_builtin(args)


STRUCTURED_ELEMENT_KINDS = frozenset({"tup", "seq", "dict"})
"""Elements `min`/`max` over one iterable give back whole: tuples, lists, dicts."""


def _reduce_builtin(args: list[Atoms]) -> Atoms:
    flat = [a for atoms in args for a in atoms]
    elements = _elements(args) if args else set()
    if any(is_tensor_like(a) for a in [*flat, *elements]):
        return frozenset({TENSOR})
    if elements and all(is_lit_atom(a) for a in elements):
        return frozenset({FLOAT})
    return frozenset({PYTHON})


BUILTIN_RESULTS: dict[str, Callable[[list[Atoms]], Atoms]] = {
    "builtins.range": lambda args: frozenset({seq_atom("range", frozenset({INT}))}),
    "builtins.len": lambda args: frozenset({INT}),
    "math.floor": _integral,
    "math.ceil": _integral,
    "math.trunc": _integral,
    "builtins.int": _numeric_builtin("int"),
    "builtins.float": _numeric_builtin("float"),
    "builtins.str": lambda args: frozenset({STR}),
    "builtins.repr": lambda args: frozenset({STR}),
    "builtins.bool": lambda args: frozenset({BOOL}),
    "builtins.isinstance": lambda args: frozenset({BOOL}),
    "builtins.iter": lambda args: frozenset(
        {ITERATOR}
        if args and any(kind_of(a) in ("dataset", "iterator") for a in args[0])
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
        {_pair_of([{INT}, _elements(args)])}, "iterator"
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
}
"""What Python's builtins return, by the kinds of their arguments."""


MAPPING_BUILDERS = frozenset({"builtins.dict", "collections.OrderedDict"})
"""Mapping constructors read like a dict display (`_built_mapping`)."""


def _built_mapping(args: list[Atoms], kwargs: Mapping[str, Atoms]) -> Atom:
    """What `dict(...)` and `OrderedDict(...)` build, read like the display of the same
    items: keywords are string keys (`dict(a=x)` is `{"a": x}`, read back by `["a"]`), a
    mapping is copied (its values, its keys where known), pairs give their second parts
    (`dict(zip(keys, values))`, `OrderedDict([("a", m)])`); unknown values where nothing
    shows them (`dict()`, filled later, or a value of unknown kind)."""
    keyed: dict[str, Atoms] | None = {}
    values: set[Atom] = set()
    if args:
        if len(args[0]) == 1 and is_keyed_dict(only := next(iter(args[0]))):
            keyed = dict(cast("tuple[tuple[str, Atoms], ...]", only[2]))  # type: ignore[misc]
            values |= only[1]
        else:
            keyed = None  # keys not known
            for atom in args[0]:
                if is_dict_atom(atom):
                    values |= atom[1]
                else:
                    values |= _paired_values([frozenset({atom})])
    for name, atoms in kwargs.items():
        if keyed is not None:
            keyed[name] = atoms  # a keyword overrides the copied key
        values |= atoms
    if keyed:
        # every value under its key: a keyword replaces the copied one
        values = {atom for atoms in keyed.values() for atom in atoms}
    if not values:
        values.add(UNKNOWN_ATOM)
    if keyed and len(keyed) <= MAX_TUPLE:
        return keyed_dict_atom(cap_atoms(values), tuple(keyed.items()))
    return dict_atom(cap_atoms(values))


def _paired_values(args: list[Atoms]) -> Atoms:
    """The values of the (key, value) pairs a mapping is built from (`OrderedDict([("a",
    m)])`): the second part of each pair the first argument holds; unknown where it holds
    no pairs known (or none is given: it may be filled later)."""
    values: set[Atom] = set()
    for container in args[0] if args else ():
        for pair in iterated_atoms(container) if kind_of(container) in ("seq", "tup") else ():
            if kind_of(pair) == "tup" and len(pair[1]) == 2:
                values |= pair[1][1]
            else:
                values.add(UNKNOWN_ATOM)
    return cap_atoms(values) if values else frozenset({UNKNOWN_ATOM})


def _module_evaluator(index: ProjectIndex, facts: TensorFacts, relpath: str) -> Evaluator:
    return get_evaluator(index, facts, FunctionKey.module_code(relpath))


MUTATING_DICT_METHODS = frozenset({"update", "setdefault", "__setitem__", "clear", "popitem"})
"""Methods that may write any key of a dict (`pop` only removes one)."""
_HANDED_ON: dict[int, tuple[FunctionSummary, frozenset[Sym]]] = {}
MAX_HANDED_ON = 100_000


def handed_on(fn: FunctionSummary) -> frozenset[Sym]:
    """The values `fn` hands to a call or calls a mutating dict method of: what may be written
    out of the function's sight. Memoised per summary."""
    kept = _HANDED_ON.get(id(fn))
    if kept is not None and kept[0] is fn:
        return kept[1]
    found: set[Sym] = set()
    for site in fn.calls:
        callee = site.callee
        if is_attr(callee) and callee[2] in MUTATING_DICT_METHODS:
            found.add(callee[1])
        found.update(site.args)
        found.update(v for _, v in site.kwargs)
        found.update(site.star_values)
    if len(_HANDED_ON) >= MAX_HANDED_ON:
        _HANDED_ON.clear()
    result = frozenset(found)
    _HANDED_ON[id(fn)] = (fn, result)
    return result


def _item(atom: Atom, index: Sym) -> Iterable[Atom]:
    kind: AtomKind = atom[0]
    if kind in ("tensor", "variable"):
        shape = atom[2]
        if shape and is_lit(index) and index[1] == "int":
            return (tensor_atom(atom[1], shape[1:]),)  # x[i] drops the first axis
        return (tensor_atom(atom[1], None),)
    if kind in ("numpy", "symbolic"):
        return (atom,)
    if kind == "seq":
        if is_slice(index):
            return (atom,)
        return atom[2] or (UNKNOWN_ATOM,)
    if kind == "tup":
        if is_lit(index) and isinstance(index[2], int) and -len(atom[1]) <= index[2] < len(atom[1]):
            return atom[1][index[2]]
        if is_slice(index):
            return (atom,)
        return [a for part in atom[1] for a in part] or (UNKNOWN_ATOM,)
    if kind == "dict":
        return atom[1] or (UNKNOWN_ATOM,)
    if kind == "lit" and atom[1] == "str":
        return (STR,)
    if kind == "dataset":
        return (UNKNOWN_ATOM,)
    if kind == "python":
        # A non-tensor Python value (`x.shape`, a config): its items are no tensors either
        # (a container of tensors is "tensors", never "python").
        return (PYTHON,)
    if kind == "ext" and value_library(atom[1]) is not None:
        return (atom,)  # an element of a SymPy value is one (`sympy.solve(f, x)[-1]`)
    return (UNKNOWN_ATOM,)


def iterated_atoms(atom: Atom) -> Iterable[Atom]:
    """What iterating a value of kind `atom` gives: a tensor's rows, a container's
    elements, a dict's keys. Shared with the solver, which spreads values into elements too
    (what `self.items.extend(xs)` adds to an attribute, the arguments `fn(*args)` hands a
    callback) and must find the elements the evaluator's loops and unpackings find."""
    kind: AtomKind = atom[0]
    if kind in ("dataset", "iterator"):
        return (TENSOR, seq_atom("tuple", frozenset({TENSOR})))
    if kind in ("tensor", "variable"):
        return (tensor_atom(atom[1], atom[2][1:] if atom[2] else None),)
    if kind in ("numpy", "symbolic"):
        return (atom,)
    if kind == "seq":
        return atom[2] or (UNKNOWN_ATOM,)
    if kind == "tup":
        return [a for part in atom[1] for a in part] or (UNKNOWN_ATOM,)
    if kind == "dict":
        return (DICT_KEY,)
    if kind == "lit" and atom[1] == "str":
        return (STR,)
    if kind == "ext" and atom[1].startswith("builtins."):
        return (PYTHON,)
    if kind == "ext" and value_library(atom[1]) is not None:
        return (atom,)  # the elements of a SymPy value are SymPy values
    return (UNKNOWN_ATOM,)


def _matmul_operands(operands: list[Atoms]) -> Shape:
    shapes = [{a[2] for a in atoms if kind_of(a) in ("tensor", "variable")} for atoms in operands]
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
    if any(kind_of(a) in ("tensor", "variable") for a in flat):
        dtypes = {a[1] for a in flat if kind_of(a) in ("tensor", "variable") and a[1] is not None}
        dtype = dtypes.pop() if len(dtypes) == 1 else None
        # An operand that may be a Keras symbolic tensor makes a result that may be one too
        # (`-scores` of a `tf_keras.Input` is a KerasTensor): the kinds are possibilities.
        symbolic: tuple[Atom, ...] = (SYMBOLIC,) if any(is_symbolic_atom(a) for a in flat) else ()
        if operator == "matmul":
            return (tensor_atom(dtype, _matmul_operands(operands)), *symbolic)
        if operator == "compare":
            # `x > 0` of a tensor is a boolean tensor (a mask).
            return (tensor_atom("bool", _operand_shape(operands)), *symbolic)
        return (tensor_atom(dtype, _operand_shape(operands)), *symbolic)
    if any(is_symbolic_atom(a) for a in flat):
        return (SYMBOLIC,)
    if any(is_numpy_atom(a) for a in flat):
        if len(operands) == 2:
            # each pair of possible operand arrays gives its own promoted dtype
            left = {a[1] for a in operands[0] if is_numpy_atom(a)} or {"weak"}
            right = {a[1] for a in operands[1] if is_numpy_atom(a)} or {"weak"}
            return tuple(
                numpy_atom(numpy_result_dtype({x, y} - {"weak"})) for x in left for y in right
            )
        return (numpy_atom(numpy_result_dtype(a[1] for a in flat if is_numpy_atom(a))),)
    if flat and all(is_lit_atom(a) for a in flat):
        types = {a[1] for a in flat}
        if types <= {"int"}:
            return (INT,)
        if types <= {"int", "float", "bool"}:
            return (FLOAT,)
        if types == {"str"}:
            return (STR,)
        return (PYTHON,)
    if any(is_unknown_kind(a) for a in flat):
        return (UNKNOWN_ATOM,)
    return (PYTHON,)


# ---------------------------------------------------------------------- the solver


@dataclass(frozen=True, slots=True)
class ParamLayout:
    """How a function's parameters take a call's arguments (the receiver left out or not)."""

    params: tuple[Param, ...]
    """The parameters a call fills."""
    positional: tuple[str, ...]
    vararg: str | None
    kwarg: str | None
    keywords: frozenset[str]
    """The parameters a keyword argument may name (all but the positional-only ones)."""


_LAYOUTS: dict[tuple[int, bool], tuple[tuple[Param, ...], ParamLayout]] = {}
"""`param_layout` by the identity of a function's parameters (kept alive with the entry, so
that the identity stays theirs): the fixed point binds the arguments of every call site
each time its caller is evaluated."""
MAX_LAYOUTS = 100_000


def param_layout(fn: FunctionSummary, skip_receiver: bool) -> ParamLayout:
    """The parameters of `fn` a call binds, by kind (`skip_receiver`: a method called on an
    object, or a class constructed, leaves out the receiver; a staticmethod has none to leave
    out, however it is reached: `self.damped(hess, L)` binds `hess` to its first parameter)."""
    skip_receiver = skip_receiver and not (fn.decorators and is_staticmethod(fn))
    key = (id(fn.params), skip_receiver)
    found = _LAYOUTS.get(key)
    if found is not None and found[0] is fn.params:
        return found[1]
    params = fn.params[1:] if skip_receiver and fn.params else fn.params
    vararg = next((p for p in params if p.kind == "vararg"), None)
    kwarg = next((p for p in params if p.kind == "kwarg"), None)
    layout = ParamLayout(
        params,
        tuple(p.name for p in params if p.kind in ("posonly", "normal")),
        None if vararg is None else vararg.name,
        None if kwarg is None else kwarg.name,
        frozenset(p.name for p in params if p.kind != "posonly"),
    )
    if len(_LAYOUTS) >= MAX_LAYOUTS:
        _LAYOUTS.clear()
    _LAYOUTS[key] = (fn.params, layout)
    return layout


def is_staticmethod(fn: FunctionSummary) -> bool:
    """A function its class body declares a `staticmethod` (a function assigned to a class
    attribute, not defined in its body, is bound to the instance as a method is)."""
    return fn.class_qualname is not None and any(d.name == "staticmethod" for d in fn.decorators)


RECEIVER_BINDING_KINDS = frozenset({"method", "layer_call", "class"})
"""How a call reaches a function (`callees`) when it binds the receiver itself: the call's
arguments start after it. `Class.method(obj, x)` (a "func" target) passes it explicitly."""


def bind_written(
    fn: FunctionSummary, resolved: ResolvedCall, kind: str, target: FunctionKey
) -> dict[str, frozenset[Sym]]:
    """The values a call passes to each parameter of `fn`, the function `target` it reaches
    as `kind` (`callees`): the symbols as the caller wrote them, not their atoms, for the
    questions of what a caller passed (which of its parameters, locals or layers). Through a
    `functools.partial` object, the parameters the object binds are not the call's: its
    arguments start after them."""
    configs = resolved.partials.get(target)
    if not configs:
        return bind_written_through(fn, resolved, kind, None)
    # Reached through several partial objects: what the caller wrote may reach a parameter
    # through any of them.
    bound: dict[str, frozenset[Sym]] = {}
    for config in configs:
        for name, values in bind_written_through(fn, resolved, kind, config).items():
            bound[name] = bound.get(name, frozenset()) | values
    return bound


def bind_written_through(
    fn: FunctionSummary, resolved: ResolvedCall, kind: str, partial: PartialConfig | None
) -> dict[str, frozenset[Sym]]:
    """`bind_written` of a call that reaches `fn` through the partial object `partial` (None:
    directly)."""
    site = resolved.site
    written: list[frozenset[Sym]] = [frozenset({a}) for a in site.args]
    if partial is not None:
        written = [frozenset()] * len(partial_args(partial)) + written
    bound = bind_arguments(
        fn,
        written,
        {name: frozenset({value}) for name, value in site.kwargs},
        skip_receiver=kind in RECEIVER_BINDING_KINDS,
    )
    if partial is not None:
        return {name: values for name, values in bound.items() if values}
    return bound


MAX_PARTIAL_ARGUMENTS = 8
"""How many positional arguments a `functools.partial` object is followed with (a partial
of a partial made in a loop would otherwise grow without end)."""


def partial_object(args: list[Atoms], kwargs: dict[str, Atoms]) -> Atom | None:
    """What `functools.partial(f, *args, **kwargs)` gives when `f` may be a project function,
    method, class or module: an object that knows them and its arguments. Arguments that are
    partial objects themselves are kept as plain objects, so that the value stays bounded;
    None when nothing it wraps is the project's (an object as before)."""
    if not args or len(args) - 1 > MAX_PARTIAL_ARGUMENTS:
        return None
    wrapped = frozenset(
        atom
        for atom in args[0]
        if is_func_atom(atom)
        or is_method_atom(atom)
        or is_class_atom(atom)
        or (is_obj_atom(atom) and obj_class(atom) is not None and obj_config(atom) is None)
    )
    if not wrapped:
        return None
    bound = tuple(_without_partials(atoms) for atoms in args[1:])
    keywords = tuple(sorted((name, _without_partials(atoms)) for name, atoms in kwargs.items()))
    return obj_atom("object", None, partial_config(wrapped, bound, keywords))


MAX_CHAIN = 32
"""How many positions a container module's chain keeps (`chained_modules`); past it the
modules of the later ones share the last position, each as if called on any output."""


def chained_modules(args: Sequence[Atoms]) -> tuple[Atoms, ...]:
    """The positions of the chain a container module (`nn.Sequential(a, b)`) is built with,
    from its constructor's arguments: each argument one position, except a container module
    given alone, whose own positions take its place, as calling it runs them in turn
    (`nn.Sequential(nn.Sequential(a, b), c)` runs a, b, c). The positions hold no chain or
    partial object: where one may be given among other values, the modules of its positions
    are held in its place, as if called on the input (a position of several values may be
    any of them). Kept as objects, a container module given itself (`self.skip =
    nn.Sequential(self.skip, drop)`) nested one level deeper at every round of the fixed
    point, each level holding every earlier one: ordering the callee's atoms (`canonical`)
    walked a tree doubling every round, and torch-harmonics' `DownsamplingBlock.forward` ran
    past its evaluation budget; flattened, a chain holds at most `MAX_CHAIN` positions of
    modules that hold nothing."""
    positions: list[Atoms] = []
    for atoms in args:
        if len(atoms) == 1:
            (atom,) = atoms
            config = obj_config(atom) if is_obj_atom(atom) else None
            if is_chain_config(config):
                positions.extend(config[1])
                continue
            if kind_of(atom) == "dict":
                # `nn.Sequential(OrderedDict(...))`: the modules are the values, in their
                # order (not kept: one position).
                positions.append(_held_modules(atom[1]))
                continue
        positions.append(_held_modules(atoms))
    if len(positions) > MAX_CHAIN:
        last = frozenset().union(*positions[MAX_CHAIN - 1 :])
        positions[MAX_CHAIN - 1 :] = [last]
    return tuple(positions)


def _held_modules(atoms: Atoms) -> Atoms:
    """The modules one position of a chain holds (`chained_modules`): a chain object's own
    modules in its place, a partial object as an object of no config (its call is opaque)."""
    if not any(is_obj_atom(a) and _holds_objects(obj_config(a)) for a in atoms):
        return atoms
    held: set[Atom] = set()
    for atom in atoms:
        config = obj_config(atom) if is_obj_atom(atom) else None
        if is_chain_config(config):
            for position in config[1]:
                held |= position
        elif is_partial_config(config):
            held.add(obj_atom(atom[1], obj_class(atom)))
        else:
            held.add(atom)
    return frozenset(held)


def _holds_objects(config: ObjConfig | None) -> bool:
    """An object's config holds other objects (a chain of modules, a partial's arguments)."""
    return is_chain_config(config) or is_partial_config(config)


def _without_partials(atoms: Atoms) -> Atoms:
    if not any(is_obj_atom(a) and is_partial_config(obj_config(a)) for a in atoms):
        return atoms
    return frozenset(
        obj_atom("object", None) if is_obj_atom(a) and is_partial_config(obj_config(a)) else a
        for a in atoms
    )


def _is_classmethod(fn: FunctionSummary) -> bool:
    """A method whose receiver is its class (`@classmethod`), whether read off an instance
    or off the class."""
    return fn.binds_receiver and any(d.name == "classmethod" for d in fn.decorators)


def bind_arguments(
    fn: FunctionSummary,
    args: Sequence[Atoms],
    kwargs: Mapping[str, Atoms],
    *,
    skip_receiver: bool,
) -> dict[str, Atoms]:
    """Map call-site arguments to parameter names (positional, keyword, *args, **kwargs)."""
    layout = param_layout(fn, skip_receiver)
    positional = layout.positional
    vararg = layout.vararg
    bound: dict[str, Atoms] = {}
    for i, atoms in enumerate(args):
        if i < len(positional):
            bound[positional[i]] = atoms
        elif vararg is not None:
            bound[vararg] = bound.get(vararg, NO_ATOMS) | atoms
    if kwargs:
        names = layout.keywords
        kwarg = layout.kwarg
        for name, atoms in kwargs.items():
            if name in names:
                bound[name] = atoms
            elif kwarg is not None:
                bound[kwarg] = bound.get(kwarg, NO_ATOMS) | atoms
    return bound


def callees(index: ProjectIndex, resolved: ResolvedCall) -> Sequence[tuple[str, FunctionKey]]:
    """The project functions a call runs, with how it reaches each: ("func" | "method" |
    "layer_call" | "class", key); constructing a class runs its `__init__`.

    A call that constructs no class runs its targets as they are: they are given as they
    are, not copied (the verdict phase asks millions of times)."""
    if not resolved.constructs:
        return resolved.targets
    found: list[tuple[str, FunctionKey]] = []
    for kind, target in resolved.targets:
        if kind == "class":
            init = index.find_method(target, "__init__")
            if init is None:
                continue
            target = init
        found.append((kind, target))
    return found


def argument_at(
    args: Sequence[Atoms], kwargs: Mapping[str, Atoms], where: tuple[int | str, ...]
) -> Atoms | None:
    """The atoms of the first argument present at a position or keyword of `where` (an
    `ApiInfo`'s `callback_args`, say); None when none is. Shared with the solver, which
    reads the same arguments of a resolved call as the evaluator does of one it evaluates."""
    for position in where:
        if isinstance(position, int) and position < len(args):
            return args[position]
        if isinstance(position, str) and position in kwargs:
            return kwargs[position]
    return None


def callback_atoms(resolved: ResolvedCall, info: ApiInfo) -> Iterator[Atom]:
    """The project functions (`func`/`method` atoms) a call hands to `info` as callbacks that
    run as part of the call (`tf.map_fn(f, x)`, `strategy.run(f, args=...)`, `ds.map(f)`).

    Sorted by key, as a call's targets are: the argument's atoms are a set, iterated in an
    order that changes between runs (string hashing), and the first effect or hazard found
    through the callbacks, and the path a finding names, must be the same in every run."""
    for position in info.callback_args:
        atoms = (
            resolved.args[position]
            if isinstance(position, int) and position < len(resolved.args)
            else resolved.kwargs.get(str(position), NO_ATOMS)
        )
        yield from sorted(
            (a for a in atoms if kind_of(a) in ("func", "method")), key=lambda a: str(a[1])
        )


def resolve_ref_key(ref: Ref) -> str | None:
    return ref[1] if kind_of(ref) in ("func", "class") and ref != UNKNOWN_REF else None


def _float_type_named(atom: Atom) -> str:
    """The float type a dtype argument names (`np.float64`, `tf.float16`, `"float64"`), one
    of `FLOAT_INFO_SMALL_MEMBERS`; float32 for any other."""
    for dtype, names in _FLOAT_TYPE_NAMES.items():
        if atom in names or (is_ext_atom(atom) and ext_name(atom).rsplit(".", 1)[-1] in names):
            return dtype
    return "float32"


_FLOAT_TYPE_NAMES = {
    "float16": frozenset({"float16", "half", lit_atom("str", "float16"), lit_atom("str", "half")}),
    "float64": frozenset(
        {"float64", "double", lit_atom("str", "float64"), lit_atom("str", "double")}
    ),
}
"""The names of the float types other than float32 `_float_type_named` tells, as the last
part of a dtype's name or a string."""
