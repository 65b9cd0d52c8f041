"""The terminal report (`--format text`), in the style of ruff and pyflakes.

One verdict line per listed function, `path:line: qualname: verdict`, followed by its findings as
`  path:line:col: CODE message` (columns 1-based here, as editors and other linters expect when
jumping to `path:line:col`) and its assumptions as `  assumes: ...`; then the files that could not
be analysed as `error: file: message`; then one summary line. Functions are listed by file and
line, so the output depends only on the result, never on analysis order.
"""

from __future__ import annotations

from collections.abc import Iterable

from hybridize.analyzer.sources import display_name
from hybridize.model import AnalysisResult, Finding, FunctionVerdict, Severity

_RESET = "\x1b[0m"
_BOLD = "\x1b[1m"
_DIM = "\x1b[2m"
_RED = "\x1b[31m"
_GREEN = "\x1b[32m"
_YELLOW = "\x1b[33m"
_CYAN = "\x1b[36m"

_SEVERITY_STYLE: dict[Severity, str] = {
    "error": _BOLD + _RED,
    "warning": _YELLOW,
    "info": _CYAN,
    "ok": _DIM,
}


class _Painter:
    """Wraps text in ANSI styles when colour is on; the identity otherwise."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def __call__(self, text: str, style: str) -> str:
        return f"{style}{text}{_RESET}" if self.enabled and text else text


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _one_line(text: str, indent: str) -> str:
    """Keep a multi-line message readable: continuation lines are indented under the first."""
    return text.replace("\r\n", "\n").replace("\n", "\n" + indent)


def verdict_text(verdict: FunctionVerdict) -> str:
    """The verdict in words, without colour: `refactorable (P1, convert_to_hybrid)`,
    `not refactorable: has_python_side_effects, is_recursive`, or `no change`."""
    if verdict.passes:
        detail = [x for x in (verdict.passing_precondition, verdict.transformation) if x]
        return f"refactorable ({', '.join(detail)})" if detail else "refactorable"
    if verdict.failures:
        return "not refactorable: " + ", ".join(verdict.failures)
    return "no change"


def _tags(verdict: FunctionVerdict) -> list[str]:
    tags = []
    if verdict.is_hybrid:
        tags.append("[hybrid]")
    if verdict.speculative:
        tags.append("[speculative]")
    return tags


def _verdict_line(verdict: FunctionVerdict, paint: _Painter) -> str:
    words = verdict_text(verdict)
    if verdict.passes:
        words = paint(words, _BOLD + _GREEN)
    elif verdict.failures:
        head, sep, rest = words.partition(": ")
        words = paint(head, _RED) + sep + rest
    tags = "".join(" " + paint(tag, _DIM) for tag in _tags(verdict))
    location = paint(f"{verdict.file}:{verdict.line}:", _BOLD)
    return f"{location} {verdict.qualname}: {words}{tags}"


def _finding_line(file: str, finding: Finding, paint: _Painter) -> str:
    span = finding.span
    location = f"{file}:{span.start_line}:{span.start_col + 1}:"
    code = paint(finding.code, _SEVERITY_STYLE.get(finding.severity, ""))
    return f"  {location} {code} {_one_line(finding.message, '    ')}"


def _function_lines(verdict: FunctionVerdict, paint: _Painter) -> Iterable[str]:
    yield _verdict_line(verdict, paint)
    ordered = sorted(
        verdict.findings,
        key=lambda f: (f.span.start_line, f.span.start_col, f.code, f.message),
    )
    for finding in ordered:
        yield _finding_line(verdict.file, finding, paint)
    for assumption in verdict.assumptions:
        yield f"  {paint('assumes:', _DIM)} {_one_line(assumption, '    ')}"


def _is_listed(verdict: FunctionVerdict, verbose: bool) -> bool:
    return verbose or verdict.passes or bool(verdict.findings)


def summary_text(result: AnalysisResult) -> str:
    """`N functions, M candidates, K refactorable, E errors in S s`, without colour."""
    return (
        f"{_plural(len(result.functions), 'function')}, "
        f"{_plural(result.candidates, 'candidate')}, "
        f"{result.refactorable} refactorable, "
        f"{_plural(len(result.errors), 'error')} in {result.seconds:.2f} s"
    )


def render_text(result: AnalysisResult, *, color: bool = False, verbose: bool = False) -> str:
    """The terminal report. Without `verbose`, only refactorable functions and functions with
    findings are listed; with it, every function. `color` adds ANSI styles. Ends with a newline.
    """
    paint = _Painter(color)
    lines: list[str] = []
    functions = sorted(result.functions, key=lambda f: (f.file, f.line, f.qualname))
    for verdict in functions:
        if _is_listed(verdict, verbose):
            lines.extend(_function_lines(verdict, paint))
    for error in result.errors:
        lines.append(
            f"{paint('error:', _BOLD + _RED)} {error.file}: {_one_line(error.message, '  ')}"
        )
    if lines:
        lines.append("")
    lines.append(paint(summary_text(result), _BOLD))
    # Undecodable bytes of a name (PEP 383 surrogates) are shown as U+FFFD: printable always.
    return display_name("\n".join(lines) + "\n")
