"""Errors of the user's code as short report text: shared by the worker and its backends, whose
messages end up in report cells and must stay a few lines long."""

from __future__ import annotations

import os
import traceback


def short_error(error: BaseException) -> str:
    """`Type: message`, at most 12 lines and 2,000 characters."""
    text = f"{type(error).__name__}: {error}".strip()
    lines = text.splitlines()
    if len(lines) > 12:
        text = "\n".join([*lines[:12], "..."])
    return text[:2000]


def where(error: BaseException, root: str) -> str:
    """The innermost traceback frame inside the user's project, as `file:line`."""
    frames = traceback.extract_tb(error.__traceback__)
    for frame in reversed(frames):
        if frame.filename.startswith(root):
            return f"{os.path.relpath(frame.filename, root)}:{frame.lineno}"
    return ""
