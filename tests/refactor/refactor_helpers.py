"""Helpers shared by the refactoring tests: hand-made verdicts and one-file refactoring."""

from __future__ import annotations

import textwrap
from pathlib import Path

from verdict_parts import made_verdict

from hybridize.model import FunctionVerdict, Span, SpecTree
from hybridize.refactor import Notice
from hybridize.refactor.file_plan import plan_file


def verdict(
    qualname: str,
    transformation: str = "convert_to_hybrid",
    *,
    file: str = "m.py",
    line: int = 0,
    speculative: bool = False,
    assumptions: tuple[str, ...] = (),
    input_signature: tuple[SpecTree, ...] | None = None,
    is_hybrid: bool | None = None,
) -> FunctionVerdict:
    """A passing verdict as the analysis would give it; `line=0` lets the qualname decide."""
    hybrid = transformation != "convert_to_hybrid" if is_hybrid is None else is_hybrid
    return made_verdict(
        framework="tensorflow",
        file=file,
        qualname=qualname,
        line=line,
        span=Span(line, 0, line, 0),
        is_hybrid=hybrid,
        refactoring="optimize_hybrid" if hybrid else "convert_eager_to_hybrid",
        passes=True,
        passing_precondition="P1",
        transformation=transformation,
        speculative=speculative,
        assumptions=assumptions,
        input_signature=input_signature,
    )


def source(text: str) -> bytes:
    """Dedented UTF-8 source."""
    return textwrap.dedent(text).encode("utf-8")


def refactor_bytes(
    raw: bytes, *verdicts: FunctionVerdict, file: str = "m.py"
) -> tuple[bytes, list[Notice]]:
    """The file's bytes after the plan for `verdicts` (unchanged when nothing is planned)."""
    plan, notices = plan_file(file, Path(file), raw, verdicts)
    if plan is None:
        return raw, notices
    return plan.new_bytes(), notices


def refactor_twice(raw: bytes, *verdicts: FunctionVerdict) -> tuple[bytes, list[Notice]]:
    """Refactor, then check that planning again on the output changes nothing."""
    once, notices = refactor_bytes(raw, *verdicts)
    again, _ = refactor_bytes(once, *verdicts)
    assert again == once, "a second run changed the output"
    return once, notices


CORPUS = Path(__file__).resolve().parents[2] / "corpus"


def corpus_programs() -> list[Path]:
    """Every TensorFlow corpus program folder (it holds main.py and expected.json); the
    corpus/torch programs are refactored once the PyTorch adapter exists (issue 13)."""
    return sorted(p.parent for p in (CORPUS / "tensorflow").glob("*/expected.json"))
