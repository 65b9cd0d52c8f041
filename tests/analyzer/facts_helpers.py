"""Shared helpers of the `test_facts_*` suites: analyse small in-memory projects.

Each case of those suites is a complete module (or several) and the value that ONE fact or
verdict field must take, decided from Python/TensorFlow semantics and docs/verdicts.md.
"""

from __future__ import annotations

import dataclasses
import textwrap
from typing import Any

import pytest

from hybridize.model import DECORATOR_ARG_NAMES, AnalysisResult, FunctionFacts, FunctionVerdict
from hybridize.project import Project, ProjectOptions

Files = str | dict[str, str]


def analyse(files: Files, *, infer_input_signatures: bool = False) -> dict[str, FunctionVerdict]:
    """Verdicts by qualname (one module) or by `file::qualname` (several modules), of the
    files as an in-memory project (`Project.from_texts`).

    A bare string is a single module `main.py`. Files that do not parse are skipped, as the
    command line does: the rest of the project is still analysed.
    """
    if isinstance(files, str):
        files = {"main.py": files}
    verdicts = project_result(files, infer_input_signatures=infer_input_signatures).functions
    return {v.qualname if len(files) == 1 else f"{v.file}::{v.qualname}": v for v in verdicts}


def project_result(files: Files, *, infer_input_signatures: bool = False) -> AnalysisResult:
    """The result (verdicts, and the errors of files and functions) of the files, dedented,
    as an in-memory project (`Project.from_texts`); a bare string is a module `main.py`."""
    if isinstance(files, str):
        files = {"main.py": files}
    texts = {name: textwrap.dedent(src) for name, src in files.items()}
    options = ProjectOptions(infer_input_signatures, use_cache=False)
    return Project.from_texts(texts, options).results()


def analyse_with_signatures(files: Files) -> dict[str, FunctionVerdict]:
    """`analyse` with input-signature inference switched on."""
    return analyse(files, infer_input_signatures=True)


def verdict(files: Files, qualname: str) -> FunctionVerdict:
    """The verdict of one function; fails with the list of known names when it is missing."""
    verdicts = analyse(files)
    assert qualname in verdicts, f"{qualname} not analysed; got {sorted(verdicts)}"
    return verdicts[qualname]


FACT_FIELDS = frozenset(f.name for f in dataclasses.fields(FunctionFacts))
DECISION_FIELDS = frozenset(f.name for f in dataclasses.fields(FunctionVerdict))


def finding_messages(files: Files, qualname: str, code: str) -> list[str]:
    """The messages of one function's findings of `code` (`files` dedented, as `analyse`)."""
    return [f.message for f in verdict(files, qualname).findings if f.code == code]


def field_value(v: FunctionVerdict, field: str) -> Any:
    """A field of the verdict's facts or of its decision, a check's fact (`Check.fact`), or a
    derived view: `finding_codes`, `param_kinds`, `has_assumption`, `decorator_arg:NAME`,
    `failure:CODE`."""
    if field == "finding_codes":
        return {f.code for f in v.findings}
    if field == "param_kinds":
        return {p.name: p.is_tensor for p in v.facts.params}
    if field.startswith("failure:"):
        return field.split(":", 1)[1] in v.failures
    if field.startswith("decorator_arg:"):
        return dict(v.facts.decorator_args)[field.split(":", 1)[1]]
    if field == "has_assumption":
        return bool(v.assumptions) and all(a.strip() for a in v.assumptions)
    if field in FACT_FIELDS:
        return getattr(v.facts, field)
    if field in DECISION_FIELDS:
        return getattr(v, field)
    return v.fact(field)


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


def run_probe(source: str, **env: str) -> dict[str, str]:
    """Run a measuring program in a fresh interpreter (TensorFlow quiet, no GPU, `env` added)
    and read back its lines `label value...` as {label: "value..."}."""
    import os
    import subprocess
    import sys

    environment = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "CUDA_VISIBLE_DEVICES": "", **env}
    done = subprocess.run(
        [sys.executable, "-c", source], env=environment, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return dict(line.split(" ", 1) for line in done.stdout.splitlines())
