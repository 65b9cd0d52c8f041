"""HY404 has_unresolved_statically_read_axes: x.shape[i] needed where the axis would be None."""

from __future__ import annotations

from hybridize.analyzer.checks.context import CheckContext
from hybridize.model import Finding

from . import TENSORFLOW_ONLY, Check


class HasUnresolvedStaticallyReadAxes(Check):
    """Reads a tensor axis as a Python int that the graph would leave unknown.

    What it detects
    ---------------
    A function that needs `x.shape[i]` (or `x.get_shape()[i]`, `len(x)`) as a Python integer,
    for `range`, a Python shape argument or arithmetic on ints, while the input signature
    it would be compiled with leaves that axis `None` because the call sites disagree on
    its size or an explicit signature says so.

    Why it matters in graph mode
    ----------------------------
    Eagerly every axis has a size. In a graph traced with a relaxed signature the static
    size is `None`: `range(x.shape[0])` raises `TypeError`, `tf.zeros((x.shape[0], 4))`
    fails to build, and arithmetic on `None` raises. Without a relaxed signature the
    function instead retraces for every new size.

    Example
    -------
        @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
        def pad_rows(x):
            return tf.concat([x, tf.zeros((x.shape[0], 1))], axis=1)

    Instead
    -------
    Read dynamic sizes with `tf.shape(x)[i]`, which is a tensor available at run time:

        @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
        def pad_rows(x):
            return tf.concat([x, tf.zeros((tf.shape(x)[0], 1))], axis=1)

    Not for torch.compile
    ---------------------
    About axes an input signature leaves unknown; torch.compile has no input signature.
    """

    code = "HY404"
    unblock = "read dynamic sizes with tf.shape(x)[i]"
    frameworks = TENSORFLOW_ONLY
    name = "has_unresolved_statically_read_axes"
    severity = "warning"
    summary = "Needs x.shape[i] as a Python int where the signature would leave the axis None."
    EXAMPLE_FUNCTION = "f"
    INFER_INPUT_SIGNATURES = True
    fact = "has_unresolved_statically_read_axes"
    report_order = 35

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """An axis the body reads that the supplied signature leaves None, or (inferring
        signatures) one the call sites do not fix."""
        signatures = context.signatures
        span = context.function.span
        found = []
        if signatures.unresolved is not None:
            parameter, axis = signatures.unresolved
            found.append(
                cls.finding(
                    f"the body reads `{parameter}.shape[{axis}]` as a Python int, but the "
                    "input_signature leaves that axis None: inside the graph it is None",
                    span,
                )
            )
        inference = signatures.inference
        if inference is not None and inference.unresolved_static_axes:
            found.append(cls.finding(f"no input_signature: {inference.reason}", span))
        return found
