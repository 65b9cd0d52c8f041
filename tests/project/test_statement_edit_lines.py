"""Edits that add or remove lines (typing Enter, deleting a line, pasting several) are spliced
too (`summaries/statement_edit.py`): the edited statement summarised again, every later
statement's positions moved (`summaries/line_shift.py`), and the result equal, field by
field and positions included, to the summary of the whole new text.

A property test: random line-inserting and line-deleting edits, chained, over the corpus,
this tool's own sources and a generated large module, then the same through `Project`,
whose verdicts (positions, findings, messages) must equal a fresh analysis's. The tests
count the splices that moved lines: they must be most of the edits, or they would prove
nothing about the shift.
"""

from __future__ import annotations

import ast
import dataclasses
import random
import sys
from pathlib import Path

from hybridize.analyzer.checks import summary_hooks
from hybridize.analyzer.summaries.file_summaries import summarize_buffer, summarize_text
from hybridize.analyzer.summaries.ir import FunctionSummary, ModuleSummary
from hybridize.analyzer.summaries.line_shift import POSITIONED_FIELDS
from hybridize.analyzer.summaries.statement_edit import EditableSummary
from hybridize.model import Span
from hybridize.project import Project, ProjectOptions, load_summary_hooks, summarize_raw

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_incremental import _indent, check
from test_statement_edit import SpliceCounter, assert_same_summary

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))
from synthetic_project import generate, write_large_module  # noqa: E402


def line_edit(text: str, rng: random.Random, n: int) -> str:
    """A line inserted (blank, or a statement at the indentation of a line near it, as
    typing Enter then a statement makes), a line deleted, several lines pasted (copied from
    elsewhere in the file), or a line split in two."""
    lines = text.splitlines(keepends=True)
    if not lines:
        return f"x = {n}\n"
    at = rng.randrange(len(lines) + 1)
    near = lines[min(at, len(lines) - 1)]
    choice = rng.random()
    if choice < 0.3:
        indent = _indent(near) if rng.random() < 0.8 else _indent(lines[max(at - 1, 0)])
        lines.insert(
            at, indent + rng.choice(["print({n})", "y{n} = {n}", "pass"]).format(n=n) + "\n"
        )
    elif choice < 0.45:
        lines.insert(at, rng.choice(["\n", "    \n", f"# note {n}\n"]))
    elif choice < 0.75 and at < len(lines):
        del lines[at : at + rng.choice([1, 1, 1, 2, 3])]
    elif choice < 0.9:
        start = rng.randrange(len(lines))
        lines[at:at] = lines[start : start + rng.randint(2, 6)]
    elif at < len(lines):
        line = lines[at]
        cut = rng.randrange(len(line))
        lines[at : at + 1] = [line[:cut] + "\n", _indent(line) + line[cut:]]
    return "".join(lines)


def _large_module(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    generate(root, 600)
    return write_large_module(root, 600)


def _sources(tmp_path: Path) -> list[Path]:
    corpus = sorted((REPO / "corpus").rglob("*.py"))
    own = sorted((REPO / "hybridize").rglob("*.py"))
    return [_large_module(tmp_path), *corpus[::2], *own[::9]]


def test_line_moving_edits_summarise_as_the_whole_text_does(tmp_path: Path, monkeypatch) -> None:
    counter = SpliceCounter()
    monkeypatch.setattr(
        "hybridize.analyzer.summaries.file_summaries.summarize_edited_statement", counter
    )
    load_summary_hooks()  # the checks' hooks record facts with positions (HY429, HY431)
    rng = random.Random(36)
    n = trees = hooked = 0
    for path in _sources(tmp_path):
        text = path.read_text(encoding="utf-8")
        relpath = path.name
        summary, editable = summarize_buffer(relpath, text, None, summary_hooks())
        for _ in range(8):
            n += 1
            edited = line_edit(text, rng, n)
            summary, new_editable = summarize_buffer(relpath, edited, editable, summary_hooks())
            assert_same_summary(summary, summarize_text(relpath, edited, summary_hooks()))
            if isinstance(summary, ModuleSummary):
                hooked += sum(1 for fn in summary.functions.values() if fn.summary_facts)
            if new_editable is not None:
                assert new_editable.statements == _fresh_statements(relpath, edited)
                trees += _assert_same_tree(new_editable, edited)
            if rng.random() < 0.3 or new_editable is None:
                summary, editable = summarize_buffer(
                    relpath, text, new_editable or editable, summary_hooks()
                )
                assert_same_summary(summary, summarize_text(relpath, text, summary_hooks()))
            else:
                text, editable = edited, new_editable
    assert counter.moved > 150
    assert counter.declined > 20
    assert trees > 200
    assert hooked > 20, hooked  # 64 at this commit


def _assert_same_tree(editable: EditableSummary, text: str) -> int:
    """The spliced tree the plan reads equals CPython's tree of the whole text, positions
    included (1: compared; 0: the editable summary holds none)."""
    parsed = editable.parsed
    if parsed is None or parsed.tree is None:
        return 0
    expected = ast.dump(ast.parse(text), include_attributes=True)
    assert ast.dump(parsed.tree, include_attributes=True) == expected
    return 1


def _fresh_statements(relpath: str, text: str) -> object:
    """The statement shares of a fresh summary of `text`: the next edit's splice reads them."""
    fresh = summarize_buffer(relpath, text, None, summary_hooks())[1]
    return fresh.statements if fresh is not None else None


def test_typing_enter_and_deleting_the_line_again_splice_one_statement() -> None:
    """The common edits: a new line in a function body, then deleted; the statements before
    the edit keep their objects, the later ones are moved, not walked again."""
    text = (
        "import tensorflow as tf\n\n\ndef f(x):\n    return x\n\n\n"
        "def g(y):\n    z = tf.abs(y)\n    return z\n\n\n@tf.function\ndef h(w):\n    return g(w)\n"
    )
    summary, editable = summarize_buffer("m.py", text, None, summary_hooks())
    assert isinstance(summary, ModuleSummary) and editable is not None
    entered = text.replace("    z = tf.abs(y)\n", "    z = tf.abs(y)\n    print(z)\n")
    again, spliced = summarize_buffer("m.py", entered, editable, summary_hooks())
    assert isinstance(again, ModuleSummary) and spliced is not None
    assert_same_summary(again, summarize_text("m.py", entered, summary_hooks()))
    assert again.functions["f"] is summary.functions["f"]
    assert again.functions["h"].line == summary.functions["h"].line + 1
    assert again.functions["h"].span.start_line == 15
    assert again.functions["g"].span == Span(8, 0, 11, 12)
    assert again.module_code.span == Span(1, 0, 17, 0)
    back, _ = summarize_buffer("m.py", text, spliced, summary_hooks())
    assert_same_summary(back, summarize_text("m.py", text, summary_hooks()))


def test_every_positioned_field_of_a_function_summary_is_moved() -> None:
    """`line_shift` moves the fields it names; every other field must hold no position, or
    a new positioned field would keep its old lines after a splice."""
    unpositioned = {
        "qualname": str,
        "name": str,
        "class_qualname": str,
        "parent_qualname": str,
        "params": "Param",
        "binds_receiver": bool,
        "returns": "Sym",
        "rebound_at_returns": "names",
        "locals": "Sym",
        "conditions": "Sym",
        "asserted": "Sym",
        "globals_declared": "names",
        "nonlocals_declared": "names",
        "is_generator": bool,
        "yields": "Sym",
        "is_lambda": bool,
        "is_async": bool,
        "may_fall_through": bool,
        "leading_return": "Sym",
        "ignore_comment": bool,
        "docstring": str,
        "has_tensor_methods": bool,
        "loads_receiver": bool,
    }
    names = {f.name for f in dataclasses.fields(FunctionSummary)}
    assert names == POSITIONED_FIELDS | unpositioned.keys()
    assert not POSITIONED_FIELDS & unpositioned.keys()


def test_line_moving_edits_through_the_project_decide_as_from_scratch(tmp_path: Path) -> None:
    counter = SpliceCounter()
    root = tmp_path / "project"
    generate(root, 800)
    large = write_large_module(root, 400)
    relpath = large.relative_to(root).as_posix()
    project = Project.open(root, ProjectOptions(use_cache=False))
    project.results()
    import hybridize.analyzer.summaries.file_summaries as file_summaries

    original = file_summaries.summarize_edited_statement
    file_summaries.summarize_edited_statement = counter  # type: ignore[assignment]
    try:
        rng = random.Random(5)
        text = large.read_text(encoding="utf-8")
        for n in range(16):
            edited = line_edit(text, rng, n)
            project.update(relpath, edited)
            project.results()
            assert_same_summary(
                project._summaries[relpath],
                summarize_raw(relpath, project.snapshot()[relpath], summary_hooks()),
            )
            if n % 3 == 2:
                check(project, f"edit {n}")
            if isinstance(project._summaries[relpath], ModuleSummary) and rng.random() < 0.7:
                text = edited  # go on from it, else undo (a broken text always)
            project.update(relpath, text)
            project.results()
        check(project, "after the edits")
    finally:
        file_summaries.summarize_edited_statement = original  # type: ignore[assignment]
    assert counter.moved >= 5, (counter.moved, counter.declined)


MOVED_MODULE = """\
import tensorflow as tf

SCALE = 2.0


def first(x):
    y = tf.square(x)
    return y


def second(x):
    return first(x) * SCALE


def third(x):
    return second(x) + 1.0


print(third(tf.ones([2])))
"""


def test_a_line_moving_edit_resets_only_the_edited_function() -> None:
    """Enter typed in `first`: `second`, `third` and the module code only moved (their
    summaries are the old ones moved a line down), so the solver evaluates them again but
    starts only `first` from nothing, and the verdicts still equal a fresh analysis's."""
    from hybridize.analyzer.summaries.interface import edited_keys
    from hybridize.analyzer.summaries.keys import FunctionKey

    edited_text = MOVED_MODULE.replace(
        "    y = tf.square(x)\n", "    y = tf.square(x)\n    z = 1\n"
    )
    old = summarize_raw("m.py", MOVED_MODULE.encode(), summary_hooks())
    new = summarize_raw("m.py", edited_text.encode(), summary_hooks())
    assert isinstance(old, ModuleSummary) and isinstance(new, ModuleSummary)
    found = edited_keys(old, new)
    assert found is not None
    assert found.edited == {FunctionKey("m.py", "first")}
    assert found.moved == {FunctionKey("m.py", q) for q in ("second", "third", "<module>")}

    project = Project.from_texts({"m.py": MOVED_MODULE}, ProjectOptions(use_cache=False))
    project.results()
    project.update("m.py", edited_text)
    check(project, "Enter typed")
    solver = project.analysis.solver
    assert solver is not None and solver.journal is not None, "the edit was solved incrementally"
    assert FunctionKey("m.py", "first") in solver.journal.reset
    assert not found.moved & solver.journal.reset


def test_a_module_statement_added_with_the_lines_is_no_move() -> None:
    """A line of module code inserted between two functions changes the module code itself,
    not only its positions: every function of the module counts as edited."""
    from hybridize.analyzer.summaries.interface import edited_keys

    edited_text = MOVED_MODULE.replace("\n\ndef second", "\nOTHER = 3\n\ndef second")
    old = summarize_raw("m.py", MOVED_MODULE.encode(), summary_hooks())
    new = summarize_raw("m.py", edited_text.encode(), summary_hooks())
    assert isinstance(old, ModuleSummary) and isinstance(new, ModuleSummary)
    assert edited_keys(old, new) is None
