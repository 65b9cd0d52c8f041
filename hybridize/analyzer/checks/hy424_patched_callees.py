"""HY424 calls_patched_callees: calls a function the project's tests replace with a double."""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, cast

from hybridize.analyzer.checks import TENSORFLOW_ONLY, Check
from hybridize.analyzer.facts.patched_callees import (
    Patch,
    changed_patches,
    patched_callee_calls,
    read_patches,
)
from hybridize.model import Finding

if TYPE_CHECKING:
    from hybridize.analyzer.checks.context import CheckContext
    from hybridize.analyzer.facts.evaluator import TensorFacts
    from hybridize.analyzer.facts.resolve import ProjectIndex
    from hybridize.analyzer.summaries.keys import FunctionKey


class CallsPatchedCallees(Check):
    """Calls a project function that a test replaces with a test double.

    What it detects
    ---------------
    A function that calls, itself or through a project function traced with it, a project
    function or method that a test of the project replaces: `mock.patch("pkg.mod.Class.f")`
    or `mock.patch.object(Class, "f")` (called, as a context manager or as a decorator),
    pytest-mock's `mocker.patch(...)` and `mocker.patch.object(...)`, pytest's
    `monkeypatch.setattr("pkg.mod.f", ...)` and `monkeypatch.setattr(module, "f", ...)`.
    The patched function itself is not concerned: replacing a compiled function replaces
    its graph too.

    Why it matters in graph mode
    ----------------------------
    Eagerly each call looks the callee up again and meets the double while the patch is
    active. `tf.function` looks it up once, while tracing, and the graph keeps what the
    callee did then (measured under TF 2.21): a patch applied after the first trace is not
    seen, the graph computing with the real callee (2.0 where the eager call gives the
    double's 100.0); a patch active during a trace stays in the graph after it ends; and a
    double that returns `mock.sentinel`s or other non-tensor objects fails the trace
    (`TypeError: To be compatible with tf.function, Python functions must return zero or
    more Tensors`). The tests that patch a callee are written for eager code.

    Example
    -------
        class GradCAM:
            @staticmethod
            def ponderate(output, grad):
                return tf.reduce_sum(output * tf.reduce_mean(grad, axis=(0, 1)), axis=-1)

            @staticmethod
            def generate(outputs, grads):
                return [GradCAM.ponderate(o, g) for o, g in zip(outputs, grads)]

        def test_generate(mocker):
            mocker.patch("cam.GradCAM.ponderate", side_effect=[mocker.sentinel.one])
            assert GradCAM.generate([mocker.sentinel.o], [mocker.sentinel.g]) == [
                mocker.sentinel.one
            ]

    Instead
    -------
    Leave the function eager while its tests replace what it calls, or have the tests patch
    the compiled function itself (a double for the whole graph):

        mocker.patch("cam.GradCAM.generate", return_value=[mocker.sentinel.one])

    Not for torch.compile
    ---------------------
    Dynamo guards on the identity of the functions it inlined: a patched callee fails the
    guard and the frame recompiles with the double (or runs eagerly), as the eager code does.
    """

    code = "HY424"
    frameworks = TENSORFLOW_ONLY
    name = "calls_patched_callees"
    severity = "error"
    summary = (
        "calls a project function that a test replaces with a double (mock.patch, "
        "monkeypatch.setattr): a graph keeps the callee it traced."
    )
    unblock = "leave it eager, or patch the compiled function itself in the tests"
    fact = "calls_patched_callees"
    fact_meaning = (
        "calls a project function a test replaces with a double (`mock.patch`, "
        "`monkeypatch.setattr`): the graph keeps the callee it traced, and a double returning "
        "non-tensors fails the trace"
    )
    decision_order = 145
    EXAMPLE_FUNCTION = "generate"

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """The first call of a patched function in the function's trace, for a function not
        compiled yet (a compiled one already keeps its callees)."""
        if not context.changes_on_compiling:
            return []
        return cls.findings(patched_callee_calls(context.index, context.facts, context.key))

    @classmethod
    def remembered_reads(cls, facts: TensorFacts, before: object) -> object:
        """The project functions the tests patch, as the verdicts kept read them."""
        return read_patches(facts, cast("dict[FunctionKey, Patch] | None", before))

    @classmethod
    def changed_reads(
        cls, index: ProjectIndex, facts: TensorFacts, remembered: object
    ) -> Collection[FunctionKey]:
        """A verdict kept reads the tests' patches of what it calls, which an edit of another
        module (a test) may add, remove or move: the patched functions that changed."""
        return changed_patches(index, facts, cast("dict[FunctionKey, Patch] | None", remembered))
