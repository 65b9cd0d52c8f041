"""Work-done progress while the language server analyses a project (pytest-lsp over stdio):
begin, reports and end in order with rising percentages for a client that shows progress,
nothing for one that did not announce it, nothing for an edit re-solved incrementally."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from hybridize.progress import ProgressStep, Stage

MakeProject = Callable[[dict[str, str | bytes]], Path]

TIMEOUT = 20.0

MODULE = """\
import tensorflow as tf


def step_{n}(x):
    return tf.reduce_sum(x * {n}.0)


def report_{n}(x):
    print("step", x)
    return tf.reduce_sum(x)
"""

FILES: dict[str, str | bytes] = {f"module_{n}.py": MODULE.format(n=n) for n in range(4)}


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[sys.executable, "-m", "hybridize", "lsp"])
)
async def client(lsp_client: LanguageClient) -> Any:
    yield
    await lsp_client.shutdown_session()


async def open_and_wait(client: LanguageClient, root: Path, *, progress: bool) -> str:
    """Initialise with or without the window.workDoneProgress capability, open module_0.py
    and wait for its diagnostics; returns its URI."""
    capabilities = client_capabilities("visual-studio-code")
    capabilities.window = types.WindowClientCapabilities(work_done_progress=progress)
    capabilities.workspace = None  # no settings to ask for, no files to watch
    await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities,
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="project")],
        )
    )
    path = root / "module_0.py"
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="python", version=1, text=path.read_text(encoding="utf-8")
            )
        )
    )
    await diagnostics_of(client, uri)
    return uri


async def diagnostics_of(client: LanguageClient, uri: str) -> None:
    async def wait() -> None:
        while uri not in client.diagnostics:
            await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)

    await asyncio.wait_for(wait(), TIMEOUT)


async def ended(client: LanguageClient) -> list[Any]:
    """The values of the one progress token once its end arrived."""

    async def wait() -> list[Any]:
        while True:
            reports = list(client.progress_reports.values())
            if reports and reports[-1] and isinstance(reports[-1][-1], types.WorkDoneProgressEnd):
                return reports[-1]
            await client.wait_for_notification(types.PROGRESS)

    return await asyncio.wait_for(wait(), TIMEOUT)


@pytest.mark.asyncio
async def test_opening_a_project_shows_its_progress_begin_reports_end(
    client: LanguageClient, make_project: MakeProject
) -> None:
    root = make_project(FILES)
    uri = await open_and_wait(client, root, progress=True)
    values = await ended(client)
    assert len(client.progress_reports) == 1  # one token, created before it was used
    begin, *reports, end = values
    assert isinstance(begin, types.WorkDoneProgressBegin) and begin.title == "hybridize"
    assert reports and all(isinstance(r, types.WorkDoneProgressReport) for r in reports)
    assert isinstance(end, types.WorkDoneProgressEnd)
    percentages = [begin.percentage, *(r.percentage for r in reports)]
    assert all(p is not None and 0 <= p <= 100 for p in percentages)
    assert percentages == sorted(percentages)
    assert percentages[-1] == 100
    messages = [begin.message, *(r.message for r in reports)]
    assert messages[0] == "summarising 0/4 files"
    assert "solving the facts" in messages
    assert messages[-1] == "deciding 8/8 functions"

    # A body edit is re-solved incrementally: quick, and no new progress.
    text = (root / "module_0.py").read_text(encoding="utf-8")
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[
                types.TextDocumentContentChangeWholeDocument(text=text.replace("0.0", "2.0"))
            ],
        )
    )
    await asyncio.wait_for(
        client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), TIMEOUT
    )
    assert len(client.progress_reports) == 1


@pytest.mark.asyncio
async def test_a_client_without_the_capability_gets_no_progress(
    client: LanguageClient, make_project: MakeProject
) -> None:
    root = make_project(FILES)
    await open_and_wait(client, root, progress=False)
    await asyncio.sleep(0.5)  # what would have followed the diagnostics has arrived
    assert client.progress_reports == {}


def test_a_step_in_words_and_as_a_share_of_the_whole_analysis() -> None:
    steps = [
        ProgressStep(Stage.SUMMARIES, 0, 10),
        ProgressStep(Stage.SUMMARIES, 10, 10),
        ProgressStep(Stage.FACTS, 0, 1),
        ProgressStep(Stage.VERDICTS, 1, 4),
        ProgressStep(Stage.VERDICTS, 4, 4),
    ]
    assert [s.percentage for s in steps] == [0, 20, 20, 62, 100]
    assert [s.message for s in steps[1:4]] == [
        "summarising 10/10 files",
        "solving the facts",
        "deciding 1/4 functions",
    ]
    assert ProgressStep(Stage.VERDICTS, 0, 0).percentage == 50  # nothing to decide
