"""The incremental re-solve of `Project` gives the verdicts of a fresh analysis, edit by edit.

A property test: random single-file edits of real projects (the corpus as one project, and a
small generated one whose modules import each other): a function body changed, a function
deleted, a call added, a function renamed, a file deleted, a file added. After each edit, and
again after undoing it, the project's verdicts and errors must equal those of an analysis
from scratch of the same texts (a one-shot `Project.from_texts` of them, with no
solver state at all). Body edits leave the module's interface unchanged and so take the
incremental path; the test checks that they did, or it would prove nothing about it.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import random
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from hybridize.analyzer.facts import solver as solver_module
from hybridize.model import FileError
from hybridize.project import Project, ProjectOptions

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))
from synthetic_project import generate  # noqa: E402

Edit = Callable[[str, random.Random], str | None]


def _functions(text: str) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [
        node
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.body
    ]


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def change_body(text: str, rng: random.Random) -> str | None:
    """Replace one `return` of a function by `return None`, or put a `print` before it."""
    lines = text.splitlines(keepends=True)
    returns = [
        node
        for fn in _functions(text)
        for node in ast.walk(fn)
        if isinstance(node, ast.Return)
        and node.value is not None
        and node.lineno == node.end_lineno
    ]
    if not returns:
        return None
    node = rng.choice(returns)
    line = lines[node.lineno - 1]
    if rng.random() < 0.5:
        lines[node.lineno - 1] = f"{_indent(line)}return None\n"
    else:
        value = ast.get_source_segment(text, node.value) or "None"
        lines[node.lineno - 1] = f"{_indent(line)}print({value})\n{line}"
    return "".join(lines)


def add_call(text: str, rng: random.Random) -> str | None:
    """Call another top-level function of the file, with the first parameter (or nothing),
    at the start of a function body."""
    tree = ast.parse(text)
    top = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    functions = _functions(text)
    if not top or not functions:
        return None
    fn, callee = rng.choice(functions), rng.choice(top)
    params = [a.arg for a in fn.args.args if a.arg not in ("self", "cls")]
    argument = params[0] if params and rng.random() < 0.7 else "1.0"
    first = fn.body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and len(fn.body) > 1:
        first = fn.body[1]  # after the docstring
    lines = text.splitlines(keepends=True)
    indent = _indent(lines[first.lineno - 1])
    call = f"{indent}{callee.name}({', '.join([argument] * len(callee.args.args))})\n"
    lines.insert(first.lineno - 1, call)
    return "".join(lines)


def delete_function(text: str, rng: random.Random) -> str | None:
    """Delete one function (a method too); a class left empty gets `pass`."""
    functions = _functions(text)
    if not functions:
        return None
    fn = rng.choice(functions)
    start = (fn.decorator_list[0].lineno if fn.decorator_list else fn.lineno) - 1
    assert fn.end_lineno is not None
    lines = text.splitlines(keepends=True)
    indent = _indent(lines[fn.lineno - 1])
    lines[start : fn.end_lineno] = [f"{indent}pass\n"]
    return "".join(lines)


def rename_function(text: str, rng: random.Random) -> str | None:
    """Rename one function where it is defined (its callers keep the old name)."""
    functions = _functions(text)
    if not functions:
        return None
    fn = rng.choice(functions)
    lines = text.splitlines(keepends=True)
    line = lines[fn.lineno - 1]
    lines[fn.lineno - 1] = line.replace(f"def {fn.name}(", f"def {fn.name}_renamed(", 1)
    return "".join(lines)


BODY_EDITS: list[Edit] = [change_body, add_call]
EDITS: list[Edit] = [change_body, add_call, delete_function, rename_function]

NEW_FILE = """\
import tensorflow as tf


def added(x):
    return tf.reduce_sum(x) * 2.0


def uses_added():
    return added(tf.ones((3,)))
"""


def fresh(project: Project) -> tuple[tuple[object, ...], tuple[FileError, ...]]:
    """Verdicts and errors of an analysis from scratch of the project's texts: a one-shot
    in-memory project of them, no cache."""
    options = dataclasses.replace(project.options, use_cache=False)
    again = Project.from_texts(
        project.snapshot(), options, package=project.package, long_running=False
    )
    result = again.results()
    return result.functions, result.errors


def check(project: Project, what: str) -> None:
    result = project.results()
    verdicts, internal = fresh(project)
    assert result.functions == verdicts, what
    assert [e for e in result.errors if "internal error" in e.message] == [
        e for e in internal if "internal error" in e.message
    ], what


def run_edits(root: Path, edits: int, seed: int, only: list[Edit] | None = None) -> int:
    """`edits` random edits, each checked, undone and checked again; returns how many
    solves were incremental."""
    rng = random.Random(seed)
    project = Project.open(root, ProjectOptions(use_cache=False))
    check(project, "opened")
    files = sorted(f for f in project.files if project.text(f) is not None)
    for i in range(edits):
        relpath = rng.choice(files)
        original = project.text(relpath)
        assert original is not None
        choice = rng.random() if only is None else 1.0
        if choice < 0.08:
            project.remove(relpath)
            check(project, f"edit {i}: {relpath} deleted")
            project.update(relpath, original)
            check(project, f"edit {i}: {relpath} restored")
            continue
        if choice < 0.16:
            added = f"{Path(relpath).parent.as_posix()}/added_{i}.py".lstrip("./")
            project.update(added, NEW_FILE)
            check(project, f"edit {i}: {added} added")
            project.remove(added)
            check(project, f"edit {i}: {added} deleted again")
            continue
        edit = rng.choice(only or (BODY_EDITS if choice < 0.7 else EDITS))
        changed = edit(original, rng)
        if changed is None or changed == original:
            continue
        project.update(relpath, changed)
        check(project, f"edit {i}: {edit.__name__} on {relpath}:\n{changed}")
        project.update(relpath, original)
        check(project, f"edit {i}: {edit.__name__} on {relpath} undone")
    return project.analysis.incremental_solves


PROGRAMS = sorted(p.name for p in (REPO / "corpus" / "tensorflow").iterdir() if p.is_dir())


@pytest.mark.parametrize("program", PROGRAMS)
def test_random_edits_of_a_corpus_program_equal_fresh_analyses(
    tmp_path: Path, program: str
) -> None:
    root = tmp_path / program
    shutil.copytree(REPO / "corpus" / "tensorflow" / program, root)
    run_edits(root, edits=8, seed=len(program))


def test_body_edits_take_the_incremental_path(tmp_path: Path) -> None:
    """Programs whose solve settles before widening are updated in place on a body edit
    (one that widens is solved again from scratch, as its facts depend on the history)."""
    incremental = 0
    for program in ("mlp_gradient_tape", "multi_module_package", "transformer_block"):
        root = tmp_path / program
        shutil.copytree(REPO / "corpus" / "tensorflow" / program, root)
        incremental += run_edits(root, edits=10, seed=3, only=BODY_EDITS)
    assert incremental >= 25


def test_random_edits_of_a_project_of_importing_modules_equal_fresh_analyses(
    tmp_path: Path,
) -> None:
    root = tmp_path / "synthetic"
    generate(root, 1_000)
    incremental = run_edits(root, edits=15, seed=5)
    assert incremental >= 8


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_more_random_edits_of_the_whole_corpus_as_one_project(tmp_path: Path, seed: int) -> None:
    root = tmp_path / "corpus"
    shutil.copytree(REPO / "corpus" / "tensorflow", root)
    run_edits(root, edits=30, seed=seed)


SELF_SUPPORT_HELPERS = """\
import tensorflow as tf


def f(x):
    return tf.ones((3,))
"""

SELF_SUPPORT_MAIN = """\
import tensorflow as tf

from helpers import f


def c():
    y = f(None)
    return tf.reduce_sum(f(y))
"""


def test_evidence_that_only_supports_itself_does_not_survive_an_edit(tmp_path: Path) -> None:
    """`c` passes `f` what `f` returned. Once `f` returns its argument, `f`'s parameter only
    ever receives None: the tensor that `c` passed before came from the old body, and a
    re-solve that kept `c`'s old evidence while evaluating the new `f` would find it again
    (`f` returns it, `c` passes it back). The callers on such a cycle are re-solved too."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "helpers.py").write_text(SELF_SUPPORT_HELPERS, encoding="utf-8")
    (root / "main.py").write_text(SELF_SUPPORT_MAIN, encoding="utf-8")
    project = Project.open(root, ProjectOptions(use_cache=False))
    check(project, "opened")
    before = project.file_result("helpers.py")
    assert before is not None and before.verdict("f") is not None
    edited = SELF_SUPPORT_HELPERS.replace(
        "    return tf.ones((3,))", '    tf.print("f")\n    return x'
    )
    project.update("helpers.py", edited)
    check(project, "f returns its argument")
    assert project.analysis.incremental_solves == 1
    after = project.file_result("helpers.py")
    assert after is not None
    verdict = after.verdict("f")
    assert verdict is not None
    assert [p.is_tensor for p in verdict.facts.params] == [False]


GROWING = """\
import tensorflow as tf


def pair(a, b):
    return (a, b)


def step(state, x):
    return pair(state, x * 2.0)


def unroll(core, xs):
    state = tf.zeros((1,))
    for x in xs:
        state = core(state, x)
    return state


unroll(step, [tf.ones((1,)), tf.ones((1,))])
"""
"""The state `unroll` passes `step` nests one tuple deeper each round (through `pair`), for
about ten rounds until the nesting is cut: with WIDEN_AFTER lowered, its entries are
widened."""


def test_a_solution_that_widened_is_solved_again_from_scratch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A widened entry depends on the whole history of the iteration (it was joined with its
    last values and widened), which no partial re-solve can reproduce: such a project takes
    the full solve after an edit, and still gets the fresh verdicts."""
    monkeypatch.setattr(solver_module, "WIDEN_AFTER", 3)
    root = tmp_path / "project"
    root.mkdir()
    (root / "main.py").write_text(GROWING, encoding="utf-8")
    project = Project.open(root, ProjectOptions(use_cache=False))
    project.results()
    solver = project.analysis.solver
    assert solver is not None and solver.widened and solver.aggregate.wide
    edited = GROWING.replace("x * 2.0", "x * 3.0")
    project.update("main.py", edited)
    check(project, "body edit of a widened project")
    assert project.analysis.incremental_solves == 0


def _whole_tables(project: Project) -> dict[str, dict[str, object]]:
    """Every per-function table of the solved facts, copied whole (what the journal avoids)."""
    solver = project.analysis.solver
    assert solver is not None
    found: dict[str, dict[str, object]] = {}
    for f in dataclasses.fields(solver.facts):
        value = getattr(solver.facts, f.name)
        if f.name in (
            "evaluators",
            "latest_evaluators",
            "consulted",
            "cache",
            "scans",
            "shared",
            "internal_errors",
        ):
            continue
        if isinstance(value, dict):
            found[f.name] = {
                k: (v if f.name == "calls" else copy.deepcopy(v)) for k, v in value.items()
            }
        elif isinstance(value, set):
            found[f.name] = {k: True for k in value}
    return found


def _solved_synthetic_project(tmp_path: Path) -> Project:
    """A generated 1,000-line project of importing modules, opened and solved."""
    root = tmp_path / "synthetic"
    generate(root, 1_000)
    project = Project.open(root, ProjectOptions(use_cache=False))
    project.results()
    return project


def _body_edits_and_back(project: Project, seed: int, edits: int) -> Iterator[tuple[str, str]]:
    """(file, text) for `edits` random body edits of the project's files, each followed by
    the file's original text: the caller updates the project with each in turn."""
    rng = random.Random(seed)
    files = sorted(f for f in project.files if project.text(f) is not None)
    for _ in range(edits):
        relpath = rng.choice(files)
        original = project.text(relpath)
        assert original is not None
        changed = rng.choice(BODY_EDITS)(original, rng)
        if changed is None or changed == original:
            continue
        yield relpath, changed
        yield relpath, original


def test_the_journal_of_an_update_names_every_entry_that_changed(tmp_path: Path) -> None:
    """`Solver.journal` records only what the update writes: the entries it says changed
    must be exactly those that differ between whole copies of the facts before and after
    (by value: a function evaluated again gives equal calls in a new list), on random body
    edits of a project of importing modules."""
    project = _solved_synthetic_project(tmp_path)
    compared = 0
    for relpath, text in _body_edits_and_back(project, seed=11, edits=12):
        before = _whole_tables(project)
        project.update(relpath, text)
        project.results()
        solver = project.analysis.solver
        assert solver is not None
        if solver.journal is None:
            continue  # solved from scratch
        compared += 1
        after = _whole_tables(project)
        expected = {}
        for name in before.keys() | after.keys():
            old, new = before.get(name, {}), after.get(name, {})
            differing = {
                k
                for k in old.keys() | new.keys()
                if old.get(k) is not new.get(k)
                and old.get(k) != new.get(k)
                # An entry a read created empty (a defaultdict) is no change of the facts.
                and not (k not in old and new.get(k) in ({}, set(), [], 0))
                and not (k not in new and old.get(k) in ({}, set(), [], 0))
            }
            if differing:
                expected[name] = differing
        assert solver.journal.changed_entries(solver.facts) == expected, relpath
    assert compared >= 8


FROZEN_MODELS = """\
import tensorflow as tf


class A:
    def __init__(self):
        self.threshold = 0.1

    def call(self, x):
        return x * self.threshold


class B:
    def __init__(self):
        self.threshold = 0.1

    def call(self, x):
        return x * self.threshold
"""

FROZEN_HOLDER = """\
class Holder:
    def set_sub(self, sub):
        self.sub = sub

    def tune(self):
        self.sub.threshold = 0.5
"""

FROZEN_MAIN = """\
import tensorflow as tf

from holder import Holder
from models import A, B


def run():
    a = A()
    b = B()
    holder = Holder()
    holder.set_sub(a)
    holder.tune()
    for _ in range(100):
        a.call(tf.ones(3))
        b.call(tf.ones(3))
"""


def test_a_write_whose_target_changes_without_a_new_solve_of_the_writer(tmp_path: Path) -> None:
    """`Holder.tune` assigns `self.sub.threshold`; what `self.sub` is, only the verdict phase
    asks (the solve never evaluates that target), so the solve does not evaluate `tune` again
    when `run` hands the holder a `B` instead of an `A`. The writes kept from the last phase
    must be dropped all the same: after the edit `B.call` reads state assigned between its
    calls, `A.call` no longer."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "models.py").write_text(FROZEN_MODELS, encoding="utf-8")
    (root / "holder.py").write_text(FROZEN_HOLDER, encoding="utf-8")
    (root / "main.py").write_text(FROZEN_MAIN, encoding="utf-8")
    project = Project.open(root, ProjectOptions(use_cache=False))
    check(project, "opened")

    def frozen(qualname: str) -> bool:
        verdict = next(v for v in project.results().functions if v.qualname == qualname)
        return any(f.code == "HY408" for f in verdict.findings)

    assert frozen("A.call") and not frozen("B.call")
    project.update("main.py", FROZEN_MAIN.replace("set_sub(a)", "set_sub(b)"))
    check(project, "set_sub(b)")
    assert project.analysis.incremental_solves == 1
    assert frozen("B.call") and not frozen("A.call")


def test_only_the_evaluators_handed_out_since_a_solve_have_grown_or_read_an_older_index(
    tmp_path: Path,
) -> None:
    """`Solver.update` trims only the evaluators handed out since the last solve
    (`TensorFacts.consulted`) and re-points an evaluator to the current index when it is
    handed out again: that is right only if every other evaluator's memo is as the solve left
    it. After each of random body edits and its verdicts, an evaluator not handed out holds
    exactly what the solve left (its `settled` size), and every one handed out reads the
    current index."""
    project = _solved_synthetic_project(tmp_path)
    checked = 0
    for relpath, text in _body_edits_and_back(project, seed=23, edits=10):
        project.update(relpath, text)
        project.results()
        solver = project.analysis.solver
        assert solver is not None
        facts = solver.facts
        for key, evaluator in facts.latest_evaluators.items():
            if key in facts.consulted:
                assert evaluator.index is solver.index, key
            else:
                size = solver.settled[key]
                assert (len(evaluator.memo), len(evaluator.call_results)) == size, key
        checked += solver.journal is not None
    assert checked >= 8


NESTING = """\
import tensorflow as tf


def scale(x):
    return x * 2.0


def run(x):
    return tf.reduce_sum(scale(x))


run(tf.ones((3,)))
"""

NESTED_EDITS = [
    # (text, whether the evaluation of `scale` fails: it is then left without an evaluator)
    (NESTING.replace("x * 2.0", "x * 3.0"), True),
    (NESTING.replace("x * 2.0", "x * 4.0"), False),
    (NESTING.replace("scale(x))", "scale(x) + 1.0)"), False),
    (NESTING.replace("x * 2.0", "x * 3.0"), True),
    (NESTING, False),
]


def test_the_evaluators_noted_as_changed_hold_every_one_an_update_added_or_dropped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`compare_facts` looks for the functions that gained or lost an evaluator in an update
    among those noted as changed (`TensorFacts.evaluators_changed`), not over every function
    of the project: through body edits after which a function's evaluation fails (it has no
    evaluator) and succeeds again, every function whose evaluator appeared or went since the
    update began is noted, and the verdicts equal a fresh analysis of the same failure."""
    from hybridize.analyzer import engine

    evaluate = solver_module._evaluate

    fails = [False]

    def failing(index, facts, key):  # type: ignore[no-untyped-def]
        if key.qualname == "scale" and fails[0]:
            raise RuntimeError("a defect of the analysis")
        return evaluate(index, facts, key)

    monkeypatch.setattr(solver_module, "_evaluate", failing)

    compare = engine.compare_facts
    compared: list[int] = []

    def checked(before, facts, shifts=None):  # type: ignore[no-untyped-def]
        gained_or_lost = before.evaluators.keys() ^ facts.evaluators.keys()
        assert gained_or_lost <= facts.evaluators_changed
        compared.append(len(gained_or_lost))
        return compare(before, facts, shifts)

    monkeypatch.setattr(engine, "compare_facts", checked)
    project = Project.from_texts({"nesting.py": NESTING}, ProjectOptions(use_cache=False))
    project.results()
    for text, fail in NESTED_EDITS:
        fails[0] = fail
        project.update("nesting.py", text)
        check(project, text)
    assert project.analysis.incremental_solves == len(NESTED_EDITS)
    assert max(compared) > 0, "an evaluator appeared or went"


def test_after_an_edit_the_scans_of_project_facts_look_only_at_what_it_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The project-wide facts kept per module (`scan_memo.per_module`) catch up after an
    edit from the modules it replaced (`TensorFacts.modules_log`), as those kept per
    function do from the calls it replaced, with no look at every module of the project:
    through random body edits no module scan walks the project's modules, each looks at
    the edited module alone, and the verdicts equal a fresh analysis."""
    from hybridize.analyzer.facts import scan_memo

    project = _solved_synthetic_project(tmp_path)
    walks: list[int] = []
    looked_at: list[str] = []
    refresh, refresh_keys = scan_memo._Scan.refresh, scan_memo._Scan.refresh_keys

    def walking(self, items, compute):  # type: ignore[no-untyped-def]
        if items is project.analysis.solver.index.modules:  # a module scan's
            walks.append(len(items))
        return refresh(self, items, compute)

    def catching_up(self, items, keys, compute):  # type: ignore[no-untyped-def]
        keys = list(keys)
        looked_at.extend(k for k in keys if isinstance(k, str))
        return refresh_keys(self, items, keys, compute)

    monkeypatch.setattr(scan_memo._Scan, "refresh", walking)
    monkeypatch.setattr(scan_memo._Scan, "refresh_keys", catching_up)
    updates = 0
    for relpath, text in _body_edits_and_back(project, seed=41, edits=6):
        looked_at.clear()
        walks.clear()
        project.update(relpath, text)
        project.results()
        assert project.analysis.solver is not None
        if project.analysis.solver.journal is None:
            continue  # solved from scratch: every scan starts anew
        updates += 1
        assert walks == [], "a module scan looked at every module"
        assert looked_at and set(looked_at) == {relpath}, looked_at
        check(project, relpath)
    assert updates >= 5


TEMPORARY_RECEIVER_CLASS = """\
import tensorflow as tf


class Scaler:
    def __init__(self):
        self.k = 2.0

    def apply(self, x):
        return tf.reduce_sum(x * self.k)
"""

TEMPORARY_RECEIVER_CALLER = """\
import tensorflow as tf

from scaler import Scaler


def held(x):
    s = Scaler()
    return s.apply(x)


for _ in range(60):
    held(tf.ones((3,)))
"""


def test_an_edit_making_a_receiver_temporary_decides_the_method_again(tmp_path: Path) -> None:
    """HY445 reads its callers' attribute reads on constructed objects: an edit of a caller in
    another module (a held instance made a temporary, and back) or of the class (made a Keras
    layer) gives the verdicts of a fresh analysis."""
    (tmp_path / "scaler.py").write_text(TEMPORARY_RECEIVER_CLASS)
    (tmp_path / "main.py").write_text(TEMPORARY_RECEIVER_CALLER)
    project = Project.open(tmp_path, ProjectOptions(use_cache=False))
    check(project, "opened")
    temporary = TEMPORARY_RECEIVER_CALLER.replace(
        "    s = Scaler()\n    return s.apply(x)", "    return Scaler().apply(x)"
    )
    project.update("main.py", temporary)
    check(project, "made a temporary")
    verdicts = {v.qualname: v for v in project.results().functions}
    assert "HY445" in {f.code for f in verdicts["Scaler.apply"].findings}
    layer = TEMPORARY_RECEIVER_CLASS.replace(
        "class Scaler:", "class Scaler(tf.keras.layers.Layer):"
    )
    project.update("scaler.py", layer)
    check(project, "a Keras layer")
    project.update("scaler.py", TEMPORARY_RECEIVER_CLASS)
    check(project, "a plain class again")
    project.update("main.py", TEMPORARY_RECEIVER_CALLER)
    check(project, "held again")
    verdicts = {v.qualname: v for v in project.results().functions}
    assert "HY445" not in {f.code for f in verdicts["Scaler.apply"].findings}
