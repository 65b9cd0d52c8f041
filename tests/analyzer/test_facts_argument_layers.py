"""HY301 has_eager_only_calls: a Keras layer or model received as an argument is called.

Found by the differential oracle on tf-models: `RetinaNetHead._apply_prediction_tower(self,
features, convs, norms)` calls the conv and norm layers of the lists it is given; decorated,
each distinct list is a new trace and the unbuilt layers in it create their variables there
("tf.function only supports singleton tf.Variables created on the first call";
dense_prediction_heads_test went from 10 to 7 passing). Measured under TF 2.21 with Keras 2
(tf_keras) and Keras 3: two unbuilt layers passed one after the other fail, directly, in a
list, and as an unbuilt Sequential; a method calling `self.dense` on two instances, a global
layer, and the same layer retraced by shape work. Whether a caller's layer is built is not
known statically, so a call of a layer a parameter holds is flagged when the function may be
given different layers: two call sites, or one in a loop whose argument changes per
iteration, or one handing on a caller's parameter that may differ.
"""

from __future__ import annotations

import pytest
from facts_helpers import case, verdict

HEADER = """
import tensorflow as tf
from tensorflow import keras
"""

CALLS = """
x = tf.ones((2, 3))
"""


def program(body: str, calls: str) -> str:
    return f"{HEADER}\n{body}\n{CALLS}{calls}\n"


DIRECT = """
def apply(layer, x):
    return layer(x) * 2.0
"""
TOWER = """
def tower(features, convs, norms):
    x = features
    for conv, norm in zip(convs, norms):
        x = conv(x)
        x = norm(x)
    return tf.nn.relu(x)
"""
HEAD = """
class Head(keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(4)
        self.cls_convs = [keras.layers.Dense(3), keras.layers.Dense(3)]
        self.cls_norms = [keras.layers.BatchNormalization(), keras.layers.BatchNormalization()]
        self.box_convs = [keras.layers.Dense(3), keras.layers.Dense(3)]
        self.box_norms = [keras.layers.BatchNormalization(), keras.layers.BatchNormalization()]

    def own(self, x):
        return self.dense(x) * 2.0

    def tower(self, features, convs, norms):
        x = features
        for conv, norm in zip(convs, norms):
            x = conv(x)
            x = norm(x)
        return x * 2.0

    def call(self, x):
        features = self.own(x)
        scores = self.tower(features, self.cls_convs, self.cls_norms)
        boxes = self.tower(features, self.box_convs, self.box_norms)
        return scores + boxes
"""
LEVELS = """
class Levels(keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.heads = [keras.layers.Dense(3), keras.layers.Dense(3)]

    def head(self, x, layer):
        return layer(x) * 2.0

    def call(self, x):
        outputs = []
        for level in range(2):
            outputs.append(self.head(x, self.heads[level]))
        return outputs
"""
TRAINING = """
def train_step(model, optimizer, x):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(model(x, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


def fit(model, optimizer, dataset):
    for batch in dataset:
        train_step(model, optimizer, batch)


def main():
    model = keras.Sequential([keras.layers.Dense(2)])
    model(tf.ones((1, 3)))
    fit(model, keras.optimizers.Adam(), tf.data.Dataset.from_tensors(tf.ones((2, 3))))
"""
GLOBAL = """
DENSE = keras.layers.Dense(4)


def apply_global(x):
    return DENSE(x) * 2.0
"""
DICT = """
def by_name(x, layers):
    for layer in layers.values():
        x = layer(x)
    return x * 2.0
"""
HELPER = """
def inner(layer, x):
    return layer(x) * 2.0


def outer(layer, x):
    return inner(layer, x) + 1.0


def only(layer, x):
    return inner(layer, x) - 1.0


class Owner(keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(4)

    def call(self, x):
        return inner(self.dense, x) + 1.0
"""
ATTRIBUTE = """
class Encoder(keras.Model):
    def __init__(self):
        super().__init__()
        self.proj = keras.layers.Dense(4)

    def call(self, x):
        return self.proj(x)


def encode(model, x):
    return model.proj(x) * 2.0
"""

CASES = [
    case(
        "a layer parameter is called",
        program(DIRECT, "apply(keras.layers.Dense(4), x)\napply(keras.layers.Dense(4), x)"),
        "apply",
        True,
    ),
    case(
        "a model parameter is called",
        program(
            DIRECT, "for n in (2, 3):\n    apply(keras.Sequential([keras.layers.Dense(n)]), x)"
        ),
        "apply",
        True,
    ),
    case(
        "the elements of list parameters are called (zip)",
        program(
            TOWER,
            "tower(x, [keras.layers.Dense(3)], [keras.layers.BatchNormalization()])\n"
            "tower(x, [keras.layers.Dense(3)], [keras.layers.BatchNormalization()])",
        ),
        "tower",
        True,
    ),
    case(
        "a method iterating the layer lists it is given (RetinaNetHead)",
        program(HEAD, "Head()(x)"),
        "Head.tower",
        True,
    ),
    case("a method calling its own layer", program(HEAD, "Head()(x)"), "Head.own", False),
    case(
        "a method handing its own layers to a method that calls them",
        program(HEAD, "Head()(x)"),
        "Head.call",
        False,
    ),
    case(
        "a module-level layer built elsewhere",
        program(GLOBAL, "apply_global(x)"),
        "apply_global",
        False,
    ),
    case(
        "the values of a dict parameter are called",
        program(
            DICT,
            "by_name(x, {'a': keras.layers.Dense(3)})\nby_name(x, {'b': keras.layers.Dense(3)})",
        ),
        "by_name",
        True,
    ),
    case(
        "a layer parameter handed to a helper that calls it",
        program(
            HELPER, "outer(keras.layers.Dense(4), x)\nouter(keras.layers.Dense(4), x)\nOwner()(x)"
        ),
        "outer",
        True,
    ),
    case(
        "a method handing its own layer to a helper that calls it",
        program(
            HELPER, "outer(keras.layers.Dense(4), x)\nouter(keras.layers.Dense(4), x)\nOwner()(x)"
        ),
        "Owner.call",
        False,
    ),
    case(
        "a layer attribute of a model parameter is called",
        program(ATTRIBUTE, "encode(Encoder(), x)\nencode(Encoder(), x)"),
        "encode",
        True,
    ),
    case(
        "a layer item chosen per loop iteration, from one call site",
        program(LEVELS, "Levels()(x)"),
        "Levels.head",
        True,
    ),
    case(
        "the one model of a training loop, from one call site",
        program(TRAINING, "main()"),
        "train_step",
        False,
    ),
    case(
        "one call site handing on a parameter given once",
        program(
            "def inner(layer, x):\n    return layer(x) * 2.0\n\n\n"
            "def only(layer, x):\n    return inner(layer, x) - 1.0\n",
            "only(keras.layers.Dense(4), x)",
        ),
        "inner",
        False,
    ),
    case(
        "a helper given the parameter of a function called with two layers",
        program(HELPER, "outer(keras.layers.Dense(4), x)\nouter(keras.layers.Dense(4), x)"),
        "inner",
        True,
    ),
    case(
        "one layer passed once",
        program(DIRECT, "apply(keras.layers.Dense(4), x)"),
        "apply",
        False,
    ),
    case(
        "two models, each called before it is passed",
        program(
            DIRECT,
            "model_a, model_b = keras.layers.Dense(4), keras.layers.Dense(4)\n"
            "model_a(x)\nmodel_b(x)\napply(model_a, x)\napply(model_b, x)",
        ),
        "apply",
        False,
    ),
    case(
        "two models, one called only after it is passed",
        program(
            DIRECT,
            "model_a, model_b = keras.layers.Dense(4), keras.layers.Dense(4)\n"
            "model_a(x)\napply(model_a, x)\napply(model_b, x)\nmodel_b(x)",
        ),
        "apply",
        True,
    ),
    case(
        "a layer parameter known from its default, no call site in the project",
        HEADER + "\nDENSE = keras.layers.Dense(4)\n\n\ndef apply(x, layer=DENSE):\n"
        "    return layer(x) * 2.0\n",
        "apply",
        True,
    ),
    case(
        "a tensor parameter is not a layer",
        program(DIRECT, "apply(tf.nn.relu, x)"),
        "apply",
        False,
    ),
]


@pytest.mark.parametrize(("files", "qualname", "expected"), CASES)
def test_layers_held_by_parameters(files: str, qualname: str, expected: bool) -> None:
    v = verdict(files, qualname)
    flagged = any(
        f.code == "HY301" and "parameter `" in f.message and "layer" in f.message
        for f in v.findings
    )
    assert flagged is expected, v.findings
    if expected:
        assert v.fact("has_eager_only_calls") is True
        assert not v.passes, v


def test_the_finding_points_at_the_call_and_names_the_parameter() -> None:
    calls = "tower(x, [keras.layers.Dense(3)], [keras.layers.ReLU()])\n" * 2
    v = verdict(program(TOWER, calls), "tower")
    found = [f for f in v.findings if f.code == "HY301"]
    lines = sorted(f.span.start_line for f in found)
    source = program(TOWER, "").splitlines()
    assert [source[line - 1].strip() for line in lines] == ["x = conv(x)", "x = norm(x)"]
    # `conv` and `norm` come out of `zip(convs, norms)`: either list may hold them.
    assert all("`convs` or `norms`" in f.message for f in found), found


def test_pytorch_modules_given_as_arguments_are_not_flagged() -> None:
    """`torch.compile` does not key traces on module identity: no such hazard there."""
    src = """
import torch
from torch import nn


def apply(module, x):
    return module(x) * 2.0


apply(nn.Linear(3, 4), torch.ones(2, 3))
apply(nn.Linear(3, 4), torch.ones(2, 3))
"""
    v = verdict(src, "apply")
    assert not any("`module`" in f.message for f in v.findings), v.findings


def recursive_chain(depth: int) -> str:
    """`step0` .. `stepN`, each handing its layer to the next twice and back to `step0` (a
    cycle through the whole chain), the last one calling it: every function calls the layer."""
    steps = []
    for i in range(depth):
        if i == depth - 1:
            body = "    return layer(x) * 2.0"
        else:
            body = (
                f"    if x.shape[0] > 9:\n        return step0(layer, x)\n"
                f"    return step{i + 1}(layer, x) + step{i + 1}(layer, x * 2.0)"
            )
        steps.append(f"def step{i}(layer, x):\n{body}\n")
    calls = "step0(keras.layers.Dense(3), x)\nstep0(keras.layers.Dense(3), x)\n"
    return program("\n\n".join(steps), calls)


def test_a_recursive_chain_is_followed_once_per_function(monkeypatch: pytest.MonkeyPatch) -> None:
    """Found on the installed `keras/src`: the walk from a function to the layers its callees
    call was not memoised where a call cycle cut it, so each diamond of a cyclic call graph
    doubled it (the analysis of `keras/src` did not end in half an hour). Now a fixed point
    evaluates each function a few times, and the hazard still travels the whole chain."""
    import hybridize.analyzer.facts.argument_layers as argument_layers

    evaluated: list[str] = []
    real = argument_layers._layer_uses

    def counting(*args: object) -> object:
        evaluated.append(str(args[2]))
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(argument_layers, "_layer_uses", counting)
    counts = {}
    for depth in (12, 24):
        evaluated.clear()
        v = verdict(recursive_chain(depth), "step0")
        counts[depth] = len(evaluated)
        hands = [f for f in v.findings if f.code == "HY301" and "hands the layers" in f.message]
        assert any("`step1`" in f.message for f in hands), hands
        assert not v.passes
    # Linear in the number of functions (the walk of every path doubled per function).
    assert counts[24] <= 2.5 * counts[12], counts
    assert counts[24] <= 8 * 24, counts
