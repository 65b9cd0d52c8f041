"""HY009: `@tf.function` goes innermost, so every other decorator receives the compiled
function; only decorators known to hand any callable on unchanged leave a candidate."""

from __future__ import annotations

import pytest
from facts_helpers import analyse

HEADER = "import abc\nimport functools\n\nimport tensorflow as tf\nfrom lib import smart\n\n\n"


def _failures(body: str, qualname: str) -> list[str]:
    return list(analyse(HEADER + body)[qualname].failures)


@pytest.mark.parametrize(
    "decorator",
    ["@smart", "@functools.lru_cache(maxsize=None)", "@tf.custom_gradient", "@local_wrapper"],
)
def test_an_unknown_decorator_blocks(decorator: str) -> None:
    body = (
        "def local_wrapper(fn):\n    return fn\n\n\n"
        f"{decorator}\ndef f(x, w):\n    return tf.matmul(x, w)\n\n\n"
        "f(tf.ones((2, 3)), tf.ones((3, 4)))\n"
    )
    assert "wrapped_by_unknown_decorator" in _failures(body, "f")


@pytest.mark.parametrize("decorator", ["@staticmethod", "@classmethod"])
def test_python_method_decorators_do_not_block(decorator: str) -> None:
    first = "cls, " if decorator == "@classmethod" else ""
    body = (
        f"class Ops:\n    {decorator}\n    def f({first}x, w):\n"
        "        return tf.matmul(x, w)\n\n\n"
        "Ops.f(tf.ones((2, 3)), tf.ones((3, 4)))\n"
    )
    failures = _failures(body, "Ops.f")
    assert "wrapped_by_unknown_decorator" not in failures
    assert failures == []


def test_a_property_setter_does_not_block() -> None:
    body = (
        "class Box:\n"
        "    @property\n    def value(self):\n        return self._v\n\n"
        "    @value.setter\n    def value(self, v):\n        self._v = v\n"
    )
    assert "wrapped_by_unknown_decorator" not in _failures(body, "Box.value")
