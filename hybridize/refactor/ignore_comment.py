"""Writing `# hybridize: ignore` above a function: the editor's "ignore this function".

The comment goes on a line of its own above the function's first decorator (or its `def`),
indented like the `def` and ended like it, where `SourceIndex.has_ignore_comment` and the
analysis look for it; so every later plan leaves the function alone. Like every other edit it
is a whole inserted line: the rest of the file comes out byte for byte.
"""

from __future__ import annotations

from hybridize.refactor.decorators import indentation
from hybridize.refactor.document import Document
from hybridize.refactor.edits import LineEdit, apply_edits
from hybridize.refactor.locate import IGNORE_MARKER, SourceIndex, locate


def add_ignore_comment(document: Document, qualname: str, line: int) -> str | None:
    """The document's text with the comment above `qualname` (defined at `line`), or None
    when the function cannot be found or is ignored already."""
    try:
        index = SourceIndex(document.text, document.lines)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    found = locate(index.functions, qualname, line)
    if isinstance(found, str) or index.has_ignore_comment(found.node):
        return None
    first = index.first_line(found.node)
    def_line = found.node.lineno
    comment = f"{indentation(document, def_line)}# {IGNORE_MARKER}{document.ending_of(def_line)}"
    return apply_edits(document.lines, [LineEdit(first, first, comment)])
