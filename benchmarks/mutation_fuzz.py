"""Mutation fuzzing: one bad file must never take the project down.

Usage: python benchmarks/mutation_fuzz.py [--files 2000] [--batch 200] [--seed 0]
                                          [--source DIR ...] [--keep DIR]

Takes real Python files (the corpus, and where installed Keras' `keras/src` and TensorFlow's
`tensorflow/python/ops`, read only), mutates copies of them the ways real trees go wrong
(deleted and truncated spans, inserted bytes, odd encodings and line endings, deep nesting,
long operator chains, odd file names, FIFOs, symlink loops, folders named like modules),
writes them `--batch` at a time as one project, and runs on each project, as separate
processes with time limits:

  hybridize analyze --format json | sarif | text
  hybridize refactor --apply          (on a copy)

A failure is a crash or a traceback, a run over its time limit, an exit status other than 0,
output that is not valid UTF-8 (or not valid JSON / SARIF / report schema), a file CPython
cannot parse that the JSON report does not list under `errors`, a file that imports TensorFlow
or Keras and defines functions that is in neither list, or a file that CPython parsed before
`refactor --apply` and does not after.
Prints the files tried and every failure found; exits 1 when there is one.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RUN_TIMEOUT = 600.0
"""Seconds one command may take on one batch before it counts as a hang."""


# ------------------------------------------------------------------ mutations


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True) or [""]


def delete_lines(rng: random.Random, text: str) -> str:
    lines = _lines(text)
    start = rng.randrange(len(lines))
    del lines[start : start + rng.randint(1, 8)]
    return "".join(lines)


def delete_bytes(rng: random.Random, text: str) -> str:
    if not text:
        return text
    start = rng.randrange(len(text))
    return text[:start] + text[start + rng.randint(1, 40) :]


def truncate(rng: random.Random, text: str) -> str:
    return text[: rng.randrange(len(text) + 1)]


def duplicate_and_swap(rng: random.Random, text: str) -> str:
    lines = _lines(text)
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[i], lines[j] = lines[j], lines[i]
    lines.insert(rng.randrange(len(lines) + 1), lines[rng.randrange(len(lines))])
    return "".join(lines)


def _at_a_line(rng: random.Random, text: str, insert: str) -> str:
    lines = _lines(text)
    position = rng.randrange(len(lines) + 1)
    indent = ""
    if position < len(lines):
        line = lines[position]
        indent = line[: len(line) - len(line.lstrip(" \t"))]
    lines.insert(position, indent + insert + "\n")
    return "".join(lines)


DEPTHS = (40, 99, 150, 250, 1000, 5000)
CHAINS = (100, 1000, 10000, 20000)


def _nesting(rng: random.Random, depth: int) -> str:
    kind = rng.choice(["(", "[", "{", "f(", "{1: ", "x[", "f'{("])
    if kind == "f'{(":
        return "f'{" + "(" * depth + "1" + ")" * depth + "}'"
    closer = {"(": ")", "[": "]", "{": "}", "f(": ")", "{1: ": "}", "x[": "]"}[kind]
    inner = "" if kind in ("[", "{", "f(") else "1"
    return kind * depth + inner + closer * depth


def _chain(rng: random.Random, length: int) -> str:
    kind = rng.choice(["-", "not ", "~", "()", "[0]", ".a", " + 1", " and a", " ** 2", "lambda: "])
    if kind in ("()", "[0]", ".a", " + 1", " and a", " ** 2"):
        return "x" + kind * length
    return kind * length + "x"


def deep_nesting(rng: random.Random, text: str) -> str:
    return _at_a_line(rng, text, "_deep = " + _nesting(rng, rng.choice(DEPTHS)))


def long_chain(rng: random.Random, text: str) -> str:
    return _at_a_line(rng, text, "_chain = " + _chain(rng, rng.choice(CHAINS)))


def deep_blocks(rng: random.Random, text: str) -> str:
    depth = rng.choice((20, 99, 101, 300))
    block = "".join(" " * i + "if x:\n" for i in range(depth)) + " " * depth + "pass\n"
    return text + "\n" + block


def many_elifs(rng: random.Random, text: str) -> str:
    count = rng.choice((50, 200, 3000))
    return text + "\nif x:\n    pass\n" + "elif x:\n    pass\n" * count


MUTATIONS: dict[str, Callable[[random.Random, str], str]] = {
    "delete-lines": delete_lines,
    "delete-bytes": delete_bytes,
    "truncate": truncate,
    "swap-lines": duplicate_and_swap,
    "deep-nesting": deep_nesting,
    "long-chain": long_chain,
    "deep-blocks": deep_blocks,
    "many-elifs": many_elifs,
}
"""Mutations of the text; the encodings below then turn it into bytes."""

INSERTED = [b"\xff", b"\xe9", b"\x00", b"\xef\xbb\xbf", b"\r", b"\x0c", b"'''", b'"', b"(", b"\\"]


def encode(rng: random.Random, text: str) -> tuple[bytes, str]:
    """The text's bytes, in a way real files are stored (or broken)."""
    how = rng.choice(
        ["utf-8"] * 6
        + ["latin-1-cookie", "bogus-cookie", "bom", "crlf", "cr", "utf-16", "insert-bytes"]
    )
    if how == "latin-1-cookie":
        data = ("# -*- coding: latin-1 -*-\n" + text).encode("latin-1", "replace")
    elif how == "bogus-cookie":
        data = ("# -*- coding: no-such-codec -*-\n" + text).encode()
    elif how == "bom":
        data = b"\xef\xbb\xbf" + text.encode()
    elif how == "crlf":
        data = text.replace("\n", "\r\n").encode()
    elif how == "cr":
        data = text.replace("\n", "\r").encode()
    elif how == "utf-16":
        data = text.encode("utf-16")
    elif how == "insert-bytes":
        data = text.encode()
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(data) + 1)
            data = data[:at] + rng.choice(INSERTED) + data[at:]
    else:
        data = text.encode()
    return data, how


def file_name(rng: random.Random, index: int, stem: str) -> tuple[str | bytes, str]:
    """A file name inside the batch folder: mostly plain, sometimes odd."""
    how = rng.choice(["plain"] * 12 + ["package", "non-utf8", "spaces", "unicode", "long"])
    base = f"m{index:04}_{stem}"
    if how == "package":
        return f"pkg{index % 5}/{base}.py", how
    if how == "non-utf8":
        return f"m{index:04}_".encode() + b"\xe9\xff.py", how
    if how == "spaces":
        return f"m{index:04} {stem} -x.py", how
    if how == "unicode":
        return f"m{index:04}_caf\u00e9_\u6a21\u578b.py", how
    if how == "long":
        return f"m{index:04}_" + "l" * 240 + ".py", how
    return f"{base}.py", how


# ------------------------------------------------------------------ batches


@dataclass
class Batch:
    folder: Path
    files: dict[str, bytes] = field(default_factory=dict)
    """Report name -> bytes, for every regular `.py` file written."""
    kinds: dict[str, str] = field(default_factory=dict)
    special: list[str] = field(default_factory=list)
    """Report names of entries that are not regular files (FIFO, loop, folder named x.py)."""


def source_files(sources: Iterable[Path]) -> list[Path]:
    found: list[Path] = []
    for source in sources:
        if source.is_dir():
            found.extend(sorted(p for p in source.rglob("*.py") if p.is_file()))
    return found


def write_batch(rng: random.Random, pool: list[Path], count: int, folder: Path) -> Batch:
    """`count` mutated files (and a few special entries) in `folder`."""
    batch = Batch(folder)
    folder.mkdir(parents=True)
    for index in range(count):
        origin = rng.choice(pool)
        try:
            text = origin.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        kinds = []
        for _ in range(rng.choice((1, 1, 1, 2))):
            name = rng.choice(list(MUTATIONS))
            text = MUTATIONS[name](rng, text)
            kinds.append(name)
        data, encoding = encode(rng, text)
        name, naming = file_name(rng, index, origin.stem)
        raw_name = name if isinstance(name, bytes) else name.encode()
        path = Path(os.fsdecode(folder)) / os.fsdecode(raw_name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        report_name = os.fsdecode(raw_name)
        batch.files[report_name] = data
        batch.kinds[report_name] = f"{'+'.join(kinds)}, {encoding}, {naming} name, from {origin}"
    if os.name == "posix":
        os.mkfifo(folder / "fifo.py")
        os.symlink("loop.py", folder / "loop.py")
        (folder / "x.py").mkdir()
        (folder / "x.py" / "inner.py").write_text(
            "import tensorflow as tf\n\n\ndef f(x):\n    return tf.square(x)\n"
        )
        batch.files["x.py/inner.py"] = (folder / "x.py" / "inner.py").read_bytes()
        batch.special += ["fifo.py", "loop.py"]
    return batch


def cpython_parses(data: bytes) -> bool:
    """Whether CPython compiles these bytes to a tree (its own decoding rules included)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError, UnicodeError):
        return False
    return True


def defines_functions(data: bytes) -> bool:
    """Whether the file defines functions and imports TensorFlow or Keras itself: such a file
    must get verdicts (a file that imports neither, itself or through the project, is not
    TensorFlow code and gets none; one that imports them only through another module may)."""
    from hybridize.analyzer.frameworks.tensorflow_rules import (
        KERAS_PACKAGES,
        is_tensorflow_package,
    )

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tree = ast.parse(data)
    roots = {
        name.split(".")[0]
        for n in ast.walk(tree)
        for name in (
            [a.name for a in n.names]
            if isinstance(n, ast.Import)
            else [n.module or ""]
            if isinstance(n, ast.ImportFrom) and not n.level
            else []
        )
    }
    framework = any(is_tensorflow_package(r) or r in KERAS_PACKAGES for r in roots)
    return framework and any(
        isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) for n in ast.walk(tree)
    )


def display_name(name: str) -> str:
    """A file name as the reports show it: bytes that are not UTF-8 become U+FFFD."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _hybridize(
    args: list[str], cache: Path
) -> tuple[subprocess.CompletedProcess[bytes] | None, float]:
    env = {**os.environ, "HYBRIDIZE_CACHE_DIR": str(cache)}
    started = time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "hybridize", *args],
            capture_output=True,
            timeout=RUN_TIMEOUT,
            env=env,
            cwd=cache.parent,  # not the repository: its `hybridize/` folder would shadow the install
        )
    except subprocess.TimeoutExpired:
        return None, time.perf_counter() - started
    return done, time.perf_counter() - started


def check_batch(
    batch: Batch, work: Path, jobs: int | None = None
) -> tuple[list[str], dict[str, float]]:
    """Every failure of the batch, in words, and the seconds each command took."""
    failures: list[str] = []
    seconds: dict[str, float] = {}
    cache = work / "cache"
    extra = ["--jobs", str(jobs)] if jobs else []
    reports: dict[str, bytes] = {}
    for output_format in ("json", "sarif", "text"):
        args = ["analyze", str(batch.folder), "--format", output_format, *extra]
        done, seconds[output_format] = _hybridize(args, cache)
        label = f"analyze --format {output_format}"
        if done is None:
            failures.append(f"{label}: no result within {RUN_TIMEOUT:.0f} s")
            continue
        failures += _process_failures(label, done)
        try:
            text = done.stdout.decode("utf-8")
        except UnicodeDecodeError as exc:
            failures.append(f"{label}: output is not valid UTF-8 ({exc})")
            continue
        reports[output_format] = done.stdout
        if output_format in ("json", "sarif"):
            try:
                json.loads(text)
            except ValueError as exc:
                failures.append(f"{label}: output is not JSON ({exc})")
                reports.pop(output_format)
    if "json" in reports:
        failures += _report_failures(batch, json.loads(reports["json"]))
    failures += _refactor_failures(batch, work, cache, extra, seconds)
    return failures, seconds


def _process_failures(label: str, done: subprocess.CompletedProcess[bytes]) -> list[str]:
    failures = []
    stderr = done.stderr.decode("utf-8", "replace")
    if done.returncode != 0:
        failures.append(f"{label}: exit status {done.returncode}: {stderr[-800:]}")
    if "Traceback" in stderr:
        failures.append(f"{label}: traceback on stderr: {stderr[-1500:]}")
    return failures


def _report_failures(batch: Batch, report: dict[str, object]) -> list[str]:
    from hybridize.output.report_schema import validate_report

    failures = []
    try:
        validate_report(report)
    except Exception as exc:
        failures.append(f"JSON report does not follow the schema: {exc}")
    errors = {e["file"] for e in report["errors"]}  # type: ignore[attr-defined]
    functions = {f["file"] for f in report["functions"]}  # type: ignore[attr-defined]
    for name, data in batch.files.items():
        shown = display_name(name)
        if shown in errors:
            continue
        if not cpython_parses(data):
            failures.append(f"{name} ({batch.kinds.get(name)}): CPython rejects it, not in errors")
        elif shown not in functions and defines_functions(data):
            failures.append(f"{name} ({batch.kinds.get(name)}): has functions, in neither list")
    for name in batch.special:
        if name not in errors:
            failures.append(f"{name}: not listed in errors")
    return failures


def _refactor_failures(
    batch: Batch, work: Path, cache: Path, extra: list[str], seconds: dict[str, float]
) -> list[str]:
    copy = work / "copy"
    shutil.copytree(batch.folder, copy, symlinks=True, ignore=_no_fifos)
    done, seconds["refactor"] = _hybridize(
        ["refactor", str(copy), "--apply", "--include-low-benefit", *extra], cache
    )
    if done is None:
        return [f"refactor --apply: no result within {RUN_TIMEOUT:.0f} s"]
    failures = _process_failures("refactor --apply", done)
    for name, before in batch.files.items():
        path = Path(os.fsdecode(copy)) / name
        after = path.read_bytes()
        if after != before and cpython_parses(before) and not cpython_parses(after):
            failures.append(f"refactor --apply: {name} ({batch.kinds.get(name)}) no longer parses")
    return failures


def _no_fifos(folder: str, names: list[str]) -> list[str]:
    return [n for n in names if n == "fifo.py"]


def fuzz(
    files: int,
    batch_size: int,
    seed: int,
    sources: list[Path],
    jobs: int | None = None,
    keep: Path | None = None,
    log: Callable[[str], None] = print,
) -> tuple[int, list[str]]:
    """Run the fuzz; the number of files tried and the failures found."""
    pool = source_files(sources)
    if not pool:
        raise SystemExit("no source files to mutate")
    rng = random.Random(seed)
    tried = 0
    failures: list[str] = []
    with tempfile.TemporaryDirectory(prefix="hybridize-fuzz-") as scratch:
        for number in range(max(1, -(-files // batch_size))):
            work = Path(scratch) / f"batch{number:03}"
            count = min(batch_size, files - tried)
            batch = write_batch(rng, pool, count, work / "project")
            found, seconds = check_batch(batch, work, jobs)
            tried += len(batch.files) + len(batch.special)
            timing = ", ".join(f"{k} {v:.1f} s" for k, v in seconds.items())
            log(f"batch {number}: {len(batch.files)} files, {len(found)} failures ({timing})")
            failures += [f"batch {number}: {f}" for f in found]
            if keep is not None and found:
                shutil.copytree(
                    batch.folder, keep / f"batch{number:03}", symlinks=True, ignore=_no_fifos
                )
            shutil.rmtree(work, ignore_errors=True)
    return tried, failures


def default_sources() -> list[Path]:
    import sysconfig

    site = Path(sysconfig.get_paths()["purelib"])
    candidates = [REPO / "corpus", site / "keras" / "src", site / "tensorflow" / "python" / "ops"]
    return [c for c in candidates if c.is_dir()]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--batch", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--source", type=Path, action="append", default=None)
    parser.add_argument("--keep", type=Path, default=None, help="Copy failing batches here.")
    args = parser.parse_args()
    sources = args.source or default_sources()
    print(f"sources: {', '.join(str(s) for s in sources)}", flush=True)
    started = time.perf_counter()
    tried, failures = fuzz(
        args.files,
        args.batch,
        args.seed,
        sources,
        args.jobs,
        args.keep,
        log=lambda line: print(line, flush=True),
    )
    for failure in failures:
        print(f"FAILURE {failure}")
    print(f"{tried} files tried, {len(failures)} failures, {time.perf_counter() - started:.0f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
