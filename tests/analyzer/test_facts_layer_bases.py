"""A class's framework layer base through its bases (`ProjectIndex.layer_base`).

A Keras layer that also derives from a plain mixin of the project is a layer whichever order
the bases are listed in: the mixin, which is no layer, must not overwrite the layer base found
before it (it did, and the benefit model then missed that the class's `call` runs at every
forward pass).
"""

from __future__ import annotations

import pytest

from hybridize.analyzer.checks import summary_hooks
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.summaries.file_summaries import summarize_text
from hybridize.analyzer.summaries.keys import ClassKey

MIXIN = "class Mixin:\n    def describe(self):\n        return 'mixin'\n\n"


def _layer_base(source: str, name: str):
    index = ProjectIndex({"main.py": summarize_text("main.py", source, summary_hooks())})
    return index.layer_base(ClassKey("main.py", name))


@pytest.mark.parametrize(
    "bases",
    ["tf.keras.layers.Layer, Mixin", "Mixin, tf.keras.layers.Layer"],
)
def test_a_mixin_beside_a_layer_base_leaves_the_class_a_layer(bases: str) -> None:
    source = f"import tensorflow as tf\n\n{MIXIN}class Block({bases}):\n    pass\n"
    found = _layer_base(source, "Block")
    assert found is not None and found.role == "layer"


def test_a_mixin_between_project_layer_bases_keeps_the_model_base() -> None:
    source = (
        "import tensorflow as tf\n\n"
        f"{MIXIN}"
        "class Base(tf.keras.Model):\n    pass\n\n"
        "class Block(tf.keras.layers.Layer):\n    pass\n\n"
        "class Net(Block, Base, Mixin):\n    pass\n"
    )
    found = _layer_base(source, "Net")
    assert found is not None and found.role == "model", "a model base wins over a layer one"


def test_a_class_of_mixins_only_has_no_layer_base() -> None:
    source = f"import tensorflow as tf\n\n{MIXIN}class Other(Mixin, object):\n    pass\n"
    assert _layer_base(source, "Other") is None
