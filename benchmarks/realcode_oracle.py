"""The real-code differential oracle: real libraries' own test suites judge the rewrite
(TensorFlow 2 and PyTorch ones), the default refactoring and `--include-low-benefit` apart.

Usage: python benchmarks/realcode_oracle.py [--libraries sonnet,recommenders,tf-models,gpytorch]
           [--held-out] [--mode default|low-benefit|both] [--venv PATH] [--jobs 2]
           [--tests-limit N] [--test-timeout S] [--keep] [--out build/realcode-oracle]

For every library (benchmarks/oracle_libraries.py: pinned, with test suites nobody here wrote):

1. install it with its pinned test dependencies into `OUT/site/LIB` (`pip install --no-deps
   --target`) for a scratch environment of its base (`Library.base`): TensorFlow's is
   `--venv PATH`, else `OUT/venv`, PyTorch's `OUT/venv-HASH`, each built with `python3.11 -m
   venv` (never the project's .venv); a library whose tests are in its source distribution
   only (gpytorch's `test/`) has that folder extracted once into `OUT/site/LIB-sdist`;
2. copy its packages (and that tests folder) to `OUT/LIB/original` and once per mode
   (`OUT/LIB/rewritten` for `--include-low-benefit`, `OUT/LIB/rewritten-default` for the
   default refactoring), and run this repo's
   `hybridize analyze` on the original (the functions analysed) and `hybridize refactor
   --apply --diff` on each rewritten copy (test files and conftest.py are analysed as callers
   but not rewritten: `--ignore`), with a fresh cache folder;
3. read from the diff which functions were rewritten, and where their code now lives;
4. run the library's test files against each copy (PYTHONPATH puts the copy first, and the
   plugin checks that `pkg.__file__` is the copy's), in chunks of files, each chunk a
   subprocess with a timeout, `--jobs` at a time: a chunk that crashes or times out is rerun
   file by file, so one crash costs one file;
5. name the **unsafe rewrites**: `hybridize refactor --verify` on the original copy, with the
   same options, judged by the tests that passed before and fail after (`oracle_blame`): it
   reruns them traced, confirms a traceback's blame by a run without the change and bisects
   when a test names several changes or none (a compiled callee leaves no frame; a failure in
   `tf.function`'s binding runs none of the function). The changes it drops are the unsafe
   rewrites, each with the tests that failed with it; a test passing when run again alone is
   reported as flaky, not as unsafe.

Prints per library and mode the functions analysed and rewritten, the tests run and passing
before and after, the newly failing tests and the unsafe functions with the tests naming them,
then a line of totals per mode; the held-out libraries (`Library.held_out`: run only with
`--held-out` or by name, when a change is done) apart, after the others. Writes the details to
OUT/results.json (per failing test the exception's last line and text, per unsafe function
the tests and errors).

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
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from fnmatch import fnmatchcase
from functools import partial
from pathlib import Path
from typing import Any

from hybridize.analyzer.summaries.keys import FunctionKey

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))  # this repository's hybridize (its verify package)

from oracle_blame import Blame, read_blame, verify_command  # noqa: E402
from oracle_libraries import (  # noqa: E402
    BASE_REQUIREMENTS,
    DEFAULT_LIBRARIES,
    HELD_OUT_LIBRARIES,
    LIBRARIES,
    Library,
)
from oracle_rewrites import rewrites_from_diff  # noqa: E402

from hybridize.verify.benefit import TEST_HELPER_GLOBS  # noqa: E402
from hybridize.verify.command_run import PLUGIN_MODULE, install_plugin  # noqa: E402
from hybridize.verify.outcomes import (  # noqa: E402
    Outcome,
    collected_tests,
    count,
    error_changed,
    newly_failing,
    read_outcome_file,
    test_file_of,
)
from hybridize.verify.report import report_path  # noqa: E402
from hybridize.verify.rewritten import RewrittenFunction  # noqa: E402

TEST_GLOBS = ("*_test.py", "test_*.py", "*/test_*.py", "conftest.py", "*/conftest.py")
"""Test modules: run as tests (`is_test_file`), analysed as callers, never rewritten
(`hybridize refactor --ignore`)."""

NOT_LIBRARY_GLOBS = (*TEST_GLOBS, *TEST_HELPER_GLOBS)
"""Test code, analysed as callers and never rewritten in both oracles: test modules and the
test-helper modules a package ships (`TEST_HELPER_GLOBS`: not run as tests themselves, and
not counted as the library's changes: Sonnet's `WrappedTFOptimizer.apply` in
`optimizer_tests.py` counted in the benefit oracle's recall)."""

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
    rewritten module first (`x/foo_test.py` or `x/test_foo.py` for `x/foo.py` or for a private
    `x/_foo.py`, or in a `tests/` folder beside it, `x/tests/foo_test.py`, also in a test tree
    that mirrors the package below its top folder,
    `test/x/test_foo.py` for `pkg/x/foo.py`, as gpytorch's and e3nn's sdists do, or that holds
    the whole package path, `tests/pkg/x/test_foo.py`, as gpflow's wheel does), then those in a
    folder holding one (or its mirror), then the rest; each group in the order of the SHA-1 of
    its path."""
    if limit is None or limit >= len(test_files):
        return sorted(test_files)
    return sorted(rank_test_files(test_files, rewritten_files)[:limit])


def rank_test_files(test_files: Sequence[str], rewritten_files: Iterable[str]) -> list[str]:
    """Every test file, most relevant first: `select_test_files`' order (those testing a
    rewritten module by name, then those in a folder holding one or its mirror, then the rest;
    each group in the order of the SHA-1 of its path)."""
    tiers = test_tiers(test_files, rewritten_files)
    return sorted(test_files, key=lambda p: (tiers[p], _sha(p)))


def test_tiers(test_files: Sequence[str], rewritten_files: Iterable[str]) -> dict[str, int]:
    """Test file -> 0 when it tests a rewritten module by name (`select_test_files` says
    how), 1 when it sits in a folder holding one (or its mirror), 2 otherwise."""
    rewritten = set(rewritten_files)
    mirrored = {_below_top(f) for f in rewritten}
    folders = {f.rsplit("/", 1)[0] if "/" in f else "" for f in rewritten}
    mirrored_folders = {_below_top(f) for f in folders if "/" in f}

    def mirrors(path: str, paths: set[str], below_top: set[str]) -> bool:
        """`path` is one of `paths`, or mirrors one below the top folder, or ends with one."""
        return (
            path in paths
            or ("/" in path and _below_top(path) in below_top)
            or any(path.endswith(f"/{p}") for p in paths if p)
        )

    def tier(path: str) -> int:
        folder, _, name = path.rpartition("/")
        subject = name.removesuffix("_test.py").removeprefix("test_").removesuffix(".py")
        # a `tests/` (or `test/`) folder inside a package tests the modules beside it
        # (tensorflow-graphics' `image/tests/pyramid_test.py` for `image/pyramid.py`)
        parent, _, last = folder.rpartition("/")
        homes = [folder, parent] if last in ("tests", "test") else [folder]
        for home in homes:
            for module in (subject, f"_{subject}"):
                if mirrors(f"{home}/{module}.py".lstrip("/"), rewritten, mirrored):
                    return 0
        return 1 if any(mirrors(home, folders, mirrored_folders) for home in homes) else 2

    return {path: tier(path) for path in test_files}


def tests_named_after(test_files: Sequence[str], module: str) -> list[str]:
    """The test files that test `module` by name (`select_test_files`' first group for that
    module alone: `x/foo_test.py`, `x/test_foo.py`, their mirrors), in the order of the SHA-1
    of their paths."""
    tiers = test_tiers(test_files, [module])
    return sorted((p for p in test_files if tiers[p] == 0), key=_sha)


def _below_top(path: str) -> str:
    """A path without its top folder (`gpytorch/priors/x.py` -> `priors/x.py`)."""
    return path.split("/", 1)[1] if "/" in path else path


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


def shadowed(copy: Path, packages: Iterable[str]) -> list[tuple[str, Path]]:
    """(import name, folder in the copy) of each package the copy must shadow: a regular
    package as it is, a namespace package (no `__init__.py`, deel-lip's `deel`, whose
    `__file__` is None) by its regular subpackages (`deel.lip`)."""
    names: list[tuple[str, Path]] = []
    for package in packages:
        folder = copy / package
        if (folder / "__init__.py").is_file() or not folder.is_dir():
            names.append((package, folder))
            continue
        subpackages = sorted(sub for sub in folder.iterdir() if (sub / "__init__.py").is_file())
        names.extend((f"{package}.{sub.name}", sub) for sub in subpackages)
    return names


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
    if library.sitecustomize is not None:
        wanted += "\n" + library.sitecustomize
    if marker.exists() and marker.read_text() == wanted:
        return site
    print(f"installing {' '.join(library.requirements)} ...", flush=True)
    shutil.rmtree(site, ignore_errors=True)
    _pip(python, "--no-deps", "--target", str(site), *library.requirements)
    if library.sitecustomize is not None:
        (site / "sitecustomize.py").write_text(library.sitecustomize)
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


def copy_tests(tests: Path | None, copy: Path, library: Library) -> None:
    """Put the source distribution's tests (`sdist_tests`, if any) in a copy, and make the
    folders its tests expect to find there (`Library.made_folders`)."""
    if tests is not None:
        # at the same place in the copy: a top-level `tests/`, or a package's own folder of
        # tests and their data (`tf_pwa/tests`, whose YAML files the wheel lacks) over the
        # wheel's
        shutil.copytree(tests, copy / str(library.sdist_tests), dirs_exist_ok=True)
    for folder in library.made_folders:
        (copy / folder).mkdir(parents=True, exist_ok=True)


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


def hybridize(
    *args: str, cache: Path, jobs: int, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """This repository's hybridize (the interpreter running the oracle), on `cache`, with
    `env` added to the environment (the one `--verify`'s test runs inherit)."""
    environ = {**os.environ, **(env or {}), "HYBRIDIZE_CACHE_DIR": str(cache)}
    return _run([sys.executable, "-m", "hybridize", *args, "--jobs", str(jobs)], env=environ)


@dataclass(slots=True)
class Rewrite:
    """What the analysis and the refactoring did to one library."""

    functions: int
    refactorable: int
    rewritten: list[RewrittenFunction]
    verdicts: dict[str, dict[str, Any]]
    seconds: float
    diff: str = ""


MODES: dict[str, tuple[str, ...]] = {
    "default": (),
    "low-benefit": ("--include-low-benefit",),
}
"""What each mode of the oracle judges, as `hybridize refactor` options: the default refactoring
(what users get), and every safe rewrite, paying or not (`--include-low-benefit`)."""


def refactor_options(mode: str, not_rewritten: Sequence[str] = ()) -> list[str]:
    """The `hybridize refactor` options of a rewrite in `mode`: test files, conftest.py and
    test-helper modules (`NOT_LIBRARY_GLOBS`; and `not_rewritten`) analysed as callers, never
    rewritten."""
    ignores = [arg for glob in (*NOT_LIBRARY_GLOBS, *not_rewritten) for arg in ("--ignore", glob)]
    return ["--no-config", *MODES[mode], *ignores]


def modes_of(mode: str) -> list[str]:
    """The modes `--mode` names (`both`: the two, low-benefit first: its rewrite holds the
    default's, so its rewritten files choose the test sample)."""
    return ["low-benefit", "default"] if mode == "both" else [mode]


def rewritten_copy(mode: str) -> str:
    """The folder of a library's work folder holding its copy rewritten in `mode`
    (`rewritten` for every safe rewrite, as the benefit oracle reads it)."""
    return "rewritten" if mode == "low-benefit" else f"rewritten-{mode}"


def rewrite(
    work: Path,
    jobs: int,
    not_rewritten: Sequence[str] = (),
    mode: str = "low-benefit",
    fresh_cache: bool = True,
) -> Rewrite:
    """Analyse `work/original` and rewrite its copy of `mode` (`rewritten_copy`) in place,
    on a fresh cache folder, or (`fresh_cache=False`, a library's second mode) on the one the
    first mode filled: the same sources, so the analysis is not repeated."""
    original, rewritten = work / "original", work / rewritten_copy(mode)
    cache = work / "hybridize-cache"
    if fresh_cache:
        shutil.rmtree(cache, ignore_errors=True)
    started = time.perf_counter()
    analysis = hybridize("analyze", str(original), "--format", "json", cache=cache, jobs=jobs)
    if analysis.returncode != 0:
        raise RuntimeError(f"hybridize analyze failed: {analysis.stderr[-2000:]}")
    (work / "analysis.json").write_text(analysis.stdout)
    report = json.loads(analysis.stdout)
    refactor = hybridize(
        "refactor",
        str(rewritten),
        "--apply",
        "--diff",
        *refactor_options(mode, not_rewritten),
        cache=cache,
        jobs=jobs,
    )
    (work / f"{rewritten_copy(mode)}.diff").write_text(refactor.stdout)
    (work / f"{rewritten_copy(mode)}.log").write_text(refactor.stderr)
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
        diff=refactor.stdout,
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
    plugins: tuple[str, ...] = ()
    """More pytest plugins (module names on `pythonpath`): the benefit oracle's."""

    def command(self, targets: Sequence[str]) -> list[str]:
        """pytest on `targets` in the copy, with the verify plugin recording each outcome."""
        return self._pytest(targets, str(self.copy), (PLUGIN_MODULE, *self.plugins))

    def verify_command(self, targets: Sequence[str]) -> str:
        """The same pytest run as a `hybridize refactor --verify` command line, run in the
        verification's own copy (which loads the verify plugin itself)."""
        return verify_command(self._pytest(targets, ".", self.plugins), self.pythonpath)

    def _pytest(self, targets: Sequence[str], rootdir: str, plugins: Sequence[str]) -> list[str]:
        return [
            str(self.python),
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--timeout",
            str(self.test_timeout),
            "--rootdir",
            rootdir,
            "-o",
            "addopts=",
            "-o",
            "python_files=*_test.py test_*.py",
            *(word for plugin in plugins for word in ("-p", plugin)),
            *targets,
        ]

    def environ(self, outcomes: Path) -> dict[str, str]:
        shadow = ",".join(f"{name}={folder}" for name, folder in shadowed(self.copy, self.packages))
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
    collected = collected_tests(path)
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
) -> list[dict[str, Any]]:
    """One result per mode of `args.modes`: the library's tests on the original copy (run once)
    and on the copy rewritten in that mode. A mode whose rewrite changes nothing reuses the
    original's outcomes; one whose diff is another mode's reuses that mode's result."""
    started = time.perf_counter()
    out: Path = args.out
    work = out / library.name
    site = install_library(python, out, library)
    tests = sdist_tests(python, out, library)
    modes: list[str] = args.modes
    for label in ("original", *(rewritten_copy(mode) for mode in modes)):
        copy_packages(site, work / label, library.packages)
        copy_tests(tests, work / label, library)
    print(f"[{library.name}] analysing and rewriting ({', '.join(modes)}) ...", flush=True)
    not_rewritten = list(library.not_rewritten)
    if library.sdist_tests is not None:
        not_rewritten.append(f"{library.sdist_tests}/*")
    done = {
        mode: rewrite(work, args.jobs, not_rewritten, mode, fresh_cache=index == 0)
        for index, mode in enumerate(modes)
    }
    rewritten_files = {f.file for rewrite_done in done.values() for f in rewrite_done.rewritten}
    test_folders = [*library.packages, *([library.sdist_tests] if library.sdist_tests else [])]
    test_files = sorted(
        {
            str(p.relative_to(work / "original").as_posix())
            for folder in test_folders
            for p in (work / "original" / folder).rglob("*.py")
            if is_test_file(p.name)
        }
    )
    if not args.all_tests:
        test_files = [
            f for f in test_files if not any(fnmatchcase(f, g) for g in library.slow_tests)
        ]
    limit = args.tests_limit if args.tests_limit is not None else library.tests_limit
    selected = select_test_files(test_files, rewritten_files, limit)
    same_as = same_rewrites(
        {mode: _diff_of(work, mode, rewrite_done.diff) for mode, rewrite_done in done.items()}
    )
    counts = ", ".join(f"{len(d.rewritten)} rewritten ({mode})" for mode, d in done.items())
    print(
        f"[{library.name}] {next(iter(done.values())).functions} functions, {counts}; "
        f"running {len(selected)} of {len(test_files)} test files on the original and "
        f"{len([m for m in modes if same_as[m] == m and done[m].rewritten])} rewritten copies ...",
        flush=True,
    )

    plugin = install_plugin(work / "plugin")  # the plugin of `hybridize refactor --verify`

    def make_run(label: str, copy: str) -> Run:
        return Run(
            label,
            python,
            work / copy,
            [str(site), *extra_path, str(plugin)],
            dict(library.env),
            library.packages,
            args.test_timeout or library.test_timeout,
            args.file_timeout or library.file_timeout,
            work / "logs",
        )

    def blame(mode: str, nodeids: list[str]) -> Blame:
        print(
            f"[{library.name}] blaming {len(nodeids)} newly failing tests ({mode}) ...", flush=True
        )
        options = refactor_options(mode, not_rewritten)
        run = make_run(f"blame-{mode}", "original")
        cache = work / "hybridize-cache"  # the rewrite's analysis, of the same sources
        return blame_failures(work / "original", options, run, nodeids, cache, args.jobs)

    shutil.rmtree(work / "logs", ignore_errors=True)  # a previous run's chunks are not this one's
    run_modes = [m for m in modes if same_as[m] == m and done[m].rewritten]
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        before_chunks = submit_tests(
            pool, make_run("original", "original"), selected, args.chunk_files
        )
        after_chunks = {
            mode: submit_tests(
                pool,
                make_run(rewritten_copy(mode), rewritten_copy(mode)),
                selected,
                args.chunk_files,
            )
            for mode in run_modes
        }
        before = collect(before_chunks)
        after = {mode: collect(chunks) for mode, chunks in after_chunks.items()}
    shadow_error = before.shadow_error or next(
        (a.shadow_error for a in after.values() if a.shadow_error), None
    )
    if shadow_error:
        raise RuntimeError(f"the copy does not shadow the installed library: {shadow_error}")
    results: dict[str, dict[str, Any]] = {}
    for mode in modes:
        if same_as[mode] != mode:
            results[mode] = {**results[same_as[mode]], "mode": mode, "same_as": same_as[mode]}
            continue
        results[mode] = {
            "library": library.name,
            "requirement": library.requirement,
            "mode": mode,
            "held_out": library.held_out,
            **judge_rewrite(
                done[mode],
                before,
                after.get(mode, before),  # nothing rewritten: the original's outcomes
                partial(blame, mode),
                work / rewritten_copy(mode),
            ),
            "test_files": selected,
            "test_files_available": len(test_files),
            "seconds": round(time.perf_counter() - started, 1),
        }
    return [results[mode] for mode in modes]


def _diff_of(work: Path, mode: str, diff: str) -> str:
    """A rewrite's diff without the path of the copy it was made in, so that two modes'
    diffs compare equal when they rewrite the same."""
    return diff.replace(str(work / rewritten_copy(mode)), "")


def same_rewrites(diffs: dict[str, str]) -> dict[str, str]:
    """Per mode, the first mode (in order) whose diff is the same: itself when none before
    it is. A mode mapped to another reuses its tests' outcomes."""
    first: dict[str, str] = {}
    return {mode: first.setdefault(diff, mode) for mode, diff in diffs.items()}


def blame_failures(
    original: Path, options: Sequence[str], run: Run, nodeids: Sequence[str], cache: Path, jobs: int
) -> Blame:
    """The rewrites the newly failing tests `nodeids` fail with: `hybridize refactor --verify`
    on the original copy with the rewrite's `options` (so the same plan, from the same cache),
    judged by those tests alone, each run of them given the files' time (`oracle_blame`)."""
    report = report_path(original, cache)
    report.unlink(missing_ok=True)  # a report of an earlier mode or run is not this one's
    files = len({test_file_of(nodeid) for nodeid in nodeids})
    done = hybridize(
        "refactor",
        str(original),
        *options,
        "--verify",
        run.verify_command(nodeids),
        "--verify-timeout",
        str(run.file_timeout * files),
        cache=cache,
        jobs=jobs,
        env={**TF_ENV, **run.env},
    )
    run.logs.mkdir(parents=True, exist_ok=True)
    (run.logs / f"{run.label}.log").write_text(done.stderr)
    return read_blame(report, done.returncode, done.stderr)


def judge_rewrite(
    done: Rewrite,
    before: ChunkResult,
    after: ChunkResult,
    blame: Callable[[list[str]], Blame],
    rewritten: Path,
) -> dict[str, Any]:
    """Compare the tests' outcomes before and after one rewrite; have `blame` (the
    verification of the rewrite by the newly failing tests) name the unsafe rewrites; the
    counts, the failures and the unsafe functions."""
    compared = newly_failing(before.outcomes, after.outcomes, after.file_failures)
    # a file cut by its timeout after the rewrite (its tests ran, slower or in another order,
    # on a shared machine) says nothing about the tests it did not reach: listed, not counted
    timed_out = [f for f in compared if f.outcome == "missing" and f.error.startswith(TIMED_OUT)]
    failures = [f for f in compared if f not in timed_out]

    # invalid input that raises another exception changes no valid program: not blamed
    rewritten_root = rewritten.resolve()
    changed_errors: set[str] = set()
    for failure in failures:
        first = after.outcomes.get(failure.nodeid)
        test_path = str((rewritten_root / test_file_of(failure.nodeid)).resolve())
        if error_changed(failure.error, first.frames if first else [], test_path):
            changed_errors.add(failure.nodeid)
    judged = [f.nodeid for f in failures if f.nodeid not in changed_errors]
    verdict = blame(judged) if judged and done.rewritten else Blame()

    not_reproduced = set(verdict.not_reproduced(judged))
    failing_records = [
        {
            **asdict(failure),
            "error_text": (after.outcomes[failure.nodeid].error_text)
            if failure.nodeid in after.outcomes
            else "",
            "blamed": verdict.culprits_of(failure.nodeid),
            "reproduced": failure.nodeid not in not_reproduced,
            "error_changed": failure.nodeid in changed_errors,
        }
        for failure in failures
    ]
    flaky = [n for n in judged if n in not_reproduced]
    errors = {f.nodeid: f.error for f in failures}
    by_key = {f.key: f for f in done.rewritten}
    return {
        "functions_analysed": done.functions,
        "refactorable": done.refactorable,
        "rewritten_count": len(done.rewritten),
        "rewritten": [_function_record(f, done.verdicts) for f in done.rewritten],
        "tests_before": len(before.outcomes),
        "tests_after": len(after.outcomes),
        "passing_before": count(before.outcomes),
        "passing_after": count(after.outcomes),
        "file_failures_before": before.file_failures,
        "file_failures_after": after.file_failures,
        "newly_failing": failing_records,
        "flaky": flaky,
        "error_changes": [f.nodeid for f in failures if f.nodeid in changed_errors],
        "timed_out_after": [asdict(f) for f in timed_out],
        "unattributed": verdict.unexplained(n for n in judged if n not in not_reproduced),
        "unsafe_functions": [
            {
                **_function_record(by_key[culprit.key], done.verdicts),
                "blamed_by": list(culprit.tests),
                "reason": culprit.reason,
                "errors": {n: errors.get(n, culprit.reason) for n in culprit.tests},
            }
            for culprit in verdict.culprits
            if culprit.key in by_key
        ],
        "blame": {
            "rounds": verdict.rounds,
            "runs": verdict.runs,
            "seconds": verdict.seconds,
            "error": verdict.error,
            "plan_differences": verdict.plan_differences(by_key) if judged else [],
        },
        "analysis_seconds": round(done.seconds, 1),
    }


# --- report ------------------------------------------------------------------------------------

COLUMNS = (
    ("library", "library"),
    ("mode", "mode"),
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
        "mode": result.get("mode", "low-benefit"),
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
        judged = f"{result['requirement']} ({result.get('mode', 'low-benefit')})"
        if result.get("same_as"):
            continue  # the same rewrite as the mode printed before it
        if result.get("error_changes"):
            lines.append(f"\n{judged}: tests expecting an error that got another")
        for nodeid in result.get("error_changes", []):
            error = next(r["error"] for r in result["newly_failing"] if r["nodeid"] == nodeid)
            lines.append(f"  {nodeid}: {error[:140]}")
        if not result["unsafe_functions"] and not result["unattributed"]:
            continue
        lines.append(f"\n{judged}: unsafe rewrites")
        for unsafe in result["unsafe_functions"]:
            tests = unsafe["blamed_by"]
            lines.append(
                f"  {unsafe['key']} (line {unsafe['def_line']}): dropped by --verify for "
                f"{len(tests)} newly failing test(s)"
            )
            for nodeid in tests[:3]:
                lines.append(f"    {nodeid}: {unsafe['errors'][nodeid][:160]}")
            if len(tests) > 3:
                lines.append(f"    ... and {len(tests) - 3} more")
        for nodeid in result["unattributed"][:10]:
            lines.append(f"  (not judged by --verify) {nodeid}")
        if result.get("blame", {}).get("error"):
            lines.append(f"  --verify judged nothing: {result['blame']['error'][:300]}")
    for mode, t in totals_by_mode(results).items():
        lines.append(
            f"\ntotal ({mode}): {t['libraries']} libraries, {t['functions_analysed']} functions "
            f"analysed, {t['rewritten']} rewritten, tests {t['tests_before']}/{t['tests_after']}, "
            f"passing {t['passing_before']}/{t['passing_after']}, {t['newly_failing']} newly "
            f"failing ({t['flaky']} flaky, {t['error_changes']} error-type changes on invalid "
            f"input), {t['unsafe_functions']} unsafe functions"
        )
    return "\n".join(lines)


def totals_by_mode(results: Sequence[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """The totals of the judged results, per mode (in the order the modes first appear)."""
    judged = [r for r in results if not r.get("error")]
    modes = dict.fromkeys(r.get("mode", "low-benefit") for r in judged)
    return {
        mode: totals([r for r in judged if r.get("mode", "low-benefit") == mode]) for mode in modes
    }


HELD_OUT_HEADING = "held out (not tuned on; run only when a change is done):"


def render_report(results: Sequence[dict[str, Any]]) -> str:
    """The table of the libraries tuned on, then the held-out ones apart, each with their
    own totals per mode."""
    tuned = [r for r in results if not r.get("held_out")]
    held_out = [r for r in results if r.get("held_out")]
    parts = [render(tuned)] if tuned else []
    if held_out:
        parts.append(f"{HELD_OUT_HEADING}\n{render(held_out)}")
    return "\n\n".join(parts)


def _git_commit() -> str:
    result = _run(["git", "rev-parse", "HEAD"], cwd=ROOT)
    return result.stdout.strip()


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--libraries",
        help=f"comma-separated, of {', '.join(LIBRARIES)} (default: {','.join(DEFAULT_LIBRARIES)})",
    )
    parser.add_argument(
        "--held-out",
        action="store_true",
        help=f"also (alone: only) the held-out libraries, {', '.join(HELD_OUT_LIBRARIES)}: "
        "run only when a change is done, reported apart",
    )
    parser.add_argument(
        "--mode",
        choices=(*MODES, "both"),
        default="both",
        help="judge the default refactoring, every safe rewrite (--include-low-benefit), or "
        "both, each apart (default: both)",
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
    args.names = selected_libraries(args.libraries, args.held_out)
    args.modes = modes_of(args.mode)
    unknown = [n for n in args.names if n not in LIBRARIES]
    if unknown:
        parser.error(f"unknown library {unknown[0]!r}; known: {', '.join(LIBRARIES)}")
    args.out = args.out.resolve()
    return args


def selected_libraries(libraries: str | None, held_out: bool) -> list[str]:
    """The libraries to judge: those named (`--libraries`), else the default ones, which never
    hold a held-out library; `--held-out` adds the held-out ones, or alone runs only them."""
    named = [n.strip() for n in (libraries or "").split(",") if n.strip()]
    if not held_out:
        return named or list(DEFAULT_LIBRARIES)
    return [*named, *(n for n in HELD_OUT_LIBRARIES if n not in named)]


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
            results += judge_library(library, args, python, extra_path)
        except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
            results.append(
                {
                    "library": name,
                    "requirement": library.requirement,
                    "held_out": library.held_out,
                    "error": str(exc),
                }
            )
            print(f"[{name}] not judged: {exc}", flush=True)
        if not args.keep:
            copies = [rewritten_copy(mode) for mode in MODES]
            for label in ("original", *copies, "logs", "hybridize-cache"):
                shutil.rmtree(args.out / name / label, ignore_errors=True)
        # written after every library: a run stopped in a long suite keeps the ones judged
        document = _document(results, pythons)
        (args.out / "results.json").write_text(json.dumps(document, indent=2) + "\n")
    return _document(results, pythons)


def _document(results: list[dict[str, Any]], pythons: list[Path]) -> dict[str, Any]:
    """The results document: one result per library and mode, the held-out libraries' apart,
    each list with its totals per mode."""
    tuned = [r for r in results if not r.get("held_out")]
    held_out = [r for r in results if r.get("held_out")]
    return {
        "hybridize_commit": _git_commit(),
        "python": ", ".join(dict.fromkeys(str(p) for p in pythons)),
        "libraries": tuned,
        "totals": totals_by_mode(tuned),
        "held_out": held_out,
        "held_out_totals": totals_by_mode(held_out),
    }


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    document = run_oracle(args)
    print(render_report([*document["libraries"], *document["held_out"]]))
    print(f"details: {args.out / 'results.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
