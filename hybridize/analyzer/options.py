"""The options of one analysis: the same for the per-file phase (cache, processes) and the
project-wide one (input signatures)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class AnalysisOptions:
    infer_input_signatures: bool = False
    use_cache: bool = True
    jobs: int | None = None
