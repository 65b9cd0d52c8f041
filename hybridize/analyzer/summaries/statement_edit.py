"""An edited file's summary from its previous one: only the edited top-level statement is
parsed and summarised again, its share spliced into the module's summary, and the
statements after it moved by the lines the edit added or removed.

Typing changes one function or class body at a time; summarising the whole file again at
each keystroke was about a third of what an edit cost the language server. The splice must
give exactly what summarising the whole new text would, so it is taken only when that is
sure, else the caller summarises the whole file:

- the changed lines (the new text is the old one with the lines between a common start and
  a common end replaced, `LineEdit`) lie within one top-level statement's lines
  (`StatementShare`: from the line after the previous statement to its own last); lines
  inserted between two statements go with the next one, or with the previous one when that
  does not parse (an indented line typed after a function's last);
- those lines of the new text parse alone into one statement, shallow enough (`screen`):
  the rest of the file, unchanged, then parses as before around it, its lines moved by as
  many as the edit added (`line_shift`: every later position moves, nothing is walked
  again);
- what the statement adds to the module outside its own definitions (module code: its
  decorators' and defaults' calls, the name it binds; imports; `__all__`) and the number of
  lambdas it holds (the next lambdas' names count them) are the same before and after (at
  the positions the edit moves them to), both versions of it summarised alone after
  stand-ins for what the statements before it add to the module code (a decorator's value
  names a call by its index there) and their lambdas; the version before is the one the
  last splice made when it edited the same statement (typing edits one statement many
  times), else summarised again;
- the names it defines collide with no other statement's (a later definition of the same
  name overwrites an entry in place), and no `# hybridize: ignore` is in the file (whether
  it applies is read from the lines around a definition).

The edited statement's functions then take the place of its old ones in the module's
`functions` (and `classes`), in the walk's order; every other entry, the module code among
them, is the previous summary's own object when no line moved, else that object with its
positions moved.

CPython's tree of the whole text is spliced the same way (`ParsedTree`): the edited
statement's new node in the place of the old one, the later statements' positions moved.
The refactoring plan of the edited buffer reads it (`parse_guard.keep_parse`) rather than
parsing the whole file again at each keystroke.
"""

from __future__ import annotations

import ast
import bisect
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import TypeVar

from hybridize.analyzer.summaries.definition_lines import IGNORE_MARKER
from hybridize.analyzer.summaries.hooks import HookTable
from hybridize.analyzer.summaries.ir import ModuleSummary
from hybridize.analyzer.summaries.line_shift import LineShift, shifted_class, shifted_function
from hybridize.analyzer.summaries.parse_guard import screen
from hybridize.analyzer.summaries.sources import split_lines
from hybridize.analyzer.summaries.summarize import (
    LaidOutSummary,
    StatementShare,
    summarize_laid_out,
)


class ParsedTree:
    """CPython's tree of an editable summary's text, handed on to the next edit's splice,
    which moves the later statements' positions in place: `take` empties the box, so that an
    editable summary used again after that has none (its splice then parses nothing more,
    and the plan parses the whole text itself)."""

    __slots__ = ("tree",)

    def __init__(self, tree: ast.Module | None) -> None:
        self.tree = tree

    def take(self) -> ast.Module | None:
        tree, self.tree = self.tree, None
        return tree


@dataclass(frozen=True, slots=True)
class EditedStatement:
    """The top-level statement the last splice summarised again, by its position among the
    module's statements, and its summary alone (`_summarize_statement`) as the text has it:
    the next edit of the same statement compares against it instead of summarising the old
    version again."""

    index: int
    laid_out: LaidOutSummary


@dataclass(frozen=True, slots=True)
class EditableSummary:
    """A file's summary with what the next edit's splice needs: the text it was made from,
    its lines, each top-level statement's share (None: no splice, `LaidOutSummary`), and the
    statement the last splice summarised, if it was one."""

    text: str
    lines: list[str]
    summary: ModuleSummary
    statements: tuple[StatementShare, ...] | None
    hooks: HookTable
    """The summary hooks the summary ran (a splice runs the same on the edited statement)."""
    edited: EditedStatement | None = None
    parsed: ParsedTree | None = None
    """The tree of `text`, when the summary was made from one (`tree`)."""

    @classmethod
    def of(
        cls, text: str, laid_out: LaidOutSummary, tree: ast.Module, hooks: HookTable
    ) -> EditableSummary:
        return cls(
            text,
            split_lines(text),
            laid_out.summary,
            laid_out.statements,
            hooks,
            None,
            ParsedTree(tree),
        )


@dataclass(frozen=True, slots=True)
class LineEdit:
    """How a text's lines changed: the old lines `first` to `old_last` (1-based, inclusive;
    none when `old_last` is `first - 1`: lines inserted before `first`) became `delta` more
    (or fewer) lines; the lines before and after are the same."""

    first: int
    old_last: int
    delta: int

    @property
    def inserted_only(self) -> bool:
        return self.old_last < self.first


def summarize_edited_statement(previous: EditableSummary, text: str) -> EditableSummary | None:
    """The summary of `text`, an edit of `previous.text`, by summarising again only the
    top-level statement the edit falls in; None when that would not give what summarising
    the whole text gives (the module docstring says when)."""
    statements = previous.statements
    if statements is None or IGNORE_MARKER in text or IGNORE_MARKER in previous.text:
        return None
    lines = split_lines(text)
    edit = _line_edit(previous.lines, lines)
    if edit is None or text.count("\n") - previous.text.count("\n") != edit.delta:
        return None  # unchanged, or a line ends at a lone CR: `line_count` counts LFs
    for index in _candidate_statements(statements, edit, lines):
        spliced = _splice(previous, text, lines, edit, index)
        if spliced is not None:
            return spliced
    return None


def _line_edit(old: list[str], new: list[str]) -> LineEdit | None:
    """Which lines of `old` became which of `new` (None: the same lines)."""
    if old == new:
        return None
    limit = min(len(old), len(new))
    first = 0
    while first < limit and new[first] == old[first]:
        first += 1
    same_end = 0
    while same_end < limit - first and new[-1 - same_end] == old[-1 - same_end]:
        same_end += 1
    return LineEdit(first + 1, len(old) - same_end, len(new) - len(old))


def _candidate_statements(
    statements: tuple[StatementShare, ...], edit: LineEdit, lines: list[str]
) -> Iterator[int]:
    """The statements whose lines hold the edit: the one whose share holds the changed
    lines; for lines inserted between two statements, the next one and the previous one,
    the previous first when the first inserted line is indented (it continues a body)."""
    lasts = [s.last_line for s in statements]
    if not edit.inserted_only:
        index = bisect.bisect_left(lasts, edit.old_last)
        if index < len(statements) and statements[index].first_line <= edit.first:
            yield index
        return
    following = bisect.bisect_left(lasts, edit.first)
    candidates = []
    if following < len(statements) and statements[following].first_line <= edit.first:
        candidates.append(following)
    if following > 0 and statements[following - 1].last_line == edit.first - 1:
        inserted = lines[edit.first - 1]
        indented = inserted[:1] in (" ", "\t") and inserted.strip() != ""
        candidates.insert(0 if indented else len(candidates), following - 1)
    yield from candidates


def _splice(
    previous: EditableSummary, text: str, lines: list[str], edit: LineEdit, index: int
) -> EditableSummary | None:
    """The summary of `text` with statement `index` summarised again (None: the module
    docstring's conditions do not hold)."""
    statements = previous.statements
    assert statements is not None
    share = statements[index]
    last_line = share.last_line + edit.delta
    if last_line < share.first_line:
        return None
    before = _added_up(statements[:index], share.first_line - 1)
    region = _summarize_statement(text, lines, share.first_line, last_line, before, previous.hooks)
    if region is None:
        return None
    new, node = region
    summary = previous.summary
    new_code = new.summary.module_code
    shift = LineShift(share.last_line, edit.delta, summary.module_code.span, new_code.span)
    kept = previous.edited
    if kept is not None and kept.index == index:
        old: LaidOutSummary | None = kept.laid_out
    else:
        found = _summarize_statement(
            previous.text, previous.lines, share.first_line, share.last_line, before, previous.hooks
        )
        old = found[0] if found is not None else None
    if old is None or not _same_outside(old, new, shift):
        return None
    new_share = new.statements[0]  # type: ignore[index]  # checked by _summarize_statement
    if new_share.lambdas != share.lambdas:
        return None
    moved = edit.delta != 0
    functions = _spliced(
        summary.functions,
        before.functions,
        old.summary.functions,
        new.summary.functions,
        (lambda fn: shifted_function(fn, shift)) if moved else None,
    )
    classes = _spliced(
        summary.classes,
        before.classes,
        old.summary.classes,
        new.summary.classes,
        (lambda cls: shifted_class(cls, shift)) if moved else None,
    )
    if functions is None or classes is None:
        return None
    module_code = shifted_function(summary.module_code, shift) if moved else summary.module_code
    spliced = replace(
        summary,
        functions=functions,
        classes=classes,
        module_code=module_code,
        line_count=new.summary.line_count,
    )
    shares = list(statements)
    shares[index] = replace(
        share,
        last_line=new_share.last_line,
        functions=new_share.functions,
        classes=new_share.classes,
    )
    for later in range(index + 1, len(shares)):
        moved_share = shares[later]
        shares[later] = replace(
            moved_share,
            first_line=moved_share.first_line + edit.delta,
            last_line=moved_share.last_line + edit.delta,
        )
    if index + 1 < len(shares):
        # Lines the statement no longer ends on (blank, comments) go with the next one.
        shares[index + 1] = replace(shares[index + 1], first_line=new_share.last_line + 1)
    old_tree = previous.parsed.take() if previous.parsed is not None else None
    tree = _spliced_tree(old_tree, index, node, edit.delta)
    return EditableSummary(
        text,
        lines,
        spliced,
        tuple(shares),
        previous.hooks,
        EditedStatement(index, new),
        ParsedTree(tree),
    )


def _spliced_tree(
    tree: ast.Module | None, index: int, node: ast.stmt, delta: int
) -> ast.Module | None:
    """`tree` with its statement `index` replaced by `node` and the later statements moved
    by `delta` lines (in place: the previous tree is not used again)."""
    if tree is None or index >= len(tree.body):
        return None
    later = tree.body[index + 1 :]
    if delta:
        for statement in later:
            _move_lines(statement, delta)
    return ast.Module(body=[*tree.body[:index], node, *later], type_ignores=[])


_NODE_LINES: dict[type, tuple[bool, tuple[str, ...]]] = {}
"""Per node type: whether it has lines (`lineno`, `end_lineno`), and the fields that may hold
child nodes (its `ctx` aside: `Load` and `Store` have no lines)."""


def _move_lines(statement: ast.stmt, delta: int) -> None:
    """`ast.increment_lineno(statement, delta)`, without its generators (`ast.walk`,
    `iter_child_nodes`): a line-moving edit moves every statement below it, most of a
    large file's nodes, at every keystroke."""
    stack: list[ast.AST] = [statement]
    while stack:
        node = stack.pop()
        node_type = type(node)
        known = _NODE_LINES.get(node_type)
        if known is None:
            known = _NODE_LINES[node_type] = (
                "lineno" in node_type._attributes,
                tuple(f for f in node_type._fields if f != "ctx"),
            )
        has_lines, fields = known
        if has_lines:
            node.lineno = getattr(node, "lineno", 0) + delta  # type: ignore[attr-defined]
            end = getattr(node, "end_lineno", None)
            if end is not None:
                node.end_lineno = end + delta  # type: ignore[attr-defined]
        for name in fields:
            value = getattr(node, name, None)
            if type(value) is list:
                stack.extend(item for item in value if isinstance(item, ast.AST))
            elif isinstance(value, ast.AST):
                stack.append(value)


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
    text: str,
    lines: list[str],
    first_line: int,
    last_line: int,
    before: StatementShare,
    hooks: HookTable,
) -> tuple[LaidOutSummary, ast.stmt] | None:
    """The share of a module's summary the statement on lines `first_line` to `last_line`
    gives, after the statements `before`, and its tree (None: those lines are not one
    statement that parses alone and passes the screen)."""
    region = "\n" * (first_line - 1) + "".join(lines[first_line - 1 : last_line])
    screened = screen(region)
    tree = screened.tree
    if tree is None or screened.problem is not None or len(tree.body) != 1:
        return None
    try:
        laid_out = summarize_laid_out("", text, tree, hooks, lines=lines, before=before)
    except RecursionError:
        return None
    return (laid_out, tree.body[0]) if laid_out.statements is not None else None


def _same_outside(old: LaidOutSummary, new: LaidOutSummary, shift: LineShift) -> bool:
    """Whether the two versions of a statement add the same to their module outside their
    own definitions (the old version's positions where the edit moves them)."""
    a, b = old.summary, new.summary
    old_code = a.module_code
    if shift.delta:
        moved = LineShift(shift.after, shift.delta, old_code.span, b.module_code.span)
        old_code = shifted_function(old_code, moved)
    return (
        old_code == b.module_code
        and a.imports == b.imports
        and a.star_imports == b.star_imports
        and a.all_names == b.all_names
    )


_Entry = TypeVar("_Entry")


def _spliced(
    entries: dict[str, _Entry],
    start: int,
    old: dict[str, _Entry],
    new: dict[str, _Entry],
    moved: Callable[[_Entry], _Entry] | None,
) -> dict[str, _Entry] | None:
    """`entries` with `old`, found from position `start` on, replaced by `new`, those after
    them `moved` (when lines moved); None when `old` is not there or a name of `new` is
    another statement's."""
    items = list(entries.items())
    end = start + len(old)
    if [name for name, _ in items[start:end]] != list(old):
        return None
    for name in new:
        if name in entries and name not in old:
            return None
    spliced = dict(items[:start])
    spliced.update(new)
    if moved is None:
        spliced.update(items[end:])
    else:
        spliced.update((name, moved(entry)) for name, entry in items[end:])
    return spliced
