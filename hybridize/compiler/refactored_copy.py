"""The measured wins written into a *temporary copy* of the program, for the whole-program runs.

The copy is written by refactor's own planner, from the verdicts the measurements make
(`with_measurement`, as `hybridize refactor --from-bench` makes them): a new decorator
(`@tf.function`, or `@tf.function(jit_compile=True)` for an XLA win) as the innermost one, or
`jit_compile=True` added to an existing decorator; spelled the way the module spells its
framework, with an import added where none reaches the function. So the program measured as a
whole is the program `refactor --from-bench` would write; there is one rewriter.

Only what was measured is written: no input signature (the per-function measurements compile
without one) and no assumption comment. The user's files are never written here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from hybridize.model import FunctionFacts, FunctionVerdict, Span
from hybridize.refactor.file_plan import plan_file
from hybridize.refactor.measured import with_measurement


@dataclass(frozen=True, slots=True)
class Change:
    """A measured win: the function (qualname, `def` line), the mode that won, and the
    framework whose decorator compiles it."""

    qualname: str
    line: int
    mode: str  # "graph" | "xla"
    is_hybrid: bool
    framework: str
    """The compile target of the function's verdict (`FunctionFacts.framework`)."""


def measured_verdict(file: str, change: Change) -> FunctionVerdict:
    """The verdict that makes the planner write exactly the measured change."""
    facts = FunctionFacts(
        file=file,
        qualname=change.qualname,
        line=change.line,
        span=Span(change.line, 0, change.line, 0),
        framework=change.framework,
        is_hybrid=change.is_hybrid,
    )
    verdict = FunctionVerdict(
        facts=facts,
        refactoring="optimize_hybrid" if change.is_hybrid else "convert_eager_to_hybrid",
        passes=not change.is_hybrid,
        transformation=None if change.is_hybrid else "convert_to_hybrid",
    )
    return with_measurement(verdict, change.mode)


def write_changes(root: Path, file: str, changes: Iterable[Change]) -> None:
    """Apply the changes to `root / file` in place; raises LookupError when the planner cannot
    make one of them (the function is not found, the result would not parse, ...)."""
    path = root / file
    raw = path.read_bytes()
    verdicts = [measured_verdict(file, change) for change in changes]
    plan, notices = plan_file(file, path, raw, verdicts)
    problems = [n.message for n in notices if n.level != "note"]
    if problems:
        raise LookupError("; ".join(problems))
    if plan is not None:
        path.write_bytes(plan.new_bytes())
