"""The verdict phase of the analysis: solved facts -> a verdict per function.

The way in is `hybridize.project.Project` (files -> summaries, parallel and cached, by
`file_summaries`), whose `ProjectAnalysis` (`analysis`) solves the facts and asks this module
for the verdicts (`decide_incrementally`): every function's after a solve from scratch, only
those an edit can reach after an incremental one. The project-wide phase (name resolution,
tensor flow, effects, call graph, decisions) is recomputed from the summaries, so a change in
an imported module always reaches the modules that import it.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from functools import cache
from itertools import chain
from typing import NamedTuple, TypeVar

from hybridize.analyzer import budget
from hybridize.analyzer.budget import BudgetExceeded, cpu_budget
from hybridize.analyzer.checks import (
    applies_to,
    decorator_keepers,
    project_fact_checks,
    remembering_checks,
)
from hybridize.analyzer.checks.context import CheckContext, ProjectFacts
from hybridize.analyzer.checks.hy902_internal_error import InternalError
from hybridize.analyzer.checks.run import run_checks
from hybridize.analyzer.cycle_collector import no_cyclic_gc
from hybridize.analyzer.decisions.benefit import Benefit, BenefitModel
from hybridize.analyzer.decisions.caller_reads import (
    CallerReadCheck,
    CallerReads,
    off_graph_readers,
    phase_reads,
)
from hybridize.analyzer.decisions.decide import DecisionInputs, decide
from hybridize.analyzer.decisions.moved_verdicts import (
    cites_lines,
    kept_moved,
    moved_helper_summary,
    moved_state,
    moved_value,
    moved_verdict,
    rendered_verdict,
)
from hybridize.analyzer.decisions.verdict_scope import (
    affected,
    callers_closure,
    changed_readers,
    changed_state,
    compare_facts,
    induced,
    readers_of,
    refresh_edges,
)
from hybridize.analyzer.decisions.verdict_scope import seeds as scope_seeds
from hybridize.analyzer.facts.callgraph import (
    build_call_graph,
    covered_callers,
    eager_model_classes,
    following_calls,
    framework_compiled,
    keras_loop_compiled,
    local_opaque_tensor_call,
    local_stateful_computation,
    local_tensor_computation,
    opaque_tensor_calls,
    reaching,
    recursive_functions,
)
from hybridize.analyzer.facts.candidacy import (
    Candidacy,
    CandidacyModules,
    NotCandidate,
    candidacy_modules,
)
from hybridize.analyzer.facts.digraph import DiGraph
from hybridize.analyzer.facts.effects import EffectAnalysis, EffectSummary
from hybridize.analyzer.facts.evaluator import TensorFacts, get_evaluator
from hybridize.analyzer.facts.frozen_state import (
    FROZEN_READS,
    differing_states,
    forget_writers,
    frozen_state_writes,
)
from hybridize.analyzer.facts.graph_breaks import graph_breaks
from hybridize.analyzer.facts.helper_safety import HelperSafety
from hybridize.analyzer.facts.nested_compiled import decorated_by_compiler
from hybridize.analyzer.facts.predicates import is_tensor_like
from hybridize.analyzer.facts.process_wide import process_wide_assumptions
from hybridize.analyzer.facts.refs import is_ext_ref
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.retracing import LiteralVariation
from hybridize.analyzer.facts.solver import FactJournal, project_keys
from hybridize.analyzer.facts.speculation import speculate
from hybridize.analyzer.facts.taped_calls import taped_functions
from hybridize.analyzer.facts.values import is_unknown_kind
from hybridize.analyzer.frameworks.framework import Framework
from hybridize.analyzer.options import AnalysisOptions
from hybridize.analyzer.summaries.interface import ModuleEdit
from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.analyzer.summaries.line_shift import LineShift
from hybridize.analyzer.summaries.syms import kind_of
from hybridize.analyzer.switched_off_checks import disabled_codes
from hybridize.model import (
    DECORATOR_ARG_NAMES,
    FileError,
    Finding,
    FunctionFacts,
    FunctionVerdict,
    ParamReport,
    TensorSpec,
    Tristate,
)
from hybridize.progress import ProgressCallback, ProgressStep, Stage


@dataclass(slots=True)
class VerdictMemory:
    """What a verdict phase leaves for the next one (`decide_incrementally`): the call graph
    and every project-wide intermediate result a verdict reads of other functions."""

    graph: DiGraph
    hybrid: set[FunctionKey]
    covered: dict[FunctionKey, bool]
    candidacy_walks: tuple[set[FunctionKey], set[FunctionKey]]
    benefits: BenefitModel
    decided: dict[FunctionKey, FunctionVerdict]
    """Verdicts before `inside_proposed_graphs`, as decided: the lines their words cite not
    yet rendered (`moved_verdicts.rendered_verdict`: `final`'s are)."""
    final: dict[FunctionKey, FunctionVerdict]
    errors: dict[FunctionKey, FileError]
    """Internal errors met while deciding, by function."""
    project_wide: tuple[object, ...]
    frozen_reads: dict[object, object]
    state_writes: dict[object, object]
    decided_again: int
    """How many functions the phase decided (the others kept their verdicts)."""
    incremental: bool
    """Only part of the project was decided again."""
    effects: dict[FunctionKey, EffectSummary]
    helpers: HelperSafety
    """Every function's effect and helper summaries: a settled function keeps them."""
    reasons: dict[FunctionKey, list[NotCandidate]]
    """Why each function is no candidate (empty: it may be one)."""
    traced: set[FunctionKey]
    """The functions that run as graphs (hybrid or covered)."""
    remembered: dict[str, object]
    """What the verdicts kept read of other functions that an edit elsewhere may change, by
    the code of the check that read it (`Check.remembered_reads`)."""
    caller_reads: CallerReads
    """What the verdicts read above their direct callers."""
    order: dict[str, list[FunctionKey]]
    """The keys of `final` by file, each file's in report order (`_report_order`)."""
    listed: dict[str, list[FunctionVerdict]]
    """The verdicts of `final` by file, each file's in report order (`_listed`)."""
    bodies: dict[FunctionKey, BodyFacts]
    """What each function's own body does (`_body_facts`): a function whose facts are
    unchanged, or changed only by the lines an edit moved, keeps it."""
    looked_at: int = 0
    """How many functions the phase's scope held (the others kept their verdicts, or had
    them moved by an edit's lines, without the phase looking at them)."""


@dataclass(frozen=True, slots=True)
class BodyFacts:
    """What a function's own body does, its callees aside (`callgraph`'s local facts, which
    `reaching` carries up the call graph)."""

    computation: bool
    """Runs a framework operation (`local_tensor_computation`)."""
    opaque: bool
    """Applies a callable of unknown kind to tensors (`local_opaque_tensor_call`)."""
    stateful: bool
    """Computes on variables, models or layers (`local_stateful_computation`)."""


def _body_facts(
    index: ProjectIndex,
    facts: TensorFacts,
    keys: Iterable[FunctionKey],
    known: dict[FunctionKey, BodyFacts] | None,
) -> dict[FunctionKey, BodyFacts]:
    """The `BodyFacts` of `keys`: those `known` (the last phase's table, updated in place,
    without the functions whose facts changed) kept, the others worked out."""
    found = {} if known is None else known
    for key in keys:
        if key not in found:
            found[key] = BodyFacts(
                local_tensor_computation(facts, key),
                local_opaque_tensor_call(facts, key),
                local_stateful_computation(index, facts, key),
            )
    return found


class _LastPhase(NamedTuple):
    """What an incremental phase (`_decide` with a scope and the last phase's memory)
    starts from."""

    memory: VerdictMemory
    scope: set[FunctionKey]


def _decide(
    index: ProjectIndex,
    facts: TensorFacts,
    options: AnalysisOptions,
    scope: set[FunctionKey] | None = None,
    memory: VerdictMemory | None = None,
    project: ProjectWide | None = None,
    fresh: set[FunctionKey] | None = None,
    progress: ProgressCallback | None = None,
    files: Collection[str] | None = None,
    moved: MovedLines | None = None,
    classes_unchanged: bool = False,
) -> tuple[list[FunctionVerdict], list[FileError], VerdictMemory]:
    """The verdicts of every function, or (with `scope` and the `memory` of the last phase)
    of the functions in `scope` only, a set closed under callees (`verdict_scope`); with
    `files`, only of their functions and of the functions that call them, at any depth (what
    their benefit reads of other verdicts: `callers_closure`), for a result that shows those
    files alone.

    `fresh` (a part of `scope` holding every caller of its members) are the functions whose
    facts or callees changed; the rest of the scope is *settled*: what flows up from callees
    is the last phase's, and a settled function whose callers are settled too and whose
    inputs from callers (covered, traced callers, candidacy) are unchanged keeps its verdict
    (with its benefit estimated again), when what it read of callers further up is the same
    too (`caller_reads`). After an edit that `moved` lines, a function keeps its verdict, its
    lines moved, on the same terms, with what changed but those lines for `fresh`
    (`MovedLines.reusable`). `classes_unchanged`: the edit changed no class and no import
    (`BenefitModel`'s)."""
    keys = project_keys(index)
    # an incremental phase: the last one's memory, and the scope this one decides
    last = _LastPhase(memory, scope) if memory is not None and scope is not None else None
    if last is None:
        graph = None
        within = keys
    else:
        # the scope in project order, sorted rather than filtered out of every key
        place = index.key_order()
        within = sorted((k for k in last.scope if k in place), key=place.__getitem__)
    if fresh is None or last is None:
        fresh = set(within)
    settled = set() if last is None else last.scope - fresh
    analysed_keys = [k for k in within if not k.is_module_code]
    function_keys = [k for k in analysed_keys if not index.function(k).is_lambda]
    if progress is not None:
        progress(ProgressStep(Stage.VERDICTS, 0, len(function_keys)))
    # the functions an edit only moved keep their effect and helper summaries, their lines
    # moved (`MovedLines.moved_summaries`): the others of `fresh` are worked out again
    only_moved = (
        set() if last is None or moved is None else moved.moved_summaries(fresh, last.memory)
    )
    again = fresh - only_moved if only_moved else fresh
    effects = EffectAnalysis(index, facts).run(
        [k for k in analysed_keys if k not in settled and k not in only_moved],
        # the last phase's summaries, which nothing reads after this phase: in place
        None if last is None else _within_replaced(last.memory.effects, again, {}),
    )
    if last is None:
        graph = build_call_graph(index, facts, keys)
        part = graph
    else:
        graph = last.memory.graph
        part = induced(graph, within)
    helpers = HelperSafety(index, facts, part, None if last is None else last.memory.helpers, again)
    recursive = recursive_functions(part)
    bodies = _body_facts(
        index,
        facts,
        within,
        None if last is None else _within_replaced(last.memory.bodies, again, {}),
    )
    computation = following_calls(part, facts, {k: bodies[k].computation for k in within})
    opaque_here = {k: bodies[k].opaque for k in within}
    opaque = opaque_tensor_calls(part, opaque_here)
    breaks = graph_breaks(index, part, facts, opaque_here)
    stateful = reaching(part, {k: bodies[k].stateful for k in within})
    if project is None:
        project = project_wide(index, facts, keys)
    hybrid = {k for k in function_keys if is_hybrid(index, facts, k, index.function_framework(k))}
    if last is not None:
        hybrid |= last.memory.hybrid - last.scope
    by_framework = project.compiled
    covered = covered_callers(graph, facts, hybrid, function_keys, by_framework)
    # whether each function of the scope was covered (`_keeps_verdict`), before the last
    # phase's table, which nothing reads after this phase, is updated in place
    was_covered: dict[FunctionKey, bool] = {}
    if last is not None:
        old_covered = last.memory.covered
        was_covered = {k: old_covered[k] for k in last.scope if k in old_covered}
        covered = _within_replaced(old_covered, last.scope, covered)
    variation = project.variation
    candidacy = Candidacy(
        index,
        facts,
        part,
        within,
        modules=project.modules,
        known=(set(), set())
        if last is None
        else (
            {k for k in last.memory.candidacy_walks[0] if k not in last.scope},
            {k for k in last.memory.candidacy_walks[1] if k not in last.scope},
        ),
    )
    if last is None:
        traced = hybrid | {k for k, v in covered.items() if v}
    else:  # outside the scope what was traced still is (its hybrid and covered kept)
        traced = (last.memory.traced - last.scope) | hybrid | {k for k in within if covered.get(k)}
    loop_compiled = keras_loop_compiled(index, facts, function_keys)
    in_keras_loops = (
        covered_callers(graph, facts, hybrid, function_keys, by_framework | loop_compiled)
        if loop_compiled
        else {}
    )
    test_code: dict[FunctionKey, bool] = {}  # asked for every caller of every function

    def in_tests(key: FunctionKey) -> bool:
        found = test_code.get(key)
        if found is None:
            found = test_code[key] = is_test_code(index, key)
        return found

    benefits = BenefitModel(
        index,
        facts,
        graph,
        covered,
        in_tests,
        in_keras_loops=in_keras_loops,
        flexibly_compiled=flexibly_compiled(index, facts, hybrid),
        framework_compiled=by_framework,
        eager_models=eager_model_classes(index, facts),
        scope=None if last is None else part,
        previous=None if memory is None else memory.benefits,
        classes_unchanged=classes_unchanged,
    )
    errors = (
        []
        if facts.converged
        else [
            FileError(
                ".",
                "the analysis did not settle within its round limit: on this project some "
                "call-site evidence may be missing (please report it)",
            )
        ]
    )
    errors += [
        FileError(
            key.file,
            f"internal error while analysing {key.qualname}: {message}",
        )
        for key, message in facts.internal_errors.items()
    ]
    decided: dict[FunctionKey, FunctionVerdict] = {}
    failed: dict[FunctionKey, FileError] = {}
    reasons: dict[FunctionKey, list[NotCandidate]] = {}
    kept_keys: set[FunctionKey] = set()

    def keep(key: FunctionKey, verdict: FunctionVerdict, error: FileError | None) -> None:
        """`key` keeps `verdict` of the last phase (and the `error` it met deciding it), with
        its benefit estimated again: the benefit reads other functions' verdicts."""
        decided[key] = benefits.estimate(key).of(verdict)
        if error is not None:
            failed[key] = error
        kept_keys.add(key)

    phase = VerdictPhase(
        ProjectFacts(index, facts, helpers, hybrid, traced, variation, breaks),
        options,
    )
    unevaluated = _unevaluated(graph, facts.internal_errors)
    # what a kept verdict read is asked again of what the detections read (`phase.project`)
    above = None if last is None else CallerReadCheck(phase.project, last.memory.caller_reads)
    # a verdict's benefit reads other verdicts only up its callers (whether they run as graphs:
    # `BenefitModel.inside_proposed_graphs`), so the files' functions and their callers at any
    # depth get the verdicts of a phase that decides every function
    wanted = None if files is None else callers_closure(graph, [k for k in keys if k.file in files])
    for done, key in enumerate(function_keys, 1):
        if progress is not None:
            progress(ProgressStep(Stage.VERDICTS, done, len(function_keys)))
        if wanted is not None and key not in wanted:
            continue
        if not candidacy.reported(key):
            continue  # not TensorFlow code: no TensorFlow verdict
        reasons[key] = candidacy.reasons(key)
        if (
            memory is not None
            and above is not None
            and key in settled
            and _keeps_verdict(
                key, graph, fresh, memory, covered, was_covered, traced, reasons[key], above
            )
        ):
            keep(key, memory.decided[key], memory.errors.get(key))
            continue
        evaluation_failure = unevaluated.get(key)
        if evaluation_failure is not None:
            # The fixed point could not evaluate the function (reported in `errors` above):
            # its facts are missing, so it is undecided, never judged on what is left.
            decided[key] = _undecided(
                index, key, EvaluationFailed(evaluation_failure), candidacy.framework(key)
            )
            continue
        if memory is not None and above is not None and moved is not None:
            reused = moved.reusable(key, memory)
            if reused is not None and _keeps_verdict(
                key,
                graph,
                moved.fresh,
                memory,
                covered,
                was_covered,
                traced,
                reasons[key],
                above,
            ):
                keep(key, reused, None)  # `reusable`: none met an error
                continue
        try:
            with cpu_budget(budget.VERDICT_SECONDS):
                function = FunctionInputs(
                    key,
                    candidacy.framework(key),
                    effects[key],
                    key in recursive,
                    computation[key],
                    covered[key],
                    key in hybrid,
                    opaque[key],
                    stateful[key],
                    reasons[key],
                )
                verdict = _verdict(phase, function)
                verdict = benefits.estimate(key).of(verdict)
        except Exception as exc:
            verdict = _undecided(index, key, exc, candidacy.framework(key))
            failed[key] = FileError(
                verdict.file,
                f"the analysis of {verdict.qualname} {exc}: it is left undecided and "
                "unchanged (please report it)"
                if isinstance(exc, BudgetExceeded)
                else f"internal error while deciding {verdict.qualname}: "
                f"{type(exc).__name__}: {exc} (please report it)",
            )
        decided[key] = verdict
    final: dict[FunctionKey, FunctionVerdict] = {}
    if last is not None:
        # The last phase's entries outside the scope, then the new ones: its tables, which
        # nothing reads after this phase, updated in place (O(scope), in the order of a
        # filtered rebuild; a copy of each would be one more table of the project's size
        # for the cycle collector to walk after every edit).
        decided = _within_replaced(last.memory.decided, last.scope, decided)
        failed = _within_replaced(last.memory.errors, last.scope, failed)
        final = _within_replaced(last.memory.final, last.scope, {})
        inside = _inside_proposed_graphs(
            benefits, decided, [k for k in function_keys if k in decided], errors
        )
        final.update((k, rendered_verdict(decided[k])) for k in function_keys if k in decided)
    else:
        inside = _inside_proposed_graphs(benefits, decided, None, errors)
        if facts.updatable:
            final = {k: rendered_verdict(v) for k, v in decided.items()}
        else:
            # Facts never updated (a one-shot analysis): no later phase moves the lines the
            # decided words cite, so each verdict is kept once, as published (the words of
            # both forms, kept side by side, were 36 MiB on `keras/src`).
            for k, v in decided.items():
                decided[k] = rendered_verdict(v)
            final = decided
    for key, reason in inside.items():
        final[key] = Benefit("none", (reason,)).of(final[key])
    if failed:  # most phases meet none: no pass over every key
        errors += [failed[k] for k in keys if k in failed]
    order = _report_order(
        final,
        None if last is None else last.memory.order,
        None if last is None else last.scope,
    )
    listed = _listed(
        final,
        order,
        None if last is None else last.memory.listed,
        None
        if last is None
        else {k.file for k in last.scope}
        | ({k.file for k in moved.outside} if moved is not None else set()),
    )
    verdicts = list(chain.from_iterable(listed[file] for file in sorted(order)))
    if last is not None:
        reasons = _within_replaced(last.memory.reasons, last.scope, reasons)
    memory = VerdictMemory(
        graph,
        hybrid,
        covered,
        (candidacy.legacy_walk, candidacy.agnostic_walk),
        benefits,
        decided,
        final,
        failed,
        project.fingerprint(),
        # the memo itself, not a copy: what is added to it after this phase is read of the
        # same facts, which the next phase's edit starts from (`decide_incrementally`)
        _cached(facts, FROZEN_READS),
        _cached(facts, "state_writes"),
        len(function_keys) - len(kept_keys),
        last is not None,
        effects,
        helpers,
        reasons,
        traced,
        {
            check.code: check.remembered_reads(
                facts, None if memory is None else memory.remembered.get(check.code)
            )
            for check in remembering_checks()
        },
        phase_reads(
            index,
            facts,
            None if last is None else last.memory.caller_reads,
            () if scope is None else [k for k in scope if k not in kept_keys],
        ),
        order,
        listed,
        bodies,
        len(within),
    )
    return verdicts, errors, memory


def _listed(
    final: dict[FunctionKey, FunctionVerdict],
    order: dict[str, list[FunctionKey]],
    known: dict[str, list[FunctionVerdict]] | None,
    files: Collection[str] | None,
) -> dict[str, list[FunctionVerdict]]:
    """Each file's verdicts in report order (`order`): with the last phase's (`known`, taken
    over in place), only those of `files` listed again, the only files whose verdicts or
    order changed (those of the scope, and those whose lines an edit moved outside it); a
    list of every verdict of a 100k-line project made again cost an edit more than its
    chain of each file's list."""
    if known is None or files is None:
        return {file: [final[k] for k in keys] for file, keys in order.items()}
    for file in files:
        keys = order.get(file)
        if keys is None:
            known.pop(file, None)
        else:
            known[file] = [final[k] for k in keys]
    return known


def _report_order(
    final: dict[FunctionKey, FunctionVerdict],
    known: dict[str, list[FunctionKey]] | None,
    scope: Collection[FunctionKey] | None,
) -> dict[str, list[FunctionKey]]:
    """The keys of `final` by file, each file's by line and qualname (the report's order,
    files by name): with the last phase's (`known`, taken over in place), only the files of
    `scope` sorted again, the only ones whose verdicts (their lines among them) changed;
    every verdict of a 100k-line project sorted again took more than the rest of an edit's
    verdict phase."""
    order: dict[str, list[FunctionKey]] = {}
    if known is None or scope is None:
        for key in final:
            order.setdefault(key.file, []).append(key)
        files: Collection[str] = order
    else:
        for key in scope:
            if key in final:
                order.setdefault(key.file, []).append(key)
        files = {key.file for key in scope}
        for file in files:
            kept = [k for k in known.pop(file, ()) if k not in scope and k in final]
            if kept:
                order.setdefault(file, []).extend(kept)
        known.update(order)
        order, files = known, [f for f in files if f in known]
    for file in files:
        # read from the facts at once: the verdict's properties cost a call each
        order[file].sort(key=lambda k: (final[k].facts.line, final[k].facts.qualname))
    return order


@dataclass(frozen=True, slots=True)
class MovedLines:
    """How an edit moved the lines of its files (`ModuleEdit.shifts`, by file) and `fresh`:
    the functions whose inputs changed by more than those lines, up their callers (`fresh`
    of the phase with the changes of positions only left out: `FactChanges.unshifted`)."""

    shifts: dict[str, LineShift]
    fresh: set[FunctionKey]
    outside: set[FunctionKey] = field(default_factory=set)
    """The functions the edit only moved that the phase leaves out of its scope: their
    entries of the last phase's tables moved in place (`narrowed`)."""

    def narrowed(
        self,
        graph: DiGraph,
        memory: VerdictMemory,
        fresh: set[FunctionKey],
        scope: set[FunctionKey],
        start: set[FunctionKey],
        extra_down: Collection[FunctionKey],
    ) -> tuple[set[FunctionKey], set[FunctionKey]]:
        """`fresh` and `scope` (of every change, moved lines among them) narrowed to what
        changed by more than those lines (`start`, up its callers, and what they call): a
        function outside it reads nothing that changed but by the lines the edit moved
        (every caller of one is outside too), so its verdict is its last one moved, benefit
        and all, as `reusable` would find it, without the phase's work on it. Those
        (`outside`) have their entries in `memory` moved in place; one whose verdict cannot
        be moved (it met an error, its words cite a line as digits: `kept_moved`) is
        decided again, with its callers, as if its facts changed."""
        start = set(start)
        moved: dict[FunctionKey, tuple[FunctionVerdict, FunctionVerdict] | None] = {}
        while True:
            _, within = affected(graph, start, extra_down)
            stay = set()
            for key in scope - within:
                decided = memory.decided.get(key)
                if decided is None:
                    continue
                if key not in moved:
                    moved[key] = (
                        None
                        if key in memory.errors or key not in memory.final
                        else kept_moved(decided, memory.final[key], self.shifts, key.file)
                    )
                if moved[key] is None:
                    stay.add(key)
            if not stay:
                break
            start |= stay
        self.outside.update(scope - within)
        for key in self.outside:
            found = moved.get(key)
            if found is not None:
                memory.decided[key], memory.final[key] = found
            reasons = memory.reasons.get(key)
            if reasons:
                memory.reasons[key] = moved_value(reasons, self.shifts, key.file)
        self._move_summaries(self.outside, memory)
        for file in {key.file for key in self.outside}:
            order = memory.order.get(file)
            if order is not None:
                final = memory.final
                order.sort(key=lambda k: (final[k].facts.line, final[k].facts.qualname))
        return fresh & within, within

    def reusable(self, key: FunctionKey, memory: VerdictMemory) -> FunctionVerdict | None:
        """The last verdict of a function outside `fresh`, its lines and the lines its words
        cite moved where the edit moved them, when its words cite no line as digits and it
        met no error (`moved_verdicts`); None otherwise."""
        if key in self.fresh or key in memory.errors:
            return None
        old = memory.decided.get(key)
        if old is None or cites_lines(old):
            return None
        return moved_verdict(old, self.shifts, key.file)

    def moved_summaries(
        self, fresh: Collection[FunctionKey], memory: VerdictMemory
    ) -> set[FunctionKey]:
        """The functions of `fresh` outside `self.fresh` (whose facts and callees changed
        only by the lines the edit moved: what flows up from callees is the last phase's so
        moved too), with their effect and helper summaries of the last phase (`memory`, whose
        tables nothing reads after this phase) moved in place: their lines and the lines
        their words cite (`moved_verdicts.moved_value`, `moved_helper_summary`)."""
        found = {k for k in fresh if k not in self.fresh and k in memory.effects}
        self._move_summaries(found, memory)
        return found

    def _move_summaries(self, keys: Collection[FunctionKey], memory: VerdictMemory) -> None:
        effects, helpers = memory.effects, memory.helpers.summaries
        for key in keys:
            if key not in effects:
                continue
            effects[key] = moved_value(effects[key], self.shifts, key.file)
            summary = helpers.get(key)
            if summary is not None:
                helpers[key] = moved_helper_summary(summary, self.shifts, key.file)


def _keeps_verdict(
    key: FunctionKey,
    graph: DiGraph,
    fresh: Collection[FunctionKey],
    memory: VerdictMemory,
    covered: dict[FunctionKey, bool],
    was_covered: dict[FunctionKey, bool],
    traced: Collection[FunctionKey],
    reasons: list[NotCandidate],
    above: CallerReadCheck,
) -> bool:
    """A settled function (its facts and callees unchanged) keeps the last phase's verdict
    when nothing it reads of its callers changed either: no caller is fresh (a check may read
    a caller's calls and values: how it uses the result, what it passes), it is covered or
    not as before, the same callers run traced, and its candidacy (which may follow from its
    callers: a helper only TF1 code calls) is the same, and so is what a check read of
    callers further up (`above`)."""
    if key not in memory.decided or covered.get(key) != was_covered.get(key):
        return False
    callers = list(graph.predecessors(key)) if key in graph else []
    if any(c in fresh for c in callers):
        return False
    if any((c in traced) != (c in memory.traced) for c in callers):
        return False
    return reasons == memory.reasons.get(key) and above.unchanged(key)


def _inside_proposed_graphs(
    benefits: BenefitModel,
    decided: dict[FunctionKey, FunctionVerdict],
    keys: list[FunctionKey] | None,
    errors: list[FileError],
) -> dict[FunctionKey, str]:
    """`BenefitModel.inside_proposed_graphs`, whose failure on some unusual project costs the
    additions that refinement of their benefit, not the project its verdicts."""
    try:
        return benefits.inside_proposed_graphs(decided, keys)
    except Exception as exc:
        errors.append(
            FileError(
                ".",
                "internal error while estimating which additions run inside proposed graphs: "
                f"{type(exc).__name__}: {exc} (benefits are left as estimated per function; "
                "please report it)",
            )
        )
        return {}


def _cached(facts: TensorFacts, name: str) -> dict[object, object]:
    found = facts.cache.get(name)
    return found if isinstance(found, dict) else {}


@dataclass(slots=True)
class ProjectWide:
    """The facts of the verdict phase that span the whole project: any change in them may
    change verdicts anywhere, so an incremental phase compares them and gives up."""

    modules: CandidacyModules
    compiled: set[FunctionKey]
    """The methods a framework compiles by itself (`framework_compiled`: Keras steps,
    optimizer hooks); the functions the project compiles, by decorator or wrapping, are
    `ProjectFacts.compiled`."""
    variation: LiteralVariation
    checks: tuple[tuple[str, object], ...] = ()
    """Each check's project fact (`Check.project_fact`, `project_fact_checks`), by code: what
    its findings on one function read anywhere in the project."""
    taped: frozenset[tuple[FunctionKey, FunctionKey, str]] = frozenset()
    """The functions the project records on a gradient tape, with the function that does it
    and how (`taped_calls.taped_functions`; not its line, which a line-moving edit changes):
    read by the benefit of each from callers at any depth, or from a test handing it to a
    gradient check (no call edge leads there)."""

    def fingerprint(self) -> tuple[object, ...]:
        return (
            self.modules,
            self.compiled,
            self.variation.written_attributes(),
            self.variation.reassigned_globals(),
            self.checks,
            self.taped,
        )


def project_wide(
    index: ProjectIndex,
    facts: TensorFacts,
    keys: list[FunctionKey],
) -> ProjectWide:
    variation = LiteralVariation(index, facts)
    variation.written_attributes()
    variation.reassigned_globals()
    return ProjectWide(
        candidacy_modules(index, facts, keys),
        framework_compiled(index, facts, keys),  # only methods can be framework hooks
        variation,
        tuple((check.code, check.project_fact(index, facts)) for check in project_fact_checks()),
        frozenset((k, run.by, run.how) for k, run in taped_functions(index, facts).items()),
    )


def decide_incrementally(
    index: ProjectIndex,
    facts: TensorFacts,
    options: AnalysisOptions,
    memory: VerdictMemory | None,
    before: FactJournal | None,
    edit: ModuleEdit | None,
    progress: ProgressCallback | None = None,
    files: Collection[str] | None = None,
) -> tuple[list[FunctionVerdict], list[FileError], VerdictMemory]:
    """The verdicts after `Solver.update` re-solved the functions of `edit` in place (those
    it edited, and those whose lines it moved), deciding again only the functions whose
    inputs may have changed (`verdict_scope`); every function when there is nothing to start
    from or a project-wide fact changed. A function the edit only moved, whose inputs
    changed only by the lines it moved, gets its last verdict with its lines moved
    (`moved_verdicts`).

    `memory` is what the last phase left, `before` the facts as they were before the
    update (`Solver.journal`). The result equals that of `_decide` over every function.
    `progress` hears of each function decided. `files`: a solve from scratch whose result
    shows only these files decides only what their verdicts need (`_decide`); its memory
    serves no update."""
    with no_cyclic_gc():
        if memory is None or before is None or edit is None:
            forget_writers(facts, None)
            return _decide(index, facts, options, progress=progress, files=files)
        assert files is None, "an update decides what the edit reaches, every file's"
        shifts = dict(edit.shifts)
        edited = edit.edited | edit.moved
        changes = compare_facts(before, facts, shifts)
        readers = changed_readers(facts, changes)
        forget_writers(facts, readers | changes.keys)
        keys = project_keys(index)
        project = project_wide(index, facts, keys)
        if project.fingerprint() != memory.project_wide:
            return _decide(index, facts, options, project=project, progress=progress)
        writes = frozen_state_writes(index, facts)
        differing = differing_states(facts, memory.state_writes, writes)
        # the state the edited module code writes (moved module code calls what it called:
        # its writes differ, if they do, only where they moved, which `differing` finds)
        states = changed_state(memory.state_writes, writes, edit.edited, differing)
        stale = readers_of(memory.frozen_reads, states)
        seeds = scope_seeds(
            index,
            facts,
            keys,
            edited,
            changes,
            stale,
            lambda k: before.calls_before(facts, k),
            readers,
        )
        graph = memory.graph
        # A verdict kept may read what an edit of another module changes (a test's patch of
        # a function it calls): the functions whose entry changed are seeds, so their callers
        # are decided again (`Check.changed_reads`).
        remembered: set[FunctionKey] = set()
        for check in remembering_checks():
            changed = check.changed_reads(index, facts, memory.remembered.get(check.code))
            remembered |= {k for k in changed if k in graph}
        seeds |= remembered
        refresh = set(seeds)
        for key in changes.keys:
            if key in graph:
                refresh.update(graph.predecessors(key))
            refresh.update(facts.callback_callers.get(key, ()))
            refresh.update(facts.callers.get(key, ()))
        rewired, dropped = refresh_edges(graph, index, facts, sorted(refresh))
        seeds = _with_off_graph_readers(graph, facts, memory.caller_reads, seeds | rewired, seeds)
        fresh, scope = affected(graph, seeds, dropped)
        moved = None
        # the functions whose own inputs changed by more than moved lines: their frozen-state
        # reads (which hold no position) may have changed
        reread = seeds
        if edit.moved:
            # What changed but the lines the edit moved: the functions it reaches, up their
            # callers, are those a moved function's verdict may differ for by more than lines.
            real = changes.unshifted()
            real_seeds = scope_seeds(
                index,
                facts,
                keys,
                edit.edited,
                real,
                readers_of(
                    memory.frozen_reads,
                    moved_state(memory.state_writes, writes, states, shifts),
                    stale,
                ),
                lambda k: before.calls_before(facts, k),
                readers if real is changes else changed_readers(facts, real),
            )
            start = _with_off_graph_readers(
                graph, facts, memory.caller_reads, real_seeds | remembered | rewired, real_seeds
            )
            moved = MovedLines(shifts, callers_closure(graph, start))
            fresh, scope = moved.narrowed(graph, memory, fresh, scope, start, dropped)
            reread = real_seeds
        # What the memoised frozen-state reads of the other functions still say: those of
        # every function of the scope that keeps its verdict stay remembered with it (a later
        # change of a state it reads must find it: `readers_of`). The last phase's table,
        # which nothing reads after this, in place.
        facts.cache[FROZEN_READS] = _within_replaced(memory.frozen_reads, reread, {})
        # an edit of a class or of imports is an edit of its module's code (`edited_keys`)
        unchanged = not any(key.is_module_code for key in edit.edited)
        return _decide(
            index,
            facts,
            options,
            scope,
            memory,
            project,
            fresh,
            progress,
            moved=moved,
            classes_unchanged=unchanged,
        )


def _with_off_graph_readers(
    graph: DiGraph,
    facts: TensorFacts,
    reads: CallerReads,
    start: set[FunctionKey],
    changed: Collection[FunctionKey],
) -> set[FunctionKey]:
    """`start` with every function whose last verdict read, off the call graph, a function
    that `start` reaches up the call graph, or a name one of `changed` calls
    (`off_graph_readers`): as if those reads were call edges, so that the phase decides
    them, and their callers, again. Until no more is found: such a reader's callers may be
    read off the graph too."""
    found = set(start)
    if not reads.off_graph:
        return found
    while True:
        more = off_graph_readers(reads, facts, callers_closure(graph, found), changed) - found
        if not more:
            return found
        found |= more


_K = TypeVar("_K")
_V = TypeVar("_V")


def _within_replaced(table: dict[_K, _V], scope: Collection[_K], new: dict[_K, _V]) -> dict[_K, _V]:
    """`table` (changed in place) without the keys of `scope`, then with the entries of
    `new`: what a copy of `table` without those keys, updated with `new`, holds, in the same
    order, without the copy."""
    for key in scope:
        table.pop(key, None)
    table.update(new)
    return table


def _unevaluated(graph: DiGraph, failures: dict[FunctionKey, str]) -> dict[FunctionKey, str]:
    """The functions the fixed point failed to evaluate, and every function that calls one,
    directly or not (what such a callee does is not known, so neither is what the caller
    does), each with why."""
    found = dict(failures)
    root = {k: k for k in failures}
    stack = [k for k in failures if k in graph]
    while stack:
        callee = stack.pop()
        for caller in graph.predecessors(callee):
            if caller not in found:
                root[caller] = root[callee]
                name = callee.qualname
                reason = failures[root[callee]]
                found[caller] = f"it calls `{name}`, which could not be analysed ({reason})"
                stack.append(caller)
    return found


class EvaluationFailed(Exception):
    """The fixed point failed to evaluate a function (its message says how)."""


def _undecided(
    index: ProjectIndex, key: FunctionKey, exc: Exception, framework: Framework
) -> FunctionVerdict:
    """The verdict of a function the analysis failed on: nothing known, nothing changed."""
    relpath = key.file
    fn = index.function(key)
    facts = FunctionFacts(
        file=relpath,
        qualname=fn.qualname,
        line=fn.line,
        span=fn.span,
        framework=framework.name,
        has_tensor_parameter=None,
        has_primitive_parameters=None,
        has_python_side_effects=None,
        is_recursive=None,
        has_tensor_computation=None,
        caller_covered=None,
    )
    failure = InternalError.finding(
        (
            f"the analysis of this function {exc}; nothing is known of it and no change is proposed"
            if isinstance(exc, BudgetExceeded)
            else f"the analysis of this function failed: {exc}; nothing is known of it "
            "and no change is proposed"
            if isinstance(exc, EvaluationFailed)
            else f"the analysis failed on this function ({type(exc).__name__}); no "
            "change is proposed"
        ),
        fn.span,
    )
    return decide(DecisionInputs(facts, framework, findings=[failure]))


def is_hybrid(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, framework: Framework
) -> bool:
    """Decorated with the framework's compile decorator (`tf.function`) under any spelling,
    or wrapped by a call of it (`tf.function(f)`)."""
    return key in facts.wrapped_by_compiler or decorated_by_compiler(index, key, framework)


def decorator_arguments(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, framework: Framework
) -> dict[str, bool]:
    """Which arguments of the compile decorator (`tf.function`) the decorator, or a call
    compiling the function (`tf.function(g, ...)`), supplies."""
    relpath = key.file
    fn = index.function(key)
    found = set(facts.wrapper_arguments.get(key, set()))
    for decorator in fn.decorators:
        ref = index.resolve_dotted(relpath, decorator.name)
        if is_ext_ref(ref) and framework.is_decorator(ref[1]):
            found |= framework.argument_names(len(decorator.args), (k for k, _ in decorator.kwargs))
    return dict.fromkeys(found, True)


def flexibly_compiled(
    index: ProjectIndex, facts: TensorFacts, compiled: Iterable[FunctionKey]
) -> dict[FunctionKey, str]:
    """The compiled functions whose decorator (or compiling call) passes an argument with
    which one graph serves inputs of changing shapes (`Framework.flexible_signature_
    arguments`: `reduce_retracing`, `input_signature`), with that argument (the first by
    name; one written out as False counts too, the summaries keep the names): wrapping one
    in a compiled function of its own retraces per input length."""
    found: dict[FunctionKey, str] = {}
    for key in sorted(compiled, key=str):
        framework = index.function_framework(key)
        if not framework.flexible_signature_arguments:
            continue
        supplied = decorator_arguments(index, facts, key, framework)
        flexible = sorted(set(supplied) & framework.flexible_signature_arguments)
        if flexible:
            found[key] = flexible[0]
    return found


def keep_reason(
    index: ProjectIndex,
    key: FunctionKey,
    decorator_args: dict[str, bool],
    has_tensor: bool | None,
    computation: bool,
    opaque: bool,
    stateful: bool,
    framework: Framework,
    changed_returns: str | None = None,
) -> str | None:
    """Why an existing `tf.function` stays even where P2/P3/P6 would remove it, or None.

    A supplied `input_signature` is a deliberate contract (fixed dtypes and shapes, one
    trace); a decorator written inside a test exercises graph mode on purpose; a function
    without tensor parameters that still runs TensorFlow operations computes on what it
    captures or is given (variables, models, layers: calling one is TensorFlow computation)
    and the graph speeds that up; a call of an unknown callable on tensors (a loaded model) may be
    all the computation there is; `changed_returns` says why removing it would change what a
    caller gets (a check's `Check.keeps_decorator`).
    """
    if decorator_args.get("input_signature"):
        return "its input_signature fixes the traced dtypes and shapes on purpose"
    test = enclosing_test(index, key)
    if test is not None:
        return f"it is defined in the test `{test}`, which exercises graph mode on purpose"
    if has_tensor is False and stateful:
        return (
            f"no parameter is a tensor, but it runs {framework.title} operations on variables, "
            "models or layers it captures or is given, which the graph speeds up"
        )
    if not computation and opaque:
        return (
            "it applies a callable of unknown kind to tensors, which may run "
            f"{framework.title} operations"
        )
    return changed_returns


def _removal_changes(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey, framework: Framework
) -> str | None:
    """Why removing the compiler decorator changes what the function does for its callers:
    the first reason of the checks applying to its framework that may keep a decorator
    (`Check.keeps_decorator`)."""
    applying = applies_to(framework.name)
    for check in decorator_keepers():
        if applying(check.code):
            reason = check.keeps_decorator(index, facts, key)
            if reason is not None:
                return reason
    return None


def enclosing_test(index: ProjectIndex, key: FunctionKey) -> str | None:
    """The test function or test class the function is defined in (pytest's `test_*`
    functions and `Test*` classes, unittest's `TestCase` subclasses), or None."""
    relpath = key.file
    module = index.modules[relpath]
    fn = index.function(key)
    class_qualname = fn.class_qualname
    parent = fn.parent_qualname
    while parent is not None or class_qualname is not None:
        if class_qualname is not None:
            cls = module.classes.get(class_qualname)
            if cls is None:
                break
            if cls.name.startswith("Test") or index.is_test_case(
                FunctionKey(relpath, class_qualname)
            ):
                return cls.qualname
            parent, class_qualname = cls.parent_qualname, None
            continue
        assert parent is not None
        outer = module.functions.get(parent)
        if outer is None:
            break
        if outer.name.startswith("test"):
            return outer.qualname
        parent, class_qualname = outer.parent_qualname, outer.class_qualname
    return None


TEST_FILE_PATTERNS = ("test_*.py", "*_test.py", "conftest.py")
"""pytest's default test files (and its fixtures module)."""


@cache
def is_test_file(relpath: str) -> bool:
    """A file pytest collects as tests (`TEST_FILE_PATTERNS`), by its name alone: memoised,
    the benefit model asks for every caller of every function."""
    return any(fnmatchcase(relpath.rsplit("/", 1)[-1], p) for p in TEST_FILE_PATTERNS)


def is_test_code(index: ProjectIndex, key: FunctionKey) -> bool:
    """Code that only a test run executes: a test file's functions and module code, a test
    function or method, or anything defined inside one."""
    relpath = key.file
    if is_test_file(relpath):
        return True
    if key.is_module_code:
        return False
    fn = index.function(key)
    if fn.name.startswith("test"):
        return True
    if fn.class_qualname is not None:
        cls = index.modules[relpath].classes.get(fn.class_qualname)
        if cls is not None and (
            cls.name.startswith("Test") or index.is_test_case(FunctionKey(relpath, cls.qualname))
        ):
            return True
    return enclosing_test(index, key) is not None


@dataclass(frozen=True, slots=True)
class VerdictPhase:
    """What deciding any one function reads of the project: the checks' project facts and
    the options."""

    project: ProjectFacts
    options: AnalysisOptions


@dataclass(frozen=True, slots=True)
class FunctionInputs:
    """What the project-wide phase found of one function, before its verdict."""

    key: FunctionKey
    framework: Framework
    effects: EffectSummary
    recursive: bool
    computation: bool
    """Runs framework operations (itself or through callees)."""
    covered: bool
    """Every caller already runs as a graph."""
    compiled: bool
    """Already decorated or wrapped by the framework's compiler."""
    opaque: bool = False
    """Applies a callable of unknown kind to tensors."""
    stateful: bool = False
    """Runs operations on variables, models or layers it captures or is given."""
    not_candidate: list[NotCandidate] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Parameters:
    """What the analysis knows of a function's parameters, and whether any takes a tensor."""

    reports: tuple[ParamReport, ...]
    has_tensor: Tristate


def _verdict(phase: VerdictPhase, function: FunctionInputs) -> FunctionVerdict:
    """The facts of one function, its findings (every detecting check of the registry), and
    the decision on them (which adds the eligibility findings, HY0xx)."""
    index, facts, key = phase.project.index, phase.project.facts, function.key
    fn = index.function(key)
    parameters = _parameters(index, facts, key)
    has_tensor = parameters.has_tensor
    speculative = False
    assumptions: list[str] = []
    if has_tensor is None:
        assumption = speculate(index, key)
        if assumption is not None:
            has_tensor, speculative = True, True
            assumptions.append(assumption)
    # What compiling would change, only for a function that may be compiled: one that takes
    # no tensor is never decorated (HY001) (`CheckContext.compilable`).
    context = CheckContext(
        phase.project,
        key,
        function.framework,
        compiled=function.compiled,
        compilable=has_tensor is not False,
        effects=function.effects,
        recursive=function.recursive,
        speculative=speculative,
        infer_input_signatures=phase.options.infer_input_signatures,
        assumptions=assumptions,
    )
    detected = run_checks(context)
    findings = detected.findings
    retraces = context.retraces
    primitive: Tristate = True if retraces.literal else None if retraces.unknown else False
    signatures = context.signatures
    inferred = signatures.inference.signature if signatures.inference is not None else None
    # Keep one finding per (code, line) so a loop of prints is not a wall of text.
    unique: dict[tuple[str, int, int], Finding] = {}
    for finding in findings:
        unique.setdefault((finding.code, finding.span.start_line, finding.span.start_col), finding)
    compiled = function.compiled
    decorator_args = decorator_arguments(index, facts, key, function.framework) if compiled else {}
    function_facts = FunctionFacts(
        file=key.file,
        qualname=fn.qualname,
        line=fn.line,
        span=fn.span,
        framework=function.framework.name,
        is_hybrid=compiled,
        has_tensor_parameter=has_tensor,
        has_primitive_parameters=primitive,
        has_python_side_effects=_side_effects(function.effects),
        is_recursive=function.recursive,
        has_tensor_computation=function.computation,
        caller_covered=function.covered,
        check_facts=detected.facts,
        speculative=speculative,
        decorator_args=tuple((n, decorator_args.get(n, False)) for n in DECORATOR_ARG_NAMES),
        supplied_input_signature=signatures.supplied,
        input_signature=inferred,
        input_signature_absence_reason=signatures.inference.reason
        if signatures.inference is not None and inferred is None
        else None,
        params=parameters.reports,
    )
    return decide(
        DecisionInputs(
            function_facts,
            function.framework,
            not_candidate=function.not_candidate,
            assumptions=context.assumptions,
            addition_assumptions=process_wide_assumptions(index, facts, function.framework),
            findings=list(unique.values()),
            infer_input_signatures=phase.options.infer_input_signatures,
            keep_reason=keep_reason(
                index,
                key,
                decorator_args,
                has_tensor,
                function.computation,
                function.opaque,
                function.stateful,
                function.framework,
                _removal_changes(index, facts, key, function.framework),
            )
            if compiled
            else None,
        )
    )


def _parameters(index: ProjectIndex, facts: TensorFacts, key: FunctionKey) -> Parameters:
    """Each explicit parameter's kind from the call sites' evidence and its type hint."""
    explicit = index.function(key).explicit_params
    evidence = facts.external_evidence.get(key) or facts.param_atoms.get(key, {})
    reports: list[ParamReport] = []
    evaluator = get_evaluator(index, facts, key)
    any_tensor = False
    any_unknown = False
    for p in explicit:
        atoms = set(evidence.get(p.name, set())) | set(evaluator.hint_atoms(p.annotation))
        tensor = any(is_tensor_like(a) for a in atoms)
        if tensor:
            any_tensor = True
            is_tensor: bool | None = True
        elif not atoms:
            # No evidence: a parameter without a default is unknown, and so are `*args` and
            # `**kwargs` (a caller may pass tensors through them, e.g. `f(*batch)`, or a
            # framework may; nothing shows they stay empty). Only an unused default is known.
            is_tensor = None if p.default is None else False
            if is_tensor is None:
                any_unknown = True
        elif any(is_unknown_kind(a) for a in atoms):
            is_tensor = None
            any_unknown = True
        else:
            is_tensor = False
        specs = tuple(
            TensorSpec("TensorSpec", a[1], a[2])
            for a in sorted((a for a in atoms if kind_of(a) in ("tensor", "variable")), key=repr)
        )
        reports.append(ParamReport(p.name, is_tensor, specs))
    has_tensor: bool | None
    if any_tensor:
        has_tensor = True
    elif not explicit:
        has_tensor = False
    elif any_unknown:
        has_tensor = None
    else:
        has_tensor = False
    return Parameters(tuple(reports), has_tensor)


def _side_effects(summary: EffectSummary) -> Tristate:
    """`has_python_side_effects`: true with a certain effect, unknown with only effects the
    analysis cannot determine (the checks HY101-HY110 report them). An effect whose check is
    switched off for an experiment (`switched_off_checks`) counts for nothing, as a switched-off
    safety check's fact reads false: HY110 off must unblock what only HY110 blocks."""
    off = disabled_codes()
    if off:
        # each parameter mutated (`mutated_params`) has its HY107 effect among `effects`
        if any(e.code not in off for e in summary.effects):
            return True
        return None if any(e.code not in off for e in summary.undeterminable) else False
    if summary.has_effects:
        return True
    return None if summary.undeterminable else False
