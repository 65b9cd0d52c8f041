"""The refactoring writes the decorator and import of the verdict's framework (its adapter).

TensorFlow's spelling is covered by the other refactoring tests; here the same planner, given
`torch` verdicts, must write PyTorch's decorator and import, recognise `torch.compile` as the
existing decorator, and leave `tf.function` alone in a PyTorch file (and the reverse)."""

from __future__ import annotations

from refactor_helpers import refactor_bytes, refactor_twice, source, verdict
from verdict_parts import changed

from hybridize.model import FunctionVerdict


def torch_verdict(qualname: str, transformation: str = "convert_to_hybrid") -> FunctionVerdict:
    return changed(verdict(qualname, transformation), framework="torch")


def test_adds_torch_compile_with_the_modules_alias() -> None:
    raw = source(
        """\
        import torch as th

        def step(x):
            return th.relu(x)
        """
    )
    out, notices = refactor_twice(raw, torch_verdict("step"))
    assert not notices
    assert (
        out.decode() == "import torch as th\n\n@th.compile\ndef step(x):\n    return th.relu(x)\n"
    )


def test_adds_import_torch_when_none_reaches_the_function() -> None:
    raw = source(
        """\
        import numpy as np

        def step(x):
            return x * 2
        """
    )
    out, _ = refactor_twice(raw, torch_verdict("step"))
    text = out.decode()
    assert "import torch\n" in text
    assert "import tensorflow" not in text
    assert "@torch.compile\ndef step" in text


def test_removes_torch_compile_and_not_tf_function() -> None:
    raw = source(
        """\
        import tensorflow as tf
        import torch

        @tf.function
        @torch.compile(dynamic=True)
        def step(x):
            return x
        """
    )
    out, _ = refactor_bytes(raw, torch_verdict("step", "convert_to_eager"))
    text = out.decode()
    assert "torch.compile" not in text
    assert "@tf.function\ndef step" in text


def test_tensorflow_verdict_leaves_torch_compile_alone() -> None:
    raw = source(
        """\
        import tensorflow as tf
        import torch

        @torch.compile
        def step(x):
            return x
        """
    )
    out, notices = refactor_bytes(raw, verdict("step", "convert_to_eager"))
    assert out == raw
    assert any("tf.function(...)" in n.message for n in notices)


def test_a_file_with_verdicts_of_both_frameworks_gets_each_ones_decorator() -> None:
    """A module importing both frameworks: each function is judged by the one it uses, and
    gets that one's decorator (and import, when the module lacks it)."""
    raw = source(
        """\
        import tensorflow as tf

        def a(x):
            return x

        def b(x):
            return x
        """
    )
    out, notices = refactor_twice(raw, verdict("a"), torch_verdict("b"))
    text = out.decode()
    assert "@tf.function\ndef a" in text
    assert "@torch.compile\ndef b" in text
    assert "import torch\n" in text
    assert notices == []
