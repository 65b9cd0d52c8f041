"""How the analysis names a function or a class of the project: a `FunctionKey`.

A key is the pair (file, qualname): the file's path relative to the analysed root (POSIX
separators) and the qualified name of the definition inside it, as the summaries spell it
(`Model.call`, `outer.inner`, `Model.<body>` for a class body, `<lambda3>`, and
`<module>` for the module's own code). A class is named the same way (`ClassKey`).

Keys are what the solver's tables are indexed by, millions of lookups per run, so a key is a
`NamedTuple` of two strings: hashing and comparing it run in C (no Python-level `__hash__`
or `__eq__`), and reading its file or qualname is a field access, not a split.

The text form `file::qualname` is made only where a key leaves the analysis (a report's
`key`, `--select`/`--ignore` globs, JSON, SARIF, the language server, corpus labels, error
messages): `str(key)`, read back by `FunctionKey.parse`. A qualname never contains `::`
(identifiers, dots and `<...>` markers), so the text is split at its *last* `::`: a file
whose name contains `::` (legal on POSIX) still round-trips.

Keys sort as pairs: by file, then qualname. That is the order of their text but for a file
named as another followed by a character below `:` (`x.py` and `x.py2.py`); where an output's
order came from sorting the text, it still sorts by `str`.
"""

from __future__ import annotations

from typing import NamedTuple

SEPARATOR = "::"
MODULE_CODE = "<module>"
"""The qualname of a module's own code (its top-level statements)."""


class FunctionKey(NamedTuple):
    """A function of the project (or a class: `ClassKey`), by file and qualified name."""

    file: str
    qualname: str

    def __str__(self) -> str:
        return f"{self.file}{SEPARATOR}{self.qualname}"

    @classmethod
    def parse(cls, text: str) -> FunctionKey:
        """The key whose text form (`str`) is `text`; ValueError without a `::`."""
        file, separator, qualname = text.rpartition(SEPARATOR)
        if not separator:
            raise ValueError(f"not a function key (file{SEPARATOR}qualname): {text!r}")
        return cls(file, qualname)

    @classmethod
    def module_code(cls, file: str) -> FunctionKey:
        """The key of a module's own code."""
        return cls(file, MODULE_CODE)

    @property
    def is_module_code(self) -> bool:
        return self.qualname == MODULE_CODE

    def sibling(self, qualname: str) -> FunctionKey:
        """Another definition of the same file."""
        return FunctionKey(self.file, qualname)


ClassKey = FunctionKey
"""A class of the project: named like a function, by file and qualified name."""
