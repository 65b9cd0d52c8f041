"""HY007 for TF1 programs: a module naming an API only TensorFlow 1 has.

`tf.contrib` (with `tf.contrib.eager`, the `tfe` of TF1's opt-in eager mode) and top-level TF1
spellings that TF2 keeps under `tf.compat.v1` only (`tf.enable_eager_execution`, `tf.Session`,
`tf.placeholder`) cannot run on TensorFlow 2. A module importing one, naming one in its own
code (run at import) or calling TF1's mode switch is written for TF 1.x, and no function of it
gets a TF2 compile verdict; a function naming one in its body is TF1 code by itself. Those APIs do not exist in TF 2.21, so the claim
measured here is their absence; the tests pin the detection, module by module.
"""

from __future__ import annotations

import importlib.util

import pytest
from facts_helpers import analyse

TF2_STEP = """
def step(x, w):
    return tf.reduce_sum(tf.matmul(x, w))


for _ in range(100):
    step(tf.ones([4, 3]), tf.ones([3, 2]))
"""


def legacy(verdict_failures: tuple[str, ...]) -> bool:
    return "legacy_graph_code" in verdict_failures


@pytest.mark.parametrize(
    "prelude",
    [
        "import tensorflow as tf\nimport tensorflow.contrib.eager as tfe\n",
        "import tensorflow as tf\nfrom tensorflow.contrib import slim\n",
        "import tensorflow as tf\ntf.enable_eager_execution()\n",
        "import tensorflow as tf\ninit = tf.contrib.layers.xavier_initializer()\n",
        "import tensorflow as tf\n\ndef build():\n    tf.enable_eager_execution()\n",
        "import tensorflow as tf\ntf.logging.set_verbosity(tf.logging.INFO)\n",
    ],
    ids=[
        "import contrib.eager",
        "from contrib import",
        "enable_eager",
        "contrib call",
        "v1 spelling",
        "tf.logging",
    ],
)
def test_every_function_of_a_module_naming_a_tf1_only_api_is_legacy(prelude: str) -> None:
    v = analyse(prelude + TF2_STEP)["step"]
    assert not v.passes
    assert legacy(v.failures)
    [finding] = [f for f in v.findings if f.code == "HY007"]
    assert "written for TensorFlow 1" in finding.message


def test_a_stale_tf1_line_in_a_function_of_a_tf2_module_concerns_that_function_alone() -> None:
    """A TF2 module with one function still spelling a TF1 API (it raises AttributeError
    there, eagerly too): that function is TF1 code, the module's others are judged."""
    source = (
        "import tensorflow as tf\n\n"
        "def sample(n):\n    return tf.random_uniform([n])\n" + TF2_STEP + "sample(3)\n"
    )
    verdicts = analyse(source)
    [finding] = [f for f in verdicts["sample"].findings if f.code == "HY007"]
    assert "`tf.random_uniform`, a TensorFlow 1 API" in finding.message
    assert finding.span is not None and finding.span.start_line == 4
    assert verdicts["step"].passes


def test_the_other_modules_of_the_project_keep_their_verdicts() -> None:
    verdicts = analyse(
        {
            "legacy.py": "import tensorflow as tf\ntf.enable_eager_execution()\n" + TF2_STEP,
            "modern.py": "import tensorflow as tf\n" + TF2_STEP,
        }
    )
    assert legacy(verdicts["legacy.py::step"].failures)
    assert verdicts["modern.py::step"].passes


@pytest.mark.parametrize(
    "prelude",
    [
        "import tensorflow as tf\ntf.compat.v1.enable_eager_execution()\n",
        "import tensorflow as tf\ntf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.INFO)\n",
        "import tensorflow as tf\n# tf.contrib.layers.batch_norm is gone; see tf.keras\n",
    ],
    ids=["compat.v1 eager switch", "compat.v1 logging", "a comment"],
)
def test_tf2_modules_naming_compat_v1_are_not_tf1_programs(prelude: str) -> None:
    assert analyse(prelude + TF2_STEP)["step"].passes


@pytest.mark.tensorflow
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_tf2_has_none_of_the_tf1_only_names() -> None:
    """Measured under TF 2.21: the TF1 names raise AttributeError (tf.contrib is gone, the
    top-level TF1 spellings live only under tf.compat.v1)."""
    import tensorflow as tf

    for name in ("contrib", "enable_eager_execution", "Session", "placeholder", "logging"):
        assert not hasattr(tf, name), name
    for name in ("enable_eager_execution", "Session", "placeholder", "logging"):
        assert hasattr(tf.compat.v1, name), name
    assert importlib.util.find_spec("tensorflow.contrib") is None
