"""The verdicts of functions an edit only moved: the old verdict with its lines moved.

An edit that adds or removes lines above a function (`interface.ModuleEdit.moved`: its
summary is the old one with every position moved by the same number of lines) leaves what
the function computes as it was, but not where: its call sites, literal arguments and
findings hold absolute positions. When everything its verdict reads is the old value with
the lines of the edited file moved (`LineShift`), its verdict is the old one with those lines
moved: the verdict phase renders it so instead of deciding it again.

Three pieces make that exact:

- `shifted_value` moves the positions of the edited file inside any fact (a call site, a
  literal argument's site, an atom): an entry of the fact tables equal to its old value so
  moved changed only by the edit's lines (`verdict_scope.compare_facts` names such keys
  `shifted`: a function whose inputs changed only so is no reason to decide its callers
  again);
- a verdict's structured positions (its function's line and span, its findings' spans, all
  in its own file) move with `LineShift`, exactly: a line above the edit stays, one below it
  moves (`shifted_verdict`);
- a line written into the words of a verdict with its file (`facts/cited_lines.py`) moves
  with the lines of that file, whichever it is, and is written as digits only when the
  verdict is published (`rendered_verdict`); a position written as digits ("(line 12)",
  "m.py:12") names no file and may be another file's line: a verdict with such words is
  decided again (`cites_lines`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Collection, Mapping
from typing import Any, TypeVar

from hybridize.analyzer.facts import cited_lines
from hybridize.analyzer.facts.evaluator import LiteralSite
from hybridize.analyzer.facts.frozen_state import Write
from hybridize.analyzer.facts.helper_safety import Hazard, HelperSummary
from hybridize.analyzer.summaries.line_shift import LineShift
from hybridize.model import Finding, FunctionVerdict, Span

_T = TypeVar("_T")

_LINE_CITATION = re.compile(r"line \d|:\d")
"""How the words of a finding, failure or reason cite a line: "(line 12)", "(m.py, line
12)", "m.py:12" (any digit after a colon counts: a false alarm costs a decision, no more)."""


def shifted_value(value: _T, shifts: Mapping[str, LineShift], file: str) -> _T:
    """`value` with every span of a moved file moved as its lines were (`shifts`, by file),
    the same object where nothing moved. The spans of a value are in `file` (the file of the
    function whose entry it is), but for a `LiteralSite`'s, which are its caller's, and a
    `Write`'s, its writer's."""
    shift = shifts.get(file)
    return _shifted(value, shifts, shift) if shifts else value


def moved_value(value: _T, shifts: Mapping[str, LineShift], file: str) -> _T:
    """`shifted_value`, and the lines cited in its words (`cited_lines`) moved with the
    lines of their files: what a value worked out of a function's facts and callees (an
    effect summary) is after an edit that only moved lines, from its value before."""
    return _shifted(value, shifts, shifts.get(file), words=True) if shifts else value


def moved_helper_summary(
    summary: HelperSummary, shifts: Mapping[str, LineShift], file: str
) -> HelperSummary:
    """A function's helper summary (`helper_safety`) after an edit that only moved lines
    (`shifts`, by file), from its summary before: its hazards' lines (of `file`) and the
    lines their words cite moved."""
    shift = shifts.get(file)

    def hazard(old: Hazard) -> Hazard:
        line = old.line if shift is None else shift.line(old.line)
        what = _moved_words(old.what, shifts)
        return (
            old if line == old.line and what is old.what else Hazard(what, line, old.python_value)
        )

    return HelperSummary(
        summary.returns,
        {fact: hazard(h) for fact, h in summary.always.items()},
        {fact: {p: hazard(h) for p, h in by.items()} for fact, by in summary.when.items()},
    )


def _moved_words(words: str, shifts: Mapping[str, LineShift]) -> str:
    """The words with the lines they cite (`cited_lines`) moved with the lines of their files."""
    if not cited_lines.cites(words):
        return words

    def line(cited: str, number: int) -> int:
        found = shifts.get(cited)
        return number if found is None else found.line(number)

    moved = cited_lines.moved(words, line)
    return words if moved == words else moved


def _shifted(
    value: _T, shifts: Mapping[str, LineShift], shift: LineShift | None, words: bool = False
) -> _T:
    if isinstance(value, Span):
        return value if shift is None else shift.span(value)  # type: ignore[return-value]
    if isinstance(value, str):
        return _moved_words(value, shifts) if words else value  # type: ignore[return-value]
    if isinstance(value, int | float | bool | type(None)):
        return value
    if isinstance(value, LiteralSite):
        shift = shifts.get(value.caller.file)
    elif isinstance(value, Write):
        shift = shifts.get(value.writer.file)
    if isinstance(value, tuple | list):
        items = [_shifted(v, shifts, shift, words) for v in value]
        if all(a is b for a, b in zip(items, value, strict=True)):
            return value
        if hasattr(value, "_fields"):  # a named tuple
            return type(value)(*items)
        return type(value)(items)
    if isinstance(value, set | frozenset):
        found = {_shifted(v, shifts, shift, words) for v in value}
        return value if found == value else type(value)(found)
    if isinstance(value, dict):
        pairs = [
            (_shifted(k, shifts, shift), _shifted(v, shifts, shift, words))
            for k, v in value.items()
        ]
        if all(a is k and b is v for (a, b), (k, v) in zip(pairs, value.items(), strict=True)):
            return value
        return dict(pairs)  # type: ignore[return-value]
    names = _field_names(type(value))
    if names is None:
        return value
    changes = {}
    for name in names[0]:
        old = getattr(value, name)
        new = _shifted(old, shifts, shift, words)
        if new is not old:
            changes[name] = new
    return dataclasses.replace(value, **changes) if changes else value  # type: ignore[type-var]


def _replaced(value: _T, **changes: object) -> _T:
    """`dataclasses.replace` for the frozen verdict values this module moves (a `Finding`, a
    `FunctionFacts`, a `FunctionVerdict`: no `__post_init__`, every field set by the
    constructor), without calling the constructor: an edit moves hundreds of verdicts."""
    kind = type(value)
    names = _field_names(kind)
    assert names is not None and names[0] == names[1], kind
    new = object.__new__(kind)
    for name in names[1]:
        object.__setattr__(new, name, changes[name] if name in changes else getattr(value, name))
    return new


_FieldNames = tuple[tuple[str, ...], tuple[str, ...]] | None

_FIELD_NAMES: dict[type, _FieldNames] = {}


def _field_names(kind: type) -> _FieldNames:
    """The names of a dataclass's fields set by its constructor, and of all its fields (None:
    `kind` is no dataclass): found once per class, not at every value walked."""
    try:
        return _FIELD_NAMES[kind]
    except KeyError:
        pass
    found: _FieldNames = None
    if dataclasses.is_dataclass(kind):
        fields = dataclasses.fields(kind)
        found = tuple(f.name for f in fields if f.init), tuple(f.name for f in fields)
    _FIELD_NAMES[kind] = found
    return found


def moved_only(old: object, new: object, shifts: Mapping[str, LineShift], file: str) -> bool:
    """`new` is `old` with the spans of the moved files moved (`shifted_value(old, shifts,
    file) == new`), found by walking the two together: a part equal in both is not walked
    (a part of the new facts equal to the old one holds no span the edit moved, or it would
    hold the span moved)."""
    return _moved_only(old, new, shifts, shifts.get(file))


def _moved_only(
    old: object, new: object, shifts: Mapping[str, LineShift], shift: LineShift | None
) -> bool:
    if old is new or old == new:
        return True
    if type(old) is not type(new):
        return False
    if isinstance(old, Span):
        return shift is not None and shift.span(old) == new
    if isinstance(old, LiteralSite):
        shift = shifts.get(old.caller.file)
    elif isinstance(old, Write):
        shift = shifts.get(old.writer.file)
    if isinstance(old, tuple | list) and isinstance(new, tuple | list):
        return len(old) == len(new) and all(
            _moved_only(a, b, shifts, shift) for a, b in zip(old, new, strict=True)
        )
    if isinstance(old, dict) and isinstance(new, dict) and old.keys() == new.keys():
        return all(_moved_only(v, new[k], shifts, shift) for k, v in old.items())
    names = _field_names(type(old))
    if names is not None:
        return all(
            _moved_only(getattr(old, name), getattr(new, name), shifts, shift) for name in names[1]
        )
    return _shifted(old, shifts, shift) == new


def moved_state(
    before: Mapping[Any, object],
    now: Mapping[Any, object],
    states: Collection[object],
    shifts: Mapping[str, LineShift],
) -> set[object]:
    """The `states` (`frozen_state.StateKey`) whose writes differ between `before` and `now`
    (`frozen_state_writes`) by more than the lines an edit moved (`shifts`)."""
    return {s for s in states if not moved_only(before.get(s), now.get(s), shifts, "")}


def _words(verdict: FunctionVerdict) -> list[str | None]:
    """The words of a verdict that may cite a line (its benefit's reasons aside: the phase
    estimates the benefit again)."""
    return [
        verdict.facts.input_signature_absence_reason,
        verdict.passing_precondition,
        verdict.transformation,
        *verdict.failures,
        *verdict.assumptions,
        *(f.message for f in verdict.findings),
    ]


def cites_lines(verdict: FunctionVerdict) -> bool:
    """Some words of the verdict cite a line as digits (`_LINE_CITATION`): a position whose
    file they do not name, which `moved_verdict` cannot move (a `cited_lines.cited_line`
    it moves)."""
    return any(
        w is not None and _LINE_CITATION.search(cited_lines.without_citations(w))
        for w in _words(verdict)
    )


def shifted_verdict(verdict: FunctionVerdict, shift: LineShift) -> FunctionVerdict:
    """The verdict of a function an edit moved (`shift`), from its verdict before: its
    positions (the function's, its findings', all in its own file) moved with the lines.
    Only for a verdict whose words cite no line as digits (`cites_lines`); the lines they
    cite with their files `moved_verdict` moves."""
    facts = verdict.facts
    return _replaced(
        verdict,
        facts=_replaced(facts, line=shift.line(facts.line), span=shift.span(facts.span)),
        findings=tuple(_shifted_finding(f, shift) for f in verdict.findings),
    )


def moved_verdict(
    verdict: FunctionVerdict, shifts: Mapping[str, LineShift], file: str
) -> FunctionVerdict:
    """The verdict of a function of `file` after an edit that moved the lines of `shifts`
    (by file), from its verdict before: its positions moved (`shifted_verdict`) and the
    lines its words cite (`cited_lines`), each with the lines of its own file. Only for a
    verdict whose words cite no line as digits (`cites_lines`)."""
    shift = shifts.get(file)
    moved = verdict if shift is None else shifted_verdict(verdict, shift)
    if not any(w is not None and cited_lines.cites(w) for w in _words(moved)):
        return moved
    return _with_words(moved, lambda w: _moved_words(w, shifts))


def kept_moved(
    decided: FunctionVerdict, final: FunctionVerdict, shifts: Mapping[str, LineShift], file: str
) -> tuple[FunctionVerdict, FunctionVerdict] | None:
    """The verdict as decided and as published (`decided`, `final`: the last phase's) of a
    function of `file` that an edit only moved and whose verdict is not decided again, not
    even its benefit (nothing it reads changed by more than the lines of `shifts`): the
    verdict moved (`moved_verdict`) with the lines its benefit's reasons cite moved too, and
    the published one rendered from it, with the benefit the phase published
    (`inside_proposed_graphs` may have replaced it). None when some of their words cite a
    line as digits (`cites_lines`; for the published benefit: a line nothing can move)."""
    if cites_lines(decided) or any(
        _LINE_CITATION.search(cited_lines.without_citations(r)) for r in decided.benefit_reasons
    ):
        return None
    replaced = (
        final.benefit != decided.benefit
        or final.benefit_rule != decided.benefit_rule
        or final.benefit_reasons != tuple(map(cited_lines.rendered, decided.benefit_reasons))
    )
    if replaced and any(_LINE_CITATION.search(r) for r in final.benefit_reasons):
        return None
    moved = moved_verdict(decided, shifts, file)
    if any(cited_lines.cites(r) for r in moved.benefit_reasons):
        moved = dataclasses.replace(
            moved, benefit_reasons=tuple(_moved_words(r, shifts) for r in moved.benefit_reasons)
        )
    published = rendered_verdict(moved)
    if replaced:
        published = dataclasses.replace(
            published,
            benefit=final.benefit,
            benefit_reasons=final.benefit_reasons,
            benefit_rule=final.benefit_rule,
        )
    return moved, published


def rendered_verdict(verdict: FunctionVerdict) -> FunctionVerdict:
    """The verdict as published: the lines its words and its benefit's reasons cite
    (`cited_lines`) as their numbers alone. The verdict phase keeps the verdict as decided,
    to move those lines after an edit (`moved_verdict`; the benefit it estimates again)."""
    if not any(
        w is not None and cited_lines.cites(w) for w in [*_words(verdict), *verdict.benefit_reasons]
    ):
        return verdict
    return dataclasses.replace(
        _with_words(verdict, cited_lines.rendered),
        benefit_reasons=tuple(cited_lines.rendered(r) for r in verdict.benefit_reasons),
    )


def _with_words(verdict: FunctionVerdict, change: Callable[[str], str]) -> FunctionVerdict:
    facts = verdict.facts
    reason = facts.input_signature_absence_reason
    return dataclasses.replace(
        verdict,
        facts=facts
        if reason is None
        else dataclasses.replace(facts, input_signature_absence_reason=change(reason)),
        passing_precondition=None
        if verdict.passing_precondition is None
        else change(verdict.passing_precondition),
        transformation=None if verdict.transformation is None else change(verdict.transformation),
        failures=tuple(change(w) for w in verdict.failures),
        assumptions=tuple(change(w) for w in verdict.assumptions),
        findings=tuple(_with_message(f, change(f.message)) for f in verdict.findings),
    )


def _with_message(finding: Finding, message: str) -> Finding:
    """The finding with `message`: itself where its words stay (most cite no line)."""
    return finding if message == finding.message else _replaced(finding, message=message)


def _shifted_finding(finding: Finding, shift: LineShift) -> Finding:
    return _replaced(
        finding,
        span=shift.span(finding.span),
        related=tuple(shift.span(s) for s in finding.related),
    )
