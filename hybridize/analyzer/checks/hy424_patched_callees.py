"""HY424 calls_patched_callees: calls a function the project's tests replace with a double."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from hybridize.analyzer.checks import TENSORFLOW_ONLY, Check
from hybridize.analyzer.facts.injected_doubles import (
    DoubleCall,
    changed_double_calls,
    double_call_evidence,
    read_double_calls,
)
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
    """Calls a project function that a test replaces with a test double, or a recording
    double that a test puts into the object.

    What it detects
    ---------------
    A function that calls, itself or through a project function traced with it, a project
    function or method that a test of the project replaces: `mock.patch("pkg.mod.Class.f")`
    or `mock.patch.object(Class, "f")` (called, as a context manager or as a decorator),
    pytest-mock's `mocker.patch(...)` and `mocker.patch.object(...)`, pytest's
    `monkeypatch.setattr("pkg.mod.f", ...)` and `monkeypatch.setattr(module, "f", ...)`.
    The patched function itself is not concerned: replacing a compiled function replaces
    its graph too.

    Or a method that calls `self.a(...)` (or `self.a.m(...)`), itself or through a project
    function traced with it, where a test puts a recording double: on the attribute of an
    instance (`model.a = mock.MagicMock()`), or in the constructor's argument that `__init__`
    stores there (`self.a = original_model`; read directly or through a property returning
    it), the argument being the double or an object carrying one (`original.call =
    MagicMock(...)`: calling a Keras layer or model calls its `call`; an instance of a class
    the test defines whose method calls a mock of the test). Recording: a `unittest.mock`
    double (`Mock`, `MagicMock`, `create_autospec`, ...) whose records the test reads
    (`call_args`, `call_count`, `assert_called_with`, ...) or that has a `side_effect`, or a
    function (a lambda, a class's method) the test defines that keeps its arguments
    (`seen.append(x)`, `self.calls.append(x)`).

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

    An injected double is a Python callable too: traced, it runs only while tracing
    (measured under TF 2.21). What it records are symbolic tensors, "out of scope" when the
    test reads them or compares them (`assert_called_once_with`: TypeError); the calls the
    graph serves do not reach it (`call_count` 1 after two calls, "Called 0 times" after
    `reset_mock()`); a `side_effect` that tests a tensor with a Python `if` fails the trace
    (OperatorNotAllowedInGraphError), and a `side_effect` list gives its first value at
    every call. tensorflow-model-remediation's `MinDiffModel._compute_single_min_diff_loss`,
    whose tests put `MagicMock`s on the original model's `call`, failed 6 of them so.

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
    It does not trace into `unittest.mock`: a mock's call breaks the graph and runs with the
    real tensors at every call (records, call counts and side effects as eagerly), and a
    function that appends its arguments to a list is inlined with the append replayed on
    real tensors (measured on torch 2.13).
    """

    code = "HY424"
    frameworks = TENSORFLOW_ONLY
    name = "calls_patched_callees"
    severity = "error"
    summary = (
        "calls a project function that a test replaces with a double (mock.patch, "
        "monkeypatch.setattr), or a recording double a test puts into the object: a graph "
        "keeps the callee it traced."
    )
    unblock = "leave it eager, or patch the compiled function itself in the tests"
    fact = "calls_patched_callees"
    fact_meaning = (
        "calls a project function a test replaces with a double (`mock.patch`, "
        "`monkeypatch.setattr`), or a recording double a test puts into the object: the graph "
        "keeps the callee it traced, a double returning non-tensors fails the trace, and an "
        "injected one records symbolic tensors"
    )
    decision_order = 145
    EXAMPLE_FUNCTION = "generate"

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """The first call of a patched function in the function's trace, else the first call
        of a recording double a test injects, for a function not compiled yet (a compiled
        one already keeps its callees)."""
        if not context.changes_on_compiling:
            return []
        index, facts, key = context.index, context.facts, context.key
        return cls.findings(
            patched_callee_calls(index, facts, key) or double_call_evidence(index, facts, key)
        )

    @classmethod
    def remembered_reads(cls, facts: TensorFacts, before: object) -> object:
        """The project functions the tests patch and the methods calling a double the tests
        inject, as the verdicts kept read them."""
        kept = cast("DoubleReads | None", before)
        return DoubleReads(
            read_patches(facts, kept.patches if kept is not None else None),
            read_double_calls(facts, kept.doubles if kept is not None else None),
        )

    @classmethod
    def changed_reads(
        cls, index: ProjectIndex, facts: TensorFacts, remembered: object
    ) -> Collection[FunctionKey]:
        """A verdict kept reads the tests' patches of what it calls and the doubles they put
        into objects, which an edit of another module (a test) may add, remove or move: the
        patched functions and the methods calling a double whose entry changed."""
        kept = cast("DoubleReads | None", remembered)
        if kept is None:
            return set()
        return changed_patches(index, facts, kept.patches) | changed_double_calls(
            index, facts, kept.doubles
        )


@dataclass(frozen=True, slots=True)
class DoubleReads:
    """What HY424's verdicts read of the tests' doubles, kept between analyses: the patched
    project functions and the methods calling an injected double (None: not read yet)."""

    patches: dict[FunctionKey, Patch] | None
    doubles: dict[FunctionKey, DoubleCall] | None
