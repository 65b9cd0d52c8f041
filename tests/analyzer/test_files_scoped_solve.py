"""A solve that shows some files only (`ProjectAnalysis.solve(files=...)`, what an editor's
preliminary result of one file asks) decides their functions and those that call them, and
gives those files the verdicts of a solve that decides every function: a verdict's benefit
reads other verdicts only up its callers."""

from __future__ import annotations

import textwrap

from hybridize.analyzer.analysis import ProjectAnalysis
from hybridize.analyzer.checks import summary_hooks
from hybridize.analyzer.options import AnalysisOptions
from hybridize.analyzer.summaries.file_summaries import summarize_text
from hybridize.analyzer.summaries.ir import ModuleSummary

HELPER = """
import tensorflow as tf


def scale(x, factor):
    total = tf.constant(0.0)
    for i in tf.range(10):
        total += tf.reduce_sum(tf.matmul(x, x) * factor)
    return total


def shift(x):
    return scale(x, 2.0) + tf.reduce_mean(x)
"""

USER = """
import tensorflow as tf

from helper import scale, shift


@tf.function
def step(x):
    return shift(x) + scale(x, 3.0)


def train(x):
    for _ in range(1000):
        step(x)
        shift(x)
"""

OTHER = """
import tensorflow as tf


def unrelated(x):
    for _ in range(1000):
        x = tf.matmul(x, x)
    return x
"""


def _modules() -> dict[str, ModuleSummary]:
    modules = {}
    for relpath, text in (("helper.py", HELPER), ("user.py", USER), ("other.py", OTHER)):
        summary = summarize_text(relpath, textwrap.dedent(text), summary_hooks())
        assert isinstance(summary, ModuleSummary), relpath
        modules[relpath] = summary
    return modules


def test_the_files_and_their_callers_are_decided_as_in_a_whole_solve() -> None:
    options = AnalysisOptions(use_cache=False)
    whole, _ = ProjectAnalysis(long_running=False).solve(_modules(), "", options)
    shown, _ = ProjectAnalysis(long_running=False).solve(
        _modules(), "", options, files={"helper.py"}
    )
    assert {v.file for v in whole} == {"helper.py", "user.py", "other.py"}
    # The helpers' callers are decided (their verdicts say whether the helpers run inside
    # proposed graphs); a module that calls none of them is not.
    assert {v.file for v in shown} == {"helper.py", "user.py"}
    helpers = [v for v in whole if v.file == "helper.py"]
    assert [v.qualname for v in helpers] == ["scale", "shift"]
    assert [v for v in shown if v.file == "helper.py"] == helpers
