"""After an incremental solve, `Project` decides again only the functions an edit can reach
(`hybridize/analyzer/decisions/verdict_scope.py`) and keeps the other verdicts: the full verdict list must still
equal that of an analysis from scratch, edit after edit.

Random edits of a generated project whose modules import each other (a body changed, a call
added, a print or a `global` write put in, a function tf.function-decorated): each is
checked, then undone and checked again, and the test asserts that most phases took the
incremental path (they would prove nothing otherwise) and decided only part of the project.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from pathlib import Path

from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.project import Project, ProjectOptions

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_incremental import _functions, _indent, add_call, change_body, check, generate


def print_argument(text: str, rng: random.Random) -> str | None:
    """Print the first parameter at the start of a function (an effect that flows up to
    every caller), without moving any other line: the statement joins the first one."""
    functions = [f for f in _functions(text) if f.args.args]
    if not functions:
        return None
    fn = rng.choice(functions)
    first = fn.body[0]
    if first.lineno != first.end_lineno:
        return None
    lines = text.splitlines(keepends=True)
    line = lines[first.lineno - 1]
    name = fn.args.args[-1].arg
    lines[first.lineno - 1] = f"{_indent(line)}print({name}); {line.lstrip()}"
    return "".join(lines)


def decorate(text: str, rng: random.Random) -> str | None:
    """Put `@tf.function` on a top-level function (its callees become covered) on the line
    of its `def`, so that no line moves."""
    lines = text.splitlines(keepends=True)
    tops = [i for i, line in enumerate(lines) if line.startswith("def ")]
    if not tops:
        return None
    i = rng.choice(tops)
    lines[i] = lines[i].replace("def ", "@tf.function\ndef ", 1)
    return "".join(lines)


def literal_call(text: str, rng: random.Random) -> str | None:
    """Pass a different Python literal at one call of a two-parameter function (the callee
    may now retrace on each value), on the line of an existing statement."""
    lines = text.splitlines(keepends=True)
    sites = [i for i, line in enumerate(lines) if "tf.ones((4," in line and "scale_" in line]
    if not sites:
        return None
    i = rng.choice(sites)
    lines[i] = lines[i].replace(", 2.0)", f", {rng.choice(['3.0', '0.5', 'epochs'])})")
    return "".join(lines)


EDITS = [change_body, add_call, print_argument, decorate, literal_call]


def test_incremental_verdicts_equal_fresh_analyses_over_random_edits(tmp_path: Path) -> None:
    root = tmp_path / "synthetic"
    generate(root, 2_000)
    project = Project.open(root, ProjectOptions(use_cache=False))
    check(project, "opened")
    total = len(project.results().functions)
    files = sorted(f for f in project.files if project.text(f) is not None)
    rng = random.Random(11)
    phases = 0
    partial = 0
    for i in range(10):
        relpath = rng.choice(files)
        original = project.text(relpath)
        assert original is not None
        edit = rng.choice(EDITS)
        changed = edit(original, rng)
        if changed is None or changed == original:
            continue
        for text, what in ((changed, "edited"), (original, "undone")):
            before = project.analysis.incremental_verdicts
            project.update(relpath, text)
            check(project, f"edit {i}: {edit.__name__} on {relpath} {what}:\n{text}")
            phases += 1
            if project.analysis.incremental_verdicts > before:
                partial += project.analysis.decided_again < total
    assert phases >= 10
    assert partial >= phases // 2


HELPERS = """\
import tensorflow as tf

from ops import squares


def dims(x):
    return x.shape.as_list()


def total(x):
    return tf.reduce_sum(squares(x))
"""

DEEP = """\
import tensorflow as tf


def squares(x):
    return tf.square(x)"""

MAIN = """\
import tensorflow as tf

from helpers import dims, total


def run(x):
    shape = dims(x)
    return total(x) + len(shape)


for _ in range(100):
    run(tf.ones([2]))
"""


def test_a_callee_whose_caller_changed_how_it_uses_the_result_is_decided_again(
    make_project: Callable[[dict[str, str | bytes]], Path],
) -> None:
    """`dims` and `total` keep their facts and callees when `run` starts printing what `dims`
    returns, so they are settled; but a check reads how a caller uses the result (a printed
    list is a Python value `tf.function` would not return as such: HY407), so a callee of an
    edited caller is decided again. `squares`, two calls away, keeps its verdict."""
    root = make_project({"app.py": MAIN, "helpers.py": HELPERS, "ops.py": DEEP})
    project = Project.open(root, ProjectOptions(use_cache=False))
    check(project, "opened")
    assert "HY407" not in _codes(project, "dims")
    printed = MAIN.replace("    shape = dims(x)\n", "    shape = dims(x)\n    print(shape)\n")
    before = project.analysis.incremental_verdicts
    project.update(root / "app.py", printed)
    check(project, "run prints the list dims returns")
    assert project.analysis.incremental_verdicts == before + 1
    assert "HY407" in _codes(project, "dims")
    # run, dims and total (module code gets no verdict); not squares (its caller is settled).
    assert project.analysis.decided_again == 3
    project.update(root / "app.py", MAIN)
    check(project, "undone")
    assert "HY407" not in _codes(project, "dims")


def _codes(project: Project, qualname: str) -> list[str]:
    [verdict] = [v for v in project.results().functions if v.qualname == qualname]
    return [f.code for f in verdict.findings]


LAYERS = """\
import tensorflow as tf


def scale(x):
    return x * 2.0


def shift(x):
    return x + 1.0


def norm(x):
    return tf.reduce_sum(x * x)


def mix(x):
    return scale(x) + norm(x)


def spare(x):
    return tf.reduce_mean(x)


spare(tf.ones([2]))
"""

LAYERS_MAIN = """\
import tensorflow as tf

from layers import mix, shift

for _ in range(100):
    mix(tf.ones([3]))
    shift(tf.ones([3]))
"""


def test_an_edit_within_one_function_reaches_only_that_function(
    make_project: Callable[[dict[str, str | bytes]], Path],
) -> None:
    """An edit that moves no line changes one function's summary, and only that function
    is reset in the solve and decided again, with its callers: the module's other functions
    keep their evaluations and verdicts. An edit that moves lines changes every function
    below it (their positions), and one that adds a line to the module touches all of it."""
    root = make_project({"layers.py": LAYERS, "main.py": LAYERS_MAIN})
    project = Project.open(root, ProjectOptions(use_cache=False), long_running=True)
    check(project, "opened")
    solver = project.analysis.solver
    assert solver is not None
    evaluations: list[FunctionKey] = []
    original = solver._sweep

    def counting(dirty: list[str], *, reuse_order: bool = False) -> list[str]:
        evaluations.extend(dirty)
        return original(dirty, reuse_order=reuse_order)

    solver._sweep = counting  # type: ignore[method-assign]
    orders: list[int] = []
    computed = solver._calls_first_order

    def ordering() -> dict[str, int]:
        orders.append(1)
        return computed()

    solver._calls_first_order = ordering  # type: ignore[method-assign]
    inline = LAYERS.replace("    return x * 2.0\n", '    print("scale"); return x * 2.0\n')
    project.update(root / "layers.py", inline)
    check(project, "scale prints, on its own line")
    assert project.analysis.incremental_solves == 1
    assert "HY101" in _codes(project, "scale") or "HY102" in _codes(project, "scale")
    # scale is reset and solved again, and what reads its facts while they settle; shift
    # and spare read nothing scale gives and keep their evaluations.
    assert FunctionKey("layers.py", "scale") in evaluations
    assert not {FunctionKey("layers.py", "shift"), FunctionKey("layers.py", "spare")} & set(
        evaluations
    )
    # scale, mix (the effect flows up to its caller), and, since main's code was evaluated
    # again, everything it calls: mix, norm and shift; not spare, which only its own module
    # calls (the whole module was decided again before).
    assert project.analysis.decided_again == 4
    # The update's sweeps take the last solve's order: no walk of the whole call graph.
    assert orders == []
    evaluations.clear()
    project.update(root / "layers.py", LAYERS)
    check(project, "undone")
    assert not {FunctionKey("layers.py", "shift"), FunctionKey("layers.py", "spare")} & set(
        evaluations
    )
    # A new line in scale moves every line below it: shift and spare only move, and keep
    # their facts with the lines moved instead of being evaluated again (`Solver._move`).
    moved = LAYERS.replace("    return x * 2.0\n", '    print("scale")\n    return x * 2.0\n')
    evaluations.clear()
    project.update(root / "layers.py", moved)
    check(project, "scale prints, on a new line")
    assert FunctionKey("layers.py", "scale") in evaluations
    assert not {FunctionKey("layers.py", "shift"), FunctionKey("layers.py", "spare")} & set(
        evaluations
    )
    assert project.analysis.incremental_solves == 3
