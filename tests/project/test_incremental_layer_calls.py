"""The layers' calls that Keras runs inside graphs of its own (`BenefitModel.runs_in_layer_graphs`)
are taken over from the last verdict phase outside the functions an edit reaches, unless the
edit changed a class or an import: every verdict still equals a fresh analysis's when an edit
makes a class a layer, makes another no longer one (a subclass's call in another module
follows), adds or removes an eager caller of a layer, or changes only a function elsewhere."""

from __future__ import annotations

import sys
from pathlib import Path

from hybridize.model import FunctionVerdict
from hybridize.project import Project, ProjectOptions

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_incremental import check

LAYERS = """\
import tensorflow as tf


class Scale(tf.keras.layers.Layer):
    def call(self, x):
        return x * 2.0


class Plain:
    def call(self, x):
        return tf.square(x)
"""

DEEP = """\
import tensorflow as tf

from layers import Plain, Scale


def helper(x):
    y = tf.abs(x)
    for _ in range(3):
        y = tf.matmul(y, y) + tf.reduce_sum(y)
    return y


class _Deep(Scale):
    def call(self, x):
        return tf.reduce_sum(x) + helper(x)


class _Other(Plain):
    def call(self, x):
        return helper(x) * 3.0


def spare(x):
    return tf.abs(x)
"""

TESTS = """\
import tensorflow as tf

from deep import _Deep, _Other


def test_layers():
    _Deep()(tf.ones([4, 4]))
    _Other()(tf.ones([4, 4]))
"""


def _helper(project: Project) -> FunctionVerdict:
    [verdict] = [v for v in project.results().functions if v.qualname == "helper"]
    return verdict


def _inside_a_layer_graph(project: Project) -> bool:
    return any("a layer's call" in r for r in _helper(project).benefit_reasons)


def test_layer_calls_follow_edits_of_classes_and_of_functions_elsewhere() -> None:
    """`helper` runs inside Keras's graphs when every caller is a layer's call (`_Deep.call`,
    `_Other.call`: tests alone call them; private classes, which no user of the project
    calls, so the rule for a library's public layers does not apply); while `_Other` derives
    from a plain class, its call is an eager caller and `helper` is not inside a graph."""
    files = {"layers.py": LAYERS, "deep.py": DEEP, "test_deep.py": TESTS}
    project = Project.from_texts(files, ProjectOptions(use_cache=False))
    check(project, "opened")
    assert not _inside_a_layer_graph(project)

    layered = LAYERS.replace("class Plain:", "class Plain(tf.keras.layers.Layer):")
    project.update("layers.py", layered)
    check(project, "Plain is a layer: so is Other, in another module")
    assert _inside_a_layer_graph(project)

    incremental = project.analysis.incremental_verdicts
    project.update("deep.py", DEEP.replace("return tf.abs(x)\n", "return tf.abs(x) + 1.0\n"))
    check(project, "an edit of `spare` alone")
    assert project.analysis.incremental_verdicts == incremental + 1
    assert _inside_a_layer_graph(project)

    looped = (
        DEEP
        + "\n\ndef train(x):\n    layer = _Deep()\n    for _ in range(100):\n        layer(x)\n"
    )
    project.update("deep.py", looped)
    check(project, "a loop calls Deep's layer eagerly")
    assert not _inside_a_layer_graph(project)
    project.update("deep.py", DEEP)
    check(project, "the loop removed")
    assert _inside_a_layer_graph(project)

    plain = layered.replace("class Scale(tf.keras.layers.Layer):", "class Scale:")
    project.update("layers.py", plain)
    check(project, "Scale is no layer: nor is Deep, in another module")
    assert not _inside_a_layer_graph(project)
