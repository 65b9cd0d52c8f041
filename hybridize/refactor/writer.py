"""Atomic writes: a file holds either its old bytes or its new bytes, never a mixture.

The new bytes go to a temporary file in the same folder (same file system, so the final
rename is atomic), are flushed to disk, get the original's permission bits (and owner, where
allowed), and replace the original with `os.replace`. The original must still hold the bytes
the plan was made from, checked before and again right before the rename; otherwise the file
is left alone and the reason returned. SIGINT and SIGTERM arriving during one file's write are
held until it is complete (or cleaned up) and then delivered as usual, so an interrupted run
leaves every file either untouched or fully refactored, and no temporary file behind.
A symlink is written through: its target changes, the link stays a link.
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

TEMP_SUFFIX = ".hybridize-tmp"

_HELD_SIGNALS = tuple(
    s for s in (getattr(signal, "SIGINT", None), getattr(signal, "SIGTERM", None)) if s is not None
)


@contextlib.contextmanager
def interrupts_held() -> Iterator[None]:
    """Hold SIGINT/SIGTERM until the block ends, then deliver them (main thread only: signal
    handlers cannot be installed elsewhere, and there nothing is held)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []

    def hold(signum: int, frame: FrameType | None) -> None:
        received.append(signum)

    previous = {}
    for signum in _HELD_SIGNALS:
        try:
            previous[signum] = signal.signal(signum, hold)
        except (ValueError, OSError):  # pragma: no cover - unsupported on this platform
            continue
    try:
        yield
    finally:
        for signum, handler in previous.items():
            # None: a handler installed outside Python, which cannot be put back from here.
            signal.signal(signum, handler if handler is not None else signal.SIG_DFL)
        for signum in dict.fromkeys(received):
            signal.raise_signal(signum)


def write_atomically(path: Path, expected: bytes, new: bytes) -> str | None:
    """Replace `path`'s content `expected` by `new`; None when done, else why not (in words)."""
    target = Path(os.path.realpath(path))
    try:
        before = target.stat()
        current = target.read_bytes()
    except OSError as exc:
        return f"cannot read it: {exc.strerror or exc}"
    if current != expected:
        return "it changed on disk since it was analysed; run hybridize again"
    if not os.access(target, os.W_OK):
        return "it is read-only"
    with interrupts_held():
        return _replace(target, before, expected, new)


def _replace(target: Path, before: os.stat_result, expected: bytes, new: bytes) -> str | None:
    try:
        # The name's start only: a 250-byte file name plus the suffix would be too long.
        fd, name = tempfile.mkstemp(
            dir=target.parent, prefix=f".{target.name[:40]}.", suffix=TEMP_SUFFIX
        )
    except OSError as exc:
        return f"cannot create a temporary file next to it: {exc.strerror or exc}"
    temporary = Path(name)
    try:
        with os.fdopen(fd, "wb") as stream:
            stream.write(new)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, stat.S_IMODE(before.st_mode))
        if hasattr(os, "chown"):
            now = temporary.stat()
            if (now.st_uid, now.st_gid) != (before.st_uid, before.st_gid):
                with contextlib.suppress(OSError):
                    os.chown(temporary, before.st_uid, before.st_gid)
        if target.read_bytes() != expected:
            temporary.unlink()
            return "it changed on disk while it was being written; run hybridize again"
        os.replace(temporary, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            temporary.unlink()
        return f"cannot write it: {exc.strerror or exc}"
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise
    _sync_folder(target.parent)
    return None


def _sync_folder(folder: Path) -> None:
    """Make the rename itself durable where the platform allows it."""
    with contextlib.suppress(OSError, AttributeError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
