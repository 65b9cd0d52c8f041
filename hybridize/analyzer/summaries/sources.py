"""Finding the Python files of a project and reading them without ever raising on bad input.

Python files are `.py` files and Jupyter notebooks (`.ipynb`), whose text is the module their
code cells form (`hybridize/notebooks.py`).

A project is a file or a directory. Bad input is a value, not an exception: an unreadable
file, a binary or non-UTF-8 file, a file too large to be source code, or a symlink loop each
becomes a `FileError` with a message a user can act on, and the walk goes on with the rest.
"""

from __future__ import annotations

import codecs
import errno
import io
import os
import re
import stat
import tokenize
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from hybridize.notebook_files import is_notebook

if TYPE_CHECKING:
    from hybridize.model import FileError


def _file_error(file: str, message: str) -> FileError:
    """A `FileError`. The model is imported when a file has a problem: a run served by the
    report cache reads every file through this module, and needs none of the model's classes
    (about a tenth of such a run to build) when the files are sound."""
    from hybridize.model import FileError

    return FileError(file, message)


MAX_SOURCE_BYTES = 8 * 1024 * 1024
"""Larger files are generated data, not code a person would hybridize; reading them would only
cost memory."""

SKIPPED_DIRECTORIES = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".venv",
        "venv",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".ruff_cache",
        ".pytest_cache",
        "__pycache__",
        "node_modules",
        ".ipynb_checkpoints",
        "site-packages",
        ".eggs",
    }
)
"""Folders that hold tooling state or third-party code, never the project's own sources."""


@dataclass(frozen=True, slots=True)
class SourceFile:
    """A decoded Python source file: where it is, how it is named in reports, and its text."""

    path: Path
    relpath: str
    text: str
    raw: bytes
    encoding: str


def display_name(name: str) -> str:
    """A name as reports show it: bytes that are not UTF-8 (kept by the file system as lone
    surrogates, PEP 383) become U+FFFD, so that every report stays valid UTF-8."""
    if is_encodable(name):
        return name
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def is_encodable(name: str) -> bool:
    """Whether a file name is valid UTF-8 (reports, diffs and imports can all spell it)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _undecodable_name(name: str, what: str) -> str:
    raw = name.encode("utf-8", "surrogateescape")
    files = "its files are" if what == "folder" else "it is"
    return (
        f"{what} name is not valid UTF-8 (its bytes are {raw!r}; U+FFFD stands for the ones "
        f"that are not UTF-8 here): {files} not analysed; rename it to analyse it"
    )


def relative_name(path: Path, root: Path) -> str:
    """The report's file name: relative to the analysed root, with '/' separators."""
    try:
        rel = path.relative_to(root)
    except ValueError:
        rel = Path(os.path.relpath(path, root))
    name = rel.as_posix()
    return name if name != "." else path.name


def discover(root: Path) -> tuple[list[Path], list[FileError]]:
    """Every `.py` file and notebook below `root` (or `root` itself), sorted, plus the problems
    met on the way.

    Symlinks to folders are followed once: a folder reached again through a link is a loop and
    is reported, not walked forever.
    """
    errors: list[FileError] = []
    if root.is_file() or (root.exists() and not root.is_dir()):
        problem = (
            _undecodable_name(root.name, "file") if not is_encodable(root.name) else None
        ) or _file_problem(root)
        if problem is not None:
            return [], [_file_error(display_name(root.name), problem)]
        return [root], errors
    base = root
    files: list[Path] = []
    seen_dirs: set[tuple[int, int]] = set()

    def on_error(exc: OSError) -> None:
        where = Path(exc.filename) if exc.filename else base
        reason = exc.strerror or str(exc)
        errors.append(_file_error(relative_name(where, base), f"cannot read folder: {reason}"))

    for dirpath, dirnames, filenames in os.walk(base, onerror=on_error, followlinks=True):
        current = Path(dirpath)
        try:
            st = current.stat()
        except OSError as exc:
            errors.append(_file_error(relative_name(current, base), f"cannot read folder: {exc}"))
            dirnames[:] = []
            continue
        identity = (st.st_dev, st.st_ino)
        if identity in seen_dirs:
            errors.append(
                _file_error(
                    relative_name(current, base),
                    "symlink loop: this folder was already analysed through another path",
                )
            )
            dirnames[:] = []
            continue
        seen_dirs.add(identity)
        kept = []
        for d in sorted(dirnames):
            if d in SKIPPED_DIRECTORIES or d.endswith(".egg-info"):
                continue
            if not is_encodable(d):
                name = display_name(relative_name(current / d, base))
                errors.append(_file_error(name, _undecodable_name(d, "folder")))
                continue
            kept.append(d)
        dirnames[:] = kept
        for name in sorted(filenames):
            if not name.endswith(".py") and not is_notebook(name):
                continue
            path = current / name
            problem = (
                _undecodable_name(name, "file") if not is_encodable(name) else _file_problem(path)
            )
            if problem is None:
                files.append(path)
            else:
                errors.append(_file_error(display_name(relative_name(path, base)), problem))
    return files, errors


def _file_problem(path: Path) -> str | None:
    """Why a `.py` entry is not a source file to read (a FIFO would block the read forever,
    a symlink loop never resolves), or None for a regular file or a link to one."""
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "symlink loop: the link never reaches a file"
        if path.is_symlink():
            return "broken symlink: the file it points to does not exist"
        return f"cannot read file: {exc.strerror or exc}"
    if stat.S_ISDIR(mode):
        return None  # a folder named like a module: os.walk lists it with the folders
    if not stat.S_ISREG(mode):
        return "not a regular file (a pipe, socket or device): not read"
    return None


def read_source(path: Path, root: Path) -> SourceFile | FileError:
    """Read and decode one file the way Python would (BOM, PEP 263 cookie, else UTF-8)."""
    relpath = relative_name(path, root)
    problem = _file_problem(path)
    if problem is not None:
        return _file_error(display_name(relpath), problem)
    try:
        size = path.stat().st_size
        if size > MAX_SOURCE_BYTES:
            return _file_error(
                relpath,
                f"file too large to be analysed ({size // (1024 * 1024)} MiB, "
                f"limit {MAX_SOURCE_BYTES // (1024 * 1024)} MiB)",
            )
        raw = path.read_bytes()
    except PermissionError:
        return _file_error(relpath, "cannot read file: permission denied")
    except OSError as exc:
        return _file_error(relpath, f"cannot read file: {exc.strerror or exc}")
    decoded = decode_file(relpath, raw)
    if isinstance(decoded, str):
        return _file_error(relpath, decoded)
    text, encoding = decoded
    return SourceFile(path=path, relpath=relpath, text=text, raw=raw, encoding=encoding)


def decode_file(name: str, raw: bytes) -> tuple[str, str] | str:
    """`decode_source` of a file named `name`; a notebook's text is its code cells' module
    (encoding "utf-8", as nbformat stores notebooks)."""
    if not is_notebook(name):
        return decode_source(raw)
    from hybridize.notebooks import Notebook  # only for a notebook: a few ms to import

    notebook = Notebook.from_bytes(raw)
    return notebook if isinstance(notebook, str) else (notebook.text, "utf-8")


def decode_source(raw: bytes) -> tuple[str, str] | str:
    """Decode source bytes to text and its encoding, or return the reason it cannot be decoded."""
    if b"\x00" in raw:
        return "binary file: contains NUL bytes, not Python source"
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
    except SyntaxError as exc:
        # No usable declaration and the first lines are not UTF-8: say where they break.
        if b"coding" not in raw[:200]:
            encoding = "utf-8"
        else:
            return f"cannot decode: {exc}"
    try:
        codecs.lookup(encoding)
    except LookupError:
        return f"cannot decode: unknown encoding {encoding!r}"
    try:
        text = raw.decode(encoding)
    except UnicodeDecodeError as exc:
        return (
            f"cannot decode as {encoding}: invalid byte 0x{raw[exc.start]:02x} at offset "
            f"{exc.start} (declare the file's encoding with a '# -*- coding: ... -*-' line)"
        )
    if text.startswith("\ufeff"):
        text = text[1:]
    return text, encoding


class ProjectSources(NamedTuple):
    """Every file of a project read once: each file's source (or why it has none), the
    problems met listing the folders (`discover`'s), and where the project is.

    `base` (the folder report names are relative to) and `package` (the package that folder
    is part of) are worked out once here: the report cache's key and `Project` both read
    them, and must agree."""

    files: tuple[SourceFile | FileError, ...]
    folder_errors: tuple[FileError, ...]
    root: Path
    """What was read: a folder, or one file (resolved)."""
    base: Path
    """`root`, or the folder of a single file."""
    package: str
    """The dotted package `base` is part of (`enclosing_package`; "" for a plain folder)."""


def read_project(root: Path) -> ProjectSources:
    """`discover` then `read_source` of every file found below `root` (a folder or a file),
    names relative to the folder analysed (`root`, or the folder of a single file)."""
    root = root.resolve()
    paths, folder_errors = discover(root)
    base = root if root.is_dir() else root.parent
    files = tuple(read_source(p, base) for p in paths)
    return ProjectSources(files, tuple(folder_errors), root, base, enclosing_package(base))


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
"""A physical line with its ending. Python ends lines only at CR, LF or CRLF: not at form feeds,
vertical tabs or U+2028, which `str.splitlines` would also split at."""


def split_lines(text: str) -> list[str]:
    """Physical lines, each with its own line ending (the last one may have none): the lines
    CPython's positions count."""
    return _LINE.findall(text)


def enclosing_package(folder: Path) -> str:
    """The dotted package name of a folder that is itself a package (has `__init__.py`),
    found by walking up while the parents are packages too; "" for a plain folder."""
    parts: list[str] = []
    current = folder
    while (current / "__init__.py").is_file() and current.name.isidentifier():
        parts.append(current.name)
        if current.parent == current:
            break
        current = current.parent
    return ".".join(reversed(parts))
