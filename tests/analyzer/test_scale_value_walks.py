"""Value walks stay linear on long numeric loops (the scale issue).

A real 261-line NumPy helper module (one long function whose loop reassigns many arrays, a
10-way unpacking of a helper's result, helpers calling helpers) took minutes: the walk from a
value back to the parameters followed every path through the assignments, and results cut
short by a loop were never memoised. These tests count the walk's steps rather than time it
(the machine is noisy), and check that the answers are still the ones the semantics give.
"""

from __future__ import annotations

import textwrap

import pytest
from facts_helpers import analyse

from hybridize.analyzer.checks import summary_hooks
from hybridize.analyzer.facts import helper_safety, safety


def _loop_module(variables: int, statements: int) -> str:
    """A function whose loop rotates `variables` arrays through `statements` assignments,
    each reading three others: the paths through it grow exponentially with its length."""
    names = [f"v{i}" for i in range(variables)]
    body = [f"    {n} = data" for n in names]
    body.append("    for step in range(10):")
    for i in range(statements):
        target = names[i % variables]
        reads = " + ".join(names[(i + k) % variables] for k in (1, 2, 3))
        body.append(f"        {target} = {reads}")
        if i % 7 == 0:
            body.append(f"        {target} = {target} + np.sum({names[(i + 4) % variables]})")
    body.append("    return tf.constant(" + " + ".join(names) + ")")
    header = textwrap.dedent(
        """\
        import numpy as np
        import tensorflow as tf


        def crunch(data):
        """
    )
    return header + "\n".join(body) + "\n\n\ncrunch(tf.ones([4]))\n"


def _count_calls(monkeypatch: pytest.MonkeyPatch, owner: object, name: str) -> list[int]:
    counter = [0]
    original = getattr(owner, name)

    def counting(*args: object, **kwargs: object) -> object:
        counter[0] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, counting)
    return counter


@pytest.mark.parametrize("statements", [12, 48])
def test_helper_value_walk_is_linear_in_the_loop(
    monkeypatch: pytest.MonkeyPatch, statements: int
) -> None:
    calls = _count_calls(monkeypatch, helper_safety._Values, "_of")
    verdict = analyse(_loop_module(6, statements))["crunch"]
    # Each value (a local, an operation, a call) is computed once per pass and the passes
    # are bounded: a few hundred steps per statement at most, against millions before.
    assert calls[0] < 400 * statements
    # And the answers are the semantic ones: `np.sum` of a value computed from the
    # parameter fails in the graph, and so does `tf.constant` of a symbolic tensor.
    codes = {f.code for f in verdict.findings}
    assert {"HY302", "HY301"} <= codes
    assert verdict.passing_precondition is None


def test_reachability_walk_visits_each_value_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _count_calls(monkeypatch, safety, "_arguments")
    analyse(_loop_module(6, 48))
    assert calls[0] < 20_000


def test_value_fed_back_through_a_loop_is_symbolic() -> None:
    """`a` gets the parameter only through the previous iteration of `b`: the fixed point
    must carry it around the loop, or `np.mean(a)` would look safe."""
    source = """\
    import numpy as np
    import tensorflow as tf


    def helper(a):
        return np.mean(a)


    def caller(x, n):
        a = n
        b = n
        for _ in range(3):
            c = helper(a)
            a = b * 2
            b = x + 1
        return tf.reduce_sum(x) + c


    caller(tf.ones([3]), 2)
    """
    verdict = analyse(source)["caller"]
    assert "HY302" in {f.code for f in verdict.findings}
    assert verdict.passing_precondition is None


def test_widened_atoms_are_shallow_and_stable() -> None:
    """Past WIDEN_AFTER rounds every fact is widened: containers keep one level, so the
    domain is finite (TensorFlow's own queue code grew a new nesting of lists and tuples in
    every round before); widening twice changes nothing, so widened facts can only settle."""
    from hybridize.analyzer.facts.solver import _widen
    from hybridize.analyzer.facts.values import TENSOR

    int_lit = ("lit", "int", 3)
    deep = (
        "seq",
        "list",
        frozenset({("tup", (frozenset({("seq", "list", frozenset({TENSOR}))}),), "list")}),
    )
    mixed = ("dict", frozenset({("seq", "list", frozenset({int_lit})), ("?",)}))
    for atom in (deep, mixed, ("tup", (frozenset({deep}), frozenset({mixed})), "tuple")):
        widened = _widen(atom)
        assert _depth(widened) <= 2, widened
        assert _widen(widened) == widened
    assert _widen(("seq", "list", frozenset({int_lit}))) == (
        "seq",
        "list",
        frozenset({("lit", "int", None)}),
    )


def test_a_long_call_chain_gets_its_evidence() -> None:
    """Evidence moves one call down per round: a chain longer than the old round limit left
    its last functions without the tensor their caller passes (an unknown parameter)."""
    links = "\n\n".join(f"def f{i}(x):\n    return f{i + 1}(x * 2.0)" for i in range(45))
    source = (
        "import tensorflow as tf\n\n\n"
        + links
        + "\n\n\ndef f45(x):\n    return tf.reduce_sum(x)\n\n\nf0(tf.ones([3]))\n"
    )
    verdicts = analyse(source)
    assert verdicts["f45"].facts.has_tensor_parameter is True
    assert verdicts["f40"].facts.has_tensor_parameter is True


def test_nested_containers_through_calls_settle() -> None:
    """Each round of the fixed point wraps the value in one more list and tuple (mutual
    recursion through a wrapping helper, as TensorFlow's own queue code does with dtypes):
    the widened domain keeps containers one level deep, so the facts stop growing and the
    solver settles well before its safety bound instead of being cut off by it."""
    from hybridize.analyzer.facts import solver
    from hybridize.analyzer.facts.resolve import ProjectIndex
    from hybridize.analyzer.summaries.file_summaries import summarize_text
    from hybridize.analyzer.summaries.ir import ModuleSummary

    source = textwrap.dedent(
        """\
        import tensorflow as tf


        def wrap(value, extra):
            return [value, (value, extra)], {"v": value}


        def ping(x, y):
            packed, table = wrap(x, y)
            return pong(packed, table)


        def pong(a, b):
            packed, _ = wrap(a, [b])
            return ping(packed, (a, b))


        ping(tf.ones([2]), [1, 2])
        """
    )
    summary = summarize_text("main.py", source, summary_hooks())
    assert isinstance(summary, ModuleSummary)
    facts = solver.solve(ProjectIndex({"main.py": summary}, ""))
    assert facts.converged
    for entries in facts.param_atoms.values():
        for atoms in entries.values():
            assert all(_depth(a) <= 4 for a in atoms), atoms


def _depth(atom: tuple, level: int = 0) -> int:
    """How deeply containers nest in an atom (a tensor is 0, a list of tensors 1, ...)."""
    kind = atom[0]
    if kind == "seq":
        return max((_depth(a, level + 1) for a in atom[2]), default=level + 1)
    if kind == "dict":
        return max((_depth(a, level + 1) for a in atom[1]), default=level + 1)
    if kind == "tup":
        return max((_depth(a, level + 1) for part in atom[1] for a in part), default=level + 1)
    return level
