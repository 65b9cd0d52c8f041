"""HY406 has_keras_symbolic_arguments: Keras symbolic tensors reach the function."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hybridize.analyzer.checks.context import CheckContext
from hybridize.analyzer.facts.safety import keras_symbolic_arguments, symbolically_built_classes
from hybridize.model import Finding

if TYPE_CHECKING:
    from hybridize.analyzer.facts.evaluator import TensorFacts
    from hybridize.analyzer.facts.resolve import ProjectIndex

from . import TENSORFLOW_ONLY, Check


class HasKerasSymbolicArguments(Check):
    """A caller, or Keras itself while building a model, passes Keras symbolic tensors.

    What it detects
    ---------------
    A function that some caller invokes with a Keras functional-API symbolic tensor: a
    value of `tf.keras.Input(...)` / `keras.layers.Input(...)`, or a layer output computed
    from one while building a functional model. The `call` of a layer or model that defines
    (or inherits) a `build` is exempt from this part: Keras creates its weights with
    `build(input_shape)` before the functional call, so that call only reads initialised
    variables, which a compiled `call` captures by reference.

    Also the `call` of a Keras `Layer`/`Model` subclass that Keras 3 builds symbolically:
    one with sub-layers that may be unbuilt and no `build` method of its own (Keras then
    runs `call` on symbolic tensors to create the weights), and the `call` of every stateful
    layer such a class holds. Sub-layers kept in a list or dict attribute
    (`self.blocks = [Dense(8) for _ in range(3)]`, `self.heads = {"a": Dense(1)}`, or
    appended/stored there one by one) count like direct ones: Keras tracks them the same way. A `@tf.function` on that `call` is first traced during the
    symbolic pass and keeps the sub-layers' initial weights: training then reports "No
    gradients provided for any variable", or silently stops improving.

    Why it matters in graph mode
    ----------------------------
    Such a function is a model-building block: it connects layers once, when the model is
    defined, and its "tensors" are `KerasTensor` placeholders, not `tf.Tensor`s.
    `tf.function` cannot trace with them as inputs and fails with "KerasTensor cannot be
    used as input to a TensorFlow function"; even if it could, the layers would be created
    inside a graph and the functional model would not record them. Adding `@tf.function`
    breaks the model definition.

    Example
    -------
        def mlp_block(x):
            x = tf.keras.layers.Dense(64, activation="relu")(x)
            return tf.keras.layers.Dense(10)(x)

        inputs = tf.keras.Input(shape=(32,))
        model = tf.keras.Model(inputs, mlp_block(inputs))

    Instead
    -------
    For a subclassed layer or model, give it a `build(self, input_shape)` that builds its
    sub-layers, or leave `call` undecorated and compile the training step instead.
    Leave model-building code eager. Compile the function that runs the built model on real
    tensors (or rely on Keras, which compiles `fit`/`predict` itself):

        @tf.function
        def predict(x):
            return model(x, training=False)

        predict(tf.ones((8, 32)))

    Not for torch.compile
    ---------------------
    About Keras symbolic tensors; PyTorch has none.
    """

    code = "HY406"
    unblock = "give the layer a build(self, input_shape) that builds its sub-layers, or compile the training step instead"
    frameworks = TENSORFLOW_ONLY
    name = "has_keras_symbolic_arguments"
    severity = "error"
    summary = (
        "Keras symbolic tensors reach it (from tf.keras.Input, or Keras' symbolic build of a "
        "layer without build): model-building code."
    )
    EXAMPLE_FUNCTION = "f"
    fact = "has_keras_symbolic_arguments"
    fact_meaning = (
        "a caller passes a Keras symbolic tensor (`keras.Input`, a functional model's build)"
    )
    report_order = 70
    decision_order = 70

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        return cls.findings(keras_symbolic_arguments(context.scan))

    @classmethod
    def project_fact(cls, index: ProjectIndex, facts: TensorFacts) -> object:
        """The Keras classes Keras builds by calling `call` symbolically: a layer added to
        or dropped from one changes the verdicts of its sub-layers' `call`s anywhere."""
        return symbolically_built_classes(index, facts)
