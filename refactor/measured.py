"""Refactor only what `hybridize bench` measured to pay: `hybridize refactor --from-bench`.

The bench report says, per function, whether compiling it was measured faster and
equivalent, and whether XLA (`jit_compile=True`) won over a plain graph. Every other planned
change is dropped; an XLA win gets `jit_compile=True` written into its decorator.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from hybridize.model import AnalysisResult, FunctionVerdict


def keep_measured_wins(result: AnalysisResult, report: Path) -> AnalysisResult:
    """The result with only the measured wins still passing (XLA ones marked jit_compile)."""
    from hybridize.compiler.decisions import load_applied_changes

    wins = load_applied_changes(report, result.root)
    functions = tuple(_measured(verdict, wins.get(verdict.key)) for verdict in result.functions)
    return dataclasses.replace(result, functions=functions)


def _measured(verdict: FunctionVerdict, mode: str | None) -> FunctionVerdict:
    if verdict.transformation != "convert_to_hybrid" or mode not in ("graph", "xla"):
        return dataclasses.replace(verdict, passes=False, transformation=None)
    if mode == "xla":
        arguments = tuple(
            (name, True if name == "jit_compile" else value)
            for name, value in verdict.decorator_args
        )
        return dataclasses.replace(verdict, decorator_args=arguments)
    return verdict
