"""A project held in memory: per-file summaries, the solved verdicts, and per-file plans.

`hybridize analyze` and `hybridize refactor` read a folder once and exit. A language server
(or any long-running tool) keeps the project open while files change: an editor buffer
overrides the file on disk, a file appears, another is deleted. `Project` is that state:

- every file's bytes (the buffer's when one is open, else the disk's) and its summary,
  re-made only for the file that changed (the summary cache still serves known contents);
- the project-wide result, solved again lazily, the first time it is asked for after a change;
- per-file results: verdicts, findings and the planned edits exactly as `hybridize refactor`
  would make them for the same texts (the same planner, given the in-memory bytes).

The project-wide phase is solved again on a change by the project's `ProjectAnalysis`
(hybridize/analyzer/analysis.py), which keeps the solver and the verdict memory between
solves and decides how much of them an edit lets it keep: the verdicts always equal those of a
fresh analysis of the same texts. What survives an analysis here stays collectable
(`survivors_collectable`): a server replaces its results on every edit.

`hybridize analyze` and `hybridize refactor` are a `Project` opened once (`long_running=False`):
the files are read at once and summarised only when a solve needs them, so that a repeated run
on unchanged files is served by the cache of whole results (keyed by every file's name and
bytes and the options) without summarising anything; and what the one solve leaves is released
or frozen rather than kept for an edit that never comes.
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import os
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from hybridize.analyzer.analysis import ProjectAnalysis
from hybridize.analyzer.cache import SummaryCache, entry_bytes, from_entry_bytes
from hybridize.analyzer.cycle_collector import survivors_collectable
from hybridize.analyzer.options import AnalysisOptions
from hybridize.analyzer.summaries.sources import (
    MAX_SOURCE_BYTES,
    SKIPPED_DIRECTORIES,
    ProjectSources,
    decode_file,
    read_project,
    read_source,
    relative_name,
)
from hybridize.config import Config
from hybridize.model import AnalysisResult, FileError, FunctionVerdict
from hybridize.notebook_files import NOTEBOOK_SUFFIX, is_notebook
from hybridize.notebooks import CellMap, Notebook, in_cells
from hybridize.progress import ProgressCallback, ProgressStep, Stage

if TYPE_CHECKING:
    from hybridize.analyzer.summaries.hooks import HookTable
    from hybridize.analyzer.summaries.ir import ModuleSummary
    from hybridize.analyzer.summaries.statement_edit import EditableSummary
    from hybridize.refactor.plan import RefactorPlan

    # The refactoring (and libcst with it, a fifth of a second to import) is loaded the first
    # time a plan is asked for: `hybridize analyze` never needs it.
    from hybridize.refactor.planned import FilePlan, Notice
    from hybridize.refactor.selection import Selection


@dataclass(frozen=True, slots=True)
class ProjectOptions:
    """What the analysis infers and which transformations are planned (plain values: the
    CLI fills them from its options, the server from the editor's settings)."""

    infer_input_signatures: bool = False
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    use_cache: bool = True
    jobs: int | None = None
    """Processes for the first summaries of a large project (default: one per core)."""
    include_low_benefit: bool = False
    """Also plan additions predicted not to pay (see `Selection`)."""

    @classmethod
    def from_config(cls, config: Config, *, use_cache: bool = True) -> ProjectOptions:
        """The defaults of a `[tool.hybridize]` table."""
        return cls(
            config.infer_input_signatures,
            config.select,
            config.ignore,
            use_cache,
            include_low_benefit=config.include_low_benefit,
        )

    @property
    def analysis(self) -> AnalysisOptions:
        # The solve runs in this process; `jobs` only serves the first summaries.
        return AnalysisOptions(self.infer_input_signatures, use_cache=self.use_cache, jobs=1)

    @property
    def selection(self) -> Selection:
        from hybridize.refactor.selection import Selection

        return Selection(self.select, self.ignore, self.include_low_benefit)


@dataclass(frozen=True, slots=True)
class FileResult:
    """One file as the project sees it now: its text, verdicts, planned edits and problems.

    `plan` is the file's part of the project's refactoring plan (None when nothing changes);
    its `new_text` is what `hybridize refactor --apply` would write for the same texts.
    `error` says why the file could not be read, decoded or parsed (internal errors of the
    analysis are in `Project.results().errors`: they cost one function its verdict, not the
    file its diagnostics).
    """

    file: str
    text: str | None
    verdicts: tuple[FunctionVerdict, ...]
    error: FileError | None
    plan: FilePlan | None
    notices: tuple[Notice, ...]
    preliminary: bool = False
    """Decided from the facts of the file and of the files it imports only, before the whole
    project was solved (`Project.preliminary_file_result`): the whole project's result may
    differ, and replaces it."""

    def verdict(self, qualname: str) -> FunctionVerdict | None:
        return next((v for v in self.verdicts if v.qualname == qualname), None)


class Project:
    """A folder (or one file) analysed as one project, kept up to date in memory."""

    def __init__(
        self,
        root: Path,
        base: Path,
        package: str,
        options: ProjectOptions,
        *,
        long_running: bool = True,
        cache: SummaryCache | None = None,
        progress: ProgressCallback | None = None,
    ) -> None:
        """An empty project (`open` and `from_texts` fill it): `root` is what the reports
        name, `base` the folder the files' names are relative to, `package` the package that
        folder is part of (`ProjectSources` says all three of a folder read)."""
        self.progress = progress
        """Told how a long analysis goes (hybridize/progress.py): a progress bar, an
        editor's progress notice."""
        self.root = root
        self.base = base
        self.package = package
        self.options = options
        self.analysis = ProjectAnalysis(long_running=long_running)
        """The project-wide phase: the solver and verdict memory kept between solves, and
        the counts of how each solve went. `long_running`: a server or another tool that
        keeps the project open across edits (the default): each solve keeps its solver for
        the next edit and leaves what survives it to the cycle collector. A command that
        solves once (`False`) releases the solver's facts instead and freezes the survivors
        (`no_cyclic_gc`)."""
        self._cache = (cache or SummaryCache.open()) if options.use_cache else None
        """The summary cache (`cache`, else the default one), when the options use one."""
        self.warnings: list[str] = list(self._cache.warnings) if self._cache else []
        self._raw: dict[str, bytes] = {}
        self._summaries: dict[str, ModuleSummary | FileError] = {}
        """Per file, its summary or why it has none; a readable file is summarised only when
        a solve needs it (`_summarize_pending`), so a cached whole result needs none."""
        self._folder_errors: list[FileError] = []
        self._buffers: set[str] = set()
        self._editable: dict[str, EditableSummary] = {}
        """Per editor buffer, its last summary with what the next edit's needs: an edit
        within one top-level statement summarises only that statement again."""
        self._result: AnalysisResult | None = None
        self._as_opened = True
        """No file changed since `open`: the whole result may come from (and go to) the
        cache. After an edit it never does: an editor's texts are new at every keystroke,
        and storing every result would cost a pickle of the whole project per edit."""
        self._cached_whole: tuple[str, tuple[list[FunctionVerdict], list[FileError]] | None] | None
        self._cached_whole = None
        """The last whole result looked up in the cache, by its key (`_cached_result`)."""
        self._plans: dict[str, tuple[FilePlan | None, tuple[Notice, ...]]] = {}
        self._function_plans: dict[tuple[str, str], FilePlan | None] = {}
        self._ignored: dict[tuple[str, str, int], str | None] = {}
        """Per function, its plan alone and the text with it ignored, for the current texts:
        an editor asks for the code actions at the cursor again and again between edits."""

    @classmethod
    def open(
        cls,
        root: Path,
        options: ProjectOptions | None = None,
        *,
        long_running: bool = True,
        sources: ProjectSources | None = None,
        cache: SummaryCache | None = None,
        progress: ProgressCallback | None = None,
    ) -> Project:
        """Read every Python file below `root` (a folder or a file), or take `sources`, what
        `read_project(root)` read (their root, base and package are the project's); the first
        `results()` summarises and solves them."""
        if sources is None:
            sources = read_project(root)
        project = cls(
            sources.root,
            sources.base,
            sources.package,
            options or ProjectOptions(),
            long_running=long_running,
            cache=cache,
            progress=progress,
        )
        project._folder_errors = list(sources.folder_errors)
        for source in sources.files:
            if isinstance(source, FileError):
                project._summaries[source.file] = source
            else:
                project._raw[source.relpath] = source.raw
        return project

    @classmethod
    def from_texts(
        cls,
        files: Mapping[str, str | bytes],
        options: ProjectOptions | None = None,
        *,
        package: str = "",
        long_running: bool = True,
    ) -> Project:
        """A project of in-memory files ({report name: text or bytes}) that no folder holds,
        as if they were the files of a folder of `package`: a text is the bytes an editor
        would save (`encode_buffer`). Tests and tools analyse such projects; `update`,
        `remove` and `results` work as for a folder's."""
        project = cls(
            IN_MEMORY, IN_MEMORY, package, options or ProjectOptions(), long_running=long_running
        )
        for relpath, text in files.items():
            project._raw[relpath] = text if isinstance(text, bytes) else encode_buffer(text)
        return project

    # -- changes ----------------------------------------------------------------------------

    def relpath(self, path: str | Path) -> str | None:
        """The report name of `path` (a report name, or a path absolute or relative to the
        project's folder), or None when it is not a Python file of this project."""
        if isinstance(path, str) and Path(path).is_absolute():
            path = Path(path)
        if isinstance(path, Path):
            absolute = path if path.is_absolute() else self.base / path
            name = relative_name(absolute, self.base)
        else:
            name = path
        parts = PurePosixPath(name).parts
        if self.root.is_file():
            return name if name == self.root.name else None
        if (
            not name.endswith((".py", NOTEBOOK_SUFFIX))
            or not parts
            or ".." in parts
            or name.startswith("/")
        ):
            return None
        if any(p in SKIPPED_DIRECTORIES or p.endswith(".egg-info") for p in parts[:-1]):
            return None
        return name

    def update(self, path: str | Path, text: str | bytes) -> str | None:
        """Take `text` (an editor buffer) as the content of `path`, whatever the disk holds.

        Returns the file's report name, or None when the file is not part of the project.
        """
        relpath = self.relpath(path)
        if relpath is None:
            return None
        raw = text if isinstance(text, bytes) else encode_buffer(text)
        self._buffers.add(relpath)
        if self._raw.get(relpath) == raw:
            return relpath
        self._set(relpath, raw)
        return relpath

    def reload(self, path: str | Path) -> str | None:
        """Forget the buffer of `path` and read the disk again (a file closed, or changed on
        disk); a file that no longer exists is removed."""
        relpath = self.relpath(path)
        if relpath is None:
            return None
        self._buffers.discard(relpath)
        self._editable.pop(relpath, None)
        disk = self.base / relpath
        if not disk.is_file():
            self.remove(relpath)
        else:
            self._read(disk)
        return relpath

    def remove(self, path: str | Path) -> str | None:
        """Drop `path` from the project (deleted, or renamed away)."""
        relpath = self.relpath(path)
        if relpath is None:
            return None
        self._buffers.discard(relpath)
        self._editable.pop(relpath, None)
        known = self._raw.pop(relpath, None) is not None
        if self._summaries.pop(relpath, None) is not None or known:
            self._changed()
        return relpath

    def set_options(self, options: ProjectOptions) -> None:
        if options == self.options:
            return
        solve_again = options.analysis != self.options.analysis
        self.options = options
        self._forget_plans()
        if solve_again:
            self._result = None

    def _read(self, path: Path) -> None:
        source = read_source(path, self.base)
        if isinstance(source, FileError):
            relpath = source.file
            self._raw.pop(relpath, None)
            self._summaries[relpath] = source
            self._changed()
            return
        self._set(source.relpath, source.raw)

    def _set(self, relpath: str, raw: bytes) -> None:
        """Take `raw` as the file's bytes; its summary is made when a solve needs it."""
        self._raw[relpath] = raw
        self._summaries.pop(relpath, None)
        self._changed()

    def _changed(self) -> None:
        self._result = None
        self._cached_whole = None
        self._as_opened = False
        self._forget_plans()

    def _forget_plans(self) -> None:
        self._plans.clear()
        self._function_plans.clear()
        self._ignored.clear()

    def _summarize_pending(self) -> None:
        """Summarise every readable file that has no summary yet."""
        pending = [(r, raw) for r, raw in sorted(self._raw.items()) if r not in self._summaries]
        if pending:
            self._summaries.update(self._summarize_many(pending))

    def _summarize_many(
        self, files: list[tuple[str, bytes]]
    ) -> dict[str, ModuleSummary | FileError]:
        """Summaries of many files: from the cache, else on every core for a large project
        (as `hybridize analyze` does), else here."""
        from hybridize.analyzer.summaries.file_summaries import PARALLEL_THRESHOLD
        from hybridize.analyzer.workers import run_isolated

        out: dict[str, ModuleSummary | FileError] = {}
        missing: list[tuple[str, bytes]] = []
        for relpath, raw in files:
            cached = self._cached(relpath, raw)
            if cached is not None:
                out[relpath] = cached
            else:
                missing.append((relpath, raw))
        # Summarising one file (an edit) is quick: only more is worth a progress notice.
        report = self._reporter(Stage.SUMMARIES, len(files)) if len(missing) > 1 else None
        if report is not None:
            report(len(out))
        jobs = self.options.jobs or os.cpu_count() or 1
        if not missing:
            return out  # every file served by the cache: the checks are not imported
        hooks = load_summary_hooks()
        if jobs > 1 and len(missing) >= PARALLEL_THRESHOLD:
            # One file at a time per worker: a worker that crashes costs only its file.
            def left_out(item: tuple[str, bytes], reason: str) -> bytes | FileError:
                return FileError(item[0], f"cannot analyse: {reason}; left out")

            served = len(out)
            summaries = run_isolated(
                functools.partial(_summarize_one, hooks),
                missing,
                jobs,
                left_out,
                on_done=None if report is None else (lambda done: report(served + done)),
            )
            for (relpath, raw), summary in zip(missing, summaries, strict=True):
                if isinstance(summary, FileError):  # the worker failed: not stored
                    out[relpath] = summary
                    continue
                # The worker's pickle is read here and is the cache's entry as it is: a
                # project's summaries are not pickled again to be stored (a second of a
                # 100,000-line project's first analysis).
                out[relpath] = from_entry_bytes(summary)
                if self._uses_cache(relpath):
                    assert self._cache is not None
                    self._cache.put_pickled(raw, relpath, summary)
        else:
            for relpath, raw in missing:
                out[relpath] = self._summarize(relpath, raw, hooks)
                if report is not None:
                    report(len(out))
        return out

    def _reporter(self, stage: Stage, total: int) -> Callable[[int], None] | None:
        """A function telling `progress` how many of `total` units of `stage` are done (None:
        nobody listens)."""
        progress = self.progress
        if progress is None:
            return None
        return lambda done: progress(ProgressStep(stage, done, total))

    def _cached(self, relpath: str, raw: bytes) -> ModuleSummary | FileError | None:
        if not self._uses_cache(relpath):
            return None
        assert self._cache is not None
        return self._cache.get(raw, relpath)

    def _store(self, relpath: str, raw: bytes, summary: ModuleSummary | FileError) -> None:
        if self._uses_cache(relpath):
            assert self._cache is not None
            self._cache.put(raw, relpath, summary)

    def _uses_cache(self, relpath: str) -> bool:
        """Whether the summary cache serves and keeps this file's summaries: not an editor
        buffer's. A buffer's text is new at nearly every keystroke: storing its summary cost
        a pickle and a write per change (55 ms for a 2,000-line file) and filled the cache
        with texts never seen again, and reading one back costs about what summarising it
        does (whose parse the plan of the same text then shares)."""
        return self._cache is not None and self._cache.usable and relpath not in self._buffers

    def _summarize(
        self, relpath: str, raw: bytes, hooks: HookTable | None = None
    ) -> ModuleSummary | FileError:
        """A file's summary from its bytes, decoded as Python would (the disk's way), with
        the registry's summary hooks (`hooks`, when the caller has them already)."""
        cached = self._cached(relpath, raw)
        if cached is not None:
            return cached
        if hooks is None:
            hooks = load_summary_hooks()
        with self.analysis.collectable():
            if relpath in self._buffers and not is_notebook(relpath):
                summary = self._summarize_buffer(relpath, raw, hooks)
            else:
                summary = summarize_raw(relpath, raw, hooks)
        self._store(relpath, raw, summary)
        return summary

    def _summarize_buffer(
        self, relpath: str, raw: bytes, hooks: HookTable
    ) -> ModuleSummary | FileError:
        """`summarize_raw` for an editor buffer: from its summary before the edit when the
        edit stays within one top-level statement (`summarize_buffer`)."""
        from hybridize.analyzer.summaries.file_summaries import summarize_buffer

        previous = self._editable.pop(relpath, None)
        if len(raw) > MAX_SOURCE_BYTES:
            return FileError(relpath, "file too large to be analysed")
        decoded = decode_file(relpath, raw)
        if isinstance(decoded, str):
            return FileError(relpath, decoded)
        summary, editable = summarize_buffer(relpath, decoded[0], previous, hooks)
        if editable is not None:
            self._editable[relpath] = editable
        return summary

    # -- results ----------------------------------------------------------------------------

    @property
    def files(self) -> list[str]:
        """Report names of every file of the project, readable or not."""
        return sorted(self._summaries.keys() | self._raw.keys())

    @property
    def buffers(self) -> frozenset[str]:
        """Files whose content is an editor buffer rather than the disk's."""
        return frozenset(self._buffers)

    def snapshot(self) -> Mapping[str, bytes]:
        """Every readable file's bytes as the analysis sees them (buffers included)."""
        return dict(self._raw)

    def results(self) -> AnalysisResult:
        """The project's verdicts and errors, solved again only if something changed."""
        if self._result is None:
            started = time.perf_counter()
            key = self._result_key()
            cached = self._cached_result(key)
            self._cached_whole = None
            if cached is not None:
                verdicts, errors = cached
            else:
                verdicts, errors = self._solve()
                if self._cache is not None and key is not None:
                    self._cache.put_result(key, (verdicts, errors))
                    self.warnings.extend(w for w in self._cache.warnings if w not in self.warnings)
            self._result = AnalysisResult(
                root=str(self.root),
                functions=tuple(verdicts),
                errors=tuple(sorted([*self._folder_errors, *errors], key=lambda e: e.file)),
                seconds=time.perf_counter() - started,
                cell_maps=self._cell_maps(),
            )
        return self._result

    def _cached_result(
        self, key: str | None = None
    ) -> tuple[list[FunctionVerdict], list[FileError]] | None:
        """The cache's whole result for the current texts and options (`key`, else the
        current one), if it holds one; read once, then kept until the texts change."""
        key = key if key is not None else self._result_key()
        if self._cache is None or key is None:
            return None
        if self._cached_whole is None or self._cached_whole[0] != key:
            self._cached_whole = (key, self._cache.get_result(key))
        return self._cached_whole[1]

    def _cell_maps(self) -> dict[str, CellMap]:
        """Each readable notebook's cells (`AnalysisResult.cell_maps`)."""
        maps: dict[str, CellMap] = {}
        for relpath, raw in sorted(self._raw.items()):
            if is_notebook(relpath):
                notebook = Notebook.from_bytes(raw)
                if isinstance(notebook, Notebook):
                    maps[relpath] = notebook.cell_map
        return maps

    def _result_key(self) -> str | None:
        """The cache key of the whole result for the current texts and options (None: no
        usable cache)."""
        if self._cache is None or not self._cache.usable or not self._as_opened:
            return None
        files = [(relpath, self._raw.get(relpath)) for relpath in self.files]
        return self._cache.result_key(files, self.options.infer_input_signatures, self.package)

    def _solve(self) -> tuple[list[FunctionVerdict], list[FileError]]:
        """The project-wide phase over the current summaries (`ProjectAnalysis.solve`, as
        incremental as the change allows). Returns the verdicts and every file's and
        function's error (those of the folder aside)."""
        from hybridize.analyzer.summaries.ir import ModuleSummary

        self._summarize_pending()
        summaries = {
            relpath: s
            for relpath, s in sorted(self._summaries.items())
            if isinstance(s, ModuleSummary)
        }
        verdicts, internal = self.analysis.solve(
            summaries, self.package, self.options.analysis, self.progress
        )
        file_errors = [s for s in self._summaries.values() if isinstance(s, FileError)]
        return verdicts, [*file_errors, *internal]

    def plan(self, result: AnalysisResult | None = None) -> RefactorPlan:
        """The whole project's refactoring plan, as `hybridize refactor` makes it: of the
        current results, or of `result` (the current results as a caller amended them, e.g.
        to the wins a bench measured). Plans of files planned before come from the plan
        cache; many files are planned on `jobs` processes."""
        from hybridize.refactor.plan import plan_refactorings
        from hybridize.refactor.plan_cache import PlanCache

        cache = PlanCache() if self.options.use_cache else None
        return plan_refactorings(
            result or self.results(), self.options.selection, self._raw, cache, self.options.jobs
        )

    def file_result(self, path: str | Path) -> FileResult | None:
        """The current verdicts, text, plan and problems of one file (None: not in the
        project)."""
        relpath = self.relpath(path)
        if relpath is None or (relpath not in self._raw and relpath not in self._summaries):
            return None
        result = self.results()
        if relpath not in self._summaries:  # the result came from the cache
            self._summaries[relpath] = self._summarize(relpath, self._raw[relpath])
        verdicts = _file_verdicts(result.functions, relpath)
        if relpath not in self._plans:
            plan = self._plan_verdicts(verdicts)
            self._plans[relpath] = (plan.files[0] if plan.files else None, plan.notices)
        file_plan, notices = self._plans[relpath]
        summary = self._summaries[relpath]
        error = summary if isinstance(summary, FileError) else None
        return FileResult(relpath, self.text(relpath), verdicts, error, file_plan, notices)

    def preliminary_file_result(self, path: str | Path) -> FileResult | None:
        """A file's result before the whole project is solved: its verdicts from the facts of
        the file and of the files it imports (`imported_files`), solved as a project of their
        own, with their plan. An editor shows it at once when it opens a large project (the
        whole solve takes most of a minute on 100,000 lines), and the whole project's result
        (`file_result`) replaces it: a caller elsewhere may run a function under a compiled
        caller, pass it other arguments or call it more often, so a verdict can change either
        way (`FileResult.preliminary` says it may).

        None when it would gain nothing: the project was solved already (or its whole result
        is in the cache), it is small (`PRELIMINARY_MIN_BYTES`), the file does not parse, or
        the file and its imports are much of the project (`PRELIMINARY_SHARE`). The summaries
        it makes serve the whole solve after it."""
        from hybridize.analyzer.summaries.imported_files import imported_files
        from hybridize.analyzer.summaries.ir import ModuleSummary

        relpath = self.relpath(path)
        if relpath is None or relpath not in self._raw or is_notebook(relpath):
            return None
        if self._result is not None or self.analysis.solver is not None:
            return None
        total = sum(len(raw) for raw in self._raw.values())
        if total < PRELIMINARY_MIN_BYTES or self._cached_result() is not None:
            return None
        started = time.perf_counter()
        summary = self._summary(relpath)
        if not isinstance(summary, ModuleSummary):
            return None
        near = sorted({relpath} | imported_files(summary, self._raw, self.package))
        if sum(len(self._raw[r]) for r in near) > total * PRELIMINARY_SHARE:
            return None
        summaries = {r: s for r in near if isinstance(s := self._summary(r), ModuleSummary)}
        with survivors_collectable():  # a server's heap: nothing of this solve is kept
            verdicts, errors = ProjectAnalysis(long_running=False).solve(
                summaries, self.package, self.options.analysis, files={relpath}
            )
        mine = tuple(v for v in verdicts if v.file == relpath)
        result = AnalysisResult(
            root=str(self.root),
            functions=mine,
            errors=tuple(e for e in errors if e.file == relpath),
            seconds=time.perf_counter() - started,
        )
        plan = self._plan_verdicts(mine, result)
        return FileResult(
            relpath,
            self.text(relpath),
            mine,
            None,
            plan.files[0] if plan.files else None,
            plan.notices,
            preliminary=True,
        )

    def _summary(self, relpath: str) -> ModuleSummary | FileError:
        """The file's summary, made now if it has none yet."""
        if relpath not in self._summaries:
            self._summaries[relpath] = self._summarize(relpath, self._raw[relpath])
        return self._summaries[relpath]

    def function_plan(self, path: str | Path, qualname: str) -> FilePlan | None:
        """The plan of one function alone (its edits and the imports they need), as
        `hybridize refactor --select 'FILE::QUALNAME'` would make it."""
        found = self.file_result(path)
        if found is None:
            return None
        key = (found.file, qualname)
        if key not in self._function_plans:
            verdicts = tuple(v for v in found.verdicts if v.qualname == qualname)
            plan = self._plan_verdicts(verdicts)
            self._function_plans[key] = plan.files[0] if plan.files else None
        return self._function_plans[key]

    def ignored_text(self, path: str | Path, qualname: str, line: int) -> str | None:
        """The file's text with `# hybridize: ignore` above the function (None: not found,
        or already ignored)."""
        relpath = self.relpath(path)
        if relpath is None or relpath not in self._raw:
            return None
        key = (relpath, qualname, line)
        if key not in self._ignored:
            from hybridize.refactor.document import Document
            from hybridize.refactor.ignore_comment import add_ignore_comment

            document = Document.from_bytes(self._raw[relpath], relpath)
            ignored = (
                None if isinstance(document, str) else add_ignore_comment(document, qualname, line)
            )
            self._ignored[key] = ignored
        return self._ignored[key]

    def text(self, path: str | Path) -> str | None:
        """The decoded text of a file as the analysis sees it (None: unreadable)."""
        relpath = self.relpath(path)
        raw = self._raw.get(relpath) if relpath is not None else None
        if relpath is None or raw is None:
            return None
        decoded = decode_file(relpath, raw)
        return None if isinstance(decoded, str) else decoded[0]

    def _plan_verdicts(
        self, verdicts: tuple[FunctionVerdict, ...], result: AnalysisResult | None = None
    ) -> RefactorPlan:
        """The plan of `verdicts` alone, read with the current `result` (or the one given)."""
        from hybridize.refactor.plan import plan_refactorings

        result = dataclasses.replace(result or self.results(), functions=verdicts)
        return plan_refactorings(result, self.options.selection, self._raw, cache=None, jobs=1)


PRELIMINARY_MIN_BYTES = 100_000
"""Below this much source (some 3,000 lines) the whole project is solved within a few
seconds: an opened file waits for it rather than being shown a preliminary result first."""

PRELIMINARY_SHARE = 0.25
"""A preliminary result is made only when the opened file and its imports are at most this
share of the project's source: its solve delays the whole one (measured on 20,000 lines,
where a 2,000-line file's imports are 40% of the project: the first diagnostics came at 0.42
of the time the whole ones used to, the whole ones at 1.5 of it, loaded machine)."""

IN_MEMORY = Path("<in-memory>")
"""The root and base of a project whose files no folder holds (`Project.from_texts`)."""

_CODING = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)", re.MULTILINE)


def _file_verdicts(
    verdicts: tuple[FunctionVerdict, ...], relpath: str
) -> tuple[FunctionVerdict, ...]:
    """The verdicts of one file, from every verdict in the order a solve gives them (sorted
    by file, then line: `engine._decide`): found by bisection, not by a look at each of a
    large project's verdicts at every edit."""
    start = bisect.bisect_left(verdicts, relpath, key=_verdict_file)
    end = bisect.bisect_right(verdicts, relpath, lo=start, key=_verdict_file)
    return verdicts[start:end]


def _verdict_file(verdict: FunctionVerdict) -> str:
    return verdict.facts.file


def encode_buffer(text: str) -> bytes:
    """An editor buffer's text as the bytes the file would hold: in the encoding its PEP 263
    declaration names (on one of its first two lines), else UTF-8."""
    head = text.encode("utf-8", "surrogatepass").split(b"\n", 2)[:2]
    for line in head:
        match = _CODING.match(line)
        if match:
            try:
                return text.encode(match.group(1).decode("ascii"))
            except (LookupError, UnicodeEncodeError, UnicodeDecodeError):
                break
    return text.encode("utf-8", "surrogatepass")


def summarize_raw(relpath: str, raw: bytes, hooks: HookTable) -> ModuleSummary | FileError:
    """A file's summary from its bytes: size limit and decoding as for a file on disk; the
    summary hooks of `hooks` run (the registry's: `load_summary_hooks`)."""
    if len(raw) > MAX_SOURCE_BYTES:
        return FileError(relpath, "file too large to be analysed")
    from hybridize.analyzer.summaries.file_summaries import summarize_text

    decoded = decode_file(relpath, raw)
    if isinstance(decoded, str):
        return FileError(relpath, decoded)
    summary = summarize_text(relpath, decoded[0], hooks)
    if is_notebook(relpath) and isinstance(summary, FileError):
        return FileError(relpath, in_cells(summary.message, raw))
    return summary


def load_summary_hooks() -> HookTable:
    """The registry's summary hooks (`Check.summary_hook`), which every summary `Project`
    makes runs: the summariser takes them as an argument (`summarize_text`). Only a run that
    summarises a file imports the checks for them."""
    from hybridize.analyzer.checks import summary_hooks

    return summary_hooks()


def _summarize_one(hooks: HookTable, item: tuple[str, bytes]) -> bytes:
    """A worker's summary of one file, pickled as the summary cache's entry
    (`entry_bytes`): sent back as it is, and stored as it is (a worker process exits with its
    garbage)."""
    return entry_bytes(summarize_raw(*item, hooks))
