"""`FunctionKey`: how the analysis names a function, and its text form at the report boundary."""

from __future__ import annotations

import pickle

import pytest

from hybridize.analyzer.summaries.keys import FunctionKey


@pytest.mark.parametrize(
    ("key", "text"),
    [
        (FunctionKey("main.py", "step"), "main.py::step"),
        (FunctionKey("pkg/model.py", "Model.call"), "pkg/model.py::Model.call"),
        (
            FunctionKey("pkg/model.py", "outer.inner.<lambda2>"),
            "pkg/model.py::outer.inner.<lambda2>",
        ),
        (FunctionKey("m.py", "Model.<body>"), "m.py::Model.<body>"),
        (FunctionKey.module_code("m.py"), "m.py::<module>"),
    ],
)
def test_a_key_round_trips_through_its_text(key: FunctionKey, text: str) -> None:
    assert str(key) == text
    assert f"{key}" == text
    assert FunctionKey.parse(text) == key


def test_a_file_whose_name_contains_the_separator_still_round_trips() -> None:
    # A qualname never contains `::`, so the text is split at its last one.
    key = FunctionKey("odd::name.py", "f")
    assert str(key) == "odd::name.py::f"
    assert FunctionKey.parse(str(key)) == key


def test_text_without_a_separator_is_no_key() -> None:
    with pytest.raises(ValueError, match="not a function key"):
        FunctionKey.parse("main.py")


def test_a_key_is_a_plain_pair_of_its_file_and_qualname() -> None:
    key = FunctionKey("m.py", "A.f")
    assert key.file == "m.py" and key.qualname == "A.f"
    assert key == ("m.py", "A.f") and hash(key) == hash(("m.py", "A.f"))
    assert {key: 1}[FunctionKey.parse("m.py::A.f")] == 1
    assert key.sibling("A") == FunctionKey("m.py", "A")
    assert not key.is_module_code and FunctionKey.module_code("m.py").is_module_code
    assert pickle.loads(pickle.dumps(key)) == key


def test_keys_sort_by_file_then_qualname() -> None:
    # The order of their text too, but for a file named as another followed by a character
    # below ':' (`x.py` and `x.py2.py`): outputs once ordered by text sort by `str`.
    keys = [FunctionKey("x.py2.py", "a"), FunctionKey("x.py", "b"), FunctionKey("x.py", "a")]
    assert sorted(keys) == [FunctionKey("x.py", "a"), FunctionKey("x.py", "b"), keys[0]]
    assert sorted(keys, key=str) == [keys[0], FunctionKey("x.py", "a"), FunctionKey("x.py", "b")]
