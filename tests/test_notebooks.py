"""Jupyter notebooks (hybridize/notebooks.py): the module their code cells form, positions in
cells, and writing edits back with everything else of the notebook byte for byte."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from hybridize.cli import main
from hybridize.notebooks import CellPosition, Notebook, in_cells
from hybridize.refactor.document import notebook_cell_sources
from hybridize.refactor.edits import LineEdit

MODEL = """import tensorflow as tf


def scale(x):
    return tf.reduce_sum(x * 2.0)
"""
CALL = "scale(tf.ones([2]))"


def notebook(*cells: dict[str, Any], language: str = "python") -> dict[str, Any]:
    metadata = {"language_info": {"name": language}, "kernelspec": {"name": "python3"}}
    return {"cells": list(cells), "metadata": metadata, "nbformat": 4, "nbformat_minor": 5}


def code(source: str | list[str], number: int = 1) -> dict[str, Any]:
    return {
        "cell_type": "code",
        "execution_count": number,
        "id": f"id{number}",
        "metadata": {},
        "outputs": [{"output_type": "stream", "name": "stdout", "text": ["é\n"]}],
        "source": source,
    }


def markdown(text: str) -> dict[str, Any]:
    return {"cell_type": "markdown", "id": "md", "metadata": {}, "source": text}


def jupyter_bytes(document: dict[str, Any]) -> bytes:
    return (json.dumps(document, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode()


def test_code_cells_form_one_module_with_ipython_lines_left_out() -> None:
    document = notebook(
        markdown("# Title"),
        code(["%load_ext autoreload\n", '"""Doc."""\n', "import tensorflow as tf"], 1),
        code("%%time\nx = 1\n", 2),
        code(["for i in range(3):\n", "    %time f(i)\n", "files = !ls\n", "tf.reduce_sum?"], 3),
        code("", 4),
    )
    nb = Notebook.from_bytes(jupyter_bytes(document))
    assert isinstance(nb, Notebook)
    assert nb.text == (
        '# IPython\n"""Doc."""\nimport tensorflow as tf\n'
        "for i in range(3):\n    pass  # IPython\n# IPython\n# IPython\n"
    )
    # Cells counted over all cells (the markdown one is cell 1); the cell magic's adds nothing.
    assert nb.cell_map.position(3) == CellPosition(2, 3)
    assert nb.cell_map.position(4) == CellPosition(4, 1)
    assert str(nb.cell_map.position(5)) == "cell 4:2"
    assert nb.cell_map.position(8) is None
    assert nb.cell_map.module_line(4, 2) == 5
    assert nb.unwritable() is None
    assert nb.with_sources({}) == nb.raw
    message = in_cells("SyntaxError: invalid syntax (line 5)", nb.raw)
    assert message == "SyntaxError: invalid syntax (cell 4, line 2)"


def test_edits_go_back_into_their_cells_in_the_source_form_they_had() -> None:
    document = notebook(code(["import tensorflow as tf\n", "%matplotlib inline"], 1), code(MODEL))
    raw = jupyter_bytes(document)
    nb = Notebook.from_bytes(raw)
    assert isinstance(nb, Notebook)
    # The decorator goes before `def scale` (module line 6: cell 2, line 4).
    edits = [LineEdit(6, 6, "@tf.function\n")]
    sources = notebook_cell_sources(nb, edits)
    assert sources == {2: MODEL.replace("def scale", "@tf.function\ndef scale")}
    new = nb.with_sources(sources)
    assert isinstance(new, bytes)
    written = json.loads(new)
    assert written["cells"][0] == document["cells"][0]
    assert written["cells"][1]["source"] == sources[2]  # a string stays a string
    assert new == jupyter_bytes(written)
    # An insertion past the end of the module goes to the last cell, without a newline after
    # its last line when the cell had none.
    listed = notebook(code(["x = 1\n", "y = 2"], 1))
    nb = Notebook.from_bytes(jupyter_bytes(listed))
    assert isinstance(nb, Notebook)
    added = notebook_cell_sources(nb, [LineEdit(3, 3, "z = 3\n")])
    assert added == {1: "x = 1\ny = 2\nz = 3"}
    written = json.loads(nb.with_sources(added))
    assert written["cells"][0]["source"] == ["x = 1\n", "y = 2\n", "z = 3"]


def test_a_notebook_whose_formatting_cannot_be_reproduced_is_not_rewritten(tmp_path: Path) -> None:
    compact = json.dumps(notebook(code(MODEL), code(CALL, 2)), separators=(",", ":")).encode()
    nb = Notebook.from_bytes(compact)
    assert isinstance(nb, Notebook)
    assert nb.unwritable() is not None
    (tmp_path / "nb.ipynb").write_bytes(compact)
    env = {"HYBRIDIZE_CACHE_DIR": str(tmp_path / "cache")}
    arguments = ["refactor", str(tmp_path), "--apply", "--no-config", "--include-low-benefit"]
    result = CliRunner(env=env).invoke(main, arguments)
    assert "formatting cannot be reproduced" in result.output
    assert (tmp_path / "nb.ipynb").read_bytes() == compact


def test_analyze_and_refactor_a_notebook(tmp_path: Path) -> None:
    document = notebook(
        markdown("# Model"), code(["%matplotlib inline\n", MODEL], 1), code(CALL, 2)
    )
    path = tmp_path / "nb.ipynb"
    path.write_bytes(jupyter_bytes(document))
    (tmp_path / ".ipynb_checkpoints").mkdir()
    (tmp_path / ".ipynb_checkpoints" / "nb-checkpoint.ipynb").write_bytes(b"not json")
    env = {"HYBRIDIZE_CACHE_DIR": str(tmp_path / "cache")}
    runner = CliRunner(env=env)
    text = runner.invoke(main, ["analyze", str(tmp_path)])
    assert "nb.ipynb:cell 2:5: scale: refactorable" in text.output
    assert "checkpoint" not in text.output
    report = json.loads(runner.invoke(main, ["analyze", str(tmp_path), "--format", "json"]).output)
    (scale,) = report["functions"]
    assert (scale["file"], scale["line"]) == ("nb.ipynb", 5)  # the module's line
    diff = runner.invoke(
        main, ["refactor", str(tmp_path), "--diff", "--no-config", "--include-low-benefit"]
    ).output
    assert "--- a/nb.ipynb:cell 2\n+++ b/nb.ipynb:cell 2\n" in diff
    assert "+@tf.function\n" in diff
    check = runner.invoke(
        main, ["refactor", str(tmp_path), "--check", "--no-config", "--include-low-benefit"]
    )
    assert check.exit_code == 1
    applied = runner.invoke(
        main, ["refactor", str(tmp_path), "--apply", "--no-config", "--include-low-benefit"]
    )
    assert applied.exit_code == 0, applied.output
    written = json.loads(path.read_bytes())
    assert "".join(written["cells"][1]["source"]).startswith(
        "%matplotlib inline\nimport tensorflow as tf\n\n\n@tf.function\ndef scale(x):"
    )
    assert written["cells"][1]["outputs"] == document["cells"][1]["outputs"]
    assert path.read_bytes() == jupyter_bytes(written)
    check = runner.invoke(
        main, ["refactor", str(tmp_path), "--check", "--no-config", "--include-low-benefit"]
    )
    assert check.exit_code == 0


def test_bad_notebooks_are_reported_not_raised(tmp_path: Path) -> None:
    (tmp_path / "broken.ipynb").write_bytes(b"{not json")
    (tmp_path / "r.ipynb").write_bytes(jupyter_bytes(notebook(code("x <- 1"), language="R")))
    syntax = notebook(markdown("m"), code("x = 1"), code(["def f(:\n", "    pass"], 2))
    (tmp_path / "syntax.ipynb").write_bytes(jupyter_bytes(syntax))
    env = {"HYBRIDIZE_CACHE_DIR": str(tmp_path / "cache")}
    result = CliRunner(env=env).invoke(main, ["analyze", str(tmp_path), "--format", "json"])
    assert result.exit_code == 0
    errors = {e["file"]: e["message"] for e in json.loads(result.output)["errors"]}
    assert "invalid JSON" in errors["broken.ipynb"]
    assert "not Python" in errors["r.ipynb"]
    assert "(cell 3, line 1)" in errors["syntax.ipynb"]


def test_an_edit_of_an_ipython_line_or_across_cells_is_refused() -> None:
    nb = Notebook.from_bytes(jupyter_bytes(notebook(code("x = 1\n%time f()", 1), code("y = 2", 2))))
    assert isinstance(nb, Notebook)
    assert nb.text == "x = 1\n# IPython\ny = 2\n"
    assert "IPython line" in str(notebook_cell_sources(nb, [LineEdit(2, 3, "z = 3\n")]))
    assert "spans two cells" in str(notebook_cell_sources(nb, [LineEdit(1, 4, "z = 3\n")]))
    assert notebook_cell_sources(nb, [LineEdit(1, 2, "")]) == {1: "%time f()"}


def test_a_notebook_alone_is_a_project(tmp_path: Path) -> None:
    path = tmp_path / "nb.ipynb"
    path.write_bytes(jupyter_bytes(notebook(code(MODEL), code(CALL, 2))))
    result = CliRunner(env={"HYBRIDIZE_CACHE_DIR": str(tmp_path / "cache")}).invoke(
        main, ["analyze", str(path)]
    )
    assert "nb.ipynb:cell 1:4: scale:" in result.output
    assert "note:" not in result.output
