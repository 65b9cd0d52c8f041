"""The per-file phase: files -> summaries, on every core for a large project and cached by
content. A file's summary depends on nothing but its bytes and name, so it is made once
(`SummaryCache`) and in a worker process of its own when there are many (a crash there costs
only that file). Kept apart from the project-wide phase (`engine`) so that a run served by
the caches never imports it.
"""

from __future__ import annotations

import ast
import functools
import os
from pathlib import Path

from hybridize.analyzer.cache import SummaryCache
from hybridize.analyzer.cycle_collector import no_cyclic_gc
from hybridize.analyzer.options import AnalysisOptions
from hybridize.analyzer.summaries.ir import ModuleSummary
from hybridize.analyzer.summaries.parse_guard import screen
from hybridize.analyzer.summaries.sources import discover, read_source, relative_name
from hybridize.analyzer.summaries.summarize import summarize_module
from hybridize.analyzer.workers import run_isolated
from hybridize.model import FileError

PARALLEL_THRESHOLD = 40
"""Below this many files a process pool costs more than it saves."""


def summarize_file(path: Path, root: Path) -> ModuleSummary | FileError:
    """Read, decode, parse and summarise one file; every failure becomes a FileError."""
    source = read_source(path, root)
    if isinstance(source, FileError):
        return source
    return summarize_text(source.relpath, source.text)


def summarize_text(relpath: str, text: str) -> ModuleSummary | FileError:
    with no_cyclic_gc():
        return _summarize_text(relpath, text)


def _summarize_text(relpath: str, text: str) -> ModuleSummary | FileError:
    # Nesting is measured first: the summary's walk recurses, and so does libcst's native
    # parser when the refactoring later rewrites a line of the file.
    screened = screen(text)
    if screened.problem is not None:
        return FileError(relpath, screened.problem)
    if screened.tree is None:
        return FileError(relpath, _syntax_error_message(text))
    try:
        return summarize_module(relpath, text, screened.tree)
    except RecursionError:
        return FileError(relpath, "cannot analyse: the file is nested too deeply")


def _syntax_error_message(text: str) -> str:
    """CPython's own words for why it rejects the file (the ones a user knows)."""
    try:
        ast.parse(text)
    except SyntaxError as error:
        return f"SyntaxError: {error.msg} (line {error.lineno})"
    except (ValueError, RecursionError, MemoryError) as error:
        return f"cannot parse: {type(error).__name__}: {error}"
    return "cannot parse the file"


_WORKER_CACHES: dict[str, SummaryCache] = {}
"""A worker process' summary cache, opened once per folder."""


def _summarize_in_worker(path: str, root: str, cache_dir: str | None) -> ModuleSummary | FileError:
    cache = None
    if cache_dir is not None:
        cache = _WORKER_CACHES.get(cache_dir)
        if cache is None:
            cache = _WORKER_CACHES[cache_dir] = SummaryCache(Path(cache_dir))
    return _summarize_cached(Path(path), Path(root), cache)


def _left_out(root: Path, path: str, reason: str) -> FileError:
    """The error entry of a file whose worker crashed or ran out of time: the rest goes on."""
    return FileError(relative_name(Path(path), root), f"cannot analyse: {reason}; left out")


def _summarize_cached(
    path: Path, root: Path, cache: SummaryCache | None
) -> ModuleSummary | FileError:
    if cache is None:
        return summarize_file(path, root)
    source = read_source(path, root)
    if isinstance(source, FileError):
        return source
    cached = cache.get(source.raw, source.relpath)
    if cached is not None:
        return cached
    result = summarize_text(source.relpath, source.text)
    cache.put(source.raw, source.relpath, result)
    return result


def collect_summaries(
    root: Path, options: AnalysisOptions
) -> tuple[list[ModuleSummary], list[FileError], list[str]]:
    """Summaries of every file below root, errors, and warnings (e.g. about the cache)."""
    files, errors = discover(root)
    cache = SummaryCache.open() if options.use_cache else None
    summaries, file_errors = summaries_of(files, root, cache, options)
    errors.extend(file_errors)
    errors.sort(key=lambda e: e.file)
    return summaries, errors, list(cache.warnings) if cache is not None else []


def summaries_of(
    files: list[Path], root: Path, cache: SummaryCache | None, options: AnalysisOptions
) -> tuple[list[ModuleSummary], list[FileError]]:
    base = root if root.is_dir() else root.parent
    cache_dir = str(cache.directory) if cache is not None and cache.usable else None
    jobs = options.jobs or os.cpu_count() or 1
    results: list[ModuleSummary | FileError] = []
    if jobs > 1 and len(files) >= PARALLEL_THRESHOLD:
        # One file at a time per worker: a worker that crashes costs only its file.
        results = run_isolated(
            functools.partial(_summarize_in_worker, root=str(base), cache_dir=cache_dir),
            [str(p) for p in files],
            jobs,
            functools.partial(_left_out, base),
        )
    else:
        usable = cache if cache is not None and cache.usable else None
        results = [_summarize_cached(p, base, usable) for p in files]
    summaries = sorted(
        (r for r in results if isinstance(r, ModuleSummary)), key=lambda s: s.relpath
    )
    return summaries, [r for r in results if isinstance(r, FileError)]
