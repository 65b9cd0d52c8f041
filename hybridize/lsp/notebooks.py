"""Notebooks open in the editor (LSP notebook document sync): their cells as the project's
notebook, and its diagnostics put on the cells.

An editor that syncs a notebook (`notebookDocument/didOpen`, `didChange`) sends each cell as a
text document of its own (`vscode-notebook-cell:...#cell-id`); the project knows the notebook
by its file (`nb.ipynb`). So the open cells' texts become the notebook's buffer (nbformat JSON
with those sources, `notebook_bytes`), analysed like any buffer, and each diagnostic of the
module it forms goes to the cell that holds its line, in that cell's own line numbers
(`cell_diagnostics`). Code actions and hover are not offered in cells: their edits would be
positions in the module, not in a cell.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from lsprotocol import types

from hybridize.notebooks import CellMap


def notebook_bytes(notebook: types.NotebookDocument, texts: Mapping[str, str]) -> bytes:
    """The open notebook as the bytes of an `.ipynb` file: its cells, in order, with the
    texts the editor holds (`texts`, by cell document URI), markup cells as markdown."""
    cells: list[dict[str, object]] = []
    for cell in notebook.cells:
        source = texts.get(cell.document, "")
        if cell.kind == types.NotebookCellKind.Code:
            cells.append(
                {
                    "cell_type": "code",
                    "execution_count": None,
                    "metadata": {},
                    "outputs": [],
                    "source": source,
                }
            )
        else:
            cells.append({"cell_type": "markdown", "metadata": {}, "source": source})
    document = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    return (json.dumps(document, indent=1, ensure_ascii=False) + "\n").encode("utf-8")


def cell_diagnostics(
    notebook: types.NotebookDocument, cell_map: CellMap, diagnostics: list[types.Diagnostic]
) -> dict[str, list[types.Diagnostic]]:
    """The module's `diagnostics` by cell document URI, in each cell's own lines (every code
    cell has an entry, empty when nothing is reported in it). A diagnostic that would run
    into the next cell ends at its own cell's end."""
    out: dict[str, list[types.Diagnostic]] = {
        c.document: [] for c in notebook.cells if c.kind == types.NotebookCellKind.Code
    }
    lengths = {lines.cell: lines.line_count for lines in cell_map.cells}
    for diagnostic in diagnostics:
        start = cell_map.position(diagnostic.range.start.line + 1)
        if start is None or start.cell > len(notebook.cells):
            continue
        end = cell_map.position(diagnostic.range.end.line + 1)
        if end is not None and end.cell == start.cell:
            last = types.Position(end.line - 1, diagnostic.range.end.character)
        else:
            last = types.Position(lengths[start.cell], 0)
        first = types.Position(start.line - 1, diagnostic.range.start.character)
        uri = notebook.cells[start.cell - 1].document
        out.setdefault(uri, []).append(
            types.Diagnostic(
                range=types.Range(first, last),
                message=diagnostic.message,
                severity=diagnostic.severity,
                code=diagnostic.code,
                code_description=diagnostic.code_description,
                source=diagnostic.source,
            )
        )
    return out
