"""The runtime oracle's record, shown at the end of a run that executed it."""

from __future__ import annotations

import sys

import pytest


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    module = sys.modules.get("test_refactor_corpus_oracle")
    records = getattr(module, "ORACLE_RECORDS", None)
    if not records:
        return
    terminalreporter.section("refactoring oracle: corpus programs before and after")
    for record in records:
        verdict = "same digest" if record["equal"] else "DIGEST DIFFERS"
        changed = record["changed"]
        terminalreporter.write_line(f"{record['program']}: {verdict}, {len(changed)} changed")
        for entry in changed:
            terminalreporter.write_line(f"    {entry}")
