"""The project's plan: every file's plan, made once, reused from the cache, written safely.

`plan_refactorings` groups the passing, selected verdicts by file, takes each file's bytes from
the snapshot taken before the analysis (or from disk), reuses the cached plan of a file whose
bytes and verdicts are unchanged, and plans the others (on several processes for a large
project). A file's plan may ask whether another file imports a name it is about to drop; that
question is answered here, where all files are known. The plan is a value: `diff()` shows it,
`apply_plan` writes it, `refactored_files()` feeds the JSON report.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from hybridize.analyzer.cycle_collector import collector_paused
from hybridize.analyzer.summaries.sources import discover, relative_name
from hybridize.model import AnalysisResult, FunctionVerdict
from hybridize.refactor.document import Document
from hybridize.refactor.edits import LineEdit
from hybridize.refactor.plan_cache import PlanCache
from hybridize.refactor.planned import FilePlan, Notice, PlannedChange
from hybridize.refactor.selection import Selection
from hybridize.refactor.wildcards import wildcard_bindings
from hybridize.refactor.writer import write_atomically


@dataclass(frozen=True, slots=True)
class RefactorPlan:
    """Every file the planned transformations change, and what could not be planned."""

    root: Path
    files: tuple[FilePlan, ...] = ()
    notices: tuple[Notice, ...] = ()

    @property
    def changes(self) -> tuple[PlannedChange, ...]:
        return tuple(c for f in self.files for c in f.changes)

    def diff(self) -> str:
        return "".join(f.diff() for f in self.files)

    def refactored_files(self) -> dict[str, str]:
        return {f.file: f.new_text for f in self.files}


@dataclass(slots=True)
class ApplyReport:
    """What `apply_plan` wrote and what it had to leave alone."""

    written: list[FilePlan] = field(default_factory=list)
    failed: list[Notice] = field(default_factory=list)


def project_base(result: AnalysisResult) -> Path:
    """The folder report paths are relative to: the root, or the folder of a root file."""
    root = Path(result.root)
    return root.parent if root.is_file() else root


def read_snapshot(path: Path) -> dict[str, bytes]:
    """The bytes of every Python file below `path`, by report name: taken before the analysis,
    it is what the verdicts are about, and what a file must still hold when it is written."""
    root = path.resolve()
    base = root.parent if root.is_file() else root
    files, _ = discover(root)
    snapshot: dict[str, bytes] = {}
    for file in files:
        try:
            snapshot[relative_name(file, base)] = file.read_bytes()
        except OSError:
            continue  # the analysis reports it
    return snapshot


PARALLEL_THRESHOLD = 40
"""Below this many files to plan, worker processes cost more than they save."""

Payload = tuple[str | None, tuple[LineEdit, ...], tuple[PlannedChange, ...], tuple[Notice, ...]]
"""A file's plan without its bytes: new text (None: unchanged), edits, changes, notices."""


def plan_refactorings(
    result: AnalysisResult,
    selection: Selection | None = None,
    snapshot: Mapping[str, bytes] | None = None,
    cache: PlanCache | None = None,
    jobs: int | None = None,
) -> RefactorPlan:
    """Plan the transformation of every passing, selected verdict of `result`.

    `snapshot` holds the files' bytes as the analysis saw them (see `read_snapshot`); without
    it, files are read now. With a `cache`, a file whose bytes and verdicts were planned
    before is not planned again. Many files are planned on `jobs` processes (default: every
    core).
    """
    selection = selection or Selection()
    base = project_base(result)
    by_file: dict[str, list[FunctionVerdict]] = {}
    for verdict in result.functions:
        if selection.proposes(verdict):
            by_file.setdefault(verdict.file, []).append(verdict)
    texts = _ProjectTexts(base, snapshot)
    outcomes: dict[str, tuple[FilePlan | None, list[Notice]]] = {}
    pending: list[tuple[str, bytes, list[FunctionVerdict], str | None]] = []
    for relpath in sorted(by_file):
        raw = texts.raw(relpath)
        if isinstance(raw, str):
            outcomes[relpath] = (None, [Notice(relpath, None, raw)])
            continue
        verdicts = sorted(by_file[relpath], key=lambda v: (v.line, v.qualname))
        key = cache.key(relpath, raw, verdicts) if cache is not None else None
        hit = None
        if cache is not None and key is not None:
            hit = _from_payload(cache.get(key), relpath, base / relpath, raw)
        if hit is not None:
            outcomes[relpath] = hit
        else:
            pending.append((relpath, raw, verdicts, key))
    computed = _plan_many([(r, raw, v) for r, raw, v, _ in pending], texts, jobs)
    for relpath, raw, _, key in pending:
        payload, cacheable = computed[relpath]
        if cache is not None and key is not None and cacheable:
            cache.put(key, payload)
        outcome = _from_payload(payload, relpath, base / relpath, raw)
        assert outcome is not None, "a payload just computed is well formed"
        outcomes[relpath] = outcome
    files = [plan for plan, _ in (outcomes[r] for r in sorted(outcomes)) if plan is not None]
    notices = [n for r in sorted(outcomes) for n in outcomes[r][1]]
    return RefactorPlan(root=base, files=tuple(files), notices=tuple(notices))


def _plan_many(
    work: list[tuple[str, bytes, list[FunctionVerdict]]], texts: _ProjectTexts, jobs: int | None
) -> dict[str, tuple[Payload, bool]]:
    """Payloads by file, and whether each may be cached (it did not look at other files)."""
    workers = jobs or os.cpu_count() or 1
    out: dict[str, tuple[Payload, bool]] = {}
    redo = work
    if workers > 1 and len(work) >= PARALLEL_THRESHOLD:
        # Imported here: a plan served by the cache needs no process pool (multiprocessing:
        # 7 ms to import).
        from hybridize.analyzer.workers import run_isolated

        # One file at a time per worker: a worker that crashes costs only its file's plan.
        for relpath, payload, consulted in run_isolated(_plan_in_worker, work, workers, _failed):
            if consulted is None:
                out[relpath] = (payload, False)  # failed: reported, never cached nor redone here
            elif not consulted:
                out[relpath] = (payload, True)
        # A worker cannot see the other files: a plan that asked about them is made here.
        redo = [item for item in work if item[0] not in out]
    # Syntax trees are acyclic: the cycle collector would only walk them again and again
    # (measured: 40% of the planning time of a large project).
    with collector_paused():
        for relpath, raw, verdicts in redo:
            payload, consulted = _plan_payload(relpath, raw, verdicts, texts)
            out[relpath] = (payload, not consulted)
    return out


def _plan_in_worker(
    item: tuple[str, bytes, list[FunctionVerdict]],
) -> tuple[str, Payload, bool | None]:
    """A worker's plan of one file, made without the other files (asking about them is
    reported, and the plan is then made again in the parent)."""
    relpath, raw, verdicts = item
    with collector_paused():  # as in `_plan_many`: syntax trees are acyclic
        payload, consulted = _plan_payload(relpath, raw, verdicts, None)
    return relpath, payload, consulted


def _failed(
    item: tuple[str, bytes, list[FunctionVerdict]], reason: str
) -> tuple[str, Payload, bool | None]:
    """The plan of a file whose worker crashed or ran out of time: unchanged, with a notice."""
    relpath = item[0]
    return relpath, (None, (), (), (Notice(relpath, None, f"cannot refactor: {reason}"),)), None


def _plan_payload(
    relpath: str, raw: bytes, verdicts: list[FunctionVerdict], texts: _ProjectTexts | None
) -> tuple[Payload, bool]:
    """One file's payload, and whether planning it asked about other files (`texts` None:
    they cannot be seen here, and every answer is the cautious one)."""
    consulted: list[str] = []

    def used_elsewhere(name: str) -> bool:
        consulted.append(name)
        return True if texts is None else texts.used_elsewhere(relpath, name)

    def star_bindings(statement: ast.ImportFrom) -> Mapping[str, str]:
        consulted.append("*")
        if texts is None:
            return {}
        return wildcard_bindings(texts.texts(), relpath, statement.module, statement.level)

    from hybridize.refactor.file_plan import plan_file  # the planner: only for a cache miss

    file_plan, notices = plan_file(
        relpath, Path(relpath), raw, verdicts, used_elsewhere, star_bindings
    )
    if file_plan is None:
        return (None, (), (), tuple(notices)), bool(consulted)
    payload = (file_plan.new_text, file_plan.edits, file_plan.changes, tuple(notices))
    return payload, bool(consulted)


def _from_payload(
    value: object, relpath: str, path: Path, raw: bytes
) -> tuple[FilePlan | None, list[Notice]] | None:
    """A payload (computed or cached) rebuilt around the file's bytes; None if it is not one."""
    if not (isinstance(value, tuple) and len(value) == 4):
        return None
    new_text, edits, changes, notices = value
    if not (isinstance(notices, tuple) and all(isinstance(n, Notice) for n in notices)):
        return None
    if new_text is None:
        return None, list(notices)
    document = Document.from_bytes(raw, relpath)
    if not (
        isinstance(new_text, str)
        and isinstance(document, Document)
        and isinstance(edits, tuple)
        and all(isinstance(e, LineEdit) for e in edits)
        and isinstance(changes, tuple)
        and all(isinstance(c, PlannedChange) and c.file == relpath for c in changes)
    ):
        return None
    plan = FilePlan(relpath, path, document, edits, changes, new_text)
    return plan, list(notices)


class _ProjectTexts:
    """The project's files as bytes (from the snapshot or the disk) and, lazily, as text for
    the check that no other file uses an import about to be dropped."""

    def __init__(self, base: Path, snapshot: Mapping[str, bytes] | None) -> None:
        self.base = base
        self.snapshot = snapshot
        self._texts: dict[str, str] | None = None

    def raw(self, relpath: str) -> bytes | str:
        if self.snapshot is not None:
            if relpath in self.snapshot:
                return self.snapshot[relpath]
            return "cannot refactor: the file was not readable before the analysis"
        try:
            return (self.base / relpath).read_bytes()
        except OSError as exc:
            return f"cannot refactor: cannot read it: {exc.strerror or exc}"

    def texts(self) -> dict[str, str]:
        if self._texts is None:
            raws = self.snapshot if self.snapshot is not None else read_snapshot(self.base)
            self._texts = {name: raw.decode("utf-8", "replace") for name, raw in raws.items()}
        return self._texts

    def used_elsewhere(self, relpath: str, name: str) -> bool:
        """Whether another file may import `name` from this module: a line naming both the
        module and the name (`from model import tf`, `model.tf`), or a wildcard import of the
        module in a file that mentions the name."""
        path = PurePosixPath(relpath)
        stem = path.parent.name if path.stem == "__init__" else path.stem
        if not stem:
            return False
        module_word = re.compile(rf"\b{re.escape(stem)}\b")
        name_word = re.compile(rf"\b{re.escape(name)}\b")
        star = re.compile(rf"\bfrom\s+\S*\b{re.escape(stem)}\s+import\s+\*")
        for other, text in self.texts().items():
            if other == relpath or not module_word.search(text):
                continue
            if star.search(text) and name_word.search(text):
                return True
            for line in text.splitlines():
                if module_word.search(line) and name_word.search(line):
                    return True
        return False


def apply_plan(plan: RefactorPlan) -> ApplyReport:
    """Write every planned file atomically, unless it changed since it was read."""
    report = ApplyReport()
    for file_plan in plan.files:
        problem = write_atomically(file_plan.path, file_plan.document.raw, file_plan.new_bytes())
        if problem is None:
            report.written.append(file_plan)
        else:
            report.failed.append(Notice(file_plan.file, None, f"not written: {problem}"))
    return report
