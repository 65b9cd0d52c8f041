"""Which planned refactorings to make: `--select` / `--ignore` by function or by code.

A pattern is either a finding code (`HY010`, or a prefix such as `HY01`, any case) or a glob
matched against the function's `file::qualname` key (`pkg/*::train_step`, `*::Model.*`). A
glob without `::` also matches by file alone (`pkg/models.py`, `tests/*`).

A function is refactored when it matches the selection and no ignore pattern. The selection is
the conjunction of its two kinds: with codes and globs both given, a function must match one of
the codes *and* one of the globs (`--select HY010 --select 'pkg/*'`: only additions, only in
`pkg/`). A function's codes are its transformation's (HY010 add, HY011 remove, HY012
reconfigure) and those of the findings behind its verdict.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from fnmatch import fnmatchcase

from hybridize.analyzer.summaries.keys import SEPARATOR
from hybridize.model import FunctionVerdict

TRANSFORMATION_CODES = {
    "convert_to_hybrid": "HY010",
    "convert_to_eager": "HY011",
    "reconfigure": "HY012",
}
"""The finding code that names each transformation."""

_CODE = re.compile(r"HY\d{0,3}", re.IGNORECASE)


def is_code(pattern: str) -> bool:
    """A finding code or code prefix (`HY010`, `hy01`, `HY`), as opposed to a glob."""
    return _CODE.fullmatch(pattern) is not None


def split_patterns(values: Iterable[str]) -> tuple[str, ...]:
    """Patterns from option values that may each hold several, separated by commas."""
    return tuple(p.strip() for value in values for p in value.split(",") if p.strip())


def verdict_codes(verdict: FunctionVerdict) -> set[str]:
    codes = {finding.code for finding in verdict.findings}
    if verdict.transformation in TRANSFORMATION_CODES:
        codes.add(TRANSFORMATION_CODES[verdict.transformation])
    return codes


def predicted_to_pay(verdict: FunctionVerdict) -> bool:
    """An addition predicted to pay (benefit "high", or no estimate), or another change."""
    if verdict.transformation != "convert_to_hybrid":
        return True
    return verdict.benefit in (None, "high")


def _matches(pattern: str, verdict: FunctionVerdict, codes: set[str]) -> bool:
    if is_code(pattern):
        prefix = pattern.upper()
        return any(code.startswith(prefix) for code in codes)
    if fnmatchcase(verdict.key, pattern):
        return True
    return SEPARATOR not in pattern and fnmatchcase(verdict.file, pattern)


@dataclass(frozen=True, slots=True)
class Selection:
    """Select and ignore patterns, and whether additions predicted not to pay are made.

    The empty selection selects every change predicted to pay: removals and
    reconfigurations always (they fix or tune an existing decorator), additions
    (`convert_to_hybrid`) when their `benefit` is "high" or was not estimated. With
    `include_low_benefit`, every safe addition.
    """

    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    include_low_benefit: bool = False

    def includes(self, verdict: FunctionVerdict) -> bool:
        if not self.include_low_benefit and not predicted_to_pay(verdict):
            return False
        codes = verdict_codes(verdict)
        if any(_matches(p, verdict, codes) for p in self.ignore):
            return False
        code_patterns = [p for p in self.select if is_code(p)]
        glob_patterns = [p for p in self.select if not is_code(p)]
        if code_patterns and not any(_matches(p, verdict, codes) for p in code_patterns):
            return False
        return not glob_patterns or any(_matches(p, verdict, codes) for p in glob_patterns)

    def matches(self, verdict: FunctionVerdict) -> bool:
        """Whether the patterns alone (not the predicted benefit, not the verdict) pick the
        function: a `--select` that matches no function of the project is most likely a
        typo."""
        return replace(self, include_low_benefit=True).includes(verdict)

    def proposes(self, verdict: FunctionVerdict) -> bool:
        """Whether `hybridize refactor` with this selection changes the function: its verdict
        passes with a transformation, and the selection includes it.

        The one definition of a *proposed* change: the planner, the reports' counts and
        sections, `--fail-on-refactorable` and the editor's diagnostics all ask it, so that
        what `analyze` proposes is what `refactor` makes. (A `# hybridize: ignore` comment,
        read only when the file is planned, can still leave a proposed function alone.)
        """
        return (
            verdict.passes
            and verdict.transformation in TRANSFORMATION_CODES
            and self.includes(verdict)
        )

    def holds_back_for_benefit(self, verdict: FunctionVerdict) -> bool:
        """A safe change this selection leaves out only because it is predicted not to pay:
        what `--include-low-benefit` (`include-low-benefit = true`) would add."""
        if self.include_low_benefit or self.proposes(verdict):
            return False
        return replace(self, include_low_benefit=True).proposes(verdict)

    def unknown_codes(self, known: Iterable[str]) -> list[str]:
        """Code patterns that no known code starts with (most likely typos)."""
        known_codes = [k.upper() for k in known]
        return [
            p
            for p in (*self.select, *self.ignore)
            if is_code(p) and not any(k.startswith(p.upper()) for k in known_codes)
        ]
