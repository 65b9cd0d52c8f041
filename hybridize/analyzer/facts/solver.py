"""The solver of the tensor analysis: the project-wide fixed point of the facts.

Each function's evaluation (`evaluator.py`) yields a `Contribution`: evidence for the
parameters of the functions it calls, its return value, the attributes it stores on `self`.
`Aggregate` joins every function's latest contribution into `TensorFacts`, one contribution
at a time, and `Solver` iterates: after the first round only the functions that read a fact
that changed are evaluated again, in sweeps that take callers first and callees first in
turn (evidence flows down, returns up); an entry still changing past WIDEN_AFTER rounds is
widened, so that the iteration ends; a final phase makes missing facts explicit unknowns. `Solver.update`
re-solves only what an edit can reach (the language server's incremental analysis).
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from typing import TypeVar

from hybridize.analyzer import budget
from hybridize.analyzer.budget import BudgetExceeded, StepWatch, step_watch
from hybridize.analyzer.facts.atom_bounds import (
    MAX_SHRUNK,
    CutEntry,
    cap_atoms,
    collapse_container,
    join_capped,
    merge_tensor_specs,
)
from hybridize.analyzer.facts.evaluator import (
    RECEIVER_BINDING_KINDS,
    Evaluator,
    LiteralSite,
    ResolvedCall,
    TensorFacts,
    argument_at,
    bind_arguments,
    bind_written_through,
    callback_atoms,
    callees,
    calls_written,
    get_evaluator,
    iterated_atoms,
    modules_replaced,
    param_layout,
    solution_evaluators,
)
from hybridize.analyzer.facts.mapped_structures import callback_parameter_arguments
from hybridize.analyzer.facts.predicates import is_primitive, is_unknown
from hybridize.analyzer.facts.refs import is_ext_ref
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.test_parameters import (
    PYTEST_PARAMETRIZE,
    absl_cases,
    is_tuple_display,
    pytest_cases,
    receives_cases,
)
from hybridize.analyzer.facts.values import (
    CONTAINER_KINDS,
    MAX_FINAL_ROUNDS,
    MAX_ROUNDS,
    NO_ATOMS,
    NONE_ATOM,
    UNKNOWN_ATOM,
    WIDEN_AFTER,
    Atom,
    AtomKind,
    Atoms,
    Dep,
    PartialConfig,
    atoms_for_return,
    canonical,
    dict_atom,
    is_dict_atom,
    is_func_atom,
    is_method_atom,
    is_obj_atom,
    is_tup_atom,
    keyed_dict_atom,
    lit_atom,
    partial_args,
    partial_keywords,
    seq_atom,
    tup_atom,
)
from hybridize.analyzer.frameworks.framework import compiler_named
from hybridize.analyzer.summaries.ir import CallSite, FunctionSummary, Sym
from hybridize.analyzer.summaries.keys import ClassKey, FunctionKey
from hybridize.analyzer.summaries.line_shift import LineShift
from hybridize.analyzer.summaries.syms import (
    UNKNOWN,
    attr_base,
    is_attr,
    is_lit,
    is_seq,
    kind_of,
    local_sym,
    name_sym,
    param_sym,
    seq_sym,
)
from hybridize.model import Span


@dataclass(slots=True)
class Contribution:
    """What evaluating one function adds to the project-wide solution in a round."""

    calls: list[ResolvedCall] = field(default_factory=list)
    evidence: list[tuple[FunctionKey, str, Atoms, bool]] = field(default_factory=list)
    """(callee, parameter, argument atoms, from outside the callee)"""
    primitive: list[_Entry] = field(default_factory=list)
    unknown_kind: list[_Entry] = field(default_factory=list)
    literal_sites: list[tuple[FunctionKey, str, bool, Span, Sym]] = field(default_factory=list)
    """(callee, parameter, whether the kind is unknown rather than literal, the call's span,
    the argument as written): the sites behind `primitive` and `unknown_kind`."""
    symbolic: list[_Entry] = field(default_factory=list)
    callees: list[FunctionKey] = field(default_factory=list)
    callbacks: list[tuple[FunctionKey, bool]] = field(default_factory=list)
    """Callables handed to a framework API, and whether it traces them whatever the caller's
    mode (`Dataset.map`) or runs them in the caller's mode (`tf.map_fn`)."""
    wrapped: list[tuple[FunctionKey, frozenset[str]]] = field(default_factory=list)
    wrapper_signatures: list[tuple[FunctionKey, Sym]] = field(default_factory=list)
    """`tf.function(g, input_signature=...)`: g and the signature, in this caller's scope."""
    """Functions compiled by `tf.function(g, ...)`, with the arguments that call supplies."""
    attrs: list[tuple[ClassKey, str, Atoms]] = field(default_factory=list)
    returns: Atoms = NO_ATOMS


def _evaluate(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey
) -> tuple[Contribution, set[Dep]]:
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
        returned = {seq_atom("generator", cap_atoms(yielded or {UNKNOWN_ATOM}))}
    out.returns = merge_tensor_specs(cap_atoms(returned)) if returned else frozenset({NONE_ATOM})
    if evaluator.class_key is not None and fn.binds_receiver and fn.params:
        receiver = fn.params[0].name
        selves = (local_sym(receiver), param_sym(receiver))
        for store in fn.stores:
            if store.kind == "attr" and store.target in selves:
                out.attrs.append((evaluator.class_key, store.name, evaluator.eval(store.value)))
            elif (
                store.kind == "item" and is_attr(store.target) and attr_base(store.target) in selves
            ):
                # `self.heads["a"] = Dense(1)`: the dict attribute holds the value too.
                held = dict_atom(evaluator.eval(store.value))
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
    key: FunctionKey,
    fn: FunctionSummary,
    out: Contribution,
    evaluator: Evaluator,
) -> None:
    """A parameterized test's cases (`test_parameters`) are calls of it: evidence for its
    parameters, evaluated where its decorators are (the enclosing scope)."""
    relpath = key.file
    owner = get_evaluator(index, facts, index.owner_key(key))
    body = index.modules[relpath].functions.get(f"{fn.class_qualname}.<body>")
    if body is not None:
        # A method's decorators run in its class body: they may name the body's own
        # attributes (`_sharded_nms = edgetpu.non_max_suppression_padded`, then
        # `parameters((8, _sharded_nms))`). The summary wrote them in the enclosing scope (its
        # call indices are that scope's), where such a name is unresolved: a fresh evaluator
        # of that scope gets those names' values from the body's evaluator.
        body_evaluator = get_evaluator(index, facts, FunctionKey(relpath, body.qualname))
        owner = Evaluator(index, facts, index.owner_key(key))
        for name in body.locals:
            owner.memo[name_sym(name)] = body_evaluator.eval(local_sym(name))
        evaluator.read_through(body_evaluator)
    for decorator in fn.decorators:
        if not decorator.called:
            continue
        ref = index.resolve_dotted(relpath, decorator.name)
        if not is_ext_ref(ref):
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
    evaluator.read_through(owner)


CONTAINER_GROWERS = frozenset(
    {"append", "appendleft", "add", "insert", "extend", "update", "add_module"}
)


def _grown_attribute(
    evaluator: Evaluator, site: CallSite, selves: tuple[Sym, ...]
) -> tuple[str, Atoms] | None:
    """`self.blocks.append(layer)` (or `extend`, `insert`, `update`, a module container's
    `add_module(name, layer)`): the container kept in
    attribute `blocks` now holds `layer` too, as `items.append(x)` does for a local."""
    callee = site.callee
    if (
        not is_attr(callee)
        or callee[2] not in CONTAINER_GROWERS
        or not is_attr(callee[1])
        or callee[1][1] not in selves
        or not site.args
    ):
        return None
    if callee[2] in ("extend", "update"):
        elements: set[Atom] = set()
        for atom in evaluator.eval(site.args[0]):
            if is_dict_atom(atom):
                elements |= atom[1]
            else:
                elements.update(iterated_atoms(atom))
    else:
        elements = set(evaluator.eval(site.args[-1]))
    return callee[1][2], frozenset({seq_atom("list", cap_atoms(elements))})


OPTIMISTIC: Dep = ("optimistic", FunctionKey("", ""))
"""Marks an evaluation that read a missing fact optimistically: the final round redoes it."""


def _evaluate_guarded(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, watch: StepWatch | None = None
) -> tuple[Contribution, set[Dep]]:
    """`_evaluate`, with a defect of the analysis confined to the function it happened in:
    an exception, or an evaluation that runs past its CPU budget (`watch`). The function
    then contributes nothing and returns what is not known.

    An evaluation cut by the budget is not tried again in the same solve: the rounds that
    follow would each run it past the budget again (torch-harmonics' U-Net blocks, before
    their values were bounded: 217 s of CPU for the analysis, 68 s with each cut once), and
    its facts stay unknown either way."""
    if key in facts.past_budget:
        return Contribution(returns=frozenset({UNKNOWN_ATOM})), {("params", key)}
    try:
        if watch is not None:
            watch.step()
        try:
            return _evaluate(index, facts, key)
        finally:
            if watch is not None:
                watch.idle()
    except (RecursionError, Exception) as exc:
        if isinstance(exc, BudgetExceeded):
            facts.internal_errors[key] = f"its evaluation {exc}"
            facts.past_budget.add(key)
        else:
            facts.internal_errors[key] = f"{type(exc).__name__}: {exc} (please report it)"
        return Contribution(returns=frozenset({UNKNOWN_ATOM})), {("params", key)}


_Entry = tuple[FunctionKey, str]
"""An entry of a counted or marked table: a function's parameter, or a class's attribute."""

_Groups = tuple[
    dict[_Entry, set[Atom]],
    dict[_Entry, set[Atom]],
    dict[_Entry, set[Atom]],
]
"""A contribution's atoms per entry of the counted tables: parameter evidence, evidence
from outside the callee, class attributes."""

_NO_GROUPS: _Groups = ({}, {}, {})

_NO_ENTRIES: tuple[frozenset[_Entry], ...] = (frozenset(),) * 3

_NOTHING_UNCHANGED = (False, False, False, False)
"""`Aggregate._apply` of a contribution that replaces none, or that none replaces."""


def _grouped(c: Contribution) -> _Groups:
    """The atoms `c` gives each entry of the counted tables (one entry may get several)."""
    if not c.evidence and not c.attrs:
        return _NO_GROUPS
    evidence: dict[_Entry, set[Atom]] = {}
    outside: dict[_Entry, set[Atom]] = {}
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
    stored: dict[_Entry, set[Atom]] = {}
    for class_key, attr, atoms in c.attrs:
        stored.setdefault((class_key, attr), set()).update(atoms)
    return evidence, outside, stored


def _entries(c: Contribution) -> tuple[set[_Entry], ...]:
    """The entries of the counted tables `c` gives atoms to (the keys of `_grouped(c)`): what
    replacing it must take out. Their atoms are in the tables themselves."""
    evidence = {(callee, name) for callee, name, _atoms, _outside in c.evidence}
    outside = {(callee, name) for callee, name, _atoms, from_outside in c.evidence if from_outside}
    return evidence, outside, {(class_key, attr) for class_key, attr, _atoms in c.attrs}


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

    def __init__(self, order: dict[FunctionKey, int]) -> None:
        self.order = order
        self.contributions: dict[FunctionKey, Contribution] = {}
        self.params: dict[_Entry, dict[FunctionKey, Atoms]] = {}
        self.external: dict[_Entry, dict[FunctionKey, Atoms]] = {}
        self.attrs: dict[_Entry, dict[FunctionKey, Atoms]] = {}
        self.joined: dict[str, dict[_Entry, dict[Atom, int]]] = {
            "params": {},
            "external": {},
            "attrs": {},
        }
        """Per table above (by its label in `CutEntry`) and entry: how many contributors give each atom. The entry's join
        is then the atoms counted, kept up to date as contributions come and go, instead of
        a union over every contributor each time one changes (a callee with thousands of
        callers, published after each evaluation, made that quadratic)."""
        self.primitive: dict[_Entry, set[FunctionKey]] = {}
        self.unknown_kind: dict[_Entry, set[FunctionKey]] = {}
        self.symbolic: dict[_Entry, set[FunctionKey]] = {}
        self.literal: dict[_Entry, dict[FunctionKey, list[LiteralSite]]] = {}
        self.callees: dict[FunctionKey, dict[FunctionKey, int]] = {}
        self.callbacks: dict[FunctionKey, dict[FunctionKey, tuple[bool, bool]]] = {}
        self.wrapped: dict[FunctionKey, dict[FunctionKey, frozenset[str]]] = {}
        self.signatures: dict[FunctionKey, dict[FunctionKey, Sym]] = {}
        self.changes: dict[CutEntry, tuple[int, int]] = {}
        """Per entry of the facts (returns as ("ret", caller, "")): in how many rounds of the
        current phase its published value changed, and the last of them."""
        self.wide: set[CutEntry] = set()
        """The entries that changed in more than WIDEN_AFTER rounds of a phase: from then on
        they are widened and joined with their last value (`_settle`), for the whole solve."""
        self.cut: dict[CutEntry, bool] = {}
        """The widened entries cut at MAX_ATOMS (`join_capped`): they stay cut."""
        self.fresh: dict[CutEntry, set[Atom]] = {}
        """Per widened entry of the tables above: the atoms its contributors gave since it was
        last published. A widened entry only grows, so only those can change it (a callee
        with thousands of callers widened, and joined again from all of them at each
        publication, once took most of `keras/src`'s solve)."""
        self.journal: FactJournal | None = None
        """While `Solver.update` runs: the entries of the facts as they were before it."""
        self.edges_version = 0
        """Counts the replacements that may have changed the call graph the tables `callees`
        and `callbacks` make (`Solver._calls_first_order` is computed again only then)."""

    # ---------------------------------------------------------------- contributors

    def replace(
        self, caller: FunctionKey, contribution: Contribution | None, touched: _Touched
    ) -> None:
        """Put `contribution` in place of the caller's last one (None: the caller is gone),
        adding the entries that may change to `touched`.

        The counted tables (parameter evidence, external evidence, attributes) are replaced
        entry by entry: an entry to which the caller gives the same atoms as before is left
        alone, untouched, unless it is widened (its `fresh` atoms depend on the removal and
        the addition). A function evaluated again mostly gives the same evidence, and
        counting it out and in again, then publishing an unchanged join, took a fifth of
        `keras/src`'s solve; the published value of an entry not widened is its join, which
        an equal contribution leaves as it is."""
        old = self.contributions.pop(caller, None)
        if (
            old is None
            or contribution is None
            or old.callees != contribution.callees
            or old.callbacks != contribution.callbacks
        ):
            self.edges_version += 1
        old_entries = _NO_ENTRIES if old is None else _entries(old)
        new_groups = _NO_GROUPS if contribution is None else _grouped(contribution)
        for label, table, old_found, new_found, names in (
            ("params", self.params, old_entries[0], new_groups[0], touched.params),
            ("external", self.external, old_entries[1], new_groups[1], touched.external),
            ("attrs", self.attrs, old_entries[2], new_groups[2], touched.attrs),
        ):
            if old_found or new_found:
                self._replace_counted(label, table, caller, old_found, new_found, names)
        # The other tables keep what each caller gives as given: a part equal to the old
        # contribution's is left as it is (its removal and addition would cancel out).
        unchanged = _NOTHING_UNCHANGED
        if old is not None and contribution is not None:
            unchanged = (
                old.primitive == contribution.primitive
                and old.unknown_kind == contribution.unknown_kind
                and old.symbolic == contribution.symbolic,
                old.literal_sites == contribution.literal_sites,
                old.callees == contribution.callees,
                old.callbacks == contribution.callbacks
                and old.wrapped == contribution.wrapped
                and old.wrapper_signatures == contribution.wrapper_signatures,
            )
        if old is not None:
            self._apply(caller, old, touched, unchanged, remove=True)
        if contribution is not None:
            self.contributions[caller] = contribution
            self._apply(caller, contribution, touched, unchanged, remove=False)
        touched.returns.add(caller)

    def _apply(
        self,
        caller: FunctionKey,
        c: Contribution,
        touched: _Touched,
        unchanged: tuple[bool, bool, bool, bool],
        *,
        remove: bool,
    ) -> None:
        """Add (or remove) what a contribution gives to the tables that are not counted
        (`replace` does the counted ones), but for the parts `unchanged` marks: the marks
        (primitive, unknown kind, symbolic), the literal sites, the callees, the callbacks
        and wrappers."""
        marks_unchanged, sites_unchanged, callees_unchanged, callbacks_unchanged = unchanged
        if (c.primitive or c.unknown_kind or c.symbolic) and not marks_unchanged:
            for table, pairs, names in (
                (self.primitive, c.primitive, touched.primitive),
                (self.unknown_kind, c.unknown_kind, touched.unknown_kind),
                (self.symbolic, c.symbolic, touched.symbolic),
            ):
                for pair in pairs:
                    _mark(table, pair, caller, remove)
                    names.add(pair)
        if c.literal_sites and not sites_unchanged:
            self._apply_sites(caller, c, touched, remove)
        if c.callees and not callees_unchanged:
            self._apply_callees(caller, c, touched, remove)
        if (c.callbacks or c.wrapped or c.wrapper_signatures) and not callbacks_unchanged:
            self._apply_callbacks(caller, c, touched, remove)

    def _apply_sites(
        self, caller: FunctionKey, c: Contribution, touched: _Touched, remove: bool
    ) -> None:
        sites: dict[_Entry, list[LiteralSite]] = {}
        for callee, name, unknown, span, argument in c.literal_sites:
            sites.setdefault((callee, name), []).append(
                LiteralSite(caller, span, argument, unknown)
            )
        for pair, found in sites.items():
            _put(self.literal, pair, caller, found, remove)
            touched.literal.add(pair)

    def _apply_callees(
        self, caller: FunctionKey, c: Contribution, touched: _Touched, remove: bool
    ) -> None:
        counts: dict[FunctionKey, int] = {}
        for callee in c.callees:
            counts[callee] = counts.get(callee, 0) + 1
        for callee, count in counts.items():
            _put(self.callees, callee, caller, count, remove)
            touched.callees.add(callee)

    def _apply_callbacks(
        self, caller: FunctionKey, c: Contribution, touched: _Touched, remove: bool
    ) -> None:
        modes: dict[FunctionKey, tuple[bool, bool]] = {}
        for callee, always_traced in c.callbacks:
            traced, in_mode = modes.get(callee, (False, False))
            modes[callee] = (traced or always_traced, in_mode or not always_traced)
        for callee, mode in modes.items():
            _put(self.callbacks, callee, caller, mode, remove)
            touched.callbacks.add(callee)
        supplied_by: dict[FunctionKey, frozenset[str]] = {}
        for wrapped, supplied in c.wrapped:
            supplied_by[wrapped] = supplied_by.get(wrapped, frozenset()) | supplied
        for wrapped, supplied in supplied_by.items():
            _put(self.wrapped, wrapped, caller, supplied, remove)
            touched.wrapped.add(wrapped)
        last: dict[FunctionKey, Sym] = {}
        for wrapped, signature in c.wrapper_signatures:
            last[wrapped] = signature
        for wrapped, signature in last.items():
            _put(self.signatures, wrapped, caller, signature, remove)
            touched.signatures.add(wrapped)

    def _replace_counted(
        self,
        label: str,
        table: dict[_Entry, dict[FunctionKey, Atoms]],
        caller: FunctionKey,
        old_found: Collection[_Entry],
        new_found: dict[_Entry, set[Atom]],
        touched: set[_Entry],
    ) -> None:
        """The caller's entries of one counted table go from `old_found` to `new_found`,
        keeping the atom counts (`joined`) and the fresh atoms of widened entries (`fresh`)
        as removing every old entry and then adding every new one would; an entry given the
        same atoms, and not widened, is skipped (see `replace`)."""
        counts = self.joined[label]
        wide = self.wide
        for pair in old_found:
            if pair in new_found:
                continue
            by_caller = table.get(pair)
            previous = by_caller.get(caller) if by_caller is not None else None
            if previous is not None:
                _count(counts, pair, previous, -1)
            _put(table, pair, caller, NO_ATOMS, True)
            touched.add(pair)
        for pair, atoms in new_found.items():
            by_caller = table.get(pair)
            previous = by_caller.get(caller) if by_caller is not None else None
            entry = (label, *pair) if wide else None
            if previous is not None:
                if previous == atoms and (entry is None or entry not in wide):
                    continue
                _count(counts, pair, previous, -1)
                # Where a removal then an addition leaves the caller: last.
                _put(table, pair, caller, NO_ATOMS, True)
            added = _count(counts, pair, atoms, 1)
            if added and entry is not None and entry in wide:
                self.fresh.setdefault(entry, set()).update(added)
            _put(table, pair, caller, frozenset(atoms), False)
            touched.add(pair)

    # ---------------------------------------------------------------- facts

    def start_phase(self) -> None:
        """A phase of the fixed point begins: every entry may change WIDEN_AFTER more rounds
        before it is widened (those widened already stay so)."""
        self.changes.clear()

    def publish(
        self,
        facts: TensorFacts,
        touched: _Touched,
        *,
        within_round: _Touched | None = None,
        changed_names: dict[Dep, set[str]] | None = None,
    ) -> set[Dep]:
        """Write the touched entries into `facts`; return the facts that changed.
        `within_round`: a publication within a round already counted (`Solver._sweep`), which
        leaves the tables no evaluation reads to `publish_unread` at the round's end,
        collected there; without it, a round of its own. `changed_names` gains, per changed
        fact of parameters or attributes, the names whose entry changed (what
        `Evaluator.names` is compared with)."""
        if within_round is None:
            facts.rounds += 1
        if self.journal is not None:
            self.journal.note(facts, touched)
        changed: set[Dep] = set()
        calls_written(facts, touched.returns)
        for caller in touched.returns:
            contribution = self.contributions.get(caller)
            entry = ("ret", caller, "")
            old = facts.returns.get(caller)
            if contribution is None:
                facts.calls.pop(caller, None)
                if entry not in self.wide:
                    if facts.returns.pop(caller, None) is not None:
                        changed.add(("ret", caller))
                    continue
                returns = NO_ATOMS
            else:
                facts.calls[caller] = contribution.calls
                returns = contribution.returns
            value = frozenset(self._settle(facts, entry, returns, old, counted=False))
            if value != old:
                changed.add(("ret", caller))
            facts.returns[caller] = value
        for table, pairs, target, label, kind in (
            (self.params, touched.params, facts.param_atoms, "params", "params"),
            (self.external, touched.external, facts.external_evidence, "external", ""),
            (self.attrs, touched.attrs, facts.attrs, "attrs", "attrs"),
        ):
            by_key: dict[FunctionKey, list[str]] = {}
            # Sorted: the order in which names enter an entry is the order later stages
            # meet them in, and a set of strings iterates in an order set by string hashing.
            for key, name in sorted(pairs):
                by_key.setdefault(key, []).append(name)
            joined = self.joined[label]
            for key, names in by_key.items():
                entries = target.get(key)
                differs = False
                for name in names:
                    old_atoms = entries.get(name) if entries is not None else None
                    entry = (label, key, name)
                    if (key, name) not in table and entry not in self.wide:
                        if entries is not None:
                            entries.pop(name, None)
                        if old_atoms:
                            differs = True
                            if kind and changed_names is not None:
                                changed_names.setdefault((kind, key), set()).add(name)
                        continue
                    if entries is None:
                        entries = target[key] = defaultdict(set)
                    new = self._settle(facts, entry, joined.get((key, name), ()), old_atoms)
                    entries[name] = new
                    if new != (old_atoms or set()):
                        differs = True
                        if kind and changed_names is not None:
                            changed_names.setdefault((kind, key), set()).add(name)
                if entries is not None and not entries:
                    del target[key]
                if kind and differs:
                    changed.add((kind, key))
        if within_round is None:
            self.publish_unread(facts, touched)
        else:
            touched.unread_into(within_round)
        return changed

    def _settle(
        self,
        facts: TensorFacts,
        entry: CutEntry,
        joined: Iterable[Atom],
        old: AbstractSet[Atom] | None,
        *,
        counted: bool = True,
    ) -> set[Atom]:
        """The value an entry of the facts takes: its contributors' join, or, once it has
        changed in more than WIDEN_AFTER rounds of a phase, that join widened and joined
        with its last value. `counted`: an entry of the counted tables, whose widened form
        is fed by `fresh` (a return has one contributor, `joined`).

        Flow-insensitive values that feed themselves through calls (`x = tf.concat([x, y],
        0)` in a loop, a state passed to a recursive call nesting one tuple deeper) take a
        new shape or value every round and never settle. Widened, an entry ranges over a
        finite shallow domain and only grows, so it settles; an entry that keeps changing
        is widened, so the iteration ends. Only those entries lose their shapes and literal
        values: the rest of the project keeps the precise solution (widening every fact at
        once, as before, also set off a round that evaluated most of the project again).
        The atoms are widened before they are joined and capped at MAX_ATOMS: tensors that
        differ only in shape are one atom, not many that overflow the cap."""
        if entry in self.wide:
            added: Iterable[Atom]
            if counted:
                added = self.fresh.pop(entry, ())
                if not added and old is not None:
                    return set(old)
            else:
                added = joined
            new = {_widen(a) for a in added}
        else:
            new = set(joined)
            if new == (old or set()):
                return new
            counted_rounds = self.changes.get(entry)
            if counted_rounds is not None and counted_rounds[1] == facts.rounds:
                return new
            rounds = 1 if counted_rounds is None else counted_rounds[0] + 1
            self.changes[entry] = (rounds, facts.rounds)
            if rounds <= WIDEN_AFTER:
                return new
            self.wide.add(entry)
            new = {_widen(a) for a in new}
        if old:
            new |= old
        return {_widen(a) for a in join_capped(new, self.cut, entry)}

    def publish_unread(self, facts: TensorFacts, touched: _Touched) -> None:
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
        for callee, name in sorted(touched.literal):
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
                facts.wrapped_by_compiler.discard(wrapped)
                facts.wrapper_arguments.pop(wrapped, None)
                continue
            facts.wrapped_by_compiler.add(wrapped)
            facts.wrapper_arguments[wrapped] = set().union(*supplied_by.values())
        for wrapped in touched.signatures:
            signature_by_caller = self.signatures.get(wrapped)
            if signature_by_caller is None:
                facts.wrapper_signatures.pop(wrapped, None)
                continue
            caller = max(signature_by_caller, key=self.order.__getitem__)
            facts.wrapper_signatures[wrapped] = (caller, signature_by_caller[caller])


@dataclass(slots=True)
class _Touched:
    """The entries of the aggregate that replacing contributions may have changed."""

    returns: set[FunctionKey] = field(default_factory=set)
    params: set[_Entry] = field(default_factory=set)
    external: set[_Entry] = field(default_factory=set)
    attrs: set[_Entry] = field(default_factory=set)
    primitive: set[_Entry] = field(default_factory=set)
    unknown_kind: set[_Entry] = field(default_factory=set)
    symbolic: set[_Entry] = field(default_factory=set)
    literal: set[_Entry] = field(default_factory=set)
    callees: set[FunctionKey] = field(default_factory=set)
    callbacks: set[FunctionKey] = field(default_factory=set)
    wrapped: set[FunctionKey] = field(default_factory=set)
    signatures: set[FunctionKey] = field(default_factory=set)

    def unread_into(self, other: _Touched) -> None:
        """Add the entries of the tables no evaluation reads to `other`'s."""
        other.primitive |= self.primitive
        other.unknown_kind |= self.unknown_kind
        other.symbolic |= self.symbolic
        other.literal |= self.literal
        other.callees |= self.callees
        other.callbacks |= self.callbacks
        other.wrapped |= self.wrapped
        other.signatures |= self.signatures


_MISSING = object()
"""A journal's record of an entry that was absent."""

_TOUCHED_TABLES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("returns", ("calls", "returns")),
    ("params", ("param_atoms",)),
    ("external", ("external_evidence",)),
    ("attrs", ("attrs",)),
    ("primitive", ("primitive_params",)),
    ("unknown_kind", ("unknown_kind_params",)),
    ("symbolic", ("symbolic_args",)),
    ("literal", ("literal_sites",)),
    ("callees", ("callers", "call_count")),
    ("callbacks", ("traced_callbacks", "caller_mode_callbacks", "callback_callers")),
    ("wrapped", ("wrapped_by_compiler", "wrapper_arguments")),
    ("signatures", ("wrapper_signatures",)),
)
"""Which tables of `TensorFacts` `Aggregate.publish` writes for each field of `_Touched`
(the entries of a pair field are those of its first element, the function)."""


class FactJournal:
    """The entries of the facts as they were before an incremental update, recorded as the
    update is about to write them: what the verdict phase compares afterwards
    (`verdict_scope.compare_facts`) costs what the update wrote, not the whole project.

    Each entry is recorded once, the first time it is written; dict and set entries are
    copied (the update replaces the sets and lists inside an entry, and adds to or removes
    from the entry itself). A `calls` entry that is another list is compared by value (a
    function evaluated again with the same inputs gives equal calls in a new list)."""

    def __init__(self, facts: TensorFacts) -> None:
        self.tables: dict[str, dict[FunctionKey, object]] = {}
        self.evaluators = dict(facts.evaluators)
        self.reset: set[FunctionKey] = set()
        """The functions whose code, or code they evaluate, the update got anew: the edited
        functions and those that evaluate their code (closures, readers of their
        globals). Any other function it evaluated again (even one it started from nothing, to
        drop a fact that only supported itself) reads only facts: its new evaluator differs
        from the old one only if one of those did."""

    def note(self, facts: TensorFacts, touched: _Touched) -> None:
        """Record the entries `touched` names that are not recorded yet."""
        for field_name, table_names in _TOUCHED_TABLES:
            entries = getattr(touched, field_name)
            if not entries:
                continue
            keys = {e if isinstance(e, FunctionKey) else e[0] for e in entries}
            for table_name in table_names:
                self.note_keys(facts, table_name, keys)

    def note_keys(self, facts: TensorFacts, table_name: str, keys: Iterable[FunctionKey]) -> None:
        table = getattr(facts, table_name)
        recorded = self.tables.setdefault(table_name, {})
        for key in keys:
            if key in recorded:
                continue
            if isinstance(table, set):
                recorded[key] = key in table
            else:
                value = table.get(key, _MISSING)
                recorded[key] = value.copy() if isinstance(value, dict | set) else value

    def changed_entries(self, facts: TensorFacts) -> dict[str, set[FunctionKey]]:
        """Per table, the recorded keys whose entry differs now."""
        found: dict[str, set[FunctionKey]] = {}
        for table_name, recorded in self.tables.items():
            table = getattr(facts, table_name)
            differing: set[FunctionKey] = set()
            for key, old in recorded.items():
                if isinstance(table, set):
                    if old != (key in table):
                        differing.add(key)
                    continue
                new = table.get(key, _MISSING)
                if old is not new and old != new:
                    differing.add(key)
            if differing:
                found[table_name] = differing
        return found

    def calls_before(self, facts: TensorFacts, key: FunctionKey) -> object:
        """A function's resolved calls as they were before the update."""
        recorded = self.tables.get("calls", {})
        if key not in recorded:
            return facts.calls.get(key, ())
        old = recorded[key]
        return () if old is _MISSING else old


_K = TypeVar("_K")
_V = TypeVar("_V")


def _count(
    counts: dict[_Entry, dict[Atom, int]],
    pair: _Entry,
    atoms: Iterable[Atom],
    step: int,
) -> list[Atom]:
    """Add `step` to the count of each of `atoms` in the entry `pair`; an entry whose atoms
    all count zero disappears (as its contributors did). Returns the atoms that were not
    counted before."""
    counted = counts.get(pair)
    if counted is None:
        counted = counts[pair] = {}
    added = []
    for atom in atoms:
        before = counted.get(atom, 0)
        n = before + step
        if n:
            counted[atom] = n
            if not before:
                added.append(atom)
        else:
            del counted[atom]
    if not counted:
        del counts[pair]
    return added


def _put(
    table: dict[_K, dict[FunctionKey, _V]], key: _K, caller: FunctionKey, value: _V, remove: bool
) -> None:
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
    table: dict[_Entry, set[FunctionKey]], pair: _Entry, caller: FunctionKey, remove: bool
) -> None:
    callers = table.setdefault(pair, set())
    if remove:
        callers.discard(caller)
        if not callers:
            del table[pair]
    else:
        callers.add(caller)


_WIDENED: dict[Atom, Atom] = {}
"""`_widen` of container atoms already seen (and `collapse_container` of nested ones). A
widened entry is widened again each time it is published, and the same container atoms come
back each time (on TensorFlow's own ops a quarter of the solver's time once went into
widening them again); widening is idempotent and a pure function of the atom."""


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
    kind: AtomKind = atom[0]
    if kind in ("tensor", "variable", "numpy") and len(atom) > 2 and atom[2] is not None:
        return (kind, atom[1], None, *atom[3:])
    if kind == "lit" and atom[1] in ("int", "float", "str") and atom[2] is not None:
        return lit_atom(atom[1])
    if kind in CONTAINER_KINDS and depth >= 1:
        return collapse_container(atom)
    if kind == "tup":
        parts = tuple(frozenset(_widen(a, depth + 1) for a in part) for part in atom[1])
        return tup_atom(parts, atom[2])
    if kind == "seq":
        return seq_atom(atom[1], frozenset(_widen(a, depth + 1) for a in atom[2]))
    if kind == "dict":
        values = frozenset(_widen(a, depth + 1) for a in atom[1])
        if len(atom) > 2:
            # keys kept as a tuple's positions are (`{"step": best}` returned, read by key)
            keyed = tuple((k, frozenset(_widen(a, depth + 1) for a in v)) for k, v in atom[2])
            return keyed_dict_atom(values, keyed)
        return dict_atom(values)
    return atom


class _OrderWithNewcomers:
    """A kept sweep order that places a function it does not know (added since) after every
    function it does, in project order. A view, not a copy: an update's sweeps are few and
    short, and copying the order would cost as much as the project is large."""

    __slots__ = ("order", "project")

    def __init__(self, order: dict[FunctionKey, int], project: dict[FunctionKey, int]) -> None:
        self.order = order
        self.project = project

    def __getitem__(self, key: FunctionKey) -> int:
        found = self.order.get(key)
        return found if found is not None else len(self.order) + self.project[key]


def solve(index: ProjectIndex) -> TensorFacts:
    """Iterate parameter evidence, return values and class attributes to a fixed point."""
    return Solver(index).facts


def project_keys(index: ProjectIndex) -> list[FunctionKey]:
    """Every function key of the project (module code first), in project order."""
    return index.function_keys()


class Solver:
    """The fixed point of the tensor facts, and what it needs to be solved again after an
    edit without starting over.

    A worklist: after the first round only the functions that read a fact that changed
    (a parameter's evidence, a callee's return, a class's attributes) are evaluated again,
    found through `readers` (fact -> the functions whose latest evaluation read it). A last
    phase then runs with unknowns made explicit. Rounds are Gauss-Seidel sweeps (`_sweep`:
    each evaluation publishes at once, callers and callees taken in turn first); an entry
    of the facts that keeps changing past WIDEN_AFTER rounds is widened
    (`Aggregate._settle`), which ends the iteration. What a function contributes depends
    only on the facts it read, recorded in `readers`, which is what makes `update` possible.
    """

    def __init__(self, index: ProjectIndex, *, updatable: bool = True) -> None:
        """Solve the facts of `index`; `updatable`: `update` may follow (a project kept open),
        else the facts keep nothing that serves only an update (`TensorFacts.updatable`)."""
        self.index = index
        self.facts = TensorFacts(updatable=updatable)
        self.keys = project_keys(index)
        self.aggregate = Aggregate({key: i for i, key in enumerate(self.keys)})
        self.deps: dict[FunctionKey, set[Dep]] = {}
        self.readers: dict[Dep, set[FunctionKey]] = defaultdict(set)
        self.names: dict[FunctionKey, dict[Dep, set[str]]] = {}
        """Per function, of the facts its latest evaluation read, those it read by name and
        the names (`Evaluator.names`; a fact absent was read whole, as all are by a function
        whose evaluation failed). Before the final phase a sweep wakes a reader of a changed
        fact only if the reader read it whole or read a name that changed (`_wakes`):
        evaluated again on the same inputs, a function gives the same contribution, so the
        iteration takes the same path."""
        self.widened = False
        """Some entry of the facts was widened: the solution depends on the whole history of
        the iteration, so an edit is solved again from scratch."""
        self.settled: dict[FunctionKey, tuple[int, int]] = {}
        self.journal: FactJournal | None = None
        """After a successful `update`: the entries of the facts as they were before it."""
        self.order: dict[FunctionKey, int] = {}
        """The last sweep's order (`_calls_first_order`), which updates reuse."""
        self._order_of: tuple[int, dict[FunctionKey, int]] | None = None
        """The call graph version (`Aggregate.edges_version`) and project order `order` was
        computed for."""
        self._solve(self.keys, set(), incremental=False)

    # ---------------------------------------------------------------- the fixed point

    def _solve(self, dirty: list[FunctionKey], changed: set[Dep], *, incremental: bool) -> bool:
        """Both phases from `dirty` (and the readers of `changed`); False when a phase of an
        incremental re-solve could widen an entry (`update` then gives up)."""
        facts = self.facts
        evaluated: set[FunctionKey] = set()
        facts.final = False
        facts.rounds = 0
        self.aggregate.start_phase()
        left = self._phase(self._dirty(dirty, changed), MAX_ROUNDS, evaluated, incremental)
        if left is None:
            return False
        unsettled = set(left)
        # Final rounds: missing facts now read as "unknown". Only evaluations that relied on a
        # missing fact can change (or had not settled yet), and then whatever read what changed.
        facts.final = True
        facts.rounds = 0  # the final phase gets its own rounds before widening
        self.aggregate.start_phase()
        optimistic = self.readers.get(OPTIMISTIC, set()) & evaluated
        dirty = self._dirty(sorted(optimistic | unsettled), set())
        left = self._phase(dirty, MAX_FINAL_ROUNDS, evaluated, incremental)
        if left is None:
            return False
        self.widened = bool(self.aggregate.wide)
        facts.converged = not left
        # Each function's latest evaluation read only facts that have not changed since: its
        # memo is the solution's view of the function, for the analyses that follow.
        solution_evaluators(facts)
        # What each evaluator holds now, so that `update` can forget what the analyses after
        # the solve add to it (an evaluator not evaluated again keeps its earlier size).
        for key in facts.evaluators.keys() if not incremental else evaluated:
            evaluator = facts.evaluators.get(key)
            if evaluator is not None:
                self.settled[key] = (len(evaluator.memo), len(evaluator.call_results))
        facts.consulted = set()
        return True

    def _phase(
        self, dirty: list[FunctionKey], rounds: int, evaluated: set[FunctionKey], incremental: bool
    ) -> list[FunctionKey] | None:
        """Rounds from `dirty` until nothing is left or `rounds` ran out; returns what was
        left to evaluate (`evaluated` gains what was), or None when an incremental re-solve
        could widen an entry (a fresh solve might widen others)."""
        for _round in range(rounds):
            if not dirty:
                break
            if incremental and self.facts.rounds >= WIDEN_AFTER:
                return None
            evaluated.update(dirty)
            dirty = self._sweep(dirty, reuse_order=incremental)
        return dirty

    def _dirty(self, keys: list[FunctionKey], changed: set[Dep]) -> list[FunctionKey]:
        """`keys` and the readers of `changed`, in project order."""
        found = set(keys)
        for dep in changed:
            found |= self.readers.get(dep, set())
        return sorted(found, key=self.aggregate.order.__getitem__)

    def _sweep(self, dirty: list[FunctionKey], *, reuse_order: bool = False) -> list[FunctionKey]:
        """A Gauss-Seidel round: each evaluation's contribution is published at once, so a
        function later in the round reads what an earlier one found. Returns what the next
        round evaluates: the readers of a fact that changed after they were evaluated (or
        that come earlier in the round's order).

        Evidence flows from callers to callees and returns the other way: the rounds take
        the project's order forwards and backwards in turn, so that a chain of calls settles
        in a few rounds rather than one round per call (an entry still changing past
        WIDEN_AFTER rounds is widened, and makes the solution one an edit cannot update). Within a round the
        functions before the one evaluated are done; whatever reads a fact it changed and
        comes after it joins this round, the others the next one.
        """
        facts = self.facts
        # An edit's few evaluations take the order of the last solve: computing it walks the
        # whole call graph (0.06 s a sweep at 100,000 lines), and the order only decides how
        # soon the sweeps settle, not where.
        order = self.order if reuse_order and self.order else self._calls_first_order()
        self.order = order
        position_of: dict[FunctionKey, int] | _OrderWithNewcomers = order
        if reuse_order:
            position_of = _OrderWithNewcomers(order, self.aggregate.order)
        sign = 1 if facts.rounds % 2 == 0 else -1
        facts.rounds += 1
        facts.evaluators = {}
        queue = [(sign * position_of[key], key) for key in dirty]
        heapq.heapify(queue)
        pending = set(dirty)
        later: set[FunctionKey] = set()
        unread = _Touched()
        with step_watch(budget.EVALUATION_SECONDS) as watch:
            while queue:
                position, key = heapq.heappop(queue)
                pending.discard(key)
                contribution, deps = _evaluate_guarded(self.index, facts, key, watch)
                self._read(key, deps)
                self._read_names(key)
                touched = _Touched()
                self.aggregate.replace(key, contribution, touched)
                # Before the final phase a reader of a function's parameters or a class's
                # attributes wakes only for a name it read (`names`); in the final phase for
                # any, as before: a value read through another evaluator (a parent's local, a
                # default) that was missing does not mark the reader optimistic, and becomes
                # "unknown" there only through such a wake-up (`_wakes`; tensorflow/python/ops'
                # `_TensorStridedSliceUpdateGrad.Apply`, woken by its `*args`, which it never
                # reads by name, gave its masks to `tensor_strided_slice_update` that way).
                names: dict[Dep, set[str]] | None = None if facts.final else {}
                changed = self.aggregate.publish(
                    facts, touched, within_round=unread, changed_names=names
                )
                if not changed:
                    continue
                # Evaluators made for this round read the facts before the change.
                facts.evaluators = {}
                for dep in changed:
                    changed_here = names.get(dep) if names is not None else None
                    for reader in self.readers.get(dep, ()):
                        if reader in pending:
                            continue
                        if changed_here is not None and not self._wakes(reader, dep, changed_here):
                            continue
                        reader_position = sign * position_of[reader]
                        if reader_position > position:
                            pending.add(reader)
                            heapq.heappush(queue, (reader_position, reader))
                        else:
                            later.add(reader)
        self.aggregate.publish_unread(facts, unread)
        return sorted(later, key=self.aggregate.order.__getitem__)

    def _calls_first_order(self) -> dict[FunctionKey, int]:
        """Every function's position with callers before their callees, as far as the
        facts know the calls (a depth-first reverse post-order of the call graph; functions
        the graph does not order stay in project order, and on a cycle the one met first
        comes first). Forwards a round carries evidence down to callees; backwards,
        returns up to callers.

        The order depends only on the set of calls and the project order: the last one is
        kept while neither changed (late sweeps evaluate few functions, and walking the
        whole call graph again cost more than they did)."""
        project = self.aggregate.order
        version = self.aggregate.edges_version
        if (
            self.order
            and self._order_of is not None
            and self._order_of[0] == version
            and self._order_of[1] is project
        ):
            return self.order
        self._order_of = (version, project)
        callees: dict[FunctionKey, list[FunctionKey]] = defaultdict(list)
        for table in (self.aggregate.callees, self.aggregate.callbacks):
            for callee, by_caller in table.items():
                if callee in project:
                    for caller in by_caller:
                        if caller in project:
                            callees[caller].append(callee)
        for found in callees.values():
            found.sort(key=project.__getitem__, reverse=True)
        seen: set[FunctionKey] = set()
        post: list[FunctionKey] = []
        for root in reversed(project):
            if root in seen:
                continue
            seen.add(root)
            stack = [(root, iter(callees.get(root, ())))]
            while stack:
                key, children = stack[-1]
                for child in children:
                    if child not in seen:
                        seen.add(child)
                        stack.append((child, iter(callees.get(child, ()))))
                        break
                else:
                    stack.pop()
                    post.append(key)
        return {key: i for i, key in enumerate(reversed(post))}

    def _wakes(self, reader: FunctionKey, dep: Dep, changed: set[str]) -> bool:
        """Whether a change of the entries `changed` of the fact `dep` (a function's
        parameters, a class's attributes) wakes `reader`: it read the fact whole, or one of
        those entries by name (`names`)."""
        read = self.names.get(reader)
        found = read.get(dep) if read is not None else None
        return found is None or not found.isdisjoint(changed)

    def _read_names(self, key: FunctionKey) -> None:
        """Record which names of the facts it read `key`'s latest evaluation read
        (`names`); none when it failed (its deps are then a stand-in, read whole)."""
        evaluator = self.facts.latest_evaluators.get(key)
        if evaluator is None or key in self.facts.internal_errors:
            self.names.pop(key, None)
        else:
            self.names[key] = evaluator.names

    def _read(self, key: FunctionKey, deps: set[Dep] | None) -> None:
        """Record what `key`'s latest evaluation read (None: the key is gone)."""
        if deps is None:
            self.names.pop(key, None)
        for dep in self.deps.pop(key, ()):
            readers = self.readers.get(dep)
            if readers is not None:
                readers.discard(key)
        if deps is not None:
            self.deps[key] = deps
            for dep in deps:
                self.readers[dep].add(key)

    # ---------------------------------------------------------------- after an edit

    def update(
        self,
        index: ProjectIndex,
        modules: Collection[str],
        edited: Collection[FunctionKey] | None = None,
        moved: Collection[FunctionKey] = (),
        shifts: Mapping[str, LineShift] | None = None,
    ) -> bool:
        """Solve again after the summaries of `modules` changed, re-evaluating only what
        depends on them; False when that is not possible (the caller solves from scratch).

        The caller promises that no other module changed and that name resolution through
        `modules` is unchanged (same files, same module-level names: see `project.py`), and,
        with `edited`, that only those functions of `modules` changed
        (`interface.edited_keys`; None: any of them may have). The `moved` functions of
        `modules` have the same code, their positions moved by lines added or removed above
        them: they are evaluated again (what they contribute holds positions: call sites,
        literal arguments) but keep what they contributed until then, as a function that
        reads a changed fact does. With the lines each module moved (`shifts`, by file),
        a moved function is not evaluated again: its contribution is its last one with its
        call sites those of its summary now and the lines of its literal sites moved
        (`_moved_contribution`), which is what evaluating it gives (its values hold no
        position), and its evaluator reads its summary now; it is evaluated again only if
        a fact it reads changes.
        The edited functions, and those that evaluated their code (closures, readers
        of their globals), are reset to nothing, with the functions on a one-step cycle
        with them (a caller that passes them their own results): what those contributed
        may rest on the old code, and a fact that only supports itself must not survive
        the edit. Then the worklist runs from there in both phases: every function that
        reads a fact that changes is evaluated again, so the rest stays as it was. A
        history-dependent solution (widened) is never updated.
        """
        self.journal = None
        if self.widened or not self.facts.converged or not self.facts.updatable:
            return False
        facts = self.facts
        journal = self.aggregate.journal = FactJournal(facts)
        try:
            solved = self._update(index, modules, edited, moved, shifts or {})
        finally:
            self.aggregate.journal = None
        self.journal = journal if solved else None
        return solved

    def _update(
        self,
        index: ProjectIndex,
        modules: Collection[str],
        edited: Collection[FunctionKey] | None,
        moved: Collection[FunctionKey],
        shifts: Mapping[str, LineShift],
    ) -> bool:
        facts = self.facts
        journal = self.aggregate.journal
        assert journal is not None
        modules_replaced(facts, sorted(modules))

        def edited_among(
            keys: list[FunctionKey], order: dict[FunctionKey, int]
        ) -> list[FunctionKey]:
            """The edited functions of `keys` (whose positions `order` holds): from `edited`
            when known, not by a pass over the project's functions on every edit."""
            if edited is not None:
                return [k for k in edited if k in order]
            return [k for k in keys if k.file in modules]

        old_keys = edited_among(self.keys, self.aggregate.order)
        self.index = index
        keys = project_keys(index)
        order = self.aggregate.order
        if keys != self.keys:
            self.keys = keys
            order = {key: i for i, key in enumerate(keys)}
        new_keys = edited_among(self.keys, order)
        direct = set(old_keys) | set(new_keys)
        for key in old_keys:
            direct |= self.readers.get(("params", key), set())
        reset = set(direct)
        attr_writers: dict[ClassKey, set[FunctionKey]] | None = (
            None  # class -> who stores attributes
        )
        for key in direct:
            written = self._writes(key)
            for dep in self.deps.get(key, ()):
                if dep[0] == "attrs" and attr_writers is None:
                    attr_writers = defaultdict(set)
                    for (class_key, _), by_caller in self.aggregate.attrs.items():
                        attr_writers[class_key].update(by_caller)
                for writer in self._writers(dep, attr_writers or {}):
                    if self.deps.get(writer, set()) & written:
                        reset.add(writer)
        # Evaluators kept from the last solve forget what later analyses evaluated since:
        # only those handed out since can hold more (`TensorFacts.consulted`). Each reads
        # the new index once handed out again (`get_evaluator`).
        for key in facts.consulted:
            evaluator = facts.latest_evaluators.get(key)
            size = self.settled.get(key)
            if evaluator is None or size is None:
                continue
            if len(evaluator.memo) > size[0]:
                for sym in list(evaluator.memo)[size[0] :]:
                    del evaluator.memo[sym]
            if len(evaluator.call_results) > size[1]:
                for i in list(evaluator.call_results)[size[1] :]:
                    del evaluator.call_results[i]
        facts.cache.clear()
        self.aggregate.order = order
        touched = _Touched()
        journal.reset = direct
        for key in reset:
            self.aggregate.replace(key, None, touched)
            facts.internal_errors.pop(key, None)
            facts.past_budget.discard(key)
            if facts.latest_evaluators.pop(key, None) is not None:
                facts.evaluators_changed.add(key)
            self.settled.pop(key, None)
            self._read(key, None)
        gone = direct - set(self.keys)
        journal.note_keys(facts, "returns", gone)
        journal.note_keys(facts, "calls", gone)
        calls_written(facts, gone)
        for key in gone:
            touched.returns.discard(key)
            facts.returns.pop(key, None)
            facts.calls.pop(key, None)
        evaluate = set(reset)
        for key in moved:
            if key not in reset and not self._move(index, key, shifts.get(key.file), touched):
                evaluate.add(key)
        facts.rounds = 0
        changed = self.aggregate.publish(facts, touched)
        dirty = sorted([k for k in evaluate if k in order], key=order.__getitem__)
        return self._solve(dirty, changed, incremental=True)

    def _move(
        self, index: ProjectIndex, key: FunctionKey, shift: LineShift | None, touched: _Touched
    ) -> bool:
        """Put in place of the contribution of `key`, a function an edit only moved
        (`shift`), its last one moved (`_moved_contribution`); False (evaluate it again)
        when there is none to move: no shift known, no contribution or evaluator kept, an
        evaluation that failed or read a missing fact optimistically."""
        facts = self.facts
        old = self.aggregate.contributions.get(key)
        evaluator = facts.latest_evaluators.get(key)
        if (
            shift is None
            or old is None
            or evaluator is None
            or key in facts.internal_errors
            or OPTIMISTIC in self.deps.get(key, ())
            or not index.has_function(key)
        ):
            return False
        fn = index.function(key)
        if len(fn.calls) != len(evaluator.fn.calls):
            return False
        self.aggregate.replace(key, _moved_contribution(old, fn, shift), touched)
        evaluator.fn = fn
        return True

    def _writes(self, key: FunctionKey) -> set[Dep]:
        """The facts `key`'s contribution adds to."""
        contribution = self.aggregate.contributions.get(key)
        written: set[Dep] = {("ret", key)}
        if contribution is not None:
            written.update(("params", callee) for callee, _, _, _ in contribution.evidence)
            written.update(("attrs", class_key) for class_key, _, _ in contribution.attrs)
        return written

    def _writers(
        self, dep: Dep, attr_writers: dict[ClassKey, set[FunctionKey]]
    ) -> set[FunctionKey]:
        """The functions whose contribution adds to the fact `dep` (`attr_writers`: per
        class, the functions that store its attributes)."""
        kind, key = dep
        if kind == "ret":
            return {key}
        if kind == "params":
            return set(self.aggregate.callees.get(key, ())) | set(
                self.aggregate.callbacks.get(key, ())
            )
        if kind == "attrs":
            return attr_writers.get(key, set())
        return set()


def _moved_contribution(old: Contribution, fn: FunctionSummary, shift: LineShift) -> Contribution:
    """The contribution of a function an edit only moved (`shift`; `fn` its summary now),
    from its last one: its resolved calls with the call sites of `fn` (the old ones moved)
    and its literal sites' spans, its calls' spans, moved. Nothing else of it holds a
    position (atoms and symbolic values hold none)."""
    calls = [
        resolved
        if resolved.site is fn.calls[resolved.index]
        else replace(resolved, site=fn.calls[resolved.index])
        for resolved in old.calls
    ]
    literal_sites = [
        (target, name, unknown, shift.span(span), argument)
        for target, name, unknown, span, argument in old.literal_sites
    ]
    return replace(old, calls=calls, literal_sites=literal_sites)


def _record_bound(
    index: ProjectIndex,
    caller: FunctionKey,
    resolved: ResolvedCall,
    kind: str,
    target: FunctionKey,
    binding: tuple[dict[str, Atoms], PartialConfig | None],
    out: Contribution,
) -> None:
    """The evidence, literal sites and symbolic arguments of one binding of a call's
    arguments to the parameters of `target` (through a partial object, if any)."""
    bound, partial = binding
    written: dict[str, Atoms] | None = None  # the arguments as written, when a site needs them
    from_outside = caller != target
    for name, atoms in bound.items():
        out.evidence.append((target, name, atoms, from_outside))
        literal, unknown, symbolic = _argument_kinds(atoms)
        if literal:
            out.primitive.append((target, name))
        elif unknown:
            out.unknown_kind.append((target, name))
        if literal or unknown:
            if written is None:
                written = bind_written_through(index.function(target), resolved, kind, partial)
            syms = written.get(name, frozenset())
            # Several arguments collected by `**kwargs` or `*args`: sorted (the
            # set would name a different one first in every run).
            argument = (
                next(iter(syms))
                if len(syms) == 1
                else seq_sym("tuple", tuple(sorted(syms, key=canonical)))
            )
            out.literal_sites.append((target, name, unknown, resolved.site.span, argument))
        if symbolic and not (kind == "layer_call" and _builds_itself(index, resolved)):
            out.symbolic.append((target, name))


_ARGUMENT_KINDS: dict[Atoms, tuple[bool, bool, bool]] = {}
"""`_argument_kinds` of the values already seen: the same few shared values are passed at
most of the call sites the fixed point binds again at every round."""
MAX_ARGUMENT_KINDS = 100_000


def _argument_kinds(atoms: Atoms) -> tuple[bool, bool, bool]:
    """Whether an argument's value is a literal (every atom a primitive), of unknown kind
    only, and may be symbolic (memoised: a function of the value alone)."""
    found = _ARGUMENT_KINDS.get(atoms)
    if found is None:
        # The kinds first: most arguments hold no literal at all. A foreign object (an
        # "ext" atom) is of unknown kind ("?"); without one, each atom's own kind.
        kinds = {a[0] for a in atoms}
        if "ext" in kinds:
            kinds = {"?" if is_unknown(a) else a[0] for a in atoms}
        literal = bool(kinds) and kinds <= _LITERAL_KINDS and all(map(is_primitive, atoms))
        unknown = not literal and kinds == _UNKNOWN_KINDS
        if len(_ARGUMENT_KINDS) >= MAX_ARGUMENT_KINDS:
            _ARGUMENT_KINDS.clear()
        found = _ARGUMENT_KINDS[atoms] = (literal, unknown, "symbolic" in kinds)
    return found


def _record_evidence(
    index: ProjectIndex, caller: FunctionKey, resolved: ResolvedCall, out: Contribution
) -> None:
    """Arguments of a call become evidence for the callee's parameters."""
    for kind, target in callees(index, resolved):
        if not index.has_function(target):
            continue
        callee = index.function(target)
        # A method call or a construction binds the receiver; `Class.method(obj, x)` (a
        # "func" target) passes it explicitly.
        skip_receiver = kind in RECEIVER_BINDING_KINDS
        out.callees.append(target)
        chained = resolved.chained.get(target)
        configs = resolved.partials.get(target)
        bindings: list[tuple[dict[str, Atoms], PartialConfig | None]]
        if chained is not None:
            bindings = [(bind_arguments(callee, chained, {}, skip_receiver=skip_receiver), None)]
        elif configs:
            # `functools.partial(f, a, k=b)(x)` calls `f(a, x, k=b)`; a callee that may be one
            # of several partial objects gets each one's binding.
            bindings = [
                (
                    bind_arguments(
                        callee,
                        [*partial_args(partial), *resolved.args],
                        {**partial_keywords(partial), **resolved.kwargs},
                        skip_receiver=skip_receiver,
                    ),
                    partial,
                )
                for partial in configs
            ]
        else:
            bound = bind_arguments(
                callee, resolved.args, resolved.kwargs, skip_receiver=skip_receiver
            )
            bindings = [(bound, None)]
        for binding in bindings:
            _record_bound(index, caller, resolved, kind, target, binding, out)
        for p in param_layout(callee, skip_receiver).params:
            # (the default first: most parameters have none, and the call sites of every
            # function evaluated pass here at each round of the fixed point)
            if (
                p.default is not None
                and (
                    p.name not in bindings[0][0]
                    or any(p.name not in bound for bound, _ in bindings[1:])
                )
                and _constant(p.default)
            ):
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
                compiled = _compiled_function(index, atom)
                if compiled is not None:
                    out.wrapped.append((compiled, frozenset(supplied)))
                    if signature is not None:
                        out.wrapper_signatures.append((compiled, signature))
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
                    callback, _positional(passed), {}, skip_receiver=is_method_atom(atom)
                )
                elements = _written_elements(resolved, info.callback_args_tuple)
                for i, (name, atoms) in enumerate(bound.items()):
                    out.evidence.append((atom[1], name, atoms, True))
                    if atoms and all(is_primitive(a) for a in atoms):
                        out.primitive.append((atom[1], name))
                        element = elements[i] if i < len(elements) else UNKNOWN
                        out.literal_sites.append(
                            (atom[1], name, False, resolved.site.span, element)
                        )
                continue
            # Callbacks receive tensors (dataset elements, map_fn slices), what the API
            # says it hands them (`Dataset.apply` passes the dataset), or one leaf of each
            # structure `map_structure` maps, whatever they are: parameter i structure i's.
            params = callback.explicit_params if is_func_atom(atom) else callback.params[1:]
            if info.returns == "callback_results" and info.callback_input == "tensor":
                mapped = callback_parameter_arguments(
                    info, params, resolved.args, resolved.site.has_star_args
                )
                for name, leaves in mapped.items():
                    out.evidence.append((atom[1], name, leaves, True))
                continue
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


_LITERAL_KINDS = frozenset({"lit", "seq", "dict", "tup"})
"""The kinds of the atoms `is_primitive` may accept."""
_UNKNOWN_KINDS = frozenset({"?"})


def _constant(sym: Sym, depth: int = 0) -> bool:
    """A literal int, float or str as written, or a list/tuple display of them."""
    if is_lit(sym):
        return sym[1] in ("int", "float", "str") and sym[2] is not None
    if is_seq(sym) and depth < 3:
        return bool(sym[2]) and all(_constant(e, depth + 1) for e in sym[2])
    return False


def _compiled_function(index: ProjectIndex, atom: Atom) -> FunctionKey | None:
    """The project function a compile call (`tf.function(g)`, `torch.compile(g)`) compiles
    when `g` is this value: a function or bound method itself; an object its call method
    (`model = torch.compile(model)` compiles the module's `forward`, `tf.function(layer)`
    traces the layer's `__call__`, which runs its `call`; another object's `__call__`)."""
    if kind_of(atom) in ("func", "method"):
        key: FunctionKey = atom[1]
        return key
    if not is_obj_atom(atom) or atom[2] is None:
        return None
    class_key: ClassKey = atom[2]
    if index.layer_role(class_key) is not None:
        return index.find_method(class_key, index.instance_call(class_key))
    return index.find_method(class_key, "__call__")


def _builds_itself(index: ProjectIndex, resolved: ResolvedCall) -> bool:
    """Every Keras layer or model called here defines `build`: Keras 3 then creates its
    weights by calling `build(input_shape)` before the first call, outside the symbolic pass,
    so that a symbolic call (functional API) only reads initialised variables and a compiled
    `call` captures them by reference."""
    classes = [a[2] for a in resolved.callee_atoms if is_obj_atom(a) and a[2] is not None]
    return bool(classes) and all(index.find_method(c, "build") is not None for c in classes)


def _argument(resolved: ResolvedCall, where: tuple[int | str, ...]) -> Atoms | None:
    """The atoms of the argument at a position or keyword of `where`; None when absent."""
    return argument_at(resolved.args, resolved.kwargs, where)


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
            return tuple(sym[2]) if is_seq(sym) else ()
    return ()


def _positional(passed: Atoms | None) -> list[Atoms]:
    """The arguments a tuple of arguments spreads into (`fn(*args)`): by position for a
    short tuple display, else one argument of every element kind; none when absent."""
    if passed is None:
        return []
    tuples = [a for a in passed if is_tup_atom(a)]
    if len(tuples) == 1 and len(passed) == 1:
        return list(tuples[0][1])
    elements: set[Atom] = set()
    for atom in passed:
        elements.update(iterated_atoms(atom))
    return [cap_atoms(elements)] if elements else []
