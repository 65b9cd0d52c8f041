"""HY412 has_rank_losing_slices: a Keras layer gets a value sliced with a tensor step."""

from __future__ import annotations

from hybridize.analyzer.checks.context import CheckContext
from hybridize.analyzer.facts.rank_losing_slices import rank_losing_slices
from hybridize.model import Finding

from . import TENSORFLOW_ONLY, Check


class HasRankLosingSlices(Check):
    """Calls a Keras layer on a value sliced with a step that may be a tensor.

    What it detects
    ---------------
    A call of a Keras layer or model whose argument is, or is computed from, a slice with a
    computed step, `x[:, ::stride, :]`, where the step may be a tensor (a parameter a caller
    fills with a tensor, a value computed by TensorFlow). A literal or Python-number step is
    fine; so is a tensor bound (`x[:, :k]`), which leaves only that axis unknown.

    Why it matters in graph mode
    ----------------------------
    Traced, a strided slice whose strides are not constant gets an unknown static rank
    (measured under TF 2.21: `x[:, ::s, :]` has shape `<unknown>`, `x[:, :k, :]` has
    `(2, None, 4)`). Eagerly every shape is concrete. A Keras layer needs the rank: an unbuilt
    layer builds its weights from it (Dense, LayerNormalization, MultiHeadAttention fail with
    ValueError or TypeError), and Keras 3 checks it on every call, built or not (measured with
    Keras 2 and 3). tf-models' `StridedTransformerEncoderBlock.call(inputs, stride)` failed so
    once decorated.

    Example
    -------
        dense = tf.keras.layers.Dense(8)

        def downsample(x, stride):
            return dense(x[:, ::stride, :])

        downsample(tf.ones((2, 16, 4)), tf.constant(2))

    Instead
    -------
    Pass the step as a Python int (it is a configuration value: each value retraces once), or
    restore the static shape before the layer (`tf.ensure_shape(y, [None, None, 4])`, or
    `y.set_shape(...)`), or gather with `tf.range(0, n, stride)`, which keeps the rank.

    Not for torch.compile
    ---------------------
    A traced PyTorch tensor keeps its rank whatever the slice's step.
    """

    code = "HY412"
    unblock = "pass the step as a Python int, or restore the static shape (tf.ensure_shape)"
    frameworks = TENSORFLOW_ONLY
    name = "has_rank_losing_slices"
    severity = "error"
    summary = (
        "a Keras layer is called on a value sliced with a tensor step: traced, its static "
        "rank is unknown and the layer cannot build or check it."
    )
    EXAMPLE_FUNCTION = "f"
    fact = "has_rank_losing_slices"
    fact_meaning = (
        "a Keras layer called on a value sliced with a tensor step: its static rank is lost"
    )
    report_order = 110
    decision_order = 110

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """What compiling would change: only for a function that may be compiled and is not yet."""
        if not context.changes_on_compiling:
            return []
        return cls.findings(rank_losing_slices(context.index, context.facts, context.key))
