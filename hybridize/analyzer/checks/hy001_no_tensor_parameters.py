"""HY001 has_no_tensor_parameters: no parameter receives a tensor."""

from __future__ import annotations

from . import TENSORFLOW_AND_TORCH, Check


class HasNoTensorParameters(Check):
    """No parameter of the function receives a tensor.

    What it detects
    ---------------
    A function without `@tf.function` whose parameters, at every call site the analysis
    knows, receive only values that are not tensors: Python numbers and strings,
    configuration objects, file paths; or a function that takes no parameters at all
    (`self` does not count). This is an eligibility note, not a hazard: hybridize leaves
    the function as it is.

    Why it matters in graph mode
    ----------------------------
    `tf.function` pays off when it traces once for a kind of tensor input and then replays
    the graph for every call with tensors of that kind. Non-tensor arguments are part of the
    trace cache key instead: each new Python value builds a new graph, so a function fed
    only Python values retraces or replays a graph of constants, and gains nothing over
    running eagerly.

    Example
    -------
    The function builds a model from hyperparameters; nothing flows in as a tensor:

        def build_head(units, rate):
            return tf.keras.Sequential([
                tf.keras.layers.Dense(units, activation="relu"),
                tf.keras.layers.Dropout(rate),
            ])

        head = build_head(64, 0.2)

    Instead
    -------
    Leave such functions eager and compile the function that does the tensor work, the one
    that receives the batch:

        @tf.function
        def predict(x):
            return head(x, training=False)

        predict(tf.ones((8, 32)))

    Under torch.compile
    -------------------
    The same fact: a function no parameter of which receives a tensor gains nothing from
    torch.compile either (an nn.Module, optimizer or DataLoader argument is not a tensor).
    """

    code = "HY001"
    unblock = "compile the function that receives the tensors (its caller or callee), not this one"
    frameworks = TENSORFLOW_AND_TORCH
    name = "has_no_tensor_parameters"
    severity = "info"
    summary = "No parameter receives a tensor, so tracing the function buys nothing."
    EXAMPLE_FUNCTION = "f"
