"""HY424: a function whose callee the project's tests replace with a test double.

Found by the differential oracle on tf-explain 0.3.1: `GradCAM.generate_ponderated_output`,
compiled, failed its test, which patches `GradCAM.ponderate_output` with pytest-mock to return
`mocker.sentinel`s ("must return zero or more Tensors"). The check's examples
(hybridize/check_examples/HY424) run through test_check_examples; these tests pin every
patching form the rule reads, the near-misses it leaves alone, and measure the claim on the
installed TensorFlow.
"""

from __future__ import annotations

import importlib.util

import pytest
from facts_helpers import analyse

LIBRARY = """
import tensorflow as tf


class Cam:
    @staticmethod
    def ponderate(output, grad):
        return tf.reduce_sum(output * tf.reduce_mean(grad, axis=(0, 1)), axis=-1)

    @staticmethod
    def generate(outputs, grads):
        return [Cam.ponderate(o, g) for o, g in zip(outputs, grads)]


def scale(x):
    return x * 2.0


def through_helper(x):
    return tf.reduce_sum(helper(x))


def helper(x):
    return scale(x) + 1.0


def unrelated(x):
    return tf.reduce_sum(x * x)


Cam.generate([tf.ones((3, 3, 2))], [tf.ones((3, 3, 2))])
through_helper(tf.ones((2,)))
unrelated(tf.ones((2,)))
"""


def hy424(test_source: str) -> dict[str, list[str]]:
    """The HY424 messages of the library's functions, with a test module `test_cam.py`."""
    verdicts = analyse({"cam.py": LIBRARY, "test_cam.py": test_source})
    return {
        name.split("::", 1)[1]: [f.message for f in v.findings if f.code == "HY424"]
        for name, v in verdicts.items()
        if name.startswith("cam.py::")
    }


def test_mocker_patch_by_dotted_name_blocks_the_caller_not_the_patched_method() -> None:
    found = hy424(
        """
import cam

def test_generate(mocker):
    mocker.patch("cam.Cam.ponderate", side_effect=[mocker.sentinel.one])
    assert cam.Cam.generate([mocker.sentinel.o], [mocker.sentinel.g]) == [mocker.sentinel.one]
"""
    )
    [message] = found["Cam.generate"]
    assert "`Cam.ponderate`" in message and "`test_generate`" in message
    assert found["Cam.ponderate"] == []
    assert found["unrelated"] == [] and found["through_helper"] == []


def test_a_callee_patched_below_a_helper_is_followed() -> None:
    found = hy424(
        """
from unittest import mock
import cam

def test_helper():
    with mock.patch("cam.scale", return_value=3.0):
        assert cam.through_helper(1.0) == 4.0
"""
    )
    [message] = found["through_helper"]
    assert "calls `helper`, which calls `scale`" in message
    assert found["helper"] and found["scale"] == []


@pytest.mark.parametrize(
    "test_source",
    [
        # patch.object on the class, as a decorator
        """
from unittest import mock
from cam import Cam

@mock.patch.object(Cam, "ponderate", return_value=1.0)
def test_generate(ponderate):
    assert Cam.generate([1], [2]) == [1.0]
""",
        # mocker.patch.object, called
        """
from cam import Cam

def test_generate(mocker):
    mocker.patch.object(Cam, "ponderate", return_value=1.0)
    assert Cam.generate([1], [2]) == [1.0]
""",
        # monkeypatch.setattr with a dotted name
        """
import cam

def test_generate(monkeypatch):
    monkeypatch.setattr("cam.Cam.ponderate", lambda o, g: 1.0)
    assert cam.Cam.generate([1], [2]) == [1.0]
""",
    ],
)
def test_every_patching_form_is_read(test_source: str) -> None:
    assert hy424(test_source)["Cam.generate"]


def test_monkeypatch_setattr_on_a_module_object_is_read() -> None:
    found = hy424(
        """
import cam

def test_helper(monkeypatch):
    monkeypatch.setattr(cam, "scale", lambda x: x)
    assert cam.helper(1.0) == 2.0
"""
    )
    assert found["helper"] and found["through_helper"]


def test_a_local_named_mocker_is_no_fixture_and_a_patch_of_nothing_callable_is_ignored() -> None:
    found = hy424(
        """
import cam

def test_generate():
    mocker = make_mocker()
    mocker.patch("cam.Cam.ponderate")

def test_constant(monkeypatch):
    monkeypatch.setattr("cam.LIMIT", 3)
"""
    )
    assert all(messages == [] for messages in found.values())


@pytest.mark.tensorflow
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_a_compiled_caller_keeps_the_callee_it_traced_and_fails_on_sentinels() -> None:
    """Measured under TF 2.21: after the first trace, a patch of the callee is not seen (the
    graph keeps the real callee, eagerly the double answers); a double returning mock
    sentinels fails the trace."""
    from unittest import mock

    import tensorflow as tf

    class Cam:
        @staticmethod
        def inner(x: tf.Tensor) -> tf.Tensor:
            return x + 1.0

        @staticmethod
        def outer(xs: list[tf.Tensor]) -> list[tf.Tensor]:
            return [Cam.inner(x) for x in xs]

    compiled = tf.function(Cam.outer)
    one = [tf.constant(1.0)]
    assert float(compiled(one)[0]) == 2.0
    with mock.patch.object(Cam, "inner", side_effect=lambda x: x * 100.0):
        assert float(Cam.outer(one)[0]) == 100.0
        assert float(compiled(one)[0]) == 2.0  # the graph traced before the patch
    with mock.patch.object(Cam, "inner", return_value=mock.sentinel.one):
        assert Cam.outer([mock.sentinel.x]) == [mock.sentinel.one]
        with pytest.raises(TypeError, match="must return zero or more Tensors"):
            compiled([mock.sentinel.x])
