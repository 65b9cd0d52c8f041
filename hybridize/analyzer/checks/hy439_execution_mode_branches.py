"""HY439 branches_on_execution_mode: reads whether it runs eagerly, itself or in a callee."""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, cast

from hybridize.analyzer.checks.context import CheckContext
from hybridize.analyzer.facts.execution_mode import (
    WrapperReads,
    changed_wrapper_reads,
    execution_mode_reads,
    read_wrapper_reads,
)
from hybridize.model import Finding

if TYPE_CHECKING:
    from hybridize.analyzer.facts.evaluator import TensorFacts
    from hybridize.analyzer.facts.resolve import ProjectIndex
    from hybridize.analyzer.summaries.keys import FunctionKey

from . import TENSORFLOW_AND_TORCH, Check


class BranchesOnExecutionMode(Check):
    """Reads the execution mode (`tf.executing_eagerly()`), itself or in a project function
    its trace calls.

    What it detects
    ---------------
    A function that calls `tf.executing_eagerly()` (or `tf.compat.v1.executing_eagerly()`),
    `tf.inside_function()` or, under torch, `torch.compiler.is_compiling()`; or that calls a
    project function doing so, directly or through other project functions (a library's
    own `run.executing_eagerly()` wrapper); or that calls a function a project decorator
    wraps in a function that does so (the wrapper runs at every call, in the caller's
    trace: zfit's `@z.function` runs the body as is once in a graph). The finding names
    the line and the chain of calls down to the read. What the code does with the value is not compared: code reads
    the mode to do something else in one of the two cases. A function already compiled is
    not concerned (its callers already run its graph side), nor
    `tf.compat.v1.executing_eagerly_outside_functions()` (it reads the outermost context:
    True in both).

    Why it matters in graph mode
    ----------------------------
    The value is decided while tracing, for the function and for every function its trace
    calls: measured under TF 2.21, `tf.executing_eagerly()` is True in an eager call and
    False in the function and its callees under `tf.function` (`tf.inside_function()` the
    other way round), and a branch on it returns another result; Dynamo takes
    `torch.compiler.is_compiling()` as True (torch 2.13). The project's eager callers only
    ever ran the eager side of each branch; compiling the function switches every branch it
    reaches at once to code they never ran. zfit 0.28.0 branches on it in 46 places: its
    `Parameter.set_value` raises eagerly and adds an assert op in a graph, its
    `z.function` runs the body directly once in a graph, its numerical Hessian calls
    numdifftools eagerly and `tf.numpy_function` in a graph; compiling
    `BaseModel._fallback_integrate` (numerical integration through those) failed 4 of its
    tests ("None values not supported").

    Example
    -------
        def scale(x):
            if tf.executing_eagerly():
                return x * 2.0
            return x * 3.0

        def f(x):
            return scale(x) + 1.0

    Instead
    -------
    Leave it eager, or compile the code it calls on the graph side of its branches, where
    the project itself chooses to build graphs.

    torch.compile
    -------------
    `torch.compiler.is_compiling()` is the same switch: True while Dynamo traces the function
    and what it inlines (measured on torch 2.13), so the compiled code takes the other side.
    """

    code = "HY439"
    frameworks = TENSORFLOW_AND_TORCH
    name = "branches_on_execution_mode"
    severity = "error"
    summary = (
        "reads whether it runs eagerly (`tf.executing_eagerly()`, `tf.inside_function()`, "
        "`torch.compiler.is_compiling()`), itself or in a project function it calls: "
        "compiled, every branch on it takes the side its eager callers never ran."
    )
    unblock = "leave it eager: its eager callers rely on the eager side of its branches"
    fact = "branches_on_execution_mode"
    fact_meaning = (
        "reads the execution mode (`tf.executing_eagerly()`, `tf.inside_function()`, "
        "`torch.compiler.is_compiling()`), itself or in a project function its trace calls: "
        "decided at trace time, every branch on it switches to its compiled side"
    )
    decision_order = 156
    EXAMPLE_FUNCTION = "f"

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """In the function or in a project function traced with it, for a function not
        compiled yet."""
        if not context.changes_on_compiling:
            return []
        return cls.findings(execution_mode_reads(context.index, context.facts, context.key))

    @classmethod
    def remembered_reads(cls, facts: TensorFacts, before: object) -> object:
        """What the decorators' wrappers of the decorated functions read, as the verdicts
        kept read it."""
        return read_wrapper_reads(facts, cast("WrapperReads | None", before))

    @classmethod
    def changed_reads(
        cls, index: ProjectIndex, facts: TensorFacts, remembered: object
    ) -> Collection[FunctionKey]:
        """An edit of a decorator's module (another than the decorated function's) may make
        or unmake a read in its wrapper: the decorated functions whose wrappers' reads
        changed."""
        return changed_wrapper_reads(index, facts, cast("WrapperReads | None", remembered))
