"""A source file as the refactoring sees it: exact bytes in, exact bytes out.

The analysis decodes files to text and forgets how they were stored. A refactoring must give
every byte it does not mean to change back unchanged: the encoding (a PEP 263 cookie), a UTF-8
byte-order mark, the line endings (LF, CRLF, a lone CR, or a mixture), a missing final newline.
A `Document` keeps the original bytes, the decoded text and its physical lines, and encodes new
text the same way; a file that would not come back byte for byte is refused up front.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hybridize.analyzer.summaries.sources import decode_source, split_lines

_ENDING = re.compile(r"\r\n|\r|\n")


def line_ending(line: str) -> str:
    """The ending of one physical line: '\\r\\n', '\\r', '\\n' or '' (last line, no newline)."""
    match = _ENDING.search(line)
    return match.group() if match else ""


@dataclass(frozen=True, slots=True)
class Document:
    """The bytes of a file, their text and how to turn new text back into bytes."""

    raw: bytes
    text: str
    encoding: str
    lines: tuple[str, ...]

    @classmethod
    def from_bytes(cls, raw: bytes) -> Document | str:
        """The document, or the reason (in words) why it cannot be refactored safely."""
        decoded = decode_source(raw)
        if isinstance(decoded, str):
            return decoded
        text, encoding = decoded
        document = cls(raw=raw, text=text, encoding=encoding, lines=tuple(split_lines(text)))
        encoded = document.encode(text)
        if not isinstance(encoded, bytes) or encoded != raw:
            return f"cannot write it back byte for byte in its encoding ({encoding})"
        return document

    @property
    def newline(self) -> str:
        """The line ending new lines get when nothing nearby says otherwise: the most common
        one in the file, LF for a file without any."""
        counts = {"\r\n": 0, "\n": 0, "\r": 0}
        for line in self.lines:
            ending = line_ending(line)
            if ending:
                counts[ending] += 1
        best = max(counts.items(), key=lambda item: item[1])
        return best[0] if best[1] else "\n"

    def ending_of(self, line_number: int) -> str:
        """The ending of the 1-based line `line_number`, or the file's usual one if it has none."""
        if 1 <= line_number <= len(self.lines):
            ending = line_ending(self.lines[line_number - 1])
            if ending:
                return ending
        return self.newline

    def line(self, line_number: int) -> str:
        """The 1-based physical line with its ending ('' past the end)."""
        if 1 <= line_number <= len(self.lines):
            return self.lines[line_number - 1]
        return ""

    def encode(self, text: str) -> bytes | str:
        """Text to bytes in the file's own encoding (a BOM stays a BOM), or why it cannot be."""
        try:
            return text.encode(self.encoding)
        except UnicodeEncodeError as exc:
            return (
                f"the new text has {text[exc.start : exc.end]!r}, which the file's encoding "
                f"({self.encoding}) cannot represent"
            )
        except LookupError:
            return f"unknown encoding {self.encoding!r}"
