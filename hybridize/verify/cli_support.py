"""`hybridize refactor --verify` / `--verify-entry`: the command line's side of the verification.

Progress goes to stderr, one line per step ("round 2: 14 changes, running tests..."), then the
changes dropped and why; the verify report is saved for the language server. When the
changes cannot be verified (the command fails or times out on the unchanged project) the
message says why and the command exits with
`VERIFY_FAILED`: nothing is shown as verified and nothing is written.
"""

from __future__ import annotations

import dataclasses
import sys

import click

from hybridize.model import AnalysisResult
from hybridize.project import Project
from hybridize.refactor.plan import RefactorPlan
from hybridize.verify.report import save_report
from hybridize.verify.verification import (
    VerificationError,
    VerifyRequest,
    verify_plan,
)

VERIFY_FAILED = 3
"""Exit status when the changes could not be verified (nothing written)."""


def _progress(line: str) -> None:
    click.echo(line, err=True)


def verified_plan(
    project: Project, result: AnalysisResult, plan: RefactorPlan, request: VerifyRequest
) -> RefactorPlan:
    """The plan of the changes `request`'s command verifies (exits on failure)."""
    planned = {c.key for c in plan.changes}

    def replan(keys: frozenset[str]) -> RefactorPlan:
        functions = tuple(v for v in result.functions if v.key not in planned or v.key in keys)
        return project.plan(dataclasses.replace(result, functions=functions))

    if not plan.changes:
        _progress("verify: nothing planned, nothing to verify")
        return plan
    try:
        verification = verify_plan(plan, replan, request, _progress)
    except VerificationError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(VERIFY_FAILED)
    kept, dropped = len(verification.plan.changes), len(verification.dropped)
    _progress(
        f"verified by {request.command!r}: {kept} change{'s' if kept != 1 else ''} kept, "
        f"{dropped} dropped ({verification.rounds} rounds, {verification.runs} runs, "
        f"{verification.seconds:.0f} s)"
    )
    for drop in verification.dropped:
        _progress(f"dropped {drop.change}: {drop.reason}")
    for nodeid in verification.flaky:
        _progress(
            "flaky (passed when run again, or failed without the changes too; nothing "
            f"dropped for it): {nodeid}"
        )
    saved = save_report(verification)
    if saved is not None:
        _progress(f"verify report: {saved}")
    return verification.plan
