"""`[tool.hybridize]` in pyproject.toml, and select/ignore patterns."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from refactor_helpers import verdict

from hybridize.config import Config, ConfigError, find_config_file, load_config
from hybridize.model import Finding, Span
from hybridize.refactor import Selection
from hybridize.refactor.selection import is_code, split_patterns


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_no_config_gives_defaults(tmp_path: Path) -> None:
    assert load_config(tmp_path) == Config()


def test_reads_select_ignore_and_infer(tmp_path: Path) -> None:
    config_file = write(
        tmp_path / "pyproject.toml",
        '[project]\nname = "x"\n\n[tool.hybridize]\nselect = ["HY010", "pkg/*"]\n'
        'ignore = "tests/*, *::legacy"\ninfer_input_signatures = true\n',
    )
    config = load_config(tmp_path / "pkg" / "module.py")
    assert config.select == ("HY010", "pkg/*")
    assert config.ignore == ("tests/*", "*::legacy")
    assert config.infer_input_signatures is True
    assert config.source == config_file


def test_nearest_file_with_a_section_wins(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[tool.hybridize]\nignore = ["outer"]\n')
    write(tmp_path / "sub" / "pyproject.toml", '[project]\nname = "no section here"\n')
    inner = write(
        tmp_path / "sub" / "deeper" / "pyproject.toml", '[tool.hybridize]\nignore = ["inner"]\n'
    )
    assert find_config_file(tmp_path / "sub" / "deeper") == inner
    assert load_config(tmp_path / "sub").ignore == ("outer",)


def test_malformed_toml_that_mentions_hybridize_is_an_error(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", "[tool.hybridize\nselect = [\n")
    with pytest.raises(ConfigError, match="invalid TOML"):
        load_config(tmp_path)


def test_malformed_unrelated_toml_is_skipped(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[tool.hybridize]\nignore = ["x"]\n')
    write(tmp_path / "sub" / "pyproject.toml", "[broken\n")
    assert load_config(tmp_path / "sub").ignore == ("x",)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("select = 3", "select must be a list of strings"),
        ("ignore = [1]", "ignore must be a list of strings"),
        ('infer-input-signatures = "yes"', "must be true or false"),
    ],
)
def test_bad_values(tmp_path: Path, body: str, message: str) -> None:
    write(tmp_path / "pyproject.toml", f"[tool.hybridize]\n{body}\n")
    with pytest.raises(ConfigError, match=message):
        load_config(tmp_path)


def test_unknown_keys_are_warnings(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", "[tool.hybridize]\nexclude = []\n")
    assert "unknown key 'exclude'" in load_config(tmp_path).warnings[0]


def test_codes_and_globs() -> None:
    assert is_code("HY010") and is_code("hy01") and is_code("HY")
    assert not is_code("HY0100") and not is_code("*::HY010") and not is_code("main.py")
    assert split_patterns(["a, b", "c", " "]) == ("a", "b", "c")


ADD = verdict("train_step", file="pkg/train.py")
REMOVE = verdict("Model.call", "convert_to_eager", file="pkg/model.py")
WITH_FINDING = dataclasses.replace(
    verdict("helper", file="main.py"),
    findings=(
        Finding("HY202", "undeterminable_primitive_parameter", "warning", "m", Span(1, 0, 1, 1)),
    ),
)


@pytest.mark.parametrize(
    ("selection", "expected"),
    [
        (Selection(), {"add", "remove", "finding"}),
        (Selection(select=("HY010",)), {"add", "finding"}),
        (Selection(select=("HY011",)), {"remove"}),
        (Selection(select=("HY01",)), {"add", "remove", "finding"}),
        (Selection(ignore=("HY202",)), {"add", "remove"}),
        (Selection(select=("pkg/*",)), {"add", "remove"}),
        (Selection(select=("*::Model.*",)), {"remove"}),
        (Selection(select=("HY010", "pkg/*")), {"add"}),
        (Selection(select=("pkg/*",), ignore=("*::train_step",)), {"remove"}),
        (Selection(ignore=("main.py",)), {"add", "remove"}),
    ],
)
def test_selection(selection: Selection, expected: set[str]) -> None:
    named = {"add": ADD, "remove": REMOVE, "finding": WITH_FINDING}
    assert {name for name, v in named.items() if selection.includes(v)} == expected


def test_unknown_codes() -> None:
    selection = Selection(select=("HY010", "HY9"), ignore=("HY77",))
    assert selection.unknown_codes(["HY010", "HY901"]) == ["HY77"]
