"""What a check's detection is given: one function, with what the project-wide phase knows.

The engine makes one `CheckContext` per function and hands it to every check that applies to
the function's framework (`detecting`). What several checks read of the same function (its
body under inspection, the hazards of the helpers traced with it) is computed once, on first
use, and shared.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hybridize.analyzer.facts.effects import EffectSummary
from hybridize.analyzer.facts.evaluator import TensorFacts
from hybridize.analyzer.facts.helper_safety import GraphHazards, HelperSafety
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.retracing import LiteralVariation, Retraces
from hybridize.analyzer.facts.safety import SafetyScan
from hybridize.analyzer.facts.signatures import FunctionSignatures, function_signatures
from hybridize.analyzer.frameworks.framework import Framework
from hybridize.analyzer.summaries.ir import FunctionSummary
from hybridize.analyzer.summaries.keys import FunctionKey

if TYPE_CHECKING:
    from hybridize.analyzer.checks import Check


@dataclass(frozen=True, slots=True)
class ProjectFacts:
    """What the verdict phase knows of the whole project, the same for every function."""

    index: ProjectIndex
    facts: TensorFacts
    """The solved tensor facts."""
    helpers: HelperSafety
    """What each project function does inside a caller's graph."""
    compiled: Collection[FunctionKey]
    """The functions already compiled (decorated or wrapped)."""
    traced: Collection[FunctionKey]
    """The functions that run as graphs: compiled, or called only from graphs."""
    variation: LiteralVariation
    """Whether the literals the call sites pass differ between calls."""
    graph_breaks: Mapping[FunctionKey, bool]
    """Whether a function, or what it runs, may break the graph where the labelling does not
    fail it (`facts/graph_breaks.py`)."""


@dataclass(slots=True)
class CheckContext:
    """One function under the checks: its key, framework, and whether it may be compiled."""

    project: ProjectFacts
    key: FunctionKey
    framework: Framework
    """The function's compile target."""
    compiled: bool
    """Already compiled: what compiling would change has already happened."""
    compilable: bool
    """May be compiled: it takes tensors, or may (one taking none is never decorated)."""
    effects: EffectSummary | None = None
    """Its Python side effects (`facts/effects.py`)."""
    recursive: bool = False
    """It calls itself, directly or through other functions."""
    speculative: bool = False
    """Its tensor parameters are assumed (`speculate`), not shown by a call site."""
    infer_input_signatures: bool = False
    """Signatures are inferred (`--infer-input-signatures`)."""
    assumptions: list[str] = field(default_factory=list)
    """What the verdict rests on, as detections find it (`assume`)."""
    _scan: SafetyScan | None = None
    _hazards: GraphHazards | None = None
    _signatures: FunctionSignatures | None = None
    _retraces: Retraces | None = None

    @property
    def index(self) -> ProjectIndex:
        return self.project.index

    @property
    def facts(self) -> TensorFacts:
        return self.project.facts

    @property
    def function(self) -> FunctionSummary:
        return self.project.index.function(self.key)

    def summary_facts(self, check: type[Check]) -> tuple[Any, ...]:
        """What `check`'s summary hook recorded in this function (`Check.summary_hook`)."""
        return check.summary_facts(self.function)

    @property
    def scan(self) -> SafetyScan:
        """The function's body under inspection, shared by the checks that read it."""
        if self._scan is None:
            self._scan = SafetyScan(
                self.project.index, self.project.facts, self.key, self.framework
            )
        return self._scan

    @property
    def graph_hazards(self) -> GraphHazards:
        """What fails in the function's own graph, through the helpers traced with it."""
        if self._hazards is None:
            self._hazards = self.project.helpers.hazards(self.key)
        return self._hazards

    @property
    def signatures(self) -> FunctionSignatures:
        """The supplied and inferred input signatures, worked out once."""
        if self._signatures is None:
            self._signatures = function_signatures(
                self.project.index,
                self.project.facts,
                self.key,
                self.framework,
                compiled=self.compiled,
                infer=self.infer_input_signatures,
                speculative=self.speculative,
            )
        return self._signatures

    @property
    def retraces(self) -> Retraces:
        """The parameters whose arguments differ between calls, worked out once."""
        if self._retraces is None:
            self._retraces = self.project.variation.retraces(self.key)
        return self._retraces

    @property
    def changes_on_compiling(self) -> bool:
        """Whether compiling the function is still to come: it may be compiled and is not
        yet (what compiling would change is no hazard of a function already compiled)."""
        return self.compilable and not self.compiled

    def assume(self, assumption: str) -> None:
        """Record an assumption the verdict rests on, in words."""
        self.assumptions.append(assumption)
