"""Every registered check: its embedded examples hold, and its documentation is complete.

In each INVALID program the analysis must report a finding with the check's code on the
function named by `EXAMPLE_FUNCTION`, starting exactly on the lines marked `# expect: HYnnn`;
in each VALID program it must not. The examples are the
executable specification of the check.
"""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from hybridize.analyzer.checks import Check, registry
from hybridize.cli import main
from hybridize.model import FunctionVerdict
from hybridize.project import Project, ProjectOptions

SECTIONS = ("What it detects", "Why it matters in graph mode", "Example", "Instead")
SEVERITIES = ("info", "warning", "error")

CHECKS = list(registry().values())


def _examples() -> list[object]:
    cases: list[object] = []
    for check in CHECKS:
        for kind, programs in (("valid", check.VALID), ("invalid", check.INVALID)):
            for i, source in enumerate(programs):
                cases.append(pytest.param(check, kind, source, id=f"{check.code}-{kind}-{i}"))
    return cases


def _verdict(source: str, qualname: str, *, infer: bool = False) -> FunctionVerdict:
    options = ProjectOptions(infer, use_cache=False)
    result = Project.from_texts({"example.py": source}, options).results()
    found = [v for v in result.functions if v.qualname == qualname]
    names = sorted(v.qualname for v in result.functions)
    # An example that does not parse has no function: its error says why.
    assert found, f"no verdict for {qualname!r}; functions: {names}; errors: {result.errors}"
    return found[0]


@pytest.mark.parametrize(("check", "kind", "source"), _examples())
def test_example(check: type[Check], kind: str, source: str) -> None:
    verdict = _verdict(source, check.EXAMPLE_FUNCTION, infer=check.INFER_INPUT_SIGNATURES)
    codes = [f.code for f in verdict.findings]
    detail = (
        f"findings: {[(f.code, f.message) for f in verdict.findings]}, failures: {verdict.failures}"
    )
    if kind == "invalid":
        assert check.code in codes, f"{check.code} not reported; {detail}"
        lines = {f.span.start_line for f in verdict.findings if f.code == check.code}
        assert lines == expected_lines(source, check.code), detail
    else:
        assert check.code not in codes, f"{check.code} wrongly reported; {detail}"
        assert not expected_lines(source, check.code), "a valid example marks an expected line"


EXPECT = re.compile(r"#\s*expect:\s*(HY\d{3}(?:\s*,\s*HY\d{3})*)\s*$")


def expected_lines(source: str, code: str) -> set[int]:
    """Lines marked `# expect: HYnnn` (several codes comma-separated): where the example's
    findings of that code must start, so that a finding pointing at the wrong statement
    fails like a missing one."""
    marked = set()
    for number, line in enumerate(source.splitlines(), 1):
        match = EXPECT.search(line)
        if match and code in {c.strip() for c in match.group(1).split(",")}:
            marked.add(number)
    return marked


def test_every_invalid_example_marks_its_lines() -> None:
    """Each INVALID program says where its findings go."""
    unmarked = [
        f"{check.code} invalid-{i}"
        for check in CHECKS
        for i, source in enumerate(check.INVALID, 1)
        if not expected_lines(source, check.code)
    ]
    assert not unmarked


def test_registry_is_not_empty() -> None:
    assert len(CHECKS) >= 30


@pytest.mark.parametrize("check", CHECKS, ids=[c.code for c in CHECKS])
def test_documentation(check: type[Check]) -> None:
    assert re.fullmatch(r"HY\d{3}", check.code)
    assert check.name and re.fullmatch(r"[a-z_]+", check.name)
    assert check.severity in SEVERITIES
    assert check.summary.strip() and "\n" not in check.summary
    assert check.EXAMPLE_FUNCTION
    headings = [line.strip() for line in (check.__doc__ or "").splitlines()]
    for section in SECTIONS:
        assert section in headings, f"{check.code}: missing section heading {section!r}"
    positions = [headings.index(section) for section in SECTIONS]
    assert positions == sorted(positions), f"{check.code}: sections out of order"
    documentation = check.documentation()
    assert check.code in documentation
    assert check.summary in documentation


def test_codes_are_unique() -> None:
    """The registry keys by code, so a duplicate would silently hide a check."""
    stack = list(Check.__subclasses__())
    codes: list[str] = []
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        # The package's checks (a test may define its own and register it for a while).
        if cls.code and cls.__module__.startswith("hybridize.analyzer.checks."):
            codes.append(cls.code)
    assert len(codes) == len(set(codes)), sorted(c for c in codes if codes.count(c) > 1)
    assert set(codes) == set(registry())


@pytest.mark.parametrize("check", CHECKS, ids=[c.code for c in CHECKS])
def test_explain_prints_documentation(check: type[Check]) -> None:
    result = CliRunner().invoke(main, ["explain", check.code.lower()])
    assert result.exit_code == 0, result.output
    assert result.output == check.documentation()
    for section in SECTIONS:
        assert section in result.output
