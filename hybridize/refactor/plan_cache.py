"""A content-addressed cache of file plans, so that planning an unchanged project is nearly free.

A file's plan depends on its bytes, its name, the verdicts about its functions and the version
of the planner, which together form the key; a plan that looked at other files (to decide
whether an import may be dropped) is not cached. Entries live next to the analysis cache
(`$HYBRIDIZE_CACHE_DIR`, else `$XDG_CACHE_HOME/hybridize`, else `~/.cache/hybridize`). Like that
cache, this one never fails a run: an entry that cannot be read, written or unpickled is a miss.
"""

from __future__ import annotations

import hashlib
import pickle
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hybridize.analyzer.cache import EntryWriter, default_cache_dir, version_tag
from hybridize.analyzer.checks.hy014_varying_shapes import VaryingShapes
from hybridize.analyzer.decisions.benefit import eager_use_assumption
from hybridize.model import FunctionVerdict

PLAN_FORMAT = "3"
"""Bump when the planner's output for the same input may change."""


def _version_tag() -> bytes:
    """The tool's version tag (its code included: `cache.code_fingerprint`) and the plan
    format."""
    return version_tag() + f"/plan{PLAN_FORMAT}".encode()


class PlanCache:
    """Pickled per-file plan results keyed by everything they depend on."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory or default_cache_dir() / f"plans-v{PLAN_FORMAT}"

    @staticmethod
    def key(relpath: str, raw: bytes, verdicts: Sequence[FunctionVerdict]) -> str:
        digest = hashlib.blake2b(raw, digest_size=20)
        digest.update(b"\0" + relpath.encode("utf-8", "surrogatepass"))
        digest.update(b"\0" + _version_tag())
        for v in verdicts:
            fingerprint = (
                v.qualname,
                v.line,
                v.transformation,
                v.facts.is_hybrid,
                v.facts.speculative,
                v.assumptions,
                v.facts.input_signature,
                v.facts.decorator_args,
                v.framework,
                VaryingShapes.note_of(v),
                eager_use_assumption(v),
            )
            digest.update(b"\0" + repr(fingerprint).encode("utf-8", "surrogatepass"))
        return digest.hexdigest()

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.pickle"

    def get(self, key: str) -> Any:
        try:
            with open(self._path(key), "rb") as stream:
                return pickle.load(stream)
        except Exception:  # missing, unreadable or corrupt: a miss, never an error
            return None

    def put(self, key: str, value: object) -> None:
        try:
            data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:
            return  # not picklable: never cached, only planned again
        # A cache that cannot be written only costs time: failures are not reported.
        writer = EntryWriter(self._path(key), lambda exc: None)
        writer.write(data)
        writer.commit()
