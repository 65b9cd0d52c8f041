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

from hybridize.analyzer.frameworks.framework import framework_named
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
    facts = verdict.facts
    xla_argument = framework_named(facts.framework).xla_argument
    if facts.is_hybrid and mode == "xla" and xla_argument is not None:
        # Measured: the existing decorator with jit_compile=True. Nothing else was measured,
        # so no input_signature is added with it.
        return dataclasses.replace(
            verdict,
            facts=dataclasses.replace(
                facts,
                input_signature=None,
                decorator_args=_with_argument(facts.decorator_args, xla_argument),
            ),
            passes=True,
            transformation="reconfigure",
        )
    if verdict.transformation != "convert_to_hybrid" or mode not in ("graph", "xla"):
        return dataclasses.replace(verdict, passes=False, transformation=None)
    if mode == "xla" and xla_argument is not None:
        xla = _with_argument(facts.decorator_args, xla_argument)
        return dataclasses.replace(verdict, facts=dataclasses.replace(facts, decorator_args=xla))
    return verdict


def _with_argument(
    arguments: tuple[tuple[str, bool], ...], name: str
) -> tuple[tuple[str, bool], ...]:
    """The decorator arguments with `name` set to True (in place, or added)."""
    if not any(argument == name for argument, _ in arguments):
        return (*arguments, (name, True))
    return tuple((argument, True if argument == name else value) for argument, value in arguments)
