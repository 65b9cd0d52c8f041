"""Every corpus program as a Jupyter notebook: the analysis and the refactoring see the same
program.

Each program's `main.py` becomes `main.ipynb` (split at top-level statements into a few code
cells, some stored as a list of lines and some as one string, after a markdown cell, with a
line magic, a shell line and a help line in the first code cell and a cell magic's cell at the
end). The notebook's functions must get the script's verdicts (same functions, same failures,
same finding codes), and refactoring the notebook must make the script's rewrite: the code
cells after the rewrite, the IPython lines and the cell magic's cell left out, concatenated,
are the rewritten script, and nothing else of the notebook changed.
"""

from __future__ import annotations

import ast
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from corpus_programs import CORPUS
from hybridize.analyzer.summaries.sources import split_lines
from hybridize.model import FunctionVerdict
from hybridize.project import Project, ProjectOptions



def _imported_by_another_file(program: Path) -> bool:
    """Whether another file of the program imports `main` (a test module): a notebook cannot
    be imported, so there the calls it makes are not evidence, and the verdicts differ."""
    return any(
        isinstance(node, ast.ImportFrom) and node.module == "main"
        for other in program.glob("*.py")
        if other.name != "main.py"
        for node in ast.walk(ast.parse(other.read_text(encoding="utf-8")))
    )


PROGRAMS = [
    p.parent for p in sorted(CORPUS.glob("*/*/main.py")) if not _imported_by_another_file(p.parent)
]
IPYTHON_LINES = ["%matplotlib inline\n", "!pip list\n", "tf?\n"]
CELL_MAGIC = "%%time\nprint('done')"


def as_notebook(script: str) -> dict[str, Any]:
    """The script as a notebook: a markdown cell, then up to four code cells cut at top-level
    statements, the IPython lines first, and a cell magic's cell last."""
    tree = ast.parse(script)
    starts = [
        min([s.lineno, *(d.lineno for d in getattr(s, "decorator_list", []))]) for s in tree.body
    ]
    cuts = sorted({starts[len(starts) * k // 4] for k in range(1, 4)} - {starts[0]})
    lines = split_lines(script)
    bounds = [1, *cuts, len(lines) + 1]
    chunks = ["".join(lines[a - 1 : b - 1]) for a, b in zip(bounds, bounds[1:], strict=False)]
    chunks[0] = "".join(IPYTHON_LINES) + chunks[0]
    cells: list[dict[str, Any]] = [
        {"cell_type": "markdown", "id": "intro", "metadata": {}, "source": ["# A program\n", "x"]}
    ]
    for number, chunk in enumerate(chunks):
        # As Jupyter stores them: no newline after a cell's last line (unless it is blank).
        text = chunk[:-1] if chunk.endswith("\n") and not chunk.endswith("\n\n") else chunk
        source: str | list[str] = split_lines(text) if number % 2 == 0 else text
        outputs = [{"name": "stdout", "output_type": "stream", "text": [f"cell {number}\n"]}]
        cells.append(
            {
                "cell_type": "code",
                "execution_count": number + 1,
                "id": f"code-{number}",
                "metadata": {"tags": ["café"]},
                "outputs": outputs,
                "source": source,
            }
        )
    cells.append(
        {
            "cell_type": "code",
            "execution_count": None,
            "id": "timed",
            "metadata": {},
            "outputs": [],
            "source": CELL_MAGIC,
        }
    )
    metadata = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "py3"}}
    return {"cells": cells, "metadata": metadata, "nbformat": 4, "nbformat_minor": 5}


def notebook_bytes(notebook: dict[str, Any]) -> bytes:
    """As nbformat writes notebooks: indent 1, sorted keys, non-ASCII as is, final newline."""
    return (json.dumps(notebook, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode()


def script_of(notebook: dict[str, Any]) -> str:
    """The code cells concatenated, the test's IPython lines and cell magic's cell left out."""
    out: list[str] = []
    for cell in notebook["cells"]:
        source = cell["source"]
        text = "".join(source) if isinstance(source, list) else source
        if cell["cell_type"] != "code" or text == CELL_MAGIC:
            continue
        kept = "".join(line for line in split_lines(text) if line not in IPYTHON_LINES)
        out.append(kept if kept.endswith("\n") or not kept else kept + "\n")
    return "".join(out)


def _verdicts(project: Project, file: str) -> dict[str, tuple[object, ...]]:
    def key(v: FunctionVerdict) -> tuple[object, ...]:
        codes = sorted(f.code for f in v.findings)
        return (v.passes, v.transformation, v.failures, codes, v.facts.has_tensor_parameter)

    return {v.qualname: key(v) for v in project.results().functions if v.file == file}


def test_most_programs_are_converted() -> None:
    assert len(PROGRAMS) >= 20


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_program_as_notebook_is_analysed_and_refactored_as_the_script(
    program: Path, tmp_path: Path
) -> None:
    script_dir, notebook_dir = tmp_path / "script", tmp_path / "notebook"
    shutil.copytree(program, script_dir)
    shutil.copytree(program, notebook_dir)
    script = (program / "main.py").read_text(encoding="utf-8")
    notebook = as_notebook(script)
    assert script_of(notebook) == script
    (notebook_dir / "main.py").unlink()
    raw = notebook_bytes(notebook)
    (notebook_dir / "main.ipynb").write_bytes(raw)

    options = ProjectOptions(use_cache=False, include_low_benefit=True)
    as_script = Project.open(script_dir, options, long_running=False)
    as_notebook_project = Project.open(notebook_dir, options, long_running=False)
    assert not [e for e in as_notebook_project.results().errors if e.file == "main.ipynb"]
    expected = _verdicts(as_script, "main.py")
    assert expected, "every corpus main.py has functions"
    assert _verdicts(as_notebook_project, "main.ipynb") == expected
    others = {v.file for v in as_script.results().functions} - {"main.py"}
    for other in sorted(others):
        assert _verdicts(as_notebook_project, other) == _verdicts(as_script, other)

    script_plan = {f.file: f for f in as_script.plan().files}
    notebook_plan = {f.file: f for f in as_notebook_project.plan().files}
    assert not [n for n in as_notebook_project.plan().notices if n.file == "main.ipynb"]
    if "main.py" not in script_plan:
        assert "main.ipynb" not in notebook_plan
        return
    rewritten = json.loads(notebook_plan["main.ipynb"].new_bytes())
    assert script_of(rewritten) == script_plan["main.py"].new_text
    # Nothing but the edited cells' sources changed, each in its own form (list or string).
    for before, after in zip(notebook["cells"], rewritten["cells"], strict=True):
        assert type(after["source"]) is type(before["source"])
        assert {**after, "source": None} == {**before, "source": None}
    assert {**rewritten, "cells": None} == {**notebook, "cells": None}
    assert notebook_plan["main.ipynb"].new_bytes() == notebook_bytes(rewritten)
