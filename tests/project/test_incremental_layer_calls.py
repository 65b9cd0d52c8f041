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


EXPORTED_LAYER = """\
import tensorflow as tf


class Interaction(tf.keras.layers.Layer):
    def call(self, inputs):
        stacked = tf.concat(inputs, axis=1)
        scores = tf.matmul(stacked, stacked, transpose_b=True)
        mask = tf.linalg.band_part(tf.ones_like(scores), 0, -1)
        kept = tf.boolean_mask(scores, tf.cast(mask, tf.bool))
        return tf.reshape(kept, [tf.shape(scores)[0], -1])
"""

TRAINER = """\
import tensorflow as tf

from pkg.layers import Interaction


def train(data):
    model = tf.keras.Sequential([Interaction()])
    model.compile("adam", "mse")
    model.fit(data, epochs=10)
"""


def test_an_edit_of_a_package_s_exports_rates_its_layers_again() -> None:
    """Whether a layer's class is exported lives in another file (`pkg/__init__.py`): an edit
    binding it there, or unbinding it, rates its call as a fresh analysis does."""
    files = {"pkg/__init__.py": "", "pkg/layers.py": EXPORTED_LAYER, "train.py": TRAINER}
    project = Project.from_texts(files, ProjectOptions(use_cache=False))
    check(project, "opened: no export")

    def rule() -> str | None:
        [v] = [v for v in project.results().functions if v.qualname == "Interaction.call"]
        return v.benefit_rule

    assert rule() is None
    project.update("pkg/__init__.py", "from pkg.layers import Interaction\n")
    check(project, "exported by the package")
    assert rule() == "exported_layer"
    incremental = project.analysis.incremental_verdicts
    project.update("train.py", TRAINER.replace("epochs=10", "epochs=20"))
    check(project, "a function's body edited elsewhere: the exports taken over")
    assert project.analysis.incremental_verdicts == incremental + 1
    assert rule() == "exported_layer"
    project.update("pkg/__init__.py", "from pkg import layers\n")
    check(project, "its module exported by name")
    assert rule() == "exported_layer"
    project.update("pkg/__init__.py", "")
    check(project, "no longer exported")
    assert rule() is None
    project.update("pkg/layers.py", EXPORTED_LAYER + '\n__all__ = ["Interaction"]\n')
    check(project, "listed in its module's __all__")
    assert rule() == "exported_layer"
    project.update("pkg/layers.py", EXPORTED_LAYER)
    check(project, "no longer listed")
    assert rule() is None


PER_LEVEL = """\
import tensorflow as tf


def level_loss(x):
    scores = tf.nn.softmax(tf.matmul(x, x, transpose_b=True))
    return tf.reduce_mean(tf.square(tf.matmul(scores, x) - x)) + tf.reduce_sum(tf.abs(scores))


def total_loss(outputs):
    losses = []
    for level in sorted(outputs.keys()):
        losses.append(level_loss(outputs[level]))
    return losses


def train(dataset):
    pass
"""


def _level_loss_benefit(project: Project) -> str:
    [verdict] = [v for v in project.results().functions if v.qualname == "level_loss"]
    return verdict.benefit


def test_calls_per_mapping_entry_follow_edits_of_their_loop() -> None:
    """A call once per entry of a mapping (`BenefitModel._entry_edges`, kept by caller from
    the last phase) is counted again when an edit of the caller's body turns its loop into
    one it cannot bound and back, or makes a data loop call the caller: every verdict
    equals a fresh analysis's. The counts the rule implies: once per entry of a mapping in a
    function no code calls, unknown (`low`); once per element of a loop it cannot bound,
    or per entry in a function a data loop calls, many (`high`)."""
    unbounded = PER_LEVEL.replace("sorted(outputs.keys())", "outputs")
    called = PER_LEVEL.replace(
        "    pass\n", "    for outputs in dataset:\n        total_loss(outputs)\n"
    )
    project = Project.from_texts({"losses.py": PER_LEVEL}, ProjectOptions(use_cache=False))
    check(project, "opened: a loop over a mapping's keys in a function no code calls")
    assert _level_loss_benefit(project) == "low"
    project.update("losses.py", unbounded)
    check(project, "the loop over an iterable it cannot bound")
    assert _level_loss_benefit(project) == "high"
    project.update("losses.py", PER_LEVEL)
    check(project, "back to the mapping's keys")
    assert _level_loss_benefit(project) == "low"
    project.update("losses.py", called)
    check(project, "a data loop calls the function holding the loop over the keys")
    assert _level_loss_benefit(project) == "high"


GEOMETRY = """\
import tensorflow as tf


def rotate(x):
    for _ in range(3):
        x = tf.matmul(x, x) + tf.reduce_sum(tf.sin(x))
    return x
"""

GEOMETRY_TESTS = """\
import tensorflow as tf

import pkg.geometry as geometry


def test_rotate():
    assert geometry.rotate(tf.ones((3, 3))) is not None
"""
"""The tests reach `rotate` through the module object: not `from pkg.geometry import rotate`,
which would make it a public function imported by its path (rule "public_function")."""


def test_an_edit_of_a_package_s_exports_rates_its_functions_again() -> None:
    """Whether a function is exported (rule "exported_function") lives in `pkg/__init__.py`
    and in the module's own definitions: binding it, binding its module by name, unbinding
    it, and a new public function in a module bound by name rate them as a fresh analysis
    does."""
    files = {
        "pkg/__init__.py": "",
        "pkg/geometry.py": GEOMETRY,
        "tests/test_geometry.py": GEOMETRY_TESTS,
    }
    project = Project.from_texts(files, ProjectOptions(use_cache=False))
    check(project, "opened: no export")

    def rule(qualname: str = "rotate") -> str | None:
        [v] = [v for v in project.results().functions if v.qualname == qualname]
        return v.benefit_rule

    assert rule() is None
    project.update("pkg/__init__.py", "from pkg.geometry import rotate\n")
    check(project, "exported by the package")
    assert rule() == "exported_function"
    project.update("pkg/__init__.py", "from pkg import geometry\n")
    check(project, "its module exported by name")
    assert rule() == "exported_function"
    project.update("pkg/geometry.py", GEOMETRY + "\n\ndef spin(x):\n    return rotate(x) * 2.0\n")
    check(project, "a new public function in a module bound by name")
    assert rule("spin") == "exported_function"
    project.update("pkg/__init__.py", "")
    check(project, "no longer exported")
    assert rule() is None and rule("spin") is None
