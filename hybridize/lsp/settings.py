"""The server's settings: `[tool.hybridize]` of the workspace, then the editor's own.

The project's pyproject.toml gives the defaults the CLI uses (`select`, `ignore`,
`infer-input-signatures`, `include-low-benefit`), so an editor shows what `hybridize refactor` would do. The editor's
settings (section `hybridize` of `workspace/configuration`, or the initialization options)
combine with them as the command-line options do: `select` replaces, `ignore` adds,
`inferInputSignatures` and `includeLowBenefit` override. `hints` (default off) is an editor preference only: it shows
the findings that block a candidate as Hint diagnostics.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hybridize.config import Config, ConfigError, load_config
from hybridize.project import ProjectOptions
from hybridize.refactor.selection import split_patterns

SECTION = "hybridize"


@dataclass(frozen=True, slots=True)
class Settings:
    options: ProjectOptions = field(default_factory=ProjectOptions)
    hints: bool = False
    warnings: tuple[str, ...] = ()


def _patterns(value: Any) -> tuple[str, ...] | None:
    if isinstance(value, str):
        return split_patterns([value])
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return split_patterns(value)
    return None


def load_settings(root: Path | None, editor: Mapping[str, Any] | None) -> Settings:
    """The settings for a workspace `root` (None: no pyproject) and the editor's section."""
    warnings: list[str] = []
    config = Config()
    if root is not None:
        try:
            config = load_config(root)
        except ConfigError as exc:
            warnings.append(f"{exc}; using the defaults")
    warnings.extend(config.warnings)
    editor = editor if isinstance(editor, Mapping) else {}
    defaults = ProjectOptions.from_config(config)
    select, ignore, infer = defaults.select, defaults.ignore, defaults.infer_input_signatures
    if "select" in editor:
        chosen = _patterns(editor["select"])
        if chosen is None:
            warnings.append("setting hybridize.select must be a list of strings")
        else:
            select = chosen
    if "ignore" in editor:
        added = _patterns(editor["ignore"])
        if added is None:
            warnings.append("setting hybridize.ignore must be a list of strings")
        else:
            ignore = (*ignore, *added)
    value = editor.get("inferInputSignatures", editor.get("infer-input-signatures"))
    if isinstance(value, bool):
        infer = value
    low_benefit = defaults.include_low_benefit
    value = editor.get("includeLowBenefit", editor.get("include-low-benefit"))
    if isinstance(value, bool):
        low_benefit = value
    hints = editor.get("hints", False)
    options = dataclasses.replace(
        defaults,
        infer_input_signatures=infer,
        select=select,
        ignore=ignore,
        include_low_benefit=low_benefit,
    )
    return Settings(options, hints is True, tuple(warnings))
