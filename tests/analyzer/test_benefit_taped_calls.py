"""Two work/overhead rules of the benefit estimate from TensorFlow's semantics (issue #34,
class 6, "too little work", on held-out tensorflow-graphics):

- a function whose calls the project records on a gradient tape (`facts/taped_calls.py`) is
  rated against the taped call's overhead (`CallCosts.taped_call`): a tape records a
  `tf.function` call with a forward function that also outputs what its backward needs;
- a function handed to `tf.while_loop` (`Framework.eager_loop_callback_calls`) runs once per
  iteration of a Python loop eagerly: its work counts as a loop's (`LOOP_WORK_FACTOR`).

The figures these rely on are measured again in `test_benefit_rules_measured.py`. Each
program's function holds between PAYBACK times the untaped overhead and PAYBACK times the
taped one (`BETWEEN`), so where the tape is seen it no longer pays, and elsewhere it does.
"""

from __future__ import annotations

import math

from facts_helpers import verdict

from hybridize.analyzer.decisions.benefit import LOOP_WORK_FACTOR, PAYBACK
from hybridize.analyzer.frameworks.call_costs import TENSORFLOW_CALL_COSTS

_COSTS = TENSORFLOW_CALL_COSTS
_LINE = _COSTS.elementwise + _COSTS.python_operand
"""The eager time of one line `x = tf.sin(x) + 1.0` (an elementwise op and an operator with
a Python number)."""
_BODY_LINE = 2 * _COSTS.elementwise + _COSTS.python_operand
"""The eager time of one line `x = tf.sin(x) * y + 1.0`."""
_OVERHEAD = _COSTS.compiled_overhead(2)
BETWEEN = math.ceil(PAYBACK * _OVERHEAD / _BODY_LINE)
"""Lines whose work pays against the untaped overhead of a function of two arguments, and
(asserted below) not against the taped one."""


def _body(lines: int) -> str:
    return "\n".join(["    x = tf.sin(x) * y + 1.0"] * lines)


def _program(step: str, lines: int = BETWEEN) -> str:
    return (
        "import tensorflow as tf\n\n\n"
        f"def normalization(x, y):\n{_body(lines)}\n    return x\n\n\n"
        f"{step}\n\n"
        "for _ in range(1000):\n    step(tf.ones((3, 3)), tf.ones((3, 3)))\n"
    )


TAPED = """def step(x, y):
    print("step")
    with tf.GradientTape() as tape:
        tape.watch(x)
        out = normalization(x, y) * 2.0
    return tape.gradient(out, x)"""
"""The function computes the differentiated value from the watched tensor (the step prints:
not compiled itself, its callee runs eagerly)."""


def test_the_figures_put_the_function_between_the_two_overheads() -> None:
    work = BETWEEN * _BODY_LINE
    assert work >= PAYBACK * _OVERHEAD
    assert work < PAYBACK * (_OVERHEAD + _COSTS.taped_call)


def test_a_function_recorded_on_a_tape_is_rated_against_the_taped_overhead() -> None:
    v = verdict(_program(TAPED), "normalization")
    assert v.benefit == "low", v.benefit_reasons
    assert "recorded on a gradient tape" in v.benefit_reasons[0]
    assert "`step` differentiates it with `GradientTape.gradient`" in v.benefit_reasons[0]


def test_untaped_calls_of_the_same_function_pay() -> None:
    untaped = 'def step(x, y):\n    print("step")\n    return normalization(x, y) * 2.0'
    v = verdict(_program(untaped), "normalization")
    assert v.benefit == "high", v.benefit_reasons


def test_a_function_called_on_values_the_tape_does_not_watch_is_not_recorded() -> None:
    """A tape records an op only when one of its inputs is watched: called on a constant and
    on a tensor's dtype, the function's call is not recorded, though its result flows into
    the differentiated value."""
    constants = TAPED.replace(
        "normalization(x, y) * 2.0", "normalization(tf.ones((3, 3)), tf.cast(y, x.dtype)) * x"
    )
    v = verdict(_program(constants), "normalization")
    assert v.benefit == "high", v.benefit_reasons


def test_a_shape_of_a_watched_tensor_is_not_watched() -> None:
    shaped = TAPED.replace("normalization(x, y)", "normalization(tf.cast(tf.shape(x), y.dtype), y)")
    v = verdict(_program(shaped), "normalization")
    assert v.benefit == "high", v.benefit_reasons


def test_the_tape_records_the_callees_a_recorded_function_passes_watched_values() -> None:
    """A recorded function's callee taking a value computed from a watched parameter is
    recorded too; one taking only its other parameter is not."""
    source = _program(TAPED).replace(
        "def step(x, y):",
        'def outer(x, y, c):\n    print("outer")\n    return normalization(x, c) + normalization2(c, c)\n\n\n'
        "def normalization2(x, y):\n" + _body(BETWEEN) + "\n    return x\n\n\n"
        "def step(x, y):",
    )
    source = source.replace("out = normalization(x, y) * 2.0", "out = outer(x, y, tf.ones((3, 3)))")
    source = source.replace(
        "    step(tf.ones((3, 3)), tf.ones((3, 3)))",
        ("    step(tf.ones((3, 3)), tf.ones((3, 3)))\n    normalization2(tf.ones((3, 3)), 1.0)"),
    )
    assert verdict(source, "normalization").benefit == "low"
    assert verdict(source, "normalization2").benefit == "high"


def test_a_function_a_helper_hands_to_compute_gradient_is_recorded() -> None:
    """`tf.test.compute_gradient(f, x)` differentiates `f` under a tape of its own, watching
    its arguments; handed through a helper's parameter (a library's Jacobian test helper), the
    callers' functions are what it differentiates."""
    helper = (
        "def check(f, x, y):\n    return tf.test.compute_gradient(f, [x, y])\n\n\n"
        'def step(x, y):\n    print("step")\n    return normalization(x, y)\n\n\n'
        "check(normalization, tf.ones((3, 3)), tf.ones((3, 3)))"
    )
    v = verdict(_program(helper), "normalization")
    assert v.benefit == "low", v.benefit_reasons
    assert "`check` differentiates it with `tf.test.compute_gradient`" in v.benefit_reasons[0]


LOOP = """
import tensorflow as tf


def body(i, x):
    x = tf.sin(x) + 1.0
    x = tf.sin(x) + 1.0
    return i + 1, x


def cond(i, x):
    return i < 5


def looped(x):
    return tf.while_loop(cond, body, (0, x))


for _ in range(1000):
    looped(tf.ones((3, 3)))
"""
"""A loop whose body holds two lines: more than the overhead only when run repeatedly."""


def test_a_while_loop_body_counts_as_a_loop_s_work_eagerly() -> None:
    """Counted once, the body's work and the loop's own call are less than PAYBACK times the
    overhead of a call of one argument; counted as a loop's, more."""
    body_work = 2 * _LINE + _COSTS.python_operand
    once = body_work + _COSTS.op + _COSTS.python_operand
    assert once < PAYBACK * _COSTS.compiled_overhead(1)
    assert LOOP_WORK_FACTOR * body_work >= PAYBACK * _COSTS.compiled_overhead(1)
    looped = verdict(LOOP, "looped")
    assert looped.benefit == "high", looped.benefit_reasons


def test_a_project_helper_named_like_an_unrecorded_op_is_recorded() -> None:
    """What a tape does not record is read from the resolved call (`tf.shape`, a framework
    op), not from the name written: a project method named `size` computing from the
    watched tensor passes it on, and the function called on its result is recorded."""
    helper = (
        "class Ops:\n    def size(self, x):\n        return x * 2.0\n\n\nOPS = Ops()\n\n\n" + TAPED
    ).replace("normalization(x, y) * 2.0", "normalization(OPS.size(x), y) * 2.0")
    v = verdict(_program(helper), "normalization")
    assert v.benefit == "low", v.benefit_reasons
    assert "recorded on a gradient tape" in v.benefit_reasons[0]
    framework_op = helper.replace("OPS.size(x)", "tf.cast(tf.size(x), y.dtype)")
    assert verdict(_program(framework_op), "normalization").benefit == "high"
