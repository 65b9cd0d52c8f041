"""A line-moving edit (Enter typed, a line deleted) moves the functions below it: their
verdicts are the old ones with their lines moved (`decisions/moved_verdicts.py`), unless
their words cite a line (which names no file), and every verdict still equals a fresh
analysis's, positions and messages included."""

from __future__ import annotations

import sys
from pathlib import Path

from hybridize.analyzer.decisions.moved_verdicts import (
    cites_lines,
    moved_verdict,
    rendered_verdict,
    shifted_value,
    shifted_verdict,
)
from hybridize.analyzer.facts.cited_lines import cited_line
from hybridize.analyzer.facts.evaluator import LiteralSite
from hybridize.analyzer.facts.frozen_state import Write
from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.analyzer.summaries.line_shift import LineShift
from hybridize.model import Finding, FunctionFacts, FunctionVerdict, Span
from hybridize.project import Project, ProjectOptions

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_incremental import check

MODULE = """\
import tensorflow as tf

from pkg.other import scale

SCALE = 2.0


def first(x):
    y = tf.square(x)
    return y


def bump():
    global SCALE
    SCALE = SCALE * 2.0


def reads_state(x):
    return tf.reduce_sum(x) * SCALE


def prints(x):
    print("value", x)
    return tf.abs(x) + 1.0


def calls_other(x):
    return scale(x, 3)


class Trainer:
    def __init__(self):
        self.factor = 1.0

    def step(self, x):
        self.factor = self.factor + 1.0
        return tf.reduce_mean(x) * self.factor


for _ in range(3):
    bump()
    print(reads_state(tf.ones([2])), prints(tf.ones([2])), calls_other(tf.ones([2])))
"""

OTHER = """\
import tensorflow as tf


def scale(x, k):
    return x * tf.cast(k, x.dtype)
"""

THIRD = """\
import tensorflow as tf

from pkg import m


def uses(x):
    return tf.reduce_sum(x) * m.SCALE


for _ in range(3):
    m.bump()
    print(uses(tf.ones([2])))
"""

ENTER = ("    y = tf.square(x)\n", "    y = tf.square(x)\n    z = 1\n")


def _verdicts(project: Project) -> dict[str, FunctionVerdict]:
    return {v.key: v for v in project.results().functions}


def _messages(verdict: FunctionVerdict, code: str) -> list[str]:
    return [f.message for f in verdict.findings if f.code == code]


def _opened(files: dict[str, str]) -> tuple[Project, dict[str, FunctionVerdict]]:
    """The project of `files` (a package `pkg`) and its verdicts by key."""
    project = Project.from_texts({"pkg/__init__.py": "", **files}, ProjectOptions(use_cache=False))
    return project, _verdicts(project)


def test_enter_above_functions_moves_their_verdicts_and_the_lines_their_words_cite() -> None:
    files = {
        "pkg/__init__.py": "",
        "pkg/m.py": MODULE,
        "pkg/other.py": OTHER,
        "pkg/third.py": THIRD,
    }
    project = Project.from_texts(files, ProjectOptions(use_cache=False))
    before = _verdicts(project)
    solver = project.analysis.solver
    assert solver is not None
    prints = FunctionKey("pkg/m.py", "prints")
    evaluator = solver.facts.latest_evaluators[prints]
    # `bump` reassigns SCALE on line 15: the reads in m.py and in third.py cite it
    assert any(
        "(pkg/m.py, line 15)" in m for m in _messages(before["pkg/m.py::reads_state"], "HY408")
    )
    assert any("(pkg/m.py, line 15)" in m for m in _messages(before["pkg/third.py::uses"], "HY408"))

    project.update("pkg/m.py", MODULE.replace(*ENTER))
    check(project, "Enter typed in `first`")
    after = _verdicts(project)
    # one line added above them: the write is on line 16, the print one line lower
    assert any(
        "(pkg/m.py, line 16)" in m for m in _messages(after["pkg/m.py::reads_state"], "HY408")
    )
    assert any("(pkg/m.py, line 16)" in m for m in _messages(after["pkg/third.py::uses"], "HY408"))
    [printed] = [f for f in after["pkg/m.py::prints"].findings if f.code == "HY101"]
    [printed_before] = [f for f in before["pkg/m.py::prints"].findings if f.code == "HY101"]
    assert printed.span.start_line == printed_before.span.start_line + 1
    assert after["pkg/m.py::Trainer.step"].line == before["pkg/m.py::Trainer.step"].line + 1
    # Decided again: `first` (edited) alone; the other moved functions (bump, prints,
    # calls_other, the Trainer methods) and other.py's keep theirs, and the two verdicts
    # citing line 15 (m.py's, with the file: `cited_lines`) theirs with the line moved.
    assert project.analysis.decided_again == 1
    # and the phase looks at `first` alone (it calls no project function): the functions
    # only moved, whose inputs changed by nothing but the lines, have their verdicts moved
    # without being taken into the phase (`MovedLines.narrowed`)
    assert project.analysis.looked_at == 1
    # and the solver did not evaluate the moved `prints` again (an evaluation makes a new
    # evaluator): its contribution is the old one moved, its evaluator reads its new summary
    assert project.analysis.solver is solver
    assert solver.facts.latest_evaluators[prints] is evaluator
    assert evaluator.fn.span.start_line == before["pkg/m.py::prints"].line + 1

    project.update("pkg/m.py", MODULE)
    check(project, "the line deleted again")
    assert _verdicts(project) == before
    assert project.analysis.looked_at == 1


def test_a_verdict_citing_a_line_is_not_moved() -> None:
    span = Span(10, 4, 10, 9)
    facts = FunctionFacts("m.py", "f", 9, Span(9, 0, 11, 0), framework="tensorflow")
    plain = FunctionVerdict(facts, findings=(Finding("HY101", "print", "warning", "prints", span),))
    cited = FunctionVerdict(
        facts, findings=(Finding("HY408", "s", "warning", "reads `S` (m.py, line 3)", span),)
    )
    called = FunctionVerdict(facts, assumptions=("the call at other.py:12 passes 3",))
    assert not cites_lines(plain)
    assert cites_lines(cited) and cites_lines(called)
    moved = shifted_verdict(plain, LineShift(5, 2, Span(1, 0, 20, 0), Span(1, 0, 22, 0)))
    assert moved.line == 11 and moved.span == Span(11, 0, 13, 0)
    assert moved.findings[0].span == Span(12, 4, 12, 9)
    above = shifted_verdict(plain, LineShift(12, 2, Span(1, 0, 20, 0), Span(1, 0, 22, 0)))
    assert above == plain


def test_a_line_cited_with_its_file_moves_with_that_file() -> None:
    """A line the words cite with its file (`cited_line`) is no reason to decide again: it
    moves with the lines of its own file, and reads as its number once published."""
    span = Span(10, 4, 10, 9)
    facts = FunctionFacts("m.py", "f", 9, Span(9, 0, 11, 0), framework="tensorflow")
    message = f"calls `g`, which prints (line {cited_line('o.py', 7)})"
    verdict = FunctionVerdict(facts, findings=(Finding("HY101", "p", "warning", message, span),))
    assert not cites_lines(verdict)
    assert rendered_verdict(verdict).findings[0].message == "calls `g`, which prints (line 7)"
    in_m = {"m.py": LineShift(5, 2, Span(1, 0, 20, 0), Span(1, 0, 22, 0))}
    moved = moved_verdict(verdict, in_m, "m.py")
    assert moved.line == 11
    assert rendered_verdict(moved).findings[0].message.endswith("(line 7)")
    in_o = {"o.py": LineShift(3, 2, Span(1, 0, 20, 0), Span(1, 0, 22, 0))}
    moved = moved_verdict(verdict, in_o, "m.py")
    assert moved.line == 9
    assert rendered_verdict(moved).findings[0].message.endswith("(line 9)")
    above = {"o.py": LineShift(8, 2, Span(1, 0, 20, 0), Span(1, 0, 22, 0))}
    assert moved_verdict(verdict, above, "m.py") == verdict


LOGS = """\
import logging

import tensorflow as tf

LOG = logging.getLogger(__name__)


def first(x):
    y = tf.square(x)
    return y


def log_value(x):
    LOG.info("value %s", x)
    return x


def dense(x, units):
    return tf.reduce_sum(x) * units
"""

CALLERS = """\
import tensorflow as tf

from pkg.logs import dense, log_value


def step(x):
    y = tf.square(x)
    return log_value(y)


def spare(x):
    return x


for _ in range(3):
    step(tf.ones([2]))
    dense(tf.ones([2]), 16)
    dense(tf.ones([2]), 32)
"""


def test_verdicts_citing_a_line_of_another_file_move_with_it() -> None:
    """`step` logs through `log_value` of another file (HY102 names the line of the log
    there); `dense` is passed different literals from another file (HY201 names the call
    there). Enter typed in a function above the line each cites moves that line: the
    verdicts citing it are kept (no caller of theirs changed), the line moved, and every
    verdict equals a fresh analysis's."""
    project, before = _opened({"pkg/logs.py": LOGS, "pkg/callers.py": CALLERS})
    [logged] = _messages(before["pkg/callers.py::step"], "HY102")
    assert "(line 14)" in logged
    [retraced] = _messages(before["pkg/logs.py::dense"], "HY201")
    assert "pkg/callers.py:18" in retraced

    project.update("pkg/logs.py", LOGS.replace(*ENTER))
    check(project, "Enter typed in `first`, above log_value")
    assert "(line 15)" in _messages(_verdicts(project)["pkg/callers.py::step"], "HY102")[0]
    # `first` alone: log_value and dense only moved, and step's verdict moves its words
    assert project.analysis.decided_again == 1

    spare = CALLERS.replace("    return x\n", "    x = x + 1\n    return x\n")
    project.update("pkg/callers.py", spare)
    check(project, "a line added in `spare`, above the calls of dense")
    assert "pkg/callers.py:19" in _messages(_verdicts(project)["pkg/logs.py::dense"], "HY201")[0]
    # `spare` alone: the module code's calls only moved, and dense's verdict moves its words
    assert project.analysis.decided_again == 1


def test_positions_move_only_in_the_file_whose_lines_moved() -> None:
    """A literal argument's site is in its caller's file, a write in its writer's: only
    those of the edited file move, whatever the file of the entry holding them."""
    shifts = {"m.py": LineShift(5, 1, Span(1, 0, 20, 0), Span(1, 0, 21, 0))}
    here = Span(8, 0, 8, 5)
    there = Span(8, 0, 8, 5)
    site_here = LiteralSite(FunctionKey("m.py", "g"), here, ("lit", 3))
    site_there = LiteralSite(FunctionKey("o.py", "h"), there, ("lit", 3))
    moved = shifted_value({"k": [site_here, site_there]}, shifts, "o.py")
    assert moved["k"][0].span == Span(9, 0, 9, 5)
    assert moved["k"][1] is site_there
    writes = [Write(FunctionKey("m.py", "bump"), here), Write(FunctionKey("o.py", "f"), there)]
    assert [w.span for w in shifted_value(writes, shifts, "")] == [Span(9, 0, 9, 5), there]
    assert shifted_value([site_there], shifts, "o.py") == [site_there]


def test_a_kept_verdict_still_hears_of_the_state_it_reads() -> None:
    """Enter typed keeps `reads_state`'s verdict (moved): when `bump` then stops reassigning
    SCALE, the read is no longer frozen state, as a fresh analysis finds."""
    files = {"pkg/__init__.py": "", "pkg/m.py": MODULE, "pkg/other.py": OTHER}
    project = Project.from_texts(files, ProjectOptions(use_cache=False))
    project.results()
    entered = MODULE.replace(*ENTER).replace(
        "print(reads_state", "print(prints(tf.ones([1])), reads_state"
    )
    project.update("pkg/m.py", entered)
    check(project, "Enter typed, a call added")
    project.update("pkg/m.py", MODULE.replace(*ENTER))
    check(project, "Enter typed")
    assert _messages(_verdicts(project)["pkg/m.py::reads_state"], "HY408")
    quiet = MODULE.replace(*ENTER).replace("    SCALE = SCALE * 2.0\n", "    print(SCALE * 2.0)\n")
    project.update("pkg/m.py", quiet)
    check(project, "bump no longer reassigns SCALE")
    assert not _messages(_verdicts(project)["pkg/m.py::reads_state"], "HY408")


def test_a_moved_verdict_kept_still_hears_of_state_written_later() -> None:
    """`reads_limit` reads LIMIT, which nothing reassigns: Enter typed above it keeps its
    verdict; when `bump` then reassigns LIMIT too, the read is frozen state (HY408), as a
    fresh analysis finds: the kept verdict's reads were kept with it."""
    module = MODULE.replace("SCALE = 2.0\n", "SCALE = 2.0\nLIMIT = 3.0\n").replace(
        "def prints(x):",
        "def reads_limit(x):\n    return tf.reduce_sum(x) * LIMIT\n\n\ndef prints(x):",
    )
    module = module.replace("print(reads_state(", "print(reads_limit(tf.ones([2])), reads_state(")
    files = {"pkg/__init__.py": "", "pkg/m.py": module, "pkg/other.py": OTHER}
    project = Project.from_texts(files, ProjectOptions(use_cache=False))
    assert not _messages(_verdicts(project)["pkg/m.py::reads_limit"], "HY408")
    entered = module.replace(*ENTER)
    project.update("pkg/m.py", entered)
    check(project, "Enter typed")
    writes = entered.replace("    global SCALE\n", "    global SCALE, LIMIT\n").replace(
        "    SCALE = SCALE * 2.0\n", "    SCALE = LIMIT = SCALE * 2.0\n"
    )
    project.update("pkg/m.py", writes)
    check(project, "bump reassigns LIMIT too")
    assert _messages(_verdicts(project)["pkg/m.py::reads_limit"], "HY408")


def test_the_verdicts_kept_keep_their_frozen_state_reads() -> None:
    """The frozen-state reads remembered after an edit (what finds the readers of a state
    whose writes a later edit changes) are those a fresh analysis remembers: a verdict kept,
    moved or settled, keeps its reads, which it did not make again."""
    files = {"pkg/__init__.py": "", "pkg/m.py": MODULE, "pkg/other.py": OTHER}
    project = Project.from_texts(files, ProjectOptions(use_cache=False))
    project.results()
    entered = MODULE.replace(*ENTER)
    project.update("pkg/m.py", entered)
    check(project, "Enter typed")
    assert project.analysis.decided_again < len(project.results().functions)
    fresh = Project.from_texts({**files, "pkg/m.py": entered}, ProjectOptions(use_cache=False))
    fresh.results()
    kept, made = project.analysis._memory, fresh.analysis._memory
    assert kept is not None and made is not None
    assert {k: v for k, v in kept.frozen_reads.items() if v} == {
        k: v for k, v in made.frozen_reads.items() if v
    }


HELPERS = """\
import tensorflow as tf


def first(x):
    y = tf.square(x)
    return y


def to_numpy(x):
    return x.numpy() * 2.0


def twice(x):
    return to_numpy(x) + 1.0
"""

HELPER_CALLER = """\
import tensorflow as tf

from pkg.helpers import to_numpy


def step(x):
    y = tf.square(x)
    return to_numpy(y)


for _ in range(3):
    step(tf.ones([2]))
"""


def test_a_helper_hazard_cited_by_its_callers_moves_with_the_helper() -> None:
    """A caller's HY301 names the line of the helper's eager-only call (the helper summary's
    hazard: `cited_lines`, with the helper's file); Enter typed above the helper moves that
    line, and the callers' effect and helper summaries are the old ones moved: their
    verdicts too (only `first` is decided again), equal to a fresh analysis's."""
    project, before = _opened({"pkg/helpers.py": HELPERS, "pkg/caller.py": HELPER_CALLER})
    [called] = _messages(before["pkg/caller.py::step"], "HY301")
    assert "calls `to_numpy` (line 10)" in called
    [twice] = _messages(before["pkg/helpers.py::twice"], "HY301")
    assert "calls `to_numpy` (line 10)" in twice

    project.update("pkg/helpers.py", HELPERS.replace(*ENTER))
    check(project, "Enter typed in `first`, above to_numpy")
    after = _verdicts(project)
    assert "calls `to_numpy` (line 11)" in _messages(after["pkg/caller.py::step"], "HY301")[0]
    [moved] = [f for f in after["pkg/helpers.py::twice"].findings if f.code == "HY301"]
    [unmoved] = [f for f in before["pkg/helpers.py::twice"].findings if f.code == "HY301"]
    assert "calls `to_numpy` (line 11)" in moved.message
    assert moved.span.start_line == unmoved.span.start_line + 1
    assert project.analysis.decided_again == 1

    project.update("pkg/helpers.py", HELPERS)
    check(project, "the line deleted again")
    assert _verdicts(project) == before


BODIES = """\
import tensorflow as tf


def first(x):
    y = tf.square(x)
    return y


def helper(x):
    return x


def step(x):
    return helper(x)


for _ in range(3):
    step(tf.ones([2]))
"""


def test_body_facts_kept_across_edits_follow_an_edited_callee() -> None:
    """What a body does (`engine.BodyFacts`) is kept for the functions an edit leaves or only
    moves: Enter above `helper` keeps `step` without tensor computation; an edit making
    `helper` compute gives `step` tensor computation through it, as a fresh analysis does."""
    files = {"pkg/__init__.py": "", "pkg/m.py": BODIES}
    project = Project.from_texts(files, ProjectOptions(use_cache=False))
    assert _verdicts(project)["pkg/m.py::step"].facts.has_tensor_computation is False

    project.update("pkg/m.py", BODIES.replace(*ENTER))
    check(project, "Enter typed in `first`, above helper and step")
    assert _verdicts(project)["pkg/m.py::step"].facts.has_tensor_computation is False

    computing = BODIES.replace(*ENTER).replace("    return x\n", "    return tf.abs(x)\n")
    project.update("pkg/m.py", computing)
    check(project, "helper computes")
    assert _verdicts(project)["pkg/m.py::step"].facts.has_tensor_computation is True

    project.update("pkg/m.py", BODIES)
    check(project, "both edits undone")
    assert _verdicts(project)["pkg/m.py::step"].facts.has_tensor_computation is False
