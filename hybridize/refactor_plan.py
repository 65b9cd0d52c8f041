"""The bridge from verdicts to `refactored_files` of the JSON report.

The same plan that `hybridize refactor` shows and writes, with the same defaults: the
`[tool.hybridize]` selection of the analysed project applies (a configuration that cannot be
read is ignored here; `hybridize refactor` reports it). Plans of unchanged files come from the
plan cache, unless the command runs with `--no-cache`.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import click

from hybridize.model import AnalysisResult


def refactored_files(result: AnalysisResult) -> AnalysisResult:
    """The result with `refactored_files` set from the planned transformations."""
    from hybridize.config import Config, ConfigError, load_config
    from hybridize.refactor import PlanCache, Selection, plan_refactorings

    try:
        config = load_config(Path(result.root))
    except ConfigError:
        config = Config()
    context = click.get_current_context(silent=True)
    no_cache = bool(context is not None and context.params.get("no_cache"))
    plan = plan_refactorings(
        result,
        Selection(config.select, config.ignore, config.include_low_benefit),
        cache=None if no_cache else PlanCache(),
    )
    return dataclasses.replace(result, refactored_files=plan.refactored_files())
