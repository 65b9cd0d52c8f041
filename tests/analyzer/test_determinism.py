"""The same project gives the same verdicts in any file order and with any number of jobs.

The solver iterates over dicts built from the summaries; if its answer depended on the order
in which files were found (or on which worker summarised which file), a verdict could flip
between two runs of an unchanged project, and `refactor --apply` then `--check` would not be
a no-op. These tests analyse the whole bundled corpus as one project in several orders.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from facts_helpers import verdict

from hybridize.analyzer.analysis import ProjectAnalysis
from hybridize.analyzer.checks import summary_hooks
from hybridize.analyzer.facts.retracing import LiteralVariation, Retraces
from hybridize.analyzer.facts.values import canonical, first_in_canonical_order
from hybridize.analyzer.options import AnalysisOptions
from hybridize.analyzer.summaries import file_summaries
from hybridize.analyzer.summaries.file_summaries import summarize_text
from hybridize.analyzer.summaries.ir import ModuleSummary
from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.model import FunctionVerdict
from hybridize.project import Project, ProjectOptions

CORPUS = Path(__file__).resolve().parents[2] / "corpus"


def _essence(verdicts: list[FunctionVerdict] | tuple[FunctionVerdict, ...]) -> list[object]:
    return sorted(
        (
            v.file,
            v.qualname,
            v.passes,
            tuple(v.failures),
            v.facts.has_tensor_parameter,
            v.facts.has_python_side_effects,
            tuple(sorted((f.code, f.span.start_line) for f in v.findings)),
        )
        for v in verdicts
    )


def _summaries() -> list[ModuleSummary]:
    summaries = []
    for path in sorted(CORPUS.rglob("*.py")):
        relpath = path.relative_to(CORPUS).as_posix()
        summary = summarize_text(relpath, path.read_text(encoding="utf-8"), summary_hooks())
        assert isinstance(summary, ModuleSummary), relpath
        summaries.append(summary)
    return summaries


def _verdicts_in_order(summaries: list[ModuleSummary]) -> list[object]:
    """The essence of the verdicts of the project-wide phase given the modules in this order
    (a `Project` hands them sorted by name: the order is what this test varies)."""
    analysis = ProjectAnalysis(long_running=False)
    modules = {s.relpath: s for s in summaries}
    verdicts, _errors = analysis.solve(modules, "", AnalysisOptions(use_cache=False))
    return _essence(verdicts)


@pytest.mark.slow
def test_file_order_does_not_change_verdicts() -> None:
    summaries = _summaries()
    reference = _verdicts_in_order(summaries)
    assert reference, "the corpus gave no verdicts"
    shuffled = list(summaries)
    for seed in (1, 2):
        random.Random(seed).shuffle(shuffled)
        assert _verdicts_in_order(shuffled) == reference
    assert _verdicts_in_order(list(reversed(summaries))) == reference


@pytest.mark.slow
def test_jobs_do_not_change_verdicts(monkeypatch: pytest.MonkeyPatch) -> None:
    # The corpus is smaller than the size from which the pool pays: use it regardless.
    monkeypatch.setattr(file_summaries, "PARALLEL_THRESHOLD", 1)
    one = Project.open(CORPUS, ProjectOptions(use_cache=False, jobs=1)).results()
    two = Project.open(CORPUS, ProjectOptions(use_cache=False, jobs=2)).results()
    assert _essence(one.functions) == _essence(two.functions)
    assert one.errors == two.errors


WITNESS_PROJECT = {
    "shapes.py": """
import numpy as np
import tensorflow as tf


def _constant_if_small(shape):
    return np.prod(shape)


def zeros(shape):
    return tf.zeros(_constant_if_small(shape))


def ones(shape):
    return tf.ones(_constant_if_small(shape))


def like(x, fill):
    make = zeros if fill == 0 else ones
    return make(tf.shape(x))


class Diag:
    pass


class TriL:
    pass


class Scaled:
    pass


DEFAULT_CLASSES = [Diag]


def _patch(target, value):
    target.append(value)


def patch_all(x, classes=None):
    if classes is None:
        classes = DEFAULT_CLASSES
    _patch(classes, TriL)
    return x * 2.0


def pick(x, kind):
    adder = Diag() if kind == 1 else TriL() if kind == 2 else Scaled()
    return tf.reduce_sum(x), adder
""",
    "callbacks.py": """
import random

import tensorflow as tf


def _log_row(row):
    print("row")
    return row


def _jitter_row(row):
    return row * random.random()


def _row_as_array(row):
    return row.numpy()


def _row_as_list(row):
    return row.numpy().tolist()


def map_rows(x, kind):
    fn = _log_row if kind == 0 else _jitter_row
    return tf.map_fn(fn, x)


def convert_rows(x, kind):
    fn = _row_as_array if kind == 0 else _row_as_list
    return tf.map_fn(fn, x)
""",
    "literals.py": """
import tensorflow as tf


def scaled(x, alpha, beta, gamma, delta):
    return x * alpha + beta * gamma - delta


def base(x):
    return scaled(x, 1.0, 1.0, 1.0, 1.0)


def first(x):
    return scaled(x, 2.0, 1.0, 1.0, 1.0)


def second(x):
    return scaled(x, 1.0, 2.0, 1.0, 1.0)


def third(x):
    return scaled(x, 1.0, 1.0, 2.0, 1.0)


def fourth(x):
    return scaled(x, 1.0, 1.0, 1.0, 2.0)
""",
    "main.py": """
import tensorflow as tf
from callbacks import convert_rows, map_rows
from literals import base, first, fourth, second, third
from shapes import Scaled, like, patch_all, pick

like(tf.ones([2]), 0)
like(tf.ones([2]), 1)
pick(tf.ones([2]), 1)
pick(tf.ones([2]), 2)
patch_all(tf.ones([2]), [Scaled])
map_rows(tf.ones([2, 3]), 0)
map_rows(tf.ones([2, 3]), 1)
convert_rows(tf.ones([2, 3]), 0)
convert_rows(tf.ones([2, 3]), 1)
base(tf.ones([2]))
first(tf.ones([2]))
second(tf.ones([2]))
third(tf.ones([2]))
fourth(tf.ones([2]))
""",
    # Under torch.compile a method of either of two third-party objects is HY301: the message
    # names one of them.
    "foreign_objects.py": """
import torch
from sklearn.cluster import KMeans
from sklearn.neighbors import NearestNeighbors


def fit(x, kind):
    model = KMeans() if kind == 0 else NearestNeighbors()
    return model.fit(torch.relu(x))


fit(torch.ones(2), 0)
fit(torch.ones(2), 1)
""",
    # `Leaf` is reached by two layers that Keras builds symbolically: its message names one.
    "keras_layers.py": """
import keras


class Leaf(keras.layers.Layer):
    def build(self, shape):
        self.w = self.add_weight(shape=(1,))

    def call(self, x):
        return x * self.w


class Alpha(keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.leaf = Leaf()

    def build(self, shape):
        self.v = self.add_weight(shape=(1,))

    def call(self, x):
        return self.leaf(x) * self.v


class Beta(keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.leaf = Leaf()

    def build(self, shape):
        self.v = self.add_weight(shape=(1,))

    def call(self, x):
        return self.leaf(x) + self.v


class Outer(keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.alpha = Alpha()
        self.beta = Beta()

    def call(self, x):
        return self.alpha(x) + self.beta(x)
""",
}


def _analyze_with_hash_seed(root: Path, seed: int, output: str) -> Any:
    env = {**os.environ, "PYTHONHASHSEED": str(seed)}
    command = ["analyze", str(root), "--format", output, "--no-cache", "--exit-zero"]
    completed = subprocess.run(
        [sys.executable, "-m", "hybridize", *command],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=300,
    )
    return json.loads(completed.stdout)


def _messages_with_hash_seed(root: Path, seed: int) -> list[tuple[str, str, str, str]]:
    """Each finding of the JSON report, with its locations and related locations (SARIF's)."""
    report = _analyze_with_hash_seed(root, seed, "json")
    sarif = _analyze_with_hash_seed(root, seed, "sarif")
    locations = sorted(
        json.dumps(result, sort_keys=True) for run in sarif["runs"] for result in run["results"]
    )
    return sorted(
        (f["qualname"], finding["code"], finding["message"], "")
        for f in report["functions"]
        for finding in f["findings"]
    ) + [("", "", "", location) for location in locations]


def test_the_witness_a_finding_names_does_not_depend_on_string_hashing(tmp_path: Path) -> None:
    """A call whose callee may be one of several functions (`zeros` or `ones`), a value that
    may be one of several classes: the finding names one of them, and the same one in every
    run (sets of atoms iterate in an order that changes with the hash seed). So too for a
    callback that may be one of several functions (`tf.map_fn(fn, x)`): its effect and its
    eager-only call are named through the same one in every run. Literal arguments that
    differ for several parameters, each between other calls: the finding's related
    locations come in the same order in every run. A Keras layer held by two layers that
    Keras builds symbolically: the message names the same one in every run."""
    for name, text in WITNESS_PROJECT.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    runs = [_messages_with_hash_seed(tmp_path, seed) for seed in (1, 2, 3, 4, 5)]
    first = runs[0]
    assert any(code == "HY302" and "calls `" in message for _, code, message, _ in first), first
    assert any(code == "HY407" for _, code, _, _ in first), first
    assert any(q == "patch_all" and code == "HY107" for q, code, _, _ in first), first
    assert any(q == "map_rows" and code in ("HY101", "HY104") for q, code, _, _ in first), first
    assert any(q == "convert_rows" and code == "HY301" for q, code, _, _ in first), first
    assert any(q == "scaled" and code == "HY201" for q, code, _, _ in first), first
    assert any(
        q == "Leaf.call" and code == "HY406" and "which holds it" in message
        for q, code, message, _ in first
    ), first
    for other in runs[1:]:
        assert other == runs[0]


PARTIAL_OBJECTS = """
import functools

import tensorflow as tf


def scale(x, alpha=1, beta=1, gamma=1):
    return x * alpha * beta * gamma


def run(make):
    return make()


def with_alpha():
    return run(functools.partial(scale, 2.0, alpha=tf.ones([3])))


def with_beta():
    return run(functools.partial(scale, 2.0, beta=tf.ones([3])))


def with_gamma():
    return run(functools.partial(scale, 2.0, gamma=tf.ones([3])))


def with_x():
    return run(functools.partial(scale, tf.ones([3])))
"""
"""`run`'s `make` holds four `functools.partial` objects of `scale`, each passing a tensor to
another parameter; `make()` may call any of them."""


def test_a_call_through_several_partial_objects_binds_each_ones_arguments() -> None:
    """`make()` calls `scale` through whichever partial object `make` holds: each parameter
    receives a tensor from one of them. Keeping one object per callee (the last met in a set
    of atoms, a different one in every run) gave one parameter a tensor and the others
    only the default."""
    params = {p.name: p.is_tensor for p in verdict(PARTIAL_OBJECTS, "scale").facts.params}
    assert params == {"x": True, "alpha": True, "beta": True, "gamma": True}


def test_a_call_through_several_partial_objects_gives_one_report(tmp_path: Path) -> None:
    """The whole report of a project calling a parameter that holds several partial objects
    of one function is the same in every run (a set of atoms holding `None`, as a partial
    object's atom does, iterates in an order that changes from run to run even with the hash
    seed fixed, on Python before 3.12)."""
    (tmp_path / "main.py").write_text(PARTIAL_OBJECTS, encoding="utf-8")
    runs = []
    for seed in (0, 0, 1, 2, 3):
        report = _analyze_with_hash_seed(tmp_path, seed, "json")
        report.pop("seconds", None)
        report["summary"].pop("seconds", None)
        runs.append(report)
    assert [f["qualname"] for f in runs[0]["functions"]][:2] == ["scale", "run"]
    for other in runs[1:]:
        assert other == runs[0]


def test_canonical_text_does_not_follow_a_sets_iteration_order() -> None:
    """Two equal sets may iterate in different orders (here -1 and -2 share a hash: the one
    inserted first takes the slot), and their `repr`s differ: `repr` is no order to sort atoms
    by where a result must not depend on it. `canonical` writes them alike."""
    first, second = frozenset([-1, -2]), frozenset([-2, -1])
    atom_a = ("seq", "list", first)
    atom_b = ("seq", "list", second)
    assert atom_a == atom_b
    assert repr(atom_a) != repr(atom_b)
    assert canonical(atom_a) == canonical(atom_b) == "('seq', 'list', {-1, -2})"
    assert canonical(("lit", "int", None)) == repr(("lit", "int", None))
    assert canonical(("symbolic",)) == "('symbolic',)"


def test_first_answer_in_canonical_order_whatever_the_order_given() -> None:
    """`first_in_canonical_order` answers what the first atom in `canonical` order that has
    an answer gives, as a walk of the sorted atoms would, in whatever order the atoms come
    (a set's)."""
    atoms = [("lit", "str", "b"), ("lit", "int", 1), ("lit", "str", "a"), ("obj", "x", None)]

    def answer(atom: tuple[object, ...]) -> str | None:
        return f"a {atom[1]} {atom[2]}" if atom[0] == "lit" and atom[1] == "str" else None

    for order in (atoms, atoms[::-1], atoms[1:] + atoms[:1]):
        assert first_in_canonical_order(order, answer) == "a str a"
    assert first_in_canonical_order([atoms[3], atoms[0]], answer) == "a str b"
    assert first_in_canonical_order([atoms[1], atoms[3]], answer) is None

    # the same first as sorting every atom by `canonical` (what the walks did before)
    expected = next(a for a in sorted(atoms, key=canonical) if answer(a) is not None)
    assert first_in_canonical_order(atoms, answer) == answer(expected)


CYCLE_OF_LOCALS = """
def merge(a, b):
    return a, b


def split(state):
    return state, state


def apply(state, updates, params, step):
    kept, rest = split(state)
    trainable = merge(params, kept)
    params, state = step(trainable, rest, state, params, updates)
    return params, state
"""
"""Sonnet's `apply_opt_fn`: `params` is recomputed from `trainable`, made from `params`."""


def test_what_a_parameter_receives_does_not_depend_on_which_functions_were_asked_first() -> None:
    """A walk over locals recomputed from each other reads the cycle as varying, in words
    naming where it entered the cycle (`params` or `trainable`): a result computed on such a
    walk kept for later questions made `split`'s answer depend on whether `merge` was asked
    first. Every question gets what it gets asked alone, in any order."""
    project = Project.from_texts({"main.py": CYCLE_OF_LOCALS}, ProjectOptions(use_cache=False))
    project.results()
    solver = project.analysis.solver
    assert solver is not None
    keys = sorted(solver.facts.literal_sites)
    assert [k.qualname for k in keys] == ["merge", "split"]

    def answers(order: list[FunctionKey]) -> dict[FunctionKey, Retraces]:
        variation = LiteralVariation(solver.index, solver.facts)
        return {key: variation.retraces(key) for key in order}

    alone = {key: answers([key])[key] for key in keys}
    assert all(
        "recomputed from itself" in r.reason for a in alone.values() for r in a.unknown.values()
    )
    assert answers(keys) == alone
    assert answers(list(reversed(keys))) == alone
