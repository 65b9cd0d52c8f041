"""`scan_memo`: per-function and per-module parts of project-wide facts are computed again
only for what an update replaced, and give what a scan from scratch gives."""

from __future__ import annotations

from hybridize.analyzer.facts.evaluator import TensorFacts, calls_written
from hybridize.analyzer.facts.scan_memo import per_function


def test_a_function_scan_is_computed_again_only_for_replaced_calls() -> None:
    facts = TensorFacts()
    kept, replaced = [], []
    facts.calls = {"m.py::a": kept, "m.py::b": replaced, "m.py::c": []}
    computed: list[str] = []

    def compute(key: str, calls: list) -> bool:
        computed.append(key)
        return key != "m.py::c"

    assert per_function(facts, "scan", compute) == {"m.py::a": True, "m.py::b": True}
    assert sorted(computed) == ["m.py::a", "m.py::b", "m.py::c"]
    computed.clear()
    facts.calls["m.py::b"] = []  # re-evaluated: a new list, logged as the solver does
    calls_written(facts, ["m.py::b"])
    assert per_function(facts, "scan", compute) == {"m.py::a": True, "m.py::b": True}
    assert computed == ["m.py::b"]
    computed.clear()
    facts.calls = {**facts.calls, "m.py::c": []}  # a new dict: looked at whole
    assert per_function(facts, "scan", compute) == {"m.py::a": True, "m.py::b": True}
    assert computed == ["m.py::c"]


def test_a_function_scan_forgets_removed_functions_and_empty_values() -> None:
    facts = TensorFacts()
    facts.calls = {"m.py::a": [], "m.py::b": []}
    values = {"m.py::a": ["x"], "m.py::b": ["y"]}
    found = per_function(facts, "scan", lambda key, calls: values[key])
    assert found == {"m.py::a": ["x"], "m.py::b": ["y"]}
    del facts.calls["m.py::a"]
    facts.calls["m.py::b"] = []
    calls_written(facts, ["m.py::a", "m.py::b"])
    values["m.py::b"] = []
    assert per_function(facts, "scan", lambda key, calls: values[key]) == {}
