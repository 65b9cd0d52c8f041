"""The real-code differential oracle: real libraries' own test suites judge the rewrite
(TensorFlow 2 ones, and gpytorch for PyTorch).

Usage: python benchmarks/realcode_oracle.py [--libraries sonnet,recommenders,tf-models,gpytorch]
           [--venv PATH] [--jobs 2] [--tests-limit N] [--test-timeout S] [--keep]
           [--out build/realcode-oracle]

For every library (benchmarks/oracle_libraries.py: pinned, with test suites nobody here wrote):

1. install it with its pinned test dependencies into `OUT/site/LIB` (`pip install --no-deps
   --target`) for a scratch environment of its base (`Library.base`): TensorFlow's is
   `--venv PATH`, else `OUT/venv`, PyTorch's `OUT/venv-HASH`, each built with `python3.11 -m
   venv` (never the project's .venv); a library whose tests are in its source distribution
   only (gpytorch's `test/`) has that folder extracted once into `OUT/site/LIB-sdist`;
2. copy its packages (and that tests folder) twice, `OUT/LIB/original` and
   `OUT/LIB/rewritten`, and run this repo's
   `hybridize analyze` on the original (the functions analysed) and `hybridize refactor
   --apply --diff` on the rewritten copy (test files and conftest.py are analysed as callers
   but not rewritten: `--ignore`), with a fresh cache folder;
3. read from the diff which functions were rewritten, and where their code now lives;
4. run the library's test files against each copy (PYTHONPATH puts the copy first, and the
   plugin checks that `pkg.__file__` is the copy's), in chunks of files, each chunk a
   subprocess with a timeout, `--jobs` at a time: a chunk that crashes or times out is rerun
   file by file, so one crash costs one file;
5. rerun each test that passed before and fails after on the rewritten copy with a profile
   hook (the pytest plugin of `hybridize refactor --verify`, hybridize/verify/) that records which rewritten functions ran; with the
   traceback's frames this names the **unsafe rewrites**. A test that passes in that rerun is
   reported as flaky, not as unsafe.

Prints per library the functions analysed and rewritten, the tests run and passing before and
after, the newly failing tests and the unsafe functions with the tests naming them, then a
line of totals; writes the details to OUT/results.json (per failing test the exception's last
line and text, per unsafe function the tests and errors).

Test files: every `*_test.py` / `test_*.py` of the library (but sonnet's conformance suite, an
hour on its own, unless `--all-tests`), or `--tests-limit N` of them (the
tf-models default is 10 of its 340, each file cut at 4 minutes: about 20 minutes for the three
libraries on 2 idle cores). The sample is deterministic: files testing a module the refactoring
changed first (`foo_test.py` next to a rewritten `foo.py`, then files in a folder holding a
rewritten module), each group in the order of the SHA-1 of its path. A test the rewritten
run did not reach because its file hit the file timeout is listed, not counted as failing.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from hybridize.analyzer.summaries.keys import FunctionKey

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))  # this repository's hybridize (its verify package)

from oracle_libraries import (  # noqa: E402
    BASE_REQUIREMENTS,
    DEFAULT_LIBRARIES,
    LIBRARIES,
    Library,
)
from oracle_rewrites import rewrites_from_diff  # noqa: E402

from hybridize.verify.command_run import PLUGIN_MODULE, install_plugin  # noqa: E402
from hybridize.verify.outcomes import (  # noqa: E402
    Outcome,
    blamed_functions,
    borrow_blame,
    count,
    error_changed,
    newly_failing,
    read_outcome_file,
    test_file_of,
    unsafe_functions,
)
from hybridize.verify.rewritten import RewrittenFunction, write_trace_targets  # noqa: E402

TEST_GLOBS = ("*_test.py", "test_*.py", "*/test_*.py", "conftest.py", "*/conftest.py")
"""Analysed as callers, never rewritten (`hybridize refactor --ignore`)."""

TF_ENV = {"TF_CPP_MIN_LOG_LEVEL": "2", "CUDA_VISIBLE_DEVICES": ""}
TIMED_OUT = "timed out after"
COMPLETED = (0, 1, 5)
"""pytest exit codes of a run that reported every test it collected (5: none collected)."""


def is_test_file(relpath: str) -> bool:
    name = relpath.rsplit("/", 1)[-1]
    return name.endswith("_test.py") or (name.startswith("test_") and name.endswith(".py"))


def _sha(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()


def select_test_files(
    test_files: Sequence[str], rewritten_files: Iterable[str], limit: int | None
) -> list[str]:
    """The test files to run: all, or `limit` of them, deterministically, those that test a
    rewritten module first (`x/foo_test.py` or `x/test_foo.py` for `x/foo.py`), then those in a
    folder holding one, then the rest; each group in the order of the SHA-1 of its path."""
    if limit is None or limit >= len(test_files):
        return sorted(test_files)
    rewritten = set(rewritten_files)
    folders = {f.rsplit("/", 1)[0] if "/" in f else "" for f in rewritten}

    def tier(path: str) -> int:
        folder, _, name = path.rpartition("/")
        subject = name.removesuffix("_test.py").removeprefix("test_").removesuffix(".py")
        if f"{folder}/{subject}.py".lstrip("/") in rewritten:
            return 0
        return 1 if folder in folders else 2

    ranked = sorted(test_files, key=lambda p: (tier(p), _sha(p)))
    return sorted(ranked[:limit])


# --- environment -------------------------------------------------------------------------------


def _run(command: Sequence[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(command), text=True, capture_output=True, **kwargs)


class InstallError(RuntimeError):
    """A pinned package could not be installed (no network, no such release)."""


def _pip(python: Path, *args: str) -> None:
    result = _run([str(python), "-m", "pip", "install", "--quiet", *args])
    if result.returncode != 0:
        tail = "\n".join(result.stderr.strip().splitlines()[-15:])
        raise InstallError(f"pip install {' '.join(args)} failed:\n{tail}")


def scratch_python(out: Path, venv: Path | None, base: tuple[str, ...] = BASE_REQUIREMENTS) -> Path:
    """The interpreter of a scratch environment: `--venv`'s (TensorFlow's base only), or one
    built under OUT from the pinned `base` (kept between runs while it is the same)."""
    if venv is not None and base == BASE_REQUIREMENTS:
        python = venv / "bin" / "python"
        if not python.exists():
            raise SystemExit(f"--venv {venv}: no bin/python")
        return python
    venv = venv_folder(out, base)
    python = venv / "bin" / "python"
    marker = venv / ".oracle-requirements"
    wanted = "\n".join(base)
    if marker.exists() and marker.read_text() == wanted:
        return python
    interpreter = shutil.which("python3.11") or sys.executable
    print(f"building the scratch environment {venv} ...", flush=True)
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run([interpreter, "-m", "venv", str(venv)], check=True)
    _pip(python, *base)
    marker.write_text(wanted)
    return python


def venv_folder(out: Path, base: tuple[str, ...]) -> Path:
    """Where the scratch environment of `base` is built: OUT/venv for TensorFlow's (as
    before there were others), OUT/venv-HASH for another."""
    return out / ("venv" if base == BASE_REQUIREMENTS else f"venv-{_sha(repr(base))[:8]}")


def install_library(python: Path, out: Path, library: Library) -> Path:
    """The library's site folder (its pinned requirements, `--no-deps --target`), reused while
    the pins are the same."""
    site = out / "site" / library.name
    marker = site / ".oracle-requirements"
    wanted = "\n".join(library.requirements)
    if marker.exists() and marker.read_text() == wanted:
        return site
    print(f"installing {' '.join(library.requirements)} ...", flush=True)
    shutil.rmtree(site, ignore_errors=True)
    _pip(python, "--no-deps", "--target", str(site), *library.requirements)
    marker.write_text(wanted)
    return site


def sdist_tests(python: Path, out: Path, library: Library) -> Path | None:
    """The folder of tests of the library's source distribution (`Library.sdist_tests`),
    extracted once under OUT/site; None for a library whose tests ship in its wheel."""
    if library.sdist_tests is None:
        return None
    folder = out / "site" / f"{library.name}-sdist"
    tests = folder / library.sdist_tests
    marker = folder / ".oracle-requirements"
    if marker.exists() and marker.read_text() == library.requirement and tests.is_dir():
        return tests
    shutil.rmtree(folder, ignore_errors=True)
    download = folder / "download"
    _pip_download = [str(python), "-m", "pip", "download", "--quiet", "--no-deps"]
    fetched = _run(
        [*_pip_download, "--no-binary", ":all:", "-d", str(download), library.requirement]
    )
    if fetched.returncode != 0:
        raise RuntimeError(f"cannot download {library.requirement}: {fetched.stderr[-2000:]}")
    folder.mkdir(parents=True, exist_ok=True)
    (archive,) = download.glob("*.tar.gz")
    extract_folder(archive, library.sdist_tests, tests)
    marker.write_text(library.requirement)
    return tests


def extract_folder(archive: Path, name: str, destination: Path) -> None:
    """Extract the folder `name` of a source distribution (below its top folder,
    `gpytorch-1.15.2/`) to `destination`, and nothing else; members that would land outside
    it (absolute paths, `..`, links out) are refused by tarfile's `data` filter."""
    import tarfile

    with tarfile.open(archive) as tar:
        members = tar.getmembers()
        top = members[0].name.split("/", 1)[0]
        prefix = f"{top}/{name}/"
        chosen = [m for m in members if m.name.startswith(prefix)]
        if not chosen:
            raise RuntimeError(f"{archive.name} has no {name}/ folder")
        unpacked = destination.parent / f".{destination.name}-unpacked"
        shutil.rmtree(unpacked, ignore_errors=True)
        tar.extractall(unpacked, members=chosen, filter="data")
    shutil.move(unpacked / top / name, destination)
    shutil.rmtree(unpacked, ignore_errors=True)


def tools_path(python: Path, out: Path) -> list[str]:
    """pytest-timeout for an environment that lacks it (installed beside, never into it)."""
    probe = _run([str(python), "-c", "import pytest, pytest_timeout"])
    if probe.returncode == 0:
        return []
    tools = out / "site" / "_tools"
    if not (tools / "pytest_timeout.py").exists():
        _pip(python, "--no-deps", "--target", str(tools), "pytest-timeout==2.4.0")
    return [str(tools)]


# --- the rewrite -------------------------------------------------------------------------------


def copy_packages(site: Path, destination: Path, packages: Iterable[str]) -> None:
    shutil.rmtree(destination, ignore_errors=True)
    destination.mkdir(parents=True)
    for package in packages:
        shutil.copytree(
            site / package,
            destination / package,
            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
        )


def hybridize(*args: str, cache: Path, jobs: int) -> subprocess.CompletedProcess[str]:
    """This repository's hybridize (the interpreter running the oracle), on a fresh cache."""
    env = {**os.environ, "HYBRIDIZE_CACHE_DIR": str(cache)}
    return _run([sys.executable, "-m", "hybridize", *args, "--jobs", str(jobs)], env=env)


@dataclass(slots=True)
class Rewrite:
    """What the analysis and the refactoring did to one library."""

    functions: int
    refactorable: int
    rewritten: list[RewrittenFunction]
    verdicts: dict[str, dict[str, Any]]
    seconds: float


def rewrite(work: Path, jobs: int, not_rewritten: Sequence[str] = ()) -> Rewrite:
    original, rewritten = work / "original", work / "rewritten"
    cache = work / "hybridize-cache"
    shutil.rmtree(cache, ignore_errors=True)
    started = time.perf_counter()
    analysis = hybridize("analyze", str(original), "--format", "json", cache=cache, jobs=jobs)
    if analysis.returncode != 0:
        raise RuntimeError(f"hybridize analyze failed: {analysis.stderr[-2000:]}")
    (work / "analysis.json").write_text(analysis.stdout)
    report = json.loads(analysis.stdout)
    ignores = [arg for glob in (*TEST_GLOBS, *not_rewritten) for arg in ("--ignore", glob)]
    refactor = hybridize(
        "refactor",
        str(rewritten),
        "--apply",
        "--diff",
        "--no-config",
        "--include-low-benefit",  # safety is judged on every safe rewrite, paying or not
        *ignores,
        cache=cache,
        jobs=jobs,
    )
    (work / "refactor.diff").write_text(refactor.stdout)
    (work / "refactor.log").write_text(refactor.stderr)
    if refactor.returncode != 0:
        raise RuntimeError(f"hybridize refactor failed: {refactor.stderr[-2000:]}")
    functions = rewrites_from_diff(refactor.stdout, rewritten)
    verdicts = {str(FunctionKey(v["file"], v["qualname"])): v for v in report["functions"]}
    return Rewrite(
        functions=report["summary"]["functions"],
        refactorable=report["summary"]["refactorable"],
        rewritten=functions,
        verdicts=verdicts,
        seconds=time.perf_counter() - started,
    )


# --- running the tests -------------------------------------------------------------------------


@dataclass(slots=True)
class Run:
    """How to run test files against one copy."""

    label: str
    python: Path
    copy: Path
    pythonpath: list[str]
    env: dict[str, str]
    packages: tuple[str, ...]
    test_timeout: int
    file_timeout: int
    logs: Path
    trace: Path | None = None
    plugins: tuple[str, ...] = ()
    """More pytest plugins (module names on `pythonpath`): the benefit oracle's."""

    def command(self, targets: Sequence[str]) -> list[str]:
        return [
            str(self.python),
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            PLUGIN_MODULE,
            "--timeout",
            str(self.test_timeout),
            "--rootdir",
            str(self.copy),
            "-o",
            "addopts=",
            "-o",
            "python_files=*_test.py test_*.py",
            *(word for plugin in self.plugins for word in ("-p", plugin)),
            *targets,
        ]

    def environ(self, outcomes: Path) -> dict[str, str]:
        shadow = ",".join(f"{p}={self.copy / p}" for p in self.packages)
        env = {
            **os.environ,
            **TF_ENV,
            **self.env,
            "PYTHONPATH": os.pathsep.join([str(self.copy), *self.pythonpath]),
            "HYBRIDIZE_VERIFY_OUTCOMES": str(outcomes),
            "HYBRIDIZE_VERIFY_ROOT": str(self.copy),
            "HYBRIDIZE_VERIFY_SHADOW": shadow,
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        env.pop("HYBRIDIZE_VERIFY_TRACE", None)
        env.pop("HYBRIDIZE_VERIFY_SELECT", None)
        if self.trace is not None:
            env["HYBRIDIZE_VERIFY_TRACE"] = str(self.trace)
        return env


@dataclass(slots=True)
class ChunkResult:
    outcomes: dict[str, Outcome] = field(default_factory=dict)
    file_failures: dict[str, str] = field(default_factory=dict)
    shadow_error: str | None = None


def _run_chunk(
    run: Run, name: str, targets: Sequence[str], timeout: float
) -> tuple[int | str, Path]:
    outcomes = run.logs / f"{run.label}-{name}.jsonl"
    log = run.logs / f"{run.label}-{name}.log"
    outcomes.unlink(missing_ok=True)
    with log.open("w") as handle:
        try:
            process = subprocess.run(
                run.command(targets),
                cwd=run.copy,
                env=run.environ(outcomes),
                stdout=handle,
                stderr=subprocess.STDOUT,
                timeout=timeout,
            )
            return process.returncode, outcomes
        except subprocess.TimeoutExpired:
            return "timeout", outcomes


def run_chunk(run: Run, name: str, files: Sequence[str], targets: Sequence[str]) -> ChunkResult:
    """Run test targets (files, or test ids of `files`) in one subprocess with a timeout of
    `file_timeout` per file. When it does not complete, the files that had not finished run
    again, each alone; a file that does not complete alone gets its failure (the exit status,
    or the timeout) for every test of it that did not report."""
    timeout = float(run.file_timeout * len(files))
    status, path = _run_chunk(run, name, targets, timeout)
    result = ChunkResult()
    outcomes, collect_errors = read_outcome_file(path)
    result.outcomes.update(outcomes)
    result.file_failures.update(collect_errors)
    if status == 4 and _shadow_error(path):
        result.shadow_error = _shadow_error(path)
        return result
    if status in COMPLETED:
        return result
    if len(files) == 1:
        result.file_failures[files[0]] = (
            f"{TIMED_OUT} {timeout:.0f} s" if status == "timeout" else f"crashed (exit {status})"
        )
        return result
    collected = _collected(path)
    unfinished = [
        file
        for file in files
        if file not in collect_errors
        and (
            file not in {test_file_of(n) for n in collected}
            or any(test_file_of(n) == file and n not in outcomes for n in collected)
        )
    ]
    for index, file in enumerate(unfinished):
        own = [t for t in targets if test_file_of(t) == file]
        single = run_chunk(run, f"{name}-{index}", [file], own)
        result.outcomes = {
            k: v for k, v in result.outcomes.items() if test_file_of(k) != file
        } | single.outcomes
        result.file_failures.pop(file, None)
        result.file_failures.update(single.file_failures)
    return result


def _collected(path: Path) -> list[str]:
    """The test ids the plugin says pytest collected (none when it crashed before)."""
    if not path.exists():
        return []
    nodeids: list[str] = []
    for line in path.read_text(errors="replace").splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if record.get("kind") == "collected":
            nodeids.extend(record["nodeids"])
    return nodeids


def _shadow_error(path: Path) -> str | None:
    if not path.exists():
        return None
    for line in path.read_text(errors="replace").splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if record.get("kind") == "shadow_error":
            return f"{record['package']} was imported from {record['file']}"
    return None


def submit_tests(
    pool: ThreadPoolExecutor,
    run: Run,
    files: Sequence[str],
    chunk_files: int,
    targets: dict[str, list[str]] | None = None,
) -> list[Future[ChunkResult]]:
    """Every file's tests (or only `targets[file]`) in chunks of `chunk_files` files."""
    run.logs.mkdir(parents=True, exist_ok=True)
    chunks = [files[i : i + chunk_files] for i in range(0, len(files), chunk_files)]
    return [
        pool.submit(
            run_chunk,
            run,
            f"{n:03d}",
            chunk,
            [t for f in chunk for t in (targets[f] if targets else [f])],
        )
        for n, chunk in enumerate(chunks)
    ]


def collect(futures: Iterable[Future[ChunkResult]]) -> ChunkResult:
    merged = ChunkResult()
    for future in futures:
        part = future.result()
        merged.outcomes.update(part.outcomes)
        merged.file_failures.update(part.file_failures)
        merged.shadow_error = merged.shadow_error or part.shadow_error
    return merged


# --- one library -------------------------------------------------------------------------------


def _function_record(
    function: RewrittenFunction, verdicts: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    verdict = verdicts.get(function.key, {})
    return {
        "key": function.key,
        **asdict(function),
        "transformation": verdict.get("transformation"),
        "passing_precondition": verdict.get("passing_precondition"),
        "speculative": verdict.get("speculative"),
        "assumptions": verdict.get("assumptions", []),
    }


def judge_library(
    library: Library, args: argparse.Namespace, python: Path, extra_path: list[str]
) -> dict[str, Any]:
    started = time.perf_counter()
    out: Path = args.out
    work = out / library.name
    site = install_library(python, out, library)
    tests = sdist_tests(python, out, library)
    for label in ("original", "rewritten"):
        copy_packages(site, work / label, library.packages)
        if tests is not None:
            shutil.copytree(tests, work / label / tests.name)
    print(f"[{library.name}] analysing and rewriting ...", flush=True)
    not_rewritten = list(library.not_rewritten)
    if library.sdist_tests is not None:
        not_rewritten.append(f"{library.sdist_tests}/*")
    done = rewrite(work, args.jobs, not_rewritten)
    rewritten_files = {f.file for f in done.rewritten}
    test_folders = [*library.packages, *([library.sdist_tests] if library.sdist_tests else [])]
    test_files = sorted(
        str(p.relative_to(work / "original").as_posix())
        for folder in test_folders
        for p in (work / "original" / folder).rglob("*.py")
        if is_test_file(p.name)
    )
    if not args.all_tests:
        test_files = [
            f for f in test_files if not any(fnmatchcase(f, g) for g in library.slow_tests)
        ]
    limit = args.tests_limit if args.tests_limit is not None else library.tests_limit
    selected = select_test_files(test_files, rewritten_files, limit)
    print(
        f"[{library.name}] {done.functions} functions, {len(done.rewritten)} rewritten; "
        f"running {len(selected)} of {len(test_files)} test files twice ...",
        flush=True,
    )

    plugin = install_plugin(work / "plugin")  # the plugin of `hybridize refactor --verify`

    def make_run(label: str, trace: Path | None = None) -> Run:
        copy = work / ("original" if label == "original" else "rewritten")
        return Run(
            label,
            python,
            copy,
            [str(site), *extra_path, str(plugin)],
            dict(library.env),
            library.packages,
            args.test_timeout or library.test_timeout,
            args.file_timeout or library.file_timeout,
            work / "logs",
            trace,
        )

    shutil.rmtree(work / "logs", ignore_errors=True)  # a previous run's chunks are not this one's
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        before_chunks = submit_tests(pool, make_run("original"), selected, args.chunk_files)
        after_chunks = submit_tests(pool, make_run("rewritten"), selected, args.chunk_files)
        before, after = collect(before_chunks), collect(after_chunks)
    if before.shadow_error or after.shadow_error:
        raise RuntimeError(
            f"the copy does not shadow the installed library: {before.shadow_error or after.shadow_error}"
        )
    compared = newly_failing(before.outcomes, after.outcomes, after.file_failures)
    # a file cut by its timeout after the rewrite (its tests ran, slower or in another order,
    # on a shared machine) says nothing about the tests it did not reach: listed, not counted
    timed_out = [f for f in compared if f.outcome == "missing" and f.error.startswith(TIMED_OUT)]
    failures = [f for f in compared if f not in timed_out]

    # rerun what newly fails, on the rewritten copy, recording the rewritten functions it runs
    rewritten_root = (work / "rewritten").resolve()
    path_of = {f.file: str((rewritten_root / f.file).resolve()) for f in done.rewritten}
    traced: dict[str, Outcome] = {}
    if failures and done.rewritten:
        trace = write_trace_targets(work / "trace-targets.json", done.rewritten, path_of)
        targets: dict[str, list[str]] = {}
        for failure in failures:
            targets.setdefault(test_file_of(failure.nodeid), []).append(failure.nodeid)
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            rerun = collect(
                submit_tests(
                    pool, make_run("traced", trace), sorted(targets), args.chunk_files, targets
                )
            )
        traced = rerun.outcomes

    failing_records = []
    attribution: dict[str, tuple[list[str], list[str]]] = {}
    flaky = []
    error_changes: list[str] = []  # invalid input raises another exception: not counted unsafe
    for failure in failures:
        first = after.outcomes.get(failure.nodeid)
        again = traced.get(failure.nodeid)
        frames = (first.frames if first else []) + (again.frames if again else [])
        blamed = blamed_functions(frames, done.rewritten, path_of)
        exercised = (again.exercised or []) if again else []
        reproduced = again is None or again.outcome not in ("passed", "skipped")
        test_path = str((rewritten_root / test_file_of(failure.nodeid)).resolve())
        changed_error = error_changed(failure.error, frames, test_path)
        record = {
            **asdict(failure),
            "error_text": first.error_text if first else "",
            "blamed": blamed,
            "exercised": exercised,
            "reproduced": reproduced,
            "error_changed": changed_error,
        }
        failing_records.append(record)
        if not reproduced:
            flaky.append(failure.nodeid)
        elif changed_error:
            error_changes.append(failure.nodeid)
        else:
            attribution[failure.nodeid] = (blamed, exercised)
    borrowed = borrow_blame(
        {
            r["nodeid"]: (r["error"], r["blamed"])
            for r in failing_records
            if r["reproduced"] and not r["error_changed"]
        }
    )
    for record in failing_records:
        if record["nodeid"] in borrowed:
            record["blamed"] = borrowed[record["nodeid"]]
            record["blame_borrowed"] = True
            attribution[record["nodeid"]] = (record["blamed"], record["exercised"])
    unsafe = unsafe_functions(attribution, done.rewritten)
    errors = {r["nodeid"]: r["error"] for r in failing_records}
    unattributed = [n for n, (b, e) in attribution.items() if not b and not e]
    return {
        "library": library.name,
        "requirement": library.requirement,
        "functions_analysed": done.functions,
        "refactorable": done.refactorable,
        "rewritten_count": len(done.rewritten),
        "rewritten": [_function_record(f, done.verdicts) for f in done.rewritten],
        "test_files": selected,
        "test_files_available": len(test_files),
        "tests_before": len(before.outcomes),
        "tests_after": len(after.outcomes),
        "passing_before": count(before.outcomes),
        "passing_after": count(after.outcomes),
        "file_failures_before": before.file_failures,
        "file_failures_after": after.file_failures,
        "newly_failing": failing_records,
        "flaky": flaky,
        "error_changes": error_changes,
        "timed_out_after": [asdict(f) for f in timed_out],
        "unattributed": unattributed,
        "unsafe_functions": [
            {
                **_function_record(u.function, done.verdicts),
                "blamed_by": u.blamed_by,
                "exercised_by": u.exercised_by,
                "errors": {n: errors[n] for n in dict.fromkeys(u.blamed_by + u.exercised_by)},
            }
            for u in unsafe
        ],
        "seconds": round(time.perf_counter() - started, 1),
        "analysis_seconds": round(done.seconds, 1),
    }


# --- report ------------------------------------------------------------------------------------

COLUMNS = (
    ("library", "library"),
    ("functions_analysed", "functions"),
    ("rewritten_count", "rewritten"),
    ("tests", "tests before/after"),
    ("passing", "passing before/after"),
    ("new_failures", "newly failing"),
    ("unsafe", "unsafe functions"),
)


def _row(result: dict[str, Any]) -> dict[str, str]:
    changes = len(result.get("error_changes", []))
    confirmed = len(result["newly_failing"]) - len(result["flaky"]) - changes
    return {
        "library": result["requirement"],
        "functions_analysed": str(result["functions_analysed"]),
        "rewritten_count": str(result["rewritten_count"]),
        "tests": f"{result['tests_before']}/{result['tests_after']}",
        "passing": f"{result['passing_before']}/{result['passing_after']}",
        "new_failures": str(confirmed)
        + (f" (+{len(result['flaky'])} flaky)" if result["flaky"] else "")
        + (f" (+{changes} error type)" if changes else ""),
        "unsafe": str(len(result["unsafe_functions"])),
    }


def totals(results: Sequence[dict[str, Any]]) -> dict[str, int]:
    def total(key: str) -> int:
        return sum(int(r[key]) for r in results)

    return {
        "libraries": len(results),
        "functions_analysed": total("functions_analysed"),
        "rewritten": total("rewritten_count"),
        "tests_before": total("tests_before"),
        "tests_after": total("tests_after"),
        "passing_before": total("passing_before"),
        "passing_after": total("passing_after"),
        "newly_failing": sum(
            len(r["newly_failing"]) - len(r["flaky"]) - len(r.get("error_changes", []))
            for r in results
        ),
        "flaky": sum(len(r["flaky"]) for r in results),
        "error_changes": sum(len(r.get("error_changes", [])) for r in results),
        "unsafe_functions": sum(len(r["unsafe_functions"]) for r in results),
    }


def render(results: Sequence[dict[str, Any]]) -> str:
    rows = [_row(r) for r in results if not r.get("error")]
    widths = {key: max([len(title), *(len(r[key]) for r in rows)]) for key, title in COLUMNS}
    lines = ["  ".join(title.ljust(widths[key]) for key, title in COLUMNS)]
    lines += ["  ".join(row[key].ljust(widths[key]) for key, _ in COLUMNS) for row in rows]
    for result in results:
        if result.get("error"):
            lines.append(f"\n{result['library']}: not judged: {result['error']}")
            continue
        if result.get("error_changes"):
            lines.append(f"\n{result['requirement']}: tests expecting an error that got another")
        for nodeid in result.get("error_changes", []):
            error = next(r["error"] for r in result["newly_failing"] if r["nodeid"] == nodeid)
            lines.append(f"  {nodeid}: {error[:140]}")
        if not result["unsafe_functions"] and not result["unattributed"]:
            continue
        lines.append(f"\n{result['requirement']}: unsafe rewrites")
        for unsafe in result["unsafe_functions"]:
            tests = list(dict.fromkeys(unsafe["blamed_by"] + unsafe["exercised_by"]))
            how = "in the traceback of" if unsafe["blamed_by"] else "run by"
            lines.append(
                f"  {unsafe['key']} (line {unsafe['def_line']}): {how} {len(tests)} newly failing test(s)"
            )
            for nodeid in tests[:3]:
                lines.append(f"    {nodeid}: {unsafe['errors'][nodeid][:160]}")
            if len(tests) > 3:
                lines.append(f"    ... and {len(tests) - 3} more")
        for nodeid in result["unattributed"][:10]:
            lines.append(f"  (no rewritten function named) {nodeid}")
    t = totals([r for r in results if not r.get("error")])
    lines.append(
        f"\ntotal: {t['libraries']} libraries, {t['functions_analysed']} functions analysed, "
        f"{t['rewritten']} rewritten, tests {t['tests_before']}/{t['tests_after']}, passing "
        f"{t['passing_before']}/{t['passing_after']}, {t['newly_failing']} newly failing "
        f"({t['flaky']} flaky, {t['error_changes']} error-type changes on invalid input), "
        f"{t['unsafe_functions']} unsafe functions"
    )
    return "\n".join(lines)


def _git_commit() -> str:
    result = _run(["git", "rev-parse", "HEAD"], cwd=ROOT)
    return result.stdout.strip()


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--libraries",
        default=",".join(DEFAULT_LIBRARIES),
        help=f"comma-separated, of {', '.join(LIBRARIES)} (default: {','.join(DEFAULT_LIBRARIES)})",
    )
    parser.add_argument("--venv", type=Path, help="scratch environment with TensorFlow and pytest")
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "realcode-oracle")
    parser.add_argument("--jobs", type=int, default=2, help="test subprocesses at a time")
    parser.add_argument("--tests-limit", type=int, help="test files per library (sampled)")
    parser.add_argument("--test-timeout", type=int, help="seconds per test (default: per library)")
    parser.add_argument(
        "--file-timeout", type=int, help="seconds per test file (default: per library)"
    )
    parser.add_argument("--chunk-files", type=int, default=6, help="test files per subprocess")
    parser.add_argument("--keep", action="store_true", help="keep the copies and logs")
    parser.add_argument(
        "--all-tests", action="store_true", help="also the suites a library marks slow"
    )
    args = parser.parse_args(argv)
    args.names = [n.strip() for n in args.libraries.split(",") if n.strip()]
    unknown = [n for n in args.names if n not in LIBRARIES]
    if unknown:
        parser.error(f"unknown library {unknown[0]!r}; known: {', '.join(LIBRARIES)}")
    args.out = args.out.resolve()
    return args


def run_oracle(args: argparse.Namespace) -> dict[str, Any]:
    """Judge every library of `args.names`; the results document (also written to
    OUT/results.json). A library that cannot be installed or rewritten gets an `error`."""
    args.out.mkdir(parents=True, exist_ok=True)
    venv = args.venv.resolve() if args.venv else None
    results: list[dict[str, Any]] = []
    pythons: list[Path] = []
    for name in args.names:
        library = LIBRARIES[name]
        try:
            python = scratch_python(args.out, venv, library.base)
            pythons.append(python)
            extra_path = tools_path(python, args.out)
            result = judge_library(library, args, python, extra_path)
        except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
            result = {"library": name, "requirement": library.requirement, "error": str(exc)}
            print(f"[{name}] not judged: {exc}", flush=True)
        results.append(result)
        if not args.keep:
            for label in ("original", "rewritten", "logs", "hybridize-cache"):
                shutil.rmtree(args.out / name / label, ignore_errors=True)
        # written after every library: a run stopped in a long suite keeps the ones judged
        document = _document(results, pythons)
        (args.out / "results.json").write_text(json.dumps(document, indent=2) + "\n")
    return _document(results, pythons)


def _document(results: list[dict[str, Any]], pythons: list[Path]) -> dict[str, Any]:
    judged = [r for r in results if not r.get("error")]
    return {
        "hybridize_commit": _git_commit(),
        "python": ", ".join(dict.fromkeys(str(p) for p in pythons)),
        "libraries": results,
        "totals": totals(judged),
    }


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    document = run_oracle(args)
    print(render(document["libraries"]))
    print(f"details: {args.out / 'results.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
