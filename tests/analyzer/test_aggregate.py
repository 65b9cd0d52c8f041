"""The incremental aggregate of the solver: replacing contributions one at a time gives the
facts of a rebuild from scratch, removal is exact, and only real changes are reported."""

from __future__ import annotations

import random

from hybridize.analyzer.facts.atom_bounds import MAX_ATOMS, CutEntry, join_capped
from hybridize.analyzer.facts.evaluator import TensorFacts
from hybridize.analyzer.facts.solver import Aggregate, Contribution, _Touched
from hybridize.analyzer.facts.values import PYTHON, TENSOR, UNKNOWN_ATOM, WIDEN_AFTER, Atoms
from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.model import Span

CALLERS = [
    FunctionKey("m.py", "<module>"),
    FunctionKey("m.py", "a"),
    FunctionKey("m.py", "b"),
    FunctionKey("n.py", "c"),
    FunctionKey("n.py", "d"),
]
CALLEES = [
    FunctionKey("m.py", "a"),
    FunctionKey("m.py", "b"),
    FunctionKey("n.py", "c"),
    FunctionKey("n.py", "Model.call"),
]
ATOMS = [
    frozenset({("tensor", "float32", (3,))}),
    frozenset({("lit", "int", 1)}),
    frozenset({("?",)}),
    frozenset(),
    frozenset({("tensor", None, None), ("python",)}),
]
ORDER = {key: i for i, key in enumerate(CALLERS)}


def random_contribution(rng: random.Random) -> Contribution:
    out = Contribution()
    for _ in range(rng.randint(0, 4)):
        callee = rng.choice(CALLEES)
        name = rng.choice(["x", "y"])
        out.evidence.append((callee, name, rng.choice(ATOMS), rng.random() < 0.7))
        out.callees.append(callee)
        if rng.random() < 0.3:
            out.primitive.append((callee, name))
        if rng.random() < 0.2:
            out.unknown_kind.append((callee, name))
        if rng.random() < 0.3:
            line = rng.randint(1, 50)
            site = (callee, name, rng.random() < 0.5, Span(line, 0, line, 5), ("lit", "int", line))
            out.literal_sites.append(site)
        if rng.random() < 0.2:
            out.symbolic.append((callee, name))
    for _ in range(rng.randint(0, 2)):
        out.callbacks.append((rng.choice(CALLEES), rng.random() < 0.5))
    if rng.random() < 0.3:
        wrapped = rng.choice(CALLEES)
        out.wrapped.append((wrapped, frozenset(rng.sample(["jit_compile", "reduce_retracing"], 1))))
        out.wrapper_signatures.append((wrapped, ("seq", "list", (rng.randint(0, 3),))))
    for _ in range(rng.randint(0, 2)):
        out.attrs.append(
            (FunctionKey("n.py", "Model"), rng.choice(["w", "dense"]), rng.choice(ATOMS))
        )
    out.returns = rng.choice(ATOMS) or frozenset({("lit", "none", None)})
    return out


def snapshot(facts: TensorFacts) -> dict[str, object]:
    """Every aggregate table of `facts` as plain values, empty entries left out."""

    def table(t: dict[str, dict[str, set[tuple]]]) -> dict[str, dict[str, frozenset[tuple]]]:
        return {k: {n: frozenset(a) for n, a in v.items()} for k, v in t.items() if v}

    return {
        "params": table(facts.param_atoms),
        "external": table(facts.external_evidence),
        "attrs": table(facts.attrs),
        "returns": dict(facts.returns),
        "calls": dict(facts.calls),
        "primitive": {k: set(v) for k, v in facts.primitive_params.items() if v},
        "unknown": {k: set(v) for k, v in facts.unknown_kind_params.items() if v},
        "symbolic": {k: set(v) for k, v in facts.symbolic_args.items() if v},
        "literal": {
            k: {n: list(s) for n, s in v.items() if s} for k, v in facts.literal_sites.items() if v
        },
        "callers": {k: set(v) for k, v in facts.callers.items() if v},
        "call_count": {k: v for k, v in facts.call_count.items() if v},
        "callback_callers": {k: set(v) for k, v in facts.callback_callers.items() if v},
        "traced": set(facts.traced_callbacks),
        "caller_mode": {k: set(v) for k, v in facts.caller_mode_callbacks.items() if v},
        "wrapped": set(facts.wrapped_by_compiler),
        "wrapper_arguments": dict(facts.wrapper_arguments),
        "wrapper_signatures": dict(facts.wrapper_signatures),
    }


def rebuilt(contributions: dict[str, Contribution]) -> TensorFacts:
    """The facts of these contributions, aggregated at once in project order."""
    facts = TensorFacts()
    aggregate = Aggregate(ORDER)
    touched = _Touched()
    for caller in sorted(contributions, key=ORDER.__getitem__):
        aggregate.replace(caller, contributions[caller], touched)
    aggregate.publish(facts, touched)
    return facts


def test_replacing_contributions_one_by_one_equals_a_rebuild() -> None:
    for seed in range(60):
        rng = random.Random(seed)
        facts = TensorFacts()
        aggregate = Aggregate(ORDER)
        latest: dict[str, Contribution] = {}
        for _ in range(12):
            touched = _Touched()
            for caller in rng.sample(CALLERS, rng.randint(1, 3)):
                if rng.random() < 0.15 and caller in latest:
                    del latest[caller]
                    aggregate.replace(caller, None, touched)
                else:
                    latest[caller] = random_contribution(rng)
                    aggregate.replace(caller, latest[caller], touched)
            aggregate.publish(facts, touched)
            facts.rounds = 0  # stay below the widening rounds
            assert snapshot(facts) == snapshot(rebuilt(latest)), seed


def test_removing_a_contribution_removes_exactly_what_it_added() -> None:
    rng = random.Random(7)
    base = {caller: random_contribution(rng) for caller in CALLERS[:3]}
    extra = random_contribution(rng)
    extra.evidence.append((FunctionKey("m.py", "a"), "only_here", ATOMS[0], True))
    facts = TensorFacts()
    aggregate = Aggregate(ORDER)
    touched = _Touched()
    for caller, contribution in base.items():
        aggregate.replace(caller, contribution, touched)
    aggregate.replace(FunctionKey("n.py", "d"), extra, touched)
    aggregate.publish(facts, touched)
    assert "only_here" in facts.param_atoms[FunctionKey("m.py", "a")]
    touched = _Touched()
    aggregate.replace(FunctionKey("n.py", "d"), None, touched)
    changed = aggregate.publish(facts, touched)
    assert ("params", FunctionKey("m.py", "a")) in changed
    assert ("ret", FunctionKey("n.py", "d")) in changed
    assert FunctionKey("n.py", "d") not in facts.returns
    assert snapshot(facts) == snapshot(rebuilt(base))


def test_only_facts_that_differ_are_reported_changed() -> None:
    rng = random.Random(3)
    contributions = {caller: random_contribution(rng) for caller in CALLERS}
    facts = TensorFacts()
    aggregate = Aggregate(ORDER)
    touched = _Touched()
    for caller, contribution in contributions.items():
        aggregate.replace(caller, contribution, touched)
    aggregate.publish(facts, touched)
    same = _Touched()
    aggregate.replace(FunctionKey("m.py", "b"), contributions[FunctionKey("m.py", "b")], same)
    assert aggregate.publish(facts, same) == set()
    different = Contribution(
        evidence=[(FunctionKey("n.py", "c"), "fresh_name", ATOMS[0], True)],
        returns=frozenset({("lit", "str", "changed")}),
    )
    touched = _Touched()
    aggregate.replace(FunctionKey("m.py", "b"), different, touched)
    changed = aggregate.publish(facts, touched)
    assert ("params", FunctionKey("n.py", "c")) in changed
    assert ("ret", FunctionKey("m.py", "b")) in changed
    untouched = {caller for caller in CALLERS if caller != FunctionKey("m.py", "b")}
    assert not {("ret", caller) for caller in untouched} & changed


def test_literal_sites_keep_project_order_whatever_the_order_of_replacement() -> None:
    span = Span(1, 0, 1, 1)
    first = Contribution(
        literal_sites=[(FunctionKey("m.py", "a"), "x", False, span, ("lit", "int", 1))]
    )
    second = Contribution(
        literal_sites=[(FunctionKey("m.py", "a"), "x", False, span, ("lit", "int", 2))]
    )
    facts = TensorFacts()
    aggregate = Aggregate(ORDER)
    touched = _Touched()
    aggregate.replace(FunctionKey("n.py", "d"), second, touched)
    aggregate.replace(FunctionKey("m.py", "<module>"), first, touched)
    aggregate.publish(facts, touched)
    callers = [site.caller for site in facts.literal_sites[FunctionKey("m.py", "a")]["x"]]
    assert callers == [FunctionKey("m.py", "<module>"), FunctionKey("n.py", "d")]


def test_a_fact_cut_at_the_cap_stays_cut_in_the_widening_rounds() -> None:
    """Once joined past MAX_ATOMS a fact keeps its cut form: the cut value joined with a
    round that brings few kinds again would fit under the cap, regrow past it and be cut
    again, and the fixed point would oscillate with period two (it did on TensorFlow's own
    `python/ops`)."""
    cut: dict[CutEntry, bool] = {}
    entry = ("params", FunctionKey("m.py", "f"), "x")
    many = {("lit", "int", i) for i in range(MAX_ATOMS)} | {TENSOR}
    first = join_capped(many, cut, entry)
    assert first == {TENSOR, UNKNOWN_ATOM}
    again = join_capped(first | {("lit", "str", None), ("numpy", "float64")}, cut, entry)
    assert again == {TENSOR, ("numpy", "float64"), UNKNOWN_ATOM}
    assert join_capped(again | {("lit", "str", None)}, cut, entry) == again
    # a fact never cut keeps every kind
    assert join_capped(
        {("lit", "str", None), TENSOR}, cut, ("params", FunctionKey("m.py", "f"), "y")
    ) == {
        ("lit", "str", None),
        TENSOR,
    }


def test_a_fact_collapsed_to_tensor_stays_collapsed() -> None:
    cut: dict[CutEntry, bool] = {}
    entry = ("ret", FunctionKey("m.py", "f"), "")
    tensors = {("tensor", f"dtype{i}", None) for i in range(MAX_ATOMS + 1)}
    collapsed = join_capped(tensors, cut, entry)
    assert collapsed == {TENSOR, UNKNOWN_ATOM}
    few = collapsed | {("tensor", "float16", None), ("numpy", "float64")}
    # Still collapsed: one atom per tensor kind (a NumPy array stays known), no new shapes.
    kept = join_capped(few, cut, entry)
    assert kept == {TENSOR, ("numpy", None), UNKNOWN_ATOM}
    assert join_capped(kept | {("tensor", "int8", None)}, cut, entry) == kept


def _evidence(atoms: Atoms) -> Contribution:
    """A contribution that passes `atoms` to `m.py::a`'s `x` and returns them."""
    contribution = Contribution()
    contribution.evidence.append((FunctionKey("m.py", "a"), "x", atoms, True))
    contribution.returns = atoms
    return contribution


def test_only_the_entries_that_keep_changing_are_widened() -> None:
    """An entry that changes in more than WIDEN_AFTER rounds of a phase loses its shapes and
    only grows from then on, so a value that takes a new shape every round settles; an entry
    that settled keeps its shapes, and changes within one round count once."""
    aggregate, facts = Aggregate(ORDER), TensorFacts()
    aggregate.start_phase()
    steady = frozenset({("tensor", "float32", (3,))})
    wide_tensor = ("tensor", "float32", None)
    entry = ("params", FunctionKey("m.py", "a"), "x")
    for round_ in range(1, WIDEN_AFTER + 4):
        facts.rounds = round_
        growing = frozenset({("tensor", "float32", (round_,))})
        unread = _Touched()
        changed: set[tuple[str, str]] = set()
        # Two publications within the round change the entry twice: one round is counted.
        for caller, atoms in (
            (FunctionKey("m.py", "b"), growing),
            (FunctionKey("m.py", "b"), growing | {PYTHON}),
            (FunctionKey("n.py", "c"), steady),
        ):
            touched = _Touched()
            aggregate.replace(caller, _evidence(atoms), touched)
            changed |= aggregate.publish(facts, touched, within_round=unread)
        aggregate.publish_unread(facts, unread)
        value = facts.param_atoms[FunctionKey("m.py", "a")]["x"]
        if round_ <= WIDEN_AFTER:
            assert value == growing | {PYTHON} | steady, round_
            assert not aggregate.wide and ("params", FunctionKey("m.py", "a")) in changed
        elif round_ == WIDEN_AFTER + 1:
            # Widened: no shapes, joined with the last value.
            assert value == {wide_tensor, PYTHON}
            assert (
                entry in aggregate.wide and ("ret", FunctionKey("m.py", "b"), "") in aggregate.wide
            )
            assert ("params", FunctionKey("m.py", "a")) in changed
        else:
            # A new shape every round, but the widened entries no longer change.
            assert value == {wide_tensor, PYTHON}
            assert changed == set(), changed
    # The return of n.py::c never changed after the first round: it keeps its shape.
    assert facts.returns[FunctionKey("n.py", "c")] == steady
    assert ("ret", FunctionKey("n.py", "c"), "") not in aggregate.wide
    # A widened entry only grows: a contribution that gives less does not shrink it.
    touched = _Touched()
    aggregate.replace(FunctionKey("m.py", "b"), _evidence(frozenset()), touched)
    facts.rounds += 1
    assert aggregate.publish(facts, touched) == set()
    assert facts.returns[FunctionKey("m.py", "b")] == {wide_tensor, PYTHON}
    assert facts.param_atoms[FunctionKey("m.py", "a")]["x"] == {wide_tensor, PYTHON}
    # A new phase counts afresh, and what was widened stays widened.
    aggregate.start_phase()
    assert aggregate.changes == {} and entry in aggregate.wide


def _widen_entry(aggregate: Aggregate, facts: TensorFacts, caller: FunctionKey) -> None:
    """Publish a new shape from `caller` to `m.py::a`'s `x` until the entry is widened."""
    for round_ in range(1, WIDEN_AFTER + 2):
        facts.rounds = round_
        touched = _Touched()
        aggregate.replace(caller, _evidence(frozenset({("tensor", "float32", (round_,))})), touched)
        aggregate.publish(facts, touched)
    assert ("params", FunctionKey("m.py", "a"), "x") in aggregate.wide


def test_a_widened_entry_joins_widened_atoms_before_the_cap() -> None:
    """Many callers passing tensors that differ only in shape: widened, they are one atom,
    not MAX_ATOMS shapes that cut the entry to 'unknown'."""
    aggregate, facts = Aggregate(ORDER), TensorFacts()
    aggregate.start_phase()
    _widen_entry(aggregate, facts, FunctionKey("m.py", "b"))
    touched = _Touched()
    for i in range(MAX_ATOMS + 5):
        caller = FunctionKey("many.py", f"f{i}")
        aggregate.order[caller] = len(aggregate.order)
        aggregate.replace(caller, _evidence(frozenset({("tensor", "float32", (i, 7))})), touched)
    facts.rounds += 1
    aggregate.publish(facts, touched)
    assert facts.param_atoms[FunctionKey("m.py", "a")]["x"] == {("tensor", "float32", None)}
    assert ("params", FunctionKey("m.py", "a"), "x") not in aggregate.cut


def test_a_widened_entry_takes_what_its_contributors_add_and_keeps_what_they_drop() -> None:
    aggregate, facts = Aggregate(ORDER), TensorFacts()
    aggregate.start_phase()
    _widen_entry(aggregate, facts, FunctionKey("m.py", "b"))
    wide_tensor = ("tensor", "float32", None)
    assert facts.param_atoms[FunctionKey("m.py", "a")]["x"] == {wide_tensor}
    for atoms, expected in (
        (frozenset({("lit", "int", 3)}), {wide_tensor, ("lit", "int", None)}),
        (frozenset({PYTHON}), {wide_tensor, ("lit", "int", None), PYTHON}),
        (frozenset(), {wide_tensor, ("lit", "int", None), PYTHON}),
    ):
        touched = _Touched()
        aggregate.replace(FunctionKey("n.py", "c"), _evidence(atoms), touched)
        facts.rounds += 1
        changed = aggregate.publish(facts, touched)
        assert facts.param_atoms[FunctionKey("m.py", "a")]["x"] == expected
        assert (("params", FunctionKey("m.py", "a")) in changed) == bool(atoms)
    assert aggregate.fresh == {}
