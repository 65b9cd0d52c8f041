"""Project defaults from `[tool.hybridize]` in pyproject.toml.

```toml
[tool.hybridize]
select = ["HY010"]                     # codes (or prefixes) and/or file::qualname globs
ignore = ["tests/*", "*::legacy_*"]    # never refactor these
infer-input-signatures = false         # what --infer-input-signatures turns on
include-low-benefit = false            # what --include-low-benefit turns on
```

The file is looked up from the analysed path upwards; the first pyproject.toml with a
`[tool.hybridize]` table wins. Command-line `--select` replaces the configured selection;
`--ignore` adds to the configured ignores. A malformed file or value is a usage error with the
file named; an unknown key is a warning (a newer version may know it).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

KNOWN_KEYS = ("select", "ignore", "infer-input-signatures", "include-low-benefit")


class ConfigError(Exception):
    """The configuration cannot be used; the message names the file and the problem."""


@dataclass(frozen=True, slots=True)
class Config:
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    infer_input_signatures: bool = False
    include_low_benefit: bool = False
    source: Path | None = None
    warnings: tuple[str, ...] = ()


def find_config_file(start: Path) -> Path | None:
    """The nearest pyproject.toml at or above `start` that has a `[tool.hybridize]` table.

    A malformed pyproject.toml on the way is skipped unless it mentions hybridize, in which
    case it is most likely the intended one and the error is reported.
    """
    start = start.resolve()
    folder = start if start.is_dir() else start.parent
    for candidate in (folder, *folder.parents):
        path = candidate / "pyproject.toml"
        if not path.is_file():
            continue
        try:
            data = _read_toml(path)
        except ConfigError:
            if _mentions_hybridize(path):
                raise
            continue
        if _section(data) is not None:
            return path
    return None


def _mentions_hybridize(path: Path) -> bool:
    try:
        return "hybridize" in path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def _read_toml(path: Path) -> dict[str, Any]:
    # Imported when a file is read (a project without one never needs it). tomllib is in the
    # standard library from 3.11 on; on 3.10 its source, the tomli package, is a
    # marker-selected dependency with the same API, so editors on 3.10 can read the
    # configuration.
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised by the 3.10 run of tools/test_pythons.sh
        import tomli as tomllib

    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read it: {exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from exc


def _section(data: dict[str, Any]) -> Any:
    tool = data.get("tool")
    return tool.get("hybridize") if isinstance(tool, dict) else None


def load_config(start: Path) -> Config:
    """The configuration that applies to `start` (defaults when there is none)."""
    path = find_config_file(start)
    if path is None:
        return Config()
    return read_config(path)


def read_config(path: Path) -> Config:
    """The configuration in one pyproject.toml (defaults when it has no [tool.hybridize])."""
    table = _section(_read_toml(path))
    if table is None:
        return Config(source=path)
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.hybridize] must be a table")
    values = {key.replace("_", "-"): value for key, value in table.items()}
    warnings = tuple(
        f"{path}: unknown key {key!r} in [tool.hybridize] (known: {', '.join(KNOWN_KEYS)})"
        for key in values
        if key not in KNOWN_KEYS
    )
    infer = _flag(path, values, "infer-input-signatures")
    low_benefit = _flag(path, values, "include-low-benefit")
    return Config(
        select=_patterns(path, "select", values.get("select", [])),
        ignore=_patterns(path, "ignore", values.get("ignore", [])),
        infer_input_signatures=infer,
        include_low_benefit=low_benefit,
        source=path,
        warnings=warnings,
    )


def _flag(path: Path, values: dict[str, Any], key: str) -> bool:
    value = values.get(key, False)
    if not isinstance(value, bool):
        raise ConfigError(f"{path}: {key} must be true or false")
    return value


def _patterns(path: Path, key: str, value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{path}: {key} must be a list of strings")
    return tuple(p.strip() for v in value for p in v.split(",") if p.strip())
