"""Lines the words of a verdict cite, written so that an edit that moves them can move them.

A finding's message may name a line of another place ("calls `log`, which logs (line 97)",
"the call at m.py:34"), often of another file. An edit that only moves lines leaves the
verdict as it was but for its positions (`decisions/moved_verdicts.py`), and the number in
such words is one of them: written as digits, it names no file, and the verdict has to be
decided again. Written with `cited_line`, the words hold the file and the line until the
verdict is published (`rendered`: the digits alone, as they always read), so that a verdict
kept from an earlier phase has them moved with the lines of their file (`moved`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

_START = "\x02"
_SEPARATOR = "\x1f"
_END = "\x03"
_CITED = re.compile("\x02([^\x1f\x03]*)\x1f([0-9]+)\x03")


def cited_line(file: str, line: int) -> str:
    """A line of `file` in the words of a verdict: its number once published."""
    return f"{_START}{file}{_SEPARATOR}{line}{_END}"


def cites(words: str) -> bool:
    """The words hold a `cited_line`."""
    return _START in words


def rendered(words: str) -> str:
    """The words as published: every cited line its number alone."""
    return _CITED.sub(_line_number, words) if _START in words else words


def _line_number(cited: re.Match[str]) -> str:
    """A cited line's number (a function: `sub` with the template `\\2` parses it at every
    call, four times the time of the substitution)."""
    return cited[2]


def without_citations(words: str) -> str:
    """The words with their cited lines left out (what else in them names a position)."""
    return _CITED.sub("", words) if _START in words else words


def moved(words: str, line: Callable[[str, int], int]) -> str:
    """The words with each cited line of a file moved to `line(file, old line)`."""
    if _START not in words:
        return words
    return _CITED.sub(lambda m: cited_line(m[1], line(m[1], int(m[2]))), words)
