"""Safety facts carried through calls: a project helper runs inside its caller's graph.

When a function is traced, every project function it calls is traced with it, on the values
of the caller's graph. A helper that calls `.numpy()` or NumPy on such a value fails there
although it is fine eagerly, so the caller fails `has_eager_only_calls` or
`has_numpy_calls_on_parameters` too (docs/verdicts.md section 1; the side-effect and tensor
computation facts are transitive in the same way).

Whether a helper fails depends on what it is given: `np.zeros(n)` is fine for a Python `n`,
`np.mean(x)` fails for a tensor `x`. So a value is described as `Symbolic`: symbolic in any
graph (the result of a TF op, a variable), or when one of the function's parameters is. Each
function gets a summary of what it returns and of the hazards that fire inside a caller's
graph, either always or when a given parameter receives a symbolic value; a call site maps
the callee's summary onto its own arguments. Summaries are computed once, callees first over
the call graph, and iterated to a fixed point on cycles. Callbacks handed to tf.data,
`tf.map_fn` and friends are not calls here: TensorFlow traces them on their own.

The same description decides `tf.constant(x)` (any API with `concrete_args`): eagerly it
takes a tensor, while tracing a symbolic tensor makes it raise.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TypeVar

from hybridize.analyzer.facts.callgraph import components_bottom_up, reaching
from hybridize.analyzer.facts.cited_lines import cited_line
from hybridize.analyzer.facts.digraph import DiGraph
from hybridize.analyzer.facts.effects import FREE, origins
from hybridize.analyzer.facts.evaluator import (
    Evaluator,
    ResolvedCall,
    TensorFacts,
    bind_written,
    callees,
    get_evaluator,
)
from hybridize.analyzer.facts.evidence import Evidence
from hybridize.analyzer.facts.graph_kernel_gaps import kernel_gap, may_have_kernel_gap
from hybridize.analyzer.facts.predicates import is_known_non_tensor, is_tensor_like, leaf_atoms
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.safety import (
    SHAPE_ONLY_ATTRIBUTES,
    foreign_library_calls,
    is_eager_only_call,
    numpy_function,
    tensor_data_assignments,
)
from hybridize.analyzer.facts.values import (
    MAX_NESTING,
    PYTHON_SEQUENCE_KINDS,
    Atom,
    first_in_canonical_order,
    is_boundext_atom,
    is_dataset_atom,
    is_dict_atom,
    is_lit_atom,
    is_numpy_atom,
    is_obj_atom,
    is_tensor_atom,
    is_unknown_kind,
    is_variable_atom,
)
from hybridize.analyzer.frameworks import written_name
from hybridize.analyzer.frameworks.api_info import TENSOR_RETURNS, ApiInfo, CallbackArgs
from hybridize.analyzer.frameworks.framework import framework_of_api
from hybridize.analyzer.frameworks.python_stdlib import value_library
from hybridize.analyzer.summaries.ir import CallSite, FunctionSummary, StatementLoop, Sym
from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.analyzer.summaries.syms import (
    SymKind,
    is_attr,
    is_call,
    is_item,
    is_iter,
    is_param,
    kind_of,
    lit_type,
    local_sym,
    name_sym,
    param_sym,
    sym_name,
    syms_of_kinds,
)
from hybridize.model import Span

_T = TypeVar("_T")

EAGER_ONLY = "has_eager_only_calls"
NUMPY = "has_numpy_calls_on_parameters"
CONSEQUENCES = {
    EAGER_ONLY: "that works only eagerly, not in this function's graph",
    NUMPY: "NumPy cannot evaluate the symbolic tensor it receives in this function's graph",
}

SYMBOLIC_KINDS = frozenset({"tensor", "variable", "symbolic"})
"""Atoms of tensors: what a call gives is symbolic in a graph when it is one of them."""
VALUE_ROLES = frozenset({"tensor", "variable", "numpy"})
"""Receivers whose eager-only methods need the receiver's value (`x.numpy()`); on a
framework object (`model.fit`, `dataset.as_numpy_iterator`) they fail in any graph."""
INDEXING = (
    "indexes a Python list, tuple or range with a value that is a tensor in a graph "
    "(`int()`/`len()` of a tensor give a tensor there), which raises TypeError"
)
MAPPING_INDEXING = (
    "indexes a Python dict or string with a value that is a tensor in a graph (`int()` of a "
    "tensor gives a tensor there), which raises TypeError"
)
NUMPY_INDEXING = "indexes a NumPy array with a value that is a tensor in a graph"
NUMPY_STORE = "stores a value that is a tensor in a graph into a NumPy array"
"""What a NumPy array converts (its index, the value stored): a helper's hazard, followed by
`CONSEQUENCES[NUMPY]` where a caller reports it, as the function's own."""
LIST_GROWERS = frozenset({"append", "extend", "insert"})
PYTHON_SCALAR_HINTS = frozenset({"int", "float", "bool", "str"})
"""Type hints of parameters that hold Python values: a caller passing a tensor there breaks
its own contract, so they are not taken to be symbolic."""
CLOSURE = "^"
"""Prefix of a pseudo-parameter: a variable of an enclosing function that a nested function
or lambda reads (`lambda: np.mean(x)`). A call from the enclosing function maps it onto that
function's own value of the name, as it maps a parameter onto the argument."""
MAX_FIXED_POINT_ROUNDS = 50
MAX_LOCAL_PASSES = 12
"""Passes over one function's values before its answer is widened (see `_Values.of`)."""
MAX_RETURN_DEPTH = 40
"""How many nested project calls a return value is followed through on demand; deeper, a
call gives what its arguments are, or a tensor (more often symbolic: the safe side)."""


@dataclass(frozen=True, slots=True)
class Symbolic:
    """When a value is a symbolic tensor in a graph: always, or when one of `params` is.

    `params` are also the parameters the value is computed from, which is what
    `has_numpy_calls_on_parameters` asks for."""

    always: bool = False
    params: frozenset[str] = frozenset()

    def __or__(self, other: Symbolic) -> Symbolic:
        if not other.always and not other.params:
            return self
        if not self.always and not self.params:
            return other
        return Symbolic(self.always or other.always, self.params | other.params)

    def given(self, symbolic_params: Collection[str]) -> bool:
        """Symbolic when the function's `symbolic_params` hold symbolic tensors."""
        return self.always or any(p in symbolic_params for p in self.params)


CONCRETE = Symbolic()
ALWAYS = Symbolic(always=True)


@dataclass(frozen=True, slots=True)
class Hazard:
    """Why a function fails in a graph, as a phrase that reads after "which", and where."""

    what: str
    line: int
    """A line of the function's own file (a line of another file `what` cites with its file:
    `cited_lines`)."""
    python_value: bool = False
    """A symbolic tensor used where a Python value is needed (reported by HY303, not HY301,
    although the fact is `has_eager_only_calls` all the same)."""


@dataclass(slots=True)
class GraphHazards:
    """What fails in one function's own graph (`HelperSafety.hazards`), grouped by what the
    checks report: each check turns its group into findings with its own code."""

    eager_only: list[Evidence] = field(default_factory=list)
    """Eager-only calls, here or in a helper traced with the function (HY301)."""
    python_values: list[Evidence] = field(default_factory=list)
    """Symbolic tensors used where a Python value is needed (HY303; `has_eager_only_calls`)."""
    numpy: list[Evidence] = field(default_factory=list)
    """NumPy applied to symbolic tensors (HY302, `has_numpy_calls_on_parameters`)."""

    def add(self, fact: str, hazard: Hazard, evidence: Evidence) -> None:
        """A hazard of `fact` (EAGER_ONLY or NUMPY), in the group that reports it."""
        if fact == NUMPY:
            self.numpy.append(evidence)
        elif hazard.python_value:
            self.python_values.append(evidence)
        else:
            self.eager_only.append(evidence)

    def reported(self, fact: str, span: Span) -> bool:
        """Whether a hazard of `fact` is already reported at `span`."""
        groups = [self.numpy] if fact == NUMPY else [self.eager_only, self.python_values]
        return any(e.span == span for group in groups for e in group)


@dataclass(slots=True)
class HelperSummary:
    """What a function does inside a caller's graph: what it returns, and per fact the first
    hazard that fires always or when a given parameter receives a symbolic value."""

    returns: Symbolic = CONCRETE
    always: dict[str, Hazard] = field(default_factory=dict)
    when: dict[str, dict[str, Hazard]] = field(default_factory=dict)

    def add(self, fact: str, condition: Symbolic, hazard: Hazard) -> None:
        if condition.always:
            self.always.setdefault(fact, hazard)
        elif condition.params:
            by_param = self.when.setdefault(fact, {})
            for param in sorted(condition.params):
                by_param.setdefault(param, hazard)

    def shape(self) -> tuple[Symbolic, frozenset[str], frozenset[tuple[str, str]]]:
        """What the fixed point compares: which hazards exist, not their wording."""
        conditional = frozenset((f, p) for f, by_param in self.when.items() for p in by_param)
        return self.returns, frozenset(self.always), conditional


class HelperSafety:
    """Helper summaries of every function of a project, and the findings they give a caller.

    Only functions that may fail in a graph, or call one that may, get a summary (`relevant`);
    what other functions return is worked out when a value walk needs it."""

    def __init__(
        self,
        index: ProjectIndex,
        facts: TensorFacts,
        graph: DiGraph,
        previous: HelperSafety | None = None,
        fresh: Collection[FunctionKey] = (),
    ) -> None:
        """Summaries of the functions of `graph`; with `previous` (an earlier phase's), only
        those of `fresh` are worked out again and every other function keeps what it had: an
        incremental verdict phase passes the functions whose facts or callees changed (a
        function that calls one of them is one of them), so the rest still hold."""
        self.index = index
        self.facts = facts
        self.summaries: dict[FunctionKey, HelperSummary] = {}
        self.local: dict[FunctionKey, bool] = {}
        self.relevant: dict[FunctionKey, bool] = {}
        self._returns: dict[FunctionKey, Symbolic] = {}
        if previous is not None:
            # taken over from the earlier phase, whose tables nothing reads after this one
            # (`analysis.Analysis.solve` drops its memory before deciding): in place, not a
            # copy of four tables of the project's size at every edit
            self.summaries = _without(previous.summaries, fresh)
            self.local = _without(previous.local, fresh)
            self.relevant = _without(previous.relevant, fresh)
            self._returns = _without(previous._returns, fresh)
        redo = set(graph.nodes) if previous is None else set(fresh) & set(graph.nodes)
        self.local.update(
            (
                key,
                any(_may_fail_in_a_graph(resolved) for resolved in facts.calls.get(key, []))
                or _may_need_python_values(index, facts, key)
                or _reads_tensor_values(index, facts, key)
                or _stores_into_numpy(index, facts, key)
                or _iterates_eagerly(index, facts, key)
                or _compiles_badly(index, facts, key),
            )
            for key in redo
            if not key.is_module_code
        )
        local = {k: self.local[k] for k in graph.nodes if k in self.local}
        self.relevant.update(reaching(graph, local))
        self._computing: set[FunctionKey] = set()
        self._hazards: dict[FunctionKey, GraphHazards] = {}
        """`hazards` by function, for this phase only (never taken over from `previous`)."""
        for component in components_bottom_up(graph):
            if component and component[0] in redo:  # a cycle is fresh as a whole
                self._summarise(sorted((k for k in component if local.get(k) is not None), key=str))

    def _summarise(self, keys: list[FunctionKey]) -> None:
        if not keys or not self.relevant.get(keys[0]):
            return
        # A cycle starts from empty summaries and grows them until nothing changes; each
        # round adds a hazard or a symbolic return, so the rounds are bounded anyway.
        for _ in range(MAX_FIXED_POINT_ROUNDS):
            changed = False
            for key in keys:
                summary = self._summary(key)
                old = self.summaries.get(key)
                changed = changed or old is None or old.shape() != summary.shape()
                self.summaries[key] = summary
            if not changed or not any(self._calls_within(k, keys) for k in keys):
                return

    def _summary(self, key: FunctionKey) -> HelperSummary:
        """The function's summary; a defect of the analysis on unusual code costs only that
        function its summary (reported like the tensor analysis' own internal errors)."""
        try:
            return _Values(self, key).summary()
        except (RecursionError, Exception) as exc:
            self.facts.internal_errors.setdefault(
                key, f"{type(exc).__name__}: {exc} (please report it)"
            )
            return HelperSummary()

    def _calls_within(self, key: FunctionKey, keys: list[FunctionKey]) -> bool:
        return any(
            target in keys
            for resolved in self.facts.calls.get(key, [])
            for _, target in callees(self.index, resolved)
        )

    def returns_of(self, key: FunctionKey) -> Symbolic | None:
        """When what a project function returns is symbolic, in terms of its parameters;
        None while that is being worked out (a cycle) or past MAX_RETURN_DEPTH."""
        summary = self.summaries.get(key)
        if summary is not None:
            return summary.returns
        found = self._returns.get(key)
        if found is not None:
            return found
        if key in self._computing or len(self._computing) >= MAX_RETURN_DEPTH:
            return None
        self._computing.add(key)
        try:
            found = _Values(self, key).returns()
        finally:
            self._computing.discard(key)
        self._returns[key] = found
        return found

    def hazards(self, key: FunctionKey) -> GraphHazards:
        """What fails in the graph of function `key` traced on its own (its parameters that
        may hold tensors are symbolic): through the helpers it calls, and `concrete_args`
        given a symbolic tensor in its own body. Memoised per function: the summaries are
        final once made, and HY423 asks again for every caller of every method it weighs
        (callers share the returned value and do not change it)."""
        known = self._hazards.get(key)
        if known is not None:
            return known
        found = self._hazards[key] = GraphHazards()
        if not self.relevant.get(key):
            return found
        symbolic_params = self.symbolic_parameters(key)
        values = _Values(self, key)
        for sym, condition, what in values.python_indexing():
            if condition.given(symbolic_params):
                fn = self.index.function(key)
                found.python_values.append(Evidence(what, fn.index_reads.get(sym, fn.span)))
                break
        for span, what, condition in values.tensor_range_loops():
            if condition.given(symbolic_params):
                found.python_values.append(Evidence(what, span))
        for span, what in values.eager_iterations():
            found.eager_only.append(Evidence(what, span))
        for span, condition, what in values.numpy_indexing():
            if condition.given(symbolic_params):
                found.numpy.append(Evidence(f"{what}; {CONSEQUENCES[NUMPY]}", span))
                break
        for span, condition, what in values.numpy_item_stores():
            # a value from a parameter is the function's own finding (`safety`); this is
            # what an op of the graph gives (`x[:] = tf.gather(...)`)
            if condition.always and not condition.params:
                found.numpy.append(Evidence(f"{what}; {CONSEQUENCES[NUMPY]}", span))
        for what, condition in (*values.tensor_tests(), *values.boolean_masks()):
            if condition.given(symbolic_params):
                found.python_values.append(Evidence(what, values.fn.span))
                break
        for resolved in values.calls:
            site = resolved.site
            for what, condition in values.python_value_arguments(resolved):
                if condition.given(symbolic_params):
                    found.python_values.append(Evidence(what, site.span))
            for info, condition in values.concrete_arguments(resolved):
                if condition.given(symbolic_params):
                    found.eager_only.append(Evidence(_needs_concrete_value(info), site.span))
            for fact, condition, hazard in values.lifted(resolved):
                if condition.given(symbolic_params) and not found.reported(fact, site.span):
                    found.add(
                        fact, hazard, Evidence(f"{hazard.what}; {CONSEQUENCES[fact]}", site.span)
                    )
        return found

    def symbolic_parameters(self, key: FunctionKey) -> set[str]:
        """Parameters that hold symbolic tensors when the function itself is traced: those
        that may receive a tensor-like value (tf.function turns NumPy arrays into tensors),
        or whose kind is unknown, unless a hint promises a Python scalar (`i: int`)."""
        fn = self.index.function(key)
        evaluator = get_evaluator(self.index, self.facts, key)
        found = set()
        for param in fn.explicit_params:
            if param.annotation in PYTHON_SCALAR_HINTS:
                continue
            atoms = evaluator.eval(param_sym(param.name))
            if not atoms or any(is_tensor_like(a) or is_unknown_kind(a) for a in atoms):
                found.add(param.name)
        return found


def configures_layer(info: ApiInfo) -> bool:
    """A constructor of a layer whose arguments are configuration, validated as Python values
    (a Keras `Dense(units)` rejects a tensor: `Framework.python_configured_layers`)."""
    if info.kind != "class" or info.returns != "layer":
        return False
    owner = framework_of_api(info.framework)
    return owner is not None and info.framework in owner.python_configured_layers


def _layer_library(info: ApiInfo) -> str:
    """The library of a layer API (`Framework.layer_library` of its framework): Keras."""
    owner = framework_of_api(info.framework)
    return owner.layer_library if owner is not None else info.framework


def _items(evaluator: Evaluator) -> list[Sym]:
    """The subscripts (`x[i]`) among the values the function's evaluation met, picked by their
    kind read once (a body has hundreds of values, and a few subscripts): a list, since
    evaluating their parts adds to the memo."""
    return syms_of_kinds(evaluator.memo, "item")


def _needs_concrete_value(info: ApiInfo) -> str:
    """Why an API needing a concrete value fails on a symbolic tensor, with what its framework
    offers instead (`Framework.concrete_value_advice`)."""
    message = (
        f"`{_display(info.name)}` needs a concrete value, but in this function's graph it is "
        "given a symbolic tensor and raises"
    )
    owner = framework_of_api(info.framework)
    advice = owner.concrete_value_advice if owner is not None else None
    return message if advice is None else f"{message}; {advice}"


def _value_library_note(name: str) -> str:
    """Said of a library computing only on Python values (as NumPy, it cannot evaluate a
    symbolic tensor)."""
    library = value_library(name)
    return "" if library is None else f" ({library}: Python values only, as NumPy)"


def _may_fail_in_a_graph(resolved: ResolvedCall) -> bool:
    """A call that may fail on a symbolic value: eager-only, `concrete_args`, NumPy, or a
    Keras layer's configuration (the builtins needing a Python value are the framework's:
    `_reads_tensor_values`)."""
    return (
        is_eager_only_call(resolved)
        or any(info.concrete_args or configures_layer(info) for info in resolved.api)
        or numpy_function(resolved) is not None
        or may_have_kernel_gap(resolved)
    )


def _compiles_badly(index: ProjectIndex, facts: TensorFacts, key: FunctionKey) -> bool:
    """Whether the function does what its framework's compiler fails on whatever the values:
    calls into an untabled library, `.data` assignments (`safety`)."""
    calls = facts.calls.get(key, [])
    return any(foreign_library_calls(index, key, calls)) or any(
        tensor_data_assignments(index, facts, key)
    )


def _may_need_python_values(index: ProjectIndex, facts: TensorFacts, key: FunctionKey) -> bool:
    """Whether the function indexes a Python sequence, dict or string with a computed value
    (`items[n]`) or loops over `range()` of one: places where a tensor in the graph may not do."""
    evaluator = get_evaluator(index, facts, key)
    calls = {resolved.index: resolved for resolved in facts.calls.get(key, [])}
    ranges = any(
        is_call(loop.iterable)
        and loop.iterable[1] in calls
        and any(info.name == "builtins.range" for info in calls[loop.iterable[1]].api)
        for loop in index.function(key).loops
    )
    return ranges or any(
        kind_of(sym[2]) not in ("lit", "slice")
        and any(
            a[0] in PYTHON_SEQUENCE_KINDS or _is_mapping_or_string(a) or is_numpy_atom(a)
            for a in evaluator.eval(sym[1])
        )
        for sym in _items(evaluator)
    )


def _stores_into_numpy(index: ProjectIndex, facts: TensorFacts, key: FunctionKey) -> bool:
    """Whether the function writes an item of a NumPy array (`x[:, 0] = value`): NumPy
    converts the value, which a symbolic tensor cannot be (`_Values.numpy_item_stores`)."""
    stores = [store for store in index.function(key).stores if store.kind == "item"]
    if not stores:
        return False
    evaluator = get_evaluator(index, facts, key)
    return any(_numpy_array(evaluator.eval(s.target)) for s in stores)


def _numpy_array(targets: Collection[Atom]) -> bool:
    """Whether an item store's target is a NumPy array: one of its values, and no dict or
    object among the others (a dict of results a NumPy value may also be read into is not
    one; the list the store itself adds to the target's values is no other value)."""
    return any(is_numpy_atom(a) for a in targets) and not any(
        is_dict_atom(a) or is_obj_atom(a) for a in targets
    )


def _eager_iteration(
    index: ProjectIndex, key: FunctionKey, atoms: Iterable[Atom]
) -> ApiInfo | None:
    """The eager-only `__iter__` of what a loop iterates, in the function's framework."""
    framework = index.function_framework(key)

    def eager_iter(atom: Atom) -> ApiInfo | None:
        role = "dataset" if is_dataset_atom(atom) else atom[1] if is_obj_atom(atom) else None
        info = framework.method_of(role, "__iter__") if role is not None else None
        return info if info is not None and info.is_eager_only else None

    # the one named: the same in every run
    return first_in_canonical_order(atoms, eager_iter)


def _iterates_eagerly(index: ProjectIndex, facts: TensorFacts, key: FunctionKey) -> bool:
    """Whether a `for` loop of the function iterates an object whose iteration its framework
    leaves to eager code (`_eager_iteration`)."""
    loops = index.function(key).loops
    if not loops:
        return False
    evaluator = get_evaluator(index, facts, key)
    return any(_eager_iteration(index, key, evaluator.eval(loop.iterable)) for loop in loops)


def _reads_tensor_values(index: ProjectIndex, facts: TensorFacts, key: FunctionKey) -> bool:
    """Whether the function has `if`/`while` tests, calls builtins reading values, or indexes
    with a computed value, where its framework's compiler leaves a tensor there to eager code
    (`Framework.tensor_condition_break`, `value_reading_builtins`, `boolean_mask_break`)."""
    framework = index.function_framework(key)
    if framework.tensor_condition_break is not None and index.function(key).conditions:
        return True
    if any(
        info.name in framework.value_reading_builtins
        for resolved in facts.calls.get(key, [])
        for info in resolved.api
    ):
        return True
    if framework.boolean_mask_break is None:
        return False
    evaluator = get_evaluator(index, facts, key)
    return any(
        is_item(sym) and kind_of(sym[2]) not in ("lit", "slice") for sym in list(evaluator.memo)
    )


def _selected(site: CallSite, positions: CallbackArgs) -> Iterator[Sym]:
    """The arguments at `positions` (indices or keywords) of a call."""
    keywords = dict(site.kwargs)
    for position in positions:
        if isinstance(position, int):
            if position < len(site.args):
                yield site.args[position]
        elif position in keywords:
            yield keywords[position]


def _display(name: str) -> str:
    """An API's name as code writes it: `tf.random.uniform`, `print`."""
    return written_name(name).removeprefix("builtins.")


class _Values:
    """Which values of one function are symbolic in a graph, in terms of its parameters."""

    def __init__(self, helpers: HelperSafety, key: FunctionKey) -> None:
        self.helpers = helpers
        self.index = helpers.index
        self.key = key
        self.fn: FunctionSummary = self.index.function(key)
        self.receiver = (
            self.fn.params[0].name if self.fn.binds_receiver and self.fn.params else None
        )
        self.evaluator = get_evaluator(self.index, helpers.facts, key)
        self.calls: list[ResolvedCall] = helpers.facts.calls.get(key, [])
        self.by_index = {resolved.index: resolved for resolved in self.calls}
        self.final: dict[Sym, Symbolic] = {}
        self.memo: dict[Sym, Symbolic] = {}
        self.estimate: dict[Sym, Symbolic] = {}
        self.back_edges: dict[Sym, Symbolic] = {}
        self.active: set[Sym] = set()

    # ------------------------------------------------------------------ values

    def of(self, sym: Sym) -> Symbolic:
        """When `sym` is symbolic, solved to a fixed point over the function's values.

        A value can feed itself (`x = x + y` in a loop, `a, b = b, a + b`): there, the walk
        reads the value's current estimate instead of recursing. Each pass memoises every
        value it computes, so a pass costs the number of values, never the number of paths
        through the assignments (without that a long numeric loop took minutes); passes
        repeat while an estimate read through such a back edge has grown since. Estimates
        only grow (each is the join of what the passes gave), so they settle; past
        MAX_LOCAL_PASSES the answer is widened to the most symbolic one, the safe side."""
        if self.active:
            return self._in_pass(sym)
        found = self.final.get(sym)
        if found is not None:
            return found
        for _ in range(MAX_LOCAL_PASSES):
            self.memo = {}
            self.back_edges = {}
            result = self._in_pass(sym)
            if all(self.estimate.get(s, CONCRETE) == v for s, v in self.back_edges.items()):
                self.final.update(self.memo)
                return result
        widened = Symbolic(True, frozenset(p.name for p in self.fn.explicit_params))
        self.final[sym] = widened
        return widened

    def _in_pass(self, sym: Sym) -> Symbolic:
        found = self.memo.get(sym)
        if found is None:
            found = self.final.get(sym)
        if found is not None:
            return found
        if sym in self.active:
            estimate = self.estimate.get(sym, CONCRETE)
            self.back_edges[sym] = estimate
            return estimate
        self.active.add(sym)
        try:
            result = self._of(sym)
        finally:
            self.active.discard(sym)
        self.memo[sym] = result
        self.estimate[sym] = self.estimate.get(sym, CONCRETE) | result
        return result

    def union(self, syms: Iterable[Sym]) -> Symbolic:
        result = CONCRETE
        for sym in syms:
            result = result | self.of(sym)
        return result

    def _of(self, sym: Sym) -> Symbolic:
        kind: SymKind = sym[0]
        if kind == "param":
            return CONCRETE if sym[1] == self.receiver else Symbolic(params=frozenset({sym[1]}))
        if kind == "local":
            return self.union(self.fn.locals.get(sym[1], ())) | self._carried(sym[1])
        if kind == "name":
            if sym[1] in self.fn.locals and sym[1] not in self.fn.globals_declared:
                return self.of(local_sym(sym[1]))
            if FREE in origins(self.index, self.key, sym):
                # A variable of an enclosing function: what it is depends on that function,
                # which maps it onto its own values where it calls this one (`_argument`).
                return Symbolic(params=frozenset({CLOSURE + sym[1]}))
            return self._outside(sym)
        if kind == "attr" and sym[2] in SHAPE_ONLY_ATTRIBUTES:
            return CONCRETE
        if kind == "iter":
            bounds = self._tensor_range_bounds(sym[1])
            if bounds is not None:
                return bounds
        if kind in ("attr", "item", "iter", "enter"):
            base = self.of(sym[1])
            if base.always or base.params:
                variable = any(is_variable_atom(a) for a in self.evaluator.eval(sym))
                return ALWAYS | base if variable else base  # `p.kernel`: a variable read
            if kind in ("item", "iter") and self._eager_tensor(sym[1]):
                return ALWAYS  # slicing an outside tensor is an op of the graph
            return self._outside(sym)
        if kind == "op":
            result = self.union(sym[1])
            if not result.always and any(self._eager_tensor(o) for o in sym[1]):
                return ALWAYS | result  # `EPS * x`: an op of the graph on an outside tensor
            return result
        if kind == "cond":
            return self.union(sym[1])
        if kind == "seq":
            return self.union(sym[2])
        if kind == "dict":
            return self.union(sym[1])
        if kind == "call":
            resolved = self.by_index.get(sym[1])
            if resolved is None:
                site = self.fn.calls[sym[1]]
                return self.union(_operands(site))
            return self._call(resolved)
        return CONCRETE

    def _tensor_range_bounds(self, iterable: Sym) -> Symbolic | None:
        """What an element of `range(...)` is, where the framework's compiler makes a range of
        tensor bounds a range of tensors (AutoGraph's `tf.range`): symbolic when a bound is.
        None for any other iterable. Measured under TF 2.21: `for i in range(tf.shape(x)[0]):
        items[i]` runs eagerly (`range` takes the eager tensor's `__index__`) and raises
        "list indices must be integers or slices, not SymbolicTensor" traced."""
        if not is_call(iterable):
            return None
        resolved = self.by_index.get(iterable[1])
        if resolved is None or not any(i.name == "builtins.range" for i in resolved.api):
            return None
        if self.index.function_framework(self.key).loop_variable_index_break is None:
            return None
        operands = list(_operands(resolved.site))
        if not any(self._may_be_tensor(o) for o in operands):
            return None  # AutoGraph's `range` stays Python's unless a bound is a tensor
        return self.union(operands)

    def _may_be_tensor(self, sym: Sym) -> bool:
        """Whether the value is a tensor object at run time (not only computed from one, as
        `Symbolic` says: the keys of a dict of tensors are strings): a tensor by every
        alternative the value analysis knows, or `int()`/`float()` of one, which AutoGraph
        makes a cast (`Framework.tensor_casts`). `len()` is left out: AutoGraph gives a static first axis as an int,
        and what the analysis takes for a tensor there is most often a list of tensors (an
        API returning "tensors": `range(len(grads))` is a Python loop)."""
        atoms = [a for a in self.evaluator.eval(sym) if not is_unknown_kind(a)]
        if atoms and all(a[0] in SYMBOLIC_KINDS for a in atoms):
            return True
        resolved = self.by_index.get(sym[1]) if is_call(sym) else None
        if resolved is None or not resolved.site.args:
            return False
        casts = self.index.function_framework(self.key).tensor_casts
        cast = any(i.name in casts for i in resolved.api)
        return cast and self._may_be_tensor(resolved.site.args[0])

    def _carried(self, name: str) -> Symbolic:
        """When the local `name` is a loop variable of a loop the compiler runs as a graph
        loop: one the loop's body rebinds and that is bound before it (AutoGraph carries it
        through the `tf.while_loop`, converting a Python int to a tensor). Measured under TF
        2.21: `i = 0; while i < tf.shape(x)[0]: items[i]; i += 1` raises TypeError traced."""
        result = CONCRETE
        for loop in self.fn.statement_loops:
            if name in loop.targets or not any(r[0] == name for r in loop.rebinds):
                continue
            if any(e[0] == name and e[2] > e[1] for e in loop.entry):
                result = result | self._converted_loop(loop)
        return result

    def _converted_loop(self, loop: StatementLoop) -> Symbolic:
        """When the compiler runs the loop as a graph loop: a `for` over `range()` of a
        tensor or over a tensor an op makes (`tf.range`), a `while` whose test is a tensor.
        A `for` over a parameter or a local is left to HY403 (and to the value analysis'
        evidence, which takes a list of records for tensors more often than a loop over a
        tensor parameter is written)."""
        if self.index.function_framework(self.key).loop_variable_index_break is None:
            return CONCRETE
        if loop.kind != "for":
            return self.of(loop.header) if self._may_be_tensor(loop.header) else CONCRETE
        bounds = self._tensor_range_bounds(loop.header)
        if bounds is not None:
            return bounds
        if is_call(loop.header) and self._may_be_tensor(loop.header):
            return self.of(loop.header)  # `tf.range(n)`; a tensor parameter's is HY403's
        return CONCRETE

    def _outside(self, sym: Sym) -> Symbolic:
        """A value that does not come from the parameters (a global, an attribute of `self`,
        a variable of an enclosing function): symbolic if it is a variable (read by an op)
        or a tensor of the enclosing function, which is traced with it. A tensor made
        eagerly outside (a module-level constant) is still an eager tensor while tracing."""
        atoms = self.evaluator.eval(sym)
        if any(kind_of(a) in ("variable", "symbolic") for a in atoms):
            return ALWAYS
        if any(is_tensor_atom(a) for a in atoms) and FREE in origins(self.index, self.key, sym):
            return ALWAYS
        return CONCRETE

    def _eager_tensor(self, sym: Sym) -> bool:
        """A tensor that is not symbolic where it is read: a graph op on it makes one."""
        found = self.of(sym)
        if found.always or found.params:
            return False
        return any(is_tensor_atom(a) for a in self.evaluator.eval(sym))

    def _call(self, resolved: ResolvedCall) -> Symbolic:
        site = resolved.site
        operands = self.union(_operands(site))
        if any(info.tensor_op or info.returns in TENSOR_RETURNS for info in resolved.api) or (
            resolved.receiver_roles and not resolved.targets
        ):
            return ALWAYS | operands  # a TF op or a Keras layer: its result is symbolic
        targets = list(callees(self.index, resolved))
        if targets:
            result = CONCRETE
            for kind, target in targets:
                if kind == "class":
                    continue  # the result is the new object
                returned = self.helpers.returns_of(target)
                if returned is None:
                    # Not known yet (a cycle) or too deep: what flows in, or a tensor.
                    result = result | operands | _tensor_if(resolved.result)
                    continue
                result = result | Symbolic(returned.always)
                for param in returned.params:
                    result = result | self._argument(resolved, kind, target, param)
            return result
        if resolved.result and all(
            is_numpy_atom(a) or is_known_non_tensor(a) for a in resolved.result
        ):
            # `len(x)`, `int(n)`, `np.mean(a)`, `t.numpy()`: a Python or NumPy value, concrete
            # while tracing (NumPy or `.numpy()` on a symbolic tensor is a hazard of its own),
            # except where the compiler turns the builtin into an op on a symbolic tensor.
            return self._compiled_builtin(resolved, operands)
        return operands

    def _compiled_builtin(self, resolved: ResolvedCall, operands: Symbolic) -> Symbolic:
        """What the function's compiler makes of a builtin on a symbolic tensor: AutoGraph's
        `int(t)`, `float(t)` a cast (symbolic when `t` is: `Framework.tensor_casts`), and its
        `len(t)` a tensor unless `t`'s first axis is static: a parameter's is, since
        tf.function traces each new input shape (`Framework.tensor_len`). A Python value
        elsewhere (torch.compile reads `int(t)`, and `len(t)` is a size)."""
        framework = self.index.function_framework(self.key)
        names = {info.name for info in resolved.api}
        if names & framework.tensor_casts:
            return operands
        if framework.tensor_len in names and resolved.site.args:
            argument = resolved.site.args[0]
            static = any(
                kind_of(a) in ("tensor", "variable") and a[2] and a[2][0] is not None
                for a in self.evaluator.eval(argument)
            )
            if static or self._parameter_behind(argument) is not None:
                return CONCRETE
            return operands
        return CONCRETE

    def _parameter_behind(self, sym: Sym) -> str | None:
        """The parameter a value is, through locals assigned once (names bound in expressions
        included)."""
        for _ in range(20):
            if kind_of(sym) in ("local", "name") and len(self.fn.locals.get(sym[1], ())) == 1:
                sym = self.fn.locals[sym[1]][0]
            else:
                break
        return sym_name(sym) if is_param(sym) and sym_name(sym) != self.receiver else None

    def _argument(
        self,
        resolved: ResolvedCall,
        kind: str,
        target: FunctionKey,
        param: str,
        written: dict[FunctionKey, dict[str, frozenset[Sym]]] | None = None,
    ) -> Symbolic:
        """What the call passes to `param` of a project callee (for a closure variable of
        the callee, what that variable is here; `written`: the call's arguments bound to
        `target`'s parameters, kept for its other parameters)."""
        site = resolved.site
        callee = self.index.function(target)
        if param.startswith(CLOSURE):
            return self._closure_value(param)
        receiver = callee.params[0].name if callee.binds_receiver and callee.params else None
        if param == receiver and kind != "func":
            return CONCRETE  # the bound object (`Class.method(obj, x)` passes it explicitly)
        bound = None if written is None else written.get(target)
        if bound is None:
            bound = bind_written(callee, resolved, kind, target)
            if written is not None:
                written[target] = bound
        if param in bound:
            return self.union(bound[param])
        if site.has_star_args:
            # `f(*args)`: what reaches the parameter is not written out; trust the evidence.
            atoms = self.helpers.facts.param_atoms.get(target, {}).get(param, set())
            return (
                ALWAYS if any(is_tensor_like(a) or is_unknown_kind(a) for a in atoms) else CONCRETE
            )
        return CONCRETE  # the default, evaluated where the `def` ran

    def _closure_value(self, param: str) -> Symbolic:
        """A nested function's variable `param` of an enclosing function, seen from here: this
        function's own value of that name (a local or parameter of it, or again a variable of
        a function enclosing this one)."""
        return self.of(name_sym(param.removeprefix(CLOSURE)))

    # ------------------------------------------------------------------ hazards

    def returns(self) -> Symbolic:
        """What calling the function gives (for a generator: what iterating it yields)."""
        return self.union([*self.fn.returns, *(self.fn.yields if self.fn.is_generator else ())])

    def summary(self) -> HelperSummary:
        summary = HelperSummary(returns=self.returns())
        for resolved in self.calls:
            for fact, condition, hazard in self._local_hazards(resolved):
                summary.add(fact, condition, hazard)
            for fact, condition, hazard in self.lifted(resolved):
                summary.add(fact, condition, hazard)
        for sym, condition, what in self.python_indexing():
            line = self.fn.index_reads.get(sym, self.fn.span).start_line
            summary.add(EAGER_ONLY, condition, Hazard(what, line, python_value=True))
        for span, what, condition in self.tensor_range_loops():
            summary.add(EAGER_ONLY, condition, Hazard(what, span.start_line, python_value=True))
        for what, condition in (*self.tensor_tests(), *self.boolean_masks()):
            summary.add(EAGER_ONLY, condition, Hazard(what, self.fn.line, python_value=True))
        for span, what in self.eager_iterations():
            summary.add(EAGER_ONLY, ALWAYS, Hazard(what, span.start_line))
        for span, condition, what in (*self.numpy_indexing(), *self.numpy_item_stores()):
            summary.add(NUMPY, condition, Hazard(what, span.start_line))
        for resolved, name, _ in foreign_library_calls(self.index, self.key, self.calls):
            what = f"calls `{name}`, from a library the analysis has no table for"
            summary.add(EAGER_ONLY, ALWAYS, Hazard(what, resolved.site.span.start_line))
        for span, _ in tensor_data_assignments(self.index, self.helpers.facts, self.key):
            summary.add(EAGER_ONLY, ALWAYS, Hazard("assigns a tensor's `.data`", span.start_line))
        return summary

    def eager_iterations(self) -> Iterator[tuple[Span, str]]:
        """`for` loops over an object whose iteration its framework leaves to eager code (a
        PyTorch `DataLoader`: Dynamo skips the frame), by the role's `__iter__`."""
        for loop in self.fn.loops:
            info = _eager_iteration(self.index, self.key, self.evaluator.eval(loop.iterable))
            if info is not None:
                yield loop.span, f"iterates `{_display(info.name)}` in a `for` loop ({info.note})"

    def boolean_masks(self) -> Iterator[tuple[str, Symbolic]]:
        """A tensor indexed with a boolean tensor (`x[x > 0]`), with when it is in the graph,
        where the framework's compiler leaves such indexing to eager code (its result's
        shape depends on the data: `Framework.boolean_mask_break`)."""
        reason = self.index.function_framework(self.key).boolean_mask_break
        if reason is None:
            return
        for sym in _items(self.evaluator):
            if kind_of(sym[2]) in ("lit", "slice"):
                continue
            bases = self.evaluator.eval(sym[1])
            indexes = self.evaluator.eval(sym[2])
            if any(kind_of(a) in ("tensor", "variable") for a in bases) and any(
                kind_of(a) in ("tensor", "variable") and a[1] == "bool" for a in indexes
            ):
                condition = self.of(sym[1]) | self.of(sym[2])
                if condition.always or condition.params:
                    yield f"indexes a tensor with a boolean mask ({reason})", condition

    def tensor_tests(self) -> Iterator[tuple[str, Symbolic]]:
        """`if`/`while` tests that read a value that is a tensor in the graph, with when it is
        one, where the framework's compiler does not convert such a test (`torch.compile`
        breaks the graph there; AutoGraph converts it for `tf.function`)."""
        reason = self.index.function_framework(self.key).tensor_condition_break
        if reason is None:
            return
        for test in self.fn.conditions:
            condition = self.of(test)
            if condition.always or condition.params:
                yield (
                    f"branches in an `if`/`while` on a value that is a tensor in the graph "
                    f"({reason})",
                    condition,
                )

    def _local_hazards(self, resolved: ResolvedCall) -> Iterator[tuple[str, Symbolic, Hazard]]:
        site = resolved.site
        line = site.span.start_line
        callee = site.callee
        if is_eager_only_call(resolved):
            if is_attr(callee):
                what = f"`.{callee[2]}()`"
            else:  # a function such as `tf.keras.backend.get_value`
                what = f"`{_display(next(i.name for i in resolved.api if i.is_eager_only))}`"
            roles = {a[1] for a in resolved.callee_atoms if is_boundext_atom(a)}
            if roles - VALUE_ROLES:
                condition = ALWAYS  # Keras' training loop, a dataset's eager iteration, ...
            else:
                receiver = [callee[1]] if is_attr(callee) else []
                condition = self.union([*receiver, *_operands(site)])
            yield EAGER_ONLY, condition, Hazard(f"calls {what}", line)
        gap = kernel_gap(self.fn, self.by_index, resolved)
        if gap is not None:
            yield EAGER_ONLY, ALWAYS, Hazard(gap, line)
        for info, condition in self.concrete_arguments(resolved):
            what = f"calls `{_display(info.name)}` on a value that must be concrete"
            yield EAGER_ONLY, condition, Hazard(what, line)
        for what, condition in self.python_value_arguments(resolved):
            yield EAGER_ONLY, condition, Hazard(what, line, python_value=True)
        numpy_name = numpy_function(resolved)
        if numpy_name is not None:
            value_lib = value_library(numpy_name) is not None
            for argument in _operands(site):
                if value_lib and not any(
                    is_tensor_like(a) for a in leaf_atoms(self.evaluator.eval(argument))
                ):
                    continue  # a library of Python values on a value not known as a tensor
                condition = self.of(argument)
                for param in sorted(condition.params):
                    # Only what comes from a parameter, as for the function itself.
                    hazard = Hazard(
                        f"applies `{_display(numpy_name)}`{_value_library_note(numpy_name)} "
                        f"to a value derived from {_describe(param)}",
                        line,
                    )
                    yield NUMPY, Symbolic(condition.always, frozenset({param})), hazard

    def python_value_arguments(self, resolved: ResolvedCall) -> Iterator[tuple[str, Symbolic]]:
        """Calls that need a Python value where a symbolic tensor fails, with when it is one:
        the framework's `value_reading_builtins` (`bool(t)`, `max(t, 1)`, which AutoGraph
        leaves alone and which raise on a symbolic tensor; `float(t)`, `range(t)`, graph
        breaks under torch.compile), and the configuration of a Keras
        layer (`Dense(int(n))`: Keras validates `units` as a Python int). With `key=`, what
        `max`/`sorted` compare is the key's result: not judged here."""
        if not resolved.api:
            return  # a call the tables do not describe (most): nothing to read its operands for
        operands = list(_operands(resolved.site))
        keyed = any(name == "key" for name, _ in resolved.site.kwargs)
        # `float(t)` is a cast under AutoGraph, a read of the value under torch.compile.
        framework = self.index.function_framework(self.key)
        for info in resolved.api:
            if info.name in framework.value_reading_builtins and operands and not keyed:
                what = f"calls `{_display(info.name)}` on a value that is a tensor in a graph"
                yield f"{what}: {framework.value_read_failure}", self.union(operands)
            elif configures_layer(info):
                yield (
                    f"configures `{_display(info.name)}` with a value that is a tensor in a "
                    "graph (`int()`/`len()` of a tensor give a tensor there), where "
                    f"{_layer_library(info)} needs a Python value",
                    self.union(operands),
                )

    def tensor_range_loops(self) -> Iterator[tuple[Span, str, Symbolic]]:
        """Loops over `range(n)` that break when `n` is a tensor, with when it is one.

        AutoGraph turns `range(t)` into `tf.range`: a `for` statement over it becomes a
        `tf.while_loop`, whose body cannot grow a Python list (InaccessibleTensorError), and
        a comprehension iterates the symbolic tensor in Python, which raises
        (`Framework.range_loop_break`, `range_comprehension_break`: their words). None where
        `range(t)` itself reads the value (`python_value_arguments`)."""
        framework = self.index.function_framework(self.key)
        for loop in self.fn.loops:
            iterable = loop.iterable
            resolved = self.by_index.get(iterable[1]) if is_call(iterable) else None
            if resolved is None or not any(i.name == "builtins.range" for i in resolved.api):
                continue
            condition = self.union(_operands(resolved.site))
            if not (condition.always or condition.params):
                continue
            if loop.comprehension:
                if framework.range_comprehension_break is not None:
                    yield loop.span, framework.range_comprehension_break, condition
            elif framework.range_loop_break is not None and self._grows_a_list_within(loop.span):
                yield loop.span, framework.range_loop_break, condition

    def _grows_a_list_within(self, span: Span) -> bool:
        """A Python list grown (`append`, `extend`, `insert`) by a call inside `span`."""
        for resolved in self.calls:
            callee = resolved.site.callee
            if (
                is_attr(callee)
                and callee[2] in LIST_GROWERS
                and span.encloses(resolved.site.span)
                and any(a[0] in PYTHON_SEQUENCE_KINDS for a in self.evaluator.eval(callee[1]))
            ):
                return True
        return False

    def python_indexing(self) -> Iterator[tuple[Sym, Symbolic, str]]:
        """Python lists, tuples and ranges indexed by a value, with when that value is a
        symbolic tensor (`items[int(t)]` raises TypeError in a graph).

        Dicts and strings count where the index is a tensor in any graph (a `tf.range` loop's
        variable, `int(t)` of an op's result): a symbolic tensor is no dict key (unhashable)
        and no string index. An index known only from a parameter is left out for them:
        dicts and strings are mostly indexed by names, which a parameter of unknown kind
        is more likely to hold than a tensor."""
        for sym in _items(self.evaluator):
            if kind_of(sym[2]) in ("lit", "slice"):
                continue
            bases = self.evaluator.eval(sym[1])
            if not bases:
                continue
            sequence = all(a[0] in PYTHON_SEQUENCE_KINDS for a in bases)
            if not sequence and not all(_is_mapping_or_string(a) for a in bases):
                continue
            condition = self.of(sym[2])
            if not condition.always and not (sequence and condition.params):
                continue
            loop_variable = self._tensor_loop_variable(sym[2])
            if not sequence and not loop_variable and not self._tensor_key(sym[2]):
                continue
            if loop_variable:
                container = "list or tuple" if sequence else "dict or string"
                framework = self.index.function_framework(self.key)
                what = framework.loop_variable_index_break or INDEXING
                yield sym, condition, what.format(container=container)
            else:
                yield sym, condition, INDEXING if sequence else MAPPING_INDEXING

    def numpy_indexing(self) -> Iterator[tuple[Span, Symbolic, str]]:
        """NumPy arrays indexed (or sliced) by a value, with when that value is a symbolic
        tensor: NumPy converts the index, which a symbolic tensor cannot be
        (`NotImplementedError: Cannot convert a symbolic tf.Tensor to a numpy array`, measured
        on TF 2.21 for `DATA[idx]` with `DATA` a module's array and `idx` an argument; astroNN's
        data generators index their arrays with the batch's indices so)."""
        for sym in _items(self.evaluator):
            if kind_of(sym[2]) == "lit":
                continue
            bases = self.evaluator.eval(sym[1])
            if not bases or not all(is_numpy_atom(a) for a in bases):
                continue
            condition = self.of(sym[2])
            if condition.always or condition.params:
                span = self.fn.index_reads.get(sym, self.fn.span)
                yield span, condition, NUMPY_INDEXING

    def _subscripts(self, sym: Sym) -> Symbolic:
        """When an index the value is read with (`inputs[name][idx]`, through its items
        and attributes) is a symbolic tensor. Whatever the indexed value is, the result then
        cannot go into a NumPy array: a NumPy array or Python list cannot be indexed with
        it, and a tensor indexed with it gives a symbolic tensor."""
        found = CONCRETE
        for _ in range(MAX_NESTING):
            if kind_of(sym) == "item":
                found = found | self.of(sym[2])
            elif kind_of(sym) != "attr":
                break
            sym = sym[1]
        return found

    def numpy_item_stores(self) -> Iterator[tuple[Span, Symbolic, str]]:
        """Items of a NumPy array written with a value, with when that value is a symbolic
        tensor: the helper's side of `safety._numpy_item_stores` (which reports the function's
        own stores), so a caller that hands the helper its tensors fails with it."""
        for store in self.fn.stores:
            if store.kind != "item":
                continue
            if not _numpy_array(self.evaluator.eval(store.target)):
                continue
            condition = self.of(store.value) | self._subscripts(store.value)
            if condition.always or condition.params:
                yield store.span, condition, NUMPY_STORE

    def _tensor_key(self, sym: Sym) -> bool:
        """Whether a dict key or string index may be a tensor, and is no string: a name
        bound to strings in one place and (imprecisely) to tensors in another is a string
        key, as dicts are mostly keyed (`features[name]`)."""
        atoms = self.evaluator.eval(sym)
        return self._may_be_tensor(sym) and not any(a[:2] == ("lit", "str") for a in atoms)

    def _tensor_loop_variable(self, sym: Sym) -> bool:
        """Whether `sym` is the variable of a `for` loop over a tensor (`tf.range`) or over
        `range()` of one (each binding of the name is such an element), or a local a loop
        the compiler runs as a graph loop carries (`_carried`)."""
        if kind_of(sym) not in ("local", "name"):
            return False
        carried = self._carried(sym[1])
        if carried.always or carried.params:
            return True
        bound = self.fn.locals.get(sym[1], ())
        return bool(bound) and all(
            is_iter(value)
            and (self._tensor_range_bounds(value[1]) is not None or self._may_be_tensor(value[1]))
            for value in bound
        )

    def concrete_arguments(self, resolved: ResolvedCall) -> Iterator[tuple[ApiInfo, Symbolic]]:
        """APIs of a call that need concrete arguments, with when those are symbolic."""
        for info in resolved.api:
            if info.concrete_args:
                yield info, self.union(_selected(resolved.site, info.concrete_args))

    def lifted(self, resolved: ResolvedCall) -> Iterator[tuple[str, Symbolic, Hazard]]:
        """The hazards of the project functions a call runs, in this function's terms: the
        functions it calls, and callbacks that the API runs in this function's mode."""
        line = resolved.site.span.start_line
        for kind, target in callees(self.index, resolved):
            summary = self.helpers.summaries.get(target)
            if summary is None or target == self.key:
                continue  # a call of itself adds nothing it does not do already
            name = self.index.function(target).qualname
            for fact, hazard in summary.always.items():
                yield fact, ALWAYS, _via(target, name, hazard, line)
            written: dict[FunctionKey, dict[str, frozenset[Sym]]] = {}  # the call bound once
            for fact, by_param in summary.when.items():
                for param, hazard in by_param.items():
                    condition = self._argument(resolved, kind, target, param, written)
                    if condition.always or condition.params:
                        yield fact, condition, _via(target, name, hazard, line)
        for target in self._caller_mode_callbacks(resolved):
            summary = self.helpers.summaries.get(target)
            if summary is None or target == self.key:
                continue
            name = self.index.function(target).qualname
            for fact, hazard in summary.always.items():
                yield fact, ALWAYS, _via(target, name, hazard, line)
            for fact, by_param in summary.when.items():
                for param, hazard in by_param.items():
                    # The API hands the callback tensors (`tf.map_fn` slices, loop variables):
                    # symbolic in this function's graph; its closure variables are ours.
                    condition = self._closure_value(param) if param.startswith(CLOSURE) else ALWAYS
                    if condition.always or condition.params:
                        yield fact, condition, _via(target, name, hazard, line)

    def _caller_mode_callbacks(self, resolved: ResolvedCall) -> Iterator[FunctionKey]:
        """Project functions handed to an API that runs them in the caller's mode: traced
        into this function's graph when it is traced (`tf.map_fn`, `tf.cond`, `tf.scan`).
        Sorted: a value's atoms are a set in hash order, and the first hazard found through
        them, and the path its finding names, must not change between runs."""
        for info in resolved.api:
            if info.traces_callbacks or not info.callback_args:
                continue
            for sym in _selected(resolved.site, info.callback_args):
                atoms = self.evaluator.eval(sym)
                yield from sorted(
                    (a[1] for a in atoms if kind_of(a) in ("func", "method")), key=str
                )


def _without(table: dict[FunctionKey, _T], keys: Collection[FunctionKey]) -> dict[FunctionKey, _T]:
    """`table` without `keys` (changed in place)."""
    for key in keys:
        table.pop(key, None)
    return table


def _describe(param: str) -> str:
    """A parameter, or a variable of an enclosing function, in words."""
    if param.startswith(CLOSURE):
        return f"`{param.removeprefix(CLOSURE)}` of an enclosing function"
    return f"`{param}`"


def _via(target: FunctionKey, callee: str, hazard: Hazard, line: int) -> Hazard:
    """A callee's hazard as the caller's, at the line of the call (the callee's line with
    its file: `cited_line`, which an edit that moves it moves)."""
    return Hazard(
        f"calls `{callee}` (line {cited_line(target.file, hazard.line)}), which {hazard.what}",
        line,
        hazard.python_value,
    )


def _tensor_if(atoms: Iterable[tuple]) -> Symbolic:
    """Symbolic in any graph when the value is a tensor (or a variable)."""
    return ALWAYS if any(a[0] in SYMBOLIC_KINDS for a in atoms) else CONCRETE


def _is_mapping_or_string(atom: Atom) -> bool:
    """A Python dict or string: indexed by a symbolic tensor, it raises in a graph."""
    return is_dict_atom(atom) or (is_lit_atom(atom) and lit_type(atom) == "str")


def _operands(site: CallSite) -> Iterator[Sym]:
    yield from site.args
    for _, value in site.kwargs:
        yield value
