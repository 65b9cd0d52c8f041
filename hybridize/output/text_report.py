"""The terminal report (`--format text`), in the style of ruff and pyflakes.

It leads with what to do (sections of `triage`): the proposed changes, exactly those
`hybridize refactor` makes, ranked by predicted benefit; the safe changes predicted not to pay,
one line each, with the flag that makes them; then the blocked functions that do tensor work
(TensorFlow or PyTorch), ranked by predicted benefit, each with the one thing that would
unblock its main reason (`Check.unblock`); functions with nothing to compile only with `-v`.
One verdict line per listed function, `path:line: qualname: verdict [tags]`, followed by the
main benefit reason, its findings as `  path:line:col: CODE message` (columns 1-based here, as
editors and other linters expect when jumping to `path:line:col`; one line per code, the
other lines of the same code listed after it) and its assumptions as `  assumes: ...`; then the
files that could not be analysed as `error: file: message`, a table of findings per code and
one summary line whose counts are the sections'. Within a section functions are listed by
predicted benefit, file and line, so the output depends only on the result, never on analysis
order."""

from __future__ import annotations

from collections.abc import Iterable

from hybridize.analyzer.summaries.sources import display_name
from hybridize.model import AnalysisResult, Finding, FunctionVerdict, Severity
from hybridize.output.summary import (
    BOLD,
    RESET,
    ReportTotals,
    plural,
    summary_words,
    text_summary_line,
)
from hybridize.output.triage import Triage, main_reason
from hybridize.refactor.selection import Selection

_DIM = "\x1b[2m"
_RED = "\x1b[31m"
_GREEN = "\x1b[32m"
_YELLOW = "\x1b[33m"
_CYAN = "\x1b[36m"

_SEVERITY_STYLE: dict[Severity, str] = {
    "error": BOLD + _RED,
    "warning": _YELLOW,
    "info": _CYAN,
    "ok": _DIM,
}


class _Painter:
    """Wraps text in ANSI styles when colour is on; the identity otherwise."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def __call__(self, text: str, style: str) -> str:
        return f"{style}{text}{RESET}" if self.enabled and text else text


def _one_line(text: str, indent: str) -> str:
    """Keep a multi-line message readable: continuation lines are indented under the first."""
    return text.replace("\r\n", "\n").replace("\n", "\n" + indent)


def verdict_text(verdict: FunctionVerdict) -> str:
    """The verdict in words, without colour: `refactorable (convert_to_hybrid)`,
    `not refactorable: has_python_side_effects, is_recursive`, or `no change`. (The
    precondition that passed, `passing_precondition` P1..P6 of docs/verdicts.md, is in the
    JSON report; it tells a user nothing here.)"""
    if verdict.passes:
        return (
            f"refactorable ({verdict.transformation})" if verdict.transformation else "refactorable"
        )
    if verdict.failures:
        return "not refactorable: " + ", ".join(verdict.failures)
    return "no change"


def _tags(verdict: FunctionVerdict) -> list[str]:
    tags = []
    if verdict.facts.is_hybrid:
        tags.append("[hybrid]")
    if verdict.facts.speculative:
        tags.append("[speculative]")
    if verdict.passes and verdict.benefit is not None:
        tags.append(f"[benefit: {verdict.benefit}]")
    return tags


def _verdict_line(verdict: FunctionVerdict, paint: _Painter, result: AnalysisResult) -> str:
    words = verdict_text(verdict)
    if verdict.passes:
        words = paint(words, BOLD + _GREEN)
    elif verdict.failures:
        head, sep, rest = words.partition(": ")
        words = paint(head, _RED) + sep + rest
    tags = "".join(" " + paint(tag, _DIM) for tag in _tags(verdict))
    location = paint(f"{result.place(verdict.file, verdict.line)}:", BOLD)
    return f"{location} {verdict.qualname}: {words}{tags}"


def _finding_line(file: str, finding: Finding, paint: _Painter, result: AnalysisResult) -> str:
    span = finding.span
    location = f"{result.place(file, span.start_line)}:{span.start_col + 1}:"
    code = paint(finding.code, _SEVERITY_STYLE.get(finding.severity, ""))
    return f"  {location} {code} {_one_line(finding.message, '    ')}"


def _collapsed(findings: Iterable[Finding]) -> list[tuple[Finding, list[int]]]:
    """Findings by position, one line per code: a model's `__init__` storing eighteen
    attributes says HY107 once, with the other lines listed after it."""
    ordered = sorted(
        findings, key=lambda f: (f.span.start_line, f.span.start_col, f.code, f.message)
    )
    first: dict[str, tuple[Finding, list[int]]] = {}
    for finding in ordered:
        if finding.code in first:
            first[finding.code][1].append(finding.span.start_line)
        else:
            first[finding.code] = (finding, [])
    return list(first.values())


def _function_lines(
    verdict: FunctionVerdict, paint: _Painter, result: AnalysisResult
) -> Iterable[str]:
    yield _verdict_line(verdict, paint, result)
    if verdict.benefit is not None and verdict.passes and verdict.benefit_reasons:
        yield f"  {paint('benefit:', _DIM)} {_one_line(verdict.benefit_reasons[0], '    ')}"
    for finding, more in _collapsed(verdict.findings):
        line = _finding_line(verdict.file, finding, paint, result)
        if more:
            lines = sorted(set(more))
            cells = result.cell_maps.get(verdict.file)
            if cells is not None:  # a notebook: each place as `cell C:L`
                where = ", ".join(cells.where(n) for n in lines)
                line += f" (and {len(more)} more: {where})"
            else:
                where = ", ".join(str(n) for n in lines)
                line += f" (and {len(more)} more: line{'s' if len(lines) > 1 else ''} {where})"
        yield line
    for assumption in verdict.assumptions:
        yield f"  {paint('assumes:', _DIM)} {_one_line(assumption, '    ')}"


def _code_table(functions: Iterable[FunctionVerdict]) -> list[str]:
    """Findings per code, most frequent first: where a project's problems concentrate."""
    counts: dict[str, int] = {}
    names: dict[str, str] = {}
    for verdict in functions:
        for finding in verdict.findings:
            counts[finding.code] = counts.get(finding.code, 0) + 1
            names.setdefault(finding.code, finding.name)
    if not counts:
        return []
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    width = len(str(rows[0][1]))
    return ["Findings by code:"] + [
        f"  {code} {count:>{width}}  {names[code]}" for code, count in rows
    ]


def summary_text(result: AnalysisResult, selection: Selection | None = None) -> str:
    """`N functions, P proposed (L more with --include-low-benefit), B blocked, E errors in
    S s`, without colour."""
    return summary_words(ReportTotals.of(result, selection), result.seconds)


def render_text(
    result: AnalysisResult,
    *,
    color: bool = False,
    verbose: bool = False,
    selection: Selection | None = None,
) -> str:
    """The terminal report: `text_body`, then the summary line (`text_summary_line`)."""
    totals = ReportTotals.of(result, selection)
    summary = text_summary_line(totals, result.seconds, color=color)
    return text_body(result, color=color, verbose=verbose, selection=selection) + summary


def _unblock_line(verdict: FunctionVerdict, paint: _Painter) -> Iterable[str]:
    """`  main reason: HY101 ...; to unblock: ...` of a blocked function."""
    from hybridize.analyzer.checks import registry

    reason = main_reason(verdict)
    if reason is None:
        return
    check = registry().get(reason.code)
    advice = check.unblock if check is not None else ""
    if advice:
        yield f"  {paint(f'to unblock ({reason.code}):', _DIM)} {_one_line(advice, '    ')}"


def text_body(
    result: AnalysisResult,
    *,
    color: bool = False,
    verbose: bool = False,
    selection: Selection | None = None,
) -> str:
    """The terminal report but its summary line, leading with what to do.

    First the proposed changes (`triage`: exactly what `hybridize refactor` makes with
    `selection`), ranked by predicted benefit; then the safe changes predicted not to pay,
    one line each, with the flag that makes them; then the blocked functions that do tensor
    work, ranked by predicted benefit, each with its findings and the one thing that would
    unblock its main reason; with `verbose`, every other function; then the files that could
    not be analysed, a table of findings per code, and a blank line. `color` adds ANSI
    styles. The output depends only on the result, never on analysis order. Ends with a
    newline.
    """
    paint = _Painter(color)
    lines: list[str] = []
    functions = sorted(result.functions, key=lambda f: (f.file, f.line, f.qualname))
    triage = Triage.of(functions, selection)
    if triage.proposed:
        lines.append(
            paint(
                f"Proposed changes ({len(triage.proposed)}): what `hybridize refactor` makes, "
                "by predicted benefit:",
                BOLD,
            )
        )
        for verdict in triage.proposed:
            lines.extend(_function_lines(verdict, paint, result))
    if triage.low_benefit:
        lines.append(
            paint(
                f"Safe but predicted not to pay ({len(triage.low_benefit)}): made only with "
                "`hybridize refactor --include-low-benefit`:",
                BOLD,
            )
        )
        for verdict in triage.low_benefit:
            if verbose:
                lines.extend(_function_lines(verdict, paint, result))
            else:
                lines.append(_verdict_line(verdict, paint, result))
    if triage.blocked:
        lines.append(
            paint(
                f"Blocked functions that do tensor work ({len(triage.blocked)}), "
                "by predicted benefit:",
                BOLD,
            )
        )
        for verdict in triage.blocked:
            lines.extend(_function_lines(verdict, paint, result))
            lines.extend(_unblock_line(verdict, paint))
    others = triage.others
    if verbose and others:
        lines.append(paint(f"Other functions ({len(others)}):", BOLD))
        for verdict in others:
            lines.extend(_function_lines(verdict, paint, result))
    elif others:
        lines.append(
            paint(
                f"{plural(len(others), 'other function')} without tensor work to "
                "compile (listed with -v)",
                _DIM,
            )
        )
    for error in result.errors:
        lines.append(
            f"{paint('error:', BOLD + _RED)} {error.file}: {_one_line(error.message, '  ')}"
        )
    table = _code_table(functions)
    if table:
        lines.append("")
        lines.extend(table)
    if lines:
        lines.append("")
    # Undecodable bytes of a name (PEP 383 surrogates) are shown as U+FFFD: printable always.
    return display_name("".join(line + "\n" for line in lines))
