"""HY012 reconfigure: add an inferred input_signature to an existing @tf.function (P4)."""

from __future__ import annotations

from . import TENSORFLOW_ONLY, Check


class Reconfigure(Check):
    """An existing `@tf.function` can be given an inferred `input_signature`.

    What it detects
    ---------------
    With `--infer-input-signatures` only: a function compiled with `@tf.function` and no
    `input_signature`, without side effects, not recursive, whose tensor parameters have a
    signature inferable from every call site (equal dtypes; axes that agree keep their
    size, the others become `None`). This is a positive verdict (precondition P4); the
    refactoring adds the signature to the decorator and never overwrites an existing one.

    Why it matters in graph mode
    ----------------------------
    Without a signature `tf.function` traces a new graph for every new input shape it sees;
    a signature with `None` axes lets one graph serve all of them, and rejects calls with the
    wrong dtype or rank up front instead of silently tracing another graph.

    Example
    -------
        @tf.function
        def predict(x):
            return model(x, training=False)

        predict(tf.ones((8, 32)))
        predict(tf.ones((3, 32)))    # a second trace for batch size 3

    Instead
    -------
    Add the inferred signature (the batch axis becomes `None`):

        @tf.function(input_signature=[tf.TensorSpec([None, 32], tf.float32)])
        def predict(x):
            return model(x, training=False)

    Not for torch.compile
    ---------------------
    torch.compile has no input-signature argument (shapes are generalised with
    `dynamic=True`): nothing to reconfigure.
    """

    code = "HY012"
    unblock = (
        "add the inferred input_signature: hybridize refactor --infer-input-signatures --apply"
    )
    frameworks = TENSORFLOW_ONLY
    name = "reconfigure"
    severity = "info"
    summary = "Add the inferred input_signature to an existing @tf.function."
    EXAMPLE_FUNCTION = "f"
    INFER_INPUT_SIGNATURES = True
