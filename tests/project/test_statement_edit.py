"""An edited buffer's summary made by summarising only the edited top-level statement again
(`summaries/statement_edit.py`) equals the summary of the whole new text, field by field and
in the same order, edit after edit.

A property test: random edits that keep the number of lines (the splice's case: a print put
before a body line, a lambda, a `return None`, a changed decorator or default, a line that
starts another statement, text that does not parse) and edits that add lines, chained over
files with classes, decorators, lambdas and module code (the corpus and this tool's own
sources), and the same through `Project` on a generated project of importing modules, whose
verdicts must equal a fresh analysis's too. Both paths must be taken, or the test would prove
nothing about the splice.
"""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path

from hybridize.analyzer.checks import summary_hooks
from hybridize.analyzer.summaries import statement_edit
from hybridize.analyzer.summaries.file_summaries import summarize_buffer, summarize_text
from hybridize.analyzer.summaries.ir import ModuleSummary
from hybridize.analyzer.summaries.statement_edit import EditableSummary
from hybridize.model import FileError
from hybridize.project import summarize_raw

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_incremental import (
    _body_edits_and_back,
    _indent,
    _solved_synthetic_project,
    check,
)

REPO = Path(__file__).resolve().parents[2]

SNIPPETS = (
    "print({n}); ",
    "f = lambda v: v + {n}; ",
    "return None; ",
    "x = [w for w in range({n})]; ",
    "@tf.function(jit_compile={n})\n",
    "def g{n}(a=h({n})): pass\n",
    "import os as o{n}; ",
    "(",
    "",
)
"""Text put at the start of a line (after its indentation). A snippet that ends a line adds
one; the others keep the count. `{n}` makes each text new, as typing does."""


def random_edit(text: str, rng: random.Random, n: int) -> str:
    """A snippet put at a random line's indentation, a line replaced by another's, or a
    definition's header changed in place: a function renamed, a decorator's or a default's
    call given another argument (their values index the module code's calls)."""
    lines = text.splitlines(keepends=True)
    if not lines:
        return f"x = {n}\n"
    headers = [i for i, line in enumerate(lines) if line.lstrip().startswith(("def ", "@"))]
    if headers and rng.random() < 0.3:
        index = rng.choice(headers)
        line = lines[index]
        if line.lstrip().startswith("def "):
            lines[index] = re.sub(r"def (\w+)", rf"def \1_{n}", line, count=1)
        else:
            lines[index] = line.replace("(", f"(n{n}(), ", 1) if "(" in line else line
        return "".join(lines)
    index = rng.randrange(len(lines))
    line = lines[index]
    if rng.random() < 0.15:
        lines[index] = lines[rng.randrange(len(lines))]
    elif rng.random() < 0.1:
        lines[index] = "\n"
    else:
        indent = _indent(line) if rng.random() < 0.9 else ""
        snippet = rng.choice(SNIPPETS).format(n=n)
        lines[index] = indent + snippet + line[len(_indent(line)) :]
    return "".join(lines)


class SpliceCounter:
    """Counts the edits `summarize_edited_statement` served (not None), those of them that
    moved lines, and those it declined."""

    def __init__(self) -> None:
        self.spliced = 0
        self.moved = 0
        self.declined = 0
        self.original = statement_edit.summarize_edited_statement

    def __call__(self, previous: EditableSummary, text: str) -> EditableSummary | None:
        result = self.original(previous, text)
        if result is None:
            self.declined += 1
        else:
            self.spliced += 1
            if result.summary.line_count != previous.summary.line_count:
                self.moved += 1
        return result


def assert_same_summary(
    got: ModuleSummary | FileError, expected: ModuleSummary | FileError
) -> None:
    assert got == expected
    if isinstance(got, ModuleSummary) and isinstance(expected, ModuleSummary):
        assert list(got.functions) == list(expected.functions)
        assert list(got.classes) == list(expected.classes)
        assert list(got.module_code.locals) == list(expected.module_code.locals)


def _sources() -> list[Path]:
    corpus = sorted((REPO / "corpus").rglob("*.py"))
    own = sorted((REPO / "hybridize").rglob("*.py"))
    return corpus + own[::6]


def test_random_edits_of_real_files_summarise_as_the_whole_text_does(monkeypatch) -> None:
    counter = SpliceCounter()
    monkeypatch.setattr(
        "hybridize.analyzer.summaries.file_summaries.summarize_edited_statement", counter
    )
    rng = random.Random(36)
    n = 0
    for path in _sources():
        text = path.read_text(encoding="utf-8")
        relpath = path.name
        summary, editable = summarize_buffer(relpath, text, None, summary_hooks())
        assert_same_summary(summary, summarize_text(relpath, text, summary_hooks()))
        for _ in range(6):
            n += 1
            edited = random_edit(text, rng, n)
            summary, new_editable = summarize_buffer(relpath, edited, editable, summary_hooks())
            assert_same_summary(summary, summarize_text(relpath, edited, summary_hooks()))
            if rng.random() < 0.5 or new_editable is None:
                # Undo (as an editor's user does), else go on from the edited text.
                summary, editable = summarize_buffer(
                    relpath, text, new_editable or editable, summary_hooks()
                )
                assert_same_summary(summary, summarize_text(relpath, text, summary_hooks()))
            else:
                text, editable = edited, new_editable
    assert counter.spliced > 100
    assert counter.declined > 100


def test_edits_through_the_project_summarise_and_decide_as_from_scratch(
    tmp_path: Path, monkeypatch
) -> None:
    counter = SpliceCounter()
    monkeypatch.setattr(
        "hybridize.analyzer.summaries.file_summaries.summarize_edited_statement", counter
    )
    project = _solved_synthetic_project(tmp_path)
    rng = random.Random(7)
    files = sorted(f for f in project.files if project.text(f) is not None)
    edits = list(_body_edits_and_back(project, seed=5, edits=6))
    for n in range(12):
        relpath = rng.choice(files)
        original = project.text(relpath)
        assert original is not None
        edits += [(relpath, random_edit(original, rng, n)), (relpath, original)]
    for relpath, text in edits:
        project.update(relpath, text)
        project.results()
        raw = project.snapshot()[relpath]
        assert_same_summary(
            project._summaries[relpath], summarize_raw(relpath, raw, summary_hooks())
        )
    check(project, "after the edits")
    assert counter.spliced >= 3


def test_an_edit_within_one_function_summarises_only_that_function(monkeypatch) -> None:
    """The splice's point: the other functions' summaries are the previous objects."""
    text = "import tensorflow as tf\n\n\ndef f(x):\n    return x\n\n\ndef g(y):\n    return y\n"
    summary, editable = summarize_buffer("m.py", text, None, summary_hooks())
    assert isinstance(summary, ModuleSummary) and editable is not None
    edited = text.replace("return y", "return tf.abs(y)")
    again, _ = summarize_buffer("m.py", edited, editable, summary_hooks())
    assert isinstance(again, ModuleSummary)
    assert again.functions["f"] is summary.functions["f"]
    assert again.module_code is summary.module_code
    assert again.functions["g"] != summary.functions["g"]
    assert_same_summary(again, summarize_text("m.py", edited, summary_hooks()))


MODULE_CALLS_BEFORE = """import tensorflow as tf

SIZE = int("8")
scale = lambda x: x * 2


class Serving(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec(shape=[None, SIZE])])
    def predict(self, x, k=len([1])):
        return scale(x) * k


def after(y=f(lambda z: z)):
    return y
"""


def test_values_of_module_code_in_an_edited_statement_count_what_comes_before() -> None:
    """A decorator's and a default's calls are values of the module code, by their index
    there, and a lambda is named by its number in the module: the statement summarised
    alone must count the module code's calls and the lambdas of the statements before it."""
    _, editable = summarize_buffer("m.py", MODULE_CALLS_BEFORE, None, summary_hooks())
    assert editable is not None
    for old, new in [("predict", "serve"), ("return y", "return -y"), ("* k", "+ k")]:
        edited = MODULE_CALLS_BEFORE.replace(old, new)
        again, spliced = summarize_buffer("m.py", edited, editable, summary_hooks())
        assert spliced is not None and spliced.summary is again
        assert_same_summary(again, summarize_text("m.py", edited, summary_hooks()))
