"""What a detection found at one place, before a check turns it into a finding.

The facts modules are shared machinery: they find where a hazard is and say why in words.
Which code, name and severity that becomes is the business of the check that decides the
code (`hybridize/analyzer/checks`), so a detection helper gives `Evidence`, never a
`Finding`.
"""

from __future__ import annotations

from dataclasses import dataclass

from hybridize.model import Span


@dataclass(frozen=True, slots=True)
class Evidence:
    """A hazard at `span`, in words a user can act on, with other places it involves."""

    message: str
    span: Span
    related: tuple[Span, ...] = ()
