"""The per-file phase: a file's text -> its summary, or why it has none. A file's summary
depends on nothing but its text and name: `Project` caches it by content (`SummaryCache`) and
makes many in worker processes, one file each (a crash there costs only that file), from
`PARALLEL_THRESHOLD` files on. Kept apart from the project-wide phase (`engine`) so that a
run served by the caches never imports it.
"""

from __future__ import annotations

import ast

from hybridize.analyzer.cycle_collector import no_cyclic_gc
from hybridize.analyzer.summaries.hooks import HookTable
from hybridize.analyzer.summaries.ir import ModuleSummary
from hybridize.analyzer.summaries.parse_guard import keep_parse, screen
from hybridize.analyzer.summaries.statement_edit import (
    EditableSummary,
    summarize_edited_statement,
)
from hybridize.analyzer.summaries.summarize import summarize_laid_out, summarize_module
from hybridize.model import FileError

PARALLEL_THRESHOLD = 40
"""Below this many files a process pool costs more than it saves."""


def summarize_text(relpath: str, text: str, hooks: HookTable) -> ModuleSummary | FileError:
    """A file's summary from its text, with the facts of the summary hooks of `hooks` (the
    registry's: `checks.summary_hooks`), or why it has none."""
    with no_cyclic_gc():
        return _summarize_text(relpath, text, hooks)


def _summarize_text(relpath: str, text: str, hooks: HookTable) -> ModuleSummary | FileError:
    # Nesting is measured first: the summary's walk recurses, and so does libcst's native
    # parser when the refactoring later rewrites a line of the file.
    screened = screen(text)
    if screened.problem is not None:
        return FileError(relpath, screened.problem)
    if screened.tree is None:
        return FileError(relpath, _syntax_error_message(text))
    try:
        return summarize_module(relpath, text, screened.tree, hooks)
    except RecursionError:
        return FileError(relpath, "cannot analyse: the file is nested too deeply")


def summarize_buffer(
    relpath: str, text: str, previous: EditableSummary | None, hooks: HookTable
) -> tuple[ModuleSummary | FileError, EditableSummary | None]:
    """An editor buffer's summary, and what the next edit's needs: from `previous` (the
    buffer's text before) by summarising again only the edited top-level statement when
    that gives the same (`statement_edit`), else from the whole text. A `previous` made
    with other summary hooks than `hooks` is not spliced: its other statements' facts
    are another table's."""
    with no_cyclic_gc():
        if previous is not None and previous.summary.relpath == relpath and previous.hooks is hooks:
            edited = summarize_edited_statement(previous, text)
            if edited is not None:
                tree = edited.parsed.tree if edited.parsed is not None else None
                if tree is not None:  # the plan of the buffer reads it (`take_parse`)
                    keep_parse(text, tree)
                return edited.summary, edited
        screened = screen(text)
        if screened.problem is not None:
            return FileError(relpath, screened.problem), None
        if screened.tree is None:
            return FileError(relpath, _syntax_error_message(text)), None
        try:
            laid_out = summarize_laid_out(relpath, text, screened.tree, hooks)
        except RecursionError:
            return FileError(relpath, "cannot analyse: the file is nested too deeply"), None
        return laid_out.summary, EditableSummary.of(text, laid_out, screened.tree, hooks)


def _syntax_error_message(text: str) -> str:
    """CPython's own words for why it rejects the file (the ones a user knows)."""
    try:
        ast.parse(text)
    except SyntaxError as error:
        return f"SyntaxError: {error.msg} (line {error.lineno})"
    except (ValueError, RecursionError, MemoryError) as error:
        return f"cannot parse: {type(error).__name__}: {error}"
    return "cannot parse the file"
