"""The data model shared by every layer: frozen, slotted values at each boundary.

The analyzer produces these values, the renderers (text, JSON, SARIF), the refactoring engine and
the language server consume them. Nothing here knows how facts are computed. Field names of
`FunctionFacts` and `FunctionVerdict` are those of the public JSON report (`docs/report-format.md`).

Positions: lines are 1-based, columns are 0-based code-point offsets; each renderer converts at
its edge (SARIF wants 1-based columns, LSP wants UTF-16 offsets).
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, TypeVar

from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.notebooks import CellMap

Tristate = bool | None
"""A fact that may be true, false or unknown (`null` in JSON): unknown is an honest answer."""

Severity = Literal["ok", "info", "warning", "error"]

Benefit = Literal["high", "low", "none"]
"""Predicted gain of compiling a function: pays, may pay (or unknown), cannot pay."""

BenefitRule = Literal["library_layer", "exported_layer", "exported_function", "public_function"]
"""The rule that rated a benefit on how code outside the project runs the function, which the
rewrite's comment then states as its assumption (`hybridize/analyzer/decisions/benefit.py`):
"library_layer", a public layer's call of a library whose own code runs no model;
"exported_layer", a layer's call of a class the package exports as its public API;
"exported_function", a module-level function the package exports as its public API
(`decisions/exported_api.py`); "public_function", a public function of a public module the
project imports by that path, where its own code does not count its calls (the same file).
Each rates the call by its work, assuming its users also call
it eagerly."""

_Frozen = TypeVar("_Frozen", bound=type)


def fast_pickling(cls: _Frozen) -> _Frozen:
    """Pickle a frozen, slotted dataclass by its field values, as `dataclasses` does, but
    without calling `dataclasses.fields` for every object read back.

    A run served by the cache unpickles every verdict of the project (about ten objects per
    function) and every cached summary; `dataclasses`' own `__setstate__` spent half of that
    time asking for the class's fields again, per object. The state is the same sequence of
    values in field order, so pickles written either way read back either way.
    """
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or "__slots__" not in cls.__dict__:
        raise TypeError(f"{cls.__name__} is not a frozen, slotted dataclass")
    names = tuple(f.name for f in dataclasses.fields(cls))
    assign = object.__setattr__

    def __setstate__(self: object, state: tuple[object, ...]) -> None:
        for name, value in zip(names, state, strict=True):
            assign(self, name, value)

    values = operator.attrgetter(*names)  # a tuple of the values, but for one field

    def __getstate__(self: object) -> tuple[object, ...]:
        return (values(self),) if len(names) == 1 else values(self)

    setattr(cls, "__setstate__", __setstate__)  # noqa: B010 (mypy: no such attribute on type)
    setattr(cls, "__getstate__", __getstate__)  # noqa: B010
    return cls


@fast_pickling
@dataclass(frozen=True, slots=True)
class Span:
    """A region of a source file: 1-based lines, 0-based code-point columns, end exclusive."""

    start_line: int
    start_col: int
    end_line: int
    end_col: int

    def encloses(self, inner: Span) -> bool:
        """Whether `inner` lies within this region (its ends included)."""
        return (self.start_line, self.start_col) <= (inner.start_line, inner.start_col) and (
            inner.end_line,
            inner.end_col,
        ) <= (self.end_line, self.end_col)


@fast_pickling
@dataclass(frozen=True, slots=True)
class Finding:
    """One diagnostic behind a verdict: a check's code, the failure name it maps to, and where."""

    code: str
    name: str
    severity: Severity
    message: str
    span: Span
    related: tuple[Span, ...] = ()


@fast_pickling
@dataclass(frozen=True, slots=True)
class TensorSpec:
    """A tensor type as the report writes it: spec class, dtype name (or None), shape (or None)."""

    spec: str = "TensorSpec"
    dtype: str | None = None
    shape: tuple[int | None, ...] | None = None


SpecTree = TensorSpec | tuple["SpecTree", ...]
"""A parameter's type: a spec, or a nested list of specs for a list/tuple of tensors."""


@fast_pickling
@dataclass(frozen=True, slots=True)
class ParamReport:
    """What the analysis knows about one parameter (self/cls excluded)."""

    name: str
    is_tensor: Tristate
    tensor_types: tuple[SpecTree, ...] = ()


DECORATOR_ARG_NAMES: tuple[str, ...] = (
    "input_signature",
    "autograph",
    "jit_compile",
    "reduce_retracing",
    "experimental_implements",
    "experimental_autograph_options",
    "experimental_follow_type_hints",
    "func",
)
"""The `tf.function` parameters the report tracks, in the report's order."""


@fast_pickling
@dataclass(frozen=True, slots=True)
class FunctionFacts:
    """What the analysis knows of one function before anything is decided: where it is, its
    compile target, what its parameters receive, what it does. A verdict carries them
    (`FunctionVerdict.facts`) rather than a copy: the decision adds its outcome beside them."""

    file: str
    qualname: str
    line: int
    span: Span
    framework: str = field(kw_only=True)
    """The compile target's name (`Framework.name`): a report field, so a name."""
    is_hybrid: bool = False
    has_tensor_parameter: Tristate = None
    has_primitive_parameters: Tristate = False
    has_python_side_effects: Tristate = False
    is_recursive: Tristate = False
    has_tensor_computation: Tristate = None
    caller_covered: Tristate = False
    check_facts: Mapping[str, Tristate] = field(default_factory=dict)
    """The facts the registry's checks decide, by `Check.fact` (has_eager_only_calls, ...):
    which of them the report shows, and in what order, the registry says
    (`report_fact_fields`). A fact missing here is false (its check did not run)."""
    speculative: bool = False
    """The function's tensor parameters are assumed (`assumptions` says on what), not shown."""
    decorator_args: tuple[tuple[str, bool], ...] = tuple((n, False) for n in DECORATOR_ARG_NAMES)
    supplied_input_signature: tuple[SpecTree, ...] | None = None
    input_signature: tuple[SpecTree, ...] | None = None
    input_signature_absence_reason: str | None = None
    params: tuple[ParamReport, ...] = ()

    def fact(self, name: str) -> Tristate:
        """A fact a check decides (`Check.fact`); false when its check did not run."""
        return self.check_facts.get(name, False)


@fast_pickling
@dataclass(frozen=True, slots=True)
class FunctionVerdict:
    """One function's facts and the decision about them: the JSON report's function object
    (its fields are those of `facts` and of the decision, `json_report.function_keys()`)."""

    facts: FunctionFacts
    refactoring: str = "convert_eager_to_hybrid"
    passes: bool = False
    passing_precondition: str | None = None
    transformation: str | None = None
    failures: tuple[str, ...] = ()
    assumptions: tuple[str, ...] = ()
    """What the verdict rests on: the facts' assumptions, and what adding the decorator would
    change process-wide where it adds one."""
    status_severity: Severity = "ok"
    findings: tuple[Finding, ...] = ()
    benefit: Benefit | None = None
    """What compiling the function is predicted to gain (`hybridize/analyzer/decisions/benefit.py`): "high"
    (refactor applies it by default), "low" or "none"; None where nothing was estimated."""
    benefit_reasons: tuple[str, ...] = ()
    benefit_rule: BenefitRule | None = None
    """Which rule rated `benefit` on an assumption about code outside the project
    (`BenefitRule`); None where the project's own code decided."""

    # The function the verdict is about: every layer names it (a renderer's lines, the
    # refactoring's edits, the editor's ranges), so its identity reads from the verdict.
    @property
    def file(self) -> str:
        return self.facts.file

    @property
    def qualname(self) -> str:
        return self.facts.qualname

    @property
    def line(self) -> int:
        return self.facts.line

    @property
    def span(self) -> Span:
        return self.facts.span

    @property
    def framework(self) -> str:
        return self.facts.framework

    def fact(self, name: str) -> Tristate:
        """A fact a check decides (`Check.fact`): `facts.fact`."""
        return self.facts.fact(name)

    @property
    def has_errors(self) -> bool:
        """True when any failure is reported (docs/verdicts.md section 2)."""
        return bool(self.failures)

    @property
    def function_key(self) -> FunctionKey:
        """The function as the analysis names it."""
        return FunctionKey(self.facts.file, self.facts.qualname)

    @property
    def key(self) -> str:
        """A stable identifier, `file::qualname` (the text form of `function_key`), used by
        --select/--ignore globs and the corpus."""
        return str(self.function_key)


@fast_pickling
@dataclass(frozen=True, slots=True)
class FileError:
    """A file that could not be analysed, and why, in words a user can act on."""

    file: str
    message: str


@fast_pickling
@dataclass(frozen=True, slots=True)
class AnalysisResult:
    """Everything one `analyze` run found; renderers are pure functions of this value."""

    root: str
    functions: tuple[FunctionVerdict, ...]
    errors: tuple[FileError, ...] = ()
    refactored_files: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    cell_maps: dict[str, CellMap] = field(default_factory=dict)
    """Per notebook (`.ipynb`), which cell each line of its module is in: reports name a
    notebook's places as `nb.ipynb:cell 3:5` (docs/report-format.md)."""

    def place(self, file: str, line: int) -> str:
        """`file:line`, or `file:cell C:L` for a line of a notebook's cell."""
        cells = self.cell_maps.get(file)
        position = cells.position(line) if cells is not None else None
        return f"{file}:{line}" if position is None else f"{file}:{position}"

    @property
    def candidates(self) -> int:
        """Functions for which a transformation was considered: every decided function."""
        return sum(1 for f in self.functions if f.facts.has_tensor_parameter is not False)

    @property
    def refactorable(self) -> int:
        """Functions whose verdict passes (a transformation is chosen)."""
        return sum(1 for f in self.functions if f.passes)
