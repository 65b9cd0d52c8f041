"""Test outcomes before and after a rewrite, and the rewritten functions they blame
(hybridize/verify/outcomes.py, shared by `refactor --verify` and the real-code oracle)."""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hybridize.verify.outcomes import (
    Outcome,
    blamed_functions,
    borrow_blame,
    error_changed,
    expects_an_error,
    functions_named_in_error,
    newly_failing,
    read_outcomes,
)
from hybridize.verify.pytest_plugin import error_line
from hybridize.verify.rewritten import RewrittenFunction


def _outcomes(**kinds: str) -> dict[str, Outcome]:
    return {
        f"t.py::{name}": Outcome(f"t.py::{name}", kind, error=kind) for name, kind in kinds.items()
    }


def test_only_tests_that_passed_before_can_newly_fail() -> None:
    before = _outcomes(a="passed", b="passed", c="failed", d="passed", e="passed", f="skipped")
    after = _outcomes(a="passed", b="failed", c="failed", e="error", f="failed")
    failures = {f.nodeid: f for f in newly_failing(before, after)}
    assert set(failures) == {"t.py::b", "t.py::d", "t.py::e"}
    assert failures["t.py::d"].outcome == "missing"
    assert failures["t.py::e"].outcome == "error"


def test_a_missing_test_takes_its_file_failure() -> None:
    before = _outcomes(a="passed")
    failures = newly_failing(before, {}, {"t.py": "crashed (exit -11)"})
    assert [(f.outcome, f.error) for f in failures] == [("missing", "crashed (exit -11)")]


def test_plugin_lines_give_the_last_record_of_a_test_and_survive_a_cut_line() -> None:
    lines = [
        json.dumps({"kind": "test", "nodeid": "a.py::t", "outcome": "failed", "error": "E"}),
        json.dumps({"kind": "test", "nodeid": "a.py::t", "outcome": "passed"}),
        json.dumps({"kind": "collect_error", "nodeid": "b.py", "error": "ImportError: x"}),
        '{"kind": "test", "nodeid": "c.py::cut',
    ]
    outcomes, collect_errors = read_outcomes(lines)
    assert {n: o.outcome for n, o in outcomes.items()} == {"a.py::t": "passed"}
    assert collect_errors == {"b.py": "ImportError: x"}


def _function(qualname: str, first: int, def_line: int, end: int) -> RewrittenFunction:
    return RewrittenFunction("pkg/m.py", qualname, def_line, first, end, "added")


def test_a_frame_blames_the_innermost_rewritten_function_holding_it() -> None:
    outer, inner, other = (
        _function("f", 3, 4, 20),
        _function("f.g", 10, 11, 15),
        _function("h", 22, 23, 30),
    )
    path_of = {"pkg/m.py": "/copy/pkg/m.py"}
    frames = [
        ("/copy/pkg/m.py", 12),
        ("/copy/pkg/m.py", 5),
        ("/copy/pkg/m.py", 21),
        ("/elsewhere.py", 25),
    ]
    blamed = blamed_functions(frames, [outer, inner, other], path_of)
    assert blamed == ["pkg/m.py::f.g", "pkg/m.py::f"]


def test_a_repeated_error_borrows_the_blame_within_its_file_only() -> None:
    error = "ConversionError: converting <Function object at 0x7f01>: no __code__"
    same = "tensorflow.python.autograph.impl.api." + error.replace("0x7f01", "0x7f99")
    borrowed = borrow_blame(
        {
            "a.py::T::t0": (error, ["pkg/m.py::f"]),
            "a.py::T::t1": (same, []),
            "a.py::T::t2": ("ValueError: other", []),
            "b.py::T::t1": (error, []),
        }
    )
    assert borrowed == {"a.py::T::t1": ["pkg/m.py::f"]}


RAISING_TEST = """\
import pytest


class T:
    def test_call_form(self):
        self.assertRaises(ValueError, f,
                          1)

    def test_context_form(self):
        x = 1
        with self.assertRaisesRegex(ValueError, "bad"):
            f(x)
        f(x)

    def test_pytest_form(self):
        with pytest.raises(TypeError):
            f(2)
"""


def test_a_line_inside_an_assertion_that_something_raises_expects_an_error() -> None:
    assert expects_an_error(RAISING_TEST, 7)  # the call form's second line
    assert expects_an_error(RAISING_TEST, 12)  # inside the with block
    assert not expects_an_error(RAISING_TEST, 13)  # after it
    assert not expects_an_error(RAISING_TEST, 10)  # before it
    assert expects_an_error(RAISING_TEST, 17)  # pytest.raises


def test_only_another_exception_where_one_is_expected_is_an_error_change(tmp_path: Path) -> None:
    test_file = tmp_path / "t_test.py"
    test_file.write_text(RAISING_TEST)
    path = str(test_file)
    frames = [(path, 12), ("/lib/mod.py", 40)]
    assert error_changed("OperatorNotAllowedInGraphError: iterating", frames, path)
    # the expected exception is no longer raised: the check vanished, a real change
    assert not error_changed("AssertionError: ValueError not raised", frames, path)
    # the failure comes from a line that expects nothing
    assert not error_changed("TypeError: x", [(path, 13)], path)
    assert not error_changed("TypeError: x", [("/lib/mod.py", 40)], path)


def test_the_error_line_is_the_exceptions_last_line_named() -> None:
    text = 'ValueError: in user code:\n\n  File "m.py", line 3\n\n  ValueError: Dimensions must be equal\n'
    assert error_line("ValueError", text) == "ValueError: Dimensions must be equal"
    assert error_line("AssertionError", "AssertionError: lists differ\n- 1\n+ 2") == (
        "AssertionError: + 2"
    )
    assert error_line("KeyError", "") == "KeyError"


def test_the_error_line_of_torch_compile_is_its_cause_not_its_epilogue() -> None:
    """torch.compile's errors end with the user frames and advice on logging (torch 2.13)."""
    text = (
        "TypeError: object of type 'NoneType' has no len()\n\n"
        "from user code:\n"
        '   File "/copy/pkg/mod.py", line 12, in log_prob\n'
        "    return self.inner.log_prob(z)\n\n"
        "Set TORCHDYNAMO_VERBOSE=1 for the internal stack trace (please do this especially if "
        "you're reporting a bug to PyTorch). For even more developer context, set "
        'TORCH_LOGS="+dynamo"\n'
    )
    assert error_line("InternalTorchDynamoError", text) == (
        "TypeError: object of type 'NoneType' has no len()"
    )
    advice_only = "Set TORCHDYNAMO_VERBOSE=1 for the internal stack trace"
    assert error_line("InternalTorchDynamoError", advice_only) == (
        f"InternalTorchDynamoError: {advice_only}"
    )


def test_the_error_line_of_a_keras_layer_is_its_cause_not_the_arguments_it_received() -> None:
    """Keras appends the layer call's arguments after the cause; their last line named no
    cause ("TypeError: • training=None" for edward2's recurrent tests): tf_keras' and Keras
    3's wording (measured below), Keras 3 styling the cause in bold."""
    keras_2 = (
        "Exception encountered when calling layer 'rnn' (type RNN).\n\nin user code:\n\n"
        '    File "/copy/pkg/recurrent.py", line 9, in call  *\n        return f(x)\n\n'
        "    ValueError: tf.function only supports singleton tf.Variables\n\n"
        "Call arguments received by layer 'rnn' (type RNN):\n"
        "  \u2022 inputs=tf.Tensor(shape=(2, 3), dtype=float32)\n  \u2022 constants=None"
    )
    assert error_line("ValueError", keras_2) == (
        "ValueError: tf.function only supports singleton tf.Variables"
    )
    keras_3 = (
        "Exception encountered when calling L.call().\n\n\x1b[1mthe cause\x1b[0m\n\n"
        "Arguments received by L.call():\n  \u2022 training=None"
    )
    assert error_line("TypeError", keras_3) == "TypeError: the cause"


_KERAS_ERROR = """
import tensorflow as tf

class Failing(tf.keras.layers.Layer):
    def call(self, inputs, training=None):
        raise ValueError("the cause")

try:
    Failing(name="failing")(tf.ones((2, 3)))
except ValueError as error:
    print(repr(str(error)))
"""


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
@pytest.mark.parametrize("legacy", [False, True], ids=["keras3", "tf_keras"])
def test_a_keras_layers_error_measured_gives_its_cause(legacy: bool) -> None:
    """The message a Keras layer's call raises with (TF 2.21: Keras 3.15 and tf_keras 2.21, in
    a subprocess: TF_USE_LEGACY_KERAS is read when TensorFlow is imported) reduces to the
    cause."""
    if importlib.util.find_spec("tf_keras" if legacy else "keras") is None:
        pytest.skip("this Keras is absent")
    env = {**os.environ, "TF_USE_LEGACY_KERAS": "1" if legacy else "0", "TF_CPP_MIN_LOG_LEVEL": "3"}
    done = subprocess.run(
        [sys.executable, "-c", _KERAS_ERROR], env=env, capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, done.stderr[-2000:]
    message = ast.literal_eval(done.stdout.strip().splitlines()[-1])  # the repr printed above
    assert "received by" in message  # Keras appended the call's arguments
    assert error_line("ValueError", message) == "ValueError: the cause"


def test_an_argument_error_names_the_function_by_its_qualified_name() -> None:
    def function(qualname: str) -> RewrittenFunction:
        return RewrittenFunction("pkg/m.py", qualname, 1, 1, 2, "added")

    functions = [function(q) for q in ("step", "Model.step", "Model.call.inner", "Other.step")]
    error = "TypeError: Model.step() missing 1 required positional argument: 'self'"
    assert functions_named_in_error(error, functions) == ["pkg/m.py::Model.step"]
    nested = "TypeError: Model.call.<locals>.inner() takes 1 positional argument but 2 were given"
    assert functions_named_in_error(nested, functions) == ["pkg/m.py::Model.call.inner"]
    assert functions_named_in_error("TypeError: step() got an unexpected keyword", functions) == [
        "pkg/m.py::step"
    ]
    assert functions_named_in_error("ValueError: a step (of 2) failed", functions) == []
