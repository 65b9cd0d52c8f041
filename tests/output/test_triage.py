"""The report's sections: proposed is what refactor makes, each function in one section."""

from __future__ import annotations

import re
from dataclasses import replace

from verdict_parts import changed

from hybridize.model import AnalysisResult, Finding, Span
from hybridize.output.triage import Triage, is_blocked_tensor_work, main_reason
from hybridize.refactor.selection import Selection


def test_sections_partition_the_functions(result: AnalysisResult) -> None:
    call, step, helper, predict = result.functions
    low = replace(call, benefit="low")
    triage = Triage.of((low, step, helper, predict), None)
    assert triage.proposed == (predict,)
    assert triage.low_benefit == (low,)
    assert triage.blocked == (step,)
    assert triage.others == (helper,)
    everything = Triage.of((low, step, helper, predict), Selection(include_low_benefit=True))
    assert everything.proposed == (predict, low)  # no estimate ranks before low
    assert everything.low_benefit == ()


def test_proposes_follows_the_selection(result: AnalysisResult) -> None:
    call, step, _helper, predict = result.functions
    assert Selection().proposes(call) and not Selection().proposes(step)
    removal = replace(predict, transformation="convert_to_eager", benefit="none")
    assert Selection().proposes(removal)  # removals fix a decorator: always proposed
    assert not Selection(select=("HY011",)).proposes(call)
    assert not Selection(ignore=("pkg/*",)).proposes(call)
    low = replace(call, benefit="none")
    assert Selection().holds_back_for_benefit(low)
    assert not Selection(ignore=("pkg/*",)).holds_back_for_benefit(low)  # ignored, not held
    assert not Selection(include_low_benefit=True).holds_back_for_benefit(low)


def test_main_reason_is_the_first_failures_finding(result: AnalysisResult) -> None:
    step = result.functions[1]
    recursion = step.findings[0]  # HY501, is_recursive
    reordered = replace(step, failures=("is_recursive", "has_python_side_effects"))
    assert main_reason(reordered) == recursion
    assert main_reason(step).code == "HY101"  # has_python_side_effects comes first
    keep = Finding("HY005", "has_no_primitive_parameters", "info", "keep", Span(1, 0, 1, 1))
    compiled_fine = changed(step, is_hybrid=True, findings=(keep,))
    assert main_reason(compiled_fine) is None
    assert not is_blocked_tensor_work(compiled_fine)  # nothing blocks a decorator that is right


def test_every_check_says_in_one_line_what_unblocks_it() -> None:
    """The reports show `unblock` beside a blocked function's main reason; a check that
    applies to PyTorch functions names no TensorFlow API outside a `(TensorFlow: ...)` aside."""
    from hybridize.analyzer.checks import registry

    for code, check in registry().items():
        assert check.unblock and "\n" not in check.unblock, code
        assert len(check.unblock) <= 120, code
        if "torch" in check.frameworks:
            neutral = re.sub(r"\(TensorFlow: [^)]*\)", "", check.unblock)
            assert "tf." not in neutral or "torch." in neutral, code  # both spelled, or neither
