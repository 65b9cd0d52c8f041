"""HY902 internal_error: the analysis failed on this function."""

from __future__ import annotations

from . import ALL_FRAMEWORKS, Check


class InternalError(Check):
    """The analysis itself failed on this function.

    What it detects
    ---------------
    A defect of hybridize met on some code it did not expect, or a verdict that ran past its
    budget of CPU time (`hybridize/analyzer/budget.py`: 20 s, far above what any verdict takes on real
    code, so only a walk that blows up reaches it). The function is reported with unknown
    facts, no change is proposed for it, and the error is listed in the report's `errors`
    with the function's name, so the rest of the project is still analysed.

    Why it matters in graph mode
    ----------------------------
    It does not: nothing is decided about the function, so nothing about it changes. It only
    means this function was not checked.

    Example
    -------
        errors: pkg/model.py: internal error while deciding Model.call: ... (please report it)
        errors: pkg/ops.py: the analysis of conv ran past its budget of 20 s of CPU time: ...

    Instead
    -------
    Report the message and a reduced example; until then, review the function by hand.
    """

    code = "HY902"
    unblock = "report the message with a reduced example; review the function by hand meanwhile"
    name = "internal_error"
    severity = "warning"
    frameworks = ALL_FRAMEWORKS
    summary = "The analysis failed on this function; it is reported undecided and unchanged."
    VALID = ()  # an internal error cannot be provoked on purpose by a correct analysis
    INVALID = ()
