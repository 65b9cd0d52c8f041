"""Retracing classes 2 and 5 of issue 34, from the analysis to the rewrite.

Class 2, shapes that change from call to call: the rewrite still adds the decorator, with the
argument that generalises shapes (`@tf.function(reduce_retracing=True)`,
`@torch.compile(dynamic=True)`) and the assumption in the comment above it; an inferred
input_signature, whose None axes already generalise, is written instead. Class 5, wrapping a
function already compiled with a flexible signature: `tf.function` around it would trace per
input length, so the benefit is none with the reason; not under `torch.compile`, whose outer
compile makes shapes dynamic after one recompilation. The frameworks' behaviour behind both is
measured in test_benefit_rules_measured.py.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from facts_helpers import analyse, project_result

from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.model import FunctionVerdict
from hybridize.refactor.file_plan import plan_file

TWO_SHAPES = {
    "tf": """
        import tensorflow as tf

        def f(x):
            y = x
            for _ in range(8):
                y = tf.tanh(tf.matmul(y, tf.ones((4, 4))))
            return tf.reduce_sum(y)

        for _ in range(100):
            f(tf.ones((8, 4)))
            f(tf.ones((3, 4)))
    """,
    "torch": """
        import torch

        def f(x):
            y = x
            for _ in range(8):
                y = torch.tanh(torch.mm(y, torch.ones(4, 4)))
                y = torch.sigmoid(y) * 2.0 + torch.exp(-y)
                y = torch.sin(y) + torch.cos(y)
            return y.sum()

        while True:  # unbounded: the compile is repaid (`CallCosts.trace`)
            f(torch.ones(8, 4))
            f(torch.ones(3, 4))
    """,
}
"""A function of enough work called with two shapes of its parameter, by framework."""


def _rewritten(source: str, qualname: str, *, infer: bool = False) -> str:
    """The module's text after the default refactoring of `qualname` (benefit high)."""
    result = project_result(source, infer_input_signatures=infer)
    (chosen,) = [v for v in result.functions if v.qualname == qualname]
    assert chosen.passes and chosen.benefit == "high", chosen.benefit_reasons
    raw = textwrap.dedent(source).encode()
    plan, notices = plan_file("main.py", Path("main.py"), raw, [chosen])
    assert plan is not None, notices
    return plan.new_bytes().decode()


def test_tensorflow_shapes_changing_per_call_get_reduce_retracing_with_the_assumption() -> None:
    text = _rewritten(TWO_SHAPES["tf"], "f")
    assert "@tf.function(reduce_retracing=True)\ndef f(x):" in text
    comment = text.splitlines()[text.splitlines().index("@tf.function(reduce_retracing=True)") - 1]
    assert comment.startswith("# hybridize: assumes x (call sites pass shapes (3, 4) and (8, 4))")
    assert comment.endswith("hence reduce_retracing=True; remove the argument if not")


def test_torch_shapes_changing_per_call_get_dynamic_true() -> None:
    text = _rewritten(TWO_SHAPES["torch"], "f")
    assert "@torch.compile(dynamic=True)\ndef f(x):" in text
    assert "hence dynamic=True" in text


def test_an_inferred_input_signature_is_written_instead_of_reduce_retracing() -> None:
    text = _rewritten(TWO_SHAPES["tf"], "f", infer=True)
    assert "input_signature=" in text and "reduce_retracing" not in text


def test_a_growing_decoding_cache_is_a_shape_changing_per_call() -> None:
    """A call in a loop passing a local that the loop grows from itself (`tf.concat`)."""
    source = """
        import tensorflow as tf

        def attend(query, cache):
            scores = tf.matmul(query, cache, transpose_b=True)
            return tf.matmul(tf.nn.softmax(scores), cache)

        def decode(query, steps):
            cache = tf.zeros((1, 1, 16))
            for _ in range(steps):
                step = attend(query, cache)
                cache = tf.concat([cache, step], axis=1)
            return cache
    """
    found = analyse(source)["attend"]
    (note,) = [f.message for f in found.findings if f.code == "HY014"]
    assert "`decode` passes `cache`, which `tf.concat` grows at every pass of its loop" in note
    assert "`query`" not in note, "query is the same tensor at every pass"


def test_one_shape_at_every_call_writes_no_argument() -> None:
    source = TWO_SHAPES["tf"].replace("f(tf.ones((3, 4)))", "f(tf.ones((8, 4)))")
    verdict: FunctionVerdict = analyse(source)["f"]
    assert not [f for f in verdict.findings if f.code == "HY014"]
    assert "@tf.function\ndef f(x):" in _rewritten(source, "f")


READS_ITS_ROWS = {
    "tf": """
        import tensorflow as tf

        def rows(x):
            total = tf.zeros((4,))
            for i in range({read}):
                total = total + tf.tanh(tf.matmul(x[i:i + 1], tf.ones((4, 4))))[0]
            return total

        def helper(x):
            return tf.zeros(({read}, 4))

        def via_helper(x):
            y = x + helper(x)
            for _ in range(8):
                y = tf.tanh(tf.matmul(y, tf.ones((4, 4))))
            return tf.reduce_sum(y)

        for _ in range(100):
            rows(tf.ones((8, 4)))
            rows(tf.ones((3, 4)))
            via_helper(tf.ones((8, 4)))
            via_helper(tf.ones((3, 4)))
    """,
    "torch": """
        import torch

        def rows(x):
            total = torch.zeros(4)
            for i in range({read}):
                total = total + torch.tanh(torch.mm(x[i:i + 1], torch.ones(4, 4)))[0]
            return total

        for _ in range(100):
            rows(torch.ones(8, 4))
            rows(torch.ones(3, 4))
    """,
}
"""Functions whose tensors change shape per call and that read the varying axis as an int,
themselves (`rows`) or in a function they call (`via_helper`)."""


def test_a_varying_axis_read_as_an_int_gets_no_argument_and_is_not_proposed() -> None:
    """`reduce_retracing=True` would leave the axis None in the trace (TypeError in
    `range`), `dynamic=True` recompiles per size anyway (both measured in
    test_benefit_rules_measured.py): no argument, and a plain decorator retracing per shape
    is not proposed by default."""
    for framework, source in READS_ITS_ROWS.items():
        for read in ("x.shape[0]", "len(x)", "x.shape[1:][0]"):
            verdicts = analyse(source.replace("{read}", read))
            names = ["rows", "via_helper"] if framework == "tf" else ["rows"]
            for name in names:
                verdict = verdicts[name]
                assert verdict.passes, (framework, read, name, verdict.findings)
                assert not [f for f in verdict.findings if f.code == "HY014"], (framework, read)
                assert verdict.benefit == "low", (framework, read, name, verdict.benefit_reasons)
                assert "shapes that change from call to call" in verdict.benefit_reasons[0]
                assert "Python ints" in verdict.benefit_reasons[0]


WRAPPER = """
    import {module}

    @{decorator}
    def encode(x):
        y = x
        for _ in range(40):
            y = {lib}.tanh({lib}.matmul(y, {lib}.ones((4, 4))))
        return y

    def step(x):
        h = encode(x)
        for _ in range(40):
            h = {lib}.tanh({lib}.matmul(h, {lib}.ones((4, 4))))
        return h

    for n in range(1, 100):
        step({lib}.ones((n, 4)))
"""


def test_wrapping_a_tf_function_with_reduce_retracing_is_declined_naming_the_class() -> None:
    for decorator in (
        "tf.function(reduce_retracing=True)",
        "tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32)])",
    ):
        source = WRAPPER.format(module="tensorflow as tf", decorator=decorator, lib="tf")
        step = analyse(source)["step"]
        assert step.passes and step.benefit == "none"
        (reason,) = step.benefit_reasons
        assert "already compiled with a flexible signature" in reason
        assert "wrapping a flexibly compiled function" in reason


def test_wrapping_a_plain_tf_function_is_not_declined_for_it() -> None:
    source = WRAPPER.format(module="tensorflow as tf", decorator="tf.function", lib="tf")
    step = analyse(source)["step"]
    assert not any("flexible signature" in r for r in step.benefit_reasons)


def test_wrapping_torch_compile_dynamic_is_not_declined() -> None:
    """Under torch.compile the outer compile recompiles once, then goes dynamic (measured)."""
    source = WRAPPER.format(
        module="torch", decorator="torch.compile(dynamic=True)", lib="torch"
    ).replace("matmul", "mm")
    step = analyse(source)["step"]
    assert not any("flexible signature" in r for r in step.benefit_reasons)


def test_the_proposal_names_the_decorator_as_the_rewrite_writes_it() -> None:
    """`analyze` says what `refactor` writes: HY010 names the argument too."""
    found = analyse(TWO_SHAPES["tf"])["f"]
    (proposal,) = [f.message for f in found.findings if f.code == "HY010"]
    assert proposal == "can run as a graph: add @tf.function(reduce_retracing=True)"


def test_a_function_that_is_not_changed_gets_no_argument_finding() -> None:
    """HY014 is about the decorator added: a verdict that adds none keeps no such finding."""
    source = TWO_SHAPES["tf"].replace("return tf.reduce_sum(y)", "print(y)\n            return y")
    found = analyse(source)["f"]
    assert not found.passes
    assert not [f for f in found.findings if f.code == "HY014"]


def test_an_axis_read_as_an_int_that_stays_the_same_keeps_the_argument() -> None:
    """`reduce_retracing=True` leaves only the axes that differ None (8 and 3 rows, 4 columns
    at both call sites): reading the column count, from the start or the end, is safe."""
    for read in ("x.shape[1]", "x.shape[-1]"):
        source = READS_ITS_ROWS["tf"].replace("{read}", read)
        verdict = analyse(source)["rows"]
        (note,) = [f.message for f in verdict.findings if f.code == "HY014"]
        assert "hence reduce_retracing=True" in note, read
        assert verdict.benefit == "high", (read, verdict.benefit_reasons)


def test_varying_shapes_are_computed_once_per_function_per_solution(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The benefit model asks twice per function and HY014 once more: one computation."""
    from hybridize.analyzer.facts import varying_shapes as module

    computed: list[FunctionKey] = []
    compute = module._varying_shapes

    def counted(index, facts, key):  # type: ignore[no-untyped-def]
        computed.append(key)
        return compute(index, facts, key)

    monkeypatch.setattr(module, "_varying_shapes", counted)
    found = analyse(TWO_SHAPES["tf"])["f"]
    assert [f for f in found.findings if f.code == "HY014"]
    assert FunctionKey("main.py", "f") in computed
    assert len(computed) == len(set(computed))


READS_ITS_RANK = """
    import tensorflow as tf

    def project(x):
        rank = {read}
        if rank is None:
            raise ValueError("x must have a known rank")
        y = x
        for _ in range(8):
            y = tf.tanh(y * 2.0 + 1.0)
        return tf.reduce_sum(y)

    def check_rank(t):
        t = tf.convert_to_tensor(t)
        dims = t.shape.dims
        if dims is None:
            raise ValueError("t must have a known rank")
        return t

    def via_helper(x):
        y = check_rank(x)
        for _ in range(8):
            y = tf.tanh(y * 2.0 + 1.0)
        return tf.reduce_sum(y)

    for _ in range(100):
        project(tf.ones({first}))
        project(tf.ones({second}))
        via_helper(tf.ones({first}))
        via_helper(tf.ones({second}))
"""
"""Functions that read a parameter's static rank, themselves (`project`) or in a function
they call (`via_helper`), called with two shapes (tensorflow-constrained-optimization's
`_project_distribution_wrt_euclidean_norm`, called with (3,) and (3, 3))."""

RANK_READS = (
    "x.shape.dims",
    "x.shape.ndims",
    "x.get_shape().rank",
    "x.shape.as_list()",
    "x.ndim",
    "len(x.shape)",
    "x.shape.ndims != 2 or None",
)


def test_a_rank_read_statically_gets_no_reduce_retracing_where_ranks_differ() -> None:
    """Generalised over (3,) and (3, 3), the trace's rank is unknown: `dims`/`ndims`/`rank`
    are None there, and the function's own check raises (measured in
    test_benefit_rules_measured.py). No argument, and no plain decorator by default."""
    for read in RANK_READS:
        source = READS_ITS_RANK.format(read=read, first="(3,)", second="(3, 3)")
        verdicts = analyse(source)
        for name in ("project", "via_helper"):
            verdict = verdicts[name]
            assert verdict.passes, (read, name, verdict.findings)
            assert not [f for f in verdict.findings if f.code == "HY014"], (read, name)
            assert verdict.benefit == "low", (read, name, verdict.benefit_reasons)
            assert "statically" in verdict.benefit_reasons[0], (read, name)
    source = READS_ITS_RANK.format(read=RANK_READS[0], first="(3,)", second="(3, 3)")
    assert "reads the rank of `x`" in analyse(source)["project"].benefit_reasons[0]


def test_a_rank_read_where_only_sizes_differ_keeps_reduce_retracing() -> None:
    """Shapes (3,) and (5,): generalised, the axis is None but the rank stays 1, so reading
    the rank is safe and the argument is still written."""
    for read in RANK_READS:
        source = READS_ITS_RANK.format(read=read, first="(3,)", second="(5,)")
        verdicts = analyse(source)
        for name in ("project", "via_helper"):
            (note,) = [f.message for f in verdicts[name].findings if f.code == "HY014"]
            assert "hence reduce_retracing=True" in note, (read, name)


REBINDS_THEN_READS = (
    READS_ITS_ROWS["tf"]
    .replace("def rows(x):\n", "def rows(x):\n            x = tf.convert_to_tensor(x)\n")
    .replace("def helper(x):\n", "def helper(x):\n            x = tf.cast(x, tf.float32)\n")
)
"""`rows` and `helper` rebind their parameter (`x = tf.convert_to_tensor(x)`, edward2's
`one_hot_minus`) before reading its varying axis as an int."""


def test_an_axis_read_through_a_rebound_parameter_gets_no_argument() -> None:
    """The read is of what the body made of the parameter, whose axes vary alike: relaxed, the
    axis is None and `range` raises (measured in test_benefit_rules_measured.py). No
    `reduce_retracing`, and no plain decorator by default."""
    assert REBINDS_THEN_READS.count("            x = tf.") == 2, "both functions rebind `x`"
    for read in ("x.shape[0]", "len(x)", "x.get_shape()[0]", "x.shape.as_list()[0]"):
        verdicts = analyse(REBINDS_THEN_READS.replace("{read}", read))
        for name in ("rows", "via_helper"):
            verdict = verdicts[name]
            assert verdict.passes, (read, name, verdict.findings)
            assert not [f for f in verdict.findings if f.code == "HY014"], (read, name)
            assert verdict.benefit == "low", (read, name, verdict.benefit_reasons)
            assert "Python ints" in verdict.benefit_reasons[0], (read, name)
    reasons = analyse(REBINDS_THEN_READS.replace("{read}", "x.shape[0]"))["rows"].benefit_reasons
    assert "rebinds `x`" in reasons[0]


def test_a_counted_loop_does_not_repay_a_torch_compile_of_little_work() -> None:
    """`torch.compile` costs about 40 ms and 400 eager calls per op of its body
    (`CallCosts.trace`): the same function called 200 times (a literal bound) saves a few
    milliseconds, and its one frame with `dynamic=True` costs more -- `none`, with the class
    in words; unbounded (`TWO_SHAPES`), it is proposed."""
    counted = TWO_SHAPES["torch"].replace(
        "while True:  # unbounded: the compile is repaid (`CallCosts.trace`)",
        "for _ in range(100):",
    )
    assert counted != TWO_SHAPES["torch"]
    verdict: FunctionVerdict = analyse(counted)["f"]
    assert verdict.benefit == "none", verdict.benefit_reasons
    reason = verdict.benefit_reasons[0]
    assert reason.startswith("runs about 200 times per run of the program; each trace costs")
    assert "its one trace with dynamic=True costs more than those calls save" in reason
