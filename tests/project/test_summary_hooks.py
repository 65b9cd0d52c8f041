"""A check's summary hook (`Check.summary_hook`, `summaries/hooks.py`): a rule that needs a
fact of the code as written which the summaries do not record declares it on its check, and
nothing else changes. Shown with a check defined here only: its facts reach its detection in
a fresh analysis and in an incremental one (an edit that moves the function's lines moves the
facts' positions, though no module names the hook's fields); a summary cached before the hook
was added or changed is not read after; node types no hook wants are walked as before.
"""

from __future__ import annotations

import ast
import dataclasses
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pytest

from hybridize.analyzer.cache import SummaryCache
from hybridize.analyzer.checks import (
    TENSORFLOW_AND_TORCH,
    Check,
    checks_for,
    registered,
    summary_hooks,
)
from hybridize.analyzer.checks.context import CheckContext
from hybridize.analyzer.summaries.hooks import (
    FunctionEnd,
    SummaryContext,
    SummaryHook,
    hook_tag,
)
from hybridize.analyzer.summaries.line_shift import LineShift, shifted_function
from hybridize.model import Finding, Span
from hybridize.project import Project, ProjectOptions, summarize_raw

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_incremental import check
from test_statement_edit import SpliceCounter

APP = """\
import tensorflow as tf


def h():
    return 1


def f(x, mode):
    training = mode == "train"
    if training:
        x = x * 2
    return tf.reduce_sum(x)


def g(x):
    return f(x, "eval") + 1


g(tf.ones((3,)))
"""
assert APP.splitlines()[8] == '    training = mode == "train"'  # line 9, columns 4 to 30


@dataclass(frozen=True, slots=True)
class StringComparison:
    """`x == "text"`: the text, how many strings the comparison names, and where."""

    text: str
    strings: int
    span: Span


def _string_comparisons(node: ast.Compare, context: SummaryContext) -> Iterator[StringComparison]:
    texts = [
        c.value
        for c in (node.left, *node.comparators)
        if isinstance(c, ast.Constant) and isinstance(c.value, str)
    ]
    if texts and any(type(op) is ast.Eq for op in node.ops):
        yield StringComparison(texts[0], len(texts), context.statement)


def _first_only(found: Sequence[StringComparison], end: FunctionEnd) -> list[StringComparison]:
    return list(found[:1])


class ComparesWithAString(Check):
    """A test's own check reading a syntactic fact through its summary hook.

    What it detects
    ---------------
    A function that compares a value with a string literal by `==`.

    Why it matters in graph mode
    ----------------------------
    It does not: the test says so.

    Example
    -------
        def f(mode): return mode == "train"

    Instead
    -------
    Nothing.
    """

    code = "HY996"
    name = "compares_with_a_string"
    severity = "warning"
    summary = "A test's own check with a summary hook."
    frameworks: ClassVar[frozenset[str]] = TENSORFLOW_AND_TORCH
    summary_hook = SummaryHook((ast.Compare,), _string_comparisons, _first_only)

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        found: tuple[StringComparison, ...] = context.summary_facts(cls)
        return [cls.finding(f"compares with {c.text!r}", c.span) for c in found]


def _findings(project: Project, qualname: str) -> list[tuple[str, int]]:
    [verdict] = [v for v in project.results().functions if v.qualname == qualname]
    return [(x.message, x.span.start_line) for x in verdict.findings if x.code == "HY996"]


def test_a_hooks_facts_reach_its_detection_fresh_and_after_line_moving_edits(
    make_project: Callable[[dict[str, str | bytes]], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_project({"app.py": APP})
    with registered(ComparesWithAString):
        assert ComparesWithAString in checks_for("tensorflow").values()
        project = Project.open(root, ProjectOptions(use_cache=False))
        check(project, "opened")
        assert _findings(project, "f") == [("compares with 'train'", 9)]
        assert _findings(project, "g") == []
        # A line typed in h, above f: only h is summarised again, f's positions (the hook's
        # value's span among them) are moved (`line_shift`).
        buffer = APP + "# the end\n"
        project.update(root / "app.py", buffer)  # a buffer now: its edits are spliced
        assert _findings(project, "f") == [("compares with 'train'", 9)]
        splices = SpliceCounter()
        monkeypatch.setattr(
            "hybridize.analyzer.summaries.file_summaries.summarize_edited_statement", splices
        )
        moved = buffer.replace("    return 1\n", "    y = 2\n    return 1\n")
        project.update(root / "app.py", moved)
        check(project, "a line added above f")
        assert splices.moved == 1, (splices.spliced, splices.declined)
        assert _findings(project, "f") == [("compares with 'train'", 10)]
        # An edit of f itself: summarised again, the hook asked again.
        project.update(root / "app.py", moved.replace('mode == "train"', '"test" == mode'))
        check(project, "f edited")
        assert _findings(project, "f") == [("compares with 'test'", 10)]
        project.update(root / "app.py", moved.replace('mode == "train"', "mode is None"))
        check(project, "the comparison removed")
        assert _findings(project, "f") == []
    # The registry as before: the summariser runs the package's hooks only.
    assert "HY996" not in summary_hooks().hooks
    assert (
        "HY996"
        not in summarize_raw("app.py", APP.encode(), summary_hooks()).functions["f"].summary_facts
    )


def test_values_of_a_hook_are_moved_by_their_fields_typed_span() -> None:
    with registered(ComparesWithAString):
        summary = summarize_raw("app.py", APP.encode(), summary_hooks())
    fn = summary.functions["f"]
    [before] = ComparesWithAString.summary_facts(fn)
    assert before == StringComparison("train", 1, Span(9, 4, 9, 30))
    shift = LineShift(after=7, delta=10, old_module=summary.module_code.span, new_module=NO_MOVE)
    [after] = ComparesWithAString.summary_facts(shifted_function(fn, shift))
    # Only the Span moved: `strings`, an int, is no line number.
    assert after == dataclasses.replace(before, span=Span(19, 4, 19, 30))


NO_MOVE = Span(1, 0, 100, 0)


def test_a_summary_cached_before_a_hook_is_added_or_changed_is_not_read_after(
    tmp_path: Path,
) -> None:
    cache = SummaryCache.open(tmp_path / "cache")
    raw = APP.encode()
    without = summarize_raw("app.py", raw, summary_hooks())
    cache.put(raw, "app.py", without)
    assert cache.get(raw, "app.py") == without
    with registered(ComparesWithAString):
        # Added: the summary cached without its facts is not read.
        assert cache.get(raw, "app.py") is None
        cache.put(raw, "app.py", summarize_raw("app.py", raw, summary_hooks()))
        cached = cache.get(raw, "app.py")
        assert cached is not None and "HY996" in cached.functions["f"].summary_facts
    assert cache.get(raw, "app.py") == without  # the registry as before: the old key

    class Versioned(ComparesWithAString):
        summary_hook = dataclasses.replace(ComparesWithAString.summary_hook, version=1)

    class Rewritten(ComparesWithAString):
        summary_hook = dataclasses.replace(
            ComparesWithAString.summary_hook, finish=lambda found, end: found
        )

    for changed in (Versioned, Rewritten):
        with registered(changed):
            assert cache.get(raw, "app.py") is None, changed.__name__
    with registered(ComparesWithAString):
        assert cache.get(raw, "app.py") == cached  # the same hook again: the same key


def test_a_hooks_tag_follows_its_code() -> None:
    hook: SummaryHook[Any] = ComparesWithAString.summary_hook  # type: ignore[assignment]
    assert hook_tag(hook) == hook_tag(dataclasses.replace(hook))
    assert hook_tag(hook) != hook_tag(dataclasses.replace(hook, finish=None))
    assert hook_tag(hook) != hook_tag(dataclasses.replace(hook, nodes=(ast.BinOp,)))


SUMMARISE_BEFORE_THE_CHECKS = """
import sys

from hybridize.analyzer.summaries.file_summaries import summarize_text

source = sys.stdin.read()
assert not any(name.startswith("hybridize.analyzer.checks") for name in sys.modules)
try:
    summarize_text("app.py", source)
except TypeError as error:
    print("refused:", error)
from hybridize.analyzer.checks import summary_hooks

summary = summarize_text("app.py", source, summary_hooks())
print(sorted(summary.functions["b"].summary_facts))
"""


def test_a_summary_made_before_the_checks_are_imported_has_their_facts() -> None:
    """The hooks are the summariser's argument, not a table the checks fill in when they
    are imported: in a fresh process that has not imported them, summarising without a
    table fails loudly, and with the registry's gives its hooks' facts (HY429 records the
    `is` comparison of a call's result with an argument)."""
    source = "def a(x):\n    return x\n\n\ndef b(y):\n    return a(y) is y\n"
    done = subprocess.run(
        [sys.executable, "-c", SUMMARISE_BEFORE_THE_CHECKS],
        input=source,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    refused, facts = done.stdout.splitlines()
    assert refused.startswith("refused:") and "hooks" in refused
    assert facts == "['HY429']"


def test_the_packages_hooks_are_the_registrys() -> None:
    """HY429, HY431, HY432 and HY433 record their facts through hooks; the summariser's
    table is the registry's, by node type, in code order."""
    table = summary_hooks()
    assert {"HY429", "HY431", "HY432", "HY433"} <= table.hooks.keys()
    assert [code for code, _ in table.by_type[ast.Compare]] == ["HY429"]
    assert [code for code, _ in table.by_type[ast.BinOp]] == ["HY431", "HY432"]
    assert [code for code, _ in table.by_type[ast.Subscript]] == ["HY432", "HY433"]
    assert ast.Name not in table.by_type
