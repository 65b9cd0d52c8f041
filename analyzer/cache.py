"""The on-disk cache of per-file summaries, keyed by file content.

A summary depends only on the file's bytes, its path in the project and the version of the
summariser, so those form the key; project-wide facts are recomputed every run from the
summaries, which is what keeps a cached answer correct when an imported module changes.

Location: `$HYBRIDIZE_CACHE_DIR`, else `$XDG_CACHE_HOME/hybridize`, else `~/.cache/hybridize`.
A cache that cannot be created, read or written degrades to a cold run with a warning; a
corrupt entry is ignored and rewritten, never trusted.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from pathlib import Path

from hybridize.analyzer.ir import ModuleSummary

from hybridize.model import FileError

SUMMARY_FORMAT = "3"
"""Bump when the summary dataclasses or the summariser's output change."""


def default_cache_dir() -> Path:
    override = os.environ.get("HYBRIDIZE_CACHE_DIR")
    if override:
        return Path(override)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "hybridize"


class SummaryCache:
    """Content-addressed pickles of `ModuleSummary | FileError`."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.warnings: list[str] = []
        self.usable = True

    @classmethod
    def open(cls, directory: Path | None = None) -> SummaryCache:
        cache = cls(directory or default_cache_dir() / f"summaries-v{SUMMARY_FORMAT}")
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

    def _path(self, raw: bytes, relpath: str) -> Path:
        from hybridize import __version__

        digest = hashlib.blake2b(raw, digest_size=20)
        digest.update(b"\0" + relpath.encode("utf-8", "surrogatepass"))
        digest.update(b"\0" + __version__.encode() + SUMMARY_FORMAT.encode())
        name = digest.hexdigest()
        return self.directory / name[:2] / name

    def get(self, raw: bytes, relpath: str) -> ModuleSummary | FileError | None:
        if not self.usable:
            return None
        path = self._path(raw, relpath)
        try:
            data = path.read_bytes()
        except OSError:
            return None
        try:
            value = pickle.loads(data)
        except Exception:
            return None
        if (
            isinstance(value, ModuleSummary | FileError)
            and getattr(value, "relpath", getattr(value, "file", None)) == relpath
        ):
            return value
        return None

    def put(self, raw: bytes, relpath: str, value: ModuleSummary | FileError) -> None:
        if not self.usable:
            return
        path = self._path(raw, relpath)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            with os.fdopen(fd, "wb") as handle:
                pickle.dump(value, handle, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, path)
        except OSError:
            self.usable = False
