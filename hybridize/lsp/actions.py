"""Code actions: each function's planned change, all of a file's, and "ignore this function".

Every edit is computed by the project's planner on the buffer's text (`Project.function_plan`,
`FileResult.plan`, `Project.ignored_text`), so applying it gives exactly what
`hybridize refactor` would write for that text; here it is only turned into LSP text edits.

- `quickfix` per function the plan changes: its own transformation (add the decorator with its
  assumption comment and inferred `input_signature`, remove it, or reconfigure it), with the
  imports it needs;
  titled "(verified by your tests)" when the project's verify report (`hybridize refactor
  --verify`), newer than the file, lists that change as verified, and the editor's buffer
  holds what the disk does (unsaved edits were not tested);
- `quickfix` "ignore": inserts `# hybridize: ignore` above the function;
- `source.hybridize`: every planned change of the file at once. A kind of its own rather than
  `source.fixAll`, so that an editor's "fix all on save" does not add decorators unasked.
"""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types

from hybridize.lsp.diagnostics import name_span
from hybridize.lsp.positions import Lines, text_edits
from hybridize.model import FunctionVerdict
from hybridize.notebook_files import is_notebook
from hybridize.project import FileResult, Project, encode_buffer
from hybridize.verify.report import verified_functions

SOURCE_ACTION = "source.hybridize"


def _overlaps(a: types.Range, b: types.Range) -> bool:
    start_a, end_a = (a.start.line, a.start.character), (a.end.line, a.end.character)
    start_b, end_b = (b.start.line, b.start.character), (b.end.line, b.end.character)
    return start_a <= end_b and start_b <= end_a


def _wanted(kind: str, only: Sequence[str] | None) -> bool:
    return not only or any(kind == k or kind.startswith(k + ".") for k in only)


def _edit(uri: str, old: str, new: str, encoding: str) -> types.WorkspaceEdit:
    return types.WorkspaceEdit(changes={uri: text_edits(old, new, encoding)})


def code_actions(
    project: Project,
    found: FileResult,
    uri: str,
    requested: types.Range,
    context: types.CodeActionContext,
    encoding: str,
) -> list[types.CodeAction]:
    """The actions available in `requested` of the file `found` (at `uri`)."""
    if found.text is None:
        return []
    lines = Lines(found.text, encoding)
    only = context.only
    actions: list[types.CodeAction] = []
    changes = {c.qualname: c for c in found.plan.changes} if found.plan else {}
    verified = frozenset[str]()
    if changes:
        # an open buffer is judged by its own bytes (a notebook's cells are not its file's)
        buffer = found.file in project.buffers and not is_notebook(found.file)
        verified = verified_functions(
            project.base,
            project.base / found.file,
            buffer=encode_buffer(found.text) if buffer else None,
        )
    for verdict in found.verdicts:
        change = changes.get(verdict.qualname)
        if change is None:
            continue
        diagnostics = [
            d
            for d in context.diagnostics
            if isinstance(d.data, dict) and d.data.get("qualname") == verdict.qualname
        ]
        if not diagnostics and not _overlaps(_function_range(verdict, lines), requested):
            continue
        if _wanted(types.CodeActionKind.QuickFix, only):
            plan = project.function_plan(found.file, verdict.qualname)
            if plan is not None:
                actions.append(
                    types.CodeAction(
                        title=f"hybridize: {change.description} ({verdict.qualname})"
                        + (" (verified by your tests)" if verdict.qualname in verified else ""),
                        kind=types.CodeActionKind.QuickFix,
                        diagnostics=diagnostics or None,
                        is_preferred=True,
                        edit=_edit(uri, found.text, plan.new_text, encoding),
                    )
                )
            ignored = project.ignored_text(found.file, verdict.qualname, verdict.line)
            if ignored is not None:
                actions.append(
                    types.CodeAction(
                        title=f"hybridize: ignore {verdict.qualname} (# hybridize: ignore)",
                        kind=types.CodeActionKind.QuickFix,
                        diagnostics=diagnostics or None,
                        edit=_edit(uri, found.text, ignored, encoding),
                    )
                )
    if found.plan is not None and _wanted(SOURCE_ACTION, only):
        count = len(found.plan.changes)
        actions.append(
            types.CodeAction(
                title=f"hybridize: apply every planned change in this file ({count})",
                kind=SOURCE_ACTION,
                edit=_edit(uri, found.text, found.plan.new_text, encoding),
            )
        )
    return actions


def _function_range(verdict: FunctionVerdict, lines: Lines) -> types.Range:
    """From the function's name to the end of its `def` line: where a cursor asks about it."""
    name = lines.span_range(name_span(verdict, lines))
    return types.Range(start=types.Position(line=name.start.line, character=0), end=name.end)
