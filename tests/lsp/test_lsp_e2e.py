"""The language server end to end over stdio (pytest-lsp): diagnostics, code actions, hover,
settings, project awareness, positions in the negotiated encoding."""

from __future__ import annotations

import ast
import asyncio
import shutil
import sys
import textwrap
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlparse
from urllib.request import url2pathname

import pytest
import pytest_lsp
from click.testing import CliRunner
from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

from hybridize.analyzer.checks import registry
from hybridize.cli import main
from hybridize.lsp.positions import apply_text_edits

MakeProject = Callable[[dict[str, str | bytes]], Path]

MAIN = """\
    import tensorflow as tf

    from helpers import scale


    def total(x):
        return tf.reduce_sum(scale(x))


    def report(x):
        print("résumé 😀", x)
        return tf.reduce_sum(x)


    if __name__ == "__main__":
        value = tf.constant([1.0, 2.0])
        total(value)
        report(value)
"""

HELPERS = """\
    import tensorflow as tf


    def scale(x):
        return x * 2.0
"""

HELPERS_WITH_EFFECT = """\
import tensorflow as tf

LOG = []


def scale(x):
    LOG.append(x)
    return x * 2.0
"""

EVERY_CHANGE = "[tool.hybridize]\ninclude-low-benefit = true\n"
"""These programs call each function once: the server and the CLI plan every safe change
(the benefit gate has tests of its own)."""

TIMEOUT = 20.0


class RecordingClient(LanguageClient):
    """pytest-lsp's client, also keeping every publication and registration it receives."""

    def __init__(self) -> None:
        super().__init__(converter_factory=default_converter)
        self.published: list[types.PublishDiagnosticsParams] = []
        self.registrations: list[types.Registration] = []


def make_client() -> RecordingClient:
    client = RecordingClient()

    def publish(params: types.PublishDiagnosticsParams) -> None:
        client.published.append(params)
        client.diagnostics[params.uri] = params.diagnostics

    def register(params: types.RegistrationParams) -> None:
        client.registrations.extend(params.registrations)

    register_lsp_features(
        client,
        {
            **DEFAULT_CLIENT_FEATURES,
            types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: publish,
            types.CLIENT_REGISTER_CAPABILITY: register,
        },
    )
    return client


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=[sys.executable, "-m", "hybridize", "lsp"], client_factory=make_client
    )
)
async def client(lsp_client: RecordingClient) -> Any:
    yield
    await lsp_client.shutdown_session()


async def initialize(
    client: LanguageClient,
    root: Path,
    *,
    settings: dict[str, Any] | None = None,
    encodings: list[str] | None = None,
) -> types.InitializeResult:
    capabilities = client_capabilities("visual-studio-code")
    if encodings is not None:
        capabilities.general = types.GeneralClientCapabilities(position_encodings=encodings)
    if settings is not None:
        client.set_configuration(settings, section="hybridize")
    return await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities,
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="project")],
        )
    )


async def diagnostics_until(
    client: LanguageClient,
    uri: str,
    wanted: Callable[[list[types.Diagnostic]], bool],
) -> list[types.Diagnostic]:
    """The first diagnostics published for `uri` (already or from now on) that `wanted`
    accepts; fails after TIMEOUT seconds."""

    async def wait() -> list[types.Diagnostic]:
        while True:
            current = list(client.diagnostics.get(uri, []))
            if uri in client.diagnostics and wanted(current):
                return current
            await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)

    return await asyncio.wait_for(wait(), TIMEOUT)


def codes_by_line(diagnostics: list[types.Diagnostic]) -> set[tuple[str, int]]:
    return {(str(d.code), d.range.start.line) for d in diagnostics}


def open_file(client: LanguageClient, path: Path, text: str | None = None) -> str:
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri,
                language_id="python",
                version=1,
                text=path.read_text(encoding="utf-8") if text is None else text,
            )
        )
    )
    return uri


def change_file(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


async def actions_at(
    client: LanguageClient, uri: str, line: int, diagnostics: list[types.Diagnostic]
) -> list[types.CodeAction]:
    result = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(
                start=types.Position(line=line, character=0),
                end=types.Position(line=line, character=0),
            ),
            context=types.CodeActionContext(diagnostics=diagnostics),
        )
    )
    assert result is not None
    return [a for a in result if isinstance(a, types.CodeAction)]


def applied(action: types.CodeAction, uri: str, text: str, encoding: str = "utf-16") -> str:
    assert action.edit is not None and action.edit.changes is not None
    return apply_text_edits(text, action.edit.changes[uri], encoding)


def cli_refactor(root: Path, tmp_path: Path, files: dict[str, str], *options: str) -> Path:
    """A copy of `root` with `files` written over it and refactored by the CLI."""
    copy = tmp_path / f"cli-{len(list(tmp_path.iterdir()))}"
    shutil.copytree(root, copy)
    for name, text in files.items():
        (copy / name).write_text(text, encoding="utf-8")
    outcome = CliRunner().invoke(main, ["refactor", str(copy), "--apply", "--no-cache", *options])
    assert outcome.exit_code == 0, outcome.output
    return copy


@pytest.mark.asyncio
async def test_diagnose_fix_ignore_and_survive_a_syntax_error(
    client: LanguageClient, make_project: MakeProject, tmp_path: Path
) -> None:
    root = make_project({"main.py": MAIN, "helpers.py": HELPERS, "pyproject.toml": EVERY_CHANGE})
    await initialize(client, root)
    text = (root / "main.py").read_text()
    uri = open_file(client, root / "main.py")
    diagnostics = await diagnostics_until(client, uri, lambda d: bool(d))
    [hy010] = [d for d in diagnostics if d.code == "HY010"]
    assert hy010.severity == types.DiagnosticSeverity.Information
    assert hy010.range.start == types.Position(line=5, character=4)  # the name `total`
    assert hy010.range.end == types.Position(line=5, character=9)
    assert "total" in hy010.message and "add @tf.function" in hy010.message
    assert hy010.code_description is not None
    href = hy010.code_description.href
    assert href.startswith("file:")  # the cache folder is writable here
    docs = Path(url2pathname(urlparse(href).path)).read_text(encoding="utf-8")
    assert docs == registry()["HY010"].documentation()  # what `hybridize explain` prints
    assert all(d.severity != types.DiagnosticSeverity.Hint for d in diagnostics)  # off

    # The quick fix and the source action write what `hybridize refactor` writes.
    actions = await actions_at(client, uri, 5, [hy010])
    quick = next(a for a in actions if a.kind == types.CodeActionKind.QuickFix and "add" in a.title)
    fixed = applied(quick, uri, text)
    ast.parse(fixed)
    expected = cli_refactor(root, tmp_path, {}, "--select", "main.py::total")
    assert fixed == (expected / "main.py").read_text()
    source = next(a for a in actions if a.kind == "source.hybridize")
    everything = cli_refactor(root, tmp_path, {})
    assert applied(source, uri, text) == (everything / "main.py").read_text()

    # An edited buffer: positions move, edits are made on the buffer, the disk is untouched.
    buffer = "# a new first line\n" + text
    change_file(client, uri, 2, buffer)
    moved = await diagnostics_until(client, uri, lambda d: ("HY010", 6) in codes_by_line(d))
    actions = await actions_at(client, uri, 6, moved)
    source = next(a for a in actions if a.kind == "source.hybridize")
    expected = cli_refactor(root, tmp_path, {"main.py": buffer})
    assert applied(source, uri, buffer) == (expected / "main.py").read_text()
    assert (root / "main.py").read_text() == text

    # A text that does not parse keeps the last good diagnostics and offers nothing.
    good = list(client.diagnostics[uri])
    change_file(client, uri, 3, buffer.replace("def total(x):", "def total(x:"))
    await asyncio.sleep(1.0)  # ten debounce periods: long enough for a publish to arrive
    assert list(client.diagnostics[uri]) == good
    assert await actions_at(client, uri, 6, []) == []

    # "Ignore this function" writes the comment; the diagnostic goes away.
    change_file(client, uri, 4, buffer)
    await diagnostics_until(client, uri, lambda d: ("HY010", 6) in codes_by_line(d))
    actions = await actions_at(client, uri, 6, [])
    ignore = next(a for a in actions if "ignore total" in a.title)
    ignored = applied(ignore, uri, buffer)
    assert "\n# hybridize: ignore\ndef total(x):\n" in ignored
    change_file(client, uri, 5, ignored)
    await diagnostics_until(client, uri, lambda d: all(x.code != "HY010" for x in d))


@pytest.mark.asyncio
async def test_project_awareness_buffers_watched_files_and_deletion(
    client: LanguageClient, make_project: MakeProject
) -> None:
    root = make_project({"main.py": MAIN, "helpers.py": HELPERS, "pyproject.toml": EVERY_CHANGE})
    await initialize(client, root)
    main_uri = open_file(client, root / "main.py")
    await diagnostics_until(client, main_uri, lambda d: ("HY010", 5) in codes_by_line(d))
    # Another file's buffer: `scale` now mutates a module-level list, so `total` has a side
    # effect and loses its decorator.
    helpers_uri = open_file(client, root / "helpers.py")
    change_file(client, helpers_uri, 2, HELPERS_WITH_EFFECT)
    await diagnostics_until(client, main_uri, lambda d: ("HY010", 5) not in codes_by_line(d))
    # Closed again, the disk counts: `total` is refactorable again.
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=helpers_uri)
        )
    )
    await diagnostics_until(client, main_uri, lambda d: ("HY010", 5) in codes_by_line(d))
    # Changed on disk and reported by the watcher.
    (root / "helpers.py").write_text(HELPERS_WITH_EFFECT)
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=helpers_uri, type=types.FileChangeType.Changed)]
        )
    )
    await diagnostics_until(client, main_uri, lambda d: ("HY010", 5) not in codes_by_line(d))
    # A rename over it brings the pure helper back.
    (root / "fresh.py").write_text(textwrap.dedent(HELPERS))
    (root / "fresh.py").replace(root / "helpers.py")
    client.workspace_did_rename_files(
        types.RenameFilesParams(
            files=[types.FileRename(old_uri=(root / "fresh.py").as_uri(), new_uri=helpers_uri)]
        )
    )
    await diagnostics_until(client, main_uri, lambda d: ("HY010", 5) in codes_by_line(d))
    # The open file disappears from the disk: its buffer still counts, the server goes on.
    (root / "main.py").unlink()
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=main_uri, type=types.FileChangeType.Deleted)]
        )
    )
    hovered = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=main_uri),
            position=types.Position(line=5, character=6),
        )
    )
    assert hovered is not None
    # The server asked to be told about changes on disk.
    assert isinstance(client, RecordingClient)
    assert any(r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES for r in client.registrations)


@pytest.mark.asyncio
async def test_hover_outside_the_project_and_debouncing(
    client: LanguageClient, make_project: MakeProject
) -> None:
    root = make_project({"main.py": MAIN, "helpers.py": HELPERS, "pyproject.toml": EVERY_CHANGE})
    await initialize(client, root)
    uri = open_file(client, root / "main.py")
    await diagnostics_until(client, uri, lambda d: bool(d))

    async def hover_at(uri: str, line: int, character: int) -> types.Hover | None:
        return await client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=types.Position(line=line, character=character),
            )
        )

    over_total = await hover_at(uri, 5, 6)
    assert over_total is not None and isinstance(over_total.contents, types.MarkupContent)
    assert "refactorable (convert_to_hybrid)" in over_total.contents.value
    assert "- takes tensors: yes" in over_total.contents.value
    assert "`x`: tensor yes (float32 (2))" in over_total.contents.value
    over_report = await hover_at(uri, 9, 5)
    assert over_report is not None and isinstance(over_report.contents, types.MarkupContent)
    assert "Blocked by:" in over_report.contents.value
    assert "line 11: HY101" in over_report.contents.value
    assert await hover_at(uri, 0, 2) is None
    # A document outside the workspace gets nothing, and nothing fails.
    assert await hover_at((root.parent / "elsewhere.py").as_uri(), 0, 0) is None

    # Quick edits are debounced: the first of a burst is analysed at once (the document had
    # been quiet), the ones close behind it wait for quiet, and only the last is analysed
    # then: versions 3 to 5 are never published.
    assert isinstance(client, RecordingClient)
    text = (root / "main.py").read_text()
    before = len(client.published)
    for version in range(2, 7):  # five quick edits, each moving `total` one line down
        change_file(client, uri, version, "#\n" * (version - 1) + text)
    await diagnostics_until(client, uri, lambda d: ("HY010", 10) in codes_by_line(d))
    await asyncio.sleep(1.0)
    burst = [p for p in client.published[before:] if p.uri == uri]
    assert [p.version for p in burst] in ([6], [2, 6])
    # Saving publishes at once.
    saved = len(client.published)
    client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    await diagnostics_until(client, uri, lambda d: len(client.published) > saved)
    assert client.published[-1].version == 6


@pytest.mark.asyncio
@pytest.mark.parametrize(("encoding", "column"), [("utf-8", 27), ("utf-16", 24)])
async def test_settings_and_hints_in_the_negotiated_encoding(
    client: LanguageClient, make_project: MakeProject, encoding: str, column: int
) -> None:
    """A print after an emoji and an é (code-point column 23): they take 6 UTF-8 bytes and 3
    UTF-16 units. The pyproject's ignore applies; the editor's setting turns hints on."""
    source = textwrap.dedent(MAIN).replace(
        '    print("résumé 😀", x)\n', '    label = "😀" + "é"; print(label, x)\n'
    )
    root = make_project(
        {
            "main.py": source,
            "helpers.py": HELPERS,
            "pyproject.toml": EVERY_CHANGE + 'ignore = ["*::total"]\ncolour = true\n',
        }
    )
    result = await initialize(client, root, settings={"hints": True}, encodings=[encoding])
    assert result.capabilities.position_encoding == encoding
    uri = open_file(client, root / "main.py")
    diagnostics = await diagnostics_until(
        client, uri, lambda d: any(x.severity == types.DiagnosticSeverity.Hint for x in d)
    )
    [hint] = [d for d in diagnostics if d.code == "HY101"]
    assert hint.range.start == types.Position(line=10, character=column)
    assert all(d.code != "HY010" for d in diagnostics)  # ignored by [tool.hybridize]
    # The configuration's warnings reach the client's log (also from the worker thread).
    warned = [m for m in client.log_messages if "unknown key 'colour'" in m.message]
    assert len(warned) >= 2 and all(m.type == types.MessageType.Warning for m in warned)


@pytest.mark.asyncio
async def test_a_workspace_large_enough_for_summary_workers_is_diagnosed(
    client: LanguageClient, make_project: MakeProject
) -> None:
    """From PARALLEL_THRESHOLD files on, the project is summarised by worker processes, which
    the server starts while its other thread reads stdin. Forked, they could inherit that
    thread's stdin lock and hang (whether they do depends on timing: the benchmark's 20,000
    lines hung every time; tests/analyzer/test_workers.py holds the lock for certain)."""
    from hybridize.analyzer.summaries.file_summaries import PARALLEL_THRESHOLD

    run = uuid.uuid4().hex  # new files every run: none of them is in the summary cache
    files: dict[str, str | bytes] = {
        f"layer_{i}.py": f"# {run}\nimport tensorflow as tf\n\n\ndef layer_{i}(x):\n    return x * {i}.0\n"
        for i in range(PARALLEL_THRESHOLD)
    }
    files.update({"main.py": MAIN, "helpers.py": HELPERS, "pyproject.toml": EVERY_CHANGE})
    root = make_project(files)
    await initialize(client, root)
    uri = open_file(client, root / "main.py")
    diagnostics = await diagnostics_until(client, uri, lambda d: bool(d))
    assert ("HY010", 5) in codes_by_line(diagnostics)


NOTEBOOK_CELLS = [
    ("markdown", "# Training"),
    ("code", "import tensorflow as tf\n\nfrom helpers import scale"),
    ("code", "%matplotlib inline\n\ndef total(x):\n    return tf.reduce_sum(scale(x))"),
    ("code", "total(tf.constant([1.0, 2.0]))"),
]


def notebook_file(cells: list[tuple[str, str]]) -> bytes:
    """An .ipynb file with the given (kind, source) cells, as Jupyter writes it."""
    import json

    document = {
        "cells": [
            {"cell_type": kind, "metadata": {}, "source": source}
            | ({"execution_count": None, "outputs": []} if kind == "code" else {})
            for kind, source in cells
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return (json.dumps(document, indent=1, sort_keys=True) + "\n").encode()


@pytest.mark.asyncio
async def test_a_synced_notebook_gets_diagnostics_on_its_cells(
    client: LanguageClient, make_project: MakeProject
) -> None:
    root = make_project(
        {
            "helpers.py": HELPERS,
            "pyproject.toml": EVERY_CHANGE,
            "nb.ipynb": notebook_file(NOTEBOOK_CELLS),
        }
    )
    capabilities = client_capabilities("visual-studio-code")
    capabilities.notebook_document = types.NotebookDocumentClientCapabilities(
        synchronization=types.NotebookDocumentSyncClientCapabilities()
    )
    answer = await client.initialize_session(
        types.InitializeParams(capabilities=capabilities, root_uri=root.as_uri())
    )
    assert answer.capabilities.notebook_document_sync is not None
    notebook_uri = (root / "nb.ipynb").as_uri()
    cell_uris = [f"vscode-notebook-cell:{root / 'nb.ipynb'}#c{i}" for i in range(4)]
    kinds = {"code": types.NotebookCellKind.Code, "markdown": types.NotebookCellKind.Markup}
    client.notebook_document_did_open(
        types.DidOpenNotebookDocumentParams(
            notebook_document=types.NotebookDocument(
                uri=notebook_uri,
                notebook_type="jupyter-notebook",
                version=1,
                cells=[
                    types.NotebookCell(kind=kinds[kind], document=uri)
                    for (kind, _), uri in zip(NOTEBOOK_CELLS, cell_uris, strict=True)
                ],
            ),
            cell_text_documents=[
                types.TextDocumentItem(
                    uri=uri,
                    language_id="python" if kind == "code" else "markdown",
                    version=1,
                    text=text,
                )
                for (kind, text), uri in zip(NOTEBOOK_CELLS, cell_uris, strict=True)
            ],
        )
    )
    # `total` is line 3 of cell 3 (0-based line 2, after the magic and a blank line).
    found = await diagnostics_until(client, cell_uris[2], lambda d: bool(d))
    assert codes_by_line(found) == {("HY010", 2)}
    assert found[0].range.start == types.Position(line=2, character=4)
    assert not client.diagnostics.get(cell_uris[1])

    # An edit of the cell moves the diagnostic within it.
    client.notebook_document_did_change(
        types.DidChangeNotebookDocumentParams(
            notebook_document=types.VersionedNotebookDocumentIdentifier(
                version=2, uri=notebook_uri
            ),
            change=types.NotebookDocumentChangeEvent(
                cells=types.NotebookDocumentCellChanges(
                    text_content=[
                        types.NotebookDocumentCellContentChanges(
                            document=types.VersionedTextDocumentIdentifier(
                                uri=cell_uris[2], version=2
                            ),
                            changes=[
                                types.TextDocumentContentChangeWholeDocument(
                                    text="# moved\n" + NOTEBOOK_CELLS[2][1]
                                )
                            ],
                        )
                    ]
                )
            ),
        )
    )
    moved = await diagnostics_until(
        client, cell_uris[2], lambda d: ("HY010", 3) in codes_by_line(d)
    )
    assert len(moved) == 1
