"""`scan_memo`: per-function and per-module parts of project-wide facts are computed again
only for what an update replaced, and give what a scan from scratch gives."""

from __future__ import annotations

from hybridize.analyzer.checks import summary_hooks
from hybridize.analyzer.facts.evaluator import TensorFacts, calls_written
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.scan_memo import of_module, per_function, per_module
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


def test_facts_never_updated_keep_a_scan_s_values_only_and_compute_them_once() -> None:
    facts = TensorFacts(updatable=False)  # a one-shot analysis's
    facts.calls = {FunctionKey("m.py", "a"): [], FunctionKey("m.py", "b"): []}
    computed: list[FunctionKey] = []

    def compute(key: FunctionKey, calls: list) -> bool:
        computed.append(key)
        return key == FunctionKey("m.py", "a")

    assert per_function(facts, "scan", compute) == {FunctionKey("m.py", "a"): True}
    assert per_function(facts, "scan", compute) == {FunctionKey("m.py", "a"): True}
    assert computed == [FunctionKey("m.py", "a"), FunctionKey("m.py", "b")]  # once each
    scan = facts.scans["scan"]
    assert scan.by_key == {}  # type: ignore[attr-defined]  # no source kept per key
    # were the calls written after all, the scan would be computed again, whole
    facts.calls[FunctionKey("m.py", "b")] = []
    calls_written(facts, [FunctionKey("m.py", "b")])
    assert per_function(facts, "scan", compute) == {FunctionKey("m.py", "a"): True}
    assert len(computed) == 4


def test_facts_never_updated_compute_a_module_scan_once() -> None:
    facts = TensorFacts(updatable=False)
    index = ProjectIndex(
        {
            "a.py": _summary("a.py", "x = 1\n"),
            "b.py": _summary("b.py", ""),
        }
    )
    computed: list[str] = []

    def compute(relpath: str, module: ModuleSummary) -> int:
        computed.append(relpath)
        return module.line_count - 1

    assert per_module(facts, index, "scan", compute) == {"a.py": 1}
    assert per_module(facts, index, "scan", compute) == {"a.py": 1}
    assert computed == ["a.py", "b.py"]
    assert facts.scans["scan"].by_key == {}  # type: ignore[attr-defined]


def _summary(relpath: str, text: str) -> ModuleSummary:
    found = summarize_text(relpath, text, summary_hooks())
    assert isinstance(found, ModuleSummary)
    return found
