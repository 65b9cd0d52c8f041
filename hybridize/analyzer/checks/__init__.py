"""The registry of checks: one stable code per reason a verdict fails or a hazard exists.

Each check lives in its own module of this package as a subclass of `Check` with a code
`HYnnn`, the failure name of docs/verdicts.md it maps to, a one-line summary, a docstring with the
sections "What it detects", "Why it matters in graph mode", "Example" and "Instead", and
`VALID` / `INVALID` programs: in every INVALID program the function named by
`EXAMPLE_FUNCTION` gets a finding with this code, starting on exactly the lines marked
`# expect: HYnnn`, in every VALID one it does not. A single
parametrised test runs them all. The programs are data of the `hybridize` package, in
`hybridize/check_examples/HYnnn/valid-N.txt` and `invalid-N.txt` (a first comment line says
what each shows): they import TensorFlow, and nothing under hybridize/analyzer/ spells such an import,
not even as text. Families by hundreds: HY0xx eligibility and benefit, HY1xx
Python side effects, HY2xx retracing, HY3xx eager-only escapes, HY4xx framework hazards, HY5xx
structure, HY9xx tool errors.

Checks do not walk trees: the analysis computes facts once, and the decision step attaches
findings with these codes.

Each check declares the frameworks (compile targets, `Framework.name`) it applies to: what a
`print` does under `tf.function` is not what it does under `torch.compile`, so a check written
from TensorFlow's semantics applies to TensorFlow only until its reasoning is checked against
another framework's. The decision step keeps only the findings of checks that apply to the
function's framework (`applies`), and a safety fact whose check does not apply to the
function's framework is no hazard there: it reads false (`decide`).
A check switched off for experiments (`switched_off_checks`) applies to no framework.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from pathlib import Path
from typing import ClassVar

import hybridize
from hybridize.analyzer.frameworks.framework import FRAMEWORKS, TENSORFLOW, TORCH
from hybridize.analyzer.switched_off_checks import disabled_codes
from hybridize.model import Severity

ALL_FRAMEWORKS: frozenset[str] = frozenset(f.name for f in FRAMEWORKS)
"""For checks that are about the tool, not about a framework (file and internal errors)."""
TENSORFLOW_ONLY: frozenset[str] = frozenset({TENSORFLOW.name})
"""For checks whose hazard exists under `tf.function` only (each says why in its docstring)."""
TENSORFLOW_AND_TORCH: frozenset[str] = frozenset({TENSORFLOW.name, TORCH.name})
"""For checks whose fact means the same under `torch.compile`, by the labelling policy of
corpus/README.md (each says how in its docstring, section "Under torch.compile")."""


class Check:
    """Documentation and examples of one finding code."""

    code: ClassVar[str] = ""
    name: ClassVar[str] = ""
    severity: ClassVar[Severity] = "warning"
    summary: ClassVar[str] = ""
    unblock: ClassVar[str] = ""
    """One line: the one thing that would lift this finding (the gist of the docstring's
    "Instead" section), shown next to a blocked function in the reports."""
    frameworks: ClassVar[frozenset[str]] = frozenset({TENSORFLOW.name})
    """The frameworks (`Framework.name`) whose functions this check's findings apply to."""
    EXAMPLE_FUNCTION: ClassVar[str] = "f"
    INFER_INPUT_SIGNATURES: ClassVar[bool] = False
    """Run the examples with `--infer-input-signatures` (checks about signatures)."""
    VALID: ClassVar[tuple[str, ...]] = ()
    INVALID: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: object) -> None:
        """Read the check's example programs from `check_examples/<code>/`."""
        super().__init_subclass__(**kwargs)
        if cls.code:
            cls.VALID = cls.VALID or _examples(cls.code, "valid")
            cls.INVALID = cls.INVALID or _examples(cls.code, "invalid")

    @classmethod
    def documentation(cls) -> str:
        """The text `hybridize explain CODE` prints."""
        doc = (cls.__doc__ or "").strip("\n")
        lines = doc.splitlines()
        indent = min((len(x) - len(x.lstrip()) for x in lines[1:] if x.strip()), default=0)
        body = "\n".join([lines[0].strip(), *[x[indent:] for x in lines[1:]]]) if lines else ""
        return f"{cls.code} {cls.name}: {cls.summary}\n\n{body}\n"


EXAMPLES = Path(hybridize.__file__).parent / "check_examples"


def _examples(code: str, kind: str) -> tuple[str, ...]:
    """The `kind` ("valid" or "invalid") programs of a check, in their numbered order."""
    files = sorted((EXAMPLES / code).glob(f"{kind}-*.txt"), key=lambda p: int(p.stem.split("-")[1]))
    return tuple(path.read_text(encoding="utf-8") for path in files)


@cache
def registry() -> dict[str, type[Check]]:
    """Every registered check by code, importing the modules of this package once."""
    for module in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{module.name}")
    found: dict[str, type[Check]] = {}
    stack = list(Check.__subclasses__())
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        if cls.code:
            found[cls.code] = cls
    return dict(sorted(found.items()))


def checks_for(framework: str) -> dict[str, type[Check]]:
    """The registered checks that apply to functions of `framework` (`Framework.name`)."""
    return {code: check for code, check in registry().items() if framework in check.frameworks}


def applies(code: str, framework: str) -> bool:
    """Whether a finding with `code` belongs on a function of `framework`: its check applies
    to that framework (a code no check documents is kept: nothing says otherwise) and is not
    switched off (`disabled_codes`)."""
    if code in disabled_codes():
        return False
    check = registry().get(code)
    return check is None or framework in check.frameworks


def severity_of(code: str) -> Severity:
    check = registry().get(code)
    return check.severity if check is not None else "warning"


def name_of(code: str, default: str) -> str:
    check = registry().get(code)
    return check.name if check is not None else default
