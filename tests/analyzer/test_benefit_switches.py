"""Work behind a switch that makes a body return its argument first is no work
(`BenefitModel._returns_before_its_work`, `FunctionSummary.leading_return`).

`if not DEBUG: return x` with `DEBUG = False` at module level, bound nowhere else: on every
call the rest of the body, and what it calls, never runs (Python evaluates the test, takes the
branch and returns), so none of it is time a graph could save; the estimate summed every path
and rated its callers by ops that never run. A command-line flag read at every call
(tensorflow-graphics' debug assertions, behind an absl flag defined False) is no fixed value,
but a program that does not set it runs with its default: the estimate takes the default and
says so (`facts/flag_defaults.py`; the tests below the constant's).
"""

from __future__ import annotations

import pytest
from facts_helpers import verdict

CHECKED = """
    import tensorflow as tf

    DEBUG = SWITCH


    def check(x):
        \"\"\"Checks `x` when debugging.\"\"\"
        if TEST:
            return x
        x = tf.debugging.assert_all_finite(x, "not finite")
        x = tf.identity(tf.sin(x) * tf.cos(x) + tf.exp(x) * 2.0)
        x = tf.identity(tf.sin(x) * tf.cos(x) + tf.exp(x) * 2.0)
        return tf.identity(tf.sin(x) * tf.cos(x) + tf.exp(x) * 2.0)


    def step(x):
        x = check(x)
        return tf.sin(x) + 1.0

    REBIND

    for _ in range(100):
        step(tf.ones((2, 3)))
    """
"""A step of one op and an operator calling a check whose body holds ample work after a
switch's early return."""


def _source(switch: str, test: str, rebind: str = "") -> str:
    return CHECKED.replace("SWITCH", switch).replace("TEST", test).replace("REBIND", rebind)


@pytest.mark.parametrize(
    ("switch", "test", "expected"),
    [
        ("False", "not DEBUG", "low"),  # returns on every call: the step holds 2 ops
        ("True", "DEBUG", "low"),
        ("True", "not DEBUG", "high"),  # the checks run on every call
        ("False", "DEBUG", "high"),
        ("0", "not DEBUG", "low"),  # an int's truth value
    ],
)
def test_work_behind_a_fixed_switch_s_early_return_is_no_work(
    switch: str, test: str, expected: str
) -> None:
    step = verdict(_source(switch, test), "step")
    assert step.benefit == expected, step.benefit_reasons


def test_a_switch_the_program_sets_elsewhere_is_no_fixed_value() -> None:
    """`set_debug()` may turn it on before any call: both paths are possible, the work
    counts."""
    rebind = "def set_debug():\n        global DEBUG\n        DEBUG = True\n"
    step = verdict(_source("False", "not DEBUG", rebind), "step")
    assert step.benefit == "high", step.benefit_reasons


def test_the_guarded_function_says_why_it_holds_no_work() -> None:
    check = verdict(_source("False", "not DEBUG"), "check")
    assert check.benefit == "low"
    assert "first returns `x`" in check.benefit_reasons[0], check.benefit_reasons


def test_a_switch_that_is_a_parameter_is_no_fixed_value() -> None:
    """`if not validate: return x` with `validate` a parameter: the caller decides per call."""
    source = _source("False", "not validate").replace(
        "def check(x):", "def check(x, validate=False):"
    )
    step = verdict(source, "step")
    assert step.benefit == "high", step.benefit_reasons


FLAGGED = {
    "pkg/__init__.py": "",
    "pkg/flag_names.py": """
        from absl import flags

        ADD_CHECKS = "add_checks"
        flags.DEFINE_boolean(ADD_CHECKS, DEFAULT, "Checks every tensor.", short_name="checks")
        """,
    "pkg/ops.py": CHECKED.replace(
        "DEBUG = SWITCH",
        "from absl import flags\n\n    from pkg import flag_names\n\n    FLAGS = flags.FLAGS",
    )
    .replace("TEST", "not READ")
    .replace("REBIND", ""),
    "tests/test_ops.py": """
        from absl import flags

        from pkg import flag_names, ops


        def test_step():
            flags.FLAGS[flag_names.ADD_CHECKS].value = True
            ops.step(1.0)
        """,
}
"""`FLAGGED`'s check returns first unless an absl flag is on, read at every call; its tests
turn the flag on (tensorflow-graphics' `TestCase.setUp` does)."""


def _flagged(default: str, read: str) -> dict[str, str]:
    return {
        name: text.replace("DEFAULT", default).replace("READ", read)
        for name, text in FLAGGED.items()
    }


@pytest.mark.parametrize(
    ("default", "read", "expected"),
    [
        ("False", "FLAGS[flag_names.ADD_CHECKS].value", "low"),  # off by default
        ("False", 'FLAGS["add_checks"].value', "low"),
        ("False", "FLAGS.add_checks", "low"),
        ("False", "flags.FLAGS.checks", "low"),  # its short name
        ("True", "FLAGS[flag_names.ADD_CHECKS].value", "high"),  # on by default: checks run
        ("False", "FLAGS.other_flag", "high"),  # no definition in the project: not known
    ],
)
def test_a_flag_s_default_is_taken_as_the_switch_s_value(
    default: str, read: str, expected: str
) -> None:
    """A flag read at run time is no fixed value, but a program that does not set it runs
    with its default: the estimate assumes so (for benefit only), whatever the tests set."""
    step = verdict(_flagged(default, read), "pkg/ops.py::step")
    assert step.benefit == expected, step.benefit_reasons


def test_the_reason_states_the_flag_s_default_as_an_assumption() -> None:
    files = _flagged("False", "FLAGS[flag_names.ADD_CHECKS].value")
    step = verdict(files, "pkg/ops.py::step")
    assert "besides `check`'s, which first returns `x`" in step.benefit_reasons[0]
    assert "flag `add_checks` keeps its default, False (assumed" in step.benefit_reasons[0]
    check = verdict(files, "pkg/ops.py::check")
    assert (
        "first returns `x` while the command-line flag `add_checks`" in (check.benefit_reasons[0])
    ), check.benefit_reasons


def test_a_flag_defined_with_two_defaults_has_none() -> None:
    files = _flagged("False", "FLAGS.add_checks")
    files["pkg/more_flags.py"] = (
        'from absl import flags\n\nflags.DEFINE_bool("add_checks", True, "Again.")\n'
    )
    step = verdict(files, "pkg/ops.py::step")
    assert step.benefit == "high", step.benefit_reasons
