"""An edited file's summary from its previous one: only the edited top-level statement is
parsed and summarised again, and its share spliced into the module's summary.

Typing changes one function or class body at a time; summarising the whole file again at
each keystroke was about a third of what an edit cost the language server. The splice must
give exactly what summarising the whole new text would, so it is taken only when that is
sure, else the caller summarises the whole file:

- no line is added or removed (every later position stays where it was), and the changed
  lines lie within one top-level statement's lines (`StatementShare`: from the line after
  the previous statement to its own last);
- those lines of the new text parse alone into one statement, shallow enough (`screen`):
  the rest of the file, unchanged, then parses as before around it;
- what the statement adds to the module outside its own definitions (module code: its
  decorators' and defaults' calls, the name it binds; imports; `__all__`) and the number of
  lambdas it holds (the next lambdas' names count them) are the same before and after, both
  versions of it summarised alone after stand-ins for what the statements before it add to
  the module code (a decorator's value names a call by its index there) and their lambdas;
- the names it defines collide with no other statement's (a later definition of the same
  name overwrites an entry in place), and no `# hybridize: ignore` is in the file (whether
  it applies is read from the lines around a definition).

The edited statement's functions then take the place of its old ones in the module's
`functions` (and `classes`), in the walk's order; every other entry, the module code among
them, is the previous summary's own object.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, replace
from typing import TypeVar

from hybridize.analyzer.summaries.definition_lines import IGNORE_MARKER
from hybridize.analyzer.summaries.ir import ModuleSummary
from hybridize.analyzer.summaries.parse_guard import screen
from hybridize.analyzer.summaries.sources import split_lines
from hybridize.analyzer.summaries.summarize import (
    LaidOutSummary,
    StatementShare,
    summarize_laid_out,
)


@dataclass(frozen=True, slots=True)
class EditableSummary:
    """A file's summary with what the next edit's splice needs: the text it was made from,
    its lines, and each top-level statement's share (None: no splice, `LaidOutSummary`)."""

    text: str
    lines: list[str]
    summary: ModuleSummary
    statements: tuple[StatementShare, ...] | None

    @classmethod
    def of(cls, text: str, laid_out: LaidOutSummary) -> EditableSummary:
        return cls(text, split_lines(text), laid_out.summary, laid_out.statements)


def summarize_edited_statement(previous: EditableSummary, text: str) -> EditableSummary | None:
    """The summary of `text`, an edit of `previous.text`, by summarising again only the
    top-level statement the edit falls in; None when that would not give what summarising
    the whole text gives (the module docstring says when)."""
    statements = previous.statements
    if statements is None or IGNORE_MARKER in text or IGNORE_MARKER in previous.text:
        return None
    old_lines = previous.lines
    lines = split_lines(text)
    changed = _changed_lines(old_lines, lines)
    line_count = text.count("\n") + 1
    if changed is None or line_count != previous.summary.line_count:
        return None
    first_changed, last_changed = changed
    index = bisect.bisect_left([s.last_line for s in statements], last_changed)
    if index == len(statements) or statements[index].first_line > first_changed:
        return None
    share = statements[index]
    before = _added_up(statements[:index], share.first_line - 1)
    new = _summarize_statement(text, lines, share, before)
    old = _summarize_statement(previous.text, old_lines, share, before)
    if new is None or old is None or not _same_outside(old, new):
        return None
    new_share = new.statements[0]  # type: ignore[index]  # checked by _summarize_statement
    if new_share.lambdas != share.lambdas:
        return None
    summary = previous.summary
    functions = _spliced(
        summary.functions, before.functions, old.summary.functions, new.summary.functions
    )
    classes = _spliced(summary.classes, before.classes, old.summary.classes, new.summary.classes)
    if functions is None or classes is None:
        return None
    spliced = replace(summary, functions=functions, classes=classes)
    shares = list(statements)
    shares[index] = replace(share, functions=new_share.functions, classes=new_share.classes)
    return EditableSummary(text, lines, spliced, tuple(shares))


def _changed_lines(old: list[str], new: list[str]) -> tuple[int, int] | None:
    """The first and last line (1-based) where `new` differs from `old`, which has as many;
    None when they differ in number, or not at all."""
    if len(old) != len(new):
        return None
    first = 0
    while first < len(new) and new[first] == old[first]:
        first += 1
    if first == len(new):
        return None
    last = len(new) - 1
    while new[last] == old[last]:
        last -= 1
    return first + 1, last + 1


def _added_up(shares: tuple[StatementShare, ...], last_line: int) -> StatementShare:
    """The share of the statements `shares` together, which end at `last_line`."""
    return StatementShare(
        1,
        last_line,
        sum(s.functions for s in shares),
        sum(s.classes for s in shares),
        sum(s.lambdas for s in shares),
        sum(s.module_calls for s in shares),
        sum(s.module_loops for s in shares),
    )


def _summarize_statement(
    text: str, lines: list[str], share: StatementShare, before: StatementShare
) -> LaidOutSummary | None:
    """The share of a module's summary the statement at `share`'s lines gives, after the
    statements `before` (None: those lines are not one statement that parses alone and
    passes the screen)."""
    region = "\n" * (share.first_line - 1) + "".join(lines[share.first_line - 1 : share.last_line])
    screened = screen(region)
    tree = screened.tree
    if tree is None or screened.problem is not None or len(tree.body) != 1:
        return None
    try:
        laid_out = summarize_laid_out("", text, tree, lines=lines, before=before)
    except RecursionError:
        return None
    return laid_out if laid_out.statements is not None else None


def _same_outside(old: LaidOutSummary, new: LaidOutSummary) -> bool:
    """Whether the two versions of a statement add the same to their module outside their
    own definitions."""
    a, b = old.summary, new.summary
    return (
        a.module_code == b.module_code
        and a.imports == b.imports
        and a.star_imports == b.star_imports
        and a.all_names == b.all_names
    )


_Entry = TypeVar("_Entry")


def _spliced(
    entries: dict[str, _Entry], start: int, old: dict[str, _Entry], new: dict[str, _Entry]
) -> dict[str, _Entry] | None:
    """`entries` with `old`, found from position `start` on, replaced by `new`; None when
    `old` is not there or a name of `new` is another statement's."""
    items = list(entries.items())
    end = start + len(old)
    if [name for name, _ in items[start:end]] != list(old):
        return None
    for name in new:
        if name in entries and name not in old:
            return None
    spliced = dict(items[:start])
    spliced.update(new)
    spliced.update(items[end:])
    return spliced
