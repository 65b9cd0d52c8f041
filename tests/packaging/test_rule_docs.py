"""docs/rules/ is generated from the check registry and must say what the registry says.

A check added, removed, renamed or reworded without running `python -m tools.gen_rule_docs`
leaves the rules reference describing another tool; these tests fail then, naming each page.
"""

from __future__ import annotations

from pathlib import Path

from hybridize.analyzer.checks import registry, safety_checks
from tools.gen_rule_docs import (
    RULES_DIR,
    VERDICTS_DOC,
    docs_out_of_date,
    expected_pages,
    out_of_date,
    parse_docstring,
    rule_page,
    safety_fact_table,
    write_docs,
    write_pages,
)


def test_docs_rules_match_the_registry() -> None:
    problems = docs_out_of_date()
    assert problems == [], (
        "docs/rules/ or the safety-fact table of docs/verdicts.md is out of sync with "
        "hybridize/analyzer/checks "
        f"(run `python -m tools.gen_rule_docs`): {problems}"
    )


def test_every_registered_code_has_a_page_and_an_index_entry() -> None:
    index = (RULES_DIR / "README.md").read_text(encoding="utf-8")
    for code in registry():
        assert (RULES_DIR / f"{code}.md").is_file(), code
        assert f"]({code}.md)" in index, code


def test_a_page_carries_the_check_attributes_and_sections() -> None:
    for code, check in registry().items():
        page = rule_page(check)
        assert page.splitlines()[2] == f"# {code} `{check.name}`"
        assert check.summary in page
        assert f"| Severity | {check.severity} |" in page
        titles = [s.title for s in parse_docstring(check.__doc__ or "").sections]
        assert {"What it detects", "Instead"} <= set(titles), (code, titles)
        assert "## What it detects" in page and "## How to fix" in page, code
        if check.unblock:
            assert f"In short (as the reports say it): {check.unblock}." in page, code
        applies_to = page.split("\n## Frameworks\n\n", 1)[1].split("\n", 1)[0]
        decorators = {"tensorflow": "`@tf.function`", "torch": "`torch.compile`"}
        for name, decorator in decorators.items():
            assert (decorator in applies_to) == (name in check.frameworks), (code, applies_to)


def test_docstring_code_becomes_fenced_blocks() -> None:
    check = registry()["HY201"]
    page = rule_page(check)
    example = page.split("## Example\n", 1)[1].split("\n## ", 1)[0]
    assert example.strip().startswith("```python\ndef scaled_softmax(logits, temperature):")
    assert example.strip().endswith("```")


def test_a_stale_or_extra_page_is_reported_and_rewritten(tmp_path: Path) -> None:
    write_pages(tmp_path)
    assert out_of_date(tmp_path) == []
    (tmp_path / "HY101.md").write_text("edited by hand\n", encoding="utf-8")
    (tmp_path / "HY999.md").write_text("a removed check\n", encoding="utf-8")
    (tmp_path / "HY102.md").unlink()
    assert out_of_date(tmp_path) == [
        "missing HY102.md",
        "not a registered check: HY999.md",
        "out of date HY101.md",
    ]
    write_pages(tmp_path)
    assert out_of_date(tmp_path) == []
    assert sorted(p.name for p in tmp_path.glob("*.md")) == sorted(expected_pages())


def test_the_safety_fact_table_lists_the_decision_table_in_its_order(tmp_path: Path) -> None:
    rows = safety_fact_table().splitlines()[2:]
    assert [row.split("`")[1] for row in rows] == [check.fact for check in safety_checks()]
    for check in safety_checks():
        assert check.fact_meaning.strip(), check.code
    eager = next(row for row in rows if row.startswith("| `has_eager_only_calls` |"))
    assert "| HY301, HY303 |" in eager  # HY303 counts for HY301's fact
    # A table edited by hand is reported, and rewritten between its markers only.
    verdicts = tmp_path / "verdicts.md"
    text = VERDICTS_DOC.read_text(encoding="utf-8")
    edited = text.replace("| `has_eager_only_calls` |", "| `has_eager_calls` |")
    verdicts.write_text(edited, encoding="utf-8")
    rules = tmp_path / "rules"
    write_pages(rules)
    assert docs_out_of_date(rules, verdicts) == ["out of date safety-fact table of verdicts.md"]
    write_docs(rules, verdicts)
    assert verdicts.read_text(encoding="utf-8") == text
