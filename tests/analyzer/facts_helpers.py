"""Shared helpers of the `test_facts_*` suites: analyse small in-memory projects.

Each case of those suites is a complete module (or several) and the value that ONE fact or
verdict field must take, decided from Python/TensorFlow semantics and docs/verdicts.md.
"""

from __future__ import annotations

import textwrap
from typing import Any

import pytest

from hybridize.analyzer.engine import AnalysisOptions, analyze_summaries, summarize_text
from hybridize.model import DECORATOR_ARG_NAMES, FileError, FunctionVerdict

Files = str | dict[str, str]


def analyse(files: Files) -> dict[str, FunctionVerdict]:
    """Verdicts by qualname (one module) or by `file::qualname` (several modules).

    A bare string is a single module `main.py`. Files that do not parse are skipped, as the
    command line does: the rest of the project is still analysed.
    """
    if isinstance(files, str):
        files = {"main.py": files}
    summaries = [summarize_text(name, textwrap.dedent(src)) for name, src in files.items()]
    parsed = [s for s in summaries if not isinstance(s, FileError)]
    verdicts = analyze_summaries(parsed, AnalysisOptions(use_cache=False))
    return {v.qualname if len(files) == 1 else f"{v.file}::{v.qualname}": v for v in verdicts}


def verdict(files: Files, qualname: str) -> FunctionVerdict:
    """The verdict of one function; fails with the list of known names when it is missing."""
    verdicts = analyse(files)
    assert qualname in verdicts, f"{qualname} not analysed; got {sorted(verdicts)}"
    return verdicts[qualname]


def field_value(v: FunctionVerdict, field: str) -> Any:
    """A verdict field, or a derived view of one: `finding_codes`, `param_kinds`,
    `has_assumption`, `decorator_arg:NAME`, `failure:CODE`."""
    if field == "finding_codes":
        return {f.code for f in v.findings}
    if field == "param_kinds":
        return {p.name: p.is_tensor for p in v.params}
    if field.startswith("failure:"):
        return field.split(":", 1)[1] in v.failures
    if field.startswith("decorator_arg:"):
        return dict(v.decorator_args)[field.split(":", 1)[1]]
    if field == "has_assumption":
        return bool(v.assumptions) and all(a.strip() for a in v.assumptions)
    return getattr(v, field)


def case(
    case_id: str,
    files: Files,
    qualname: str,
    expected: Any,
    field: str | None = None,
    xfail: str | None = None,
) -> Any:
    """One parametrised case; `xfail` names what the analyzer gets wrong (strict)."""
    marks = [pytest.mark.xfail(strict=True, reason=f"analyzer: {xfail}")] if xfail else []
    values = (files, qualname, expected) if field is None else (files, qualname, field, expected)
    return pytest.param(*values, id=case_id, marks=marks)


def decorator_args(**supplied: bool) -> tuple[tuple[str, bool], ...]:
    """The `decorator_args` tuple with the named `tf.function` arguments supplied."""
    unknown = set(supplied) - set(DECORATOR_ARG_NAMES)
    assert not unknown, unknown
    return tuple((name, supplied.get(name, False)) for name in DECORATOR_ARG_NAMES)


TENSOR_PROGRAM_HEADER = """
        import numpy as np
        import tensorflow as tf
"""
TENSOR_PROGRAM_CALL = """
        f(tf.ones((4, 3)))
"""


def program(body: str) -> str:
    """A module importing NumPy and TensorFlow, `body` (defining `f`), then `f` called once on
    a float tensor of shape (4, 3): the shared frame of the table tests of one function."""
    return TENSOR_PROGRAM_HEADER + body + TENSOR_PROGRAM_CALL
