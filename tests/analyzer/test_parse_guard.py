"""Deep nesting never reaches libcst's native parser: it becomes an error entry, in time.

Each deep input here killed the process (SIGSEGV) or ran for minutes before the guard; every
one is summarised in a child process with a time limit, so a regression fails the test
instead of taking pytest down.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from hybridize.analyzer.summaries.file_summaries import summarize_text
from hybridize.analyzer.summaries.hooks import NO_HOOKS
from hybridize.analyzer.summaries.ir import ModuleSummary
from hybridize.analyzer.summaries.parse_guard import (
    MAX_DEPTH,
    screen,
    token_depth_problem,
    tree_depth,
)
from hybridize.model import FileError

DEEP = {
    "brackets": "x = " + "(" * 5000 + "1" + ")" * 5000,
    "lists": "x = " + "[" * 5000 + "]" * 5000,
    "calls-nested": "x = " + "f(" * 5000 + ")" * 5000,
    "dicts": "x = {" + "1: {" * 1000 + "}" * 1000 + "}",
    "subscripts": "x = y" + "[0]" * 5000,
    "calls-chained": "x = f" + "()" * 5000,
    "attributes": "x = a" + ".b" * 10000,
    "unary": "x = " + "-" * 10000 + "1",
    "not": "x = " + "not " * 10000 + "x",
    "binary": "x = " + "1 + " * 10000 + "1",
    "and": "x = " + "a and " * 20000 + "b",
    "power": "x = " + "2 ** " * 5000 + "2",
    "lambdas": "f = " + "lambda x, y: " * 5000 + "1",
    "conditional": "x = " + "1 if c else " * 5000 + "1",
    "f-string": "x = f'{" + "(" * 5000 + "1" + ")" * 5000 + "}'",
    "elif": "if x:\n    pass\n" + "elif x:\n    pass\n" * 5000,
    "invalid-and-deep": "def (:\n    x = " + "(" * 5000 + ")" * 5000,
    "invalid-and-long-chain": "def (:\n    x = " + "not " * 20000 + "x",
}

SCRIPT = textwrap.dedent(
    """
    import sys
    from hybridize.analyzer.summaries.file_summaries import summarize_text
    from hybridize.analyzer.summaries.hooks import NO_HOOKS
    result = summarize_text("deep.py", sys.stdin.read(), NO_HOOKS)
    print(type(result).__name__, getattr(result, "message", ""))
    """
)


@pytest.mark.parametrize("name", sorted(DEEP))
def test_deep_input_is_an_error_not_a_crash(name: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        input=DEEP[name] + "\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    kind, _, message = done.stdout.partition(" ")
    assert kind == "FileError"
    assert "nested" in message and "deep" in message


@pytest.mark.parametrize(
    "source",
    [
        "x = " + "(" * 40 + "1" + ")" * 40,
        "x = " + " + ".join(["a"] * 60),
        "x = [" + ", ".join(["-1"] * 20000) + "]",
        "x = " + " < ".join(["a"] * 5000),
        "if x:\n    pass\n" + "elif x:\n    pass\n" * 50,
    ],
    ids=["40-brackets", "60-term-sum", "long-flat-list", "long-comparison", "50-elifs"],
)
def test_deep_but_ordinary_code_is_analysed(source: str) -> None:
    assert isinstance(summarize_text("ok.py", source + "\n", NO_HOOKS), ModuleSummary)


def test_depth_counts_each_operand_of_a_boolean_chain() -> None:
    shallow = screen("x = a and b\n")
    deep = screen("x = " + " and ".join(["a"] * (MAX_DEPTH + 5)) + "\n")
    assert shallow.problem is None and shallow.tree is not None
    assert deep.problem is not None and deep.tree is None
    assert tree_depth(shallow.tree) < MAX_DEPTH


def test_the_token_scan_agrees_with_cpython_on_valid_code() -> None:
    """On text CPython parses, the token estimate is an upper bound of the tree depth."""
    import ast

    for depth in (10, 30, 45):
        source = "x = " + "f(" * depth + ")" * depth + "\n"
        assert tree_depth(ast.parse(source)) <= 2 * depth + 4
        assert token_depth_problem(source) is None
    assert token_depth_problem("x = " + "f(" * 60 + ")" * 60 + "\n") is not None


def test_a_syntax_error_keeps_cpythons_words() -> None:
    result = summarize_text("bad.py", "def broken(:\n    pass\n", NO_HOOKS)
    assert isinstance(result, FileError)
    assert result.message.startswith("SyntaxError")
