"""HY436 receives_unread_variables: a caller passes what a variable's `assign` gives."""

from __future__ import annotations

from hybridize.analyzer.checks.context import CheckContext
from hybridize.analyzer.facts.callgraph import call_sites, calls_by_result, variable_update_in
from hybridize.analyzer.facts.evaluator import ResolvedCall
from hybridize.analyzer.summaries.ir import Sym
from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.model import Finding

from . import TENSORFLOW_ONLY, Check


class ReceivesUnreadVariables(Check):
    """Receives the result of a variable's `assign`, `assign_add` or `assign_sub` as it is.

    What it detects
    ---------------
    A call of the function, from code that does not run as a graph the caller traces itself
    (eager code, a `tf.cond` or `tf.while_loop` branch, a `tf.CriticalSection.execute`
    body), that passes as an argument, directly or through a local, what a variable's
    `assign`, `assign_add` or `assign_sub` returns.

    Why it matters in graph mode
    ----------------------------
    Those methods return an unread variable (`_UnreadVariable`), whose reads depend on the
    update op. A tf.function traced with one reads it in its own graph under a control
    dependency on that op, which the function graph drops as belonging to another graph, and
    tracing fails: `TypeError: Can not convert a NoneType into a Tensor or Operation`
    (measured under TF 2.21, tests/analyzer/test_hy436_unread_variables.py measures it
    again: eagerly, in a `tf.cond` or `tf.while_loop` branch and in a critical section; a
    caller that is itself a tf.function traces it, and `tf.identity(v.assign_add(1))` or
    `.read_value()` passes a tensor). tf-agents' episodic replay buffer passes
    `self._last_episode.assign_add(1)` to a helper inside a critical section.

    Example
    -------
        counter = tf.Variable(0, dtype=tf.int64)

        def f(episode_id):
            return tf.math.mod(episode_id, 10)

        f(counter.assign_add(1))

    Instead
    -------
    Pass a tensor: `f(counter.assign_add(1).read_value())` or `f(tf.identity(...))`, or
    compile the caller too.

    Not for torch.compile
    ---------------------
    PyTorch's in-place updates return the tensor itself; there are no unread variables.
    """

    code = "HY436"
    frameworks = TENSORFLOW_ONLY
    name = "receives_unread_variables"
    severity = "error"
    summary = (
        "a caller passes what a variable's `assign`/`assign_add`/`assign_sub` gives (an "
        "unread variable): traced with it, the function fails to read it."
    )
    unblock = "pass `.read_value()` or `tf.identity(...)` of the update, or compile the caller"
    fact = "receives_unread_variables"
    fact_meaning = (
        "a caller passes what a variable's `assign` gives (an unread variable), which a "
        "tf.function traced with it fails to read"
    )
    decision_order = 131
    EXAMPLE_FUNCTION = "f"

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """The first call site passing an unread variable, from a caller not traced."""
        if not context.changes_on_compiling:
            return []
        methods = context.framework.unread_variable_results
        if not methods:
            return []
        project = context.project
        # A caller calling the function at several sites has its calls indexed once.
        by_caller: dict[FunctionKey, dict[Sym, ResolvedCall]] = {}
        for caller, caller_fn, resolved, _ in call_sites(context.index, context.facts, context.key):
            if caller in project.traced:
                continue
            calls = by_caller.get(caller)
            if calls is None:
                calls = by_caller[caller] = calls_by_result(context.facts, caller)
            site = resolved.site
            arguments = [*site.args, *(value for _, value in site.kwargs)]
            method = variable_update_in(caller_fn, calls, arguments, methods)
            if method is not None:
                return [
                    cls.finding(
                        f"`{caller.qualname}` passes it what `{method.rsplit('.', 1)[-1]}()` "
                        "gives, an unread variable: traced with it, reading it fails "
                        "(TypeError: Can not convert a NoneType into a Tensor or Operation)",
                        context.function.span,
                    )
                ]
        return []
