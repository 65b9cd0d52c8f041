"""The terminal report: verdict lines, findings, assumptions, errors, summary."""

from __future__ import annotations

import re
from dataclasses import replace

from verdict_parts import changed

from hybridize.analyzer.checks import registry
from hybridize.model import AnalysisResult, Finding, Span
from hybridize.output.text_report import render_text, summary_text, verdict_text
from hybridize.refactor.selection import Selection

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def test_short_report_exact_text(result: AnalysisResult) -> None:
    assert render_text(result) == (
        "Proposed changes (2): what `hybridize refactor` makes, by predicted benefit:\n"
        "pkg/model.py:12: Model.call: refactorable (convert_to_hybrid) [speculative]\n"
        "  assumes: `x` is assumed to be a tensor: `call` of a Keras Model receives tensors\n"
        "pkg/model.py:40: Model.predict: refactorable (reconfigure) [hybrid]\n"
        "  pkg/model.py:40:9: HY202 signature already right\n"
        "  pkg/model.py:41:9: HY201 shapes vary\n"
        "Blocked functions that do tensor work (1), by predicted benefit:\n"
        "pkg/train.py:30: train_step: not refactorable: has_python_side_effects, is_recursive\n"
        "  pkg/train.py:32:5: HY101 print() runs only while tracing\n"
        "  pkg/train.py:38:12: HY501 train_step calls itself\n"
        f"  to unblock (HY101): {registry()['HY101'].unblock}\n"
        "1 other function without tensor work to compile (listed with -v)\n"
        "error: bad.py: SyntaxError: invalid syntax (line 3)\n"
        "error: dir with space/é#1.py: UnicodeDecodeError: invalid start byte\n"
        "\n"
        "Findings by code:\n"
        "  HY101 1  has_python_side_effects\n"
        "  HY201 1  retracing\n"
        "  HY202 1  fine\n"
        "  HY501 1  is_recursive\n"
        "\n"
        "4 functions, 2 proposed, 1 blocked, 2 errors in 0.41 s\n"
    )


def test_short_report_hides_functions_without_transformation_or_findings(
    result: AnalysisResult,
) -> None:
    text = render_text(result)
    assert "helper" not in text
    assert "pkg/util.py" not in text


def test_verbose_report_lists_every_function(result: AnalysisResult) -> None:
    lines = render_text(result, verbose=True).splitlines()
    assert "pkg/util.py:3: helper: not refactorable: has_no_tensor_parameters" in lines
    verdict_lines = [line for line in lines if line.startswith("pkg/")]
    assert len(verdict_lines) == 4
    # The other functions come last, after their heading.
    assert lines.index("Other functions (1):") + 1 == lines.index(
        "pkg/util.py:3: helper: not refactorable: has_no_tensor_parameters"
    )


def test_proposed_changes_are_ranked_by_benefit(result: AnalysisResult) -> None:
    call, step, helper, predict = result.functions
    low = replace(call, benefit="low", benefit_reasons=("runs in a loop, but tiny",))
    high = changed(
        predict, qualname="Z.fit", line=90, benefit="high", benefit_reasons=("a training step",)
    )
    functions = (low, step, helper, high)
    everything = Selection(include_low_benefit=True)
    lines = render_text(replace(result, functions=functions), selection=everything).splitlines()
    high_line = "pkg/model.py:90: Z.fit: refactorable (reconfigure) [hybrid] [benefit: high]"
    low_line = (
        "pkg/model.py:12: Model.call: refactorable (convert_to_hybrid) [speculative] [benefit: low]"
    )
    assert lines.index(high_line) < lines.index(low_line)  # despite its later line
    assert lines[lines.index(high_line) + 1] == "  benefit: a training step"
    assert lines[lines.index(low_line) + 1] == "  benefit: runs in a loop, but tiny"


def test_low_benefit_changes_are_listed_apart_with_their_flag(result: AnalysisResult) -> None:
    """By default a low-benefit addition is not proposed (refactor does not make it): it is
    listed after the proposals, one line, under the flag that makes it; the summary agrees."""
    call, step, helper, predict = result.functions
    low = replace(call, benefit="low", benefit_reasons=("runs in a loop, but tiny",))
    text = render_text(replace(result, functions=(low, step, helper, predict)))
    lines = text.splitlines()
    assert (
        lines[0] == "Proposed changes (1): what `hybridize refactor` makes, by predicted benefit:"
    )
    heading = (
        "Safe but predicted not to pay (1): made only with "
        "`hybridize refactor --include-low-benefit`:"
    )
    low_line = (
        "pkg/model.py:12: Model.call: refactorable (convert_to_hybrid) [speculative] [benefit: low]"
    )
    assert lines[lines.index(heading) + 1] == low_line
    assert lines.index(heading) > lines.index("  pkg/model.py:41:9: HY201 shapes vary")
    assert "benefit: runs in a loop" not in text  # its details only with -v
    assert lines[-1] == (
        "4 functions, 1 proposed (1 more with --include-low-benefit), 1 blocked, 2 errors in 0.41 s"
    )


def test_blocked_functions_rank_by_benefit_with_what_unblocks_them(
    result: AnalysisResult,
) -> None:
    step = result.functions[1]
    later = changed(step, qualname="later_step", line=90, benefit="high")
    earlier = replace(step, benefit="none")
    init = changed(step, qualname="Model.__init__", line=5)
    no_gain = changed(step, qualname="main", line=1, failures=("has_no_tensor_parameters",))
    text = render_text(replace(result, functions=(earlier, later, init, no_gain), errors=()))
    lines = text.splitlines()
    assert lines[0] == "Blocked functions that do tensor work (2), by predicted benefit:"
    assert lines[1].startswith("pkg/train.py:90: later_step:")
    assert lines.index(f"  to unblock (HY101): {registry()['HY101'].unblock}") == 4
    assert "Model.__init__" not in text and ": main:" not in text  # no leads: listed with -v
    assert "2 other functions without tensor work to compile (listed with -v)" in lines


def test_findings_of_one_code_collapse_into_one_line(result: AnalysisResult) -> None:
    stores = tuple(
        Finding("HY107", "has_python_side_effects", "error", f"stores self.w{n}", Span(n, 8, n, 9))
        for n in (14, 12, 13, 12)
    )
    step = replace(result.functions[1], findings=stores)
    lines = render_text(replace(result, functions=(step,), errors=())).splitlines()
    hy107 = [line for line in lines if "HY107 stores" in line]
    assert hy107 == ["  pkg/train.py:12:9: HY107 stores self.w12 (and 3 more: lines 12, 13, 14)"]
    assert "  HY107 4  has_python_side_effects" in lines  # the table counts every finding


def test_finding_columns_are_one_based(result: AnalysisResult) -> None:
    text = render_text(result)
    assert "  pkg/train.py:32:5: HY101 print() runs only while tracing\n" in text  # model col 4
    finding = Finding("HY101", "x", "error", "at the start", Span(1, 0, 1, 3))
    verdict = replace(result.functions[1], findings=(finding,))
    text = render_text(replace(result, functions=(verdict,)))
    assert "  pkg/train.py:1:1: HY101 at the start\n" in text


def test_findings_are_sorted_by_position_within_a_function(result: AnalysisResult) -> None:
    lines = render_text(result).splitlines()
    start = lines.index(
        "pkg/train.py:30: train_step: not refactorable: has_python_side_effects, is_recursive"
    )
    assert lines[start + 1].startswith("  pkg/train.py:32:5: HY101")
    assert lines[start + 2].startswith("  pkg/train.py:38:12: HY501")


def test_output_does_not_depend_on_function_order(result: AnalysisResult) -> None:
    shuffled = replace(result, functions=tuple(reversed(result.functions)))
    assert render_text(shuffled) == render_text(result)
    assert render_text(shuffled, verbose=True) == render_text(result, verbose=True)


def test_verdict_words(result: AnalysisResult) -> None:
    call, step, helper, predict = result.functions
    assert verdict_text(call) == "refactorable (convert_to_hybrid)"
    assert verdict_text(predict) == "refactorable (reconfigure)"
    assert verdict_text(step) == "not refactorable: has_python_side_effects, is_recursive"
    assert verdict_text(helper) == "not refactorable: has_no_tensor_parameters"
    assert verdict_text(replace(helper, failures=())) == "no change"
    bare = replace(call, passing_precondition=None, transformation=None)
    assert verdict_text(bare) == "refactorable"


def test_summary_singular_and_plural(result: AnalysisResult, empty_result: AnalysisResult) -> None:
    assert summary_text(result) == "4 functions, 2 proposed, 1 blocked, 2 errors in 0.41 s"
    one = replace(result, functions=result.functions[:1], errors=result.errors[:1], seconds=2)
    assert summary_text(one) == "1 function, 1 proposed, 0 blocked, 1 error in 2.00 s"


def test_empty_result_is_just_the_summary(empty_result: AnalysisResult) -> None:
    assert render_text(empty_result) == "0 functions, 0 proposed, 0 blocked, 0 errors in 0.00 s\n"
    assert render_text(empty_result, verbose=True) == render_text(empty_result)


def test_errors_only(empty_result: AnalysisResult, result: AnalysisResult) -> None:
    text = render_text(replace(empty_result, errors=result.errors))
    assert text.splitlines() == [
        "error: bad.py: SyntaxError: invalid syntax (line 3)",
        "error: dir with space/é#1.py: UnicodeDecodeError: invalid start byte",
        "",
        "0 functions, 0 proposed, 0 blocked, 2 errors in 0.00 s",
    ]


def test_unicode_names_and_messages(unicode_result: AnalysisResult) -> None:
    assert render_text(unicode_result) == (
        "Blocked functions that do tensor work (1), by predicted benefit:\n"
        "données/modèle.py:7: Modèle.appel: not refactorable: has_python_side_effects\n"
        "  données/modèle.py:8:9: HY101 écrit dans « journal » → une fois\n"
        f"  to unblock (HY101): {registry()['HY101'].unblock}\n"
        "\n"
        "Findings by code:\n"
        "  HY101 1  has_python_side_effects\n"
        "\n"
        "1 function, 0 proposed, 1 blocked, 0 errors in 1.00 s\n"
    )


def test_multiline_messages_stay_indented(result: AnalysisResult) -> None:
    finding = Finding("HY101", "x", "error", "first\nsecond", Span(5, 2, 5, 3))
    verdict = replace(result.functions[1], findings=(finding,))
    text = render_text(replace(result, functions=(verdict,), errors=()))
    assert "  pkg/train.py:5:3: HY101 first\n    second\n" in text


def test_color_adds_ansi_only_when_asked(result: AnalysisResult) -> None:
    plain = render_text(result, verbose=True)
    colored = render_text(result, color=True, verbose=True)
    assert "\x1b[" not in plain
    assert "\x1b[" in colored
    assert ANSI.sub("", colored) == plain  # colour changes nothing but styling
    assert "\x1b[1m\x1b[31mHY101\x1b[0m" in colored  # error findings are red
    assert "\x1b[1m\x1b[32mrefactorable (convert_to_hybrid)\x1b[0m" in colored
