"""Refactor only what `hybridize bench` measured to pay: `hybridize refactor --from-bench`.

The bench report says, per function, whether compiling it was measured faster and
equivalent, and whether XLA (`jit_compile=True`) won over a plain graph. Every other planned
change is dropped; an XLA win gets `jit_compile=True` written into its decorator, a new one or
the existing `@tf.function` of a hybrid function (a `reconfigure` that adds only that).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from hybridize.model import AnalysisResult, FunctionVerdict


def keep_measured_wins(result: AnalysisResult, report: Path) -> AnalysisResult:
    """The result with only the measured wins still passing (XLA ones marked jit_compile)."""
    from hybridize.compiler.decisions import load_applied_changes

    wins = load_applied_changes(report, result.root)
    if not wins and _projects(report) == 1:
        # Measured on another copy of this project (a CI checkout, a temporary folder): its
        # paths, relative to the project it measured, are this project's paths.
        wins = load_applied_changes(report)
    functions = tuple(with_measurement(v, wins.get(v.key)) for v in result.functions)
    return dataclasses.replace(result, functions=functions)


def _projects(report: Path) -> int:
    """How many projects the bench report covers."""
    return len(json.loads(report.read_text(encoding="utf-8")).get("projects", []))


def with_measurement(verdict: FunctionVerdict, mode: str | None) -> FunctionVerdict:
    """The verdict as the measurement decides it: `mode` is the mode that won ("graph",
    "xla") or None (nothing applied). Also how the bench writes its refactored copy."""
    if verdict.is_hybrid and mode == "xla":
        # Measured: the existing decorator with jit_compile=True. Nothing else was measured,
        # so no input_signature is added with it.
        return dataclasses.replace(
            verdict,
            passes=True,
            transformation="reconfigure",
            input_signature=None,
            decorator_args=_with_jit_compile(verdict.decorator_args),
        )
    if verdict.transformation != "convert_to_hybrid" or mode not in ("graph", "xla"):
        return dataclasses.replace(verdict, passes=False, transformation=None)
    if mode == "xla":
        return dataclasses.replace(
            verdict, decorator_args=_with_jit_compile(verdict.decorator_args)
        )
    return verdict


def _with_jit_compile(arguments: tuple[tuple[str, bool], ...]) -> tuple[tuple[str, bool], ...]:
    """The decorator arguments with `jit_compile` set to True (in place, or added)."""
    if not any(name == "jit_compile" for name, _ in arguments):
        return (*arguments, ("jit_compile", True))
    return tuple((name, True if name == "jit_compile" else value) for name, value in arguments)
