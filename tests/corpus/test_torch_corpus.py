"""corpus/torch: every function has one well-formed label, each program runs, and the analysis
reaches the labels.

The labels are checked with ``ast`` (not with the analyzer): every function of every file has
exactly one well-formed label. Then the analysis' verdicts and facts are compared with them the
way ``test_corpus_verdicts.py`` compares the TensorFlow ones (``corpus_programs.disagreements``);
a disagreement the analysis cannot resolve by a general rule would be listed in
``KNOWN_DISAGREEMENTS`` with the reason (the list is empty: the analysis agrees with every
label). Each program runs and ends with a digest line when PyTorch is installed.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from corpus_programs import CORPUS, FACT_FIELDS, disagreements, labels

TORCH_CORPUS = CORPUS / "torch"
PROGRAMS = sorted(p.parent for p in TORCH_CORPUS.glob("*/expected.json"))

#: Failure codes of docs/verdicts.md section 2 that a corpus/torch label may use.
CODES = {
    "has_no_tensor_parameters",
    "undeterminable_tensor_parameter",
    "has_primitive_parameters",
    "has_python_side_effects",
    "is_recursive",
    "has_eager_only_calls",
    "has_numpy_calls_on_parameters",
    "dataset_builder",
    "no_tensor_computation",
    "has_covered_callers",
    "draws_seeded_global_random",
    "differentiated_twice",
    "computes_numpy_arrays",
}


KNOWN_DISAGREEMENTS: dict[str, str] = {}
"""Function (program/file::qualname) -> why the analysis does not reach its label yet."""


def _qualnames(path: Path) -> set[str]:
    """Every def in the file, named like ``__qualname__`` without ``<locals>``."""
    found: set[str] = set()

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                found.add(prefix + child.name)
                visit(child, prefix + child.name + ".")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")
            else:
                visit(child, prefix)

    visit(ast.parse(path.read_text(encoding="utf-8")), "")
    return found


def test_there_are_at_least_eight_programs() -> None:
    assert len(PROGRAMS) >= 8


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.name)
def test_every_function_has_one_well_formed_label(program: Path) -> None:
    data = labels(program)
    assert data["program"] == program.name
    assert data["bench_entry"].startswith("python main.py --")
    keys = [(f["file"], f["qualname"]) for f in data["functions"]]
    assert len(keys) == len(set(keys)), "duplicate labels"
    defined = {(path.name, name) for path in program.glob("*.py") for name in _qualnames(path)}
    assert set(keys) == defined
    for label in data["functions"]:
        where = f"{label['file']}::{label['qualname']}"
        assert set(label["facts"]) == set(FACT_FIELDS), where
        assert set(label["failures"]) <= CODES, where
        assert label["passes"] == (label["failures"] == []), where
        assert label["passes"] == (label["transformation"] == "convert_to_hybrid"), where
        assert label["rationale"].strip(), where
        # a failure code states a fact: the fact must say so
        if "has_no_tensor_parameters" in label["failures"]:
            assert label["facts"]["has_tensor_parameter"] is False, where
        if "no_tensor_computation" in label["failures"]:
            assert label["facts"]["has_tensor_computation"] is False, where
        for code in ("has_python_side_effects", "has_eager_only_calls", "is_recursive"):
            assert (code in label["failures"]) == bool(label["facts"][code]), (where, code)


@pytest.mark.torch
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.name)
def test_program_runs_and_prints_a_digest(program: Path) -> None:
    completed = subprocess.run(
        [sys.executable, "main.py"],
        cwd=program,
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, "PYTHONHASHSEED": "0", "OMP_NUM_THREADS": "1"},
        check=False,
    )
    assert completed.returncode == 0, completed.stderr[-2000:]
    last = completed.stdout.strip().splitlines()[-1]
    assert last.startswith("digest: "), last
    assert [float(n) for n in last.removeprefix("digest: ").split()]


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.name)
def test_verdicts_and_facts_match_the_labels(program: Path) -> None:
    found = [d for d in disagreements(program) if d[0] not in KNOWN_DISAGREEMENTS]
    assert found == [], "\n".join(
        f"{name}: {field} expected {expected!r}, analysis says {actual!r}"
        for name, field, expected, actual in found
    )


def test_every_torch_verdict_names_torch() -> None:
    from hybridize.project import Project, ProjectOptions

    result = Project.open(TORCH_CORPUS, ProjectOptions(use_cache=False)).results()
    labelled = sum(len(labels(program)["functions"]) for program in PROGRAMS)
    assert len(result.functions) == labelled
    assert {v.framework for v in result.functions} == {"torch"}
