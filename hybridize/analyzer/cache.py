"""The on-disk cache: per-file summaries keyed by content, whole results keyed by project.

A summary depends only on the file's bytes, its path in the project and the version of the
summariser, so those form its key. Project-wide facts depend on every file, so a whole result
is keyed by the names and contents of all files (and the options): any edit anywhere, an
imported module included, misses it and recomputes the project-wide phase from summaries.

Location: `$HYBRIDIZE_CACHE_DIR`, else `$XDG_CACHE_HOME/hybridize`, else `~/.cache/hybridize`.
A cache that cannot be created, read or written degrades to a cold run with a warning; a
corrupt entry is ignored and rewritten, never trusted.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from hybridize.analyzer.cycle_collector import collector_paused

if TYPE_CHECKING:
    # The model's and the summaries' classes (milliseconds of dataclass building each) are
    # imported when a summary or a result is read: a run served by the report cache reads none.
    from hybridize.analyzer.summaries.ir import ModuleSummary
    from hybridize.model import FileError, FunctionVerdict

try:
    # hashlib's own BLAKE2, without hashlib loading OpenSSL (3 ms, a twentieth of a run the
    # cache serves). Not every Python build has the module; hashlib's is the same function.
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - CPython always builds it
    from hashlib import blake2b

SUMMARY_FORMAT = "44"
"""Bump when the summary dataclasses or the summariser's own output change. A check's
summary hook needs no bump (`summaries/hooks.py`): a hook of this package's checks is part of
the code `code_fingerprint` hashes, one of a check registered from outside adds its own hash
(`hook_tags.added_hooks_tag`)."""

ProjectResult = tuple[list["FunctionVerdict"], list["FileError"]]


def default_cache_dir() -> Path:
    override = os.environ.get("HYBRIDIZE_CACHE_DIR")
    if override:
        return Path(override)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "hybridize"


CODE_PACKAGES = ("hybridize", "hybridize.analyzer", "hybridize.refactor")
"""The packages whose code decides what a cached summary, result, plan or report holds."""


def version_tag() -> bytes:
    """What every entry also depends on: the tool's version and the summaries' format, the
    Python that parsed the files (a syntax error under 3.10 may parse under 3.12), the
    installed code itself (`code_fingerprint`: its checks' summary hooks among it), the summary
    hooks of checks registered from outside the package (`added_hooks_tag`; nothing when
    none is), and the checks switched off for an experiment (`switched_off_checks`; nothing
    when none is)."""
    from hybridize.analyzer.summaries.hook_tags import added_hooks_tag
    from hybridize.analyzer.switched_off_checks import disabled_codes

    off = disabled_codes()
    hooks = added_hooks_tag()
    return (
        _code_tag()
        + (f"/hooks:{hooks}".encode() if hooks else b"")
        + (f"/off:{','.join(sorted(off))}".encode() if off else b"")
    )


@functools.cache
def _code_tag() -> bytes:
    from hybridize import __version__

    python = f"{sys.version_info[0]}.{sys.version_info[1]}"
    return f"{__version__}/{SUMMARY_FORMAT}/py{python}/{code_fingerprint()}".encode()


def code_fingerprint() -> str:
    """The name, size and modification time of every source and data file of
    `CODE_PACKAGES`, hashed: the version number stays the same across the commits of an
    install from a repository (or an editable one being worked on), and a cache keyed on it
    alone would serve results an older analysis computed. Reading the files' metadata costs
    about a millisecond; an upgrade or a checkout (new times) starts a fresh cache."""
    from importlib.util import find_spec

    digest = blake2b(digest_size=8)
    for package in CODE_PACKAGES:
        spec = find_spec(package)
        for folder in (spec.submodule_search_locations or []) if spec else []:
            for entry in sorted(_code_files(folder)):
                digest.update(entry.encode() + b"\0")
    return digest.hexdigest()


def _code_files(folder: str) -> Iterable[str]:
    """ "name size mtime" of the .py and .json files under `folder` (caches skipped)."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            if entry.name != "__pycache__" and not entry.name.startswith("."):
                yield from _code_files(entry.path)
        elif entry.name.endswith((".py", ".json")):
            with contextlib.suppress(OSError):
                stat = entry.stat()
                yield f"{entry.path} {stat.st_size} {stat.st_mtime_ns}"


class SummaryCache:
    """Content-addressed pickles of summaries and of whole-project results."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.warnings: list[str] = []
        self.usable = True

    @classmethod
    def open(cls, directory: Path | None = None) -> SummaryCache:
        cache = cls(directory or default_cache_dir() / f"v{SUMMARY_FORMAT}")
        try:
            cache.directory.mkdir(parents=True, exist_ok=True)
            # A file made and removed proves the folder writable (without importing
            # tempfile: a run the cache serves writes nothing).
            probe = cache.directory / f".probe-{os.getpid()}"
            os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600))
            probe.unlink()
        except OSError as exc:
            cache.usable = False
            cache.warnings.append(
                f"cache disabled: cannot write to {cache.directory} ({exc.strerror or exc}); "
                "running without it"
            )
        return cache

    # ------------------------------------------------------------------ summaries

    @staticmethod
    def file_digest(raw: bytes, relpath: str) -> str:
        digest = blake2b(raw, digest_size=20)
        digest.update(b"\0" + relpath.encode("utf-8", "surrogatepass"))
        digest.update(b"\0" + version_tag())
        return digest.hexdigest()

    def get(self, raw: bytes, relpath: str) -> ModuleSummary | FileError | None:
        from hybridize.analyzer.summaries.ir import ModuleSummary
        from hybridize.model import FileError

        value = self._load("summaries", self.file_digest(raw, relpath))
        if isinstance(value, ModuleSummary) and value.relpath == relpath:
            return value
        if isinstance(value, FileError) and value.file == relpath:
            return value
        return None

    def put(self, raw: bytes, relpath: str, value: ModuleSummary | FileError) -> None:
        self._store("summaries", self.file_digest(raw, relpath), value)

    def put_pickled(self, raw: bytes, relpath: str, data: bytes) -> None:
        """`put` of a summary already pickled (`entry_bytes`): a summary made in a worker
        process comes back as its entry, not pickled a second time here."""
        self._write("summaries", self.file_digest(raw, relpath), data)

    # ------------------------------------------------------------------ results

    def result_key(
        self,
        files: Iterable[tuple[str, bytes | None]],
        infer_input_signatures: bool,
        package: str,
    ) -> str:
        """The key of a whole result: every file's report name and bytes (None: unreadable),
        in the order given, and what else the verdicts depend on (the options, the package
        the analysed folder is part of)."""
        digest = blake2b(digest_size=20)
        options = f"{infer_input_signatures}/{package}"
        digest.update(version_tag() + b"\0" + options.encode())
        for relpath, raw in files:
            content = b"\0unreadable" if raw is None else raw
            digest.update(b"\0" + self.file_digest(content, relpath).encode())
        return digest.hexdigest()

    def get_result(self, key: str | None) -> ProjectResult | None:
        if key is None:
            return None
        from hybridize.model import FileError, FunctionVerdict

        value = self._load("results", key)
        if (
            isinstance(value, tuple)
            and len(value) == 2
            and isinstance(value[0], list)
            and all(isinstance(v, FunctionVerdict) for v in value[0])
            and isinstance(value[1], list)
            and all(isinstance(e, FileError) for e in value[1])
        ):
            return value[0], value[1]
        return None

    def put_result(self, key: str, value: ProjectResult) -> None:
        self._store("results", key, value)

    # ------------------------------------------------------------------ storage

    def _path(self, kind: str, name: str) -> Path:
        return self.directory / kind / name[:2] / name

    def read_entry(self, kind: str, name: str) -> bytes | None:
        """The bytes of an entry, or None (no usable cache, no such entry, unreadable)."""
        if not self.usable:
            return None
        try:
            return self._path(kind, name).read_bytes()
        except OSError:
            return None

    def entry_writer(self, kind: str, name: str) -> EntryWriter | None:
        """A writer of a new entry (None: no usable cache). A write that fails disables the
        cache with a warning; the run goes on."""
        if not self.usable:
            return None
        return EntryWriter(self._path(kind, name), self._write_failed)

    def _write_failed(self, exc: OSError) -> None:
        self.usable = False
        self.warnings.append(
            f"cache disabled: cannot write to {self.directory} ({exc.strerror or exc})"
        )

    def _load(self, kind: str, name: str) -> Any:
        data = self.read_entry(kind, name)
        if data is None:
            return None
        try:
            import pickle  # not needed by a run served by the report cache

            return pickle.loads(data)
        except Exception:
            return None

    def _store(self, kind: str, name: str, value: object) -> None:
        if self.usable:
            self._write(kind, name, entry_bytes(value))

    def _write(self, kind: str, name: str, data: bytes) -> None:
        writer = self.entry_writer(kind, name)
        if writer is not None:
            writer.write(data)
            writer.commit()


def entry_bytes(value: object) -> bytes:
    """A cache entry's bytes: `value` pickled (`SummaryCache._load` reads them back)."""
    import pickle  # not needed by a run served by the report cache

    # Pickling a project's result makes a tuple per object (`__getstate__`) and no cycle:
    # the collections those would set off walk the whole result for nothing.
    with collector_paused():
        return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)


def from_entry_bytes(data: bytes) -> Any:
    """The value of `entry_bytes` (made by this code: trusted, unlike an entry read from the
    disk, which `_load` checks)."""
    import pickle

    # Loading makes many containers and no cycle (as pickling them, above).
    with collector_paused():
        return pickle.loads(data)


class EntryWriter:
    """One cache entry written piece by piece, then put in place whole (`commit`) or not at
    all: it goes to a temporary file in the entry's folder, renamed over the entry at the end,
    so that a reader (another run, at the same time) finds the old entry, the new one or none,
    never a part. Writing never raises: the first failure is reported to `failed` (an
    `OSError`), and what follows is dropped."""

    def __init__(self, path: Path, failed: Callable[[OSError], None]) -> None:
        self.path = path
        self._failed = failed
        self._handle: BinaryIO | None = None
        self._temporary: Path | None = None
        try:
            import tempfile  # only a run that writes to the cache needs it

            path.parent.mkdir(parents=True, exist_ok=True)
            fd, name = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            self._temporary = Path(name)
            self._handle = os.fdopen(fd, "wb")
        except OSError as exc:
            self._fail(exc)

    def write(self, data: bytes) -> None:
        if self._handle is None:
            return
        try:
            self._handle.write(data)
        except OSError as exc:
            self._fail(exc)

    def commit(self) -> None:
        """Put the entry in place (nothing, after a failure)."""
        if self._handle is None or self._temporary is None:
            return
        try:
            self._handle.close()
            os.replace(self._temporary, self.path)
            self._handle = self._temporary = None
        except OSError as exc:
            self._fail(exc)

    def discard(self) -> None:
        """Drop what was written; the entry stays as it was."""
        if self._handle is not None:
            with contextlib.suppress(OSError):
                self._handle.close()
            self._handle = None
        if self._temporary is not None:
            self._temporary.unlink(missing_ok=True)
            self._temporary = None

    def _fail(self, exc: OSError) -> None:
        self.discard()
        self._failed(exc)
