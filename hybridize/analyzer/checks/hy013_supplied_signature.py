"""HY013 supplied_input_signature: how a decorator's own signature relates to the call sites."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from hybridize.analyzer.checks.context import CheckContext
from hybridize.model import Finding

from . import TENSORFLOW_ONLY, Check, Variant


class SuppliedInputSignature(Check):
    """Compares an existing `input_signature` with what the call sites pass.

    What it detects
    ---------------
    With `--infer-input-signatures`, a `@tf.function(input_signature=[...])` whose signature
    can be modelled is compared with the signature the call sites imply: it is *equal*,
    *broader* (accepts more shapes than any caller passes: fine, one trace serves all),
    *tighter* (fixes an axis the callers vary: some call will be rejected) or
    *incomparable* (a dtype or a fixed size that no caller matches).

    Why it matters in graph mode
    ----------------------------
    A function with an input signature is traced once and then refuses every argument that
    does not match: a signature tighter than the callers raises a `ValueError` at the call,
    and hybridize never overwrites a signature the developer wrote.

    Example
    -------
        @tf.function(input_signature=[tf.TensorSpec([8, 4], tf.float32)])
        def f(x):
            return tf.reduce_sum(x)

        f(tf.ones((8, 4)))
        f(tf.ones((3, 4)))      # rejected: the signature fixes the batch axis at 8

    Instead
    -------
    Leave the axes that vary `None`:

        @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32)])
        def f(x):
            return tf.reduce_sum(x)

    Not for torch.compile
    ---------------------
    About tf.function's `input_signature`, which torch.compile does not have.
    """

    code = "HY013"
    unblock = "make the input_signature leave the axes that vary None"
    frameworks = TENSORFLOW_ONLY
    name = "supplied_input_signature"
    severity = "warning"
    FITS: ClassVar[str] = "fits"
    """A signature equal to or broader than the call sites need: information, not a warning."""
    variants: ClassVar[Mapping[str, Variant]] = {FITS: Variant(name, "info")}
    summary = "An existing input_signature is tighter, broader or incomparable to the call sites."
    EXAMPLE_FUNCTION = "f"
    INFER_INPUT_SIGNATURES = True

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """How a supplied signature relates to the inferred one, when there are both."""
        relation = context.signatures.relation
        if relation is None:
            return []
        return [
            cls.finding(
                f"the decorator's input_signature is {relation} than the call sites need"
                if relation in ("broader", "tighter")
                else f"the decorator's input_signature is {relation} to the call sites",
                context.function.span,
                variant=cls.FITS if relation in ("equal", "broader") else "",
            )
        ]
