"""A file's verdicts as LSP diagnostics.

- A function the plan changes gets one diagnostic on its name: Information for HY010 (add
  `@tf.function`), Warning for HY011 (remove it) and HY012 (reconfigure it), with the verdict's
  own one-line reason (and the assumption of a speculative verdict). Only what the plan changes
  is reported, so `--select`/`--ignore` settings and `# hybridize: ignore` silence it.
- With hints on, the findings of a blocked function that does tensor work (the report's
  "blocked" section, `triage.is_blocked_tensor_work`) are Hints on the lines that cause them.

What the plan changes is what `Selection.proposes` picks, the one definition the reports and
`hybridize refactor` share: the editor proposes what the command line proposes.

Every diagnostic's code links to that code's documentation (`codeDescription.href`), see
`docs`.
"""

from __future__ import annotations

import re

from lsprotocol import types

from hybridize.lsp.docs import CodeDocs
from hybridize.lsp.positions import Lines
from hybridize.model import Finding, FunctionVerdict, Span
from hybridize.output.triage import blocking_findings, is_blocked_tensor_work
from hybridize.project import FileResult
from hybridize.refactor.selection import TRANSFORMATION_CODES

SOURCE = "hybridize"

SEVERITIES = {
    "HY010": types.DiagnosticSeverity.Information,
    "HY011": types.DiagnosticSeverity.Warning,
    "HY012": types.DiagnosticSeverity.Warning,
}


def name_span(verdict: FunctionVerdict, lines: Lines) -> Span:
    """The span of the function's name on its `def` line (the whole `def` line when the
    name is not where it is expected, e.g. a `def` continued over a backslash)."""
    line = verdict.span.start_line
    text = lines.content(line - 1)
    name = verdict.qualname.rsplit(".", 1)[-1]
    pattern = re.compile(rf"(?:async\s+)?def\s+({re.escape(name)})\b")
    match = pattern.search(text, min(verdict.span.start_col, len(text)))
    if match is None:
        return Span(line, 0, line, len(text))
    return Span(line, match.start(1), line, match.end(1))


def file_diagnostics(
    found: FileResult, lines: Lines, docs: CodeDocs, *, hints: bool
) -> list[types.Diagnostic]:
    """The diagnostics of one file, in line order."""
    out: list[types.Diagnostic] = []
    planned = {c.qualname for c in found.plan.changes} if found.plan else set()
    for verdict in found.verdicts:
        if verdict.qualname in planned and verdict.transformation in TRANSFORMATION_CODES:
            out.append(_transformation(verdict, lines, docs))
        elif hints and is_blocked_tensor_work(verdict):
            out.extend(_hint(verdict, f, lines, docs) for f in blocking_findings(verdict))
    out.sort(key=lambda d: (d.range.start.line, d.range.start.character, str(d.code)))
    return out


def _transformation(verdict: FunctionVerdict, lines: Lines, docs: CodeDocs) -> types.Diagnostic:
    assert verdict.transformation is not None
    code = TRANSFORMATION_CODES[verdict.transformation]
    finding = next((f for f in verdict.findings if f.code == code), None)
    message = finding.message if finding is not None else verdict.transformation
    if verdict.facts.speculative and verdict.assumptions:
        message += f" (assumes: {'; '.join(verdict.assumptions)})"
    if verdict.benefit is not None and verdict.benefit_reasons:
        message += f"; benefit {verdict.benefit}: {verdict.benefit_reasons[0]}"
    return types.Diagnostic(
        range=lines.span_range(name_span(verdict, lines)),
        message=f"{verdict.qualname}: {message}",
        severity=SEVERITIES[code],
        code=code,
        code_description=docs.description(code),
        source=SOURCE,
        data={"qualname": verdict.qualname, "line": verdict.line},
    )


def _hint(
    verdict: FunctionVerdict, finding: Finding, lines: Lines, docs: CodeDocs
) -> types.Diagnostic:
    return types.Diagnostic(
        range=lines.span_range(finding.span),
        message=(
            f"{verdict.qualname}: {finding.message}"
            if verdict.facts.is_hybrid
            else f"{verdict.qualname} stays eager: {finding.message}"
        ),
        severity=types.DiagnosticSeverity.Hint,
        code=finding.code,
        code_description=docs.description(finding.code),
        source=SOURCE,
        data={"qualname": verdict.qualname, "line": verdict.line},
    )
