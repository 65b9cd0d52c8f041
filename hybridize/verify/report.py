"""The verify report: what `hybridize refactor --verify` verified for a project, kept as JSON in
the cache folder (`$HYBRIDIZE_CACHE_DIR`, else `$XDG_CACHE_HOME/hybridize`, else
`~/.cache/hybridize`), under `verify/`, one file per project folder.

The language server reads it to mark a quick fix "verified by your tests": only for a change the
report lists as verified, and only while the report is newer than the file (an edit since may
have changed what the tests would say).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hybridize.analyzer.cache import default_cache_dir

if TYPE_CHECKING:  # the language server reads reports without loading the verification
    from hybridize.refactor.planned import PlannedChange
    from hybridize.verify.verification import Verification

REPORT_FORMAT = 1


def report_path(project: Path, cache_dir: Path | None = None) -> Path:
    """Where the verify report of the project folder `project` is kept."""
    name = hashlib.blake2b(str(project.resolve()).encode(), digest_size=12).hexdigest()
    return (cache_dir or default_cache_dir()) / "verify" / f"{name}.json"


def _change(change: PlannedChange) -> dict[str, Any]:
    return {
        "file": change.file,
        "qualname": change.qualname,
        "line": change.line,
        "code": change.code,
        "description": change.description,
    }


def report_document(verification: Verification) -> dict[str, Any]:
    """The report as JSON data."""
    request = verification.request
    return {
        "format": REPORT_FORMAT,
        "project": str(verification.plan.root.resolve()),
        "command": request.command,
        "judged_by": "tests" if request.per_test else "exit status",
        "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "rounds": verification.rounds,
        "runs": verification.runs,
        "seconds": round(verification.seconds, 1),
        "verified": [_change(c) for c in verification.plan.changes],
        "dropped": [
            {**_change(d.change), "reason": d.reason, "tests": list(d.tests)}
            for d in verification.dropped
        ],
        "flaky": list(verification.flaky),
        "already_failing": list(verification.already_failing),
    }


def save_report(verification: Verification, cache_dir: Path | None = None) -> Path | None:
    """Write the report (atomically); None when the cache folder cannot be written."""
    path = report_path(verification.plan.root, cache_dir)
    text = json.dumps(report_document(verification), indent=2) + "\n"
    partial = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, path)  # a reader sees the old report or the new one, whole
    except OSError:
        partial.unlink(missing_ok=True)
        return None
    return path


def verified_functions(
    project: Path, file: Path, cache_dir: Path | None = None, buffer: bytes | None = None
) -> frozenset[str]:
    """The qualnames of `file`'s changes the project's verify report verified, if the report
    is newer than the file (none otherwise, or without a report). `buffer`: the bytes an
    editor holds for the file, when it is open; unsaved edits were not what the tests ran, so
    a buffer that differs from the disk has nothing verified."""
    path = report_path(project, cache_dir)
    try:
        if os.stat(path).st_mtime_ns <= os.stat(file).st_mtime_ns:
            return frozenset()
        if buffer is not None and file.read_bytes() != buffer:
            return frozenset()
        document = json.loads(path.read_text(encoding="utf-8"))
        relpath = file.resolve().relative_to(project.resolve()).as_posix()
        return frozenset(
            str(c["qualname"]) for c in document.get("verified", ()) if c.get("file") == relpath
        )
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return frozenset()
