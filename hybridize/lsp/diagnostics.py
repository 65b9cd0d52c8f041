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

A file opened before the project was solved first gets preliminary diagnostics, from the
facts of the file and of what it imports (`Project.preliminary_file_result`), each marked
as such (`PRELIMINARY_SOURCE`, `PRELIMINARY_NOTE`, `"preliminary": true` in its data), and
then the whole project's, which replace them. Either may be what the other is not: a
preliminary suggestion can be withdrawn (a caller elsewhere runs the function under a
compiled caller) and one can appear. Marking them all says so before it happens, and the
server also logs each suggestion withdrawn (`withdrawn_suggestions`). Withholding the
suggestions until the whole solve would show nothing at all for most of a minute on a large
project, which is what users complained of.
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

PRELIMINARY_SOURCE = "hybridize (preliminary)"
PRELIMINARY_NOTE = (
    " (preliminary: from this file and what it imports; the rest of the project is still "
    "being analysed)"
)
"""How a preliminary diagnostic says it is one: its source (which editors show beside the
message), a note at the end of its message, and `"preliminary": true` in its data. The
whole project's diagnostics replace it a few seconds later, and may differ: a caller in a
module the preliminary analysis did not read may run the function under a compiled caller,
pass it other arguments or call it more often. A suggestion the whole analysis withdraws is
also said in the server's log (`withdrawn_suggestions`)."""

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
    if found.preliminary:
        for diagnostic in out:
            diagnostic.source = PRELIMINARY_SOURCE
            diagnostic.message += PRELIMINARY_NOTE
            diagnostic.data = {**(diagnostic.data or {}), "preliminary": True}
    return out


def withdrawn_suggestions(
    preliminary: list[types.Diagnostic], final: list[types.Diagnostic]
) -> list[str]:
    """What the whole project's diagnostics no longer propose of the preliminary ones (a
    function's transformation, by its code), in words."""
    kept = {(str(d.code), _qualname(d)) for d in final}
    named = {code: name.replace("_", " ") for name, code in TRANSFORMATION_CODES.items()}
    return [
        f"{_qualname(d)}: the analysis of the whole project withdrew the preliminary "
        f"{d.code} ({named[str(d.code)]})"
        for d in preliminary
        if str(d.code) in named and (str(d.code), _qualname(d)) not in kept
    ]


def _qualname(diagnostic: types.Diagnostic) -> str:
    data = diagnostic.data
    name = data.get("qualname") if isinstance(data, dict) else None
    return name if isinstance(name, str) else "?"


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
