"""ProjectIndex.has_function: the membership test callers use before `function(key)`."""

from __future__ import annotations

import pytest

from hybridize.analyzer.checks import summary_hooks
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.summaries.file_summaries import summarize_text
from hybridize.analyzer.summaries.keys import MODULE_CODE, FunctionKey

SOURCE = "class Net:\n    def forward(self, x):\n        return x\n\n\ndef f(x):\n    return x\n"


@pytest.mark.parametrize(
    ("key", "known"),
    [
        (FunctionKey("main.py", "f"), True),
        (FunctionKey("main.py", "Net.forward"), True),
        (FunctionKey("main.py", MODULE_CODE), True),
        (FunctionKey("main.py", "Net"), False),  # a class, not a function
        (FunctionKey("main.py", "g"), False),
        (FunctionKey("other.py", "f"), False),  # no such module
    ],
)
def test_has_function_answers_what_function_finds(key: FunctionKey, known: bool) -> None:
    index = ProjectIndex({"main.py": summarize_text("main.py", SOURCE, summary_hooks())})
    assert index.has_function(key) is known
    if known:
        assert index.function(key) is not None
        assert index.has_function(key)  # cached now: the same answer
    else:
        with pytest.raises(KeyError):
            index.function(key)
