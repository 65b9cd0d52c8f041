"""The corpus is fully labelled: every function the analyzer lists has a well-formed label."""

from __future__ import annotations

from pathlib import Path

import pytest

from hybridize.project import Project, ProjectOptions
from corpus_programs import CORPUS, labels, programs

FACTS = (
    "has_tensor_parameter",
    "has_primitive_parameters",
    "has_python_side_effects",
    "is_recursive",
    "has_tensor_computation",
    "caller_covered",
    "has_eager_only_calls",
    "has_numpy_calls_on_parameters",
    "has_invalid_name_arguments",
    "has_stale_variable_reads",
    "has_tensor_parameter_iteration",
    "has_unresolved_statically_read_axes",
    "has_conflicting_eager_dtype_coercions",
    "has_keras_symbolic_arguments",
)
CODES = {
    "has_no_tensor_parameters",
    "undeterminable_tensor_parameter",
    "has_primitive_parameters",
    "undeterminable_primitive_parameter",
    "has_python_side_effects",
    "undeterminable_side_effects",
    "is_recursive",
    "cant_approximate_recursion",
    "has_eager_only_calls",
    "has_numpy_calls_on_parameters",
    "has_invalid_name_arguments",
    "has_stale_variable_reads",
    "has_tensor_parameter_iteration",
    "has_conflicting_eager_dtype_coercions",
    "has_keras_symbolic_arguments",
    "has_python_value_returns",
    "has_frozen_python_state_reads",
    "has_unhashable_arguments",
    "has_rank_losing_slices",
    "has_loop_carried_shape_changes",
    "draws_seeded_global_random",
    "is_defined_in_function",
    "no_tensor_computation",
    "has_covered_callers",
    "has_no_primitive_parameters",
    # no candidates by their nature (hybridize/analyzer/facts/candidacy.py, docs/verdicts.md section 2, rule 6)
    "not_tensorflow_code",
    "legacy_graph_code",
    "dataset_builder",
    "wrapped_by_unknown_decorator",
}


def test_corpus_has_at_least_twenty_programs() -> None:
    assert len(programs()) >= 20


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name)
def test_every_function_is_labelled(program: Path) -> None:
    data = labels(program)
    assert data["program"] == program.name
    result = Project.open(program, ProjectOptions(use_cache=False)).results()
    assert result.errors == ()
    found = {(v.file, v.qualname) for v in result.functions}
    labelled = {(f["file"], f["qualname"]) for f in data["functions"]}
    assert found == labelled, {"unlabelled": found - labelled, "no such function": labelled - found}


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name)
def test_labels_are_well_formed(program: Path) -> None:
    data = labels(program)
    assert isinstance(data["digest_atol"], int | float)
    # The benchmark's run: the same program at a longer training length.
    assert data["bench_entry"].startswith("python main.py --"), data.get("bench_entry")
    for label in data["functions"]:
        where = f"{label['file']}::{label['qualname']}"
        assert set(FACTS) <= set(label["facts"]), where
        assert set(label["failures"]) <= CODES, where
        assert label["passes"] == (label["transformation"] is not None), where
        assert label["rationale"].strip(), where
        expected_kind = "optimize_hybrid" if label["is_hybrid"] else "convert_eager_to_hybrid"
        assert label["refactoring"] == expected_kind, where
        if not label["is_hybrid"]:
            assert label["passes"] == (label["failures"] == []), where
            assert label["passing_precondition"] in (None, "P1"), where


def test_corpus_is_under_corpus_folder() -> None:
    assert all(p.is_relative_to(CORPUS) for p in programs())
