"""HY443 and a handler that always raises again (`except InvalidArgumentError as e: raise
ValueError(...)`, a clearer message): it takes no other path, so compiling loses no
recovery. Eagerly the handler's error leaves the call; compiled (TF 2.21: the kernel raises
when the graph runs; torch 2.13: Dynamo raises from its fake tensors) the operation's own
error does: an error either way, on the same invalid input, and the same value on valid
input. Measured here in fresh interpreters; the analysis cases pin what is reported: a
handler that may return (a fallback behind a condition) is still a recovery path.
"""

from __future__ import annotations

import importlib.util

import pytest
from facts_helpers import finding_messages, run_probe, verdict

FACT = "catches_traced_op_errors"

TF_FORMS = """
import tensorflow as tf


def reraise(x, i):
    try:
        return tf.gather(x, i) * 2.0
    except tf.errors.InvalidArgumentError as error:
        raise ValueError(f"index out of range: {error}") from error


def reraise_after_logging(x, i):
    try:
        return tf.gather(x, i) * 2.0
    except Exception as error:
        message = str(error)
        raise ValueError(message)


def fallback_or_raise(x, i, strict):
    try:
        return tf.gather(x, i) * 2.0
    except tf.errors.InvalidArgumentError:
        if not strict:
            return tf.zeros([])
        raise


reraise(tf.range(4.0), tf.constant(2))
reraise_after_logging(tf.range(4.0), tf.constant(2))
fallback_or_raise(tf.range(4.0), tf.constant(2), False)
"""

TORCH_FORMS = """
import torch


def reraise(x):
    try:
        return x[:, 1, :] * 2
    except IndexError as error:
        raise ValueError(f"needs a batch dimension: {error}") from error


reraise(torch.randn(2, 3, 4))
"""

TF_PROBE = (
    TF_FORMS.split("\nreraise(tf.range")[0]
    + """
for name, f, args in [
    ("valid", reraise, (tf.range(4.0), tf.constant(2))),
    ("invalid", reraise, (tf.range(4.0), tf.constant(9))),
    ("logged", reraise_after_logging, (tf.range(4.0), tf.constant(9))),
]:
    out = []
    for g in (f, tf.function(f)):
        try:
            out.append(str(float(g(*args))))
        except Exception as e:
            out.append("raises-" + type(e).__name__)
    print(name, *out)
"""
)

TORCH_PROBE = (
    TORCH_FORMS.split("\nreraise(torch")[0]
    + """
import warnings
warnings.simplefilter("ignore")
for name, x in [("valid", torch.randn(2, 3, 4)), ("invalid", torch.randn(3, 4))]:
    out = []
    for g in (reraise, torch.compile(reraise, backend="eager")):
        torch._dynamo.reset()
        try:
            out.append("value-%d" % g(x).numel())
        except Exception as e:
            out.append("raises-" + type(e).__name__)
    print(name, *out)
"""
)


def test_a_handler_that_always_raises_is_not_reported() -> None:
    assert verdict(TF_FORMS, "reraise").fact(FACT) in (False, None)
    assert verdict(TF_FORMS, "reraise_after_logging").fact(FACT) in (False, None)
    assert verdict(TORCH_FORMS, "reraise").fact(FACT) in (False, None)


def test_a_handler_that_may_return_is_still_reported() -> None:
    assert verdict(TF_FORMS, "fallback_or_raise").fact(FACT) is True


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_tensorflow_raises_either_way_on_invalid_input() -> None:
    measured = {name: value.split() for name, value in run_probe(TF_PROBE).items()}
    eager, compiled = measured["valid"]
    assert eager == compiled == "4.0", measured
    for name in ("invalid", "logged"):
        eager, compiled = measured[name]
        assert eager == "raises-ValueError", measured  # the handler's error
        assert compiled.startswith("raises-") and compiled != eager, measured  # the kernel's


@pytest.mark.torch
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch absent")
def test_torch_raises_either_way_on_invalid_input() -> None:
    measured = {name: value.split() for name, value in run_probe(TORCH_PROBE).items()}
    eager, compiled = measured["valid"]
    assert eager == compiled == "value-8", measured
    eager, compiled = measured["invalid"]
    assert eager == "raises-ValueError", measured
    assert compiled.startswith("raises-"), measured


# A caller catching the raised type to take another path (safety33y): eagerly it takes its
# path; compiled, the operation's own error leaves the compiled call and escapes its handler.
# A caller catching `Exception` (or the operation's own error) takes its path either way.

TF_CALLERS = """
import tensorflow as tf


class PickError(ValueError):
    pass


def pick(x, i):
    try:
        return tf.gather(x, i) * 2.0
    except tf.errors.InvalidArgumentError as error:
        raise ValueError(f"index out of range: {error}") from error


def pick_own(x, i):
    try:
        return tf.gather(x, i) * 2.0
    except tf.errors.InvalidArgumentError as error:
        raise PickError("index out of range") from error


def pick_unrelated(x, i):
    try:
        return tf.gather(x, i) * 2.0
    except tf.errors.InvalidArgumentError as error:
        raise ValueError("index out of range") from error


def pick_broad(x, i):
    try:
        return tf.gather(x, i) * 2.0
    except tf.errors.InvalidArgumentError as error:
        raise ValueError("index out of range") from error


def pick_alone(x, i):
    try:
        return tf.gather(x, i) * 2.0
    except tf.errors.InvalidArgumentError as error:
        raise ValueError("index out of range") from error


def pick_passed_on(x, i):
    try:
        return tf.gather(x, i) * 2.0
    except tf.errors.InvalidArgumentError as error:
        raise ValueError("index out of range") from error


def pick_either(x, i):
    try:
        return tf.gather(x, i) * 2.0
    except (ValueError, tf.errors.InvalidArgumentError) as error:
        raise ValueError("index out of range") from error


def caller(x, i):
    try:
        return pick(x, i)
    except ValueError:
        return tf.constant(-1.0)


def caller_of_either(x, i):
    try:
        return pick_either(x, i)
    except ValueError:
        return tf.constant(-1.0)


def caller_own(x, i):
    try:
        return pick_own(x, i)
    except PickError:
        return tf.constant(-1.0)


def caller_unrelated(x, i):
    try:
        return pick_unrelated(x, i)
    except KeyError:
        return tf.constant(-1.0)


def caller_broad(x, i):
    try:
        return pick_broad(x, i)
    except Exception:
        return tf.constant(-1.0)


def caller_passing_on(x, i):
    try:
        return pick_passed_on(x, i)
    except ValueError as error:
        raise RuntimeError("bad index") from error


caller(tf.range(4.0), tf.constant(2))
caller_of_either(tf.range(4.0), tf.constant(2))
caller_own(tf.range(4.0), tf.constant(2))
caller_unrelated(tf.range(4.0), tf.constant(2))
caller_broad(tf.range(4.0), tf.constant(2))
caller_passing_on(tf.range(4.0), tf.constant(2))
pick_alone(tf.range(4.0), tf.constant(2))
"""

TORCH_CALLERS = """
import torch


def pick(x, i):
    try:
        return x[i] * 2
    except IndexError as error:
        raise ValueError("index out of range") from error


def pick_either(x, i):
    try:
        return x[i] * 2
    except IndexError as error:
        raise ValueError("index out of range") from error


def caller(x, i):
    try:
        return pick(x, i)
    except ValueError:
        return torch.tensor(-1.0)


def caller_either(x, i):
    try:
        return pick_either(x, i)
    except (ValueError, IndexError):
        return torch.tensor(-1.0)


caller(torch.randn(3), torch.tensor(1))
caller_either(torch.randn(3), torch.tensor(1))
"""


def _callers_probe(forms: str, compile_call: str, pairs: str, numbers: str) -> str:
    """The forms' definitions, then per pair (function, its caller) the caller given the
    function eagerly and compiled, on an index in range and one out of it."""
    definitions = forms.split("\n\n\ncaller(")[0]
    return (
        definitions
        + f"""
import warnings
warnings.simplefilter("ignore")
for name, (f, call) in {pairs}.items():
    for label, i in {numbers}:
        out = []
        for g in (f, {compile_call}):
            globals()[f.__name__] = g
            try:
                out.append("value-%.1f" % float(call(x, i)))
            except Exception as e:
                out.append("raises-" + type(e).__name__)
            globals()[f.__name__] = f
        print(name + "-" + label, *out)
"""
    )


TF_CALLERS_PROBE = _callers_probe(
    TF_CALLERS,
    "tf.function(f)",
    '{"same": (pick, caller), "subclass": (pick_own, caller_own), '
    '"exception": (pick_broad, caller_broad), "either": (pick_either, caller_of_either)}',
    '(("valid", tf.constant(1)), ("invalid", tf.constant(7)))',
).replace("import warnings", "x = tf.constant([1.0, 2.0, 3.0])\nimport warnings")

TORCH_CALLERS_PROBE = _callers_probe(
    TORCH_CALLERS,
    'torch.compile(f, backend="eager")',
    '{"same": (pick, caller), "either": (pick_either, caller_either)}',
    '(("valid", torch.tensor(1)), ("invalid", torch.tensor(7)))',
).replace("import warnings", "x = torch.tensor([1.0, 2.0, 3.0])\nimport warnings")


def test_a_caller_catching_the_raised_type_blocks_the_reraising_function() -> None:
    for callee, caller in (
        ("pick", "caller"),
        ("pick_own", "caller_own"),
        ("pick_either", "caller_of_either"),  # the kernel's error is not a ValueError
    ):
        assert verdict(TF_CALLERS, callee).fact(FACT) is True, callee
        (message,) = finding_messages(TF_CALLERS, callee, "HY443")
        assert f"`{caller}`" in message and "raises `" in message, message
    assert verdict(TORCH_CALLERS, "pick").fact(FACT) is True


def test_a_caller_catching_another_type_or_the_operations_error_keeps_it_accepted() -> None:
    for callee in ("pick_unrelated", "pick_broad", "pick_alone", "pick_passed_on"):
        assert verdict(TF_CALLERS, callee).fact(FACT) in (False, None), callee
    assert verdict(TORCH_CALLERS, "pick_either").fact(FACT) in (False, None)


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_tensorflow_the_kernel_error_escapes_a_caller_catching_the_raised_type() -> None:
    measured = {name: value.split() for name, value in run_probe(TF_CALLERS_PROBE).items()}
    for name in ("same", "subclass", "exception", "either"):
        assert measured[f"{name}-valid"] == ["value-4.0", "value-4.0"], measured
    for name in ("same", "subclass", "either"):
        eager, compiled = measured[f"{name}-invalid"]
        assert eager == "value--1.0", measured  # the caller's other path
        assert compiled == "raises-InvalidArgumentError", measured  # escapes its handler
    # `except Exception` catches the kernel's error too: the same path either way.
    assert measured["exception-invalid"] == ["value--1.0", "value--1.0"], measured


@pytest.mark.torch
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch absent")
def test_torch_the_operations_error_escapes_a_caller_catching_the_raised_type() -> None:
    measured = {name: value.split() for name, value in run_probe(TORCH_CALLERS_PROBE).items()}
    assert measured["same-valid"] == ["value-4.0", "value-4.0"], measured
    eager, compiled = measured["same-invalid"]
    assert eager == "value--1.0", measured
    assert compiled.startswith("raises-") and compiled != "raises-ValueError", measured
    # A caller catching the operation's own error as well takes its path either way.
    assert measured["either-invalid"] == ["value--1.0", "value--1.0"], measured
