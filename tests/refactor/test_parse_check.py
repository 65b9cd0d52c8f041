"""The planner's parse check on the edited regions says what a parse of the whole new text
says: random edits of the corpus's programs (decorators, imports, lines that break the
syntax, at statement starts, inside statements and at the ends of the file)."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

from hybridize.refactor.edits import EditConflict, LineEdit, apply_edits
from hybridize.refactor.parse_check import edited_parse_problem, parse_problem

CORPUS = Path(__file__).resolve().parents[2] / "corpus"
PROGRAMS = sorted(CORPUS.rglob("*.py"))

INSERTIONS = (
    "@tf.function\n",
    "import tensorflow as tf\n",
    "    @tf.function(reduce_retracing=True)\n",
    "x = (\n",
    "    return 1\n",
    "# a comment\n",
    "'''\n",
    "\n",
)


def _random_edits(lines: list[str], rng: random.Random) -> list[LineEdit]:
    edits = []
    for _ in range(rng.randint(1, 3)):
        start = rng.randint(1, len(lines) + 1)
        if rng.random() < 0.6 or start > len(lines):
            edits.append(LineEdit(start, start, rng.choice(INSERTIONS)))
        else:
            end = min(len(lines) + 1, start + rng.randint(1, 2))
            edits.append(LineEdit(start, end, rng.choice(("", *INSERTIONS))))
    return edits


def test_the_programs_are_there() -> None:
    assert len(PROGRAMS) > 20


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.stem)
def test_edited_regions_judge_as_the_whole_text(program: Path) -> None:
    text = program.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    tree = ast.parse(text)
    rng = random.Random(program.name)
    seen = {True: 0, False: 0}
    fixed = [
        [LineEdit(1, 1, "# a comment\n")],
        [LineEdit(len(lines) + 1, len(lines) + 1, "x = (\n")],
    ]
    for edits in fixed + [_random_edits(lines, rng) for _ in range(25)]:
        try:
            new_text = apply_edits(lines, edits)
        except EditConflict:
            continue
        expected = parse_problem(new_text)
        assert edited_parse_problem(tree, lines, edits, new_text) == expected, edits
        seen[expected is None] += 1
    assert seen[True] and seen[False]  # both outcomes were exercised


def test_a_decorator_added_before_a_def_parses_with_it() -> None:
    text = "import tensorflow as tf\n\n\ndef f(x):\n    return x\n"
    lines = text.splitlines(keepends=True)
    edits = [LineEdit(4, 4, "@tf.function\n")]
    new_text = apply_edits(lines, edits)
    assert edited_parse_problem(ast.parse(text), lines, edits, new_text) is None
    broken = [LineEdit(5, 5, "@tf.function\n")]  # between the def and its body
    problem = edited_parse_problem(ast.parse(text), lines, broken, apply_edits(lines, broken))
    assert problem is not None and "line 5" in problem
