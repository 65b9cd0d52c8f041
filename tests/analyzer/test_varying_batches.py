"""Batches of a caller's data are shapes that change from call to call (issue 34, class 2).

`facts/varying_shapes.batches_of_data`: a function called per pass of a loop with a batch a
project generator cuts from the caller's parameters, or a slice of a parameter bounded by the
loop's target, takes arrays whose length follows the data -- where the batching caller runs
again and again (a call in a loop, up the calls), every call brings another last length; what
a caller builds from such a parameter and passes on varies too (tf-pwa's
`cal_angle_from_particle`, three calls below its batch loop). The rewrite writes
`reduce_retracing=True` with the evidence in its comment (HY014). Batches of one data set
from constants, a batching function run once, and loops over `range` or over the parameters
themselves are not evidence. test_benefit_batches_measured.py measures the claim on TF 2.21.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from facts_helpers import analyse, project_result

from hybridize.refactor.file_plan import plan_file

HEADER = """
import numpy as np
import tensorflow as tf

def angles(p):
    y = tf.convert_to_tensor(p)
    for _ in range(8):
        y = tf.tanh(tf.matmul(y, tf.ones((4, 4))))
        y = tf.sin(y) + tf.cos(y) * tf.exp(-y)
        y = tf.math.log1p(tf.abs(y)) + tf.square(y) - tf.sigmoid(y)
        y = tf.math.softplus(y) * tf.math.erf(y) + tf.math.atan(y)
    return tf.reduce_sum(y)

def split(data, batch):
    for start in range(0, len(data), batch):
        yield data[start:start + batch]
"""

PER_BATCH = (
    HEADER
    + """
def process(p, batch=64):
    out = []
    for chunk in split(p, batch):
        out.append(angles(chunk))
    return out

for n in range(100, 200, 20):
    process(np.random.normal(size=(n, 4)))
"""
)
"""The tf-pwa pattern: a generator of the project cuts the caller's data into batches; the
caller runs once per data set of its own size."""


def _notes(source: str, qualname: str) -> list[str]:
    return [f.message for f in analyse(source)[qualname].findings if f.code == "HY014"]


def _rewritten(source: str, qualname: str) -> str:
    result = project_result(source)
    (chosen,) = [v for v in result.functions if v.qualname == qualname]
    assert chosen.passes and chosen.benefit == "high", chosen.benefit_reasons
    plan, notices = plan_file(
        "main.py", Path("main.py"), textwrap.dedent(source).encode(), [chosen]
    )
    assert plan is not None, notices
    return plan.new_bytes().decode()


def test_a_batch_a_project_generator_cuts_from_the_callers_data_gets_reduce_retracing() -> None:
    (note,) = _notes(PER_BATCH, "angles")
    assert "`p` (`process` passes `chunk`" in note and "a batch of its own data" in note
    text = _rewritten(PER_BATCH, "angles")
    assert "@tf.function(reduce_retracing=True)\ndef angles(p):" in text
    assert "# hybridize: assumes p (process passes chunk" in text


def test_a_slice_of_the_callers_data_bounded_by_the_loop_target_is_a_batch() -> None:
    source = (
        HEADER
        + """
def process(p, batch=64):
    out = []
    for i in range(0, len(p), batch):
        out.append(angles(p[i:i + batch]))
    return out

for n in range(100, 200, 20):
    process(np.random.normal(size=(n, 4)))
"""
    )
    (note,) = _notes(source, "angles")
    assert "a slice of its own data bounded by the target of its loop" in note


def test_what_a_caller_builds_from_a_batch_parameter_varies_down_the_calls() -> None:
    """A dict built from the batch, passed on (tf-pwa's `struct_momentum` output handed to
    `cal_angle_from_particle`): the callee's parameter varies too, named with its source."""
    source = PER_BATCH.replace("angles(chunk)", "single(chunk)") + textwrap.dedent(
        """
def single(p):
    data = {"p": p, "q": p * 2.0}
    return combine(data)

def combine(data):
    y = tf.convert_to_tensor(data["p"]) + tf.convert_to_tensor(data["q"])
    for _ in range(8):
        y = tf.tanh(tf.matmul(y, tf.ones((4, 4))))
    return tf.reduce_sum(y)
"""
    )
    (note,) = _notes(source, "combine")
    assert "`data` (`single` passes it what it builds from its `p`" in note
    assert "a batch `process` cuts from its data per pass of a loop" in note


def test_batches_of_constants_are_not_evidence() -> None:
    source = (
        HEADER
        + """
def process(batch=64):
    out = []
    x = np.ones((256, 4))
    for chunk in split(x, batch):
        out.append(angles(chunk))
    for i in range(0, 256, batch):
        out.append(angles(x[i:i + batch]))
    return out

for _ in range(10):
    process()
"""
    )
    assert _notes(source, "angles") == []
    assert "@tf.function\ndef angles(p):" in _rewritten(source, "angles")


def test_a_batching_function_run_once_is_not_evidence() -> None:
    """One data set: at most two lengths (the full batch and the last), a trace each with
    the argument or without."""
    source = PER_BATCH.replace(
        "for n in range(100, 200, 20):\n    process(", "if True:\n    process("
    )
    assert _notes(source, "angles") == []


def test_counts_and_the_callers_own_items_are_not_batches() -> None:
    """A loop over `range` gives Python ints (HY201's class), a loop over a `zip` of the
    parameters gives the items the caller was given: neither is cut from the data."""
    source = (
        HEADER
        + """
def process(xs, ys):
    out = []
    for x, y in zip(xs, ys):
        out.append(angles(x) + angles(y))
    return out

for _ in range(10):
    process([np.ones((8, 4))], [np.ones((8, 4))])
"""
    )
    assert _notes(source, "angles") == []


LIGHT_ANGLES = """    for _ in range(8):
        y = tf.tanh(tf.matmul(y, tf.ones((4, 4))))
    return"""
"""The loop of `angles` with a third of its work: about 0.4 ms a call."""


def test_batches_that_do_not_repay_their_traces_are_low() -> None:
    """Per batch of data, `reduce_retracing=True` still traces twice (`CallCosts.
    generalised_traces`), each trace costing a fixed part and about `trace_ratio` eager calls
    of the body (`CallCosts.trace`): over a number of batches the code does not give, taken as
    `CallCosts.many_calls`, a light body's saving does not repay them (`low`, the class and its
    figures in words); the heavier body of `HEADER` does."""
    heavy = project_result(PER_BATCH)
    (angles,) = [v for v in heavy.functions if v.qualname == "angles"]
    assert angles.benefit == "high", angles.benefit_reasons
    loop = HEADER[HEADER.index("    for _ in range(8):") : HEADER.index("    return") + 10]
    light = project_result(PER_BATCH.replace(loop, LIGHT_ANGLES))
    (angles,) = [v for v in light.functions if v.qualname == "angles"]
    assert angles.benefit == "low", angles.benefit_reasons
    reason = angles.benefit_reasons[0]
    assert reason.startswith("it runs once per batch of data (`p`: `process` passes `chunk`")
    assert "each trace costs about" in reason and "calls' saving" in reason
    assert "the 2 traces it makes with reduce_retracing=True cost more than 50 calls save" in (
        reason
    )


def test_a_known_count_that_does_not_repay_the_trace_is_none() -> None:
    """A body just over the compiled call's overhead (five `tf.sin(x) + 1.0`: about 260 µs
    against 180), called a counted number of times (a literal bound, more than
    `CallCosts.many_calls`): its one trace costs more than 60 calls save -- `none`, the count the code's; 6000 calls
    repay it."""
    ops = "\n".join(f"    x = tf.sin(x) + {i}.0" for i in range(5))
    source = f"import tensorflow as tf\n\ndef chain(x):\n{ops}\n    return x\n\n"
    few = project_result(source + "for _ in range(60):\n    chain(tf.ones((2, 3)))\n")
    (chain,) = [v for v in few.functions if v.qualname == "chain"]
    assert chain.benefit == "none", chain.benefit_reasons
    assert chain.benefit_reasons[0].startswith("runs about 60 times per run of the program")
    assert "its one trace costs more than those calls save" in chain.benefit_reasons[0]
    many = project_result(source + "for _ in range(6000):\n    chain(tf.ones((2, 3)))\n")
    (chain,) = [v for v in many.functions if v.qualname == "chain"]
    assert chain.benefit == "high", chain.benefit_reasons
