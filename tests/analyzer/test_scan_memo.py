"""`scan_memo`: per-function and per-module parts of project-wide facts are computed again
only for what an update replaced, and give what a scan from scratch gives."""

from __future__ import annotations

from hybridize.analyzer.checks import summary_hooks
from hybridize.analyzer.facts.evaluator import TensorFacts, calls_written
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.scan_memo import of_module, per_function
from hybridize.analyzer.summaries.file_summaries import summarize_text
from hybridize.analyzer.summaries.ir import ModuleSummary
from hybridize.analyzer.summaries.keys import FunctionKey


def test_a_function_scan_is_computed_again_only_for_replaced_calls() -> None:
    facts = TensorFacts()
    kept, replaced = [], []
    facts.calls = {
        FunctionKey("m.py", "a"): kept,
        FunctionKey("m.py", "b"): replaced,
        FunctionKey("m.py", "c"): [],
    }
    computed: list[FunctionKey] = []

    def compute(key: FunctionKey, calls: list) -> bool:
        computed.append(key)
        return key != FunctionKey("m.py", "c")

    assert per_function(facts, "scan", compute) == {
        FunctionKey("m.py", "a"): True,
        FunctionKey("m.py", "b"): True,
    }
    assert sorted(computed) == [
        FunctionKey("m.py", "a"),
        FunctionKey("m.py", "b"),
        FunctionKey("m.py", "c"),
    ]
    computed.clear()
    facts.calls[
        FunctionKey("m.py", "b")
    ] = []  # re-evaluated: a new list, logged as the solver does
    calls_written(facts, [FunctionKey("m.py", "b")])
    assert per_function(facts, "scan", compute) == {
        FunctionKey("m.py", "a"): True,
        FunctionKey("m.py", "b"): True,
    }
    assert computed == [FunctionKey("m.py", "b")]
    computed.clear()
    facts.calls = {**facts.calls, FunctionKey("m.py", "c"): []}  # a new dict: looked at whole
    assert per_function(facts, "scan", compute) == {
        FunctionKey("m.py", "a"): True,
        FunctionKey("m.py", "b"): True,
    }
    assert computed == [FunctionKey("m.py", "c")]


def test_a_function_scan_forgets_removed_functions_and_empty_values() -> None:
    facts = TensorFacts()
    facts.calls = {FunctionKey("m.py", "a"): [], FunctionKey("m.py", "b"): []}
    values = {FunctionKey("m.py", "a"): ["x"], FunctionKey("m.py", "b"): ["y"]}
    found = per_function(facts, "scan", lambda key, calls: values[key])
    assert found == {FunctionKey("m.py", "a"): ["x"], FunctionKey("m.py", "b"): ["y"]}
    del facts.calls[FunctionKey("m.py", "a")]
    facts.calls[FunctionKey("m.py", "b")] = []
    calls_written(facts, [FunctionKey("m.py", "a"), FunctionKey("m.py", "b")])
    values[FunctionKey("m.py", "b")] = []
    assert per_function(facts, "scan", lambda key, calls: values[key]) == {}


def test_a_module_scan_computes_the_modules_asked_for_until_one_is_replaced() -> None:
    def summary(relpath: str, text: str) -> ModuleSummary:
        found = summarize_text(relpath, text, summary_hooks())
        assert isinstance(found, ModuleSummary)
        return found

    facts = TensorFacts()
    index = ProjectIndex({"a.py": summary("a.py", "x = 1\n"), "b.py": summary("b.py", "")})
    computed: list[str] = []

    def compute(relpath: str, module: ModuleSummary) -> int:
        computed.append(relpath)
        return module.line_count

    assert of_module(facts, index, "scan", "a.py", compute) == 2
    assert of_module(facts, index, "scan", "a.py", compute) == 2
    assert computed == ["a.py"]  # b.py not asked for, a.py once
    index.modules["a.py"] = summary("a.py", "x = 1\ny = 2\n")  # an edit: a new summary
    assert of_module(facts, index, "scan", "a.py", compute) == 3
    assert computed == ["a.py", "a.py"]
