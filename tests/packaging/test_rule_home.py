"""A rule has one home, its check module (docs/architecture.md, "Where a new rule goes"): the
engine and the decisions run the registry and name no rule.

1. No module of `hybridize/analyzer` outside `checks/` imports an individual check module,
   but for the tool's errors (HY9xx), which the engine makes. What the engine or the
   incremental phase needs of a rule, the rule declares on its check (`Check.project_fact`,
   `caller_tables`, `caller_answers`, `remembered_reads` / `changed_reads`,
   `keeps_decorator`), and they read it from the registry.
2. `engine.ProjectWide` (the facts an incremental phase compares before keeping any verdict)
   holds the engine's own facts and the registry's project facts (`checks`), no field of a
   rule: a new rule's project-wide fact is its `project_fact`.

Checked on the source text (`ast`), like tests/packaging/test_module_hygiene.py.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ANALYZER = REPO / "hybridize" / "analyzer"
ENGINE = ANALYZER / "engine.py"
CHECK_MODULE = re.compile(r"^hybridize\.analyzer\.checks\.hy(\d)\d\d_\w+$")
"""An individual check module, with its family's digit (9: the tool's errors)."""
TOOL_ERRORS = "9"
ENGINE_PROJECT_FACTS = frozenset({"modules", "compiled", "variation", "taped"})
"""`ProjectWide`'s own facts: candidacy, the framework-compiled functions and the literals'
variation, which the engine computes for every check (none is a rule's), and the functions
recorded on a gradient tape, which the benefit estimate reads. A new entry here must be of
the same kind: read by the phase itself, not by one check's detection."""


def imported_check_modules(path: Path) -> list[tuple[int, str]]:
    """The individual check modules a module imports (any form), with their lines."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module is not None and node.level == 0:
            found.append((node.lineno, node.module))
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
    return [(line, name) for line, name in found if CHECK_MODULE.match(name)]


def rule_imports(root: Path) -> list[str]:
    """`file:line module` for each import of a rule's check module under `root` (the
    analyzer) outside its `checks/`."""
    found = []
    for path in sorted(root.rglob("*.py")):
        if root / "checks" in path.parents:
            continue
        for line, name in imported_check_modules(path):
            match = CHECK_MODULE.match(name)
            assert match is not None
            if match.group(1) != TOOL_ERRORS:
                found.append(f"{path.relative_to(root.parent)}:{line} {name}")
    return found


def dataclass_fields(path: Path, class_name: str) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    [cls] = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == class_name]
    return [
        n.target.id
        for n in cls.body
        if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
    ]


def test_the_analyzer_imports_no_rules_check_module_outside_the_checks() -> None:
    assert rule_imports(ANALYZER) == []


def test_project_wide_holds_the_engines_facts_and_the_registrys_alone() -> None:
    fields = dataclass_fields(ENGINE, "ProjectWide")
    assert set(fields) - {"checks"} == ENGINE_PROJECT_FACTS
    assert "checks" in fields


def test_the_guard_sees_a_rule_imported_by_the_engine(tmp_path: Path) -> None:
    """The rule reads what it is meant to: a hazard check imported in any form is reported,
    the tool's errors are not, nor is a check module importing another."""
    analyzer = tmp_path / "analyzer"
    (analyzer / "checks").mkdir(parents=True)
    (analyzer / "decisions").mkdir()
    (analyzer / "engine.py").write_text(
        "from hybridize.analyzer.checks.hy430_returned_intermediates_differentiated import x\n"
        "from hybridize.analyzer.checks.hy902_internal_error import InternalError\n"
        "from hybridize.analyzer.checks import applies\n",
        encoding="utf-8",
    )
    (analyzer / "decisions" / "table.py").write_text(
        "from hybridize.analyzer.checks import hy411_seeded_global_random\n"
        "import hybridize.analyzer.checks.hy101_print\n",
        encoding="utf-8",
    )
    (analyzer / "checks" / "hy999_x.py").write_text(
        "from hybridize.analyzer.checks.hy101_print import Print\n", encoding="utf-8"
    )
    assert rule_imports(analyzer) == [
        "analyzer/decisions/table.py:1 hybridize.analyzer.checks.hy411_seeded_global_random",
        "analyzer/decisions/table.py:2 hybridize.analyzer.checks.hy101_print",
        "analyzer/engine.py:1 "
        "hybridize.analyzer.checks.hy430_returned_intermediates_differentiated",
    ]
