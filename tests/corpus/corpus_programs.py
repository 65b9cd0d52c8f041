"""Discovery of the corpus programs and their labels, shared by the corpus tests."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from hybridize.model import FunctionFacts

CORPUS = Path(__file__).resolve().parents[2] / "corpus"
#: The TensorFlow programs. corpus/torch/ is labelled for torch.compile and judged by
#: test_torch_corpus.py with the same `disagreements` (corpus/README.md).
TENSORFLOW_CORPUS = CORPUS / "tensorflow"


def programs() -> list[Path]:
    """Every TensorFlow program folder: corpus/tensorflow/<name>/ with main.py and
    expected.json."""
    return sorted(p.parent for p in TENSORFLOW_CORPUS.glob("*/expected.json"))


def labels(program: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((program / "expected.json").read_text(encoding="utf-8"))
    return data


FUNCTION_FACTS = frozenset(f.name for f in dataclasses.fields(FunctionFacts))
"""The facts read as `FunctionFacts` fields; the others are checks' facts (`verdict.fact`)."""
VERDICT_FIELDS = ("passes", "transformation", "passing_precondition", "speculative")
FACT_FIELDS = (
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


def disagreements(program: Path) -> list[tuple[str, str, Any, Any]]:
    """(function key, field, expected, found) for every verdict field or fact that differs.

    Unknown (`None`) facts found by the tool are reported too: the labels are the truth.
    """
    from hybridize.project import Project, ProjectOptions

    result = Project.open(program, ProjectOptions(use_cache=False)).results()
    found = {(v.file, v.qualname): v for v in result.functions}
    out: list[tuple[str, str, Any, Any]] = []
    for label in labels(program)["functions"]:
        key = (label["file"], label["qualname"])
        name = f"{program.name}/{label['file']}::{label['qualname']}"
        verdict = found.get(key)
        if verdict is None:
            out.append((name, "missing", True, False))
            continue
        for fieldname in VERDICT_FIELDS:
            value = getattr(verdict.facts if fieldname == "speculative" else verdict, fieldname)
            if label[fieldname] != value:
                out.append((name, fieldname, label[fieldname], value))
        if set(label["failures"]) != set(verdict.failures):
            out.append((name, "failures", sorted(label["failures"]), sorted(verdict.failures)))
        for fact in FACT_FIELDS:
            value = getattr(verdict.facts, fact) if fact in FUNCTION_FACTS else verdict.fact(fact)
            if label["facts"].get(fact) != value:
                out.append((name, fact, label["facts"].get(fact), value))
    return out


if __name__ == "__main__":
    import sys

    selected = [p for p in programs() if len(sys.argv) < 2 or p.name in sys.argv[1:]]
    total_verdicts = 0
    wrong_verdicts = 0
    for program in selected:
        diffs = disagreements(program)
        n = len(labels(program)["functions"])
        bad = {d[0] for d in diffs if d[1] in ("passes", "transformation", "failures")}
        total_verdicts += n
        wrong_verdicts += len(bad)
        print(f"== {program.name}: {n - len(bad)}/{n} verdicts agree")
        for d in diffs:
            print(f"   {d[0]}: {d[1]} expected {d[2]!r} found {d[3]!r}")
    print(f"TOTAL {total_verdicts - wrong_verdicts}/{total_verdicts} verdicts agree")
