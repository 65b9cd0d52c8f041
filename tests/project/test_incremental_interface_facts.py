"""Project-wide facts read from the interface alone are kept with it across edits
(`ProjectIndex.interface_cached`, taken over by `share_interface_caches`): HY406's layers
built by calling `call` (a `call`, no `build`) are found once per interface, and only
whether each holds sub-layers is read of the facts at each solve. An edit that gives the
layer a `build` (its interface changes) or takes its sub-layer away (its body alone) must
give the verdicts of an analysis from scratch.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from hybridize.project import Project, ProjectOptions

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_incremental import check

LAYERS = """\
import tensorflow as tf


class Wrapper(tf.keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.dense = tf.keras.layers.Dense(2)

    def call(self, x):
        return self.dense(x)
"""

MODEL = """\
import tensorflow as tf

from layers import Wrapper

inputs = tf.keras.Input(shape=(3,))
model = tf.keras.Model(inputs, Wrapper()(inputs))
"""

BUILD = """
    def build(self, input_shape):
        self.scale = 2.0
"""


def _built_symbolically(project: Project) -> bool:
    [verdict] = [v for v in project.results().functions if v.qualname == "Wrapper.call"]
    return any(f.code == "HY406" for f in verdict.findings)


def test_edits_of_the_layers_build_and_sublayers_give_the_verdicts_of_a_fresh_analysis(
    make_project: Callable[[dict[str, str | bytes]], Path],
) -> None:
    """`Wrapper` holds a `Dense` and has no `build`: Keras builds it by calling `call` on
    symbolic tensors (HY406). A `build` added (the interface changes) ends that; undone, it
    is back. The sub-layer taken away (within a line of `__init__`: the interface is the
    same, the fact read at each solve differs) leaves `call` given `keras.Input`'s symbolic
    tensor by the model's construction, flagged as from scratch."""
    root = make_project({"layers.py": LAYERS, "model.py": MODEL})
    project = Project.open(root, ProjectOptions(use_cache=False), long_running=True)
    check(project, "opened")
    assert _built_symbolically(project)
    with_build = LAYERS.replace("\n    def call", BUILD + "\n    def call")
    no_sublayer = LAYERS.replace("tf.keras.layers.Dense(2)", "None")
    for text, expected in [
        (with_build, False),
        (LAYERS, True),
        (no_sublayer, True),
        (LAYERS, True),
    ]:
        project.update(root / "layers.py", text)
        check(project, "layers.py edited")
        assert _built_symbolically(project) is expected, text
