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

import hashlib
import os
import pickle
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from hybridize.analyzer.ir import ModuleSummary
from hybridize.model import FileError, FunctionVerdict

SUMMARY_FORMAT = "31"
"""Bump when the summary dataclasses or the summariser's output change."""

ProjectResult = tuple[list[FunctionVerdict], list[FileError]]


def default_cache_dir() -> Path:
    override = os.environ.get("HYBRIDIZE_CACHE_DIR")
    if override:
        return Path(override)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "hybridize"


def _version_tag() -> bytes:
    from hybridize import __version__

    return f"{__version__}/{SUMMARY_FORMAT}".encode()


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
            with tempfile.NamedTemporaryFile(dir=cache.directory, delete=True):
                pass
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
        digest = hashlib.blake2b(raw, digest_size=20)
        digest.update(b"\0" + relpath.encode("utf-8", "surrogatepass"))
        digest.update(b"\0" + _version_tag())
        return digest.hexdigest()

    def get(self, raw: bytes, relpath: str) -> ModuleSummary | FileError | None:
        value = self._load(self._path("summaries", self.file_digest(raw, relpath)))
        if isinstance(value, ModuleSummary) and value.relpath == relpath:
            return value
        if isinstance(value, FileError) and value.file == relpath:
            return value
        return None

    def put(self, raw: bytes, relpath: str, value: ModuleSummary | FileError) -> None:
        self._store(self._path("summaries", self.file_digest(raw, relpath)), value)

    # ------------------------------------------------------------------ results

    def project_key(
        self, files: list[Path], base: Path, infer_input_signatures: bool, package: str
    ) -> str:
        """`result_key` of the files on disk."""
        from hybridize.analyzer.sources import relative_name

        entries: list[tuple[str, bytes | None]] = []
        for path in files:
            try:
                raw: bytes | None = path.read_bytes()
            except OSError:
                raw = None
            entries.append((relative_name(path, base), raw))
        return self.result_key(entries, infer_input_signatures, package)

    def result_key(
        self,
        files: Iterable[tuple[str, bytes | None]],
        infer_input_signatures: bool,
        package: str,
    ) -> str:
        """The key of a whole result: every file's report name and bytes (None: unreadable),
        in the order given, and what else the verdicts depend on (the options, the package
        the analysed folder is part of)."""
        digest = hashlib.blake2b(digest_size=20)
        options = f"{infer_input_signatures}/{package}"
        digest.update(_version_tag() + b"\0" + options.encode())
        for relpath, raw in files:
            content = b"\0unreadable" if raw is None else raw
            digest.update(b"\0" + self.file_digest(content, relpath).encode())
        return digest.hexdigest()

    def get_result(self, key: str | None) -> ProjectResult | None:
        if key is None:
            return None
        value = self._load(self._path("results", key))
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
        self._store(self._path("results", key), value)

    # ------------------------------------------------------------------ storage

    def _path(self, kind: str, name: str) -> Path:
        return self.directory / kind / name[:2] / name

    def _load(self, path: Path) -> Any:
        if not self.usable:
            return None
        try:
            data = path.read_bytes()
        except OSError:
            return None
        try:
            return pickle.loads(data)
        except Exception:
            return None

    def _store(self, path: Path, value: object) -> None:
        if not self.usable:
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            try:
                with os.fdopen(fd, "wb") as handle:
                    pickle.dump(value, handle, protocol=pickle.HIGHEST_PROTOCOL)
                os.replace(tmp, path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError as exc:
            self.usable = False
            self.warnings.append(
                f"cache disabled: cannot write to {self.directory} ({exc.strerror or exc})"
            )
