"""The registry of checks: one stable code per reason a verdict fails or a hazard exists.

Each check lives in its own module of this package as a subclass of `Check` with a code
`HYnnn`, the failure name of docs/verdicts.md it maps to, a one-line summary, a docstring with the
sections "What it detects", "Why it matters in graph mode", "Example" and "Instead", and
`VALID` / `INVALID` programs: in every INVALID program the function named by
`EXAMPLE_FUNCTION` gets a finding with this code, starting on exactly the lines marked
`# expect: HYnnn`, in every VALID one it does not. A single
parametrised test runs them all. The programs are data of the `hybridize` package, in
`hybridize/check_examples/HYnnn/valid-N.txt` and `invalid-N.txt` (a first comment line says
what each shows): they import TensorFlow, and nothing under hybridize/analyzer/ spells such an import,
not even as text. Families by hundreds: HY0xx eligibility and benefit, HY1xx
Python side effects, HY2xx retracing, HY3xx eager-only escapes, HY4xx framework hazards, HY5xx
structure, HY9xx tool errors.

A check is the one home of its code: its name and severity, its documentation and examples,
and, for the hazards (HY1xx-HY4xx, HY501, HY013) and HY014, its detection: `detect(context)` gives the
function's findings of this code, made with `Check.finding` so that their name and severity
are the check's (a case where a code takes another severity is declared here as a `Variant`).
The engine runs every detecting check (`detecting`, `run.py`) on a `CheckContext`
(`context.py`). A check that decides a fact names it in `fact` (a verdict holds it in
`FunctionFacts.check_facts`; the JSON report, its schema and the editor's hover list the
facts whose checks give a `report_order`, in that order, `report_fact_fields`) and, for a safety fact that fails a verdict, its place in the
decision table in `decision_order` (`safety_checks`); the fact holds when the check, or a
check whose `counts_for` names it, finds something. Detections do not walk trees: they read
the facts the analysis computed once (the facts modules are their shared machinery and give
`Evidence`, never findings). The eligibility codes (HY0xx) are outcomes of the decision table
and the tool's errors (HY9xx) of the engine: both are made through `Check.finding` too.

What the engine's incremental phase must know of a check, the check declares, and the engine
reads it from the registry (`project_fact_checks`, `caller_tables`, `caller_answers`,
`off_graph_reads`, `remembering_checks`, `decorator_keepers`), never from a check module:
what its findings read anywhere in the project (`Check.project_fact`), what its detection
reads of callers above the direct ones (`caller_tables`, `caller_answers`), of functions the
call graph does not connect to the function (`off_graph_reads`), what a kept verdict read
that an edit elsewhere may change (`remembered_reads`, `changed_reads`), and why an existing
decorator stays (`keeps_decorator`).

Each check declares the frameworks (compile targets, `Framework.name`) it applies to: what a
`print` does under `tf.function` is not what it does under `torch.compile`, so a check written
from TensorFlow's semantics applies to TensorFlow only until its reasoning is checked against
another framework's. The decision step keeps only the findings of checks that apply to the
function's framework (`applies`), and a safety fact whose check does not apply to the
function's framework is no hazard there: it reads false (`decide`).
A check switched off for experiments (`switched_off_checks`) applies to no framework.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import hybridize
from hybridize.analyzer.facts.evidence import Evidence
from hybridize.analyzer.frameworks.framework import FRAMEWORKS, TENSORFLOW, TORCH
from hybridize.analyzer.summaries.hook_tags import hook_added
from hybridize.analyzer.summaries.hooks import HookTable, SummaryHook, hook_tag
from hybridize.analyzer.switched_off_checks import disabled_codes
from hybridize.model import Finding, Severity, Span

if TYPE_CHECKING:
    from hybridize.analyzer.checks.context import CheckContext, ProjectFacts
    from hybridize.analyzer.facts.evaluator import TensorFacts
    from hybridize.analyzer.facts.resolve import ProjectIndex
    from hybridize.analyzer.summaries.ir import FunctionSummary
    from hybridize.analyzer.summaries.keys import FunctionKey

ALL_FRAMEWORKS: frozenset[str] = frozenset(f.name for f in FRAMEWORKS)
"""For checks that are about the tool, not about a framework (file and internal errors)."""
TENSORFLOW_ONLY: frozenset[str] = frozenset({TENSORFLOW.name})
"""For checks whose hazard exists under `tf.function` only (each says why in its docstring)."""
TORCH_ONLY: frozenset[str] = frozenset({TORCH.name})
"""For checks whose hazard exists under `torch.compile` only (each says why in its docstring)."""
TENSORFLOW_AND_TORCH: frozenset[str] = frozenset({TENSORFLOW.name, TORCH.name})
"""For checks whose fact means the same under `torch.compile`, by the labelling policy of
corpus/README.md (each says how in its docstring, section "Under torch.compile")."""


@dataclass(frozen=True, slots=True)
class CallerTable:
    """A project-wide table of functions a check's detection reads the entry of one function
    in (`Check.caller_tables`): its `facts.cache` name, and what computes it."""

    name: str
    compute: Callable[[ProjectIndex, TensorFacts], Mapping[FunctionKey, object]]


@dataclass(frozen=True, slots=True)
class CallerAnswers:
    """Answers a check's detection reads of callers at any depth (the nearest compiled one),
    recorded per function as a list under a `facts.cache` name (`Check.caller_answers`), with
    what tells whether one of a function's still holds, given what the phase knows of the
    project: the same `ProjectFacts` the detections read (its compiled functions are the
    decorated or wrapped ones, as `CheckContext.project.compiled`), so that an answer kept
    is the one a detection would give now."""

    name: str
    holds: Callable[[ProjectFacts, FunctionKey, object], bool]


@dataclass(frozen=True, slots=True)
class OffGraphReads:
    """What a check's detection reads of functions the call graph does not connect to the
    function decided (a `@property` getter it reads, the wrapper a project decorator puts in
    place of a callee, the methods a call by name on an object the analysis cannot see may
    run: HY423), recorded per function under a `facts.cache` name (`Check.off_graph_reads`):
    a set of the functions read, and of the names (`str`) whose callers were read. An
    incremental phase decides a verdict again when a function it read is one an edit reaches
    (`verdict_scope.callers_closure`), or when a function an edit reaches calls a name it read
    (`named`: the names a function calls that such a verdict reads the callers of), as it
    does along the call graph's edges (`engine.decide_incrementally`)."""

    name: str
    named: Callable[[TensorFacts, FunctionKey], Iterable[str]]


@dataclass(frozen=True, slots=True)
class Variant:
    """A case in which a check's findings take another name or severity than its own (a
    supplied signature that fits the call sites is information, not a warning)."""

    name: str
    severity: Severity


class Check:
    """One finding code: its documentation, examples, severity and (where the engine runs it)
    its detection."""

    code: ClassVar[str] = ""
    name: ClassVar[str] = ""
    severity: ClassVar[Severity] = "warning"
    variants: ClassVar[Mapping[str, Variant]] = {}
    """Other names and severities the code's findings take, by case (`finding(variant=...)`)."""
    fact: ClassVar[str] = ""
    """The fact this check decides, if it decides one (its name in `FunctionFacts.check_facts`
    and, where the report has a field for it, that field's name): true when it finds
    something."""
    report_order: ClassVar[int | None] = None
    """For a fact the report has a field for: that field's place among the report's check
    facts (`report_fact_fields`; they follow `has_tensor_computation` in this order). The report
    is a public interface whose fields are added, never moved: a new field takes a number
    above all others. None: the fact shows in the failures and findings only."""
    fact_meaning: ClassVar[str] = ""
    """For a safety fact: what it means, in one line of docs/verdicts.md's table of safety
    facts (generated from the registry by `python -m tools.gen_rule_docs`)."""
    decision_order: ClassVar[int | None] = None
    """For a safety fact, a true value of which fails the verdict: its place in the decision
    table (docs/verdicts.md section 2, rule 5), the order in which failures list them. None
    for a fact that is reported only (HY404's statically read axes)."""
    counts_for: ClassVar[str] = ""
    """The code of the check whose fact this check's findings make true too (HY303, a tensor
    used as a Python value, fails `has_eager_only_calls` like HY301)."""
    summary: ClassVar[str] = ""
    unblock: ClassVar[str] = ""
    """One line: the one thing that would lift this finding (the gist of the docstring's
    "Instead" section), shown next to a blocked function in the reports."""
    frameworks: ClassVar[frozenset[str]] = frozenset()
    """The frameworks (`Framework.name`) whose functions this check's findings apply to: each
    check names them (`TENSORFLOW_ONLY` until its reasoning is checked against another
    framework); none, a check applies nowhere."""
    about_addition: ClassVar[bool] = False
    """Its findings are about the decorator the refactoring adds (the argument it writes):
    the decision keeps them only on a verdict that adds one (`decide`)."""
    caller_tables: ClassVar[tuple[CallerTable, ...]] = ()
    caller_answers: ClassVar[tuple[CallerAnswers, ...]] = ()
    """The answers about callers at any depth the detection records (`CallerAnswers`): an
    incremental phase keeps a verdict only when each still holds (`caller_answers`,
    `decisions/caller_reads.py`)."""
    off_graph_reads: ClassVar[tuple[OffGraphReads, ...]] = ()
    """The functions the detection reads that the call graph does not connect to the
    function (`OffGraphReads`): an incremental phase decides a verdict again when one of them
    changed (`off_graph_reads`, `decisions/caller_reads.py`)."""
    """The project-wide tables whose entry of a function the detection reads, where the entry
    may come from a function above the direct callers (a witness several levels up: a tracer
    call, a test's patch, a value differentiated twice): an incremental phase keeps a verdict only when its entries are the same
    (`caller_tables`, `decisions/caller_reads.py`)."""
    summary_hook: ClassVar[SummaryHook[Any] | None] = None
    """For a check whose detection reads a fact of the code as written that the summaries do
    not record: the nodes it wants and what it records of each (`summaries/hooks.py`), read
    back with `summary_facts`."""
    EXAMPLE_FUNCTION: ClassVar[str] = "f"
    INFER_INPUT_SIGNATURES: ClassVar[bool] = False
    """Run the examples with `--infer-input-signatures` (checks about signatures)."""
    VALID: ClassVar[tuple[str, ...]] = ()
    INVALID: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: object) -> None:
        """The check's example programs are those of `check_examples/<code>/`, unless it
        names its own: read when first asked for (`ExamplePrograms`)."""
        super().__init_subclass__(**kwargs)
        if cls.code:
            for attribute, kind in (("VALID", "valid"), ("INVALID", "invalid")):
                given = next(vars(k)[attribute] for k in cls.__mro__ if attribute in vars(k))
                if isinstance(given, ExamplePrograms) or not given:
                    setattr(cls, attribute, ExamplePrograms(cls.code, kind))

    @classmethod
    def finding(
        cls, message: str, span: Span, related: tuple[Span, ...] = (), variant: str = ""
    ) -> Finding:
        """A finding of this code, with the check's name and severity (or `variant`'s)."""
        if variant:
            case = cls.variants[variant]
            return Finding(cls.code, case.name, case.severity, message, span, related)
        return Finding(cls.code, cls.name, cls.severity, message, span, related)

    @classmethod
    def findings(cls, evidence: Iterable[Evidence]) -> list[Finding]:
        """Findings of this code, one per piece of evidence, in its order."""
        return [cls.finding(e.message, e.span, e.related) for e in evidence]

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """This check's findings on the function of `context`; a check that overrides it is
        run by the engine (`detecting`), the others are attached where their facts are."""
        return []

    @classmethod
    def summary_facts(cls, fn: FunctionSummary) -> tuple[Any, ...]:
        """What this check's `summary_hook` recorded in `fn` (nothing without one)."""
        return cls.summary_hook.facts(fn, cls.code) if cls.summary_hook is not None else ()

    @classmethod
    def detects(cls) -> bool:
        """Whether the check has a detection of its own (overrides `detect`)."""
        return cls._overrides("detect")

    @classmethod
    def project_fact(cls, index: ProjectIndex, facts: TensorFacts) -> object:
        """For a check whose findings on one function read something anywhere in the project
        (a test that seeds the global random stream, an unresolved call comparing results by
        identity): that, as a value compared by equality, memoised per solution where the
        detection reads it too. An incremental verdict phase compares every check's with the
        last phase's and decides every function again when one changed (`engine.ProjectWide`);
        the checks that override it are `project_fact_checks`."""
        return None

    @classmethod
    def keeps_decorator(
        cls, index: ProjectIndex, facts: TensorFacts, key: FunctionKey
    ) -> str | None:
        """For a check about what compiled functions do differently: why removing the compiler
        decorator of the compiled function `key` would change what it does for its callers, in
        words, or None. The engine keeps an existing decorator for the first reason of the
        checks applying to its framework that override it (`decorator_keepers`)."""
        return None

    @classmethod
    def remembered_reads(cls, facts: TensorFacts, before: object) -> object:
        """For a check whose verdicts read something of other functions that an edit of
        another module may change while a function and its callers stay settled (a test's
        patch of a function it calls): what this phase's verdicts read, else (none asked)
        what the verdicts kept from an earlier phase read (`before`). The verdict memory keeps
        it (`engine.VerdictMemory.remembered`) for `changed_reads`."""
        return before

    @classmethod
    def changed_reads(
        cls, index: ProjectIndex, facts: TensorFacts, remembered: object
    ) -> Collection[FunctionKey]:
        """The functions whose entry of what `remembered_reads` kept differs in this solution:
        an incremental phase decides their callers again. The checks that override it are
        `remembering_checks`."""
        return ()

    @classmethod
    def _overrides(cls, name: str) -> bool:
        below = cls.__mro__[: cls.__mro__.index(Check)]
        return any(name in vars(klass) for klass in below)

    @classmethod
    def documentation(cls) -> str:
        """The text `hybridize explain CODE` prints."""
        doc = (cls.__doc__ or "").strip("\n")
        lines = doc.splitlines()
        indent = min((len(x) - len(x.lstrip()) for x in lines[1:] if x.strip()), default=0)
        body = "\n".join([lines[0].strip(), *[x[indent:] for x in lines[1:]]]) if lines else ""
        return f"{cls.code} {cls.name}: {cls.summary}\n\n{body}\n"


EXAMPLES = Path(hybridize.__file__).parent / "check_examples"


def _examples(code: str, kind: str) -> tuple[str, ...]:
    """The `kind` ("valid" or "invalid") programs of a check, in their numbered order."""
    files = sorted((EXAMPLES / code).glob(f"{kind}-*.txt"), key=lambda p: int(p.stem.split("-")[1]))
    return tuple(path.read_text(encoding="utf-8") for path in files)


class ExamplePrograms:
    """A check's example programs of one kind (`Check.VALID`, `Check.INVALID`), read from
    `check_examples/<code>/` when first asked for: the tests and the rule docs read them, an
    analysis never does, and reading every check's files cost every run its start-up."""

    def __init__(self, code: str, kind: str) -> None:
        self.code = code
        self.kind = kind
        self.programs: tuple[str, ...] | None = None

    def __get__(self, instance: object, owner: type | None = None) -> tuple[str, ...]:
        if self.programs is None:
            self.programs = _examples(self.code, self.kind)
        return self.programs


_ADDED: dict[str, type[Check]] = {}
"""Checks registered from outside this package (`registered`), by code."""


@cache
def _discovered() -> dict[str, type[Check]]:
    """The checks defined in the modules of this package, importing them once."""
    for module in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{module.name}")
    found: dict[str, type[Check]] = {}
    stack = list(Check.__subclasses__())
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        if cls.code and cls.__module__.startswith(f"{__name__}."):
            found[cls.code] = cls
    return found


@cache
def registry() -> dict[str, type[Check]]:
    """Every registered check by code: this package's, and those added with `registered`."""
    return dict(sorted({**_discovered(), **_ADDED}.items()))


@contextmanager
def registered(check: type[Check]) -> Iterator[type[Check]]:
    """Register `check` (a plugin's, a test's) while the block runs: the engine runs its
    detection, and its fact joins the decision table; the registry is as before after."""
    if check.code in registry():
        raise ValueError(f"{check.code} is already registered")
    _ADDED[check.code] = check
    hook_added(check.code, hook_tag(check.summary_hook) if check.summary_hook else None)
    _forget()
    try:
        yield check
    finally:
        del _ADDED[check.code]
        hook_added(check.code, None)
        _forget()


def _forget() -> None:
    """Drop what is derived from the registry (it changed)."""
    for derived in (
        registry,
        checks_for,
        detecting,
        detections,
        fact_checks,
        safety_checks,
        report_fact_fields,
        project_fact_checks,
        caller_tables,
        caller_answers,
        off_graph_reads,
        decorator_keepers,
        remembering_checks,
        summary_hooks,
        _facts_applying,
    ):
        derived.cache_clear()


@cache
def checks_for(framework: str) -> dict[str, type[Check]]:
    """The registered checks that apply to functions of `framework` (`Framework.name`)."""
    return {code: check for code, check in registry().items() if framework in check.frameworks}


@cache
def detecting(framework: str | None = None) -> tuple[type[Check], ...]:
    """The checks with a detection of their own (the engine runs them), of those that apply
    to `framework` or of all."""
    checks = registry() if framework is None else checks_for(framework)
    return tuple(check for check in checks.values() if check.detects())


@dataclass(frozen=True, slots=True)
class Detection:
    """A detecting check as the engine runs it on a function of one framework: the check, and
    the fact its findings make true (its own, or that of the check it counts for; "" for
    none)."""

    check: type[Check]
    fact: str


@cache
def detections(framework: str) -> tuple[Detection, ...]:
    """`detecting(framework)` with each check's fact looked up once: the registry is static
    while it runs, and the engine asks this for every function it decides."""
    return tuple(
        Detection(check, (check_of(check.counts_for) if check.counts_for else check).fact)
        for check in detecting(framework)
    )


@cache
def fact_checks() -> tuple[type[Check], ...]:
    """The checks that decide a fact (`Check.fact`), in code order."""
    return tuple(check for check in registry().values() if check.fact)


@cache
def safety_checks() -> tuple[type[Check], ...]:
    """The checks deciding safety facts, in decision-table order (`decision_order`)."""
    owners = [check for check in fact_checks() if check.decision_order is not None]
    return tuple(sorted(owners, key=lambda check: (check.decision_order or 0, check.code)))


@cache
def report_fact_fields() -> tuple[str, ...]:
    """The facts of the registry's checks that the report has fields for, in the report's
    order (`report_order`): the JSON report, its schema and the hover list these."""
    reported = [check for check in fact_checks() if check.report_order is not None]
    return tuple(
        check.fact for check in sorted(reported, key=lambda check: check.report_order or 0)
    )


@cache
def project_fact_checks() -> tuple[type[Check], ...]:
    """The checks with a project fact of their own (override `Check.project_fact`), in code
    order: the engine's project-wide facts are theirs and its own (`engine.ProjectWide`)."""
    return tuple(check for check in registry().values() if check._overrides("project_fact"))


@cache
def caller_tables() -> dict[str, CallerTable]:
    """Every check's `caller_tables` by name, in code order (a table two checks read, once)."""
    return {table.name: table for check in registry().values() for table in check.caller_tables}


@cache
def caller_answers() -> dict[str, CallerAnswers]:
    """Every check's `caller_answers` by name, in code order."""
    return {
        answers.name: answers for check in registry().values() for answers in check.caller_answers
    }


@cache
def off_graph_reads() -> dict[str, OffGraphReads]:
    """Every check's `off_graph_reads` by name, in code order."""
    return {reads.name: reads for check in registry().values() for reads in check.off_graph_reads}


@cache
def decorator_keepers() -> tuple[type[Check], ...]:
    """The checks that may keep an existing compiler decorator (override
    `Check.keeps_decorator`), in code order; the engine asks those that apply."""
    return tuple(check for check in registry().values() if check._overrides("keeps_decorator"))


@cache
def remembering_checks() -> tuple[type[Check], ...]:
    """The checks whose verdicts read what an edit elsewhere may change (override
    `Check.changed_reads`), in code order."""
    return tuple(check for check in registry().values() if check._overrides("changed_reads"))


@cache
def summary_hooks() -> HookTable:
    """The registered checks' summary hooks (`Check.summary_hook`), in code order: what the
    summariser runs (`Project` passes them to it: `summarize_text(relpath, text, hooks)`)."""
    return HookTable.of(
        {code: check.summary_hook for code, check in registry().items() if check.summary_hook}
    )


def check_of(code: str) -> type[Check]:
    """The check of a code (a code without one is a defect of the analysis)."""
    return registry()[code]


def applies(code: str, framework: str) -> bool:
    """Whether a finding with `code` belongs on a function of `framework`: its check applies
    to that framework (a code no check documents is kept: nothing says otherwise) and is not
    switched off (`disabled_codes`)."""
    return applies_to(framework)(code)


def facts_applying(framework: str) -> dict[str, bool]:
    """Each fact of `fact_checks`, in their order, and whether its check applies to
    functions of `framework` (`applies`): the decision step reads it for every function,
    the same for every function of a framework while the switched-off codes stay the same."""
    return _facts_applying(framework, disabled_codes())


@cache
def _facts_applying(framework: str, disabled: frozenset[str]) -> dict[str, bool]:
    applying = applies_to(framework)
    return {check.fact: applying(check.code) for check in fact_checks()}


def applies_to(framework: str) -> Callable[[str], bool]:
    """`applies` for one framework, with the switched-off codes and the registry read once: the
    decision step asks it some thirty times per function (opening a 20k-line project read the
    environment 97k times through `applies`)."""
    disabled = disabled_codes()
    checks = registry()

    def applying(code: str) -> bool:
        if code in disabled:
            return False
        check = checks.get(code)
        return check is None or framework in check.frameworks

    return applying
