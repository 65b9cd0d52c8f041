"""HY413 reads_received_gradient_tapes: the function reads a GradientTape its caller recorded."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hybridize.analyzer.checks import TENSORFLOW_ONLY, Check
from hybridize.analyzer.facts.values import Atom, obj_atom
from hybridize.analyzer.summaries.syms import is_attr
from hybridize.model import Finding

if TYPE_CHECKING:
    from hybridize.analyzer.checks.context import CheckContext

TAPE: Atom = obj_atom("tape", None)
"""The value of a `tf.GradientTape` (`values.PYTHON_ROLE_ATOMS`)."""


class ReadsReceivedGradientTapes(Check):
    """Takes a gradient from (or otherwise uses) a GradientTape that a caller passes in.

    What it detects
    ---------------
    A method call (`tape.gradient(...)`, `tape.jacobian(...)`, `tape.watch(...)`...) on a
    parameter, or a local that is one, that a caller fills with a `tf.GradientTape`: the tape
    was opened, and recorded the forward pass, outside the function.

    Why it matters in graph mode
    ----------------------------
    A tape records the operations that run while it is open. Traced, the function receives
    the loss as a placeholder of its graph, an input the caller's tape never recorded, and the
    gradient between the placeholder and the variables does not exist: `tape.gradient`
    returns None, or zeros with `unconnected_gradients=tf.UnconnectedGradients.ZERO` — the
    training silently stops learning (measured under TF 2.21: eagerly `[2., 4.]`, traced
    `[0., 0.]` / `None`; tests/analyzer/test_hy413_received_tape.py measures it again).

    Example
    -------
        def apply_grads(tape, loss):
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))

        with tf.GradientTape() as tape:
            loss = compute_loss(model(x), y)
        apply_grads(tape, loss)

    Instead
    -------
    Open the tape inside the function that is compiled, around the forward pass (compile the
    whole training step), or take the gradient in the caller and pass the gradients in.

    Not for torch.compile
    ---------------------
    PyTorch has no tape object: autograd records on the tensors themselves.
    """

    code = "HY413"
    frameworks = TENSORFLOW_ONLY
    name = "reads_received_gradient_tapes"
    severity = "error"
    summary = (
        "takes a gradient from a GradientTape its caller recorded: traced, the gradient is "
        "None (or zeros), silently."
    )
    unblock = "open the tape inside the compiled function, or pass the gradients in"
    fact = "reads_received_gradient_tapes"
    fact_meaning = (
        "a method of a `GradientTape` the caller recorded (traced, its gradient is None or zeros)"
    )
    decision_order = 130
    EXAMPLE_FUNCTION = "f"

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """Each method call on a tape parameter, for a function that is not compiled yet (a
        compiled one received the tape as a Python object at its trace: already the case)."""
        if not context.changes_on_compiling:
            return []
        scan = context.scan
        evidence = context.facts.param_atoms.get(context.key, {})
        tapes = {name for name, atoms in evidence.items() if TAPE in atoms}
        if not tapes:
            return []
        found: list[Finding] = []
        for site in scan.fn.calls:
            callee = site.callee
            if not is_attr(callee):
                continue
            parameter = scan.parameter_behind(callee[1])
            if parameter in tapes:
                found.append(
                    cls.finding(
                        f"calls `{parameter}.{callee[2]}()`: `{parameter}` is a GradientTape "
                        "its caller recorded; traced, the caller's operations are not on it and "
                        "the gradient is None (or zeros)",
                        site.span,
                    )
                )
        return found
