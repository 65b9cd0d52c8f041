"""HY014 varying_shapes: the decorator added generalises shapes that change from call to call."""

from __future__ import annotations

from collections.abc import Sequence

from hybridize.analyzer.checks.context import CheckContext
from hybridize.analyzer.facts.varying_shapes import (
    VaryingShape,
    shape_read_as_int,
    varying_shapes,
)
from hybridize.model import Finding, FunctionVerdict

from . import TENSORFLOW_AND_TORCH, Check


class VaryingShapes(Check):
    """Its tensors change shape from call to call: the decorator added generalises shapes.

    What it detects
    ---------------
    A function that may be compiled and is not yet, one of whose parameters receives tensors
    whose static shapes change between calls: call sites pass different shapes (`[8, 32]`
    here, `[3, 32]` there), or a call inside a loop passes a local that the loop grows from
    itself (`cache = tf.concat([cache, step], axis=1)`: a decoding cache one token longer at
    every step) or rebinds to a value of data-dependent size, or passes a batch of its own
    data (a batch a project generator cuts from a parameter, `for chunk in split(p, 64)`, or
    `p[i:i + 64]` bounded by the loop's target) where that caller runs again and again, each
    time with data of another size -- and so down the calls that pass on what they build from
    such a batch (tf-pwa's `cal_angle_from_particle`: a trace per batch, 5 traces in 5
    batches, 20x slower plain; 2 with the argument) (`facts/varying_shapes.py`). It
    is information, on a verdict that adds the decorator (elsewhere nothing is written): the
    refactoring adds it with the argument that generalises shapes, `@tf.function(reduce_retracing=True)` or `@torch.compile(dynamic=True)`, and says
    why in the comment above it (unless it writes an inferred `input_signature`, whose `None`
    axes already do that). Not where the trace would need what the argument leaves unknown:
    a varying axis read as a Python int (`x.shape[0]`, `len(x)`), or, where the call sites'
    ranks differ, the rank (`x.shape.ndims`, `x.shape.dims`, `x.shape.as_list()`), or the
    whole static shape compared or tested (`if x.shape == (0,)`, `x.shape.num_elements()`,
    `x.shape.is_fully_defined()`), here or in a function it calls; generalised over (3,)
    and (3, 3) the rank is unknown and a check such as `if dims is None: raise` fails, and
    generalised over (1,) and (2,) `x.shape == (0,)` is False for an empty `x` too (seqio's
    `Vocabulary.decode_tf` then runs its general path on no ids and fails; measured, TF
    2.21, tests/analyzer/test_seqio_rules_measured.py).

    Why it matters in graph mode
    ----------------------------
    A plain `tf.function` traces a new graph for every new input shape: 12 lengths, 12
    traces, each costing far more than the eager call (retracing class 2 of issue 34). With
    `reduce_retracing=True` the second shape traces a graph with the varying axes left
    `None`, which serves every later shape (measured, TF 2.21: 2 traces for the same 12
    lengths). A plain `torch.compile` recompiles at the first new shape, then makes sizes
    symbolic; `dynamic=True` does so from the first call (torch 2.13: 2 frames plain, 1 with
    `dynamic=True`). tests/analyzer/test_benefit_rules_measured.py measures both again.
    The argument's traces still cost (each about 12 eager calls of the body and 5 ms, the
    retrace as long as the first: `CallCosts.trace`): where the calls that share them save
    less -- per batch of data, over a number of batches the code does not give (taken as
    50) -- the change is rated `low`, with the figures (`decisions/benefit.py`).

    Example
    -------
        def attend(query, cache):  # expect: HY014
            return tf.nn.softmax(tf.matmul(query, cache, transpose_b=True))

        cache = tf.zeros([1, 0, 64])
        for step in range(max_length):
            cache = tf.concat([cache, embed(step)], axis=1)
            attend(query, cache)

    Instead
    -------
    Nothing to do: the refactoring writes

        # hybridize: assumes `cache` takes shapes that change from call to call (...), hence
        # reduce_retracing=True; ...
        @tf.function(reduce_retracing=True)
        def attend(query, cache):
            ...

    (or give it an `input_signature` with `None` on the axes that vary).

    Under torch.compile
    -------------------
    The same evidence; the argument written is `dynamic=True`.
    """

    code = "HY014"
    frameworks = TENSORFLOW_AND_TORCH
    name = "varying_shapes"
    severity = "info"
    summary = (
        "Its tensors change shape from call to call: the decorator added generalises shapes "
        "(reduce_retracing=True, dynamic=True)."
    )
    unblock = "nothing: the refactoring writes the shape-generalising argument"
    about_addition = True
    EXAMPLE_FUNCTION = "f"

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """One finding on the `def` naming every such parameter and its evidence, for a
        function that may be compiled and is not yet, where its framework has the argument."""
        argument = context.framework.shape_generalising_argument
        if argument is None or not context.changes_on_compiling:
            return []
        found = varying_shapes(context.index, context.facts, context.key)
        if not found or shape_read_as_int(context.index, context.facts, context.key):
            return []
        return [cls.finding(argument_note(found, argument), context.function.span)]

    @classmethod
    def note_of(cls, verdict: FunctionVerdict) -> str | None:
        """What a verdict says of tensors whose shapes change from call to call: this
        check's finding, whose message the comment above the decorator repeats; None when
        it has none (the refactoring then writes no shape-generalising argument)."""
        return next((f.message for f in verdict.findings if f.code == cls.code), None)


def argument_note(found: Sequence[VaryingShape], argument: str) -> str:
    """The finding's message, which the refactoring's comment repeats: what is assumed, and
    the argument written for it."""
    parts = " and ".join(f"`{v.parameter}` ({v.evidence})" for v in found)
    verb = "takes" if len(found) == 1 else "take"
    return f"assumes {parts} {verb} shapes that change from call to call, hence {argument}=True"
