"""The package's code must parse on the oldest Python that `requires-python` admits.

Development runs on 3.11, so nothing else would notice a construct newer than the declared floor
(an `except*` clause, a `type X = ...` alias) until a
user on 3.10 installs it with pipx. mypy's `python_version` guards the standard-library names;
this guards the grammar, with the floor read from pyproject.toml rather than written here.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]
PACKAGE_FOLDERS = ("hybridize",)


def oldest_supported() -> tuple[int, int]:
    """The lower bound of `requires-python`, e.g. (3, 10) for ">=3.10,<3.14"."""
    data = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    match = re.search(r">=\s*(\d+)\.(\d+)", data["project"]["requires-python"])
    assert match, "requires-python has no lower bound"
    return int(match.group(1)), int(match.group(2))


def test_the_floor_check_rejects_newer_grammar() -> None:
    # Without this the parametrised test below could pass for any code at all.
    with pytest.raises(SyntaxError):
        ast.parse("try:\n    pass\nexcept* ValueError:\n    pass\n", feature_version=(3, 10))


@pytest.mark.parametrize(
    "path",
    sorted(p for folder in PACKAGE_FOLDERS for p in (REPO / folder).rglob("*.py")),
    ids=lambda p: str(p.relative_to(REPO)),
)
def test_package_code_parses_on_the_oldest_supported_python(path: Path) -> None:
    ast.parse(path.read_text(encoding="utf-8"), str(path), feature_version=oldest_supported())
