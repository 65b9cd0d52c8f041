"""HY424: a method calling a recording double that a test puts into the object.

Found by the differential oracle on tensorflow-model-remediation 0.1.7.1: compiled,
`MinDiffModel._compute_single_min_diff_loss` failed 6 tests that hand the model an original
model whose `call` is a `MagicMock` (or a test-defined model calling one) and then read the
mock's records ("out of scope", "cannot be accessed from here") or give it a `side_effect`
that tests a tensor with `if` (OperatorNotAllowedInGraphError). These tests pin each form of
injection the rule reads, the near-misses it leaves alone, and measure the claims on the
installed TensorFlow and PyTorch.
"""

from __future__ import annotations

import importlib.util
import warnings
from typing import Any

import pytest
from facts_helpers import analyse

LIBRARY = """
import tensorflow as tf


class Wrapper(tf.keras.Model):
    def __init__(self, original_model, loss, scale=2.0):
        super().__init__()
        self._original_model = original_model
        self._loss = loss
        self._scale = scale

    @property
    def original_model(self):
        return self._original_model

    def _predict(self, x):
        return self.original_model(x)

    def penalty(self, x, y):
        return self._loss(self._predict(x), y)

    def scaled(self, x):
        return self._original_model.transform(x) * self._scale

    def plain(self, x):
        return tf.reduce_sum(x * 2.0)


class Other(tf.keras.Model):
    def __init__(self, loss):
        super().__init__()
        self._loss = loss

    def penalty(self, x, y):
        return self._loss(x, y)


def run(x):
    return Wrapper(tf.keras.Sequential(), tf.keras.losses.MeanSquaredError()).penalty(x, x)


run(tf.ones((2, 1)))
"""


def hy424(test_source: str) -> dict[str, list[str]]:
    """The HY424 messages of the library's functions, with a test module `test_lib.py`."""
    verdicts = analyse({"lib.py": LIBRARY, "test_lib.py": test_source})
    return {
        name.split("::", 1)[1]: [f.message for f in v.findings if f.code == "HY424"]
        for name, v in verdicts.items()
        if name.startswith("lib.py::")
    }


def flagged(found: dict[str, list[str]]) -> set[str]:
    return {name for name, messages in found.items() if messages}


def test_a_recording_mock_on_the_call_of_a_model_given_to_the_constructor() -> None:
    """`original.call = MagicMock(side_effect=...)`, `Wrapper(original, ...)`: `_predict`
    calls `self.original_model` (a property returning the stored argument), whose `call` is
    the double; `penalty` traces `_predict`."""
    found = hy424(
        """
from unittest import mock
import tensorflow as tf
import lib

def test_penalty():
    original = tf.keras.Sequential()
    original.call = mock.MagicMock(side_effect=lambda x: x)
    lib.Wrapper(original, tf.keras.losses.MeanSquaredError()).penalty(tf.ones((2, 1)), 1.0)
"""
    )
    assert flagged(found) == {"Wrapper._predict", "Wrapper.penalty", "run"}
    [message] = found["Wrapper._predict"]
    assert "`self.original_model`" in message and "`test_penalty`" in message
    assert "symbolic tensors" in message
    assert found["Wrapper.penalty"][0].startswith("calls `Wrapper._predict`, which calls")


def test_a_test_defined_model_calling_a_mock_of_the_test_is_a_carrier() -> None:
    found = hy424(
        """
from unittest import mock
import tensorflow as tf
import lib

class WrapperTest(tf.test.TestCase):
    def testPenalty(self):
        mock_call = mock.MagicMock(return_value=tf.constant(1.0))

        class Custom(tf.keras.Model):
            def call(self, inputs, training=None):
                return mock_call(inputs, training=training)

        lib.Wrapper(Custom(), tf.keras.losses.MeanSquaredError()).penalty(tf.ones((2, 1)), 1.0)
        mock_call.assert_called_once_with(tf.ones((2, 1)), training=None)
"""
    )
    assert flagged(found) == {"Wrapper._predict", "Wrapper.penalty", "run"}
    assert "`WrapperTest.testPenalty`" in found["Wrapper._predict"][0]


@pytest.mark.parametrize(
    "injection",
    [
        # the double itself, given to the constructor and stored as `self._loss`
        "loss = mock.MagicMock(return_value=tf.constant(0.0))\n"
        "    model = lib.Wrapper(tf.keras.Sequential(), loss)\n"
        "    model.penalty(tf.ones((2, 1)), 1.0)\n"
        "    assert loss.call_count == 1",
        # by keyword, an autospec with a side effect
        "model = lib.Wrapper(tf.keras.Sequential(), loss=mock.create_autospec(\n"
        "        lambda p, y: p, side_effect=lambda p, y: p))\n"
        "    model.penalty(tf.ones((2, 1)), 1.0)",
        # on the attribute of an instance, after construction
        "model = lib.Wrapper(tf.keras.Sequential(), None)\n"
        "    model._loss = mock.Mock(return_value=tf.constant(0.0))\n"
        "    model.penalty(tf.ones((2, 1)), 1.0)\n"
        "    model._loss.assert_called_once()",
    ],
    ids=["constructor", "keyword-autospec", "attribute"],
)
def test_every_injection_of_a_recording_mock_is_read(injection: str) -> None:
    found = hy424(
        f"""
from unittest import mock
import tensorflow as tf
import lib

def test_penalty():
    {injection}
"""
    )
    assert "Wrapper.penalty" in flagged(found)
    assert "`self._loss`" in found["Wrapper.penalty"][0]
    assert found["Other.penalty"] == [] and found["Wrapper.plain"] == []


def test_a_test_defined_function_keeping_its_arguments_is_a_recorder() -> None:
    found = hy424(
        """
import tensorflow as tf
import lib

def test_penalty():
    seen = []

    def loss(p, y):
        seen.append(p)
        return tf.reduce_sum(p)

    lib.Wrapper(tf.keras.Sequential(), loss).penalty(tf.ones((2, 1)), 1.0)
    assert seen[0].shape == (2, 1)
"""
    )
    assert "Wrapper.penalty" in flagged(found)


def test_a_member_of_the_carried_object_is_matched_by_its_name() -> None:
    """`original.transform = MagicMock(...)`: `scaled` calls `self._original_model.transform`
    (flagged), `_predict` calls the object itself, which runs `call`, not the double."""
    found = hy424(
        """
from unittest import mock
import tensorflow as tf
import lib

def test_scaled():
    original = tf.keras.Sequential()
    original.transform = mock.MagicMock(side_effect=lambda x: x)
    lib.Wrapper(original, None).scaled(tf.ones((2,)))
"""
    )
    assert flagged(found) == {"Wrapper.scaled"}


@pytest.mark.parametrize(
    "test_source",
    [
        # a mock that only stands in: a fixed result, its records never read
        """
def test_penalty():
    original = tf.keras.Sequential()
    original.call = mock.MagicMock(return_value=tf.ones((2, 1)))
    lib.Wrapper(original, None).penalty(tf.ones((2, 1)), 1.0)
""",
        # a lambda that keeps nothing
        """
def test_penalty():
    lib.Wrapper(tf.keras.Sequential(), lambda p, y: p - y).penalty(tf.ones((2, 1)), 1.0)
""",
        # a recording mock into a class whose methods never call it
        """
def test_other():
    loss = mock.MagicMock(return_value=tf.constant(0.0))
    lib.Wrapper(tf.keras.Sequential(), None).plain(tf.ones((2,)))
    lib.Other(loss)
    assert not loss.called
""",
        # a recording mock stored on an attribute the class never calls
        """
def test_scale():
    model = lib.Wrapper(tf.keras.Sequential(), None)
    model._scale = mock.MagicMock(side_effect=[2.0])
    model.plain(tf.ones((2,)))
""",
        # a test-defined model whose `call` keeps nothing and calls no mock
        """
def test_penalty():
    class Custom(tf.keras.Model):
        def __init__(self, units):
            super().__init__()
            self.units = units

        def call(self, inputs):
            return inputs * 2.0

    lib.Wrapper(Custom(3), None).penalty(tf.ones((2, 1)), 1.0)
""",
    ],
    ids=["stand-in", "plain-lambda", "other-class", "uncalled-attribute", "plain-test-model"],
)
def test_near_misses_are_left_alone(test_source: str) -> None:
    """Nothing of `Wrapper` is flagged (where `Other` gets the double, only `Other.penalty`
    calls it, and no call site makes it worth compiling)."""
    found = hy424("from unittest import mock\nimport tensorflow as tf\nimport lib\n" + test_source)
    assert flagged(found) == set()


# --- measured ------------------------------------------------------------------------------


class _Holder:
    """A project object holding a callable, as the library's model holds its original model."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def compute(self, x: Any) -> Any:
        return self.inner(x * 2.0)


class _TorchHolder(_Holder):
    """The same, with work after the call (where a graph break leaves a second graph)."""

    def compute(self, x: Any) -> Any:
        return self.inner(x * 2.0) + 1.0


@pytest.mark.tensorflow
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_traced_an_injected_double_runs_only_while_tracing() -> None:
    """Measured under TF 2.21: compiled, a mock records symbolic tensors (out of scope when
    read), is called once for two calls and not at all after `reset_mock()`, a `side_effect`
    testing a tensor with `if` fails the trace and a `side_effect` list gives its first value
    for good; a test-defined recorder keeps one symbolic tensor. Eagerly, none of this."""
    from unittest import mock

    import tensorflow as tf

    x = tf.constant([1.0, 2.0])

    def compiled_of(holder: _Holder) -> Any:
        return tf.function(holder.compute)

    eager_double = mock.MagicMock(return_value=tf.constant(1.0))
    _Holder(eager_double).compute(x)
    _Holder(eager_double).compute(x)
    assert eager_double.call_count == 2
    assert eager_double.call_args[0][0].numpy().tolist() == [2.0, 4.0]

    double = mock.MagicMock(return_value=tf.constant(1.0))
    compiled = compiled_of(_Holder(double))
    compiled(x)
    compiled(x)
    assert double.call_count == 1  # the second call ran the graph
    recorded = double.call_args[0][0]
    assert not hasattr(recorded, "numpy")  # a symbolic tensor
    with pytest.raises(TypeError, match="out of scope"):
        tf.reduce_sum(recorded)
    double.reset_mock()
    compiled(x)
    with pytest.raises(AssertionError, match="Called 0 times"):
        double.assert_called_once()

    def branching(v: Any) -> Any:
        if v[0] == 2.0:
            return tf.constant(1.0)
        return tf.constant(2.0)

    assert float(_Holder(mock.MagicMock(side_effect=branching)).compute(x)) == 1.0
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
        compiled_of(_Holder(mock.MagicMock(side_effect=branching)))(x)

    values = [tf.constant(1.0), tf.constant(5.0)]
    eager_seq = _Holder(mock.MagicMock(side_effect=list(values)))
    assert [float(eager_seq.compute(x)) for _ in range(2)] == [1.0, 5.0]
    traced_seq = compiled_of(_Holder(mock.MagicMock(side_effect=list(values))))
    assert [float(traced_seq(x)) for _ in range(2)] == [1.0, 1.0]

    seen: list[Any] = []

    def recorder(v: Any) -> Any:
        seen.append(v)
        return tf.reduce_sum(v)

    traced_recorder = compiled_of(_Holder(recorder))
    traced_recorder(x)
    traced_recorder(x)
    assert len(seen) == 1 and not hasattr(seen[0], "numpy")


@pytest.mark.torch
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_under_torch_compile_an_injected_double_sees_every_call() -> None:
    """Measured on torch 2.13: Dynamo breaks the graph at a mock's call (unittest.mock is
    skipped) and runs it with real tensors at every call; a function appending its argument
    to a list is inlined, the append replayed with the real tensor at every call. Hence the
    rule is TensorFlow's."""
    from unittest import mock

    import torch
    import torch._dynamo as dynamo

    x = torch.tensor([1.0, 2.0])
    double = mock.MagicMock(return_value=torch.tensor(1.0))
    dynamo.reset()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        explained = dynamo.explain(_TorchHolder(double).compute)(x)
    assert explained.graph_break_count >= 1
    assert any("skip" in str(b.reason) for b in explained.break_reasons)

    double.reset_mock()
    dynamo.reset()
    compiled = torch.compile(_TorchHolder(double).compute, backend="eager")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compiled(x)
        compiled(x)
    assert double.call_count == 2
    assert double.call_args[0][0].tolist() == [2.0, 4.0]

    def branching(v: Any) -> Any:
        if v[0] == 2.0:
            return torch.tensor(1.0)
        return torch.tensor(2.0)

    dynamo.reset()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        branched = torch.compile(_TorchHolder(mock.MagicMock(side_effect=branching)).compute)
        assert float(branched(x)) == 2.0  # 1.0 from the eager `if`, plus 1

    seen: list[Any] = []

    def recorder(v: Any) -> Any:
        seen.append(v)
        return v.sum()

    dynamo.reset()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        explained = dynamo.explain(_TorchHolder(recorder).compute)(x)
        assert explained.graph_break_count == 0
        seen.clear()
        dynamo.reset()
        recorded = torch.compile(_TorchHolder(recorder).compute, backend="eager")
        recorded(x)
        recorded(x)
    assert len(seen) == 2 and all(v.tolist() == [2.0, 4.0] for v in seen)


def test_adding_and_removing_an_injected_double_equals_an_analysis_from_scratch() -> None:
    """An edit of the test alone adds or removes the double: the methods calling it are
    decided again (incrementally), as an analysis from scratch decides them."""
    import dataclasses

    from hybridize.project import Project, ProjectOptions

    template = """
from unittest import mock
import tensorflow as tf
import lib

def test_penalty():
    original = tf.keras.Sequential()
    original.call = mock.MagicMock(return_value=tf.ones((2, 1)))
    lib.Wrapper(original, None).penalty(tf.ones((2, 1)), 1.0)
    {line}
"""
    recording = template.format(line="original.call.assert_called_once()")
    standing_in = template.format(line="pass")
    project = Project.from_texts(
        {"lib.py": LIBRARY, "test_lib.py": standing_in}, ProjectOptions(use_cache=False)
    )

    def flagged_now() -> set[str]:
        return {
            v.qualname
            for v in project.results().functions
            if v.file == "lib.py" and any(f.code == "HY424" for f in v.findings)
        }

    assert flagged_now() == set()
    for solves, (text, expected) in enumerate(
        [
            (recording, {"Wrapper._predict", "Wrapper.penalty", "run"}),
            (standing_in, set()),
            (recording, {"Wrapper._predict", "Wrapper.penalty", "run"}),
        ],
        start=1,
    ):
        project.update("test_lib.py", text)
        assert flagged_now() == expected, text
        options = dataclasses.replace(project.options, use_cache=False)
        fresh = Project.from_texts(project.snapshot(), options, long_running=False).results()
        assert project.results().functions == fresh.functions, text
        assert project.analysis.incremental_solves == solves, "the edit was solved from scratch"
