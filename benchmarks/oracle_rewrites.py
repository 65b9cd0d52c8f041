"""Which functions `hybridize refactor` rewrote, read from its unified diff.

The real-code oracle must name the functions a newly failing test exercises, so it needs, for
every rewritten function, where its code lives in the rewritten copy: the file, the line of its
`def`, the line of its first decorator (a decorated function's code object starts there, and a
profile hook sees that line) and its last line (to place the frames of a traceback).

The diff says which lines changed; the rewritten file's syntax tree says which function owns
them. A function counts as rewritten when a changed line falls in its decorator block: an added
decorator (HY010), a removed one (HY011: the removal point lands on the remaining decorators or
on the `def`) or an edited one (HY012). Added imports and `# hybridize:` comments above a
decorator belong to no decorator block and are not functions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from hybridize.verify.rewritten import RewrittenFunction, function_spans

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


@dataclass(slots=True)
class FileChanges:
    """The lines one file's diff changes, in the new file's numbering (1-based).

    `added` are the new file's lines that the diff adds; `removed_at` are, for each removed
    line, the new file's line that took its place (the first line after the removal point)."""

    added: set[int] = field(default_factory=set)
    removed_at: set[int] = field(default_factory=set)
    added_text: dict[int, str] = field(default_factory=dict)
    removed_text: list[str] = field(default_factory=list)


def _diff_path(header: str) -> str:
    name = header[4:].rstrip("\r\n").split("\t", 1)[0]
    return name[2:] if name.startswith(("a/", "b/")) else name


def parse_unified_diff(text: str) -> dict[str, FileChanges]:
    """Changed lines per file (the `+++ b/...` path) of a git-style unified diff.

    Hunk headers give how many old and new lines follow, so a removed line that starts with
    `--` or an added one that starts with `++` is never taken for a file header."""
    changes: dict[str, FileChanges] = {}
    current: FileChanges | None = None
    new_line = old_left = new_left = 0
    for line in text.split("\n"):
        if old_left <= 0 and new_left <= 0:
            if line.startswith("+++ "):
                current = changes.setdefault(_diff_path(line), FileChanges())
            elif line.startswith("--- "):
                current = None
            elif current is not None and (match := _HUNK.match(line)):
                old_left = int(match.group(2) or "1")
                new_left = int(match.group(4) or "1")
                new_line = int(match.group(3))
                if new_left == 0:
                    new_line += 1  # an empty new range names the line before the removal
            continue
        if current is None or line.startswith("\\"):
            continue  # "\\ No newline at end of file" changes no line number
        marker, body = (line[0], line[1:].rstrip("\r")) if line else (" ", "")
        if marker == "+":
            current.added.add(new_line)
            current.added_text[new_line] = body
            new_line += 1
            new_left -= 1
        elif marker == "-":
            current.removed_at.add(new_line)
            current.removed_text.append(body)
            old_left -= 1
        else:
            new_line += 1
            old_left -= 1
            new_left -= 1
    return {name: change for name, change in changes.items() if change.added or change.removed_at}


def rewritten_functions(
    file: str, new_source: str, changes: FileChanges
) -> list[RewrittenFunction]:
    """The functions of one rewritten file whose decorator block holds a changed line."""
    found: list[RewrittenFunction] = []
    for span in function_spans(new_source):
        block = range(span.first_line, span.def_line + 1)
        added = any(line in changes.added for line in block)
        removed = any(line in changes.removed_at for line in block)
        if not (added or removed):
            continue
        change = "edited" if added and removed else "added" if added else "removed"
        found.append(
            RewrittenFunction(
                file, span.qualname, span.def_line, span.first_line, span.end_line, change
            )
        )
    return found


def rewrites_from_diff(diff: str, rewritten_root: Path) -> list[RewrittenFunction]:
    """Every rewritten function of a `hybridize refactor --diff` output, located in the files
    of `rewritten_root` (the copy the refactoring was applied to)."""
    functions: list[RewrittenFunction] = []
    for file, changes in sorted(parse_unified_diff(diff).items()):
        source = (rewritten_root / file).read_text(encoding="utf-8")
        functions.extend(rewritten_functions(file, source, changes))
    return functions
